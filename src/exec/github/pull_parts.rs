//! The optional parts of a pull request, each its own REST call: the discussion (issue
//! comments and review comments), the commits, and the changed files with their patches,
//! whole or cut down to chosen lines (`partialContentMetadata`).

use super::client::{Github, Media, Subject};
use super::text;
use crate::exec::outcome::{Failure, QueryError};
use serde::Deserialize;
use serde_json::{json, Value};

/// Items per list request; GitHub's maximum page size.
const PER_PAGE: usize = 100;

/// One file of `partialContentMetadata`: new-side line numbers of added lines and old-side
/// line numbers of removed lines to keep (both empty: the whole patch).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FileSelection {
    pub file: String,
    #[serde(default)]
    pub additions: Vec<f64>,
    #[serde(default)]
    pub deletions: Vec<f64>,
}

/// Which parts to fetch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted<'a> {
    pub comments: bool,
    pub commits: bool,
    /// `None`: no files; `Some(None)`: every file; `Some(Some(sel))`: the selected ones.
    pub files: Option<Option<&'a [FileSelection]>>,
}

impl Wanted<'_> {
    pub(crate) fn any(&self) -> bool {
        self.comments || self.commits || self.files.is_some()
    }
}

/// The fetched parts of one pull request.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub comment_details: Option<Vec<Value>>,
    pub commit_details: Option<Vec<Value>>,
    pub file_changes: Option<Vec<Value>>,
    pub hints: Vec<String>,
}

pub(crate) async fn fetch(
    gh: &Github<'_>,
    owner: &str,
    repo: &str,
    number: u64,
    wanted: Wanted<'_>,
) -> Result<Parts, QueryError> {
    let n = number.to_string();
    let subject = Subject::PullRequest {
        owner,
        repo,
        number,
    };
    let per_page = [("per_page", PER_PAGE.to_string())];
    let per_page = &per_page;
    let n = n.as_str();
    let list = |kind: &'static str, area: &'static str, on: bool| {
        let segments = ["repos", owner, repo, area, n, kind];
        async move {
            if on {
                Some(gh.json(&segments, per_page, Media::Json, subject).await)
            } else {
                None
            }
        }
    };
    let (issue_comments, review_comments, commits, files) = tokio::join!(
        list("comments", "issues", wanted.comments),
        list("comments", "pulls", wanted.comments),
        list("commits", "pulls", wanted.commits),
        list("files", "pulls", wanted.files.is_some()),
    );
    let mut parts = Parts::default();
    let mut take = |what: &str, r| taken(what, r, number, &mut parts.hints);
    let issue_comments = take("comments", issue_comments)?;
    let review_comments = take("review comments", review_comments)?;
    let commits = take("commits", commits)?;
    let files = take("changed files", files)?;

    if wanted.comments {
        parts.comment_details = Some(comments_in_order(issue_comments, review_comments));
    }
    parts.commit_details = commits.map(|list| list.iter().map(commit).collect());
    if let (Some(selection), Some(files)) = (wanted.files, files) {
        let (changes, hints) = file_changes(&files, selection, number);
        parts.file_changes = Some(changes);
        parts.hints.extend(hints);
    }
    Ok(parts)
}

/// One part's listing: its items, `None` when it was not asked for or could not be loaded
/// (with a hint). A service failure fails the query (and is retried); anything else loses
/// only this part.
fn taken(
    what: &str,
    r: Option<Result<Value, QueryError>>,
    number: u64,
    hints: &mut Vec<String>,
) -> Result<Option<Vec<Value>>, QueryError> {
    match r {
        None => Ok(None),
        Some(Ok(v)) => {
            let items = v.as_array().cloned().unwrap_or_default();
            if items.len() >= PER_PAGE {
                hints.push(format!("#{number} has more than {PER_PAGE} {what}; only the first {PER_PAGE} are shown"));
            }
            Ok(Some(items))
        }
        Some(Err(e)) if matches!(e.failure, Failure::Upstream { .. } | Failure::Timeout) => Err(e),
        Some(Err(e)) => {
            hints.push(format!(
                "Could not load the {what} of #{number}: {}",
                e.message
            ));
            Ok(None)
        }
    }
}

