//! Which tools a search request lets through (category, avoided categories, type,
//! `runnable_only` and the `filters` object), and the hint that says so when they leave few.

use super::request::SearchRequest;
use super::Engine;
use crate::catalog::{ToolRecord, ToolType};

impl Engine {
    /// Whether a tool passes the request's category, type, `runnable_only` and filters.
    pub(super) fn passes_filters(&self, t: &ToolRecord, req: &SearchRequest) -> bool {
        if req.runnable_only && !t.is_executable() {
            return false;
        }
        if req.category.as_ref().is_some_and(|c| &t.category != c) {
            return false;
        }
        if req.exclude_categories.contains(&t.category) {
            return false;
        }
        if req.tool_type.is_some_and(|ty: ToolType| t.tool_type != ty) {
            return false;
        }
        let f = &req.filters;
        if let Some(range) = f.complexity_range {
            if range.min.is_some_and(|m| t.complexity_score < m)
                || range.max.is_some_and(|m| t.complexity_score > m)
            {
                return false;
            }
        }
        if f.has_examples == Some(true) && t.examples.is_empty() {
            return false;
        }
        if f.performance_tier.is_some_and(|p| t.performance_tier != p) {
            return false;
        }
        if f.recent_only == Some(true) {
            let cutoff = time::OffsetDateTime::now_utc()
                - time::Duration::days(self.config.recent_days as i64);
            match crate::time::parse_rfc3339(&t.updated_at) {
                Some(updated) if updated >= cutoff => {}
                _ => return false,
            }
        }
        true
    }

    /// The hint for a search whose filters leave `allowed` tools and few hits: how many pass
    /// and what to remove. `runnable_only` is named first when set: it alone leaves only the
    /// tools toolscout runs, whatever the query.
    pub(super) fn filters_hint(&self, req: &SearchRequest, allowed: usize) -> String {
        let catalog = self.catalog();
        let total = catalog.len();
        if req.runnable_only {
            let runnable = catalog.executable().count();
            format!(
                "filters leave {allowed} of {total} tools; runnable_only keeps only the {runnable} tools toolscout runs, so removing it (or category, tool_type or filters) widens the search"
            )
        } else {
            format!(
                "filters leave {allowed} of {total} tools; removing category, tool_type or filters widens the search"
            )
        }
    }
}

/// The tools a request's filters let through, by ordinal, and how many they are.
pub(super) struct Admitted {
    /// Per ordinal; `None` when the request filters nothing.
    allowed: Option<Vec<bool>>,
    pub(super) count: usize,
}

impl Admitted {
    /// Whether the tool at ordinal `o` passes the filters.
    pub(super) fn allows(&self, o: u32) -> bool {
        is_allowed(&self.allowed, o)
    }

    /// Whether any tool is kept out: only then do the indexes take their filtered paths.
    pub(super) fn restricts(&self) -> bool {
        self.allowed.is_some()
    }
}

impl Engine {
    /// The tools `req` lets through. Without a filter every tool is allowed: no per-tool
    /// pass, and the indexes take their unfiltered (cheaper) paths.
    pub(super) fn admitted(&self, req: &SearchRequest) -> Admitted {
        let tools = self.catalog().tools();
        let allowed: Option<Vec<bool>> = req
            .restricts()
            .then(|| tools.iter().map(|t| self.passes_filters(t, req)).collect());
        let count = allowed
            .as_ref()
            .map_or(tools.len(), |a| a.iter().filter(|a| **a).count());
        Admitted { allowed, count }
    }
}

/// Whether the tool at ordinal `o` passes the request's filters (`None`: there are none).
fn is_allowed(allowed: &Option<Vec<bool>>, o: u32) -> bool {
    allowed
        .as_ref()
        .is_none_or(|a| a.get(o as usize).copied().unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::config::SearchConfig;
    use crate::engine::Valid;
    use serde_json::json;
    use std::sync::{Arc, OnceLock};

    /// A keyword-only engine over the shipped catalog (no model in unit tests).
    fn engine() -> &'static Engine {
        static E: OnceLock<Engine> = OnceLock::new();
        E.get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
            let catalog = Arc::new(Catalog::load(&dir).expect("shipped catalog loads").0);
            Engine::build(
                catalog,
                Err("no model in unit tests".into()),
                SearchConfig::default(),
            )
            .unwrap()
        })
    }

    fn request(body: serde_json::Value) -> Valid<SearchRequest> {
        Valid::parse(&body, engine().catalog()).unwrap()
    }

    fn passing(req: &SearchRequest) -> Vec<&'static str> {
        let e = engine();
        e.catalog()
            .tools()
            .iter()
            .filter(|t| e.passes_filters(t, req))
            .map(|t| t.tool_id.as_str())
            .collect()
    }

    #[test]
    fn runnable_only_lets_through_exactly_the_executable_tools() {
        let req = request(json!({ "query": "search code", "runnable_only": true }));
        assert!(req.runnable_only && req.restricts());
        let executable: Vec<&str> = engine()
            .catalog()
            .executable()
            .map(|t| t.tool_id.as_str())
            .collect();
        assert_eq!(executable.len(), 13);
        assert_eq!(passing(&req), executable);

        // It combines with the other filters: both must hold.
        let req = request(
            json!({ "query": "search code", "runnable_only": true, "category": "code_search" }),
        );
        let both = passing(&req);
        assert!(
            !both.is_empty() && both.len() < executable.len(),
            "{both:?}"
        );
        assert!(both.iter().all(|id| executable.contains(id)));
        assert!(!both.contains(&"ripgrep"));
    }

    #[test]
    fn runnable_only_false_is_no_restriction_and_leaves_the_cache_key_alone() {
        let plain = request(json!({ "query": "search code" }));
        let off = request(json!({ "query": "search code", "runnable_only": false }));
        assert_eq!(plain, off);
        assert!(!off.restricts());
        assert_eq!(passing(&off).len(), engine().catalog().len());
        // The response-cache key is the request's serialisation.
        let key = serde_json::to_string(&off).unwrap();
        assert!(!key.contains("runnable_only"), "{key}");
        let on = request(json!({ "query": "search code", "runnable_only": true }));
        assert!(serde_json::to_string(&on)
            .unwrap()
            .contains("\"runnable_only\":true"));
    }

    #[test]
    fn a_wrong_type_is_a_violation_at_its_pointer() {
        let err = Valid::<SearchRequest>::parse(
            &json!({ "query": "a", "runnable_only": "yes" }),
            engine().catalog(),
        )
        .unwrap_err();
        let crate::error::Error::Validation { violations, .. } = err else {
            panic!("expected a validation error, got {err:?}");
        };
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert_eq!(violations[0].pointer, "/runnable_only");
        assert!(
            violations[0].message.contains("expected boolean"),
            "{}",
            violations[0].message
        );
    }

    #[test]
    fn the_hint_names_runnable_only_when_it_is_set() {
        let e = engine();
        let on = request(json!({ "query": "a", "runnable_only": true }));
        let hint = e.filters_hint(&on, 13);
        assert!(
            hint.starts_with(&format!("filters leave 13 of {} tools;", e.catalog().len())),
            "{hint}"
        );
        assert!(
            hint.contains("runnable_only keeps only the 13 tools toolscout runs"),
            "{hint}"
        );
        let off = request(json!({ "query": "a", "category": "code_search" }));
        assert!(!e.filters_hint(&off, 9).contains("runnable_only"));
    }
}
