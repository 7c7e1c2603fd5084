//! What toolscout measured of its tools' real executions, as the engine weighs it: a success
//! rate per tool that has run `[usage] min_calls` times here. The service computes it from the
//! usage store and swaps it in whole (an `Arc` behind a lock held only to clone or replace
//! it), so ranking stays a pure function of the catalog snapshot, the request and this map.

use super::Engine;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A tool's measured success, and how many executions it was measured over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredUse {
    pub success_rate: f64,
    pub uses: u64,
}

/// Measured use by tool id.
pub type MeasuredUses = BTreeMap<String, MeasuredUse>;

impl Engine {
    /// Replaces the measured figures the engine weighs.
    pub fn set_measured(&self, measured: MeasuredUses) {
        let mut slot = self.measured.write().unwrap_or_else(|e| e.into_inner());
        *slot = Arc::new(measured);
    }

    /// The measured figures now in use.
    pub fn measured(&self) -> Arc<MeasuredUses> {
        self.measured
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_is_swapped_whole() {
        let engine = crate::engine::compare::tests::engine_for_tests();
        assert!(engine.measured().get("ripgrep").is_none());
        let one = MeasuredUse {
            success_rate: 0.5,
            uses: 40,
        };
        engine.set_measured(BTreeMap::from([("ripgrep".to_string(), one)]));
        assert_eq!(engine.measured().get("ripgrep"), Some(&one));
        engine.set_measured(BTreeMap::new());
        assert!(engine.measured().is_empty());
    }

    #[test]
    fn recommend_weighs_a_measured_success_rate_and_says_so() {
        let engine = crate::engine::compare::tests::engine_for_tests();
        let body =
            serde_json::json!({"task_description": "search the code of my project for a regex"});
        let req = crate::engine::Valid::parse(&body, engine.catalog()).unwrap();
        let before = engine.recommend(&req).unwrap();
        let top = before.recommendations[0].clone();
        let id = top.tool.tool_id.clone();
        let failing = MeasuredUse {
            success_rate: 0.05,
            uses: 80,
        };
        engine.set_measured(BTreeMap::from([(id.clone(), failing)]));
        let after = engine.recommend(&req).unwrap();
        let again = after
            .recommendations
            .iter()
            .find(|r| r.tool.tool_id == id)
            .expect("still recommended");
        let reliability =
            |r: &crate::engine::ToolRecommendation| r.score_breakdown.reliability.value;
        assert!(reliability(again) < reliability(&top) - 0.3);
        assert!(again.recommendation_score < top.recommendation_score);
        assert!(
            again
                .recommendation_reasons
                .iter()
                .any(|r| r.contains("5% of its 80 runs here")),
            "{:?}",
            again.recommendation_reasons
        );
    }
}
