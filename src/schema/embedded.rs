//! The JSON Schemas the binary embeds (tool metadata and every request body), so it
//! validates from any working directory; each is compiled once, on first use, in one cache.

use super::Schema;
use serde_json::Value;
use std::sync::OnceLock;

/// One of the embedded schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedded {
    /// A catalog entry (`schemas/tool.schema.json`).
    Tool,
    SearchRequest,
    RecommendRequest,
    CompareRequest,
    /// `POST /catalog/validate`'s body: one tool object or a non-empty array of them.
    ValidateRequest,
    /// `POST /feedback`'s body.
    FeedbackRequest,
}

impl Embedded {
    pub const ALL: [Embedded; 6] = [
        Embedded::Tool,
        Embedded::SearchRequest,
        Embedded::RecommendRequest,
        Embedded::CompareRequest,
        Embedded::ValidateRequest,
        Embedded::FeedbackRequest,
    ];

    /// The schema's text.
    pub const fn text(self) -> &'static str {
        match self {
            Embedded::Tool => include_str!("../../schemas/tool.schema.json"),
            Embedded::SearchRequest => include_str!("../../schemas/search.request.json"),
            Embedded::RecommendRequest => include_str!("../../schemas/recommend.request.json"),
            Embedded::CompareRequest => include_str!("../../schemas/compare.request.json"),
            Embedded::ValidateRequest => {
                include_str!("../../schemas/catalog.validate.request.json")
            }
            Embedded::FeedbackRequest => include_str!("../../schemas/feedback.request.json"),
        }
    }

    /// The compiled schema. Every embedded schema compiles (a unit test holds them to it),
    /// so the `expect`s below cannot fire in a built binary.
    pub fn compiled(self) -> &'static Schema {
        static CACHE: [OnceLock<Schema>; 6] = [const { OnceLock::new() }; 6];
        CACHE[self as usize].get_or_init(|| {
            let value: Value = serde_json::from_str(self.text()).expect("embedded schema is JSON");
            Schema::compile(&value).expect("embedded schema compiles")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_compiles() {
        for e in Embedded::ALL {
            let value: Value = serde_json::from_str(e.text()).unwrap();
            assert!(Schema::compile(&value).is_ok(), "{e:?}");
            assert!(
                std::ptr::eq(e.compiled(), e.compiled()),
                "{e:?} compiled once"
            );
        }
    }
}
