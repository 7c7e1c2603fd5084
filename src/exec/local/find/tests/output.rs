//! localFindFiles' sorting, limit, pages, character windows and result fields, on the
//! fixture tree of the parent module.

use super::{call, hints, paths, query, tree};
use crate::exec::local::find::run;
use crate::exec::outcome::Status;
use serde_json::{json, Value};

/// The fixture's files (node_modules left out), with `extra` fields on the query.
fn files_query(extra: Value) -> Value {
    let mut q = json!({"path": ".", "type": "f", "excludeDir": ["node_modules"]});
    for (k, v) in extra.as_object().unwrap() {
        q[k] = v.clone();
    }
    q
}

#[test]
fn sort_orders() {
    let (_d, s) = tree();
    let with = files_query;
    assert_eq!(
        paths(&s, with(json!({"sortBy": "size"}))),
        [
            "big.bin",
            "src/lib.rs",
            "docs/README.md",
            "src/main.rs",
            "scripts/run.sh",
            "src/util/deep/a/b/note.txt",
            "src/util/helpers.RS"
        ]
    );
    assert_eq!(
        paths(&s, with(json!({"sortBy": "name"}))),
        [
            "docs/README.md",
            "big.bin",
            "src/util/helpers.RS",
            "src/lib.rs",
            "src/main.rs",
            "src/util/deep/a/b/note.txt",
            "scripts/run.sh"
        ]
    );
    assert_eq!(
        paths(&s, with(json!({}))),
        [
            "src/main.rs",
            "scripts/run.sh",
            "src/lib.rs",
            "src/util/deep/a/b/note.txt",
            "docs/README.md",
            "big.bin",
            "src/util/helpers.RS"
        ]
    );
}

#[test]
fn limits_and_pages() {
    let (_d, s) = tree();
    let with = files_query;
    // The limit keeps the best entries by the sort order, not the first ones walked.
    let top = call(&s, with(json!({"sortBy": "size", "limit": 2}))).unwrap();
    assert_eq!(top.data["files"].as_array().unwrap().len(), 2);
    assert_eq!(top.data["files"][0]["path"], "big.bin");
    assert!(
        hints(&top).contains("7 entries matched; the first 2"),
        "{}",
        hints(&top)
    );

    let page2 = call(
        &s,
        with(json!({"sortBy": "path", "filesPerPage": 3, "filePageNumber": 2})),
    )
    .unwrap();
    let got: Vec<&str> = page2.data["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        ["src/lib.rs", "src/main.rs", "src/util/deep/a/b/note.txt"]
    );
    assert_eq!(
        page2.data["pagination"],
        json!({"currentPage": 2, "totalPages": 3, "filesPerPage": 3, "totalFiles": 7, "hasMore": true})
    );
    let h = hints(&page2);
    assert!(
        h.contains("Page 2/3 (showing 3 of 7)") && h.contains("Next: filePageNumber=3"),
        "{h}"
    );
    assert!(h.contains("localGetFileContent path='src/lib.rs'"), "{h}");
    let past = call(&s, with(json!({"filesPerPage": 3, "filePageNumber": 9}))).unwrap();
    assert_eq!(past.status, Status::Empty);
    assert!(
        hints(&past).contains("past the last page"),
        "{}",
        hints(&past)
    );
}

#[test]
fn details_and_times_are_optional_fields() {
    let (_d, s) = tree();
    let full = call(&s, json!({"path": "scripts", "type": "f"})).unwrap();
    let f = &full.data["files"][0];
    assert_eq!(f["path"], "scripts/run.sh");
    assert_eq!(f["type"], "file");
    assert_eq!(f["size"], 50);
    assert_eq!(f["sizeFormatted"], "50B");
    assert_eq!(f["permissions"], "755");
    let modified = crate::time::parse_rfc3339(f["modified"].as_str().unwrap()).unwrap();
    let age = time::OffsetDateTime::now_utc() - modified;
    assert!((age.whole_hours() - 48).abs() <= 1, "{age}");
    let bare = call(
        &s,
        json!({"path": "scripts", "type": "f", "details": false, "showFileLastModified": false}),
    )
    .unwrap();
    assert_eq!(
        bare.data["files"][0],
        json!({"path": "scripts/run.sh", "type": "file"})
    );
    let dir = call(&s, json!({"path": ".", "name": "link"})).unwrap();
    assert_eq!(dir.data["files"][0]["type"], "symlink");
}

#[test]
fn long_pages_are_cut_into_character_windows() {
    let (_d, s) = tree();
    let q = json!({"path": ".", "type": "f", "sortBy": "path", "filesPerPage": 50, "details": false, "showFileLastModified": false, "charLength": 60});
    let first = call(&s, q.clone()).unwrap();
    let shown = first.data["files"].as_array().unwrap().len();
    assert!((1..8).contains(&shown), "{}", first.data);
    let chars = &first.data["charPagination"];
    assert_eq!(chars["hasMore"], true);
    let next = chars["charOffset"].as_u64().unwrap() + chars["charLength"].as_u64().unwrap();
    assert!(
        hints(&first).contains(&format!("charOffset={next}")),
        "{}",
        hints(&first)
    );
    let mut second_q = q;
    second_q["charOffset"] = json!(next);
    let second = call(&s, second_q).unwrap();
    assert_ne!(second.data["files"][0], first.data["files"][0]);
    // The budget alone windows a page that is too long.
    let small = run(&s, 100, &query(json!({"path": ".", "filesPerPage": 50}))).unwrap();
    assert!(small.data["charPagination"].is_object());
    assert!(hints(&small).contains("budget"), "{}", hints(&small));
}

#[test]
fn a_file_as_path_is_checked_itself() {
    let (_d, s) = tree();
    assert_eq!(paths(&s, json!({"path": "src/main.rs"})), ["src/main.rs"]);
    let none = call(&s, json!({"path": "src/main.rs", "name": "*.md"})).unwrap();
    assert_eq!(none.status, Status::Empty);
}
