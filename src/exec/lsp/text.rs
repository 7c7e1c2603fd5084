//! Text plumbing shared by the three LSP tools: `file://` URIs both ways, reading a source
//! file with clear errors, numbered context snippets (`" 112|   code"`, `">113|"` marking the
//! target line) and character windows over the snippets of a long answer.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::page::paginate;
use crate::exec::text::split_lines;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Source files larger than this are not analysed (minified bundles, generated data).
pub(crate) const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;
/// Snippet lines are cut after this many characters, so one minified line cannot eat the
/// whole output budget.
const MAX_SNIPPET_LINE: usize = 300;

/// Bytes kept as-is in a URI path: RFC 3986 unreserved characters and `/`.
fn keep(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
}

/// `file:///abs/path`, percent-encoding everything else (as VS Code and the servers do).
pub(crate) fn uri_from_path(path: &Path) -> String {
    let raw = path.to_string_lossy();
    let mut out = String::from("file://");
    for b in raw.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file:` URI; `None` for any other scheme or a malformed escape.
pub(crate) fn path_from_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` names the same file as `file:///x`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// Reads a source file the sandbox has allowed. `shown` is the path as the caller wrote it,
/// the only form errors quote.
pub(crate) fn read_source(path: &Path, shown: &str) -> Result<String, QueryError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(QueryError::new(Failure::NotFound, ToolErrorCode::FileNotFound, format!("File '{shown}' does not exist"))
                .hint("uri is a file path relative to the workspace root (or absolute inside an allowed root)")
                .hint("Find the file first with localFindFiles or localSearchCode"));
        }
        Err(e) => {
            return Err(QueryError::new(
                Failure::Unprocessable,
                ToolErrorCode::FileNotReadable,
                format!("File '{shown}' cannot be read: {}", e.kind()),
            ))
        }
    };
    if meta.is_dir() {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::NotAFile,
            format!("'{shown}' is a directory; expected the source file that contains the symbol"),
        )
        .hint("Use localSearchCode on the directory to find the file and line of the symbol"));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileTooLarge,
            format!(
                "File '{shown}' is {} bytes; the LSP tools analyse files up to {MAX_SOURCE_BYTES} bytes",
                meta.len()
            ),
        )
        .hint("Generated or minified files are not worth navigating; look for the source file instead"));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileNotReadable,
            format!("File '{shown}' cannot be read: {}", e.kind()),
        )
    })?;
    if bytes.contains(&0) {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::BinaryFile,
            format!("File '{shown}' is binary; expected a source file"),
        ));
    }
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Source files read while building one answer, each read once. Files that cannot be read
/// (deleted since the server indexed them, binary, too large) are `None`.
#[derive(Default)]
pub(crate) struct Files {
    cache: HashMap<PathBuf, Option<Arc<String>>>,
}

impl Files {
    pub(crate) fn get(&mut self, path: &Path) -> Option<Arc<String>> {
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| read_source(path, "").ok().map(Arc::new))
            .clone()
    }

    /// Seeds the cache with a text already read.
    pub(crate) fn insert(&mut self, path: &Path, text: Arc<String>) {
        self.cache.insert(path.to_path_buf(), Some(text));
    }

    /// A numbered snippet of `path` around the 0-based `targets`, or "" when unreadable.
    pub(crate) fn snippet(&mut self, path: &Path, targets: &[usize], context: usize) -> String {
        self.get(path)
            .map(|text| snippet(&split_lines(&text), targets, context))
            .unwrap_or_default()
    }
}

/// Numbered lines around each 0-based target line, `context` lines either side; windows that
/// touch are merged, gaps are shown as a `...` line. Targets are marked with `>`.
pub(crate) fn snippet(lines: &[&str], targets: &[usize], context: usize) -> String {
    let mut targets: Vec<usize> = targets
        .iter()
        .copied()
        .filter(|&t| t < lines.len())
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let Some(&last) = targets.last() else {
        return String::new();
    };
    let width = (last + context + 1).min(lines.len()).to_string().len();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &t in &targets {
        let (start, end) = (
            t.saturating_sub(context),
            (t + context).min(lines.len() - 1),
        );
        match windows.last_mut() {
            Some(w) if start <= w.1 + 1 => w.1 = w.1.max(end),
            _ => windows.push((start, end)),
        }
    }
    let mut out = Vec::new();
    for (i, (start, end)) in windows.iter().enumerate() {
        if i > 0 {
            out.push(format!("{:>w$}...", "", w = width + 1));
        }
        for (n, line) in lines.iter().enumerate().take(*end + 1).skip(*start) {
            let mark = if targets.binary_search(&n).is_ok() {
                '>'
            } else {
                ' '
            };
            out.push(format!("{mark}{:>width$}| {}", n + 1, clip(line)));
        }
    }
    out.join("\n")
}

fn clip(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_SNIPPET_LINE) {
        Some((cut, _)) => format!("{}…", &line[..cut]).into(),
        None => line.into(),
    }
}

