//! The tool that follows the first pick, read from schemas: one that takes what the first
//! pick returns (a provider's details after a provider search, enrolment in a trial after a
//! trial search, a reminder's details after setting it). A task names the tool it wants; the
//! tool that uses its result is the part of the workflow it leaves implied, and no split of
//! its text finds that.
//!
//! A link is a returned field of one tool and a needed parameter of the other that share a
//! content word (stemmed identifier parts; words such as `id` or `name` say how a value is
//! shaped, not what it is). The first pick's returned fields are searched for (one search
//! each), and the best hit with such a link joins the picks in the last place.
//!
//! Measured and not taken: the other direction, a tool returning what the first pick needs
//! and the task does not give (a location getter before a store locator). Tune halves, all
//! gold in five on the multi-tool queries: apibank 50.0 unchanged (gold recall 74.3 -> 73.8),
//! agent requests 96.8 -> 93.5.

use super::{Kind, Retrieval};
use crate::catalog::{ParameterDefinition, ToolRecord};
use crate::index::keyword::analyze;

/// Stemmed words of field and parameter names that say how a value is shaped, not what it
/// is.
#[rustfmt::skip]
const SHAPE_WORDS: &[&str] = &[
    "id", "name", "type", "info", "inform", "detail", "data", "valu", "list", "result",
    "status", "number", "count", "get", "set", "new", "current", "key", "option", "filter",
    "limit", "page", "format", "text", "string", "time", "date", "to", "from", "start", "end",
    "api",
];

/// Most returned fields of the first pick searched for a follower.
pub(super) const MAX_LINK_QUERIES: usize = 3;

/// The least similarity of a follower to the field searched for: below it a shared word is
/// more likely chance than a use. Tune halves, all gold in five on the multi-tool queries:
/// 0 and 0.3 give apibank 54.4 (from 50.0 without followers), 0.5 and 0.6 52.9; the agent
/// requests 96.8 at every floor.
pub(super) const LINK_FLOOR: f64 = 0.3;

/// A follower of the first pick: which of its returned fields feeds which parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Link {
    /// The first pick.
    pub from: String,
    pub field: String,
    pub parameter: String,
}

impl Link {
    /// As a match reason.
    pub(super) fn reason(&self) -> String {
        format!(
            "takes the {} that {} returns, as its {} parameter: the task's next step",
            self.field, self.from, self.parameter
        )
    }

    /// As a workflow input: "field (tool) -> parameter".
    pub(super) fn input(&self) -> String {
        format!("{} ({}) -> {}", self.field, self.from, self.parameter)
    }
}

/// The parameters a tool needs: its required ones, or all of them when its schema marks none
/// (listings that do not say which are optional).
fn needed(tool: &ToolRecord) -> impl Iterator<Item = &ParameterDefinition> {
    let marked = tool.parameters.iter().any(|p| p.required);
    tool.parameters
        .iter()
        .filter(move |p| p.required || !marked)
}

/// The content words of a field or parameter name.
fn content(name: &str) -> Vec<String> {
    let mut words = analyze(name);
    words.retain(|w| w.len() > 1 && !SHAPE_WORDS.contains(&w.as_str()));
    words.sort();
    words.dedup();
    words
}

/// The link from `from`'s returned fields to a needed parameter of `to`, if any.
pub(super) fn link(from: &ToolRecord, to: &ToolRecord) -> Option<Link> {
    let fields: Vec<(String, Vec<String>)> = super::workflow::return_fields(from)
        .into_iter()
        .map(|f| {
            let words = content(&f);
            (f, words)
        })
        .collect();
    needed(to).find_map(|p| {
        let words = content(&p.name);
        fields
            .iter()
            .find(|(_, f)| f.iter().any(|w| words.contains(w)))
            .map(|(field, _)| Link {
                from: from.tool_id.clone(),
                field: field.clone(),
                parameter: p.name.clone(),
            })
    })
}

/// What to search for the first pick's followers: its returned fields, by name.
pub(super) fn queries(top: &ToolRecord) -> Vec<String> {
    super::workflow::top_return_fields(top)
        .iter()
        .filter(|f| !content(f).is_empty())
        .take(MAX_LINK_QUERIES)
        .map(|f| f.replace(['_', '-'], " "))
        .collect()
}

/// The best hit of the link searches that follows `top` and is not picked yet (ties by id),
/// with its link.
pub(super) fn follower(
    retrievals: &[Retrieval],
    top: &ToolRecord,
    picks: &[String],
    catalog: &crate::catalog::Catalog,
) -> Option<(String, Link)> {
    let mut best: Option<(f64, String, Link)> = None;
    for r in retrievals.iter().filter(|r| r.kind == Kind::Link) {
        let found = r.response.results.iter().find_map(|h| {
            if picks.contains(&h.tool_id) || h.similarity_score < LINK_FLOOR {
                return None;
            }
            let link = link(top, catalog.get(&h.tool_id)?)?;
            Some((h.similarity_score, h.tool_id.clone(), link))
        });
        if let Some(f) = found {
            let better = best
                .as_ref()
                .is_none_or(|b| f.0 > b.0 || (f.0 == b.0 && f.1 < b.1));
            if better {
                best = Some(f);
            }
        }
    }
    best.map(|(_, id, link)| (id, link))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(id: &str, params: &[(&str, bool)], returns: serde_json::Value) -> ToolRecord {
        let mut t = crate::catalog::mcp::blank_record(id.into(), id.into(), "eval".into());
        let properties: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|(name, _)| ((*name).to_string(), json!({"type": "string"})))
            .collect();
        let required: Vec<&str> = params.iter().filter(|p| p.1).map(|p| p.0).collect();
        t.input_schema = json!({"type": "object", "properties": properties, "required": required});
        t.parameters = crate::catalog::mcp::parameters_of(&t.input_schema);
        t.return_schema = Some(returns);
        t
    }

    #[test]
    fn a_returned_field_links_to_the_parameter_that_names_the_same_thing() {
        let search = tool(
            "FindTrials",
            &[("condition", false)],
            json!({"type": "object", "properties": {"trials": {"type": "array"}}}),
        );
        let enrol = tool("Enroll", &[("trial_id", false)], json!({}));
        let link = link(&search, &enrol).expect("trials feed trial_id");
        assert_eq!(link.input(), "trials (FindTrials) -> trial_id");
        assert!(link.reason().contains("as its trial_id parameter"));
        assert_eq!(queries(&search), vec!["trials".to_string()]);
    }

    #[test]
    fn shape_words_and_optional_parameters_make_no_link() {
        let setter = tool(
            "SetReminder",
            &[],
            json!({"type": "object", "properties": {"reminder_id": {}, "status": {}}}),
        );
        // `id` alone is shared, and `status` is a shape: no link.
        let user = tool(
            "UserInfo",
            &[("user_id", true), ("status", true)],
            json!({}),
        );
        assert_eq!(link(&setter, &user), None);
        // A required parameter elsewhere makes `reminder_id` optional here.
        let details = tool(
            "ReminderDetails",
            &[("reminder_id", false), ("locale", true)],
            json!({}),
        );
        assert_eq!(link(&setter, &details), None);
        let details = tool("ReminderDetails", &[("reminder_id", true)], json!({}));
        assert_eq!(link(&setter, &details).unwrap().parameter, "reminder_id");
        // A field that is only a shape is not searched for.
        assert_eq!(queries(&setter), vec!["reminder id".to_string()]);
    }
}
