//! githubSearchRepositories: `GET /search/repositories` from keywords, topics and the
//! qualifiers (owner, stars, size, created, pushed, in:), archived repositories excluded.
//! Keywords and topics together run as two searches whose results are merged.

use super::client::{Github, Media, Subject};
use super::window::{size_of, window};
use super::{check_range, search_pages, term, text, Scope};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    #[serde(default)]
    keywords_to_search: Vec<String>,
    #[serde(default)]
    topics_to_search: Vec<String>,
    owner: Option<String>,
    stars: Option<String>,
    size: Option<String>,
    created: Option<String>,
    updated: Option<String>,
    #[serde(default)]
    r#match: Vec<String>,
    sort: Option<String>,
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

/// The qualifiers both searches share.
fn qualifiers(q: &Query) -> Result<Vec<String>, QueryError> {
    let mut parts = Vec::new();
    if let Some(s) = Scope::of(q.owner.as_deref(), None)?.qualifier() {
        parts.push(s);
    }
    for (field, name, value, dates) in [
        ("stars", "stars", &q.stars, false),
        ("size", "size", &q.size, false),
        ("created", "created", &q.created, true),
        ("updated", "pushed", &q.updated, true),
    ] {
        if let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            check_range(field, v, dates)?;
            parts.push(format!("{name}:{v}"));
        }
    }
    parts.push("archived:false".into());
    Ok(parts)
}

/// The `q=` strings to run: one for keywords, one for topics, or one with qualifiers only.
fn searches(q: &Query) -> Result<Vec<String>, QueryError> {
    let quals = qualifiers(q)?;
    let keywords: Vec<String> = q
        .keywords_to_search
        .iter()
        .filter(|k| !k.trim().is_empty())
        .map(|k| term(k))
        .collect();
    let topics: Vec<String> = q
        .topics_to_search
        .iter()
        .map(|t| t.trim().to_lowercase().replace(char::is_whitespace, "-"))
        .filter(|t| !t.is_empty())
        .map(|t| format!("topic:{t}"))
        .collect();
    let only_archived = quals.len() == 1;
    if keywords.is_empty() && topics.is_empty() && only_archived {
        return Err(QueryError::invalid("expected keywordsToSearch, topicsToSearch or a filter (owner, stars, size, created, updated), found none")
            .hint("Describe the repositories in keywordsToSearch, e.g. [\"rate limiter\", \"redis\"], or give topicsToSearch"));
    }
    let with = |mut head: Vec<String>| {
        head.extend(quals.iter().cloned());
        head.join(" ")
    };
    let mut out = Vec::new();
    if !keywords.is_empty() {
        let mut head = keywords;
        let mut fields: Vec<&str> = Vec::new();
        for m in q.r#match.iter().map(String::as_str) {
            if ["name", "description", "readme"].contains(&m) && !fields.contains(&m) {
                fields.push(m);
            }
        }
        if !fields.is_empty() {
            head.push(format!("in:{}", fields.join(",")));
        }
        out.push(with(head));
    }
    if !topics.is_empty() {
        out.push(with(topics));
    }
    if out.is_empty() {
        out.push(with(Vec::new()));
    }
    Ok(out)
}

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let searches = searches(&q)?;
    let found = search_all(&Github::new(ctx), &q, &searches).await?;
    let pagination = search_pages(found.total, q.limit, q.page);
    if found.repos.is_empty() {
        let mut hints = vec![format!(
            "No repository matched `{}`",
            searches.join("` or `")
        )];
        hints.push(
            "Use fewer or broader keywords, drop stars/size/created/updated, or try topicsToSearch"
                .into(),
        );
        if q.owner.is_some() {
            hints.push(
                "Check the owner's spelling (it is the user or organisation name as in the URL)"
                    .into(),
            );
        }
        return Ok(Outcome::empty(
            json!({"repositories": [], "pagination": pagination, "hints": hints}),
        ));
    }
    Ok(found.answer(ctx, &q, searches.len(), pagination))
}

/// The repositories of every search, merged without repeats.
struct Found {
    repos: Vec<Value>,
    /// The largest total any search reported.
    total: u64,
    /// GitHub timed out on part of a search.
    incomplete: bool,
}

