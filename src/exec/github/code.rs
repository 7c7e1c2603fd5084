//! githubSearchCode: GitHub code search (`GET /search/code`) with text-match fragments. The
//! keywords and filters become one `q=` string; the hits come back grouped by repository,
//! each file with its path and the code fragments GitHub matched.

use super::client::{Github, Media, Subject};
use super::window::{size_of, window};
use super::{qualifier, search_pages, term, Scope};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Match {
    File,
    Path,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    keywords_to_search: Vec<String>,
    owner: Option<String>,
    repo: Option<String>,
    extension: Option<String>,
    filename: Option<String>,
    path: Option<String>,
    r#match: Option<Match>,
    #[serde(default = "ten")]
    limit: u32,
    #[serde(default = "one")]
    page: u32,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn ten() -> u32 {
    10
}
fn one() -> u32 {
    1
}

/// The `q=` string and the filters it used (named for the hints).
fn build_q(q: &Query, scope: &Scope) -> Result<(String, Vec<&'static str>), QueryError> {
    let keywords: Vec<String> = q
        .keywords_to_search
        .iter()
        .filter(|k| !k.trim().is_empty())
        .map(|k| term(k))
        .collect();
    if keywords.is_empty() {
        return Err(QueryError::invalid(
            "keywordsToSearch: expected at least one non-blank keyword, found only blank ones",
        )
        .hint("Give a distinctive identifier, API name or error string"));
    }
    let mut parts = keywords;
    let mut filters = Vec::new();
    if let Some(s) = scope.qualifier() {
        parts.push(s);
        filters.push(if scope.repo().is_some() {
            "owner/repo"
        } else {
            "owner"
        });
    }
    let extension = q
        .extension
        .as_deref()
        .map(|e| e.trim().trim_start_matches('.'));
    for (name, value, label) in [
        ("extension", extension, "extension"),
        ("filename", q.filename.as_deref(), "filename"),
        (
            "path",
            q.path.as_deref().map(|p| p.trim().trim_matches('/')),
            "path",
        ),
    ] {
        if let Some(part) = qualifier(name, value) {
            parts.push(part);
            filters.push(label);
        }
    }
    match q.r#match {
        Some(Match::File) => parts.push("in:file".into()),
        Some(Match::Path) => {
            parts.push("in:path".into());
            filters.push("match=path");
        }
        None => {}
    }
    Ok((parts.join(" "), filters))
}

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let scope = Scope::of(q.owner.as_deref(), q.repo.as_deref())?;
    let (search, filters) = build_q(&q, &scope)?;
    let gh = Github::new(ctx);
    let params = [
        ("q", search.clone()),
        ("per_page", q.limit.to_string()),
        ("page", q.page.to_string()),
    ];
    let body = gh
        .json(
            &["search", "code"],
            &params,
            Media::TextMatch,
            Subject::Search,
        )
        .await?;

    let total = body.get("total_count").and_then(Value::as_u64).unwrap_or(0);
    let items = body
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let files = group_by_repository(&items, q.r#match == Some(Match::Path));
    let pagination = search_pages(total, q.limit, q.page);
    if files.is_empty() {
        let hints = nothing_found(&q, &scope, &search, &filters, total, &pagination);
        return Ok(Outcome::empty(
            json!({"files": [], "pagination": pagination, "hints": hints}),
        ));
    }
    let sizes: Vec<usize> = files.iter().map(size_of).collect();
    let w = window(
        &sizes,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
        "files",
    );
    let shown: Vec<Value> = files[w.start..w.end].to_vec();
    let incomplete = body.get("incomplete_results") == Some(&Value::Bool(true));
    let mut hints = page_hints(&q, total, items.len(), &pagination, incomplete);
    hints.extend(w.hints);
    if q.r#match == Some(Match::Path) {
        hints.push("match=path matched file paths only, so there are no code fragments; read a file with githubGetFileContent".into());
    } else {
        hints.push("Read the code around a hit with githubGetFileContent (owner, repo, path) and matchString set to a keyword".into());
    }
    let mut data = json!({"files": shown, "pagination": pagination, "hints": hints});
    if let Some(info) = w.info {
        data["outputPagination"] = info;
    }
    Ok(Outcome::found(data))
}

