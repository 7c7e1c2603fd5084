//! The GitHub tools over GitHub's REST API, at a configurable base URL (GitHub Enterprise).
//! `client` talks HTTP and maps GitHub's errors; each tool has its own module; this one holds
//! what they share: the owner/repository scope, search-term quoting and the character window
//! that keeps a structured answer within the output budget.

mod client;
mod code;
mod content;
mod errors;
mod extract;
#[cfg(test)]
pub(crate) mod fake;
#[cfg(test)]
mod fuzz_tests;
mod pull_parts;
mod pull_window;
mod pulls;
mod repos;
mod structure;
mod window;

pub(crate) use super::join_all;
use super::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use super::{Context, Tool};
use serde_json::{Map, Value};

pub(crate) async fn run(
    ctx: &Context,
    tool: Tool,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    match tool {
        Tool::GithubSearchCode => code::run(ctx, query).await,
        Tool::GithubGetFileContent => content::run(ctx, query).await,
        Tool::GithubViewRepoStructure => structure::run(ctx, query).await,
        Tool::GithubSearchRepositories => repos::run(ctx, query).await,
        Tool::GithubSearchPullRequests => pulls::run(ctx, query).await,
        other => Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::WrongFamily,
            format!("{} is not a GitHub tool", other.name()),
        )),
    }
}

/// Where a search looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    Everywhere,
    Owner(String),
    Repo { owner: String, repo: String },
}

impl Scope {
    /// From optional `owner` and `repo`; `repo` may also be written `owner/name`.
    pub(crate) fn of(owner: Option<&str>, repo: Option<&str>) -> Result<Scope, QueryError> {
        let owner = owner.map(str::trim).filter(|s| !s.is_empty());
        let repo = repo
            .map(|r| r.trim().trim_matches('/'))
            .filter(|s| !s.is_empty());
        match (owner, repo) {
            (None, None) => Ok(Scope::Everywhere),
            (Some(o), None) => Ok(Scope::Owner(o.to_string())),
            (o, Some(r)) => {
                if let Some((ro, rn)) = r.split_once('/') {
                    if o.is_some_and(|o| !o.eq_ignore_ascii_case(ro))
                        || rn.contains('/')
                        || ro.is_empty()
                        || rn.is_empty()
                    {
                        return Err(QueryError::invalid(format!(
                            "repo: expected a repository name such as \"react\" (or \"owner/name\" matching owner), found \"{r}\""
                        ))
                        .hint("Put the user or organisation in owner and only the repository's name in repo"));
                    }
                    return Ok(Scope::Repo {
                        owner: ro.to_string(),
                        repo: rn.to_string(),
                    });
                }
                match o {
                    Some(o) => Ok(Scope::Repo { owner: o.to_string(), repo: r.to_string() }),
                    None => Err(QueryError::invalid(format!("repo \"{r}\" was given without owner: expected both, found only repo"))
                        .hint("Add owner (the user or organisation), or find the owner with githubSearchRepositories")),
                }
            }
        }
    }

    /// The search qualifier, if any.
    pub(crate) fn qualifier(&self) -> Option<String> {
        match self {
            Scope::Everywhere => None,
            Scope::Owner(o) => Some(format!("user:{}", term(o))),
            Scope::Repo { owner, repo } => Some(format!("repo:{owner}/{repo}")),
        }
    }

    pub(crate) fn repo(&self) -> Option<(&str, &str)> {
        match self {
            Scope::Repo { owner, repo } => Some((owner, repo)),
            _ => None,
        }
    }
}

/// A search term as GitHub's query syntax needs it: quoted when it holds spaces, so a
/// multi-word keyword is matched as a phrase and not split into separate words.
pub(crate) fn term(raw: &str) -> String {
    let t = raw.trim();
    if t.chars().any(char::is_whitespace)
        && !(t.len() > 1 && t.starts_with('"') && t.ends_with('"'))
    {
        format!("\"{}\"", t.replace('"', ""))
    } else {
        t.to_string()
    }
}

/// `name:value` with the value quoted when needed; `None` for a blank value.
pub(crate) fn qualifier(name: &str, value: Option<&str>) -> Option<String> {
    let v = value.map(str::trim).filter(|v| !v.is_empty())?;
    Some(format!("{name}:{}", term(v)))
}

