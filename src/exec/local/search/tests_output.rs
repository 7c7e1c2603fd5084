//! localSearchCode's own behaviour, where ripgrep has no counterpart to compare with:
//! refused and settled option clashes, errors, file and match pagination, character windows,
//! sorting, clipping, hints, and every result's conformance to the catalog's return schema.

use super::run;
use super::tests::{fixture, ours, ours_per_file, query, sandbox, search, theirs, write};
use crate::exec::outcome::{Failure, Outcome, Status, ToolErrorCode};
use serde_json::{json, Value};

fn assert_conforms(out: &Outcome) {
    crate::exec::testing::assert_fits_return_schema(crate::exec::Tool::LocalSearchCode, &out.data);
}

#[test]
fn results_have_the_sample_shape_and_fit_the_return_schema() {
    let dir = fixture();
    let root = dir.path();
    let out = search(
        root,
        8000,
        json!({"pattern": "needle", "filesPerPage": 2, "matchesPerPage": 10}),
    );
    assert_eq!(out.status, Status::HasResults);
    assert_conforms(&out);
    let d = &out.data;
    assert_eq!(d["searchEngine"], "ripgrep-lib");
    assert_eq!(d["pagination"]["filesPerPage"], 2);
    assert_eq!(d["pagination"]["currentPage"], 1);
    assert_eq!(d["pagination"]["hasMore"], true);
    let first = &d["files"][0];
    assert_eq!(first["path"], "docs/readme.md");
    assert_eq!(first["matches"][0]["line"], 1);
    assert_eq!(first["matches"][0]["column"], 2);
    assert_eq!(first["matches"][0]["value"], "# Needle");
    assert_eq!(
        first["matches"][1]["value"],
        "A needle in a haystack. NEEDLE!"
    );
    let hints: Vec<&str> = d["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert!(
        hints.iter().any(|h| h.starts_with("File page 1/")),
        "{hints:?}"
    );
    assert!(
        hints.iter().any(|h| h.contains("filePageNumber=2")),
        "{hints:?}"
    );
    assert!(hints.iter().any(|h| h.contains("lineHint")), "{hints:?}");
    assert!(d["stats"]["filesSearched"].as_u64().unwrap() >= 6);

    // Column counts characters, not bytes.
    let naive = search(root, 8000, json!({"pattern": "needle", "path": "docs"}));
    let m = &naive.data["files"][0]["matches"];
    assert_eq!(m[2]["line"], 5);
    assert_eq!(m[2]["column"], 12);

    for extra in [
        json!({"pattern": "needle", "count": true}),
        json!({"pattern": "needle", "filesOnly": true}),
        json!({"pattern": "needle", "contextLines": 2, "showFileLastModified": true}),
        json!({"pattern": "needle", "passthru": true, "path": "src/lib.rs"}),
        json!({"pattern": "needle", "debug": true, "binaryFiles": "binary"}),
        json!({"pattern": "no such thing anywhere"}),
    ] {
        assert_conforms(&search(root, 8000, extra));
    }
}

#[test]
fn empty_results_explain_what_to_try() {
    let dir = fixture();
    let out = search(
        dir.path(),
        8000,
        json!({"pattern": "NoSuchThing(", "fixedString": true}),
    );
    assert_eq!(out.status, Status::Empty);
    assert_conforms(&out);
    let hints = out.data["hints"].to_string();
    assert!(hints.contains("caseInsensitive"), "{hints}");
    assert!(
        hints.contains("noIgnore") && hints.contains("hidden=true"),
        "{hints}"
    );
    assert!(out.data.get("files").is_none());

    let none = search(dir.path(), 8000, json!({"pattern": "x(y)", "type": "go"}));
    assert_eq!(none.status, Status::Empty);
    let hints = none.data["hints"].to_string();
    assert!(
        hints.contains("No file was searched")
            && hints.contains("type=go")
            && hints.contains("fixedString"),
        "{hints}"
    );

    let binary = search(
        dir.path(),
        8000,
        json!({"pattern": "needle", "path": "data.bin"}),
    );
    assert_eq!(binary.status, Status::Empty);
    assert!(binary.data["hints"]
        .to_string()
        .contains("binaryFiles=text"));
}

