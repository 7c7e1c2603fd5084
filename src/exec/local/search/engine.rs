//! The search itself: ripgrep's walker (`ignore`) lists the files under the path with the
//! query's ignore, hidden, symlink, type and glob rules, minus what the sandbox protects; then
//! the files are searched in parallel (see `sink`), sorted, and given their times.

use super::matcher::AnyMatcher;
use super::options::{BinaryFiles, Options, Output, Sort};
use super::sink::{search_file, searcher, Collected, Hit};
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::sandbox::{check_glob, Sandbox};
use grep_searcher::Encoding;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::WalkBuilder;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Work stops here and what was found is returned with a warning, comfortably inside the
/// local family's 30 s timeout so the agent gets partial results rather than a timeout.
pub(crate) const SEARCH_DEADLINE: Duration = Duration::from_secs(20);

/// One searched file that belongs in the result.
#[derive(Debug, Clone)]
pub(crate) struct FileResult {
    pub path: PathBuf,
    /// Matching lines, or matches with countMatches (1 in filesOnly, 0 in filesWithoutMatch).
    pub count: u64,
    pub hits: Vec<Hit>,
    /// Binary data was seen (binaryFiles=binary reports such files without their bytes).
    pub binary: bool,
    pub modified: Option<SystemTime>,
    sort_time: Option<SystemTime>,
}

/// What the walk and the search came to.
#[derive(Debug, Default)]
pub(crate) struct Searched {
    pub files: Vec<FileResult>,
    pub files_searched: usize,
    pub bytes_searched: u64,
    pub binary_skipped: Vec<PathBuf>,
    pub protected_hidden: usize,
    pub problems: Vec<String>,
    pub clipped_values: usize,
    pub timed_out: bool,
    pub missing_times: usize,
}

fn glob_error(field: &str, glob: &str, e: impl std::fmt::Display) -> QueryError {
    QueryError::new(
        Failure::Invalid,
        ToolErrorCode::InvalidGlob,
        format!("{field} glob {glob:?} is not valid: {e}"),
    )
    .hint("Globs use gitignore syntax, e.g. *.ts, src/**/*.rs or {a,b}.json")
}

/// Builds ripgrep's walker for `root` with the query's filters.
fn walker(
    root: &Path,
    sandbox: &Sandbox,
    o: &Options,
    hidden_count: Arc<AtomicUsize>,
) -> Result<WalkBuilder, QueryError> {
    let mut wb = WalkBuilder::new(root);
    let respect = !o.no_ignore;
    wb.hidden(!o.hidden)
        .ignore(respect)
        .git_ignore(respect)
        .git_global(respect)
        .git_exclude(respect)
        .parents(respect)
        // A .gitignore is honoured even outside a git checkout (an unpacked archive, a
        // workspace that is a subdirectory): agents expect ignored output to stay hidden.
        .require_git(false)
        .follow_links(o.follow_symlinks)
        .sort_by_file_path(|a, b| a.cmp(b));
    if respect {
        wb.add_custom_ignore_filename(".rgignore");
    }
    if let Some(name) = &o.file_type {
        wb.types(file_types(name)?);
    }
    if !(o.include.is_empty() && o.exclude.is_empty() && o.exclude_dir.is_empty()) {
        wb.overrides(overrides(sandbox, o)?);
    }
    let sb = sandbox.clone();
    wb.filter_entry(move |entry| {
        let path = entry.path();
        // A followed symlink must land inside an allowed root; its lexical path always does.
        let ok = sb.allows(path) && (!entry.path_is_symlink() || link_target_allowed(&sb, path));
        if !ok {
            hidden_count.fetch_add(1, Ordering::Relaxed);
        }
        ok
    });
    Ok(wb)
}

/// ripgrep's file type `name`, or an error naming the closest known types.
fn file_types(name: &str) -> Result<ignore::types::Types, QueryError> {
    let mut tb = TypesBuilder::new();
    tb.add_defaults();
    let known: Vec<String> = tb
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect();
    tb.select(name);
    let types = tb.build().map_err(|_| {
        let mut close: Vec<(f64, &String)> = known
            .iter()
            .map(|k| (strsim::jaro_winkler(name, k), k))
            .collect();
        close.sort_by(|a, b| b.0.total_cmp(&a.0));
        let names: Vec<&str> = close.iter().take(6).map(|(_, k)| k.as_str()).collect();
        QueryError::new(
            Failure::Invalid,
            ToolErrorCode::UnknownFileType,
            format!("type {name:?} is not a ripgrep file type"),
        )
        .hint(format!("Closest known types: {}", names.join(", ")))
        .hint("Or filter by glob instead, e.g. include=[\"*.ext\"]")
    })?;
    Ok(types)
}

