//! One registry GET, and what its failures mean for the agent and for the framework: a 404
//! is an answer (the package does not exist), 429 and 5xx and lost connections are transient
//! (retried, counted on the circuit), other refusals are not worth retrying. Bodies are read
//! with a size cap, since a full npm document of a busy package runs to megabytes.

use super::registry::Registry;
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use std::time::Duration;

/// Largest body read from a registry (the biggest npm documents are tens of megabytes).
const MAX_BODY_BYTES: usize = 64 << 20;
/// One request; the family's policy bounds the whole query anyway.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(25);

/// A registry's answer to one GET.
#[derive(Debug)]
pub(crate) enum Fetched {
    Json(Value),
    NotFound,
}

/// GETs `url` from `registry` as JSON. `what` names the request in messages ("npm search").
pub(crate) async fn get_json(
    http: &reqwest::Client,
    registry: &Registry,
    url: Url,
    what: &str,
) -> Result<Fetched, QueryError> {
    let shown = url.to_string();
    let sent = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .timeout(REQUEST_TIMEOUT)
        .send()
        .await;
    let mut resp = match sent {
        Ok(r) => r,
        Err(e) => return Err(transport(e, registry, what, &shown)),
    };
    let status = resp.status();
    if status == StatusCode::NOT_FOUND || status == StatusCode::GONE {
        return Ok(Fetched::NotFound);
    }
    if !status.is_success() {
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        return Err(refused(status, retry_after, registry, what, &shown));
    }
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(QueryError::new(
                        Failure::Unprocessable,
                        ToolErrorCode::RegistryResponseTooLarge,
                        format!("{what}: the registry's answer is larger than {} MB", MAX_BODY_BYTES >> 20),
                    )
                    .detail("url", shown)
                    .hint("Look the package up without npmFetchMetadata: the exact lookup reads only the latest version's record"));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return Err(transport(e, registry, what, &shown)),
        }
    }
    serde_json::from_slice(&body).map(Fetched::Json).map_err(|e| {
        QueryError::new(
            Failure::Upstream { transient: false },
            ToolErrorCode::InvalidRegistryResponse,
            format!("{what}: the registry at {} (from {}) did not answer with JSON: {e}", registry.base, registry.source),
        )
        .detail("url", shown)
        .hint("Check that the configured registry URL points at a registry's API, not at a web page")
    })
}

fn transport(e: reqwest::Error, registry: &Registry, what: &str, url: &str) -> QueryError {
    let (failure, code, how) = if e.is_timeout() {
        (
            Failure::Timeout,
            ToolErrorCode::RegistryTimeout,
            "did not answer in time",
        )
    } else {
        (
            Failure::Upstream { transient: true },
            ToolErrorCode::RegistryUnreachable,
            "could not be reached",
        )
    };
    QueryError::new(
        failure,
        code,
        format!(
            "{what}: the registry at {} (from {}) {how}: {}",
            registry.base,
            registry.source,
            crate::error::with_causes(&e)
        ),
    )
    .detail("url", url)
    .hint("Retry in a moment; if it keeps failing, check the network and the registry URL")
}

fn refused(
    status: StatusCode,
    retry_after: Option<u64>,
    registry: &Registry,
    what: &str,
    url: &str,
) -> QueryError {
    let base = format!(
        "{what}: the registry at {} (from {}) answered HTTP {status}",
        registry.base, registry.source
    );
    let e = match status.as_u16() {
        429 => {
            let mut e = QueryError::new(Failure::Upstream { transient: true }, ToolErrorCode::RateLimited, base);
            e = match retry_after {
                Some(s) => e.detail("retryAfter", s).hint(format!("The registry is rate limiting; retry after {s} seconds")),
                None => e.hint("The registry is rate limiting; retry in a minute with fewer queries"),
            };
            e
        }
        500..=599 => QueryError::new(Failure::Upstream { transient: true }, ToolErrorCode::RegistryError, base)
            .hint("The registry failed on its side; retry in a moment"),
        401 | 403 => QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::RegistryAccessDenied, base)
            .hint("toolscout sends no registry credentials; point npm_registry / pypi_url at a registry that allows anonymous reads"),
        _ => QueryError::new(Failure::Upstream { transient: false }, ToolErrorCode::RegistryRejected, base)
            .hint("Check the package name's spelling and the registry URL"),
    };
    e.detail("status", status.as_u16()).detail("url", url)
}