/// Pages of a GitHub search, which never serves more than its first 1000 results.
pub(crate) fn search_pages(total: u64, per_page: u32, page: u32) -> Value {
    let reachable = total.min(1000);
    let total_pages = reachable.div_ceil(u64::from(per_page.max(1))).max(1);
    serde_json::json!({
        "currentPage": page,
        "totalPages": total_pages,
        "perPage": per_page,
        "totalMatches": total,
        "hasMore": u64::from(page) < total_pages,
    })
}

/// Checks a GitHub range qualifier value (`>100`, `<=5`, `10..50`, `*..10`, `7`), or a date
/// one (`>2024-01-01`, `2024-01-01..2024-06-30`) when `dates` is set.
pub(crate) fn check_range(field: &str, value: &str, dates: bool) -> Result<(), QueryError> {
    let v = value.trim();
    let one = |s: &str| -> bool {
        if dates {
            is_date(s)
        } else {
            !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
        }
    };
    let ok = if let Some((a, b)) = v.split_once("..") {
        (a == "*" || one(a)) && (b == "*" || one(b)) && !(a == "*" && b == "*")
    } else {
        let rest = v
            .strip_prefix(">=")
            .or_else(|| v.strip_prefix("<="))
            .or_else(|| v.strip_prefix('>'))
            .or_else(|| v.strip_prefix('<'))
            .unwrap_or(v);
        one(rest)
    };
    if ok {
        return Ok(());
    }
    let example = if dates {
        ">2024-01-01, <=2023-12-31 or 2024-01-01..2024-06-30"
    } else {
        ">1000, <50, >=10 or 100..500"
    };
    Err(QueryError::invalid(format!(
        "{field}: expected a GitHub range such as {example}, found \"{value}\""
    ))
    .hint(format!(
        "Write {field} as an operator (>, >=, <, <=) followed by a value, or as a range a..b"
    )))
}

/// `YYYY-MM-DD`, optionally followed by a time (`THH:MM:SS`, with an optional zone).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    b.len() >= 10
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && (b.len() == 10 || (b[10] == b'T' && b.len() > 11))
}

