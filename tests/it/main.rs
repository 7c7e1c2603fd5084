//! The crate's integration tests, as one test binary (one link, shared helpers).

mod common;

mod catalog_validate;
mod http_api;
mod server;
