//! localSearchCode against the real ripgrep binary: a fixture tree with a .gitignore, an
//! .ignore, hidden files, a protected .env, a binary file, a symlink and several languages is
//! searched with many option sets by both, and the (file, line) pairs, per-file counts and
//! file lists must be equal. The helpers here are shared with `tests_output`.

use super::run;
use crate::config::ExecConfig;
use crate::exec::outcome::Outcome;
use crate::exec::sandbox::Sandbox;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `rg` on PATH; the comparison tests fail rather than skip without it.
pub(super) fn rg() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("rg"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| panic!("ripgrep (`rg`) is not on PATH; these tests compare against it. Install it with scripts/fetch-ripgrep"))
}

pub(super) fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

pub(super) fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, ".gitignore", b"build/\n*.log\n");
    write(r, ".ignore", b"scratch.txt\n");
    write(r, "src/main.rs", b"// TODO: split main\nfn main() {\n    let needle = find_needle();\n    println!(\"{needle}\");\n}\n\nfn find_needle() -> String {\n    \"Needle\".to_string() // needles, NEEDLE\n}\n");
    write(r, "src/lib.rs", b"pub mod haystack;\n\n/// Looks for the needle.\npub fn search(hay: &str) -> bool {\n    hay.contains(\"needle\")\n}\n");
    write(r, "src/util.py", b"# TODO: type hints\ndef needle(hay):\n    return 'needle' in hay\n\n\ndef aabb():\n    return 'aa' + 'bb'\n");
    write(r, "web/app.ts", b"export function findNeedle(hay: string): boolean {\n  return hay.includes('needle');\n}\n");
    write(r, "web/app.test.ts", b"import { findNeedle } from './app';\ntest('needle', () => expect(findNeedle('a needle')).toBe(true));\n");
    write(
        r,
        "docs/readme.md",
        b"# Needle\n\nA needle in a haystack. NEEDLE!\n\nnaive na\xc3\xafve needle \xc3\xbcber\n",
    );
    write(r, "build/out.js", b"var needle = 1;\n");
    write(r, "debug.log", b"needle found\n");
    write(r, "scratch.txt", b"needle scratch\n");
    write(r, ".hidden/notes.txt", b"hidden needle\n");
    write(r, ".config.yml", b"needle: true\n");
    write(r, ".env", b"NEEDLE_TOKEN=needle\n");
    write(r, "data.bin", b"needle\x00\x01\x02\x03 needle\n");
    std::os::unix::fs::symlink(r.join("docs"), r.join("docs-link")).unwrap();
    dir
}

pub(super) fn sandbox(root: &Path) -> Sandbox {
    Sandbox::new(&ExecConfig::for_workspace(root))
}

pub(super) fn query(extra: Value) -> Map<String, Value> {
    let mut q = json!({"id": "t", "researchGoal": "g", "reasoning": "r", "path": ".", "filesPerPage": 50, "matchesPerPage": 100});
    for (k, v) in extra.as_object().unwrap() {
        q[k] = v.clone();
    }
    q.as_object().unwrap().clone()
}

pub(super) fn search(root: &Path, budget: usize, extra: Value) -> Outcome {
    match run(&sandbox(root), budget, &query(extra)) {
        Ok(o) => o,
        Err(e) => panic!("search failed: {e} {:?}", e.hints),
    }
}

/// (path, line) of every listed match.
pub(super) fn ours(root: &Path, extra: Value) -> BTreeSet<(String, u64)> {
    let out = search(root, 1_000_000, extra);
    let mut set = BTreeSet::new();
    for f in out.data["files"].as_array().cloned().unwrap_or_default() {
        for m in f["matches"].as_array().unwrap() {
            if m.get("context").is_none() {
                set.insert((
                    f["path"].as_str().unwrap().to_string(),
                    m["line"].as_u64().unwrap(),
                ));
            }
        }
    }
    set
}

/// (path, line) of every match `rg --json` reports, minus what the sandbox protects.
pub(super) fn theirs(root: &Path, args: &[&str], pattern: &str) -> BTreeSet<(String, u64)> {
    let out = Command::new(rg())
        .current_dir(root)
        .args(["--json", "--no-require-git", "--no-config"])
        .args(args)
        .args(["--", pattern, "."])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "rg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sb = sandbox(root);
    let root = root.canonicalize().unwrap();
    let mut set = BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["type"] == "match" {
            let path = v["data"]["path"]["text"]
                .as_str()
                .unwrap()
                .trim_start_matches("./")
                .to_string();
            if sb.allows(&root.join(&path)) {
                set.insert((path, v["data"]["line_number"].as_u64().unwrap()));
            }
        }
    }
    set
}

