//! githubSearchPullRequests: one pull request by number (`GET /repos/{o}/{r}/pulls/{n}`,
//! every other filter ignored), or a search (`GET /search/issues` with `is:pr` and every
//! qualifier of the schema). Each result can carry its discussion, commits and diffs
//! (`pull_parts`). Bodies are shortened when several pull requests come back, and the
//! answer is windowed by whole parts (`pull_window`) so one huge diff cannot flood it.

use super::client::{Github, Media, Subject};
use super::pull_parts::{self, FileSelection, Parts, Wanted};
use super::pull_window::windowed;
use super::{join_all, search_pages, text, Scope};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[path = "pull_search.rs"]
mod search;

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Labels {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Count {
    Number(u64),
    Text(String),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Detail {
    #[default]
    Metadata,
    FullContent,
    PartialContent,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    query: Option<String>,
    owner: Option<String>,
    repo: Option<String>,
    pr_number: Option<u64>,
    state: Option<String>,
    assignee: Option<String>,
    author: Option<String>,
    commenter: Option<String>,
    involves: Option<String>,
    mentions: Option<String>,
    #[serde(rename = "review-requested")]
    review_requested: Option<String>,
    #[serde(rename = "reviewed-by")]
    reviewed_by: Option<String>,
    label: Option<Labels>,
    #[serde(rename = "no-label")]
    no_label: Option<bool>,
    #[serde(rename = "no-milestone")]
    no_milestone: Option<bool>,
    #[serde(rename = "no-project")]
    no_project: Option<bool>,
    #[serde(rename = "no-assignee")]
    no_assignee: Option<bool>,
    head: Option<String>,
    base: Option<String>,
    created: Option<String>,
    updated: Option<String>,
    closed: Option<String>,
    #[serde(rename = "merged-at")]
    merged_at: Option<String>,
    comments: Option<Count>,
    reactions: Option<Count>,
    interactions: Option<Count>,
    merged: Option<bool>,
    draft: Option<bool>,
    #[serde(default)]
    r#match: Vec<String>,
    sort: Option<String>,
    #[serde(default = "desc")]
    order: String,
    #[serde(default = "five")]
    limit: u32,
    #[serde(default = "one")]
    page: u32,
    #[serde(default)]
    with_comments: bool,
    #[serde(default)]
    with_commits: bool,
    #[serde(default)]
    r#type: Detail,
    partial_content_metadata: Option<Vec<FileSelection>>,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn desc() -> String {
    "desc".into()
}
fn five() -> u32 {
    5
}
fn one() -> u32 {
    1
}

/// Keys that do not filter: with `prNumber`, every other key is a filter that gets ignored.
const NOT_FILTERS: [&str; 13] = [
    "id",
    "mainResearchGoal",
    "researchGoal",
    "reasoning",
    "owner",
    "repo",
    "prNumber",
    "withComments",
    "withCommits",
    "type",
    "partialContentMetadata",
    "charOffset",
    "charLength",
];

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let scope = Scope::of(q.owner.as_deref(), q.repo.as_deref())?;
    let wanted = wanted_of(&q)?;
    let gh = Github::new(ctx);
    let mut hints = Vec::new();
    let mut data = Map::new();
    if let Some((owner, repo)) = scope.repo() {
        data.insert("owner".into(), json!(owner));
        data.insert("repo".into(), json!(repo));
    }
    let found = if let Some(number) = q.pr_number {
        vec![by_number(&gh, query, &scope, number, &mut hints).await?]
    } else {
        let found = by_search(&gh, &q, &scope, &mut data, &mut hints).await?;
        if found.is_empty() {
            data.insert("hints".into(), json!(hints));
            return Ok(Outcome::empty(Value::Object(data)));
        }
        found
    };
    let answer = Answer { data, hints };
    answer.finish(ctx, &gh, &q, wanted, found).await
}

/// The parts to fetch beside each pull request, from `type` and the with* flags.
fn wanted_of(q: &Query) -> Result<Wanted<'_>, QueryError> {
    let selection = q
        .partial_content_metadata
        .as_deref()
        .filter(|s| !s.is_empty());
    if q.r#type == Detail::PartialContent && selection.is_none() {
        return Err(QueryError::invalid("type=partialContent needs partialContentMetadata: expected a list of {file, additions?, deletions?}, found none")
            .hint("List the files whose diffs you want, e.g. [{\"file\": \"src/app.ts\"}], or use type=fullContent for every file"));
    }
    Ok(Wanted {
        comments: q.with_comments,
        commits: q.with_commits,
        files: match q.r#type {
            Detail::Metadata => None,
            Detail::FullContent => Some(None),
            Detail::PartialContent => Some(selection),
        },
    })
}

