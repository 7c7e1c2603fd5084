//! `toolscout catalog import`: an upstream MCP server's tools as catalog entries a maintainer
//! can curate, one JSON document per tool in the shape of `schemas/tool.schema.json`. Each
//! holds what the server gives (name, title, description, input and output schemas,
//! annotations, where it came from) plus an id and a category (inferred from the catalog's
//! own), and nothing invented: the validator's warnings then list what to write by hand
//! (examples, when to use it, keywords, relations).

use super::{category, slug, upstream};
use crate::catalog::ToolRecord;
use crate::config::CatalogSource;
use crate::embed::Embedder;
use crate::error::Result;
use serde_json::{json, Map, Value};

/// One imported tool: its id, category and the document to write.
#[derive(Debug, Clone)]
pub struct Imported {
    pub tool_id: String,
    pub category: String,
    pub document: Value,
}

/// Lists `source`'s tools and makes a catalog document of each. Ids are `<source>_<tool>`
/// (the catalog's id alphabet: lowercase letters, digits and `_`, at most 64 characters);
/// categories are the nearest of `catalog`'s.
pub async fn import(
    source: &CatalogSource,
    catalog: &[ToolRecord],
    embedder: Option<&dyn Embedder>,
) -> Result<Vec<Imported>> {
    let listing = upstream::list(source).await?;
    let mut records: Vec<ToolRecord> = listing
        .tools
        .iter()
        .map(|tool| {
            let id = catalog_id(&source.name, &tool.name);
            crate::catalog::mcp::record_from_mcp(tool, Some(&listing.server), id, String::new())
        })
        .collect();
    category::infer(&mut records, catalog, embedder, None)?;
    let now = crate::time::now_rfc3339();
    Ok(records
        .iter()
        .map(|r| Imported {
            tool_id: r.tool_id.clone(),
            category: r.category.clone(),
            document: document(r, &now),
        })
        .collect())
}

/// `<source>_<tool>` in the catalog's id alphabet.
fn catalog_id(source: &str, tool: &str) -> String {
    let raw = format!("{}_{}", slug(source), slug(tool)).replace('-', "_");
    let mut id: String = raw.chars().take(64).collect();
    if !id.starts_with(|c: char| c.is_ascii_lowercase()) {
        id = format!("t_{id}").chars().take(64).collect();
    }
    id
}

/// The fields the server gave, as a catalog file holds them.
fn document(r: &ToolRecord, now: &str) -> Value {
    let mut doc = Map::new();
    doc.insert("$schema".into(), json!("../../schemas/tool.schema.json"));
    doc.insert("tool_id".into(), json!(r.tool_id));
    doc.insert("name".into(), json!(r.name));
    if !r.aliases.is_empty() {
        doc.insert("aliases".into(), json!(r.aliases));
    }
    doc.insert("description".into(), json!(r.description));
    doc.insert("category".into(), json!(r.category));
    doc.insert("tool_type".into(), json!("third_party"));
    if !r.parameters.is_empty() {
        doc.insert("parameters".into(), json!(r.parameters));
    }
    doc.insert("input_schema".into(), r.input_schema.clone());
    if let Some(returns) = &r.return_schema {
        doc.insert("return_schema".into(), returns.clone());
    }
    if let Some(annotations) = &r.annotations {
        doc.insert("annotations".into(), annotations.clone());
    }
    if let Some(source) = &r.source {
        doc.insert("source".into(), json!(source));
    }
    doc.insert("created_at".into(), json!(now));
    doc.insert("updated_at".into(), json!(now));
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fit_the_catalog_alphabet() {
        assert_eq!(
            catalog_id("time", "get_current_time"),
            "time_get_current_time"
        );
        assert_eq!(catalog_id("fs", "read-file"), "fs_read_file");
        assert_eq!(catalog_id("9lives", "x"), "t_9lives_x");
        assert_eq!(catalog_id("s", &"x".repeat(100)).len(), 64);
    }
}
