//! GitHub's error answers as `QueryError`s with stable codes: authentication, rate limits
//! (transient, with the seconds to wait), refusals, missing repositories, files, branches and
//! pull requests, GitHub's own validation messages and its server errors.

use super::client::Subject;
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::Value;

/// GitHub's error body: `{message, errors: [{message | code, field}], documentation_url}`.
fn github_message(body: &str) -> (String, Vec<String>) {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let message = parsed
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            body.chars()
                .take(300)
                .collect::<String>()
                .trim()
                .to_string()
        });
    let errors = parsed
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| match e {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| {
                    let code = o.get("code").and_then(Value::as_str)?;
                    let field = o.get("field").and_then(Value::as_str).unwrap_or("");
                    Some(format!("{field} {code}").trim().to_string())
                }),
            _ => None,
        })
        .collect();
    (message, errors)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// Seconds until GitHub accepts requests again: `retry-after`, else `x-ratelimit-reset`.
fn retry_after(headers: &HeaderMap, now: u64) -> Option<u64> {
    if let Some(secs) = header(headers, "retry-after").and_then(|v| v.parse::<u64>().ok()) {
        return Some(secs);
    }
    header(headers, "x-ratelimit-reset")
        .and_then(|v| v.parse::<u64>().ok())
        .map(|reset| reset.saturating_sub(now))
}

/// Maps a non-success answer to the error the agent sees.
pub(crate) fn classify(
    status: StatusCode,
    headers: &HeaderMap,
    body: &str,
    subject: Subject<'_>,
    has_token: bool,
    now: u64,
) -> QueryError {
    let (message, errors) = github_message(body);
    let said = if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    };
    let code = status.as_u16();
    let rate_limited = code == 429
        || (code == 403
            && (header(headers, "x-ratelimit-remaining") == Some("0")
                || headers.contains_key("retry-after")
                || message.to_lowercase().contains("rate limit")));
    let error = if rate_limited {
        let wait = retry_after(headers, now);
        let mut e = QueryError::new(
            Failure::Upstream { transient: true },
            ToolErrorCode::RateLimited,
            format!("GitHub rate limit reached ({code}{said})"),
        );
        if let Some(secs) = wait {
            e = e
                .detail("retryAfter", secs)
                .hint(format!("Wait {secs} seconds before calling GitHub again"));
        } else {
            e = e.hint("Wait a minute before calling GitHub again");
        }
        if !has_token {
            e = e.hint("Without a token GitHub allows 60 requests an hour; set GH_TOKEN, GITHUB_TOKEN or TOOLSCOUT_GITHUB_TOKEN to raise the limit");
        }
        e.hint("Search endpoints have their own, lower limit (30 a minute with a token); batch related keywords into one query")
    } else {
        match code {
            401 => {
                let e = if has_token {
                    QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::AuthFailed, format!("GitHub rejected the configured token (401{said})"))
                        .hint("The token may be expired or revoked; create a new one and set it in GH_TOKEN, GITHUB_TOKEN or TOOLSCOUT_GITHUB_TOKEN")
                } else {
                    QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::AuthFailed, format!("GitHub requires authentication for this request and no token is configured (401{said})"))
                        .hint("Set GH_TOKEN, GITHUB_TOKEN or TOOLSCOUT_GITHUB_TOKEN to a GitHub token with read access, then restart toolscout")
                };
                e.hint("Code search always needs a token on GitHub; reading public repositories works without one")
            }
            403 => QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::Forbidden, format!("GitHub refused access (403{said})"))
                .hint("The token may lack access to this repository or organisation (scopes, fine-grained repository access, SAML single sign-on authorisation)")
                .hint(if has_token { "Check the token's permissions on GitHub" } else { "Set GH_TOKEN, GITHUB_TOKEN or TOOLSCOUT_GITHUB_TOKEN to a token with access" }),
            404 => not_found(subject, &said, has_token),
            409 if message.to_lowercase().contains("empty") => {
                QueryError::new(Failure::NotFound, ToolErrorCode::RepositoryEmpty, format!("The repository has no commits yet (409{said})"))
                    .hint("An empty repository has no files or branches to read")
            }
            422 => {
                let detail = if errors.is_empty() { String::new() } else { format!(" ({})", errors.join("; ")) };
                let e = QueryError::new(Failure::Invalid, ToolErrorCode::GithubValidationFailed, format!("GitHub could not process the request (422{said}){detail}"));
                if detail.contains("cannot be searched") {
                    e.hint("The owner or repository in the query does not exist or is not visible to the token; check the spelling with githubSearchRepositories")
                } else {
                    e.hint("Check qualifier values: ranges look like >100, <50, 10..50 and dates like >2024-01-01 or 2024-01-01..2024-06-30")
                        .hint("GitHub only serves the first 1000 search results; lower page or limit")
                }
            }
            500..=599 => QueryError::new(Failure::Upstream { transient: true }, ToolErrorCode::UpstreamError, format!("GitHub had an internal error ({code}{said})"))
                .hint("This is on GitHub's side and is retried automatically; if it persists, try again later or narrow the request"),
            _ => QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::GithubError, format!("GitHub answered {code}{said}"))
                .hint("Check the query's owner, repo, path and branch"),
        }
    };
    error.detail("status", code)
}

