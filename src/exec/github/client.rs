//! The GitHub REST client the five tools share: URLs joined onto the configured API base (so
//! GitHub Enterprise bases such as `http://host/api/v3` keep their path), the standard
//! headers and the token; GitHub's error answers are mapped by `errors`. The token is only
//! ever sent as a header; no error text can contain it.

use super::errors::classify;
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::Context;
use reqwest::header::ACCEPT;
use reqwest::Url;
use serde_json::Value;
use std::time::{SystemTime, UNIX_EPOCH};

/// The REST API version every request pins.
pub(crate) const API_VERSION: &str = "2022-11-28";
/// Largest body read for a JSON answer; GitHub's own answers stay far below it.
const MAX_JSON_BYTES: usize = 32 * 1024 * 1024;

/// The media type asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Media {
    Json,
    /// Code search with `text_matches` fragments.
    TextMatch,
    /// A file's raw bytes (the contents API for files over 1 MB).
    Raw,
}

impl Media {
    fn header(self) -> &'static str {
        match self {
            Media::Json => "application/vnd.github+json",
            Media::TextMatch => "application/vnd.github.text-match+json",
            Media::Raw => "application/vnd.github.raw+json",
        }
    }
}

/// What a request is about, so that a 404 can say what is missing.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Subject<'a> {
    Repository {
        owner: &'a str,
        repo: &'a str,
    },
    File {
        owner: &'a str,
        repo: &'a str,
        path: &'a str,
        branch: Option<&'a str>,
    },
    Tree {
        owner: &'a str,
        repo: &'a str,
        branch: &'a str,
    },
    PullRequest {
        owner: &'a str,
        repo: &'a str,
        number: u64,
    },
    Search,
}

/// A client for one query, borrowing the shared HTTP client and settings.
pub(crate) struct Github<'a> {
    http: &'a reqwest::Client,
    base: &'a str,
    token: Option<&'a str>,
}

