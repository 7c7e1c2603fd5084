//! localFindFiles' tests on one entry, compiled once per query from its fields. All given
//! tests must pass (find's implicit -and); `names` is any-of. Boolean switches (`empty`,
//! `executable`, `readable`, `writable`) filter only when true, as find's flags do. Cheap
//! tests run first, then those that need metadata, then those that need a system call.

use super::parse::{self, Perm, RegexType, Size};
use super::walk::Entry;
use super::Query;
use crate::exec::outcome::QueryError;
use crate::exec::sandbox::{check_glob, Sandbox};
use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Compiled regexes larger than this are refused (a pattern, not a program).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The compiled tests of one query.
pub(crate) struct Filters {
    pub(crate) min_depth: usize,
    kind: Option<char>,
    name: Option<GlobMatcher>,
    iname: Option<GlobMatcher>,
    names: Option<GlobSet>,
    path_glob: Option<GlobMatcher>,
    regex: Option<Regex>,
    empty: bool,
    modified_within: Option<Duration>,
    modified_before: Option<Duration>,
    accessed_within: Option<Duration>,
    size_greater: Option<Size>,
    size_less: Option<Size>,
    perm: Option<Perm>,
    /// access(2) mode bits the current user must hold.
    access: i32,
    exclude_names: Option<GlobSet>,
    exclude_paths: Option<GlobSet>,
    now: SystemTime,
    /// How a value was read when that may surprise (find's unit-less sizes); shown as hints.
    pub(crate) notes: Vec<String>,
}

impl Filters {
    pub(crate) fn compile(q: &Query) -> Result<Filters, QueryError> {
        let min_depth = q.min_depth.unwrap_or(0);
        if let Some(max) = q.max_depth.filter(|&max| max < min_depth) {
            return Err(QueryError::invalid(format!(
                "minDepth {min_depth} is greater than maxDepth {max}, so nothing could match"
            ))
            .hint("Use minDepth <= maxDepth; minDepth=1 leaves out the start directory itself"));
        }
        let (size_greater, size_less, notes) = sizes(q)?;
        let access = [(q.readable, 4), (q.writable, 2), (q.executable, 1)]
            .iter()
            .filter(|(wanted, _)| *wanted)
            .fold(0, |mask, (_, bit)| mask | bit);
        let (exclude_names, exclude_paths) = exclusions(&q.exclude_dir)?;
        Ok(Filters {
            min_depth,
            kind: q.kind.as_deref().map(kind_letter).transpose()?,
            name: q
                .name
                .as_deref()
                .map(|p| glob("name", p, false))
                .transpose()?,
            iname: q
                .iname
                .as_deref()
                .map(|p| glob("iname", p, true))
                .transpose()?,
            names: (!q.names.is_empty())
                .then(|| glob_set("names", &q.names, false))
                .transpose()?,
            path_glob: q
                .path_pattern
                .as_deref()
                .map(|p| glob("pathPattern", p, false))
                .transpose()?,
            regex: q
                .regex
                .as_deref()
                .map(|r| compile_regex(r, q.regex_type))
                .transpose()?,
            empty: q.empty,
            modified_within: q
                .modified_within
                .as_deref()
                .map(|s| parse::age("modifiedWithin", s))
                .transpose()?,
            modified_before: q
                .modified_before
                .as_deref()
                .map(|s| parse::age("modifiedBefore", s))
                .transpose()?,
            accessed_within: q
                .accessed_within
                .as_deref()
                .map(|s| parse::age("accessedWithin", s))
                .transpose()?,
            size_greater,
            size_less,
            perm: q.permissions.as_deref().map(parse::perm).transpose()?,
            access,
            exclude_names,
            exclude_paths,
            now: SystemTime::now(),
            notes,
        })
    }

    /// Whether a directory met below the start is pruned by excludeDir. `rel` is its path
    /// relative to the start directory.
    pub(crate) fn excluded(&self, entry: &Entry, rel: &str) -> bool {
        entry.depth > 0
            && entry.is_dir()
            && (self
                .exclude_names
                .as_ref()
                .is_some_and(|s| s.is_match(entry.name()))
                || self.exclude_paths.as_ref().is_some_and(|s| s.is_match(rel)))
    }

