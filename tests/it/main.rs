//! The crate's integration tests, as one test binary (one link, shared helpers).

mod client;
mod common;

mod analysis;
mod api_fuzz;
mod candidates;
mod catalog_expectations;
mod catalog_validate;
mod catalog_validate_cli;
mod catalog_validate_more;
mod compare;
mod doors;
mod eval;
mod formats;
mod gateway;
mod gateway_mcp;
mod hostile_inputs;
mod http_api;
mod http_inputs;
mod http_ops;
mod http_routes;
mod in_process;
mod mcp;
mod mcp_cancel;
mod mcp_conformance;
mod mcp_hostile;
mod mcp_process;
mod mcp_python;
mod mcp_tokens;
mod recommend;
mod reload;
mod runnable;
mod search;
mod search_names;
mod server;
mod tools_call;
