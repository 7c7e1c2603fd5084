//! The sandbox's own rules, path by path: resolution, escapes, protected names, `~`.

use super::*;

fn sandbox(dir: &Path) -> Sandbox {
    Sandbox::new(&ExecConfig::for_workspace(dir))
}

#[test]
fn every_protected_glob_compiles() {
    assert_eq!(protected_files().len(), PROTECTED_FILES.len());
}

#[test]
fn relative_paths_resolve_inside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "x").unwrap();
    let s = sandbox(dir.path());
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(s.resolve("src/a.rs").unwrap(), root.join("src/a.rs"));
    assert_eq!(
        s.resolve("./src/../src/a.rs").unwrap(),
        root.join("src/a.rs")
    );
    assert_eq!(s.resolve(".").unwrap(), root);
    // Missing but inside: accepted, so the tool can say "not found".
    assert_eq!(s.resolve("src/new.rs").unwrap(), root.join("src/new.rs"));
}

#[test]
fn escapes_are_refused_without_disclosing_the_resolved_path() {
    let dir = tempfile::tempdir().unwrap();
    let s = sandbox(dir.path());
    for raw in ["../../etc/passwd", "/etc/passwd", "src/../../x"] {
        let e = s.resolve(raw).unwrap_err();
        assert_eq!(e.code, ToolErrorCode::PathValidationFailed);
        assert_eq!(e.failure, Failure::Denied);
        assert!(e.message.contains(raw), "{}", e.message);
        assert!(
            !e.message.contains(&*dir.path().to_string_lossy()),
            "{}",
            e.message
        );
    }
}

#[test]
fn symlinks_out_of_the_root_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    let e = sandbox(dir.path()).resolve("link/secret.txt").unwrap_err();
    assert!(e.message.contains("outside"), "{}", e.message);
}

#[test]
fn protected_directories_and_files_are_refused_and_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let s = sandbox(dir.path());
    for raw in [
        ".git/config",
        "a/.ssh/id_ed25519",
        ".env",
        "config/.env.local",
        "certs/server.pem",
        "deploy/prod.tfvars",
        ".config/gcloud/x.json",
    ] {
        let e = s.resolve(raw).unwrap_err();
        assert!(e.message.contains("protected"), "{raw}: {}", e.message);
    }
    let root = dir.path().canonicalize().unwrap();
    assert!(!s.allows(&root.join("src/.env")));
    assert!(s.allows(&root.join("src/env.rs")));
    assert!(s.allows(&root.join("src/keys.rs")));
    assert!(s.resolve("src/gitignore.rs").is_ok());
}

#[test]
fn a_tilde_is_the_configured_home() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.home = Some(dir.path().to_path_buf());
    let s = Sandbox::new(&config);
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(s.resolve("~/notes.md").unwrap(), root.join("notes.md"));
    config.home = None;
    let e = Sandbox::new(&config).resolve("~/notes.md").unwrap();
    assert_eq!(
        e,
        root.join("~/notes.md"),
        "without a home, ~ is an ordinary name"
    );
}

#[test]
fn only_components_below_the_root_count() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("private").join("proj");
    std::fs::create_dir_all(&inner).unwrap();
    let s = sandbox(&inner);
    assert!(s.resolve("main.rs").is_ok());
}
