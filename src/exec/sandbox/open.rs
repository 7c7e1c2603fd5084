//! The one way the local and LSP tools open a file they will read: without following a
//! symbolic link in the last component (`O_NOFOLLOW`), without blocking on a FIFO swapped in
//! (`O_NONBLOCK`), and then checked again on the open descriptor itself, because the path was
//! checked a moment earlier and may have changed since (a file swapped for a link to
//! `~/.ssh/id_rsa`, a directory above it swapped for a link out of the root). The descriptor's
//! real path (`/proc/self/fd/N`) must still lie inside an allowed root and not be protected;
//! where `/proc` is missing, the descriptor's device and inode must be those of the checked
//! path. A regular file with more than one hard link is refused here too (see `hard_linked`).

use super::{hard_link_refusal, Sandbox};
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Why a file could not be opened: the operating system's error, for the tool to word in its
/// own terms (not found, not readable), or a refusal by the sandbox, passed on as it is.
#[derive(Debug)]
pub(crate) enum OpenError {
    Io(std::io::Error),
    Refused(QueryError),
}

impl From<QueryError> for OpenError {
    fn from(e: QueryError) -> OpenError {
        OpenError::Refused(e)
    }
}

/// The refusal for a path that changed between the check and the open. It quotes the path as
/// the caller wrote it; where it led instead is not said.
fn swapped(raw: &str) -> QueryError {
    QueryError::new(
        Failure::Denied,
        ToolErrorCode::PathValidationFailed,
        format!("Path '{raw}' changed while it was being opened (it was replaced by a symbolic link or moved) and now leads outside the allowed directories or to a protected file; it was not read"),
    )
    .hint("Something is rewriting this path; read it again once it is stable")
}

impl Sandbox {
    /// Opens `path` (a path [`Sandbox::resolve`] returned) for reading, with the file's own
    /// metadata (`fstat`, so it describes what was opened, not what the path names now).
    /// Directories open too: callers decide from the metadata what they accept.
    pub(crate) fn open(&self, path: &Path, raw: &str) -> Result<(File, Metadata), OpenError> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                // The last component is a link now; `resolve` returned a path without any.
                Some(libc::ELOOP) => OpenError::Refused(swapped(raw)),
                _ => OpenError::Io(e),
            })?;
        let meta = file.metadata().map_err(OpenError::Io)?;
        self.check_opened(&file, &meta, path, raw)?;
        Ok((file, meta))
    }

    /// The checks on the open descriptor: where it really is, and how many names it has.
    fn check_opened(
        &self,
        file: &File,
        meta: &Metadata,
        path: &Path,
        raw: &str,
    ) -> Result<(), QueryError> {
        let proc_link = format!("/proc/self/fd/{}", file.as_raw_fd());
        match std::fs::read_link(&proc_link) {
            Ok(real) => {
                // A file deleted after the open reads as "/x/name (deleted)": still judged by
                // where it was.
                if self.placement(&real).is_err() {
                    return Err(swapped(raw));
                }
            }
            // No /proc (a container without it, another Unix): the descriptor must be the
            // very file the checked path names.
            Err(_) => match std::fs::metadata(path) {
                Ok(now) if now.dev() == meta.dev() && now.ino() == meta.ino() => {}
                _ => return Err(swapped(raw)),
            },
        }
        if hard_linked(meta) {
            return Err(hard_link_refusal(raw, meta.nlink()));
        }
        Ok(())
    }
}

impl Sandbox {
    /// The names in the directory `path` (a path [`Sandbox::resolve`] or a walk below it
    /// gave), listed from a descriptor opened through [`Sandbox::open`]: the listing is of the
    /// directory that was checked, even if the path was swapped for a link since. Reading
    /// `/proc/self/fd/N` lists the open directory itself; without `/proc` the path is listed
    /// again (the open already compared device and inode).
    pub(crate) fn list_dir(&self, path: &Path) -> Result<Vec<OsString>, OpenError> {
        let (dir, meta) = self.open(path, &self.display(path))?;
        if !meta.is_dir() {
            return Err(OpenError::Io(std::io::Error::from_raw_os_error(
                libc::ENOTDIR,
            )));
        }
        let entries = match std::fs::read_dir(format!("/proc/self/fd/{}", dir.as_raw_fd())) {
            Ok(entries) => entries,
            Err(_) => std::fs::read_dir(path).map_err(OpenError::Io)?,
        };
        // An entry that fails mid-listing vanished or is unreadable; the rest still count.
        let names = entries.flatten().map(|e| e.file_name()).collect();
        drop(dir);
        Ok(names)
    }
}

/// A regular file with more than one hard link. Its other names may lie anywhere on the same
/// file system, outside every allowed root (a link to `~/.ssh/id_rsa` dropped into the
/// workspace), and nothing tells where they are: unlike a symbolic link, a hard link has no
/// target to check. Such files are refused for reading and left out of searches and listings.
/// Directories always have several links (`.` and each child's `..`) and are not concerned.
pub(crate) fn hard_linked(meta: &Metadata) -> bool {
    meta.file_type().is_file() && meta.nlink() > 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExecConfig;

    fn refused(r: Result<(File, Metadata), OpenError>) -> QueryError {
        match r {
            Err(OpenError::Refused(e)) => e,
            Err(OpenError::Io(e)) => panic!("expected a refusal, got {e}"),
            Ok(_) => panic!("expected a refusal, the file was opened"),
        }
    }

    #[test]
    fn opens_checked_files_and_refuses_links_swapped_in_and_hard_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(outside.path().join("secret"), "CANARY").unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
        let path = sandbox.resolve("a.txt").unwrap();
        let (_, meta) = sandbox.open(&path, "a.txt").unwrap();
        assert!(meta.is_file());

        // Checked as a file, then swapped for a link out of the root before the open.
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), &path).unwrap();
        let e = refused(sandbox.open(&path, "a.txt"));
        assert_eq!(e.code, ToolErrorCode::PathValidationFailed);
        assert!(e.message.contains("'a.txt' changed"), "{}", e.message);
        assert!(!e.message.contains(&*outside.path().to_string_lossy()));

        // A directory above it swapped for a link: the last component is no link, the
        // descriptor's real path gives it away.
        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/secret"), "inside").unwrap();
        let checked = sandbox.resolve("d/secret").unwrap();
        std::fs::remove_dir_all(root.join("d")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("d")).unwrap();
        let e = refused(sandbox.open(&checked, "d/secret"));
        assert!(e.message.contains("'d/secret' changed"), "{}", e.message);

        // Listing a directory swapped for a link is refused as well.
        let e = match sandbox.list_dir(&root.join("d")) {
            Err(OpenError::Refused(e)) => e,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert!(e.message.contains("'d' changed"), "{}", e.message);
        assert!(sandbox.list_dir(&root).unwrap().len() >= 2);

        std::fs::write(outside.path().join("other"), "CANARY").unwrap();
        let linked = root.join("linked.txt");
        std::fs::hard_link(outside.path().join("other"), &linked).unwrap();
        let e = refused(sandbox.open(&linked, "linked.txt"));
        assert!(e.message.contains("2 hard links"), "{}", e.message);
    }
}
