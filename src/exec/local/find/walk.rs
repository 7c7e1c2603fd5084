//! The directory walk shared by localFindFiles and localViewStructure: depth-first, siblings
//! in byte order of their names (so a walk cut short by a limit is reproducible), symlinks
//! reported but never followed (a link cannot lead the walk out of the sandbox, and link loops
//! cannot trap it), protected entries and files with several hard links skipped before anyone
//! sees them, and unreadable directories counted rather than fatal. A wall-clock budget and a
//! cap on visited entries keep one query from pinning a blocking thread after the framework's
//! timeout gave up on it.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::sandbox::{hard_linked, OpenError, Sandbox};
use std::fs::Metadata;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One file-system entry met by the walk; `meta` is from `lstat`, so links are links.
#[derive(Debug)]
pub(crate) struct Entry {
    /// Absolute path (inside the sandbox).
    pub(crate) path: PathBuf,
    /// 0 for the start path, 1 for its children, ...
    pub(crate) depth: usize,
    pub(crate) meta: Metadata,
}

impl Entry {
    /// The last path component, lossily decoded (names are matched and shown as text).
    pub(crate) fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub(crate) fn is_dir(&self) -> bool {
        self.meta.file_type().is_dir()
    }
}

/// What the visitor wants done after seeing an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Go into it if it is a directory within the depth limit.
    Descend,
    /// Do not go into it.
    Prune,
    /// End the walk now.
    Stop,
}

/// Why a walk ended before covering the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The visitor asked to stop (a limit was reached).
    Visitor,
    /// The time budget ran out.
    Deadline,
    /// Too many entries were visited.
    TooMany,
}

/// Bounds of one walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Deepest level visited; `None` means no limit.
    pub(crate) max_depth: Option<usize>,
    pub(crate) time: Duration,
    pub(crate) max_visited: usize,
}

impl Limits {
    /// Under the local family's 30 s timeout, leaving time to sort and serialise.
    pub(crate) const TIME: Duration = Duration::from_secs(20);
    pub(crate) const MAX_VISITED: usize = 2_000_000;

    pub(crate) fn depth(max_depth: Option<usize>) -> Limits {
        Limits {
            max_depth,
            time: Limits::TIME,
            max_visited: Limits::MAX_VISITED,
        }
    }
}

/// What the walk met besides the entries it handed over.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    pub(crate) visited: usize,
    /// Directories that could not be listed for lack of permission.
    pub(crate) denied: usize,
    /// Entries hidden because the sandbox protects them (.git, .env, keys, files with several
    /// hard links, ...).
    pub(crate) protected: usize,
    /// Entries that vanished or failed for another reason while being read.
    pub(crate) failed: usize,
    pub(crate) cut: Option<Cut>,
}

/// Walks `root` (already resolved by the sandbox), calling `visit` for the root itself
/// (depth 0) and then for every allowed entry below it, depth first.
pub(crate) fn walk(
    sandbox: &Sandbox,
    root: &Path,
    raw: &str,
    limits: Limits,
    mut visit: impl FnMut(&Entry) -> Visit,
) -> Result<Report, QueryError> {
    let meta = std::fs::symlink_metadata(root).map_err(|e| not_readable(raw, &e))?;
    let started = Instant::now();
    let mut report = Report {
        visited: 1,
        ..Report::default()
    };
    let root_entry = Entry {
        path: root.to_path_buf(),
        depth: 0,
        meta,
    };
    let action = visit(&root_entry);
    if action == Visit::Stop {
        report.cut = Some(Cut::Visitor);
        return Ok(report);
    }
    if action == Visit::Prune || !root_entry.is_dir() || limits.max_depth == Some(0) {
        return Ok(report);
    }
    // The start directory itself must be listable: an unreadable start is the caller's
    // problem to hear about, not an empty result.
    let first = children(sandbox, root).map_err(|e| match e {
        OpenError::Io(e) => not_readable(raw, &e),
        OpenError::Refused(e) => e,
    })?;
    let mut stack: Vec<(usize, std::vec::IntoIter<PathBuf>)> = vec![(1, first.into_iter())];
    while let Some((depth, siblings)) = stack.last_mut() {
        let depth = *depth;
        let Some(path) = siblings.next() else {
            stack.pop();
            continue;
        };
        if report.visited >= limits.max_visited {
            report.cut = Some(Cut::TooMany);
            break;
        }
        // Reading the clock costs little, but not nothing: once per 256 entries, starting with
        // the first.
        if (report.visited - 1).is_multiple_of(256) && started.elapsed() > limits.time {
            report.cut = Some(Cut::Deadline);
            break;
        }
        report.visited += 1;
        if !sandbox.allows(&path) {
            report.protected += 1;
            continue;
        }
        let Some(meta) = metadata(&path, &mut report) else {
            continue;
        };
        // A file with other names elsewhere is not shown at all (`sandbox::hard_linked`): its
        // size and times are those of a file that may live outside the roots.
        if hard_linked(&meta) {
            report.protected += 1;
            continue;
        }
        let entry = Entry { path, depth, meta };
        match visit(&entry) {
            Visit::Stop => {
                report.cut = Some(Cut::Visitor);
                break;
            }
            Visit::Prune => {}
            Visit::Descend if entry.is_dir() && limits.max_depth.is_none_or(|m| depth < m) => {
                match children(sandbox, &entry.path) {
                    Ok(list) => stack.push((depth + 1, list.into_iter())),
                    Err(OpenError::Io(e)) => count_unreadable(&e, &mut report),
                    Err(OpenError::Refused(_)) => report.protected += 1,
                }
            }
            Visit::Descend => {}
        }
    }
    Ok(report)
}

