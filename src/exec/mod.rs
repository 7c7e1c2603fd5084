//! Tool execution: the 13 research tools toolscout runs itself. `Executor::call` takes a
//! tool name and a body of 1 to 5 queries, validates each query against the tool's input
//! schema from the catalog (compiled once), runs the queries in parallel under the tool
//! family's timeout, retry policy and circuit breaker, redacts secrets from everything that
//! comes back, and reports each query as results, empty or an error with hints.
//!
//! Families: `local` (files under the sandbox), `lsp` (language servers), `github` (REST API,
//! configurable base URL), `package` (npm and PyPI). Each family module exposes one `run`
//! over already-validated queries; this module owns everything they share.

mod call;
pub(crate) mod error_code;
#[cfg(test)]
mod fuzz_tests;
pub(crate) mod github;
pub(crate) mod local;
pub(crate) mod lsp;
pub(crate) mod outcome;
pub(crate) mod package;
pub(crate) mod page;
pub mod redact;
mod resilience;
pub(crate) mod sandbox;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod text;
mod upstream;

pub use crate::builtin::{is_builtin, Family, Tool, BUILTIN_TOOLS};
pub use call::{CallResult, Executor, QueryResult, MAX_QUERIES};
pub use outcome::{Failure, Outcome, QueryError, Status, ToolErrorCode};
pub use resilience::{CircuitSpec, Policy};
pub use upstream::{Upstream, UpstreamFuture};

use crate::admission::{Gate, Limits};
use crate::config::{ExecConfig, LimitsConfig};
use sandbox::Sandbox;
use serde_json::{Map, Value};
use std::time::Duration;

impl Tool {
    /// The circuit breaker the tool reports to (octocode's grouping).
    pub fn circuit(self) -> &'static str {
        use Tool::*;
        match self {
            GithubSearchCode | GithubSearchRepositories => "github:search",
            GithubSearchPullRequests => "github:pulls",
            GithubGetFileContent | GithubViewRepoStructure => "github:content",
            LspGotoDefinition | LspFindReferences => "lsp:navigation",
            LspCallHierarchy => "lsp:hierarchy",
            LocalSearchCode | LocalGetFileContent | LocalFindFiles | LocalViewStructure => "local",
            PackageSearch => "package",
        }
    }
}

/// What the tools share: settings, the sandbox, one HTTP client, the language servers.
pub struct Context {
    pub config: ExecConfig,
    pub sandbox: Sandbox,
    pub http: reqwest::Client,
    pub lsp: lsp::Servers,
    pub registries: package::Registries,
    /// In front of the local tools' file-system work (see `admission`).
    pub gate: Gate,
}

/// Per-request HTTP timeout; the family policy's timeout bounds the whole query anyway.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

impl Context {
    /// A context with the default limits (one local-tool worker per core).
    pub fn new(config: ExecConfig) -> Context {
        Context::with_limits(config, LimitsConfig::default().limits())
    }

    pub fn with_limits(config: ExecConfig, limits: Limits) -> Context {
        let http = reqwest::Client::builder()
            .user_agent(concat!("toolscout/", env!("CARGO_PKG_VERSION")))
            .timeout(HTTP_TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        Context {
            sandbox: Sandbox::new(&config),
            lsp: lsp::Servers::new(&config),
            registries: package::Registries::new(&config),
            gate: Gate::new("tools", limits),
            config,
            http,
        }
    }
}

/// Runs one validated query of `tool`.
async fn dispatch(
    ctx: &Context,
    tool: Tool,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    match tool.family() {
        Family::Local => local::run(ctx, tool, query).await,
        Family::Lsp => lsp::run(ctx, tool, query).await,
        Family::Github => github::run(ctx, tool, query).await,
        Family::Package => package::run(ctx, query).await,
    }
}

/// Parses a validated query into a tool's own typed form. The schema has already checked it,
/// so a failure here means schema and type disagree; it is still reported, never a panic.
pub(crate) fn parse_query<T: serde::de::DeserializeOwned>(
    query: &Map<String, Value>,
) -> Result<T, QueryError> {
    serde_json::from_value(Value::Object(query.clone()))
        .map_err(|e| QueryError::invalid(format!("query does not fit the tool's parameters: {e}")))
}

/// Runs futures concurrently on this task, keeping their order. Queries and per-item GitHub
/// requests borrow the context, so they cannot be spawned as tasks.
pub(crate) async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, fut) in out.iter_mut().zip(pinned.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// Credentials a child process (a language server runs the opened project's code; npm and pip
/// are asked for their configuration) has no business seeing.
const SECRET_ENV: &[&str] = &[
    "TOOLSCOUT_AUTH_TOKEN",
    "TOOLSCOUT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "OCTOCODE_TOKEN",
    "GITLAB_TOKEN",
    "BITBUCKET_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
];

/// Removes `SECRET_ENV` from a child's environment.
pub(crate) fn scrub_env(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    for name in SECRET_ENV {
        cmd.env_remove(name);
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn children_do_not_inherit_credentials() {
        let mut cmd = tokio::process::Command::new("sh");
        cmd.args([
            "-c",
            "printf '%s %s' \"${GH_TOKEN-unset}\" \"${KEEP-unset}\"",
        ])
        .env("GH_TOKEN", "secret")
        .env("KEEP", "kept");
        let out = scrub_env(&mut cmd).output().await.unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "unset kept");
    }
}
