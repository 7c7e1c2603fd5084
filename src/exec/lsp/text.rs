//! Text plumbing shared by the three LSP tools: `file://` URIs both ways, reading a source
//! file with clear errors, numbered context snippets (`" 112|   code"`, `">113|"` marking the
//! target line) and character windows over the snippets of a long answer.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::page::paginate;
use crate::exec::sandbox::{OpenError, Sandbox};
use crate::exec::text::split_lines;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Read;
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

/// The path of a `file:` URI (`file:///x`, `file://localhost/x`, `file:/x`, the scheme in any
/// case); `None` for any other scheme, another host, a malformed escape or bytes that are not
/// UTF-8.
pub(crate) fn path_from_uri(uri: &str) -> Option<PathBuf> {
    let scheme = uri.get(..5).filter(|s| s.eq_ignore_ascii_case("file:"))?;
    let rest = &uri[scheme.len()..];
    let rest = match rest.strip_prefix("//") {
        // `file://localhost/x` names the same file as `file:///x`; any other host is another
        // machine's file.
        Some(authority) => authority.strip_prefix("localhost").unwrap_or(authority),
        None => rest,
    };
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

/// The path an LSP tool's `uri` argument names: a `file:` URI decoded, or a plain path as it
/// is. Anything else that looks like a URI (`scheme://...`, or a `file:` URI with a host, a
/// bad escape or non-UTF-8 bytes) is refused rather than read as an odd relative file name,
/// which would only answer "not found" for a request that meant something else.
pub(crate) fn path_of_argument(uri: &str) -> Result<String, QueryError> {
    let trimmed = uri.trim();
    if let Some(path) = path_from_uri(trimmed) {
        return Ok(path.to_string_lossy().into_owned());
    }
    let scheme = trimmed
        .split_once(':')
        .map(|(s, rest)| (s, rest.starts_with("//")))
        .filter(|(s, authority)| {
            (*authority || s.eq_ignore_ascii_case("file"))
                && s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
    match scheme {
        None => Ok(trimmed.to_string()),
        Some((s, _)) => Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::PathValidationFailed,
            if s.eq_ignore_ascii_case("file") {
                format!("uri '{trimmed}' is not a local file URI: expected file:///absolute/path (no host but localhost, %XX escapes of UTF-8)")
            } else {
                format!("uri '{trimmed}' uses the '{s}' scheme; only file: URIs and paths are read")
            },
        )
        .hint("Pass a path relative to the workspace root, e.g. src/main.ts, or file:///absolute/path")),
    }
}

/// Reads a source file the sandbox has allowed, through [`Sandbox::open`] (the one safe open:
/// no link followed, the open file checked again). `shown` is the path as the caller wrote
/// it, the only form errors quote.
pub(crate) fn read_source(
    sandbox: &Sandbox,
    path: &Path,
    shown: &str,
) -> Result<String, QueryError> {
    let (file, meta) = match sandbox.open(path, shown) {
        Ok(opened) => opened,
        Err(OpenError::Refused(e)) => return Err(e),
        Err(OpenError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(QueryError::new(Failure::NotFound, ToolErrorCode::FileNotFound, format!("File '{shown}' does not exist"))
                .hint("uri is a file path relative to the workspace root (or absolute inside an allowed root)")
                .hint("Find the file first with localFindFiles or localSearchCode"));
        }
        Err(OpenError::Io(e)) => {
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
    if !meta.is_file() {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileNotReadable,
            format!("File '{shown}' is not a regular file (device, socket or pipe)"),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_SOURCE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| {
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

/// Source files read while building one answer, each read once, through the sandbox. Files
/// that cannot be read (deleted since the server indexed them, binary, too large, refused)
/// are `None`.
pub(crate) struct Files {
    sandbox: Sandbox,
    cache: HashMap<PathBuf, Option<Arc<String>>>,
    /// The texts snippets are cut from: each file redacted whole, so a snippet that starts
    /// inside a private key's body shows the label, not base64 lines no pattern knows.
    redacted: HashMap<PathBuf, Arc<String>>,
}

impl Files {
    pub(crate) fn new(sandbox: &Sandbox) -> Files {
        Files {
            sandbox: sandbox.clone(),
            cache: HashMap::new(),
            redacted: HashMap::new(),
        }
    }

    pub(crate) fn get(&mut self, path: &Path) -> Option<Arc<String>> {
        let sandbox = &self.sandbox;
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| read_source(sandbox, path, "").ok().map(Arc::new))
            .clone()
    }

    /// Seeds the cache with a text already read.
    pub(crate) fn insert(&mut self, path: &Path, text: Arc<String>) {
        self.cache.insert(path.to_path_buf(), Some(text));
    }

    /// A numbered snippet of `path` around the 0-based `targets`, or "" when unreadable.
    pub(crate) fn snippet(&mut self, path: &Path, targets: &[usize], context: usize) -> String {
        let Some(text) = self.get(path) else {
            return String::new();
        };
        // Redaction keeps a multi-line secret's line breaks, so line numbers still hold.
        let clean = self
            .redacted
            .entry(path.to_path_buf())
            .or_insert_with(|| Arc::new(crate::exec::redact::redact(&text).into_owned()))
            .clone();
        snippet(&split_lines(&clean), targets, context)
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
        assert_eq!(path_from_uri("FILE:///x").unwrap(), Path::new("/x"));
        assert_eq!(path_from_uri("file:/x").unwrap(), Path::new("/x"));
        assert!(path_from_uri("file://evil.example/x").is_none());
        assert!(path_from_uri("file:///%C0%AF").is_none());
        assert_eq!(path_of_argument("src/a.ts").unwrap(), "src/a.ts");
        assert_eq!(path_of_argument("file:///w/a%20b.ts").unwrap(), "/w/a b.ts");
        for refused in [
            "file://host/x",
            "https://h/x",
            "vscode-remote://h/x",
            "file:x",
            "file:///%ff",
        ] {
            let e = path_of_argument(refused).unwrap_err();
            assert_eq!(e.code, ToolErrorCode::PathValidationFailed, "{refused}");
            assert!(e.message.contains(refused), "{}", e.message);
        }
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
        let sandbox = Sandbox::new(&crate::config::ExecConfig::for_workspace(dir.path()));
        let dir = dir.path().canonicalize().unwrap();
        let e = read_source(&sandbox, &dir.join("nope.ts"), "nope.ts").unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::NotFound, ToolErrorCode::FileNotFound)
        );
        assert!(e.message.contains("'nope.ts'"));
        let e = read_source(&sandbox, &dir, "src").unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::Invalid, ToolErrorCode::NotAFile)
        );
        std::fs::write(dir.join("b.bin"), b"a\0b").unwrap();
        assert_eq!(
            read_source(&sandbox, &dir.join("b.bin"), "b.bin")
                .unwrap_err()
                .code,
            ToolErrorCode::BinaryFile
        );
        std::fs::write(dir.join("ok.ts"), "let x = 1;\n").unwrap();
        assert_eq!(
            read_source(&sandbox, &dir.join("ok.ts"), "ok.ts").unwrap(),
            "let x = 1;\n"
        );
    }

    #[test]
    fn a_snippet_inside_a_private_key_shows_the_label_not_the_body() {
        let dir = tempfile::tempdir().unwrap();
        let body = [
            "MIIEowIBAAKCAQEAvQz2k1nC8s7JrXb0t3m5pYq9Lw8eF2hG4kD6sA1uVbN0cR7y",
            "Tn3xW5qZ8mK2jH6gF4dS1aP9oI7uY5tR3eW1qA2sD4fG6hJ8kL0zX2cV4bN6mM8q",
        ];
        let text = format!(
            "const a = 1;\nconst key = `-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----`;\nconst b = 2;\n",
            body[0], body[1]
        );
        let path = dir.path().join("key.ts");
        std::fs::write(&path, &text).unwrap();
        let config = crate::config::ExecConfig::for_workspace(dir.path());
        let mut files = Files::new(&Sandbox::new(&config));
        // Line 3 (0-based 2) is the key's first body line; one line of context either side.
        let shown = files.snippet(&path, &[2], 1);
        assert!(shown.contains("[REDACTED-"), "{shown}");
        for line in body {
            assert!(!shown.contains(&line[..20]), "{shown}");
        }
        // Line numbers still point where they did: the last line is line 6.
        assert!(files.snippet(&path, &[5], 0).contains("const b = 2;"));
    }
}
