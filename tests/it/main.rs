//! The crate's integration tests, as one test binary (one link, shared helpers).

mod common;

mod catalog_expectations;
mod catalog_validate;
mod eval;
mod http_api;
mod search;
mod server;
