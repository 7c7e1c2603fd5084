//! localGetFileContent: one text file under the sandbox, whole, as a line range, or as the
//! windows around a matchString, character-paginated to the output budget. Checks run in
//! octocode's order: path, conflicting options, file status, binary sniff, the 100 KB rule
//! for unbounded reads. Only matchString extracts are minified; full and line-range reads come
//! back verbatim so line numbers and text can be trusted.
//!
//! Submodules: `read` (the refusals and decoding), `extract` (line ranges, match windows),
//! `minify` (comment stripping).

mod extract;
mod minify;
mod read;

#[cfg(test)]
mod tests;

use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::page::paginate;
use crate::exec::parse_query;
use crate::exec::sandbox::Sandbox;
use crate::exec::text::split_lines;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::path::Path;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

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

/// The part of the file chosen by the query, before character pagination.
struct Part {
    content: String,
    /// `startLine`, `endLine`, `matchRanges` as they apply.
    data: Map<String, Value>,
    hints: Vec<String>,
    is_partial: bool,
}

/// What every answer about the file says, found or empty.
struct FileFacts {
    total_lines: usize,
    modified: Option<String>,
    warnings: Vec<String>,
}

impl FileFacts {
    /// The empty answer: nothing matched, or the range or window lies past the end.
    fn empty(self, extra: Option<(&str, Value)>, hints: Vec<String>) -> Outcome {
        empty(
            self.total_lines,
            self.modified.as_deref(),
            self.warnings,
            extra,
            hints,
        )
    }
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
    let (text, meta, warnings) = read::read_text(sandbox, &path, &q.path, partial)?;
    let lines = split_lines(&text);
    let mut file = FileFacts {
        total_lines: lines.len(),
        modified: meta
            .modified()
            .ok()
            .and_then(|t| OffsetDateTime::from(t).format(&Rfc3339).ok()),
        warnings,
    };
    let part = if let Some(needle) = &needle {
        match_part(&q, &path, &lines, needle, &mut file.warnings)
    } else if let (Some(start), Some(end)) = (q.start_line, q.end_line) {
        line_part(&q, &lines, start, end, &mut file.warnings)
    } else {
        Ok(whole_part(text.clone(), lines.len()))
    };
    match part {
        Ok(part) => Ok(paged(&q, budget, part, file)),
        Err(hints) => Ok(file.empty(None, hints)),
    }
}

/// The windows around the matchString hits; `Err` holds the hints of an empty answer.
fn match_part(
    q: &Query,
    path: &Path,
    lines: &[&str],
    needle: &extract::Needle,
    warnings: &mut Vec<String>,
) -> Result<Part, Vec<String>> {
    let total_lines = lines.len();
    let context = q
        .match_string_context_lines
        .unwrap_or(DEFAULT_CONTEXT_LINES);
    let Some(x) = extract::by_match(lines, needle, context, minify::style_for(path)) else {
        return Err(no_match_hints(q, total_lines));
    };
    if x.total_matches > x.matched.len() {
        warnings.push(format!(
            "matchString hit {} lines; only the first {} were used. Narrow it, or list every hit with localSearchCode",
            x.total_matches,
            x.matched.len()
        ));
    }
    let (first, last) = (x.ranges[0].0, x.ranges[x.ranges.len() - 1].1);
    let shown: Vec<String> = x.matched.iter().take(20).map(usize::to_string).collect();
    let mut hints = vec![format!(
        "Matches on lines: {}{}",
        shown.join(", "),
        if x.matched.len() > 20 { ", ..." } else { "" }
    )];
    if x.minified {
        hints.push("Whole-line comments and repeated blank lines were dropped from this extract; read a range with startLine/endLine for the exact text".to_string());
    }
    hints.push("Line numbers can be passed as lineHint to lspGotoDefinition, lspFindReferences or lspCallHierarchy".to_string());
    if last < total_lines {
        hints.push(next_range(last, total_lines, last + 1 - first));
    }
    let mut data = Map::new();
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
    Ok(Part {
        is_partial: !(x.ranges.len() == 1 && first == 1 && last == total_lines),
        content: x.text,
        data,
        hints,
    })
}

