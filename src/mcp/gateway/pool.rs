//! The sessions toolscout keeps with upstream MCP servers to run their tools: one per `mcp`
//! source, opened on first use and shared by concurrent calls (MCP multiplexes requests on a
//! session), so the pool is bounded by the number of sources. A session that breaks (the
//! server died, the pipe closed, the HTTP server stopped answering) is dropped; the next call
//! restarts the server (reconnects, for a `url` source), after a backoff that doubles with
//! each failed start (1 s to 60 s) so a crashing server is not restarted in a loop. Every
//! call is bounded by its source's timeout.

use super::upstream::{self};
use crate::config::{CatalogSource, McpEndpoint, SourceKind};
use crate::exec::{Failure, QueryError, ToolErrorCode, Upstream, UpstreamFuture};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Mutex};

/// The longest wait before restarting a server that keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Hears an upstream announce that its tools changed, and counts it for whoever follows.
#[derive(Clone)]
struct Announcer {
    changes: Arc<watch::Sender<u64>>,
}

impl ClientHandler for Announcer {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.send_modify(|n| *n += 1);
    }
}

#[derive(Default)]
struct Session {
    client: Option<RunningService<RoleClient, Announcer>>,
    /// Failed starts and broken sessions in a row.
    failures: u32,
    /// No restart before this.
    retry_at: Option<Instant>,
    last_error: Option<String>,
    /// Sessions found dead or broken since the server first started.
    restarts: u32,
}

struct Slot {
    source: CatalogSource,
    session: Mutex<Session>,
}

/// The sessions of every `mcp` source.
pub struct Pool {
    slots: BTreeMap<String, Slot>,
    /// How many times an upstream said its tool list changed.
    changes: Arc<watch::Sender<u64>>,
}

impl Pool {
    /// A pool for the `mcp` sources among `sources`; nothing is started yet.
    pub fn new(sources: &[CatalogSource]) -> Pool {
        let slots = sources
            .iter()
            .filter(|s| matches!(s.kind, SourceKind::Mcp { .. }))
            .map(|s| {
                let slot = Slot {
                    source: s.clone(),
                    session: Mutex::default(),
                };
                (s.name.clone(), slot)
            })
            .collect();
        Pool {
            slots,
            changes: Arc::new(watch::Sender::new(0)),
        }
    }

    /// Follows upstream announcements that a tool list changed.
    pub fn list_changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Starts every source's session now rather than on its first call, so first calls are
    /// fast and announcements of changed tools are heard from the start.
    pub fn warm_up(self: &Arc<Self>) {
        for name in self.slots.keys().cloned().collect::<Vec<_>>() {
            let pool = self.clone();
            tokio::spawn(async move {
                if let Some(slot) = pool.slots.get(&name) {
                    if let Err(e) = pool.peer(slot).await {
                        tracing::warn!(source = %name, error = %e.message, "upstream not started");
                    }
                }
            });
        }
    }

    /// The peer of `slot`'s live session, starting the server if the backoff allows.
    async fn peer(&self, slot: &Slot) -> Result<rmcp::Peer<RoleClient>, QueryError> {
        let mut session = slot.session.lock().await;
        if let Some(client) = &session.client {
            if !client.is_closed() {
                return Ok(client.peer().clone());
            }
            // The server went away between calls: start it again now.
            session.client = None;
            session.restarts = session.restarts.saturating_add(1);
            session.last_error = Some("the server's session ended".into());
        }
        if let Some(wait) = session
            .retry_at
            .and_then(|t| t.checked_duration_since(Instant::now()))
        {
            let error = unavailable(&slot.source, session.last_error.as_deref());
            return Err(restarting(error, wait));
        }
        let announcer = Announcer {
            changes: self.changes.clone(),
        };
        let started = tokio::time::timeout(
            slot.source.timeout,
            upstream::connect(&slot.source, announcer),
        )
        .await;
        match started {
            Ok(Ok(client)) => {
                session.failures = 0;
                session.retry_at = None;
                let peer = client.peer().clone();
                session.client = Some(client);
                Ok(peer)
            }
            Ok(Err(e)) => Err(session.failed(&slot.source, e.to_string())),
            Err(_) => Err(session.failed(
                &slot.source,
                format!("did not start within {} s", slot.source.timeout.as_secs()),
            )),
        }
    }

    /// Drops a session that broke, so the next call after the backoff restarts the server;
    /// the error to report.
    async fn broke(&self, slot: &Slot, why: String) -> QueryError {
        let mut session = slot.session.lock().await;
        if let Some(client) = session.client.take() {
            let _ = client.cancel().await;
            session.restarts = session.restarts.saturating_add(1);
        }
        session.failed(&slot.source, why)
    }
}

