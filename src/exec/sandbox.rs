//! Where the local and LSP tools may read. A path is allowed when, after `~` expansion,
//! joining onto the workspace root, lexical normalisation of `..` and resolving every symlink
//! that exists (`real`), it lies inside an allowed root, no part of it below that root is a
//! protected directory (`.git`, `.ssh`, cloud credentials) or a secret-bearing file (`.env*`,
//! keys, kubeconfig), and it is not a regular file with more than one hard link. Files are then
//! opened only through [`Sandbox::open`] (`open`), which refuses a path that changed into a
//! link or moved out between the check and the open. Error messages quote the path as the
//! caller wrote it, never the resolved one, so a refusal does not disclose the machine's
//! layout.

mod open;
mod real;

pub(crate) use open::{hard_linked, OpenError};

use super::outcome::{Failure, QueryError, ToolErrorCode};
use crate::config::ExecConfig;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::os::unix::fs::MetadataExt;
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
    /// exist is returned with its existing part resolved and the rest as written (the tool
    /// then reports it missing), as long as it would lie inside a root. `..` is applied to
    /// the path as written before any link is followed, so `..` never climbs out of a root
    /// through the text of the path; links are then followed the way the kernel does
    /// (`real::real_path`), and where they end is what is checked and returned.
    pub fn resolve(&self, raw: &str) -> Result<PathBuf, QueryError> {
        self.resolve_as(raw, raw)
    }

    /// [`Sandbox::resolve`] for a path that the caller wrote in another form, `shown` (an LSP
    /// `file:` URI that was decoded into `raw`): errors quote `shown`.
    pub(crate) fn resolve_as(&self, raw: &str, shown: &str) -> Result<PathBuf, QueryError> {
        let trimmed = raw.trim();
        let shown = shown.trim();
        check_text(trimmed, shown)?;
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
        let resolved = real::real_path(&normalize(&joined)).map_err(|e| {
            QueryError::new(
                Failure::Denied,
                ToolErrorCode::PathValidationFailed,
                format!("Path '{shown}' cannot be resolved: {}", io_reason(&e)),
            )
        })?;
        self.placement(&resolved)
            .map_err(|why| why.refusal(shown))?;
        if let Ok(meta) = std::fs::symlink_metadata(&resolved) {
            if hard_linked(&meta) {
                return Err(hard_link_refusal(shown, meta.nlink()));
            }
        }
        Ok(resolved)
    }

    /// Whether a resolved (link-free) absolute path lies inside a root and is not protected.
    fn placement(&self, real: &Path) -> Result<(), Misplaced> {
        let Some(root) = self.roots.iter().find(|r| real.starts_with(r)) else {
            return Err(Misplaced::Outside);
        };
        let below = real.strip_prefix(root).unwrap_or(Path::new(""));
        if is_protected(below) {
            return Err(Misplaced::Protected);
        }
        Ok(())
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

    /// Whether `path` lies below an allowed root as written (links not followed): a path the
    /// caller may be shown.
    pub(crate) fn within_roots(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
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

/// Why a resolved path may not be read.
enum Misplaced {
    Outside,
    Protected,
}

impl Misplaced {
    /// The refusal, quoting the path as the caller wrote it.
    fn refusal(self, raw: &str) -> QueryError {
        match self {
            Misplaced::Outside => QueryError::new(
                Failure::Denied,
                ToolErrorCode::PathValidationFailed,
                format!("Path '{raw}' is outside the allowed directories"),
            )
            .hint("Use a path inside the workspace root (relative paths start there)")
            .hint("More directories can be allowed with the allowed_paths setting or TOOLSCOUT_ALLOWED_PATHS"),
            Misplaced::Protected => QueryError::new(
                Failure::Denied,
                ToolErrorCode::PathValidationFailed,
                format!("Path '{raw}' is in a protected directory or is a credentials file"),
            )
            .hint("toolscout never reads .git, .ssh, cloud credential directories, .env files or keys"),
        }
    }
}

/// The refusals decided by the text alone: empty, a NUL byte (the kernel would cut the path
/// there), and `\` separators. On Unix `\` is an ordinary character, so `..\..\etc` would
/// name one odd file in the root; refusing it says plainly that Windows paths are not
/// understood instead of answering "not found" for a path the caller meant differently.
fn check_text(trimmed: &str, shown: &str) -> Result<(), QueryError> {
    let invalid = |message: String| {
        QueryError::new(
            Failure::Invalid,
            ToolErrorCode::PathValidationFailed,
            message,
        )
    };
    if trimmed.is_empty() {
        return Err(QueryError::invalid(
            "path is empty; expected a file or directory path",
        ));
    }
    if trimmed.contains('\0') {
        return Err(invalid(
            "Path contains a NUL character; expected a file or directory path".into(),
        ));
    }
    if trimmed.contains('\\') {
        return Err(invalid(format!(
            "Path '{shown}' contains '\\'; paths are separated by '/' (Windows-style paths are not supported)"
        ))
        .hint("Write the path with '/' separators, relative to the workspace root"));
    }
    Ok(())
}

/// The refusal of a regular file with more than one hard link (see `open::hard_linked`).
fn hard_link_refusal(raw: &str, links: u64) -> QueryError {
    QueryError::new(
        Failure::Denied,
        ToolErrorCode::PathValidationFailed,
        format!("File '{raw}' has {links} hard links; toolscout does not read a file with more than one, because its other names may lie outside the allowed directories"),
    )
    .hint("Copy the file (cp, not ln) into the workspace to read it")
}

/// Refuses a glob with a `..` component: globs only match paths below the searched or listed
/// directory, so `..` can never match and only reads as an attempt to reach above it. Saying
/// so is clearer than an empty answer.
pub(crate) fn check_glob(field: &str, glob: &str) -> Result<(), QueryError> {
    let climbs = glob.split(['/', '\\']).any(|part| part == "..");
    if climbs || glob.contains('\0') {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::InvalidGlob,
            format!("{field} glob {glob:?} reaches above the directory it applies to ('..' or a NUL byte); globs only match paths below it"),
        )
        .hint("Start the search or listing higher up with path, and keep the glob below it, e.g. src/**/*.ts"));
    }
    Ok(())
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
mod tests;

#[cfg(test)]
mod fuzz_tests;