/// Why a matchString found nothing, and what to try instead.
fn no_match_hints(q: &Query, total_lines: usize) -> Vec<String> {
    let pattern = q.match_string.as_deref().unwrap_or_default();
    let how = match (
        q.match_string_is_regex.unwrap_or(false),
        q.match_string_case_sensitive.unwrap_or(false),
    ) {
        (true, true) => "case-sensitive regex",
        (true, false) => "case-insensitive regex",
        (false, true) => "case-sensitive substring",
        (false, false) => "case-insensitive substring",
    };
    vec![
        format!("noMatches: {pattern:?} does not occur in '{}' ({total_lines} lines, {how} search, one line at a time)", q.path),
        "Try a shorter or different matchString; a match never spans lines".to_string(),
        "Set matchStringIsRegex=true to match a pattern, or read the file with startLine/endLine".to_string(),
        "localSearchCode searches many files at once when the term may live elsewhere".to_string(),
    ]
}

/// Lines `start..=end`; `Err` holds the hints of an empty answer when `start` is past the end.
fn line_part(
    q: &Query,
    lines: &[&str],
    start: usize,
    end: usize,
    warnings: &mut Vec<String>,
) -> Result<Part, Vec<String>> {
    let total_lines = lines.len();
    let Some(x) = extract::by_lines(lines, start, end) else {
        return Err(vec![
            format!(
                "startLine={start} is past the end: '{}' has {total_lines} lines",
                q.path
            ),
            format!("Use a startLine between 1 and {}", total_lines.max(1)),
        ]);
    };
    warnings.extend(x.warnings);
    let mut hints = Vec::new();
    if x.end < total_lines {
        hints.push(next_range(x.end, total_lines, x.end + 1 - x.start));
    }
    if x.start > 1 {
        hints.push(format!(
            "Earlier lines: startLine=1 endLine={}",
            x.start - 1
        ));
    }
    let mut data = Map::new();
    data.insert("startLine".into(), json!(x.start));
    data.insert("endLine".into(), json!(x.end));
    Ok(Part {
        is_partial: !(x.start == 1 && x.end == total_lines),
        content: x.text,
        data,
        hints,
    })
}

fn whole_part(text: String, total_lines: usize) -> Part {
    Part {
        content: text,
        data: Map::new(),
        hints: vec![if total_lines == 0 {
            "The file is empty".to_string()
        } else {
            format!("Complete file: {total_lines} lines")
        }],
        is_partial: false,
    }
}

/// The part cut to its character page, with byte positions beside the character ones.
fn paged(q: &Query, budget: usize, mut part: Part, mut file: FileFacts) -> Outcome {
    let content = &part.content;
    let page = paginate(content, q.char_offset, q.char_length, budget.max(1));
    if let Some(mut p) = page.pagination {
        let start = p["charOffset"].as_u64().unwrap_or(0) as usize;
        if start >= content.chars().count() && !content.is_empty() {
            return file.empty(Some(("pagination", p)), page.hints);
        }
        let byte_offset = content
            .char_indices()
            .nth(start)
            .map_or(content.len(), |(b, _)| b);
        p["byteOffset"] = json!(byte_offset);
        p["byteLength"] = json!(page.text.len());
        p["totalBytes"] = json!(content.len());
        if q.char_offset.is_none() && q.char_length.is_none() {
            file.warnings.push(format!("The content is {} characters, more than the {budget}-character budget, so only the first page was returned", content.chars().count()));
        }
        part.is_partial |= p["hasMore"] == json!(true) || start > 0;
        part.data.insert("pagination".into(), p);
        part.hints.extend(page.hints);
    }
    let mut out = Map::new();
    out.insert("content".into(), json!(page.text));
    out.insert("isPartial".into(), json!(part.is_partial));
    out.insert("totalLines".into(), json!(file.total_lines));
    out.extend(part.data);
    if let Some(m) = file.modified {
        out.insert("modified".into(), json!(m));
    }
    if !file.warnings.is_empty() {
        out.insert("warnings".into(), json!(file.warnings));
    }
    out.insert("hints".into(), json!(part.hints));
    Outcome::found(Value::Object(out))
}
