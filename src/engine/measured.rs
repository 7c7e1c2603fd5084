//! What toolscout measured of its tools' real executions, as the engine shows and weighs it:
//! per tool that ran here, its uses, success rate and latency (shown as `usage_stats` on
//! detailed search hits), and whether it ran `[usage] min_calls` times (only then does its
//! success rate move recommend's reliability). The service computes the map from the usage
//! store and swaps it in whole (an `Arc` behind a lock held only to clone or replace it), so
//! ranking stays a pure function of the catalog snapshot, the request and this map.

use super::Engine;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A tool's use as measured here: the required fields of the tool schema's
/// `UsageStatistics`, and the average latency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredUse {
    pub total_uses: u64,
    pub successful_uses: u64,
    pub failed_uses: u64,
    pub success_rate: f64,
    /// Milliseconds.
    pub average_execution_time: f64,
    /// The last execution (RFC 3339).
    pub last_updated: String,
    /// It ran `[usage] min_calls` times: ranking may weigh it.
    #[serde(skip)]
    pub weighed: bool,
}

impl MeasuredUse {
    /// The measured success rate, when there are enough runs to weigh it.
    pub fn weighed_success(&self) -> Option<f64> {
        self.weighed.then_some(self.success_rate)
    }
}

/// Measured use by tool id.
pub type MeasuredUses = BTreeMap<String, MeasuredUse>;

/// What ranking weighs of measured figures: the weighed tools' success rates, in 0.1%.
fn weighed_view(measured: &MeasuredUses) -> Vec<(&str, i64)> {
    measured
        .iter()
        .filter_map(|(id, m)| Some((id.as_str(), (m.weighed_success()? * 1000.0).round() as i64)))
        .collect()
}

impl Engine {
    /// Replaces the measured figures the engine weighs. When what ranking weighs of them
    /// changes (which tools are weighed, their success rates to 0.1%), the learning
    /// generation moves on, so cached answers ranked on the old figures are not served.
    pub fn set_measured(&self, measured: MeasuredUses) {
        let mut slot = self.measured.write().unwrap_or_else(|e| e.into_inner());
        if weighed_view(&slot) != weighed_view(&measured) {
            self.measured_generation.fetch_add(1, Ordering::Relaxed);
        }
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

    fn measured_use(success_rate: f64, uses: u64) -> MeasuredUse {
        let successful = (success_rate * uses as f64).round() as u64;
        MeasuredUse {
            total_uses: uses,
            successful_uses: successful,
            failed_uses: uses - successful,
            success_rate,
            average_execution_time: 12.0,
            last_updated: "2026-11-26T12:00:00.000Z".into(),
            weighed: true,
        }
    }

    #[test]
    fn the_map_is_swapped_whole() {
        let engine = crate::engine::compare::tests::engine_for_tests();
        assert!(engine.measured().get("ripgrep").is_none());
        let one = measured_use(0.5, 40);
        engine.set_measured(BTreeMap::from([("ripgrep".to_string(), one.clone())]));
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
        let failing = measured_use(0.05, 80);
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
