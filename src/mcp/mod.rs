//! The MCP door: toolscout as a Model Context Protocol server, the third caller of the one
//! `Service` (after HTTP and the CLI). An agent lists six meta-tools instead of hundreds of
//! tool schemas, and asks: `search_tools`, `recommend_tools`, `compare_tools` find and weigh
//! tools, `describe_tool` shows one tool's metadata and input schema, `call_tool` runs an
//! executable one, and `rate_tool` says how a tool of an answer served. The catalog is also offered as resources and the research workflows as
//! prompts. This is the only module that imports `rmcp` (pinned exactly: it moves fast).
//!
//! A problem the caller can fix (bad arguments, an unknown tool, a tool's own failure) comes
//! back as a tool result with `isError: true` whose text is the same `ErrorDetail` HTTP
//! sends; JSON-RPC errors are kept for protocol faults (an unknown prompt, resource or
//! method). Each connection (a stdio process, an HTTP session) gets its own [`Handler`], so
//! the `--require-discovery` policy and the log level are per session.

// Logging (`logging/setLevel`, log notifications) is deprecated in the newest protocol
// revision but still part of the ones clients speak today, so toolscout serves it.
#![allow(deprecated)]

mod browse;
mod calls;
pub mod gateway;
mod listing;
mod run;
mod transport;

#[cfg(test)]
mod tests;

pub use transport::{http_service, serve_io, serve_stdio, HttpMount};

use crate::service::log::RequestLog;
use crate::service::{Caller, Service};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// How the MCP door behaves, from `--expose-tools` and `--require-discovery`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Also list every executable catalog tool as an MCP tool under its own name.
    pub expose_tools: bool,
    /// `call_tool` runs only tools this session has seen in a discovery answer.
    pub require_discovery: bool,
}

/// What one MCP session remembers.
#[derive(Debug)]
struct Session {
    /// The session's id in the usage store: an execution of a tool that a discovery answer
    /// of the same session returned counts as choosing it.
    id: String,
    /// Ids of the tools a discovery meta-tool returned in this session (at most the catalog).
    discovered: Mutex<BTreeSet<String>>,
    /// The level from `logging/setLevel`: tool failures are logged to the client at
    /// `warning`, call summaries at `info`; nothing is sent before the client asks.
    log_level: Mutex<Option<rmcp::model::LoggingLevel>>,
}

/// The MCP server of one session over the shared service.
#[derive(Clone)]
pub struct Handler {
    service: Arc<Service>,
    options: Options,
    session: Arc<Session>,
    /// Where each tool call is logged, as HTTP logs each request.
    log: Arc<RequestLog>,
}

impl Handler {
    /// A handler for a new session.
    pub fn new(service: Arc<Service>, options: Options, log: Arc<RequestLog>) -> Handler {
        Handler {
            service,
            options,
            session: Arc::new(Session {
                id: Caller::new_id(),
                discovered: Mutex::default(),
                log_level: Mutex::default(),
            }),
            log,
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_logging()
            .build();
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new("toolscout", env!("CARGO_PKG_VERSION"))
                    .with_title("toolscout tool discovery"),
            )
            .with_instructions(listing::instructions(&self.service))
    }

    /// From now on, tells the client when a reload changes the catalog: the meta-tools'
    /// descriptions (and with `--expose-tools` the tools themselves) and the resources follow
    /// it. The task ends with the session.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut changes = self.service.catalog_changes();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                        let _ = peer.notify_resource_list_changed().await;
                    }
                    // A session that ended without a reload since: stop following.
                    () = tokio::time::sleep(std::time::Duration::from_secs(30)) => {
                        if peer.is_transport_closed() {
                            break;
                        }
                    }
                }
            }
        });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(listing::tools(
            &self.service,
            self.options,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        calls::call(self, request, context).await.map(Into::into)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Ok(mut level) = self.session.log_level.lock() {
            *level = Some(request.level);
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(browse::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        browse::prompt(&request).map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        browse::resources(&self.service, request.and_then(|r| r.cursor).as_deref())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(browse::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        browse::read(&self.service, &request.uri).map(Into::into)
    }
}