#[test]
fn contradictory_options_and_bad_input_are_refused() {
    let dir = fixture();
    let sb = sandbox(dir.path());
    for (extra, a, b) in [
        (
            json!({"pattern": "x", "fixedString": true, "perlRegex": true}),
            "fixedString",
            "perlRegex",
        ),
        (
            json!({"pattern": "x", "filesOnly": true, "filesWithoutMatch": true}),
            "filesOnly",
            "filesWithoutMatch",
        ),
        (
            json!({"pattern": "x", "filesOnly": true, "passthru": true}),
            "passthru",
            "filesOnly",
        ),
    ] {
        let e = run(&sb, 8000, &query(extra)).unwrap_err();
        assert_eq!(e.failure, Failure::Invalid);
        assert!(
            e.message.contains(a) && e.message.contains(b),
            "{}",
            e.message
        );
    }
    let e = run(&sb, 8000, &query(json!({"pattern": "fn (main"}))).unwrap_err();
    assert_eq!(
        (e.failure, e.code),
        (Failure::Invalid, ToolErrorCode::InvalidPattern)
    );
    assert!(e.message.contains("unclosed group"), "{}", e.message);
    assert!(e.hints.iter().any(|h| h.contains("fixedString")));
    let e = run(&sb, 8000, &query(json!({"pattern": "a\\nb"}))).unwrap_err();
    assert!(e.hints.iter().any(|h| h.contains("multiline")), "{:?}", e);
    let e = run(&sb, 8000, &query(json!({"pattern": "x", "type": "pyton"}))).unwrap_err();
    assert_eq!(e.code, ToolErrorCode::UnknownFileType);
    assert!(e.hints[0].contains("python"), "{:?}", e.hints);
    let e = run(
        &sb,
        8000,
        &query(json!({"pattern": "x", "include": ["src/[a"]})),
    )
    .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::InvalidGlob);
    let e = run(
        &sb,
        8000,
        &query(json!({"pattern": "x", "encoding": "klingon"})),
    )
    .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::UnknownEncoding);
    let e = run(&sb, 8000, &query(json!({"pattern": "x", "path": "nope"}))).unwrap_err();
    assert_eq!(e.failure, Failure::NotFound);
    let e = run(&sb, 8000, &query(json!({"pattern": "x", "path": "../"}))).unwrap_err();
    assert_eq!(e.failure, Failure::Denied);
    let e = run(&sb, 8000, &query(json!({"pattern": "x", "path": ".env"}))).unwrap_err();
    assert_eq!(e.failure, Failure::Denied);
}

#[test]
fn settled_clashes_become_warnings() {
    let dir = fixture();
    let out = search(
        dir.path(),
        8000,
        json!({"pattern": "needle", "caseSensitive": true, "caseInsensitive": true, "count": true, "countMatches": true, "contextLines": 2, "mmap": true}),
    );
    let w = out.data["warnings"].to_string();
    for word in [
        "caseSensitive wins",
        "countMatches",
        "context lines are ignored",
        "mmap",
    ] {
        assert!(w.contains(word), "{word} not in {w}");
    }
}

