//! localGetFileContent: one text file under the sandbox, whole, as a line range, or as the
//! windows around a matchString, character-paginated to the output budget. Checks run in
//! octocode's order: path, conflicting options, file status, binary sniff, the 100 KB rule
//! for unbounded reads. Only matchString extracts are minified; full and line-range reads come
//! back verbatim so line numbers and text can be trusted.
//!
//! Submodules: `extract` (line ranges, match windows), `minify` (comment stripping).

mod extract;
mod minify;

#[cfg(test)]
mod tests;

use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::page::paginate;
use crate::exec::parse_query;
use crate::exec::sandbox::Sandbox;
use crate::exec::text::split_lines;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::Path;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Bytes looked at to decide whether a file is text.
const SNIFF_BYTES: usize = 8192;
/// Files above this need a line range, a matchString or charLength.
const FULL_READ_LIMIT: u64 = 100 * 1024;
/// Files above this are not read at all; localSearchCode scans them without loading them.
const READ_LIMIT: u64 = 64 * 1024 * 1024;
const DEFAULT_CONTEXT_LINES: usize = 5;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    path: String,
    full_content: Option<bool>,
    start_line: Option<usize>,
    end_line: Option<usize>,
    match_string: Option<String>,
    match_string_context_lines: Option<usize>,
    match_string_is_regex: Option<bool>,
    match_string_case_sensitive: Option<bool>,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn conflict(message: &str, hint: &str) -> QueryError {
    QueryError::new(Failure::Invalid, ToolErrorCode::ConflictingOptions, message).hint(hint)
}

/// The option clashes, each naming both fields.
fn check_options(q: &Query) -> Result<(), QueryError> {
    let full = q.full_content.unwrap_or(false);
    let lines = q.start_line.is_some() || q.end_line.is_some();
    if full && q.match_string.is_some() {
        return Err(conflict(
            "fullContent and matchString cannot be used together: fullContent returns the whole file, matchString only the parts around its hits",
            "Drop fullContent to get the match windows, or drop matchString to read the file",
        ));
    }
    if full && lines {
        return Err(conflict(
            "fullContent and startLine/endLine cannot be used together: a line range is a partial read by definition",
            "Drop fullContent to read the range, or drop startLine/endLine to read the whole file",
        ));
    }
    if q.match_string.is_some() && lines {
        return Err(conflict(
            "matchString and startLine/endLine cannot be used together: each one chooses which lines come back",
            "Use matchString to find the lines, then startLine/endLine from its matchRanges to read one window verbatim",
        ));
    }
    match (q.start_line, q.end_line) {
        (Some(_), None) | (None, Some(_)) => Err(QueryError::invalid(format!(
            "startLine and endLine must be given together; found only {}",
            if q.start_line.is_some() {
                "startLine"
            } else {
                "endLine"
            }
        ))
        .hint(
            "Pass both, e.g. startLine=40 endLine=80; an endLine past the file's end is trimmed",
        )),
        (Some(s), Some(e)) if s > e => Err(QueryError::invalid(format!(
            "startLine ({s}) is after endLine ({e})"
        ))
        .hint("Swap them: startLine is the first line to return, endLine the last")),
        _ if q.match_string.as_deref() == Some("") => Err(QueryError::invalid(
            "matchString is empty; expected the text (or regex) to look for",
        )),
        _ => Ok(()),
    }
}