    /// Whether `entry`, shown as `display` (relative to the workspace root), passes every test.
    pub(crate) fn matches(&self, entry: &Entry, display: &str, sandbox: &Sandbox) -> bool {
        if entry.depth < self.min_depth {
            return false;
        }
        let meta = &entry.meta;
        if self.kind.is_some_and(|k| k != type_letter(meta)) {
            return false;
        }
        let name = entry.name();
        let name_ok = self.name.as_ref().is_none_or(|g| g.is_match(&name))
            && self.iname.as_ref().is_none_or(|g| g.is_match(&name))
            && self.names.as_ref().is_none_or(|s| s.is_match(&name));
        if !name_ok {
            return false;
        }
        if self.path_glob.is_some() || self.regex.is_some() {
            let candidates = find_style(display);
            let path_ok = self
                .path_glob
                .as_ref()
                .is_none_or(|g| candidates.iter().any(|c| g.is_match(c)))
                && self
                    .regex
                    .as_ref()
                    .is_none_or(|r| candidates.iter().any(|c| r.is_match(c)));
            if !path_ok {
                return false;
            }
        }
        // A time the file system cannot tell fails every age test; a future one is age 0.
        let age = |t: std::io::Result<SystemTime>| {
            t.ok()
                .map(|t| self.now.duration_since(t).unwrap_or(Duration::ZERO))
        };
        if let Some(limit) = self.modified_within {
            if age(meta.modified()).is_none_or(|a| a >= limit) {
                return false;
            }
        }
        if let Some(limit) = self.modified_before {
            if age(meta.modified()).is_none_or(|a| a <= limit) {
                return false;
            }
        }
        if let Some(limit) = self.accessed_within {
            if age(meta.accessed()).is_none_or(|a| a >= limit) {
                return false;
            }
        }
        // Sizes are about files: a directory's own size is its listing's, never "large".
        if self.size_greater.is_some() || self.size_less.is_some() {
            if meta.is_dir() {
                return false;
            }
            let bytes = meta.len();
            if self
                .size_greater
                .is_some_and(|s| s.units_of(bytes) <= s.count)
                || self.size_less.is_some_and(|s| s.units_of(bytes) >= s.count)
            {
                return false;
            }
        }
        if self.perm.is_some_and(|p| !p.matches(meta.mode())) {
            return false;
        }
        if self.empty && !is_empty(entry) {
            return false;
        }
        self.access == 0 || may_access(&entry.path, meta, self.access, sandbox)
    }
}

/// find's type letter for an entry: f d l b c p s (`?` for anything else).
pub(crate) fn type_letter(meta: &std::fs::Metadata) -> char {
    let ft = meta.file_type();
    if ft.is_file() {
        'f'
    } else if ft.is_dir() {
        'd'
    } else if ft.is_symlink() {
        'l'
    } else if ft.is_block_device() {
        'b'
    } else if ft.is_char_device() {
        'c'
    } else if ft.is_fifo() {
        'p'
    } else if ft.is_socket() {
        's'
    } else {
        '?'
    }
}

fn kind_letter(raw: &str) -> Result<char, QueryError> {
    match raw {
        "f" | "d" | "l" | "b" | "c" | "p" | "s" => Ok(raw.chars().next().unwrap_or('f')),
        other => Err(QueryError::invalid(format!(
            "type must be one of f, d, l, b, c, p, s; found '{other}'"
        ))
        .detail("field", "type")),
    }
}

/// The path forms a find user may have in mind: as shown (`src/a.ts`) and as find prints
/// it under `.` (`./src/a.ts`), so both `src/*` and `*/src/*` style patterns work.
fn find_style(display: &str) -> Vec<String> {
    if display.starts_with('/') || display == "." {
        vec![display.to_string()]
    } else {
        vec![display.to_string(), format!("./{display}")]
    }
}

fn glob_builder(pattern: &str, case_insensitive: bool) -> GlobBuilder<'_> {
    let mut b = GlobBuilder::new(pattern);
    b.case_insensitive(case_insensitive).backslash_escape(true);
    b
}

fn glob_error(field: &str, pattern: &str, e: globset::Error) -> QueryError {
    QueryError::invalid(format!(
        "{field} '{pattern}' is not a valid glob: {}",
        e.kind()
    ))
    .detail("field", field)
    .hint("Globs use * (any characters), ? (one character), [abc] (a set) and {a,b} (alternatives)")
}

fn glob(field: &str, pattern: &str, case_insensitive: bool) -> Result<GlobMatcher, QueryError> {
    check_glob(field, pattern)?;
    glob_builder(pattern, case_insensitive)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| glob_error(field, pattern, e))
}

fn glob_set(
    field: &str,
    patterns: &[String],
    case_insensitive: bool,
) -> Result<GlobSet, QueryError> {
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        check_glob(field, p)?;
        set.add(
            glob_builder(p, case_insensitive)
                .build()
                .map_err(|e| glob_error(field, p, e))?,
        );
    }
    set.build()
        .map_err(|e| QueryError::invalid(format!("{field} could not be compiled: {e}")))
}