/// A string field of a GitHub object, absent when null or empty.
pub(crate) fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::exec::Executor;
    use fake::{code_item, file_body, query, repo_body, search_body, tree_body, Fake};
    use serde_json::json;

    /// The five tools through the real executor: catalog input schemas, resilience, redaction.
    /// A fake GitHub answering every route the five tools call, and an executor over it.
    async fn fake_github() -> (Fake, Executor) {
        let fake = Fake::start().await;
        fake.on(
            "/search/code",
            search_body(
                1,
                vec![code_item(
                    "o/r",
                    "src/lib.rs",
                    &["token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\""],
                )],
            ),
        );
        fake.on(
            "/repos/o/r/contents/src/lib.rs",
            file_body("o", "r", "src/lib.rs", "main", b"fn main() {}\n"),
        );
        fake.on("/repos/o/r", repo_body("o", "r", "main"));
        fake.on(
            "/repos/o/r/git/trees/main",
            tree_body(&[("src", "tree"), ("src/lib.rs", "blob")], false),
        );
        fake.on(
            "/search/repositories",
            search_body(1, vec![repo_body("o", "r", "main")]),
        );
        fake.on(
            "/search/issues",
            search_body(
                1,
                vec![fake::issue_pr_item("o/r", 1, "t", Some("b"), false)],
            ),
        );
        let mut config = crate::config::ExecConfig::for_workspace(fake.dir());
        config.github_api_url = fake.base.clone();
        config.github_token = Some("tok".into());
        let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).expect("catalog");
        let executor = Executor::new(config, &catalog).expect("executor");
        (fake, executor)
    }

    #[tokio::test]
    async fn every_tool_runs_through_the_executor() {
        let (_fake, executor) = fake_github().await;
        let calls = [
            (
                Tool::GithubSearchCode,
                json!({"keywordsToSearch": ["token"], "owner": "o", "repo": "r"}),
            ),
            (
                Tool::GithubGetFileContent,
                json!({"owner": "o", "repo": "r", "path": "src/lib.rs"}),
            ),
            (
                Tool::GithubViewRepoStructure,
                json!({"owner": "o", "repo": "r"}),
            ),
            (
                Tool::GithubSearchRepositories,
                json!({"keywordsToSearch": ["r"]}),
            ),
            (
                Tool::GithubSearchPullRequests,
                json!({"owner": "o", "repo": "r", "query": "t"}),
            ),
        ];
        for (tool, fields) in calls {
            assert!(
                executor.tools().contains(&tool),
                "{} is bound in the catalog",
                tool.name()
            );
            let result = executor.call(tool, vec![query(fields)]).await;
            let body = result.to_json();
            assert_eq!(result.http_status(), 200, "{}: {body:#}", tool.name());
            assert_eq!(
                body["data"]["results"][0]["status"], "hasResults",
                "{body:#}"
            );
        }
        let code = executor
            .call(
                Tool::GithubSearchCode,
                vec![query(
                    json!({"keywordsToSearch": ["token"], "owner": "o", "repo": "r"}),
                )],
            )
            .await;
        assert!(
            !code.to_json().to_string().contains("ghp_abcdefghij"),
            "secrets in fragments are redacted"
        );
    }

    #[tokio::test]
    async fn bad_queries_and_auth_failures_ask_github_at_most_once() {
        let (fake, executor) = fake_github().await;
        // An unknown key is refused by the input schema before GitHub is asked.
        let before = fake.requests().len();
        let bad = executor
            .call(
                Tool::GithubSearchCode,
                vec![query(json!({"keywordsToSearch": ["x"], "language": "go"}))],
            )
            .await;
        assert_eq!(bad.http_status(), 400);
        assert_eq!(fake.requests().len(), before);

        // 401 is not transient: one request, no retry.
        fake.fail(
            "/search/repositories",
            401,
            &[],
            json!({"message": "Bad credentials"}),
        );
        let denied = executor
            .call(
                Tool::GithubSearchRepositories,
                vec![query(json!({"keywordsToSearch": ["r"]}))],
            )
            .await;
        assert_eq!(denied.results[0].data["errorCode"], "authFailed");
        assert_eq!(fake.requests().len(), before + 1);
    }

    #[test]
    fn scopes_accept_owner_slash_name_and_refuse_a_lone_repo() {
        assert_eq!(Scope::of(None, None).unwrap(), Scope::Everywhere);
        assert_eq!(
            Scope::of(Some(" vercel "), None)
                .unwrap()
                .qualifier()
                .unwrap(),
            "user:vercel"
        );
        assert_eq!(
            Scope::of(Some("vercel"), Some("next.js"))
                .unwrap()
                .qualifier()
                .unwrap(),
            "repo:vercel/next.js"
        );
        assert_eq!(
            Scope::of(None, Some("vercel/next.js")).unwrap().repo(),
            Some(("vercel", "next.js"))
        );
        let e = Scope::of(None, Some("next.js")).unwrap_err();
        assert_eq!(e.failure, Failure::Invalid);
        assert!(e.message.contains("without owner"), "{}", e.message);
        assert!(Scope::of(Some("a"), Some("b/c")).is_err());
    }

    #[test]
    fn terms_with_spaces_become_phrases() {
        assert_eq!(term("useState"), "useState");
        assert_eq!(term(" rate limiter "), "\"rate limiter\"");
        assert_eq!(term("\"already quoted\""), "\"already quoted\"");
        assert_eq!(
            qualifier("label", Some("good first issue")).unwrap(),
            "label:\"good first issue\""
        );
        assert_eq!(qualifier("label", Some("  ")), None);
    }

    #[test]
    fn ranges_and_dates_are_checked_before_github_sees_them() {
        for ok in [">1000", "<50", ">=10", "<=3", "100..500", "*..10", "7"] {
            check_range("stars", ok, false).unwrap();
        }
        for bad in ["lots", ">", "10..", "1k", "*..*"] {
            let e = check_range("stars", bad, false).unwrap_err();
            assert!(
                e.message.contains(&format!("found \"{bad}\"")),
                "{}",
                e.message
            );
        }
        for ok in [
            ">2024-01-01",
            "2024-01-01..2024-06-30",
            "<=2023-12-31T10:00:00Z",
            "2024-05-01..*",
        ] {
            check_range("created", ok, true).unwrap();
        }
        for bad in ["yesterday", ">2024-1-1", "2024"] {
            assert!(check_range("created", bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn search_pages_stop_at_githubs_1000_result_cap() {
        let p = search_pages(5000, 100, 10);
        assert_eq!(
            (p["totalPages"].as_u64(), p["hasMore"].as_bool()),
            (Some(10), Some(false))
        );
        let p = search_pages(0, 10, 1);
        assert_eq!(
            (p["totalPages"].as_u64(), p["hasMore"].as_bool()),
            (Some(1), Some(false))
        );
        let p = search_pages(25, 10, 2);
        assert_eq!(
            (p["totalPages"].as_u64(), p["hasMore"].as_bool()),
            (Some(3), Some(true))
        );
    }
}