/// Reads the file, refusing what is not a readable regular text file.
fn read_text(
    path: &Path,
    raw: &str,
    partial: bool,
) -> Result<(String, std::fs::Metadata, Vec<String>), QueryError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => QueryError::new(
            Failure::NotFound,
            ToolErrorCode::FileNotFound,
            format!("File '{raw}' does not exist"),
        )
        .hint("Relative paths start at the workspace root; localFindFiles finds a file by name")
        .hint("localViewStructure lists what a directory holds"),
        std::io::ErrorKind::PermissionDenied => QueryError::new(
            Failure::Denied,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: permission denied"),
        ),
        kind => QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: {kind}"),
        ),
    })?;
    if meta.is_dir() {
        return Err(QueryError::new(Failure::Invalid, ToolErrorCode::PathIsDirectory, format!("'{raw}' is a directory, not a file"))
            .hint("Use localViewStructure to list the directory, or localFindFiles / localSearchCode to pick a file in it"));
    }
    if !meta.is_file() {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::NotARegularFile,
            format!("'{raw}' is not a regular file (device, socket or pipe)"),
        ));
    }
    let size = meta.len();
    let too_large = |limit: u64, hints: &[&str]| {
        let mut e = QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileTooLarge,
            format!(
                "File '{raw}' is {} KB, over the {} KB limit for this kind of read",
                size / 1024,
                limit / 1024
            ),
        )
        .detail("sizeBytes", size)
        .detail("limitBytes", limit);
        for h in hints {
            e = e.hint(*h);
        }
        e
    };
    if size > READ_LIMIT {
        return Err(too_large(READ_LIMIT, &["Use localSearchCode on this file to find the lines you need; it does not load the file"]));
    }
    let read_failed = |e: std::io::Error| {
        QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: {}", e.kind()),
        )
    };
    let mut file = std::fs::File::open(path).map_err(read_failed)?;
    // The sniff and the size rule need only the head; a refused file is never read whole.
    let mut bytes = Vec::with_capacity(size.min(READ_LIMIT) as usize);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut bytes)
        .map_err(read_failed)?;
    let utf16 = matches!(bytes.as_slice(), [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..]);
    if !utf16 && looks_binary(&bytes) {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::BinaryFileUnsupported,
            format!("File '{raw}' is binary (a NUL byte or invalid UTF-8 in its first 8 KB)"),
        )
        .hint("localSearchCode with binaryFiles=text can still find text inside it"));
    }
    if size > FULL_READ_LIMIT && !partial {
        return Err(too_large(
            FULL_READ_LIMIT,
            &[
                "Read a part: startLine/endLine for a range, matchString for the lines around a term, or charLength/charOffset to page through it",
                "localSearchCode on this file lists the line numbers worth reading",
            ],
        ));
    }
    file.take(READ_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(read_failed)?;
    let mut warnings = Vec::new();
    let text = if let Some(text) = decode_utf16(&bytes) {
        warnings.push("The file is UTF-16; it was converted to UTF-8".to_string());
        text
    } else {
        match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(
                    "Some bytes past the first 8 KB are not valid UTF-8; they are shown as U+FFFD"
                        .to_string(),
                );
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        }
    };
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text);
    Ok((text, meta, warnings))
}

/// A NUL byte or invalid UTF-8 in the first 8 KB (a sequence cut by the 8 KB boundary is fine).
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    head.contains(&0) || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
}

/// Text behind a UTF-16 byte-order mark.
fn decode_utf16(bytes: &[u8]) -> Option<String> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks_exact(2).map(|c| {
        if little {
            u16::from_le_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], c[1]])
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{fffd}'))
            .collect(),
    )
}

/// The hint that continues after line `end`, with a window as long as the last one.
fn next_range(end: usize, total: usize, span: usize) -> String {
    let next_end = (end + span.max(1)).min(total);
    format!(
        "More content: use startLine={} endLine={next_end} to continue ({} lines remaining)",
        end + 1,
        total - end
    )
}

/// An empty result: nothing matched or the range lies past the end.
fn empty(
    total_lines: usize,
    modified: Option<&str>,
    warnings: Vec<String>,
    extra: Option<(&str, Value)>,
    hints: Vec<String>,
) -> Outcome {
    let mut data = Map::new();
    data.insert("totalLines".into(), json!(total_lines));
    if let Some(m) = modified {
        data.insert("modified".into(), json!(m));
    }
    if let Some((k, v)) = extra {
        data.insert(k.into(), v);
    }
    data.insert("warnings".into(), json!(warnings));
    data.insert("hints".into(), json!(hints));
    Outcome::empty(Value::Object(data))
}

