//! Where a path really leads: every component that exists is looked at with `lstat` and a
//! symbolic link is replaced by its target, the way the kernel walks it; the part that does
//! not exist yet is kept as written. `std::fs::canonicalize` cannot be used alone because it
//! fails on a path whose last part is missing, and the lexical fallback that leaves behind
//! would let `link-out/missing` (or a dangling link to an outside file) pass as "inside" and
//! answer "not found" for outside paths that do not exist: an oracle about the machine.

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Links followed for one path before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// One step still to take.
enum Step {
    Name(OsString),
    Up,
}

/// Pushes `path`'s components onto `pending` so that they are taken first, in order.
fn push_front(pending: &mut Vec<Step>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(n) => pending.push(Step::Name(n.to_os_string())),
            Component::ParentDir => pending.push(Step::Up),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
}

/// The real location of the absolute `path`: links resolved wherever they exist, the missing
/// tail appended. Errors are those of `lstat` / `readlink` other than "does not exist", and
/// ELOOP past `MAX_LINKS` links.
pub(super) fn real_path(path: &Path) -> io::Result<PathBuf> {
    let mut out = PathBuf::from("/");
    let mut pending = Vec::new();
    push_front(&mut pending, path);
    let mut links = 0;
    // How many trailing components of `out` do not exist: below them nothing is looked up
    // (there is nothing to find), but a `..` that climbs back out of them resumes the lookups,
    // so a link met after `missing/..` is still followed.
    let mut missing = 0usize;
    while let Some(step) = pending.pop() {
        let name = match step {
            Step::Up => {
                if out.pop() && missing > 0 {
                    missing -= 1;
                }
                continue;
            }
            Step::Name(name) => name,
        };
        let next = out.join(&name);
        if missing > 0 {
            out = next;
            missing += 1;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_front(&mut pending, &target);
            }
            Ok(_) => out = next,
            Err(e) if is_missing(&e) => {
                out = next;
                missing = 1;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// "Does not exist", including a path that goes through a regular file (`a.txt/b`).
fn is_missing(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_are_followed_where_they_exist_and_the_missing_tail_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, out) = (base.join("root"), base.join("out"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("secret"), "s").unwrap();
        symlink(&out, root.join("abs")).unwrap();
        symlink("../out", root.join("rel")).unwrap();
        symlink("rel", root.join("chain")).unwrap();
        symlink(out.join("nothing"), root.join("dangling")).unwrap();
        symlink("loop-b", root.join("loop-a")).unwrap();
        symlink("loop-a", root.join("loop-b")).unwrap();
        symlink("missing/../abs", root.join("climb")).unwrap();
        let real = |p: &str| real_path(&root.join(p));
        assert_eq!(real("src").unwrap(), root.join("src"));
        assert_eq!(real("src/new.rs").unwrap(), root.join("src/new.rs"));
        assert_eq!(real("abs/secret").unwrap(), out.join("secret"));
        assert_eq!(real("rel/missing").unwrap(), out.join("missing"));
        assert_eq!(real("chain/secret").unwrap(), out.join("secret"));
        assert_eq!(real("dangling").unwrap(), out.join("nothing"));
        assert_eq!(real("climb/secret").unwrap(), out.join("secret"));
        assert_eq!(real("src/x/../../abs").unwrap(), out);
        let e = real("loop-a").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    }
}
