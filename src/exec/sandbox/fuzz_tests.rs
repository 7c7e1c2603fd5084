//! Fuzzing of the sandbox's path resolution, the first parser every local and LSP tool runs:
//! paths built from `..`, `.`, doubled slashes, `~`, absolute prefixes, symlinks that lead in
//! and out of the workspace, protected names and hostile text. Whatever the path, an
//! accepted one lies inside the workspace, also once its symlinks are followed, and names
//! nothing protected; a refusal quotes the path as written and never the machine's layout.

use super::*;
use proptest::prelude::*;

/// A workspace with a source file, protected entries, a symlink out and one in; a sibling
/// directory outside it (also the home, so `~` leads out).
struct Tree {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    sandbox: Sandbox,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (ws, outside) = (base.join("ws"), base.join("outside"));
    for d in [ws.join("src"), ws.join(".git"), outside.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    for f in [
        ws.join("src/a.rs"),
        ws.join(".env"),
        ws.join(".git/config"),
        outside.join("secret.txt"),
    ] {
        std::fs::write(f, "x").unwrap();
    }
    std::os::unix::fs::symlink(&outside, ws.join("link_out")).unwrap();
    std::os::unix::fs::symlink(ws.join("src"), ws.join("link_in")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), ws.join("src/leak.txt")).unwrap();
    let mut config = ExecConfig::for_workspace(&ws);
    config.home = Some(outside);
    Tree {
        _dir: dir,
        sandbox: Sandbox::new(&config),
        workspace: ws,
    }
}

fn path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        6 => proptest::sample::select(vec![
            "..", ".", "", "src", "a.rs", "leak.txt", "link_out", "link_in", ".git", "config",
            ".env", "secret.txt", "outside", "ws", "nope", "id_rsa", ".ssh",
        ]).prop_map(str::to_string),
        1 => crate::hostile_text::short_text(),
    ];
    let prefix = proptest::sample::select(vec!["", "/", "~", "~/", "./", "//"]);
    (prefix, proptest::collection::vec(segment, 0..7))
        .prop_map(|(prefix, parts)| format!("{prefix}{}", parts.join("/")))
}

proptest! {
    #![proptest_config(crate::fuzz_json::config(256))]

    #[test]
    fn accepted_paths_stay_inside_and_unprotected(raw in path()) {
        let t = tree();
        match t.sandbox.resolve(&raw) {
            Ok(resolved) => {
                prop_assert!(resolved.starts_with(&t.workspace), "{raw} -> {}", resolved.display());
                if let Ok(real) = resolved.canonicalize() {
                    prop_assert!(real.starts_with(&t.workspace), "{raw} -> {}", real.display());
                }
                let below = resolved.strip_prefix(&t.workspace).unwrap();
                prop_assert!(!is_protected(below), "{raw} -> {}", resolved.display());
                let _ = t.sandbox.display(&resolved);
            }
            Err(e) => {
                let layout = t.workspace.parent().unwrap().to_string_lossy().into_owned();
                prop_assert!(!e.message.contains(&layout), "{}", e.message);
            }
        }
    }
}