/// Discussion and review comments in one list, oldest first.
fn comments_in_order(issue: Option<Vec<Value>>, review: Option<Vec<Value>>) -> Vec<Value> {
    let mut all: Vec<Value> = issue
        .unwrap_or_default()
        .iter()
        .map(|c| comment(c, "comment"))
        .collect();
    all.extend(
        review
            .unwrap_or_default()
            .iter()
            .map(|c| comment(c, "review")),
    );
    all.sort_by(|a, b| {
        a["created_at"]
            .as_str()
            .unwrap_or("")
            .cmp(b["created_at"].as_str().unwrap_or(""))
    });
    all
}

fn comment(c: &Value, kind: &str) -> Value {
    let mut out = json!({"kind": kind, "author": c.pointer("/user/login").and_then(Value::as_str).unwrap_or("ghost")});
    for key in ["created_at", "body", "path"] {
        if let Some(v) = text(c, key) {
            out[key] = json!(v);
        }
    }
    if let Some(line) = c
        .get("line")
        .or_else(|| c.get("original_line"))
        .and_then(Value::as_u64)
    {
        out["line"] = json!(line);
    }
    out
}

fn commit(c: &Value) -> Value {
    let author = c
        .pointer("/author/login")
        .and_then(Value::as_str)
        .or_else(|| c.pointer("/commit/author/name").and_then(Value::as_str))
        .unwrap_or("unknown");
    json!({
        "sha": c.get("sha").and_then(Value::as_str).unwrap_or(""),
        "message": c.pointer("/commit/message").and_then(Value::as_str).unwrap_or(""),
        "author": author,
        "date": c.pointer("/commit/author/date").and_then(Value::as_str).unwrap_or(""),
    })
}

fn same_file(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.trim()
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_string()
    };
    norm(a) == norm(b)
}

/// The changed files, all of them or those selected, with their patches.
fn file_changes(
    files: &[Value],
    selection: Option<&[FileSelection]>,
    number: u64,
) -> (Vec<Value>, Vec<String>) {
    let mut hints = Vec::new();
    let mut out = Vec::new();
    for f in files {
        let name = f.get("filename").and_then(Value::as_str).unwrap_or("");
        let chosen = match selection {
            None => None,
            Some(sel) => match sel.iter().find(|s| same_file(&s.file, name)) {
                Some(s) => Some(s),
                None => continue,
            },
        };
        let mut change = json!({
            "filename": name,
            "status": f.get("status").and_then(Value::as_str).unwrap_or("modified"),
            "additions": f.get("additions").and_then(Value::as_u64).unwrap_or(0),
            "deletions": f.get("deletions").and_then(Value::as_u64).unwrap_or(0),
        });
        if let Some(prev) = text(f, "previous_filename") {
            change["previous_filename"] = json!(prev);
        }
        match (text(f, "patch"), chosen) {
            (Some(patch), Some(s)) => {
                change["patch"] = json!(select_lines(
                    &patch,
                    &lines_of(&s.additions),
                    &lines_of(&s.deletions)
                ))
            }
            (Some(patch), None) => change["patch"] = json!(patch),
            (None, _) => hints.push(format!(
                "{name} in #{number} has no patch (binary, or too large for GitHub to show)"
            )),
        }
        out.push(change);
    }
    if let Some(sel) = selection {
        let missing: Vec<&str> = sel
            .iter()
            .filter(|s| {
                !files
                    .iter()
                    .any(|f| same_file(&s.file, f["filename"].as_str().unwrap_or("")))
            })
            .map(|s| s.file.as_str())
            .collect();
        if !missing.is_empty() {
            hints.push(format!("#{number} does not change {}; type=metadata with withCommits, or type=fullContent, shows which files it does change", missing.join(", ")));
        }
    }
    (out, hints)
}

