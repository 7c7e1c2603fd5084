//! githubGetFileContent: one file through the contents API (`GET /repos/{o}/{r}/contents/
//! {path}?ref=`), base64 decoded (files over 1 MB are fetched raw), then the whole text, a
//! line range or the windows around a string, and finally character pagination. Directory
//! downloads would need cloning, which toolscout does not do.

use super::client::{Github, Media, Subject};
use super::extract::{decode_base64, line_range, looks_binary, match_windows};
use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::page::paginate;
use crate::exec::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Files larger than this need an explicit mode (a range, a match, fullContent or charLength).
const NEEDS_MODE_BYTES: usize = 100 * 1024;
/// Largest file read at all.
const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    #[default]
    File,
    Directory,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    owner: String,
    repo: String,
    path: String,
    branch: Option<String>,
    #[serde(default)]
    r#type: Kind,
    #[serde(default)]
    full_content: bool,
    start_line: Option<usize>,
    end_line: Option<usize>,
    match_string: Option<String>,
    #[serde(default = "five")]
    match_string_context_lines: usize,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn five() -> usize {
    5
}

/// The extraction mode, once the options were checked against each other.
enum Mode {
    Whole {
        asked: bool,
    },
    /// Without `end`, to the end of the file.
    Lines {
        start: usize,
        end: Option<usize>,
    },
    Match(String),
}

fn mode_of(q: &Query) -> Result<Mode, QueryError> {
    let lines = q.start_line.is_some() || q.end_line.is_some();
    let matching = q.match_string.as_deref().is_some_and(|m| !m.is_empty());
    let conflict = |what: &str| {
        QueryError::new(Failure::Invalid, ToolErrorCode::ConflictingModes, format!("{what} cannot be combined: expected one of fullContent, startLine/endLine or matchString"))
            .hint("Pick one: fullContent for the whole file, startLine+endLine for a range, matchString for the parts around a string")
    };
    match (q.full_content, lines, matching) {
        (true, true, _) => Err(conflict("fullContent and startLine/endLine")),
        (true, _, true) => Err(conflict("fullContent and matchString")),
        (_, true, true) => Err(conflict("matchString and startLine/endLine")),
        (_, true, false) => {
            let start = q.start_line.unwrap_or(1);
            let end = q.end_line;
            if let Some(end) = end.filter(|e| start > *e) {
                return Err(QueryError::invalid(format!(
                    "startLine must not be after endLine: found startLine={start}, endLine={end}"
                ))
                .hint("Swap the two values"));
            }
            Ok(Mode::Lines { start, end })
        }
        (_, false, true) => Ok(Mode::Match(q.match_string.clone().unwrap_or_default())),
        (full, false, false) => Ok(Mode::Whole { asked: full }),
    }
}

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let (mode, path) = checked(&q)?;
    let (owner, repo) = (q.owner.trim(), q.repo.trim());
    let branch = q.branch.as_deref().map(str::trim).filter(|b| !b.is_empty());
    let gh = Github::new(ctx);

    let mut segments = vec!["repos", owner, repo, "contents"];
    segments.extend(path.split('/').filter(|s| !s.is_empty()));
    let params: Vec<(&str, String)> = branch.map(|b| ("ref", b.to_string())).into_iter().collect();
    let subject = Subject::File {
        owner,
        repo,
        path: &path,
        branch,
    };
    let body = match gh.json(&segments, &params, Media::Json, subject).await {
        Ok(b) => b,
        Err(e) if e.code == ToolErrorCode::FileNotFound => {
            return Err(explain_missing(&gh, owner, repo, branch, e).await)
        }
        Err(e) => return Err(e),
    };
    check_entry(&body, &path, owner, repo)?;
    let size = body.get("size").and_then(Value::as_u64).unwrap_or(0) as usize;
    if size > MAX_FILE_BYTES {
        return Err(too_large(&path, size, None)
            .hint("Search inside it with githubSearchCode (owner, repo, path) instead"));
    }
    let bytes = match base64_content(&body, &path, size)? {
        Some(bytes) => bytes,
        // Over 1 MB the contents API leaves `content` empty: ask for the raw bytes.
        None => {
            gh.bytes(&segments, &params, Media::Raw, subject, MAX_FILE_BYTES)
                .await?
        }
    };
    let mut hints = Vec::new();
    let text = text_of(bytes, &path, &mut hints)?;
    let explicit_paging = q.char_length.is_some() || q.char_offset.is_some();
    if matches!(mode, Mode::Whole { asked: false })
        && text.len() > NEEDS_MODE_BYTES
        && !explicit_paging
    {
        return Err(too_large(&path, text.len(), Some(text.lines().count())));
    }
    let git_ref = branch.map(str::to_string).or_else(|| ref_of(&body));
    let mut data = json!({"owner": owner, "repo": repo, "path": path});
    if let Some(r) = &git_ref {
        data["branch"] = json!(r);
    }
    let lines: Vec<&str> = text.lines().collect();
    data["totalLines"] = json!(lines.len());
    let file = File {
        text: &text,
        lines: &lines,
        path: &path,
        owner,
        repo,
    };
    let Some((content, partial)) = extract(&q, &mode, &file, &mut data, &mut hints) else {
        data["hints"] = json!(hints);
        return Ok(Outcome::empty(data));
    };
    Ok(paged(ctx, &q, content, partial, lines.len(), data, hints))
}

