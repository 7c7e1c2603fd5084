//! Where the local and LSP tools may read. A path is allowed when, after `~` expansion,
//! joining onto the workspace root, lexical normalisation and resolving symlinks, it lies
//! inside an allowed root, and no part of it below that root is a protected directory
//! (`.git`, `.ssh`, cloud credentials) or a secret-bearing file (`.env*`, keys, kubeconfig).
//! Error messages quote the path as the caller wrote it, never the resolved one, so a
//! refusal does not disclose the machine's layout.

use super::outcome::{Failure, QueryError, ToolErrorCode};
use crate::config::ExecConfig;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// Directory names (or two-part paths) that are never read, at any depth below a root.
const PROTECTED_DIRS: &[&str] = &[
    ".git",
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".docker",
    ".kube",
    ".terraform",
    ".password-store",
    ".vagrant",
    ".minikube",
    ".bitcoin",
    ".ethereum",
    ".electrum",
    ".thunderbird",
    "secrets",
    "private",
    ".config/gcloud",
];

/// File-name globs of files that hold credentials.
const PROTECTED_FILES: &[&str] = &[
    ".env",
    ".env.*",
    "*.env",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".dockercfg",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".psqlrc",
    "credentials",
    "credentials.json",
    "credentials.yml",
    "credentials.yaml",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*_rsa",
    "known_hosts",
    "authorized_keys",
    "*.pem",
    "*.key",
    "*.crt",
    "*.cer",
    "*.keystore",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.ppk",
    "kubeconfig",
    "terraform.tfstate*",
    "*.tfvars",
    "secrets.yml",
    "secrets.yaml",
    "master.key",
    "wp-config.php",
    "google-services.json",
    "GoogleService-Info.plist",
    "*.mobileprovision",
    "service-account*.json",
];

fn protected_files() -> &'static GlobSet {
    static SET: OnceLock<GlobSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut builder = GlobSetBuilder::new();
        for pattern in PROTECTED_FILES {
            // The patterns are constants; a bad one is a bug caught by the unit tests.
            if let Ok(glob) = GlobBuilder::new(pattern).case_insensitive(true).build() {
                builder.add(glob);
            }
        }
        builder.build().unwrap_or_else(|_| GlobSet::empty())
    })
}

/// The allowed roots, canonical, built once from the configuration.
#[derive(Debug, Clone)]
pub struct Sandbox {
    workspace: PathBuf,
    roots: Vec<PathBuf>,
    home: Option<PathBuf>,
}

impl Sandbox {
    pub fn new(config: &ExecConfig) -> Sandbox {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        Sandbox {
            workspace: canonical(&config.workspace_root),
            roots: config.roots().map(canonical).collect(),
            home: config.home.clone(),
        }
    }

    /// The workspace root: relative paths start here, and results are shown relative to it.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Resolves a caller's path to an absolute one the tools may read. A path that does not
    /// exist is returned normalised (the tool then reports it missing), as long as it would
    /// lie inside a root.
    pub fn resolve(&self, raw: &str) -> Result<PathBuf, QueryError> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(QueryError::invalid(
                "path is empty; expected a file or directory path",
            ));
        }
        if trimmed.contains('\0') {
            return Err(QueryError::invalid("path contains a NUL character"));
        }
        let expanded = match (trimmed.strip_prefix('~'), &self.home) {
            (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(trimmed),
        };
        let joined = if expanded.is_absolute() {
            expanded
        } else {
            self.workspace.join(expanded)
        };
        let normal = normalize(&joined);
        let resolved = match normal.canonicalize() {
            Ok(real) => real,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => normal,
            Err(e) => {
                return Err(QueryError::new(
                    Failure::Denied,
                    ToolErrorCode::PathValidationFailed,
                    format!("Path '{trimmed}' cannot be resolved: {}", io_reason(&e)),
                ))
            }
        };
        let Some(root) = self.roots.iter().find(|r| resolved.starts_with(r)) else {
            return Err(QueryError::new(
                Failure::Denied,
                ToolErrorCode::PathValidationFailed,
                format!("Path '{trimmed}' is outside the allowed directories"),
            )
            .hint("Use a path inside the workspace root (relative paths start there)")
            .hint("More directories can be allowed with the allowed_paths setting or TOOLSCOUT_ALLOWED_PATHS"));
        };
        let below = resolved.strip_prefix(root).unwrap_or(Path::new(""));
        if is_protected(below) {
            return Err(QueryError::new(
                Failure::Denied,
                ToolErrorCode::PathValidationFailed,
                format!("Path '{trimmed}' is in a protected directory or is a credentials file"),
            )
            .hint("toolscout never reads .git, .ssh, cloud credential directories, .env files or keys"));
        }
        Ok(resolved)
    }

    /// Whether a file or directory found while walking may be shown: it is not protected.
    /// `path` is absolute and already inside a root (walkers start from resolved paths).
    pub fn allows(&self, path: &Path) -> bool {
        let below = self
            .roots
            .iter()
            .find(|r| path.starts_with(r))
            .and_then(|r| path.strip_prefix(r).ok())
            .unwrap_or(path);
        !is_protected(below)
    }

    /// `path` relative to the workspace root when inside it, else as is.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.workspace)
            .map(|p| {
                if p.as_os_str().is_empty() {
                    ".".into()
                } else {
                    p.to_string_lossy().into_owned()
                }
            })
            .unwrap_or_else(|_| path.to_string_lossy().into_owned())
    }
}

/// Whether a root-relative path names a protected directory at any depth, or ends in a
/// protected file name.
fn is_protected(below: &Path) -> bool {
    let parts: Vec<&str> = below
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    let dirs = PROTECTED_DIRS.iter().any(|d| {
        let want: Vec<&str> = d.split('/').collect();
        parts
            .windows(want.len())
            .any(|w| w.iter().zip(&want).all(|(a, b)| a.eq_ignore_ascii_case(b)))
    });
    dirs || parts
        .last()
        .is_some_and(|name| protected_files().is_match(name))
}

/// `a/./b/../c` -> `a/c`, without touching the file system (so `..` cannot climb out of a
/// root through a path that does not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(13) => "permission denied".into(),
        Some(40) => "too many levels of symbolic links".into(),
        Some(36) => "the name is too long".into(),
        _ => e.kind().to_string(),
    }
}

#[cfg(test)]
#[path = "sandbox_fuzz_tests.rs"]
mod fuzz_tests;

#[cfg(test)]
mod tests {
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
}