/// (owner, repo, pull request) of one result.
type Found = (String, String, Value);

/// The one pull request `prNumber` names; the other filters are ignored, with a hint.
async fn by_number(
    gh: &Github<'_>,
    query: &Map<String, Value>,
    scope: &Scope,
    number: u64,
    hints: &mut Vec<String>,
) -> Result<Found, QueryError> {
    let Some((owner, repo)) = scope.repo() else {
        return Err(QueryError::invalid(format!(
            "prNumber={number} needs owner and repo: expected both, found {}",
            if matches!(scope, Scope::Owner(_)) {
                "only owner"
            } else {
                "neither"
            }
        ))
        .hint("Add owner and repo of the repository the pull request belongs to"));
    };
    let ignored: Vec<&str> = query
        .keys()
        .map(String::as_str)
        .filter(|k| !NOT_FILTERS.contains(k))
        .collect();
    if !ignored.is_empty() {
        hints.push(format!(
            "prNumber fetches one pull request, so these filters were ignored: {}",
            ignored.join(", ")
        ));
    }
    let body = gh
        .json(
            &["repos", owner, repo, "pulls", &number.to_string()],
            &[],
            Media::Json,
            Subject::PullRequest {
                owner,
                repo,
                number,
            },
        )
        .await?;
    Ok((owner.to_string(), repo.to_string(), from_pull(&body)))
}

/// The pull requests a search finds, with the search's totals and pagination in `data`;
/// none found leaves `data` and `hints` ready for an empty answer.
async fn by_search(
    gh: &Github<'_>,
    q: &Query,
    scope: &Scope,
    data: &mut Map<String, Value>,
    hints: &mut Vec<String>,
) -> Result<Vec<Found>, QueryError> {
    let search = search::build_q(q, scope)?;
    let mut params = vec![
        ("q", search.clone()),
        ("per_page", q.limit.to_string()),
        ("page", q.page.to_string()),
    ];
    if let Some(sort) = q.sort.as_deref().filter(|s| *s != "best-match") {
        params.push(("sort", sort.to_string()));
        params.push(("order", q.order.clone()));
    }
    let body = gh
        .json(&["search", "issues"], &params, Media::Json, Subject::Search)
        .await?;
    let total = body.get("total_count").and_then(Value::as_u64).unwrap_or(0);
    data.insert("total_count".into(), json!(total));
    data.insert(
        "incomplete_results".into(),
        json!(body
            .get("incomplete_results")
            .and_then(Value::as_bool)
            .unwrap_or(false)),
    );
    let pages = search_pages(total, q.limit, q.page);
    let found: Vec<Found> = body
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|item| item.get("pull_request").is_some())
        .filter_map(|item| repository_of(item).map(|(o, r)| (o, r, from_search(item))))
        .collect();
    if found.is_empty() {
        hints.push(format!("No pull request matched `{search}`"));
        hints.push("Loosen the filters: drop state/merged/draft, widen the dates, or use fewer words in query".into());
        if *scope == Scope::Everywhere {
            hints.push("Add owner and repo to search one repository".into());
        }
        data.insert("pull_requests".into(), json!([]));
        data.insert("pagination".into(), pages);
        return Ok(found);
    }
    hints.push(format!(
        "Page {} of {}: {} of {total} pull requests",
        q.page,
        pages["totalPages"],
        found.len()
    ));
    if pages["hasMore"] == true {
        hints.push(format!("Next: page={}", q.page + 1));
    }
    data.insert("pagination".into(), pages);
    Ok(found)
}

/// The answer so far: what the lookup or search put in `data`, and its hints.
struct Answer {
    data: Map<String, Value>,
    hints: Vec<String>,
}

impl Answer {
    /// Fetches the wanted parts of every pull request and windows the whole to the budget.
    async fn finish(
        mut self,
        ctx: &Context,
        gh: &Github<'_>,
        q: &Query,
        wanted: Wanted<'_>,
        mut found: Vec<Found>,
    ) -> Result<Outcome, QueryError> {
        let hints = &mut self.hints;
        shorten_bodies(&mut found, hints);
        let parts: Vec<Parts> = if wanted.any() {
            let runs = found
                .iter()
                .map(|(o, r, pr)| {
                    pull_parts::fetch(gh, o, r, pr["number"].as_u64().unwrap_or(0), wanted)
                })
                .collect();
            join_all(runs).await.into_iter().collect::<Result<_, _>>()?
        } else {
            found.iter().map(|_| Parts::default()).collect()
        };
        let budget = q.char_length.unwrap_or(ctx.config.output_chars);
        let (pulls, window_info, window_hints) = windowed(
            found,
            parts,
            hints,
            q.char_offset,
            q.char_length,
            ctx.config.output_chars,
            budget,
        );
        let data = &mut self.data;
        data.insert("pull_requests".into(), json!(pulls));
        if let Some(info) = window_info {
            data.insert("outputPagination".into(), info);
        }
        hints.extend(window_hints);
        if wanted.files.is_none() {
            hints.push("For the diff, ask again with prNumber and type=fullContent, or type=partialContent with partialContentMetadata".into());
        }
        if !q.with_comments {
            hints.push("withComments=true adds the discussion and review comments".into());
        }
        data.insert("hints".into(), json!(hints));
        Ok(Outcome::found(Value::Object(self.data)))
    }
}