/// Runs the searches side by side and merges what they found.
async fn search_all(gh: &Github<'_>, q: &Query, searches: &[String]) -> Result<Found, QueryError> {
    let mut params = vec![
        ("per_page", q.limit.to_string()),
        ("page", q.page.to_string()),
    ];
    if let Some(sort) = q.sort.as_deref().filter(|s| *s != "best-match") {
        params.push(("sort", sort.to_string()));
        params.push(("order", "desc".to_string()));
    }
    let runs = searches.iter().map(|s| {
        let mut p = params.clone();
        p.push(("q", s.clone()));
        async move {
            gh.json(
                &["search", "repositories"],
                &p,
                Media::Json,
                Subject::Search,
            )
            .await
        }
    });
    let answers = super::join_all(runs.collect()).await;
    let mut found = Found {
        repos: Vec::new(),
        total: 0,
        incomplete: false,
    };
    for answer in answers {
        let body = answer?;
        found.total = found
            .total
            .max(body.get("total_count").and_then(Value::as_u64).unwrap_or(0));
        found.incomplete |= body.get("incomplete_results") == Some(&Value::Bool(true));
        for item in body
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = repository(item);
            if !found
                .repos
                .iter()
                .any(|x| x["owner"] == r["owner"] && x["repo"] == r["repo"])
            {
                found.repos.push(r);
            }
        }
    }
    if searches.len() > 1 {
        sort_merged(&mut found.repos, q.sort.as_deref());
    }
    Ok(found)
}

impl Found {
    /// The repositories that fit the window, with the page's hints.
    fn answer(self, ctx: &Context, q: &Query, searches: usize, pagination: Value) -> Outcome {
        let sizes: Vec<usize> = self.repos.iter().map(size_of).collect();
        let w = window(
            &sizes,
            q.char_offset,
            q.char_length,
            ctx.config.output_chars,
            "repositories",
        );
        let shown = self.repos[w.start..w.end].to_vec();
        let mut hints = Vec::new();
        if searches > 1 {
            hints.push(
                "Keywords and topics ran as two searches; their results are merged and de-duplicated"
                    .into(),
            );
        }
        hints.push(format!(
            "Page {} of {}: {} repositories of about {}",
            q.page,
            pagination["totalPages"],
            self.repos.len(),
            self.total
        ));
        if pagination["hasMore"] == true {
            hints.push(format!("Next: page={}", q.page + 1));
        }
        if self.incomplete {
            hints.push(
                "GitHub timed out on part of the search, so results may be incomplete".into(),
            );
        }
        hints.extend(w.hints);
        hints.push("Explore one with githubViewRepoStructure (owner, repo), or search inside it with githubSearchCode".into());
        let mut data = json!({"repositories": shown, "pagination": pagination, "hints": hints});
        if let Some(info) = w.info {
            data["outputPagination"] = info;
        }
        Outcome::found(data)
    }
}

/// The fields an agent chooses by; nulls left out.
fn repository(item: &Value) -> Value {
    let full = text(item, "full_name").unwrap_or_default();
    let (owner, name) = full
        .split_once('/')
        .map_or((String::new(), full.clone()), |(o, n)| {
            (o.to_string(), n.to_string())
        });
    let owner = item
        .pointer("/owner/login")
        .and_then(Value::as_str)
        .map_or(owner, str::to_string);
    let mut r = json!({"owner": owner, "repo": text(item, "name").unwrap_or(name)});
    for (to, from) in [
        ("description", "description"),
        ("language", "language"),
        ("url", "html_url"),
        ("defaultBranch", "default_branch"),
        ("createdAt", "created_at"),
        ("updatedAt", "updated_at"),
        ("pushedAt", "pushed_at"),
        ("visibility", "visibility"),
    ] {
        if let Some(v) = text(item, from) {
            r[to] = json!(v);
        }
    }
    for (to, from) in [
        ("stars", "stargazers_count"),
        ("forksCount", "forks_count"),
        ("openIssuesCount", "open_issues_count"),
    ] {
        if let Some(n) = item.get(from).and_then(Value::as_u64) {
            r[to] = json!(n);
        }
    }
    // Only the topics that are text: the answer promises strings (its return_schema), and
    // GitHub's array is passed on, not trusted.
    let topics: Vec<&str> = item
        .get("topics")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !topics.is_empty() {
        r["topics"] = json!(topics);
    }
    r
}