/// Why nothing came back: a page past the end, or a search too narrow, and what to loosen.
fn nothing_found(
    q: &Query,
    scope: &Scope,
    search: &str,
    filters: &[&str],
    total: u64,
    pagination: &Value,
) -> Vec<String> {
    let total_pages = pagination["totalPages"].as_u64().unwrap_or(1);
    if total > 0 && u64::from(q.page) > total_pages {
        return vec![format!(
            "page={} is past the last page ({total_pages}); start again at page=1",
            q.page
        )];
    }
    let mut hints = vec![format!("Nothing matched `{search}`; every keyword must occur in the same file, so try fewer or more distinctive keywords")];
    if !filters.is_empty() {
        hints.push(format!(
            "Loosen or drop the filters one at a time: {}",
            filters.join(", ")
        ));
    }
    if scope.repo().is_some() {
        hints.push("GitHub code search covers only the default branch of indexed repositories (not all forks); check the name with githubSearchRepositories or browse with githubViewRepoStructure".into());
    }
    if q.r#match == Some(Match::Path) {
        hints.push("match=path looks only at file paths; drop it to search file contents".into());
    }
    hints
}

/// Where this page lies among the matches, and the limits of GitHub's code search.
fn page_hints(
    q: &Query,
    total: u64,
    items: usize,
    pagination: &Value,
    incomplete: bool,
) -> Vec<String> {
    let current = q.page;
    let total_pages = pagination["totalPages"].as_u64().unwrap_or(1);
    let first = u64::from(current.saturating_sub(1)) * u64::from(q.limit) + 1;
    let last = first + items as u64 - 1;
    let mut hints = vec![format!(
        "Page {current} of {total_pages}: files {first}-{last} of {total} matches"
    )];
    if pagination["hasMore"] == true {
        hints.push(format!("Next: page={}", current + 1));
    }
    if total > 1000 {
        hints.push("GitHub serves only the first 1000 matches; narrow with owner/repo, path or extension to reach the rest".into());
    }
    if incomplete {
        hints.push("GitHub timed out on part of its index, so these results may be incomplete; retry or narrow the search".into());
    }
    hints
}