/// The include, exclude and excludeDir globs as one override set.
fn overrides(sandbox: &Sandbox, o: &Options) -> Result<ignore::overrides::Override, QueryError> {
    // Globs are relative to the workspace root, where relative query paths start too.
    let mut ob = OverrideBuilder::new(sandbox.workspace());
    for (field, globs) in [
        ("include", &o.include),
        ("exclude", &o.exclude),
        ("excludeDir", &o.exclude_dir),
    ] {
        for g in globs {
            check_glob(field, g)?;
        }
    }
    for g in &o.include {
        ob.add(g).map_err(|e| glob_error("include", g, e))?;
    }
    for g in &o.exclude {
        let g = g.trim_start_matches('!');
        ob.add(&format!("!{g}"))
            .map_err(|e| glob_error("exclude", g, e))?;
    }
    for d in &o.exclude_dir {
        let d = d.trim_start_matches('!').trim_end_matches('/');
        if d.is_empty() {
            continue;
        }
        ob.add(&format!("!{d}/"))
            .map_err(|e| glob_error("excludeDir", d, e))?;
    }
    ob.build().map_err(|e| glob_error("include/exclude", "", e))
}

/// Whether a symlink's final target exists, lies inside an allowed root and is not
/// protected. A target whose path is not UTF-8 cannot be checked and is refused.
fn link_target_allowed(sandbox: &Sandbox, link: &Path) -> bool {
    match std::fs::canonicalize(link) {
        Ok(real) => real
            .to_str()
            .is_some_and(|s| sandbox.resolve(s).is_ok_and(|r| r == real)),
        Err(_) => false,
    }
}

/// Walk errors name paths relative to the workspace, never the machine's layout. The walker
/// also reads ignore files above the searched path (`parents`) and ignore files that are links;
/// an error in one of those that lies outside the allowed directories names neither the file
/// nor the line (a glob parse error quotes the line: it would show the file's text).
fn describe_walk_error(e: &ignore::Error, sandbox: &Sandbox) -> String {
    describe(e, sandbox, true)
}

/// `lines_shown`: whether the file the error is about may have its text quoted.
fn describe(e: &ignore::Error, sandbox: &Sandbox, lines_shown: bool) -> String {
    match e {
        ignore::Error::WithPath { path, err } => {
            let readable = path.to_str().is_some_and(|p| sandbox.resolve(p).is_ok());
            let place = if sandbox.within_roots(path) {
                sandbox.display(path)
            } else {
                "an ignore file outside the allowed directories".to_string()
            };
            format!("{place}: {}", describe(err, sandbox, readable))
        }
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            describe(err, sandbox, lines_shown)
        }
        ignore::Error::Loop { child, .. } => {
            format!("{}: symbolic link loop", sandbox.display(child))
        }
        ignore::Error::Io(io) => io.kind().to_string(),
        ignore::Error::Partial(errs) => errs
            .iter()
            .map(|e| describe(e, sandbox, lines_shown))
            .collect::<Vec<_>>()
            .join("; "),
        ignore::Error::Glob { .. } if !lines_shown => {
            "a line is not a valid glob and was skipped".to_string()
        }
        other => other.to_string(),
    }
}

/// Refuses an encoding label that encoding_rs does not know, before any file is read.
pub(crate) fn check_encoding(o: &Options) -> Result<(), QueryError> {
    match o.encoding.as_deref() {
        Some(label) if !label.eq_ignore_ascii_case("none") => Encoding::new(label).map(|_| ()).map_err(|e| {
            QueryError::new(Failure::Invalid, ToolErrorCode::UnknownEncoding, format!("encoding {label:?} is not supported: {e}"))
                .hint("Use a WHATWG label such as utf-8, utf-16le, utf-16be, latin1, shift_jis or gbk; 'none' disables BOM sniffing")
        }),
        _ => Ok(()),
    }
}