/// excludeDir entries: a bare name (or name glob) prunes directories of that name at any
/// depth; one with a `/` is matched against the path below the start directory.
fn exclusions(dirs: &[String]) -> Result<(Option<GlobSet>, Option<GlobSet>), QueryError> {
    let mut names = Vec::new();
    let mut paths = Vec::new();
    for d in dirs {
        let d = d.trim().trim_end_matches('/');
        let d = d.strip_prefix("./").unwrap_or(d);
        if d.is_empty() {
            continue;
        }
        if d.contains('/') {
            paths.push(d.to_string());
            paths.push(format!("*/{d}"));
        } else {
            names.push(d.to_string());
        }
    }
    let set = |list: Vec<String>| {
        (!list.is_empty())
            .then(|| glob_set("excludeDir", &list, false))
            .transpose()
    };
    Ok((set(names)?, set(paths)?))
}

/// find -regex: the whole path must match. `.*` is put in front unless the pattern already
/// starts with `.*`, `/` or `^`, so `\.rs$` means "ends in .rs". Without regexType the
/// pattern is read as a POSIX extended regex.
fn compile_regex(raw: &str, dialect: Option<RegexType>) -> Result<Regex, QueryError> {
    let dialect = dialect.unwrap_or(RegexType::Extended);
    let fail = |why: String| {
        QueryError::invalid(format!(
            "regex '{raw}' cannot be used as {}: {why}",
            dialect.name()
        ))
        .detail("field", "regex")
        .hint("regex matches the whole path, e.g. '.*/migrations/[0-9]+_.*\\.sql'")
        .hint("Simple name patterns are easier as name/iname globs such as '*.sql'")
    };
    let translated = parse::posix_to_regex(raw, dialect).map_err(fail)?;
    let anchored = if raw.starts_with(".*") || raw.starts_with('/') || raw.starts_with('^') {
        translated
    } else {
        format!(".*{translated}")
    };
    RegexBuilder::new(&format!("^(?:{anchored})$"))
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let why = text.lines().last().unwrap_or(&text).trim().to_string();
            fail(why)
        })
}

/// find -empty: an empty regular file or a directory without entries.
fn is_empty(entry: &Entry) -> bool {
    if entry.meta.is_file() {
        entry.meta.len() == 0
    } else if entry.meta.is_dir() {
        std::fs::read_dir(&entry.path).is_ok_and(|mut d| d.next().is_none())
    } else {
        false
    }
}

/// find -readable/-writable/-executable: what access(2) says for this process, ACLs and
/// read-only mounts included. A link is judged by its target only when that target is in
/// the sandbox; a link leading out of it counts as inaccessible.
fn may_access(path: &Path, meta: &std::fs::Metadata, mode: i32, sandbox: &Sandbox) -> bool {
    if meta.file_type().is_symlink() {
        let Some(raw) = path.to_str() else {
            return false;
        };
        if sandbox.resolve(raw).is_err() {
            return false;
        }
    }
    sys::access_ok(path, mode)
}

mod sys {
    use std::ffi::{c_char, c_int, CString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    extern "C" {
        fn access(path: *const c_char, mode: c_int) -> c_int;
    }

    /// Whether access(2) grants `mode` (R_OK 4 | W_OK 2 | X_OK 1) on `path`.
    pub(super) fn access_ok(path: &Path, mode: i32) -> bool {
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `c_path` is a NUL-terminated string that lives across the call, and
        // access(2) only reads it; no memory is handed over or retained.
        unsafe { access(c_path.as_ptr(), mode) == 0 }
    }
}

/// sizeGreater, sizeLess, and notes on either.
type SizeBounds = (Option<Size>, Option<Size>, Vec<String>);

/// The sizeGreater and sizeLess bounds, with a note for each given without a unit (read as
/// find reads it, in 512-byte blocks).
fn sizes(q: &Query) -> Result<SizeBounds, QueryError> {
    let mut notes = Vec::new();
    let size_greater = q
        .size_greater
        .as_deref()
        .map(|s| parse::size("sizeGreater", s, '+'))
        .transpose()?;
    let size_less = q
        .size_less
        .as_deref()
        .map(|s| parse::size("sizeLess", s, '-'))
        .transpose()?;
    for (field, raw, size) in [
        ("sizeGreater", &q.size_greater, size_greater),
        ("sizeLess", &q.size_less, size_less),
    ] {
        if let (Some(raw), Some(size)) = (raw, size.filter(|s| s.implicit_blocks)) {
            notes.push(format!(
                "{field} '{}' has no unit, so it was read as find reads it: {} blocks of 512 bytes ({} bytes); add 'c' for bytes or 'k'/'M'/'G'",
                raw.trim(),
                size.count,
                size.count.saturating_mul(512)
            ));
        }
    }
    Ok((size_greater, size_less, notes))
}