/// An entry's own metadata (links not followed), or `None` with the reason counted.
fn metadata(path: &Path, report: &mut Report) -> Option<std::fs::Metadata> {
    std::fs::symlink_metadata(path)
        .map_err(|e| count_unreadable(&e, report))
        .ok()
}

/// Counts an entry that could not be read: denied, or failed for another reason.
fn count_unreadable(e: &std::io::Error, report: &mut Report) {
    if e.kind() == ErrorKind::PermissionDenied {
        report.denied += 1;
    } else {
        report.failed += 1;
    }
}

/// A directory's entries, sorted by the bytes of their names, listed through the sandbox (a
/// directory swapped for a link out of the root after the walk looked at it is refused, not
/// listed).
fn children(sandbox: &Sandbox, dir: &Path) -> Result<Vec<PathBuf>, OpenError> {
    let mut names = sandbox.list_dir(dir)?;
    names.sort_unstable_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// The error for a start path that cannot be read; quotes the path as the caller wrote it.
fn not_readable(raw: &str, e: &std::io::Error) -> QueryError {
    match e.kind() {
        ErrorKind::NotFound => QueryError::new(
            Failure::NotFound,
            ToolErrorCode::PathNotFound,
            format!("Path '{raw}' does not exist"),
        )
        .hint("Check the spelling; paths are relative to the workspace root unless absolute")
        .hint("localViewStructure on the parent directory shows what is there"),
        ErrorKind::PermissionDenied => QueryError::new(
            Failure::Denied,
            ToolErrorCode::PermissionDenied,
            format!("Path '{raw}' cannot be read: permission denied"),
        )
        .hint("Choose a directory this process may read"),
        _ => QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileAccessFailed,
            format!("Path '{raw}' cannot be read: {}", e.kind()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExecConfig;

    fn names(sandbox: &Sandbox, root: &Path, limits: Limits) -> (Vec<String>, Report) {
        let mut seen = Vec::new();
        let report = walk(sandbox, root, "x", limits, |e| {
            seen.push(format!("{}:{}", e.depth, sandbox.display(&e.path)));
            Visit::Descend
        })
        .unwrap();
        (seen, report)
    }

    #[test]
    fn walks_depth_first_in_name_order_without_following_links_or_showing_protected() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("b/inner")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("b/inner/c.txt"), "c").unwrap();
        std::fs::write(root.join(".env"), "SECRET=1").unwrap();
        std::os::unix::fs::symlink(root.join("b"), root.join("link")).unwrap();
        let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
        let (seen, report) = names(&sandbox, &root, Limits::depth(None));
        assert_eq!(
            seen,
            [
                "0:.",
                "1:a.txt",
                "1:b",
                "2:b/inner",
                "3:b/inner/c.txt",
                "1:link"
            ]
        );
        assert_eq!(report.protected, 2, "{report:?}");
        assert_eq!(report.cut, None);
        let (shallow, _) = names(&sandbox, &root, Limits::depth(Some(1)));
        assert_eq!(shallow, ["0:.", "1:a.txt", "1:b", "1:link"]);
    }

    #[test]
    fn stops_on_request_and_on_the_visit_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for i in 0..10 {
            std::fs::write(root.join(format!("f{i}")), "").unwrap();
        }
        let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
        let mut n = 0;
        let report = walk(&sandbox, &root, "x", Limits::depth(None), |_| {
            n += 1;
            if n == 3 {
                Visit::Stop
            } else {
                Visit::Descend
            }
        })
        .unwrap();
        assert_eq!((n, report.cut), (3, Some(Cut::Visitor)));
        let capped = Limits {
            max_visited: 4,
            ..Limits::depth(None)
        };
        let (seen, report) = names(&sandbox, &root, capped);
        assert_eq!(seen.len(), 4);
        assert_eq!(report.cut, Some(Cut::TooMany));
        let hurried = Limits {
            time: Duration::ZERO,
            ..Limits::depth(None)
        };
        let (_, report) = names(&sandbox, &root, hurried);
        assert_eq!(report.cut, Some(Cut::Deadline));
    }

    #[test]
    fn missing_start_is_not_found_and_unreadable_subdirectories_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
        let e = walk(
            &sandbox,
            &root.join("nope"),
            "nope",
            Limits::depth(None),
            |_| Visit::Descend,
        )
        .unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::NotFound, ToolErrorCode::PathNotFound)
        );
        assert!(e.message.contains("'nope'"), "{}", e.message);

        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir(root.join("locked")).unwrap();
        std::fs::write(root.join("locked/x"), "").unwrap();
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        let (seen, report) = names(&sandbox, &root, Limits::depth(None));
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        // root reads any directory, so the count only shows for an ordinary user.
        if std::fs::metadata(&root)
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap()
            == 0
        {
            assert_eq!(seen, ["0:.", "1:locked", "2:locked/x"]);
        } else {
            assert_eq!(seen, ["0:.", "1:locked"]);
            assert_eq!(report.denied, 1);
        }
    }
}