pub(crate) fn run(
    sandbox: &Sandbox,
    budget: usize,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let path = sandbox.resolve(&q.path)?;
    check_options(&q)?;
    let needle = match &q.match_string {
        Some(m) => Some(extract::Needle::new(
            m,
            q.match_string_is_regex.unwrap_or(false),
            q.match_string_case_sensitive.unwrap_or(false),
        )?),
        None => None,
    };
    // Reads bounded by a range, a match or a character window may touch files over 100 KB.
    let partial = q.char_length.is_some()
        || q.char_offset.is_some()
        || q.match_string.is_some()
        || q.start_line.is_some();
    let (text, meta, mut warnings) = read_text(&path, &q.path, partial)?;
    let lines = split_lines(&text);
    let total_lines = lines.len();
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| OffsetDateTime::from(t).format(&Rfc3339).ok());

    let mut data = Map::new();
    let mut hints = Vec::new();
    let content: String;
    let mut is_partial = false;
    if let Some(needle) = &needle {
        let context = q
            .match_string_context_lines
            .unwrap_or(DEFAULT_CONTEXT_LINES);
        let pattern = q.match_string.as_deref().unwrap_or_default();
        let Some(x) = extract::by_match(&lines, needle, context, minify::style_for(&path)) else {
            let how = match (
                q.match_string_is_regex.unwrap_or(false),
                q.match_string_case_sensitive.unwrap_or(false),
            ) {
                (true, true) => "case-sensitive regex",
                (true, false) => "case-insensitive regex",
                (false, true) => "case-sensitive substring",
                (false, false) => "case-insensitive substring",
            };
            let hints = vec![
                format!("noMatches: {pattern:?} does not occur in '{}' ({total_lines} lines, {how} search, one line at a time)", q.path),
                "Try a shorter or different matchString; a match never spans lines".to_string(),
                "Set matchStringIsRegex=true to match a pattern, or read the file with startLine/endLine".to_string(),
                "localSearchCode searches many files at once when the term may live elsewhere".to_string(),
            ];
            return Ok(empty(
                total_lines,
                modified.as_deref(),
                warnings,
                None,
                hints,
            ));
        };
        if x.total_matches > x.matched.len() {
            warnings.push(format!(
                "matchString hit {} lines; only the first {} were used. Narrow it, or list every hit with localSearchCode",
                x.total_matches,
                x.matched.len()
            ));
        }
        let (first, last) = (x.ranges[0].0, x.ranges[x.ranges.len() - 1].1);
        is_partial = !(x.ranges.len() == 1 && first == 1 && last == total_lines);
        let shown: Vec<String> = x.matched.iter().take(20).map(usize::to_string).collect();
        hints.push(format!(
            "Matches on lines: {}{}",
            shown.join(", "),
            if x.matched.len() > 20 { ", ..." } else { "" }
        ));
        if x.minified {
            hints.push("Whole-line comments and repeated blank lines were dropped from this extract; read a range with startLine/endLine for the exact text".to_string());
        }
        hints.push("Line numbers can be passed as lineHint to lspGotoDefinition, lspFindReferences or lspCallHierarchy".to_string());
        if last < total_lines {
            hints.push(next_range(last, total_lines, last + 1 - first));
        }
        data.insert("startLine".into(), json!(first));
        data.insert("endLine".into(), json!(last));
        data.insert(
            "matchRanges".into(),
            json!(x
                .ranges
                .iter()
                .map(|(s, e)| json!({"start": s, "end": e}))
                .collect::<Vec<_>>()),
        );
        content = x.text;
    } else if let (Some(start), Some(end)) = (q.start_line, q.end_line) {
        let Some(x) = extract::by_lines(&lines, start, end) else {
            let hints = vec![
                format!(
                    "startLine={start} is past the end: '{}' has {total_lines} lines",
                    q.path
                ),
                format!("Use a startLine between 1 and {}", total_lines.max(1)),
            ];
            return Ok(empty(
                total_lines,
                modified.as_deref(),
                warnings,
                None,
                hints,
            ));
        };
        warnings.extend(x.warnings);
        is_partial = !(x.start == 1 && x.end == total_lines);
        if x.end < total_lines {
            hints.push(next_range(x.end, total_lines, x.end + 1 - x.start));
        }
        if x.start > 1 {
            hints.push(format!(
                "Earlier lines: startLine=1 endLine={}",
                x.start - 1
            ));
        }
        data.insert("startLine".into(), json!(x.start));
        data.insert("endLine".into(), json!(x.end));
        content = x.text;
    } else {
        hints.push(if total_lines == 0 {
            "The file is empty".to_string()
        } else {
            format!("Complete file: {total_lines} lines")
        });
        content = text;
    }

    let page = paginate(&content, q.char_offset, q.char_length, budget.max(1));
    if let Some(mut p) = page.pagination {
        let start = p["charOffset"].as_u64().unwrap_or(0) as usize;
        if start >= content.chars().count() && !content.is_empty() {
            return Ok(empty(
                total_lines,
                modified.as_deref(),
                warnings,
                Some(("pagination", p)),
                page.hints,
            ));
        }
        let byte_offset = content
            .char_indices()
            .nth(start)
            .map_or(content.len(), |(b, _)| b);
        p["byteOffset"] = json!(byte_offset);
        p["byteLength"] = json!(page.text.len());
        p["totalBytes"] = json!(content.len());
        if q.char_offset.is_none() && q.char_length.is_none() {
            warnings.push(format!("The content is {} characters, more than the {budget}-character budget, so only the first page was returned", content.chars().count()));
        }
        is_partial |= p["hasMore"] == json!(true) || start > 0;
        data.insert("pagination".into(), p);
        hints.extend(page.hints);
    }
    let mut out = Map::new();
    out.insert("content".into(), json!(page.text));
    out.insert("isPartial".into(), json!(is_partial));
    out.insert("totalLines".into(), json!(total_lines));
    out.extend(data);
    if let Some(m) = modified {
        out.insert("modified".into(), json!(m));
    }
    if !warnings.is_empty() {
        out.insert("warnings".into(), json!(warnings));
    }
    out.insert("hints".into(), json!(hints));
    Ok(Outcome::found(Value::Object(out)))
}