impl<'a> Github<'a> {
    pub(crate) fn new(ctx: &'a Context) -> Github<'a> {
        Github {
            http: &ctx.http,
            base: &ctx.config.github_api_url,
            token: ctx
                .config
                .github_token
                .as_deref()
                .filter(|t| !t.trim().is_empty()),
        }
    }

    pub(crate) fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The base with `segments` appended, each percent-encoded as one path segment.
    pub(crate) fn url(&self, segments: &[&str]) -> Result<Url, QueryError> {
        let bad = || {
            QueryError::new(
                Failure::Unavailable,
                ToolErrorCode::GithubConfigInvalid,
                format!("github_api_url is not usable as a base URL: expected something like https://github.example.com/api/v3, found \"{}\"", self.base),
            )
            .hint("Fix tools.github_api_url or TOOLSCOUT_GITHUB_API_URL")
        };
        let mut url = Url::parse(self.base).map_err(|_| bad())?;
        {
            let mut path = url.path_segments_mut().map_err(|_| bad())?;
            path.pop_if_empty();
            path.extend(segments);
        }
        Ok(url)
    }

    /// GET returning the JSON body.
    pub(crate) async fn json(
        &self,
        segments: &[&str],
        query: &[(&str, String)],
        media: Media,
        subject: Subject<'_>,
    ) -> Result<Value, QueryError> {
        let bytes = self
            .bytes(segments, query, media, subject, MAX_JSON_BYTES)
            .await?;
        serde_json::from_slice(&bytes).map_err(|e| {
            QueryError::new(
                Failure::Upstream { transient: true },
                ToolErrorCode::UpstreamInvalidResponse,
                format!("GitHub answered {} with something that is not JSON ({e})", segments.join("/")),
            )
            .hint("Check that github_api_url points at a GitHub REST API (GitHub Enterprise: https://HOST/api/v3)")
        })
    }

    /// GET returning the raw body, refusing bodies over `limit` bytes.
    pub(crate) async fn bytes(
        &self,
        segments: &[&str],
        query: &[(&str, String)],
        media: Media,
        subject: Subject<'_>,
        limit: usize,
    ) -> Result<Vec<u8>, QueryError> {
        let url = self.url(segments)?;
        let mut request = self
            .http
            .get(url)
            .query(query)
            .header(ACCEPT, media.header())
            .header("X-GitHub-Api-Version", API_VERSION);
        if let Some(token) = self.token {
            request = request.bearer_auth(token);
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| transport_error(&e, self.base))?;
        let status = response.status();
        if !status.is_success() {
            let headers = response.headers().clone();
            let body = response.text().await.unwrap_or_default();
            return Err(classify(
                status,
                &headers,
                &body,
                subject,
                self.has_token(),
                now_epoch(),
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| transport_error(&e, self.base))?
        {
            if body.len() + chunk.len() > limit {
                return Err(QueryError::new(
                    Failure::Unprocessable,
                    ToolErrorCode::ResponseTooLarge,
                    format!(
                        "GitHub's answer is larger than the {} MB toolscout reads",
                        limit / (1024 * 1024)
                    ),
                )
                .hint("Narrow the request (a smaller path, fewer results, a line range)"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A request that got no HTTP answer. The URL is dropped from reqwest's text: the base is
/// named instead, and nothing else (no header, so no token) is ever shown.
fn transport_error(e: &reqwest::Error, base: &str) -> QueryError {
    let timed_out = e.is_timeout();
    let reason = {
        let mut parts = vec![e.to_string()];
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            parts.push(s.to_string());
            source = s.source();
        }
        parts.dedup();
        parts.join(": ")
    };
    let reason = reason.replace(base, "<github_api_url>");
    let (code, message) = if timed_out {
        (
            ToolErrorCode::UpstreamTimeout,
            format!("GitHub at {base} did not answer in time ({reason})"),
        )
    } else {
        (
            ToolErrorCode::NetworkError,
            format!("could not reach GitHub at {base} ({reason})"),
        )
    };
    QueryError::new(Failure::Upstream { transient: true }, code, message)
        .hint("Check the network connection and tools.github_api_url (GitHub Enterprise: https://HOST/api/v3)")
        .hint("The request is retried automatically; if it keeps failing, try again later")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::github::fake::Fake;
    use serde_json::json;

    const REPO: Subject<'static> = Subject::Repository {
        owner: "o",
        repo: "r",
    };

    #[tokio::test]
    async fn requests_keep_the_enterprise_prefix_and_send_the_standard_headers() {
        let fake = Fake::start().await;
        fake.on("/repos/o/r", json!({"full_name": "o/r"}));
        let ctx = fake.context(Some("sekrit-token"));
        let gh = Github::new(&ctx);
        let v = gh
            .json(
                &["repos", "o", "r"],
                &[("x", "a b".into())],
                Media::Json,
                REPO,
            )
            .await
            .unwrap();
        assert_eq!(v["full_name"], "o/r");
        let req = fake.last("/repos/o/r").unwrap();
        assert_eq!(req.raw_path, "/api/v3/repos/o/r");
        assert_eq!(req.param("x").as_deref(), Some("a b"));
        assert_eq!(
            req.header("authorization").as_deref(),
            Some("Bearer sekrit-token")
        );
        assert_eq!(
            req.header("accept").as_deref(),
            Some("application/vnd.github+json")
        );
        assert_eq!(
            req.header("x-github-api-version").as_deref(),
            Some(API_VERSION)
        );
        // Path segments are encoded, never interpreted.
        let url = gh
            .url(&["repos", "o", "r", "git", "trees", "feature/x y"])
            .unwrap();
        assert!(
            url.as_str()
                .ends_with("/api/v3/repos/o/r/git/trees/feature%2Fx%20y"),
            "{url}"
        );

        let anonymous = fake.context(None);
        Github::new(&anonymous)
            .json(&["repos", "o", "r"], &[], Media::Json, REPO)
            .await
            .unwrap();
        assert_eq!(
            fake.last("/repos/o/r").unwrap().header("authorization"),
            None
        );
    }

    #[tokio::test]
    async fn errors_from_the_server_are_mapped_and_never_show_the_token() {
        let fake = Fake::start().await;
        fake.fail(
            "/repos/o/r",
            401,
            &[],
            json!({"message": "Bad credentials"}),
        );
        let ctx = fake.context(Some("sekrit-token"));
        let e = Github::new(&ctx)
            .json(&["repos", "o", "r"], &[], Media::Json, REPO)
            .await
            .unwrap_err();
        assert_eq!(e.code, ToolErrorCode::AuthFailed);
        assert!(!format!("{e:?}").contains("sekrit-token"));

        // Nothing listens on this port: a transient network error naming the base only.
        let mut config = crate::config::ExecConfig::for_workspace(fake.dir());
        config.github_api_url = "http://127.0.0.1:9/api/v3".into();
        config.github_token = Some("sekrit-token".into());
        let ctx = Context::new(config);
        let e = Github::new(&ctx)
            .json(&["repos", "o", "r"], &[], Media::Json, REPO)
            .await
            .unwrap_err();
        assert_eq!(
            (e.code, e.failure),
            (
                ToolErrorCode::NetworkError,
                Failure::Upstream { transient: true }
            )
        );
        assert!(!e.to_data().to_string().contains("sekrit-token"));
    }
}