fn not_found(subject: Subject<'_>, said: &str, has_token: bool) -> QueryError {
    let private = if has_token {
        "If the repository is private, the token needs read access to it"
    } else {
        "Private repositories need a token: set GH_TOKEN, GITHUB_TOKEN or TOOLSCOUT_GITHUB_TOKEN"
    };
    match subject {
        Subject::Repository { owner, repo } => QueryError::new(Failure::NotFound, ToolErrorCode::RepositoryNotFound, format!("Repository {owner}/{repo} was not found (404{said})"))
            .hint("Check the spelling of owner and repo, or find the repository with githubSearchRepositories")
            .hint(private),
        Subject::File { owner, repo, path, branch } => {
            let at = branch.map_or(String::new(), |b| format!(" at {b}"));
            QueryError::new(Failure::NotFound, ToolErrorCode::FileNotFound, format!("{path} was not found in {owner}/{repo}{at} (404{said})"))
                .hint("List the directory with githubViewRepoStructure to see the real paths (they are case-sensitive)")
                .hint("Without branch the default branch is read; pass branch for files that only exist elsewhere")
        }
        Subject::Tree { owner, repo, branch } => QueryError::new(Failure::NotFound, ToolErrorCode::BranchNotFound, format!("Branch, tag or commit {branch} was not found in {owner}/{repo} (404{said})"))
            .hint("Leave branch out to use the repository's default branch")
            .hint(private),
        Subject::PullRequest { owner, repo, number } => QueryError::new(Failure::NotFound, ToolErrorCode::PullRequestNotFound, format!("Pull request #{number} was not found in {owner}/{repo} (404{said})"))
            .hint("The number may belong to an issue rather than a pull request; search with query or author instead")
            .hint(private),
        Subject::Search => QueryError::new(Failure::NotFound, ToolErrorCode::NotFound, format!("GitHub found nothing at this address (404{said})"))
            .hint("Check that the owner or repository named in the query exists")
            .hint(private),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    const REPO: Subject<'static> = Subject::Repository {
        owner: "o",
        repo: "r",
    };

    #[test]
    fn auth_failures_get_a_stable_code_and_token_hints() {
        let e = classify(
            StatusCode::UNAUTHORIZED,
            &HeaderMap::new(),
            r#"{"message":"Requires authentication"}"#,
            Subject::Search,
            false,
            0,
        );
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::AuthFailed,
                Failure::Upstream { transient: false }
            )
        );
        assert!(
            e.hints
                .iter()
                .any(|h| h.contains("GH_TOKEN") && h.contains("TOOLSCOUT_GITHUB_TOKEN")),
            "{:?}",
            e.hints
        );
    }

    #[test]
    fn rate_limits_get_a_stable_code_and_retry_hints() {
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1100"),
        ]);
        let e = classify(
            StatusCode::FORBIDDEN,
            &h,
            r#"{"message":"API rate limit exceeded"}"#,
            REPO,
            true,
            1000,
        );
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::RateLimited,
                Failure::Upstream { transient: true }
            )
        );
        assert!(e.failure.is_transient());
        assert_eq!(e.details["retryAfter"], 100);

        let h = headers(&[("retry-after", "7")]);
        let e = classify(
            StatusCode::FORBIDDEN,
            &h,
            r#"{"message":"You have exceeded a secondary rate limit."}"#,
            REPO,
            true,
            0,
        );
        assert_eq!(
            (e.code, e.details["retryAfter"].clone()),
            (ToolErrorCode::RateLimited, json!(7))
        );
        let e = classify(
            StatusCode::TOO_MANY_REQUESTS,
            &HeaderMap::new(),
            "",
            REPO,
            false,
            0,
        );
        assert_eq!(e.code, ToolErrorCode::RateLimited);
        assert!(e.hints.iter().any(|h| h.contains("60 requests")));
    }

    #[test]
    fn forbidden_is_not_a_rate_limit() {
        let e = classify(
            StatusCode::FORBIDDEN,
            &HeaderMap::new(),
            r#"{"message":"Resource protected by organization SAML enforcement."}"#,
            REPO,
            true,
            0,
        );
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::Forbidden,
                Failure::Upstream { transient: false }
            )
        );
        assert!(e.message.contains("SAML"));
    }

    #[test]
    fn not_found_validation_and_server_errors() {
        let e = classify(
            StatusCode::NOT_FOUND,
            &HeaderMap::new(),
            r#"{"message":"Not Found"}"#,
            REPO,
            false,
            0,
        );
        assert_eq!(
            (e.code, e.failure),
            (ToolErrorCode::RepositoryNotFound, Failure::NotFound)
        );
        assert!(e.message.contains("o/r"));
        let file = Subject::File {
            owner: "o",
            repo: "r",
            path: "a/b.rs",
            branch: Some("dev"),
        };
        let e = classify(
            StatusCode::NOT_FOUND,
            &HeaderMap::new(),
            "{}",
            file,
            true,
            0,
        );
        assert_eq!(e.code, ToolErrorCode::FileNotFound);
        assert!(e.message.contains("a/b.rs") && e.message.contains("dev"));
        let body = r#"{"message":"Validation Failed","errors":[{"message":"The listed users cannot be searched"}]}"#;
        let e = classify(
            StatusCode::UNPROCESSABLE_ENTITY,
            &HeaderMap::new(),
            body,
            Subject::Search,
            true,
            0,
        );
        assert_eq!(
            (e.code, e.failure),
            (ToolErrorCode::GithubValidationFailed, Failure::Invalid)
        );
        assert!(
            e.message.contains("The listed users cannot be searched"),
            "{}",
            e.message
        );
        assert!(e.hints[0].contains("does not exist"), "{:?}", e.hints);
        let e = classify(
            StatusCode::BAD_GATEWAY,
            &HeaderMap::new(),
            "<html>bad gateway</html>",
            REPO,
            true,
            0,
        );
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::UpstreamError,
                Failure::Upstream { transient: true }
            )
        );
        assert_eq!(e.details["status"], 502);
    }
}