/// The mode and the trimmed path, once the query asks for something this tool can read.
fn checked(q: &Query) -> Result<(Mode, String), QueryError> {
    if q.r#type == Kind::Directory {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::DirectoryNotSupported,
            "type=directory downloads a directory by cloning, which toolscout does not do: expected type=file",
        )
        .hint(format!("List the directory with githubViewRepoStructure (owner={}, repo={}, path={})", q.owner, q.repo, q.path))
        .hint("Then read the files you need with githubGetFileContent, one query per file (up to 5 per call)"));
    }
    let mode = mode_of(q)?;
    let path = q.path.trim().trim_matches('/').to_string();
    if path.is_empty() {
        return Err(QueryError::invalid(
            "path: expected the path of a file in the repository, found an empty path",
        )
        .hint("List the repository with githubViewRepoStructure to find the file's path"));
    }
    Ok((mode, path))
}

/// Refuses a contents answer that is not a file: a directory listing, a symbolic link, a
/// submodule or another kind of entry.
fn check_entry(body: &Value, path: &str, owner: &str, repo: &str) -> Result<(), QueryError> {
    if body.is_array() {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::PathIsDirectory,
            format!("{path} is a directory in {owner}/{repo}: expected a file"),
        )
        .hint(format!(
            "List it with githubViewRepoStructure (path={path}) and read one of its files"
        )));
    }
    match body.get("type").and_then(Value::as_str) {
        Some("file") | None => Ok(()),
        Some("symlink") => {
            let target = body.get("target").and_then(Value::as_str).unwrap_or("?");
            Err(QueryError::new(Failure::Unprocessable, ToolErrorCode::SymlinkUnsupported, format!("{path} is a symbolic link to {target}, which does not resolve to a file in the repository"))
                .hint("Read the link's target path instead"))
        }
        Some("submodule") => {
            let url = body
                .get("submodule_git_url")
                .and_then(Value::as_str)
                .unwrap_or("another repository");
            Err(QueryError::new(
                Failure::Unprocessable,
                ToolErrorCode::SubmoduleUnsupported,
                format!("{path} is a git submodule pointing to {url}"),
            )
            .hint("Read the file from the submodule's own repository"))
        }
        Some(other) => Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::UnsupportedEntry,
            format!("{path} is a {other}, expected a file"),
        )),
    }
}

/// The file's bytes from the answer's base64 `content`; `None` when the answer left them
/// out and they must be fetched raw.
fn base64_content(body: &Value, path: &str, size: usize) -> Result<Option<Vec<u8>>, QueryError> {
    let encoded = body.get("content").and_then(Value::as_str).unwrap_or("");
    if body.get("encoding").and_then(Value::as_str) != Some("base64")
        || (encoded.is_empty() && size != 0)
    {
        return Ok(None);
    }
    decode_base64(encoded).map(Some).ok_or_else(|| {
        QueryError::new(
            Failure::Upstream { transient: false },
            ToolErrorCode::UpstreamInvalidResponse,
            format!("GitHub sent content for {path} that is not valid base64"),
        )
    })
}

/// The text of a file that is not binary; invalid UTF-8 is replaced, with a hint.
fn text_of(bytes: Vec<u8>, path: &str, hints: &mut Vec<String>) -> Result<String, QueryError> {
    if looks_binary(&bytes) {
        return Err(QueryError::new(Failure::Unprocessable, ToolErrorCode::BinaryFileUnsupported, format!("{path} is a binary file ({} bytes); only text files can be read", bytes.len()))
            .hint("Look for a text source of the same information (for example the code that generates it)"));
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            hints.push(
                "The file is not valid UTF-8; invalid bytes were replaced with U+FFFD".to_string(),
            );
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    // Redacted whole before line ranges and match windows are cut (as for local files).
    let redacted = match crate::exec::redact::redact(&text) {
        std::borrow::Cow::Owned(clean) => Some(clean),
        std::borrow::Cow::Borrowed(_) => None,
    };
    Ok(redacted.unwrap_or(text))
}

/// The file as the extraction stage sees it.
struct File<'a> {
    text: &'a str,
    lines: &'a [&'a str],
    path: &'a str,
    owner: &'a str,
    repo: &'a str,
}