impl Session {
    /// Notes a failure and sets the backoff; the error to report.
    fn failed(&mut self, source: &CatalogSource, why: String) -> QueryError {
        self.failures = self.failures.saturating_add(1);
        let backoff =
            Duration::from_secs(1u64 << self.failures.min(7).saturating_sub(1)).min(MAX_BACKOFF);
        self.retry_at = Some(Instant::now() + backoff);
        self.last_error = Some(why);
        restarting(unavailable(source, self.last_error.as_deref()), backoff)
    }
}

/// `error` saying when the server is started again (or reconnected to), in whole seconds.
fn restarting(error: QueryError, wait: Duration) -> QueryError {
    let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    error.detail("retryAfter", secs).hint(format!(
        "The next call after {secs} s starts the server again (reconnects, for a url source)"
    ))
}

fn unavailable(source: &CatalogSource, why: Option<&str>) -> QueryError {
    QueryError::new(
        Failure::Upstream { transient: true },
        ToolErrorCode::McpServerUnavailable,
        format!(
            "The MCP server of source '{}' is unavailable: {}",
            source.name,
            why.unwrap_or("its session ended")
        ),
    )
    .detail("source", source.name.clone())
    .hint("GET /health shows each upstream's state and last error")
}

impl Upstream for Pool {
    fn call<'a>(
        &'a self,
        source: &'a str,
        tool: &'a str,
        arguments: Map<String, Value>,
    ) -> UpstreamFuture<'a> {
        Box::pin(async move {
            let slot = self.slots.get(source).ok_or_else(|| {
                QueryError::new(
                    Failure::Unavailable,
                    ToolErrorCode::McpServerUnavailable,
                    format!("no MCP source named '{source}' is configured"),
                )
            })?;
            let peer = self.peer(slot).await?;
            let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
            match peer.call_tool(params).await {
                Ok(result) => serde_json::to_value(result).map_err(|e| {
                    QueryError::new(
                        Failure::Upstream { transient: false },
                        ToolErrorCode::McpProtocolError,
                        format!("the answer of {tool} did not serialise: {e}"),
                    )
                }),
                Err(ServiceError::McpError(data)) => Err(protocol_error(tool, &data)),
                Err(e) => Err(self.broke(slot, broken_session(&e)).await),
            }
        })
    }

    fn timeout(&self, source: &str) -> Duration {
        self.slots
            .get(source)
            .map_or(crate::config::DEFAULT_SOURCE_TIMEOUT, |s| s.source.timeout)
    }

    fn status(&self) -> Value {
        let mut out = Map::new();
        for (name, slot) in &self.slots {
            let state = match slot.session.try_lock() {
                Ok(s) => json!({
                    "transport": transport_name(&slot.source),
                    "state": match (&s.client, s.retry_at) {
                        (Some(c), _) if !c.is_closed() => "connected",
                        (_, Some(t)) if t > Instant::now() => "restarting",
                        _ => "idle",
                    },
                    "failures": s.failures,
                    "restarts": s.restarts,
                    "last_error": s.last_error,
                }),
                // A call is starting the server right now.
                Err(_) => json!({"transport": transport_name(&slot.source), "state": "starting"}),
            };
            out.insert(name.clone(), state);
        }
        Value::Object(out)
    }
}

/// Why a session broke, in words (rmcp's own text names its transport's Rust type).
fn broken_session(e: &ServiceError) -> String {
    match e {
        ServiceError::TransportSend(sent) => format!(
            "the call could not be sent: {}",
            crate::error::with_causes(sent.error.as_ref())
        ),
        ServiceError::TransportClosed => {
            "the session ended during the call (the server exited or closed its connection)".into()
        }
        other => crate::error::with_causes(other),
    }
}

/// How the pool reaches a source's server, for `/health`.
fn transport_name(source: &CatalogSource) -> &'static str {
    match source.kind {
        SourceKind::Mcp(McpEndpoint::Http { .. }) => "http",
        _ => "stdio",
    }
}

/// A JSON-RPC error from the upstream: its invalid-params answers are the query's fault.
fn protocol_error(tool: &str, data: &rmcp::ErrorData) -> QueryError {
    let invalid = data.code == rmcp::model::ErrorCode::INVALID_PARAMS;
    QueryError::new(
        if invalid {
            Failure::Invalid
        } else {
            Failure::Upstream { transient: false }
        },
        ToolErrorCode::McpProtocolError,
        format!(
            "{tool} was refused by its server: {} ({})",
            data.message, data.code.0
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_restart_backoff_doubles_up_to_a_minute() {
        let source = CatalogSource {
            name: "s".into(),
            kind: SourceKind::File("x".into()),
            timeout: Duration::from_secs(1),
        };
        let mut session = Session::default();
        let mut waits = Vec::new();
        for _ in 0..9 {
            let before = Instant::now();
            let e = session.failed(&source, "down".into());
            assert_eq!(e.code, ToolErrorCode::McpServerUnavailable);
            let wait = session.retry_at.unwrap().duration_since(before);
            waits.push(wait.as_secs_f64().round() as u64);
            assert_eq!(e.to_data()["retryAfter"], *waits.last().unwrap());
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(session.last_error.as_deref(), Some("down"));
    }
}