/// `owner`/`repo` from a search item's `repository_url` (its last two path segments, so an
/// Enterprise base works too).
fn repository_of(item: &Value) -> Option<(String, String)> {
    let url = item.get("repository_url")?.as_str()?;
    let mut segments = url.trim_end_matches('/').rsplit('/');
    let repo = segments.next()?.to_string();
    let owner = segments.next()?.to_string();
    Some((owner, repo))
}

fn names(list: Option<&Value>, key: &str) -> Value {
    json!(list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.get(key).and_then(Value::as_str))
        .collect::<Vec<_>>())
}

/// The shared fields of a search item or a pull request object.
fn common(v: &Value) -> Value {
    let mut pr = json!({
        "number": v.get("number").and_then(Value::as_u64).unwrap_or(0),
        "title": v.get("title").and_then(Value::as_str).unwrap_or(""),
        "url": v.get("html_url").and_then(Value::as_str).unwrap_or(""),
        "state": v.get("state").and_then(Value::as_str).unwrap_or(""),
        "author": v.pointer("/user/login").and_then(Value::as_str).unwrap_or("ghost"),
        "labels": names(v.get("labels"), "name"),
        "assignees": names(v.get("assignees"), "login"),
        "body": v.get("body").and_then(Value::as_str),
    });
    if let Some(d) = v.get("draft").and_then(Value::as_bool) {
        pr["draft"] = json!(d);
    }
    for key in ["created_at", "updated_at", "closed_at"] {
        if let Some(t) = text(v, key) {
            pr[key] = json!(t);
        }
    }
    pr
}

fn from_search(item: &Value) -> Value {
    let mut pr = common(item);
    let merged_at = item
        .pointer("/pull_request/merged_at")
        .and_then(Value::as_str);
    pr["merged"] = json!(merged_at.is_some());
    if let Some(m) = merged_at {
        pr["merged_at"] = json!(m);
    }
    if let Some(c) = item.get("comments").and_then(Value::as_u64) {
        pr["comments"] = json!(c);
    }
    pr
}

fn from_pull(body: &Value) -> Value {
    let mut pr = common(body);
    pr["merged"] = json!(body
        .get("merged")
        .and_then(Value::as_bool)
        .unwrap_or_else(|| body.get("merged_at").is_some_and(Value::is_string)));
    if let Some(m) = text(body, "merged_at") {
        pr["merged_at"] = json!(m);
    }
    for (to, from) in [("head_ref", "/head/ref"), ("base_ref", "/base/ref")] {
        if let Some(r) = body.pointer(from).and_then(Value::as_str) {
            pr[to] = json!(r);
        }
    }
    for key in [
        "comments",
        "review_comments",
        "commits",
        "additions",
        "deletions",
        "changed_files",
    ] {
        if let Some(n) = body.get(key).and_then(Value::as_u64) {
            pr[key] = json!(n);
        }
    }
    pr
}

/// One pull request is shown whole; 2-3 get bodies of about 2000 characters, more get 800.
fn shorten_bodies(found: &mut [(String, String, Value)], hints: &mut Vec<String>) {
    let limit = match found.len() {
        0 | 1 => return,
        2 | 3 => 2000,
        _ => 800,
    };
    let mut cut = Vec::new();
    for (_, _, pr) in found.iter_mut() {
        let Some(body) = pr["body"].as_str() else {
            continue;
        };
        // Redacted before it is shortened: a cut secret would no longer be recognised.
        let body = crate::exec::redact::redact(body).into_owned();
        let total = body.chars().count();
        if total > limit {
            let short: String = body.chars().take(limit).collect();
            pr["body"] = json!(format!("{short}... [{} more characters]", total - limit));
            cut.push(format!("#{}", pr["number"]));
        }
    }
    if !cut.is_empty() {
        hints.push(format!("Bodies of {} were shortened to {limit} characters; fetch one with prNumber for its full text", cut.join(", ")));
    }
}

#[cfg(test)]
#[path = "pulls_tests.rs"]
mod tests;
