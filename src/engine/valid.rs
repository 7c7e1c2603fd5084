//! `Valid<R>`: a request that passed the one validation path every request kind shares. The
//! embedded JSON Schema runs first, then serde, then the kind's normalisation (trimming,
//! canonical order, names resolved to ids), then what only the catalog can say (a category
//! exists, a tool id names a tool). Every violation comes back at once, each with its JSON
//! pointer. The engine's public methods take only `Valid` requests, so nothing unchecked
//! reaches them from any door (HTTP, CLI, benchmarks). The only other ways to a `Valid` are
//! crate-private: searches the engine derives from a request already valid, and benchmark
//! queries the evaluation harness takes as their datasets give them.

use crate::catalog::Catalog;
use crate::error::{Error, Result, Violation};
use crate::schema::Embedded;
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A request kind the engine answers: its schema, its name in error messages, and the checks
/// the schema cannot make. Sealed: only the engine's request types are requests, so a
/// `Valid` always went through checks the engine knows about.
pub trait Request: Serialize + DeserializeOwned + sealed::Sealed {
    /// The schema a JSON body must meet.
    const SCHEMA: Embedded;
    /// The request in error messages ("search request").
    const WHAT: &'static str;

    /// Checks on the raw body that run even when the schema found problems elsewhere, so a
    /// caller fixes everything in one go (compare resolves every tool id this way); they may
    /// reorder `violations`, which holds the schema's. None by default.
    fn check_body(_body: &Value, _catalog: &Catalog, _violations: &mut Vec<Violation>) {}

    /// Brings what the schema accepted to its canonical form (trimmed texts, blank options
    /// dropped, names resolved), so equal requests compare and cache as equal.
    fn normalise(&mut self, catalog: &Catalog);

    /// What the schema cannot check, on the normalised request: blank texts, catalog
    /// categories, ranges in order.
    fn violations(&self, catalog: &Catalog) -> Vec<Violation>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::engine::SearchRequest {}
    impl Sealed for crate::engine::RecommendationRequest {}
    impl Sealed for crate::engine::ComparisonRequest {}
}

/// A request that passed its schema and the catalog checks; derefs to the request.
#[derive(Debug, Clone, PartialEq)]
pub struct Valid<R>(R);

impl<R: Request> Valid<R> {
    /// Parses and validates a JSON body: schema, serde, normalisation, catalog checks.
    pub fn parse(body: &Value, catalog: &Catalog) -> Result<Valid<R>> {
        let mut violations = R::SCHEMA.compiled().violations(body);
        R::check_body(body, catalog, &mut violations);
        if !violations.is_empty() {
            return Err(invalid::<R>(violations));
        }
        let mut req: R = crate::schema::deserialize_accepted(body, R::WHAT)?;
        req.normalise(catalog);
        let violations = req.violations(catalog);
        if violations.is_empty() {
            Ok(Valid(req))
        } else {
            Err(invalid::<R>(violations))
        }
    }

    /// Checks a request built in code (CLI flags, evaluation) exactly as the same JSON body
    /// would be, so code cannot build what a caller could not send.
    pub fn check(req: R, catalog: &Catalog) -> Result<Valid<R>> {
        let body = serde_json::to_value(&req).map_err(|e| Error::Internal(e.to_string()))?;
        Valid::parse(&strip_nulls(body), catalog)
    }
}

impl<R> Valid<R> {
    /// A request the engine derives from one already validated (recommend's per-step and
    /// per-facet searches). It may set what no caller can send (`exclude_categories`), so it
    /// cannot go through `parse`; only engine code vouches for it.
    pub(crate) fn derived(req: R) -> Valid<R> {
        Valid(req)
    }

    /// A benchmark query as its dataset gives it, for the evaluation harness only: some are
    /// longer than the public schemas allow (bfcl's reach 4,700 characters), and clipping
    /// them would make the figures incomparable with earlier runs and published ones. No
    /// door reaches this; every request a caller sends goes through `parse`.
    pub(crate) fn from_benchmark(req: R) -> Valid<R> {
        Valid(req)
    }

    pub fn into_inner(self) -> R {
        self.0
    }
}

impl<R> std::ops::Deref for Valid<R> {
    type Target = R;

    fn deref(&self) -> &R {
        &self.0
    }
}

/// Serialises as the request itself: cache keys of a valid request and of its request agree.
impl<R: Serialize> Serialize for Valid<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// The violation of a required text that trimming left empty (the schema only saw that it
/// was not), at `pointer`: "expected `expected`, found only whitespace".
pub(crate) fn blank(text: &str, pointer: &str, expected: &str) -> Option<Violation> {
    text.is_empty().then(|| Violation {
        pointer: pointer.into(),
        message: format!("expected {expected}, found only whitespace"),
    })
}

/// A text option trimmed, `None` when absent or blank: how every request keeps its optional
/// free texts (contexts), so that "  " and nothing ask the same.
pub(crate) fn trimmed(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty())
}

fn invalid<R: Request>(violations: Vec<Violation>) -> Error {
    Error::Validation {
        what: R::WHAT.into(),
        violations,
    }
}

/// Drops null members recursively (serde writes `None` as null; the schemas want absence).
fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;