/// Files in GitHub's order of relevance, but each repository's files together, repositories
/// ordered by their best hit.
fn group_by_repository(items: &[Value], paths_only: bool) -> Vec<Value> {
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for item in items {
        let Some(path) = item.get("path").and_then(Value::as_str) else {
            continue;
        };
        let repo = item
            .pointer("/repository/full_name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut file = json!({"path": path});
        if !repo.is_empty() {
            file["repo"] = json!(repo);
        }
        if !paths_only {
            let fragments: Vec<&str> = item
                .get("text_matches")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|m| m.get("property").and_then(Value::as_str) == Some("content"))
                .filter_map(|m| m.get("fragment").and_then(Value::as_str))
                .collect();
            if !fragments.is_empty() {
                file["text_matches"] = json!(fragments);
            }
        }
        match groups.iter_mut().find(|(r, _)| *r == repo) {
            Some((_, files)) => files.push(file),
            None => groups.push((repo, vec![file])),
        }
    }
    groups.into_iter().flat_map(|(_, files)| files).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::github::fake::{assert_fits_return_schema, code_item, search_body, Fake};
    use crate::exec::outcome::{Failure, Status};
    use crate::exec::Tool;
    use crate::exec::ToolErrorCode;

    const TOOL: Tool = Tool::GithubSearchCode;

    async fn call(fake: &Fake, fields: Value) -> Result<Outcome, QueryError> {
        fake.call(TOOL, Some("tok"), fields).await
    }

    #[tokio::test]
    async fn builds_the_query_and_groups_hits_by_repository() {
        let fake = Fake::start().await;
        fake.on(
            "/search/code",
            search_body(
                23,
                vec![
                    code_item(
                        "vercel/next.js",
                        "packages/next/src/a.ts",
                        &["export function revalidatePath("],
                    ),
                    code_item("other/fork", "src/b.ts", &["revalidatePath(x)"]),
                    code_item(
                        "vercel/next.js",
                        "packages/next/src/c.ts",
                        &["import { revalidatePath }", "revalidatePath()"],
                    ),
                ],
            ),
        );
        let out = call(
            &fake,
            json!({"keywordsToSearch": ["revalidatePath", "cache tag"], "owner": "vercel", "repo": "next.js", "extension": ".ts",
                   "path": "/packages/next/src/", "filename": "a.ts", "match": "file", "limit": 3, "page": 2}),
        )
        .await
        .unwrap();
        assert_eq!(
            fake.q("/search/code"),
            "revalidatePath \"cache tag\" repo:vercel/next.js extension:ts filename:a.ts path:packages/next/src in:file"
        );
        let req = fake.last("/search/code").unwrap();
        assert_eq!(
            (
                req.param("per_page").as_deref(),
                req.param("page").as_deref()
            ),
            (Some("3"), Some("2"))
        );
        assert_eq!(
            req.header("accept").as_deref(),
            Some("application/vnd.github.text-match+json")
        );
        assert_eq!(req.header("authorization").as_deref(), Some("Bearer tok"));

        assert_eq!(out.status, Status::HasResults);
        let files = out.data["files"].as_array().unwrap();
        let order: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
        assert_eq!(
            order,
            [
                "packages/next/src/a.ts",
                "packages/next/src/c.ts",
                "src/b.ts"
            ]
        );
        assert_eq!(
            files[1]["text_matches"],
            json!(["import { revalidatePath }", "revalidatePath()"])
        );
        assert_eq!(files[2]["repo"], "other/fork");
        assert_eq!(
            out.data["pagination"],
            json!({"currentPage": 2, "totalPages": 8, "perPage": 3, "totalMatches": 23, "hasMore": true})
        );
        let hints = out.data["hints"].to_string();
        assert!(
            hints.contains("files 4-6 of 23") && hints.contains("Next: page=3"),
            "{hints}"
        );
        assert_fits_return_schema(TOOL, &out.data);
    }

    #[tokio::test]
    async fn path_matches_have_no_fragments_and_owner_alone_is_a_user_qualifier() {
        let fake = Fake::start().await;
        fake.on(
            "/search/code",
            search_body(
                1,
                vec![code_item(
                    "kubernetes/kubernetes",
                    "pkg/admission/plugin.go",
                    &["x"],
                )],
            ),
        );
        let out = call(
            &fake,
            json!({"keywordsToSearch": ["admission"], "owner": "kubernetes", "match": "path"}),
        )
        .await
        .unwrap();
        assert_eq!(fake.q("/search/code"), "admission user:kubernetes in:path");
        assert!(out.data["files"][0].get("text_matches").is_none());
        assert_fits_return_schema(TOOL, &out.data);
    }

    #[tokio::test]
    async fn empty_results_explain_what_to_loosen() {
        let fake = Fake::start().await;
        fake.on("/search/code", search_body(0, vec![]));
        let out = call(&fake, json!({"keywordsToSearch": ["nothingmatches"], "owner": "o", "repo": "r", "extension": "go"})).await.unwrap();
        assert_eq!(out.status, Status::Empty);
        let hints = out.data["hints"].to_string();
        assert!(hints.contains("owner/repo, extension"), "{hints}");
        assert_fits_return_schema(TOOL, &out.data);
    }

    #[tokio::test]
    async fn long_answers_are_windowed_by_whole_files() {
        let fake = Fake::start().await;
        let items: Vec<Value> = (0..30)
            .map(|i| code_item("o/r", &format!("src/file{i:02}.rs"), &[&"x".repeat(400)]))
            .collect();
        fake.on("/search/code", search_body(30, items));
        let out = call(&fake, json!({"keywordsToSearch": ["x"], "limit": 30}))
            .await
            .unwrap();
        let shown = out.data["files"].as_array().unwrap().len();
        assert!(shown > 0 && shown < 30, "{shown}");
        let next = out.data["outputPagination"]["nextCharOffset"]
            .as_u64()
            .unwrap();
        let more = call(
            &fake,
            json!({"keywordsToSearch": ["x"], "limit": 30, "charOffset": next}),
        )
        .await
        .unwrap();
        assert_eq!(
            more.data["files"][0]["path"],
            format!("src/file{shown:02}.rs")
        );
        assert_fits_return_schema(TOOL, &more.data);
    }

    #[tokio::test]
    async fn bad_scope_and_github_errors_are_reported() {
        let fake = Fake::start().await;
        let e = call(&fake, json!({"keywordsToSearch": ["x"], "repo": "react"}))
            .await
            .unwrap_err();
        assert_eq!(e.failure, Failure::Invalid);
        let e = call(&fake, json!({"keywordsToSearch": ["  "]}))
            .await
            .unwrap_err();
        assert!(e.message.contains("non-blank"), "{}", e.message);
        fake.fail("/search/code", 422, &[], json!({"message": "Validation Failed", "errors": [{"message": "The search contains only logical operators"}]}));
        let e = call(&fake, json!({"keywordsToSearch": ["AND"]}))
            .await
            .unwrap_err();
        assert_eq!(
            (e.code, e.failure),
            (ToolErrorCode::GithubValidationFailed, Failure::Invalid)
        );
        assert!(e.message.contains("only logical operators"));
    }
}
