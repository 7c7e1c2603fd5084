//! The workflow: recommended tools as an ordered chain. Tools go in the order of the steps
//! they serve; a tool the catalog lists as another's prerequisite goes before it; and each
//! tool says which values it can take from the tools before it, by matching the fields of
//! their return schemas with its parameters.

use crate::catalog::ToolRecord;
use serde_json::Value;

/// Fields of earlier results that can fill a parameter, by parameter name: a search hit's
/// `path` is the `uri` an LSP lookup wants, its `line` the `lineHint`.
const FEEDS: &[(&str, &[&str])] = &[
    ("uri", &["uri", "path", "file", "filePath"]),
    ("path", &["path", "localPath", "file", "filePath", "uri"]),
    ("lineHint", &["line", "lineNumber", "startLine", "lineHint"]),
    ("startLine", &["line", "lineNumber", "startLine"]),
    ("symbolName", &["symbolName", "name", "symbol"]),
    ("owner", &["owner"]),
    ("repo", &["repo", "repository"]),
    ("branch", &["branch", "defaultBranch", "ref"]),
    ("prNumber", &["number", "prNumber"]),
    ("packageName", &["name", "packageName"]),
];

/// One tool of the chain before ordering: where it came from.
pub struct Link<'a> {
    pub tool: &'a ToolRecord,
    /// 0-based step served; `usize::MAX` when it serves the task as a whole.
    pub step: usize,
    pub purpose: String,
}

/// Orders the chain: by step, then a stable pass that moves each tool after the tools the
/// catalog lists as its prerequisites (when they are in the chain). Returns the links in
/// order with a note for each tool that moved.
pub fn order<'a>(mut links: Vec<Link<'a>>) -> Vec<(Link<'a>, Option<String>)> {
    links.sort_by_key(|l| l.step);
    let mut out: Vec<(Link<'a>, Option<String>)> = Vec::new();
    let mut pending: Vec<Link<'a>> = links;
    // Repeatedly take the first pending tool none of whose in-chain prerequisites is still
    // pending; a cycle (which catalog validation reports) falls back to step order.
    while !pending.is_empty() {
        let ready = pending.iter().position(|l| {
            !l.tool.prerequisite_tools.iter().any(|p| {
                pending
                    .iter()
                    .any(|other| &other.tool.tool_id == p && other.tool.tool_id != l.tool.tool_id)
            })
        });
        let i = ready.unwrap_or(0);
        let link = pending.remove(i);
        let note = (i > 0).then(|| {
            format!(
                "moved ahead of {}: the catalog lists it as a prerequisite of a later tool",
                pending
                    .iter()
                    .take(i)
                    .map(|l| l.tool.tool_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        out.push((link, note));
    }
    out
}

/// What `tool` can take from the earlier tools: "field (earlier_tool) -> parameter".
pub fn inputs_from(tool: &ToolRecord, earlier: &[&ToolRecord]) -> Vec<String> {
    let mut out = Vec::new();
    for param in &tool.parameters {
        let Some((_, sources)) = FEEDS.iter().find(|(p, _)| *p == param.name) else {
            continue;
        };
        // The nearest earlier tool that returns one of the fields wins.
        for prev in earlier.iter().rev() {
            let fields = return_fields(prev);
            if let Some(field) = sources.iter().find(|s| fields.iter().any(|f| f == *s)) {
                out.push(format!("{field} ({}) -> {}", prev.tool_id, param.name));
                break;
            }
        }
    }
    out
}

/// The property names at the top of a tool's return schema (of its items, when it returns
/// a list): what the tool returns, without the parts of each thing.
pub fn top_return_fields(tool: &ToolRecord) -> Vec<String> {
    let Some(mut schema) = tool.return_schema.as_ref() else {
        return Vec::new();
    };
    if let Some(items) = schema.get("items") {
        schema = items;
    }
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Every property name anywhere in a tool's return schema.
pub fn return_fields(tool: &ToolRecord) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(schema) = &tool.return_schema {
        collect(schema, &mut out);
    }
    out
}

fn collect(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, sub) in props {
                    if !out.contains(name) {
                        out.push(name.clone());
                    }
                    collect(sub, out);
                }
            }
            for key in ["items", "additionalProperties"] {
                if let Some(sub) = map.get(key) {
                    collect(sub, out);
                }
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(list)) = map.get(key) {
                    list.iter().for_each(|s| collect(s, out));
                }
            }
        }
        Value::Array(list) => list.iter().for_each(|s| collect(s, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn shipped() -> Catalog {
        let dir = crate::config::default_dir("catalog");
        Catalog::load(&dir).expect("shipped catalog loads").0
    }

    #[test]
    fn prerequisites_move_ahead_and_search_feeds_lsp() {
        let catalog = shipped();
        let search = catalog.get("local_search_code").unwrap();
        let refs = catalog.get("lsp_find_references").unwrap();
        // The LSP tool came first by step; the search tool is its prerequisite.
        let ordered = order(vec![
            Link {
                tool: refs,
                step: 0,
                purpose: "a".into(),
            },
            Link {
                tool: search,
                step: 1,
                purpose: "b".into(),
            },
        ]);
        let ids: Vec<&str> = ordered
            .iter()
            .map(|(l, _)| l.tool.tool_id.as_str())
            .collect();
        assert_eq!(ids, ["local_search_code", "lsp_find_references"]);
        assert!(ordered[0]
            .1
            .as_deref()
            .unwrap()
            .contains("lsp_find_references"));
        let feeds = inputs_from(refs, &[search]);
        assert!(
            feeds.iter().any(|f| f.ends_with("-> uri"))
                && feeds.iter().any(|f| f.ends_with("-> lineHint")),
            "{feeds:?}"
        );
    }
}