/// Per-file numbers from rg's plain `path:count` output (`--count`, `--count-matches`), or
/// bare paths (`-l`, `--files-without-match`) with 1.
pub(super) fn rg_per_file(root: &Path, args: &[&str], pattern: &str) -> BTreeMap<String, u64> {
    let out = Command::new(rg())
        .current_dir(root)
        .args(["--no-require-git", "--no-config"])
        .args(args)
        .args(["--", pattern, "."])
        .output()
        .unwrap();
    let sb = sandbox(root);
    let canon = root.canonicalize().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| match l.rsplit_once(':') {
            Some((p, n)) if n.parse::<u64>().is_ok() => {
                (p.trim_start_matches("./").to_string(), n.parse().unwrap())
            }
            _ => (l.trim_start_matches("./").to_string(), 1),
        })
        .filter(|(p, _)| sb.allows(&canon.join(p)))
        .collect()
}

pub(super) fn ours_per_file(root: &Path, extra: Value) -> BTreeMap<String, u64> {
    let out = search(root, 1_000_000, extra);
    out.data["files"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["matchCount"].as_u64().unwrap().max(1),
            )
        })
        .collect()
}

/// Queries and the ripgrep arguments that must give the same matches (a table of data).
fn option_sets() -> Vec<(Value, Vec<&'static str>, &'static str)> {
    vec![
        (
            json!({"pattern": "needle", "fixedString": true}),
            vec!["-F", "-S"],
            "needle",
        ),
        (
            json!({"pattern": "fn\\s+\\w+\\("}),
            vec!["-S"],
            "fn\\s+\\w+\\(",
        ),
        (
            json!({"pattern": "needle", "wholeWord": true}),
            vec!["-S", "-w"],
            "needle",
        ),
        (
            json!({"pattern": "Needle", "caseSensitive": true}),
            vec!["-s"],
            "Needle",
        ),
        (
            json!({"pattern": "NEEDLE", "caseInsensitive": true}),
            vec!["-i"],
            "NEEDLE",
        ),
        (json!({"pattern": "Needle"}), vec!["-S"], "Needle"),
        (
            json!({"pattern": "needle", "smartCase": false}),
            vec![],
            "needle",
        ),
        (
            json!({"pattern": "needle", "include": ["*.rs", "*.py"]}),
            vec!["-S", "-g", "*.rs", "-g", "*.py"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "exclude": ["*.test.ts"]}),
            vec!["-S", "-g", "!*.test.ts"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "excludeDir": ["docs", "web"]}),
            vec!["-S", "-g", "!docs/", "-g", "!web/"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "type": "py"}),
            vec!["-S", "-t", "py"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "type": "ts"}),
            vec!["-S", "-t", "ts"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "contextLines": 2}),
            vec!["-S", "-C", "2"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "beforeContext": 1, "afterContext": 3}),
            vec!["-S", "-B", "1", "-A", "3"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "hidden": true}),
            vec!["-S", "--hidden"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "noIgnore": true}),
            vec!["-S", "--no-ignore"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "noIgnore": true, "hidden": true}),
            vec!["-S", "--no-ignore", "--hidden"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "binaryFiles": "text"}),
            vec!["-S", "-a"],
            "needle",
        ),
        (
            json!({"pattern": "needle", "followSymlinks": true}),
            vec!["-S", "-L"],
            "needle",
        ),
        (
            json!({"pattern": "TODO", "invertMatch": true, "include": ["*.py"]}),
            vec!["-S", "-v", "-g", "*.py"],
            "TODO",
        ),
        (
            json!({"pattern": "fn main\\(\\) \\{\\n    let", "multiline": true}),
            vec!["-S", "-U"],
            "fn main\\(\\) \\{\\n    let",
        ),
        (
            json!({"pattern": "needle\\(hay\\):\\n.*return", "multiline": true, "multilineDotall": true}),
            vec!["-S", "-U", "--multiline-dotall"],
            "needle\\(hay\\):\\n.*return",
        ),
        (
            json!({"pattern": "needle(?!s)", "perlRegex": true}),
            vec!["-S", "-P"],
            "needle(?!s)",
        ),
        (
            json!({"pattern": "(\\w)\\1", "perlRegex": true, "caseSensitive": true}),
            vec!["-s", "-P"],
            "(\\w)\\1",
        ),
        (
            json!({"pattern": "(?<=find)Needle", "perlRegex": true}),
            vec!["-S", "-P"],
            "(?<=find)Needle",
        ),
        (
            json!({"pattern": "pub mod haystack;", "lineRegexp": true}),
            vec!["-S", "-x"],
            "pub mod haystack;",
        ),
        (
            json!({"pattern": "needle", "maxMatchesPerFile": 1}),
            vec!["-S", "-m", "1"],
            "needle",
        ),
        (
            json!({"pattern": "na.ve", "noUnicode": true}),
            vec!["-S", "--no-unicode"],
            "na.ve",
        ),
        (json!({"pattern": "na.ve"}), vec!["-S"], "na.ve"),
        (
            json!({"pattern": "needle", "path": "src"}),
            vec!["-S"],
            "needle",
        ),
    ]
}

