//! toolscout: tells AI agents which tool fits a task, with ranked and explained
//! recommendations, and runs the chosen tool in the same process.
//!
//! # Architecture
//!
//! Dependencies point one way: [`config`] and [`error`] <- [`catalog`] <- [`embed`] <- index
//! <- rank <- engine <- [`http`], mcp, CLI. [`exec`] (tool execution) sits beside the engine.
//!
//! - [`config`]: the effective configuration (file, environment, flags); the only reader of
//!   environment variables.
//! - [`error`]: one `Error` enum with stable codes, HTTP statuses and recovery suggestions.
//! - [`schema`]: JSON Schema validation with "expected X, found Y" violations.
//! - [`catalog`]: tool metadata files, their validation and the immutable `Catalog`.
//! - [`embed`]: the sentence-embedding model (files and, later, the ONNX embedder).
//! - [`exec`]: the 13 research tools toolscout runs (local files, LSP, GitHub, packages):
//!   per-query validation, sandbox, timeouts, retries, circuit breakers, secret redaction.
//! - [`prompts`]: the research-workflow prompts and the system prompt.
//! - [`http`]: the axum transport; `http::app()` is the whole server.

pub mod analysis;
pub mod catalog;
pub mod config;
pub mod embed;
pub mod engine;
pub mod error;
pub mod eval;
pub mod exec;
pub mod format;
pub mod http;
pub mod index;
pub mod prompts;
pub mod rank;
pub mod schema;
pub mod time;

#[cfg(test)]
pub(crate) mod hostile_text;

pub use error::{Error, Result};