/// The part the mode asks for and whether it is partial; `None` for an empty answer, whose
/// `data` and `hints` were filled in.
fn extract(
    q: &Query,
    mode: &Mode,
    file: &File<'_>,
    data: &mut Value,
    hints: &mut Vec<String>,
) -> Option<(String, bool)> {
    let total_lines = file.lines.len();
    match mode {
        Mode::Whole { .. } => Some((file.text.to_string(), false)),
        Mode::Lines { start, end } => {
            let Some(e) = line_range(file.lines, *start, end.unwrap_or(total_lines)) else {
                hints.push(format!(
                    "startLine={start} is past the end of the file, which has {total_lines} lines"
                ));
                data["content"] = json!("");
                data["isPartial"] = json!(true);
                return None;
            };
            data["startLine"] = json!(e.start);
            data["endLine"] = json!(e.end);
            hints.extend(e.hints);
            Some((e.content, !(e.start == 1 && e.end == total_lines)))
        }
        Mode::Match(needle) => match_extract(q, needle, file, data, hints),
    }
}

fn match_extract(
    q: &Query,
    needle: &str,
    file: &File<'_>,
    data: &mut Value,
    hints: &mut Vec<String>,
) -> Option<(String, bool)> {
    let total_lines = file.lines.len();
    let Some((e, ranges)) = match_windows(file.lines, needle, q.match_string_context_lines) else {
        let (path, owner, repo) = (file.path, file.owner, file.repo);
        data["matchNotFound"] = json!(true);
        data["content"] = json!("");
        data["isPartial"] = json!(true);
        hints.push(format!(
            "\"{needle}\" does not occur in {path} ({total_lines} lines), not even ignoring case"
        ));
        hints.push(format!("Find where it lives with githubSearchCode (keywordsToSearch=[\"{needle}\"], owner={owner}, repo={repo})"));
        hints.push("Or read the file in parts with startLine/endLine".into());
        return None;
    };
    data["startLine"] = json!(e.start);
    data["endLine"] = json!(e.end);
    data["matchRanges"] = json!(ranges
        .iter()
        .map(|(a, b)| json!({"start": a, "end": b}))
        .collect::<Vec<_>>());
    hints.extend(e.hints);
    let partial = !(ranges.len() == 1 && e.start == 1 && e.end == total_lines);
    Some((e.content, partial))
}

/// The content cut to its character page, and the answer around it.
fn paged(
    ctx: &Context,
    q: &Query,
    content: String,
    mut partial: bool,
    total_lines: usize,
    mut data: Value,
    mut hints: Vec<String>,
) -> Outcome {
    let page = paginate(
        &content,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
    );
    if let Some(p) = page.pagination {
        partial |= p["hasMore"] == true || p["charOffset"].as_u64().unwrap_or(0) > 0;
        data["pagination"] = p;
    }
    hints.extend(page.hints);
    if !partial && total_lines > 300 {
        hints.push(
            "Next time, matchString or startLine/endLine reads just the part you need".into(),
        );
    }
    data["content"] = json!(page.text);
    data["isPartial"] = json!(partial);
    data["hints"] = json!(hints);
    Outcome::found(data)
}

fn too_large(path: &str, bytes: usize, lines: Option<usize>) -> QueryError {
    let kb = bytes.div_ceil(1024);
    let mut e = QueryError::new(
        Failure::Unprocessable,
        ToolErrorCode::FileTooLarge,
        format!(
            "{path} is {kb} KB; files over {} KB need a way to read them in parts",
            NEEDS_MODE_BYTES / 1024
        ),
    )
    .detail("size", bytes as u64)
    .hint("matchString with a distinctive identifier returns only the lines around it");
    if let Some(n) = lines {
        e = e.detail("totalLines", n as u64).hint(format!(
            "startLine/endLine reads a range (the file has {n} lines)"
        ));
    }
    e.hint("fullContent=true with charLength reads it page by page")
}

/// The ref the contents API read (its `url` ends in `?ref=<branch>`).
fn ref_of(body: &Value) -> Option<String> {
    let url = reqwest::Url::parse(body.get("url")?.as_str()?).ok()?;
    let r = url
        .query_pairs()
        .find(|(k, _)| k == "ref")
        .map(|(_, v)| v.into_owned());
    r.filter(|r| !r.is_empty())
}

/// A 404 on a file may mean the repository or the branch is missing; one look at the
/// repository tells which, and names the default branch.
async fn explain_missing(
    gh: &Github<'_>,
    owner: &str,
    repo: &str,
    branch: Option<&str>,
    missing: QueryError,
) -> QueryError {
    match gh.json(&["repos", owner, repo], &[], Media::Json, Subject::Repository { owner, repo }).await {
        Err(e) if e.code == ToolErrorCode::RepositoryNotFound => e,
        Ok(info) => match (branch, info.get("default_branch").and_then(Value::as_str)) {
            (Some(b), Some(default)) if b != default => missing.hint(format!("The branch {b} may not have this file or may not exist; the default branch is {default}")),
            _ => missing,
        },
        Err(_) => missing,
    }
}

#[cfg(test)]
#[path = "content_tests.rs"]
mod tests;