#[test]
fn files_are_paged_capped_and_sorted() {
    let dir = fixture();
    let root = dir.path();
    let all = ours_per_file(root, json!({"pattern": "needle", "filesOnly": true}));
    let mut seen = Vec::new();
    for page in 1..=all.len().div_ceil(2) {
        let out = search(
            root,
            8000,
            json!({"pattern": "needle", "filesOnly": true, "filesPerPage": 2, "filePageNumber": page}),
        );
        for f in out.data["files"].as_array().unwrap() {
            seen.push(f["path"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(seen, all.keys().cloned().collect::<Vec<_>>());
    let past = search(
        root,
        8000,
        json!({"pattern": "needle", "filesPerPage": 2, "filePageNumber": 99}),
    );
    assert_eq!(past.status, Status::Empty);
    assert!(past.data["hints"][0]
        .as_str()
        .unwrap()
        .contains("past the last page"));

    let capped = search(root, 8000, json!({"pattern": "needle", "maxFiles": 2}));
    assert_eq!(capped.data["pagination"]["totalFiles"], 2);
    assert!(capped.data["warnings"].to_string().contains("maxFiles=2"));

    // Newest first with showFileLastModified; sortReverse flips it.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    for (i, f) in ["src/lib.rs", "web/app.ts", "src/main.rs"]
        .iter()
        .enumerate()
    {
        let file = std::fs::File::options()
            .write(true)
            .open(root.join(f))
            .unwrap();
        file.set_modified(old + std::time::Duration::from_secs(86_400 * i as u64))
            .unwrap();
    }
    let order = |extra: Value| -> Vec<String> {
        let out = search(root, 100_000, extra);
        out.data["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    let recent = order(
        json!({"pattern": "needle", "include": ["*.rs", "app.ts"], "showFileLastModified": true}),
    );
    assert_eq!(recent, ["src/main.rs", "web/app.ts", "src/lib.rs"]);
    let oldest =
        order(json!({"pattern": "needle", "include": ["*.rs", "app.ts"], "sort": "modified"}));
    assert_eq!(oldest, ["src/lib.rs", "web/app.ts", "src/main.rs"]);
    let reversed = order(
        json!({"pattern": "needle", "include": ["*.rs", "app.ts"], "sort": "path", "sortReverse": true}),
    );
    assert_eq!(reversed, ["web/app.ts", "src/main.rs", "src/lib.rs"]);
    let stamped = search(
        root,
        100_000,
        json!({"pattern": "needle", "path": "src/lib.rs", "showFileLastModified": true}),
    );
    assert_eq!(stamped.data["files"][0]["modified"], "2001-09-09T01:46:40Z");
}

#[test]
fn per_file_matches_are_capped_with_totals() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=30).map(|i| format!("line {i} hit\n")).collect();
    write(dir.path(), "many.txt", body.as_bytes());
    let out = search(
        dir.path(),
        100_000,
        json!({"pattern": "hit", "matchesPerPage": 5}),
    );
    let f = &out.data["files"][0];
    assert_eq!(f["matchCount"], 30);
    assert_eq!(f["matches"].as_array().unwrap().len(), 5);
    assert_eq!(
        f["pagination"],
        json!({"currentPage": 1, "totalPages": 6, "matchesPerPage": 5, "totalMatches": 30, "hasMore": true})
    );
    assert!(out.data["hints"]
        .to_string()
        .contains("more matches than listed"));
    let stopped = search(
        dir.path(),
        100_000,
        json!({"pattern": "hit", "maxMatchesPerFile": 12, "filesPerPage": 1}),
    );
    let f = &stopped.data["files"][0];
    assert_eq!(f["matchCount"], 12);
    assert_eq!(f["matches"].as_array().unwrap().len(), 12);
    let detailed = search(
        dir.path(),
        100_000,
        json!({"pattern": "line 10 ", "mode": "detailed"}),
    );
    let m = &detailed.data["files"][0]["matches"][0];
    assert_eq!(m["line"], 10);
    assert_eq!(
        m["value"],
        "line 7 hit\nline 8 hit\nline 9 hit\nline 10 hit\nline 11 hit\nline 12 hit\nline 13 hit"
    );
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let line = format!("{}NEEDLE{}\n", "x".repeat(5000), "y".repeat(5000));
    write(dir.path(), "bundle.min.js", line.as_bytes());
    let out = search(
        dir.path(),
        100_000,
        json!({"pattern": "NEEDLE", "matchContentLength": 50}),
    );
    let m = &out.data["files"][0]["matches"][0];
    let value = m["value"].as_str().unwrap();
    assert!(
        value.contains("NEEDLE") && value.chars().count() <= 52,
        "{value}"
    );
    assert_eq!(m["column"], 5000);
    assert!(out.data["warnings"]
        .to_string()
        .contains("matchContentLength=50"));
}

#[test]
fn oversized_pages_are_windowed_without_losing_or_repeating_matches() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..6 {
        let body: String = (1..=20)
            .map(|n| format!("{i} row {n} needle {}\n", "z".repeat(60)))
            .collect();
        write(dir.path(), &format!("f{i}.txt"), body.as_bytes());
    }
    let base = json!({"pattern": "needle", "filesPerPage": 50, "matchesPerPage": 20});
    let first = search(dir.path(), 2000, base.clone());
    assert_conforms(&first);
    let w = &first.data["outputPagination"];
    assert_eq!(w["hasMore"], true);
    assert!(first.data["warnings"]
        .to_string()
        .contains("character windows"));
    assert!(serde_json::to_string(&first.data["files"]).unwrap().len() < 2600);
    let total = w["totalChars"].as_u64().unwrap() as usize;
    let mut seen = Vec::new();
    let mut offset = 0;
    while offset < total {
        let mut q = base.clone();
        q["charOffset"] = json!(offset);
        q["charLength"] = json!(1500);
        let out = search(dir.path(), 2000, q);
        for f in out.data["files"].as_array().unwrap() {
            for m in f["matches"].as_array().unwrap() {
                seen.push((
                    f["path"].as_str().unwrap().to_string(),
                    m["line"].as_u64().unwrap(),
                ));
            }
        }
        offset += 1500;
    }
    let mut expected: Vec<(String, u64)> = (0..6)
        .flat_map(|i| (1..=20).map(move |n| (format!("f{i}.txt"), n)))
        .collect();
    expected.sort();
    assert_eq!(seen, expected);
    let past = search(
        dir.path(),
        2000,
        json!({"pattern": "needle", "charOffset": 10_000_000}),
    );
    assert_eq!(past.status, Status::Empty);
}

#[test]
fn utf16_files_are_decoded_and_binary_files_reported_without_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "first\nthe needle here\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    write(dir.path(), "wide.txt", &utf16);
    write(dir.path(), "blob.bin", b"\x00\x01needle\x02\n");
    let out = search(
        dir.path(),
        100_000,
        json!({"pattern": "needle", "binaryFiles": "binary"}),
    );
    let files = out.data["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(files[0]["path"], "blob.bin");
    assert_eq!(files[0]["binary"], true);
    assert_eq!(files[0]["matches"], json!([]));
    assert_eq!(files[1]["matches"][0]["value"], "the needle here");
    assert_eq!(files[1]["matches"][0]["line"], 2);
    let latin = search(
        dir.path(),
        100_000,
        json!({"pattern": "needle", "encoding": "utf-16le", "path": "wide.txt"}),
    );
    assert_eq!(latin.data["files"][0]["matches"][0]["line"], 2);
}

#[test]
fn perl_regex_threads_and_passthru_work() {
    let dir = fixture();
    let root = dir.path();
    let out = search(
        root,
        100_000,
        json!({"pattern": "needle(?=\\()", "perlRegex": true, "threads": 2}),
    );
    assert_eq!(out.data["searchEngine"], "ripgrep-lib+fancy-regex");
    let want = theirs(root, &["-S", "-P"], "needle(?=\\()");
    assert!(want.contains(&("src/util.py".to_string(), 2)), "{want:?}");
    assert_eq!(
        ours(
            root,
            json!({"pattern": "needle(?=\\()", "perlRegex": true, "threads": 1})
        ),
        want
    );
    let pass = search(
        root,
        100_000,
        json!({"pattern": "needle", "passthru": true, "path": "src/lib.rs"}),
    );
    let m = pass.data["files"][0]["matches"].as_array().unwrap().clone();
    assert_eq!(m.len(), 6);
    assert_eq!(pass.data["files"][0]["matchCount"], 2);
    assert_eq!(m[0]["context"], true);
    assert!(m[2].get("context").is_none());
}
