//! toolscout: tells AI agents which tool fits a task, with ranked and explained
//! recommendations, and runs the chosen tool in the same process.
//!
//! # Architecture
//!
//! Dependencies point one way, down these layers (`src/layers.rs` holds the table and a test
//! that fails on any import pointing up or sideways):
//!
//! 1. core: [`time`], [`builtin`] (the table of tools toolscout runs), [`admission`] (the
//!    bounded gate in front of CPU work), [`error`] (one `Error`
//!    enum with stable codes, HTTP statuses and recovery suggestions), [`schema`] (JSON Schema
//!    validation with "expected X, found Y" violations), [`config`] (the effective
//!    configuration; the only reader of environment variables);
//! 2. [`catalog`]: tool metadata files, their validation and the immutable `Catalog`;
//! 3. search blocks: [`analysis`] (entities and intents of a request), [`embed`] (the ONNX
//!    sentence embedder and its vector cache), [`rank`] (pure scoring), then [`index`] (BM25
//!    and HNSW over a catalog, in one snapshot);
//! 4. engines: [`engine`] (search, recommend, compare) and, beside it, [`exec`] (the 13
//!    research tools: sandbox, timeouts, retries, circuit breakers, secret redaction) and
//!    [`usage`] (the usage store: executions, answers shown, feedback, and statistics);
//! 5. what the doors share: [`format`] (Markdown and text renderings), [`prompts`] (the
//!    research-workflow prompts), [`eval`] (the retrieval-quality harness);
//! 6. [`service`]: the one `Service` every door calls, a method per use case;
//! 7. doors: [`mcp`] (the MCP server over rmcp: meta-tools, prompts, the catalog as
//!    resources; stdio, and streamable HTTP that [`http`] mounts at `/mcp`; and the gateway
//!    to upstream MCP servers, whose tools join the catalog and run through the executor),
//!    [`http`] (axum; `http::app()` is the whole server) and the CLI (the binary crate,
//!    `src/main.rs`).

pub mod admission;
pub mod analysis;
pub mod builtin;
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
pub mod mcp;
pub mod prompts;
pub mod rank;
pub mod schema;
pub mod service;
pub mod time;
pub mod usage;

#[cfg(test)]
pub(crate) mod fuzz_json;
#[cfg(test)]
pub(crate) mod hostile_text;
#[cfg(test)]
mod layers;

pub use error::{Error, Result};