/// Lists the files under `root`, then searches them.
pub(crate) fn run(
    root: &Path,
    sandbox: &Sandbox,
    o: &Options,
    matcher: &AnyMatcher,
) -> Result<Searched, QueryError> {
    let started = Instant::now();
    let deadline = started + SEARCH_DEADLINE;
    let hidden_count = Arc::new(AtomicUsize::new(0));
    let wb = walker(root, sandbox, o, hidden_count.clone())?;
    let mut out = Searched::default();
    let mut paths = Vec::new();
    for item in wb.build() {
        if started.elapsed() > SEARCH_DEADLINE {
            out.timed_out = true;
            break;
        }
        match item {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                paths.push(entry.into_path())
            }
            Ok(_) => {}
            Err(e) => out.problems.push(describe_walk_error(&e, sandbox)),
        }
    }
    out.protected_hidden = hidden_count.load(Ordering::Relaxed);

    let work = |paths: &[PathBuf]| -> Vec<Option<Result<Collected, String>>> {
        paths
            .par_iter()
            .map_init(
                || searcher(o),
                |s, path| {
                    if Instant::now() > deadline {
                        return None;
                    }
                    Some(search_file(sandbox, s, matcher, o, path, deadline))
                },
            )
            .collect()
    };
    let results = match o.threads {
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(|| work(&paths)),
            Err(_) => work(&paths),
        },
        None => work(&paths),
    };

    gather(&mut out, paths, results, sandbox, o);
    add_times(&mut out, o);
    sort(&mut out.files, o);
    Ok(out)
}

/// Adds each file's outcome to the result: its counts, the files kept for the output mode,
/// the binary files skipped, and what could not be read.
fn gather(
    out: &mut Searched,
    paths: Vec<PathBuf>,
    results: Vec<Option<Result<Collected, String>>>,
    sandbox: &Sandbox,
    o: &Options,
) {
    for (path, result) in paths.into_iter().zip(results) {
        let Some(result) = result else {
            out.timed_out = true;
            continue;
        };
        let c = match result {
            Ok(c) => c,
            Err(reason) => {
                out.problems
                    .push(format!("{}: {reason}", sandbox.display(&path)));
                continue;
            }
        };
        out.files_searched += 1;
        out.timed_out |= c.timed_out;
        out.bytes_searched += c.bytes;
        out.clipped_values += c.clipped;
        let skipped_binary = c.binary && c.count == 0 && o.binary == BinaryFiles::WithoutMatch;
        if skipped_binary {
            out.binary_skipped.push(path.clone());
        }
        let keep = match o.output {
            Output::FilesWithoutMatch => c.count == 0 && !skipped_binary,
            _ => c.count > 0,
        };
        if keep {
            out.files.push(FileResult {
                path,
                count: c.count,
                hits: c.hits,
                binary: c.binary,
                modified: None,
                sort_time: None,
            });
        }
    }
}

/// File times for sorting and `modified`, read only for the files in the result.
fn add_times(out: &mut Searched, o: &Options) {
    if o.sort == Sort::Path && !o.show_modified {
        return;
    }
    for f in &mut out.files {
        let meta = std::fs::metadata(&f.path).ok();
        f.modified = meta.as_ref().and_then(|m| m.modified().ok());
        f.sort_time = meta.as_ref().and_then(|m| match o.sort {
            Sort::Path | Sort::Modified => m.modified().ok(),
            Sort::Accessed => m.accessed().ok(),
            Sort::Created => m.created().ok(),
        });
        if o.sort != Sort::Path && f.sort_time.is_none() {
            out.missing_times += 1;
        }
    }
}

fn sort(files: &mut [FileResult], o: &Options) {
    match o.sort {
        Sort::Path => files.sort_by(|a, b| a.path.cmp(&b.path)),
        // Files whose time is unknown go last either way.
        _ => files.sort_by(|a, b| match (a.sort_time, b.sort_time) {
            (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.path.cmp(&b.path)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.path.cmp(&b.path),
        }),
    }
    if o.sort_reverse {
        match o.sort {
            Sort::Path => files.reverse(),
            _ => {
                let known = files.iter().take_while(|f| f.sort_time.is_some()).count();
                files[..known].reverse();
            }
        }
    }
}