fn lines_of(numbers: &[f64]) -> Vec<u64> {
    numbers
        .iter()
        .filter(|n| n.is_finite() && **n >= 1.0 && n.fract() == 0.0)
        .map(|n| *n as u64)
        .collect()
}

/// Keeps, from a unified diff, the added lines whose new-side number is in `additions` and
/// the removed lines whose old-side number is in `deletions`, each prefixed with that number,
/// under the header of its hunk. With both lists empty the patch is returned whole.
pub(crate) fn select_lines(patch: &str, additions: &[u64], deletions: &[u64]) -> String {
    if additions.is_empty() && deletions.is_empty() {
        return patch.to_string();
    }
    let start_of = |field: &str| {
        field
            .split(',')
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(1)
    };
    let (mut old, mut new) = (0u64, 0u64);
    let mut header: Option<&str> = None;
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("@@") {
            let mut fields = rest.split_whitespace();
            old = fields
                .next()
                .and_then(|f| f.strip_prefix('-'))
                .map_or(1, start_of);
            new = fields
                .next()
                .and_then(|f| f.strip_prefix('+'))
                .map_or(1, start_of);
            header = Some(line);
            continue;
        }
        let keep = match line.chars().next() {
            Some('+') => {
                new += 1;
                additions
                    .contains(&(new - 1))
                    .then(|| format!("+{}: {}", new - 1, &line[1..]))
            }
            Some('-') => {
                old += 1;
                deletions
                    .contains(&(old - 1))
                    .then(|| format!("-{}: {}", old - 1, &line[1..]))
            }
            Some('\\') => None,
            _ => {
                old += 1;
                new += 1;
                None
            }
        };
        if let Some(k) = keep {
            if let Some(h) = header.take() {
                out.push(h.to_string());
            }
            out.push(k);
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "@@ -1,4 +1,5 @@\n fn a() {\n-    old();\n+    new();\n+    more();\n }\n@@ -20,3 +21,3 @@ impl X {\n     keep();\n-    gone();\n+    here();\n\\ No newline at end of file";

    #[test]
    fn selected_lines_keep_their_numbers_and_hunk_headers() {
        assert_eq!(select_lines(PATCH, &[], &[]), PATCH);
        assert_eq!(
            select_lines(PATCH, &[3], &[]),
            "@@ -1,4 +1,5 @@\n+3:     more();"
        );
        assert_eq!(select_lines(PATCH, &[22], &[21, 2]), "@@ -1,4 +1,5 @@\n-2:     old();\n@@ -20,3 +21,3 @@ impl X {\n-21:     gone();\n+22:     here();");
        assert_eq!(select_lines(PATCH, &[99], &[]), "");
    }

    #[test]
    fn file_selection_matches_paths_loosely_and_reports_missing_files() {
        let files = vec![
            json!({"filename": "src/a.rs", "status": "modified", "additions": 2, "deletions": 1, "patch": PATCH}),
            json!({"filename": "img.png", "status": "added", "additions": 0, "deletions": 0}),
        ];
        let sel = vec![
            FileSelection {
                file: "./src/a.rs".into(),
                additions: vec![2.0],
                deletions: vec![],
            },
            FileSelection {
                file: "src/missing.rs".into(),
                additions: vec![],
                deletions: vec![],
            },
        ];
        let (changes, hints) = file_changes(&files, Some(&sel), 7);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0]["patch"], "@@ -1,4 +1,5 @@\n+2:     new();");
        assert!(hints[0].contains("src/missing.rs"), "{hints:?}");
        let (all, hints) = file_changes(&files, None, 7);
        assert_eq!(all.len(), 2);
        assert!(hints[0].contains("img.png"));
    }
}