#[test]
fn matches_equal_ripgrep_for_many_option_sets() {
    let dir = fixture();
    let root = dir.path();
    for (extra, args, pattern) in option_sets() {
        let want = if extra.get("path").is_some() {
            theirs(root, &args, pattern)
                .into_iter()
                .filter(|(p, _)| p.starts_with("src/"))
                .collect()
        } else {
            theirs(root, &args, pattern)
        };
        let got = ours(root, extra.clone());
        assert!(
            !want.is_empty(),
            "the fixture should give {extra} some matches"
        );
        assert_eq!(got, want, "{extra} vs rg {args:?}");
    }
}

#[test]
fn counts_and_file_lists_equal_ripgrep() {
    let dir = fixture();
    let root = dir.path();
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"pattern": "needle", "count": true}),
            vec!["-S", "--count"],
        ),
        (
            json!({"pattern": "needle", "mode": "discovery"}),
            vec!["-S", "--count"],
        ),
        (
            json!({"pattern": "needle", "countMatches": true}),
            vec!["-S", "--count-matches"],
        ),
        (
            json!({"pattern": "needle", "filesOnly": true}),
            vec!["-S", "-l"],
        ),
        (
            json!({"pattern": "TODO", "filesWithoutMatch": true}),
            vec!["-S", "--files-without-match"],
        ),
        (
            json!({"pattern": "needle", "count": true, "hidden": true, "binaryFiles": "text"}),
            vec!["-S", "--count", "--hidden", "-a"],
        ),
    ];
    for (extra, args) in cases {
        let pattern = extra["pattern"].as_str().unwrap().to_string();
        let want = rg_per_file(root, &args, &pattern);
        assert!(!want.is_empty(), "{extra}");
        assert_eq!(
            ours_per_file(root, extra.clone()),
            want,
            "{extra} vs rg {args:?}"
        );
    }
}

#[test]
fn protected_and_ignored_files_stay_hidden() {
    let dir = fixture();
    let got = ours(
        dir.path(),
        json!({"pattern": "needle", "hidden": true, "noIgnore": true}),
    );
    let paths: BTreeSet<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert!(!paths.contains(".env"), "{paths:?}");
    assert!(
        paths.contains(".hidden/notes.txt")
            && paths.contains("build/out.js")
            && paths.contains("scratch.txt")
    );
    let default = ours(dir.path(), json!({"pattern": "needle"}));
    let paths: BTreeSet<&str> = default.iter().map(|(p, _)| p.as_str()).collect();
    for hidden in [
        ".env",
        ".config.yml",
        "build/out.js",
        "debug.log",
        "scratch.txt",
        "data.bin",
    ] {
        assert!(!paths.contains(hidden), "{hidden} in {paths:?}");
    }
}

#[test]
fn symlinks_leaving_the_sandbox_are_not_followed() {
    let dir = fixture();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"needle outside\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
    let got = ours(
        dir.path(),
        json!({"pattern": "needle outside", "followSymlinks": true}),
    );
    assert!(got.is_empty(), "{got:?}");
    // The in-root link is followed.
    let inside = ours(
        dir.path(),
        json!({"pattern": "haystack\\. NEEDLE", "followSymlinks": true}),
    );
    assert!(
        inside.iter().any(|(p, _)| p == "docs-link/readme.md"),
        "{inside:?}"
    );
}