/// What a character window left of an answer's snippets.
pub(crate) struct Window {
    /// Each snippet cut to the window, `None` when it lies wholly outside.
    pub(crate) parts: Vec<Option<String>>,
    pub(crate) pagination: Option<Value>,
    pub(crate) hints: Vec<String>,
}

/// Windows the snippets of an answer, read one after another as one text, to `offset` /
/// `length` characters (or the first `budget` when neither is given and they are longer).
/// Entries whose snippet falls outside the window are dropped by the caller.
pub(crate) fn window(
    contents: Vec<String>,
    offset: Option<usize>,
    length: Option<usize>,
    budget: usize,
) -> Window {
    // Redacted before they are cut (see `paginate`), so the parts line up with the page.
    let contents: Vec<String> = contents
        .into_iter()
        .map(|c| crate::exec::redact::redact(&c).into_owned())
        .collect();
    let joined: String = contents.concat();
    let page = paginate(&joined, offset, length, budget);
    let Some(pagination) = page.pagination else {
        return Window {
            parts: contents.into_iter().map(Some).collect(),
            pagination: None,
            hints: Vec::new(),
        };
    };
    let num = |k: &str| pagination.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
    let (start, end) = (num("charOffset"), num("charOffset") + num("charLength"));
    let mut at = 0;
    let parts = contents
        .into_iter()
        .map(|c| {
            let n = c.chars().count();
            let (s, e) = (at, at + n);
            at = e;
            let (lo, hi) = (s.max(start), e.min(end));
            if lo < hi {
                Some(c.chars().skip(lo - s).take(hi - lo).collect())
            } else if n == 0 && s >= start && s < end {
                Some(String::new())
            } else {
                None
            }
        })
        .collect();
    Window {
        parts,
        pagination: Some(pagination),
        hints: page.hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_escapes() {
        let p = Path::new("/srv/my dir/ünï#1/a%b.ts");
        let uri = uri_from_path(p);
        assert_eq!(uri, "file:///srv/my%20dir/%C3%BCn%C3%AF%231/a%25b.ts");
        assert_eq!(path_from_uri(&uri).unwrap(), p);
        assert_eq!(path_from_uri("file:///c%3A/x").unwrap(), Path::new("/c:/x"));
        assert_eq!(
            path_from_uri("file://localhost/x").unwrap(),
            Path::new("/x")
        );
        assert!(path_from_uri("untitled:Untitled-1").is_none());
        assert!(path_from_uri("file:///bad%2").is_none());
    }

    #[test]
    fn snippets_are_numbered_marked_and_merged() {
        let text: Vec<String> = (1..=12).map(|n| format!("line {n}")).collect();
        let lines: Vec<&str> = text.iter().map(String::as_str).collect();
        assert_eq!(
            snippet(&lines, &[1], 1),
            " 1| line 1\n>2| line 2\n 3| line 3"
        );
        let s = snippet(&lines, &[8, 10], 1);
        assert_eq!(
            s,
            "  8| line 8\n> 9| line 9\n 10| line 10\n>11| line 11\n 12| line 12"
        );
        let s = snippet(&lines, &[0, 11], 0);
        assert_eq!(s, "> 1| line 1\n   ...\n>12| line 12");
        assert_eq!(snippet(&lines, &[40], 2), "");
        let long = "x".repeat(400);
        assert!(snippet(&[&long], &[0], 0).ends_with('…'));
    }

    #[test]
    fn windows_cut_snippets_and_drop_outside_ones() {
        let w = window(
            vec!["aaaa".into(), "bbbb".into(), "cccc".into()],
            None,
            None,
            100,
        );
        assert!(w.pagination.is_none());
        assert_eq!(w.parts.iter().flatten().count(), 3);
        let w = window(
            vec!["aaaa".into(), "bbbb".into(), "cccc".into()],
            Some(2),
            Some(4),
            100,
        );
        assert_eq!(w.parts, vec![Some("aa".into()), Some("bb".into()), None]);
        assert_eq!(w.pagination.as_ref().unwrap()["hasMore"], true);
        let w = window(vec!["aaaa".into(), "bbbb".into()], None, None, 5);
        assert_eq!(w.parts, vec![Some("aaaa".into()), Some("b".into())]);
        assert!(
            w.hints.iter().any(|h| h.contains("charOffset=5")),
            "{:?}",
            w.hints
        );
    }

    #[test]
    fn reading_reports_missing_directories_and_binaries() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_source(&dir.path().join("nope.ts"), "nope.ts").unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::NotFound, ToolErrorCode::FileNotFound)
        );
        assert!(e.message.contains("'nope.ts'"));
        let e = read_source(dir.path(), "src").unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::Invalid, ToolErrorCode::NotAFile)
        );
        std::fs::write(dir.path().join("b.bin"), b"a\0b").unwrap();
        assert_eq!(
            read_source(&dir.path().join("b.bin"), "b.bin")
                .unwrap_err()
                .code,
            ToolErrorCode::BinaryFile
        );
        std::fs::write(dir.path().join("ok.ts"), "let x = 1;\n").unwrap();
        assert_eq!(
            read_source(&dir.path().join("ok.ts"), "ok.ts").unwrap(),
            "let x = 1;\n"
        );
    }
}