/// Two merged result lists keep the requested order.
fn sort_merged(repos: &mut [Value], sort: Option<&str>) {
    let key = match sort {
        Some("stars") => "stars",
        Some("forks") => "forksCount",
        Some("updated") => "pushedAt",
        _ => return,
    };
    repos.sort_by(|a, b| match key {
        "pushedAt" => b[key]
            .as_str()
            .unwrap_or("")
            .cmp(a[key].as_str().unwrap_or("")),
        _ => b[key]
            .as_u64()
            .unwrap_or(0)
            .cmp(&a[key].as_u64().unwrap_or(0)),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::github::fake::{assert_fits_return_schema, repo_body, search_body, Fake};
    use crate::exec::outcome::{Failure, Status};
    use crate::exec::Tool;
    use crate::exec::ToolErrorCode;

    const TOOL: Tool = Tool::GithubSearchRepositories;

    async fn call(fake: &Fake, fields: Value) -> Result<Outcome, QueryError> {
        fake.call(TOOL, Some("tok"), fields).await
    }

    #[tokio::test]
    async fn keywords_and_qualifiers_make_one_query() {
        let fake = Fake::start().await;
        fake.on(
            "/search/repositories",
            search_body(
                42,
                vec![
                    repo_body("golang", "time", "master"),
                    repo_body("uber-go", "ratelimit", "main"),
                ],
            ),
        );
        let out = call(
            &fake,
            json!({"keywordsToSearch": ["rate limiter", "golang"], "owner": "golang", "stars": ">500", "size": "<10000",
                   "created": ">2020-01-01", "updated": ">2025-01-01", "match": ["name", "description"], "sort": "stars", "limit": 2, "page": 1}),
        )
        .await
        .unwrap();
        assert_eq!(
            fake.q("/search/repositories"),
            "\"rate limiter\" golang in:name,description user:golang stars:>500 size:<10000 created:>2020-01-01 pushed:>2025-01-01 archived:false"
        );
        let req = fake.last("/search/repositories").unwrap();
        assert_eq!(
            (
                req.param("sort").as_deref(),
                req.param("order").as_deref(),
                req.param("per_page").as_deref()
            ),
            (Some("stars"), Some("desc"), Some("2"))
        );
        assert_eq!(out.status, Status::HasResults);
        let first = &out.data["repositories"][0];
        assert_eq!(
            (
                first["owner"].as_str(),
                first["repo"].as_str(),
                first["stars"].as_u64()
            ),
            (Some("golang"), Some("time"), Some(80))
        );
        assert_eq!(
            (first["defaultBranch"].as_str(), first["pushedAt"].as_str()),
            (Some("master"), Some("2024-01-26T19:06:43Z"))
        );
        assert_eq!(out.data["pagination"]["totalPages"], 21);
        assert_fits_return_schema(TOOL, &out.data);
    }

    #[tokio::test]
    async fn keywords_and_topics_run_as_two_merged_searches() {
        let fake = Fake::start().await;
        let mut popular = repo_body("a", "popular", "main");
        popular["stargazers_count"] = json!(900);
        fake.on_when(
            "/search/repositories",
            "q",
            "mcp archived:false",
            search_body(1, vec![repo_body("a", "small", "main")]),
        );
        fake.on_when(
            "/search/repositories",
            "q",
            "topic:mcp-server archived:false",
            search_body(2, vec![popular, repo_body("a", "small", "main")]),
        );
        let out = call(
            &fake,
            json!({"keywordsToSearch": ["mcp"], "topicsToSearch": ["MCP Server"], "sort": "stars"}),
        )
        .await
        .unwrap();
        let qs: Vec<String> = fake
            .requests()
            .iter()
            .filter_map(|r| r.param("q"))
            .collect();
        assert_eq!(qs.len(), 2);
        let names: Vec<&str> = out.data["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["repo"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["popular", "small"]);
        assert!(out.data["hints"].to_string().contains("two searches"));
    }

    #[tokio::test]
    async fn nothing_to_search_bad_ranges_and_empty_results() {
        let fake = Fake::start().await;
        let e = call(&fake, json!({})).await.unwrap_err();
        assert_eq!(e.failure, Failure::Invalid);
        let e = call(&fake, json!({"keywordsToSearch": ["x"], "stars": "lots"}))
            .await
            .unwrap_err();
        assert!(
            e.message.contains("stars") && e.message.contains("\"lots\""),
            "{}",
            e.message
        );
        assert!(fake.requests().is_empty());
        fake.on("/search/repositories", search_body(0, vec![]));
        let out = call(&fake, json!({"topicsToSearch": ["nothing-here"]}))
            .await
            .unwrap();
        assert_eq!(out.status, Status::Empty);
        assert_eq!(
            fake.q("/search/repositories"),
            "topic:nothing-here archived:false"
        );
        assert_fits_return_schema(TOOL, &out.data);
    }

    #[tokio::test]
    async fn rate_limits_surface_as_transient_errors() {
        let fake = Fake::start().await;
        fake.fail(
            "/search/repositories",
            403,
            &[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "0")],
            json!({"message": "API rate limit exceeded"}),
        );
        let e = call(&fake, json!({"keywordsToSearch": ["x"]}))
            .await
            .unwrap_err();
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::RateLimited,
                Failure::Upstream { transient: true }
            )
        );
        assert_eq!(e.details["retryAfter"], 0);
        fake.fail("/search/repositories", 500, &[], json!({"message": "boom"}));
        let e = call(&fake, json!({"keywordsToSearch": ["x"]}))
            .await
            .unwrap_err();
        assert!(e.failure.is_transient());
    }
}
