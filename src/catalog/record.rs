//! The typed form of one catalog entry (`ToolRecord`). Files are checked against
//! `schemas/tool.schema.json` before they are parsed into this type, so inner code can trust
//! every field; serde here only maps names.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Value a score takes when the file leaves it out (the validator warns about it).
pub const DEFAULT_SCORE: f64 = 0.5;

fn default_score() -> f64 {
    DEFAULT_SCORE
}

// What a hand-written entry that leaves a field out gets (the validator warns about each;
// only id, name, description and category are required).
fn default_tool_type() -> ToolType {
    ToolType::Custom
}

fn default_tier() -> PerformanceTier {
    PerformanceTier::Balanced
}

fn default_input_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolType {
    System,
    Custom,
    ThirdParty,
    Experimental,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerformanceTier {
    Fast,
    Balanced,
    Comprehensive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComplexityLevel {
    Simple,
    Medium,
    Complex,
}

/// One tool of the catalog, as written by its maintainers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRecord {
    pub tool_id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub description: String,
    /// Empty until inferred when the file gives none (see `category_inferred`).
    #[serde(default)]
    pub category: String,
    /// The category was inferred at load (the nearest of the catalog's own by meaning): the
    /// file gave none. Computed, never read from a file; an upstream tool says the same in
    /// its `source`.
    #[serde(
        default,
        skip_deserializing,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub category_inferred: bool,
    #[serde(default = "default_tool_type")]
    pub tool_type: ToolType,
    #[serde(default)]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    #[serde(default = "default_score")]
    pub complexity_score: f64,
    #[serde(default = "default_score")]
    pub popularity_score: f64,
    #[serde(default = "default_score")]
    pub reliability_score: f64,
    #[serde(default = "default_tier")]
    pub performance_tier: PerformanceTier,
    #[serde(default)]
    pub search_keywords: Vec<String>,
    #[serde(default)]
    pub semantic_tags: Vec<String>,
    #[serde(default)]
    pub parameters: Vec<ParameterDefinition>,
    #[serde(default = "default_input_schema")]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Execution>,
    #[serde(default)]
    pub examples: Vec<ToolExample>,
    #[serde(default)]
    pub when_to_use: String,
    #[serde(default)]
    pub usage_patterns: Vec<UsagePattern>,
    #[serde(default)]
    pub similar_tools: Vec<String>,
    #[serde(default)]
    pub complementary_tools: Vec<String>,
    #[serde(default)]
    pub prerequisite_tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_stats: Option<Value>,
    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`, `title`) as the tool's server declares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Where the record comes from, when not a hand-written catalog file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ToolSource>,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
}

impl ToolRecord {
    /// Every relation this tool declares: the field, the position in it, the id.
    pub fn relations(&self) -> impl Iterator<Item = (&'static str, usize, &str)> {
        fn list<'a>(
            field: &'static str,
            ids: &'a [String],
        ) -> impl Iterator<Item = (&'static str, usize, &'a str)> {
            ids.iter()
                .enumerate()
                .map(move |(i, id)| (field, i, id.as_str()))
        }
        list("similar_tools", &self.similar_tools)
            .chain(list("complementary_tools", &self.complementary_tools))
            .chain(list("prerequisite_tools", &self.prerequisite_tools))
    }

    /// The name and every alias: the strings an exact lookup matches.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.aliases.iter().map(String::as_str))
    }

    pub fn is_executable(&self) -> bool {
        self.execution.is_some()
    }

    /// How to run the tool in toolscout (`POST /tools/call/localSearchCode`), for the tools it
    /// executes itself or forwards to their MCP server (by id: `POST /tools/call/time.now`);
    /// search hits and workflow steps carry it.
    pub fn call_route(&self) -> Option<String> {
        let e = self.execution.as_ref()?;
        if e.kind == "mcp" {
            return Some(format!("POST /tools/call/{}", self.tool_id));
        }
        crate::builtin::is_builtin(&e.name).then(|| format!("POST /tools/call/{}", e.name))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterDefinition {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub required: bool,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validation_rules: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Value>,
    #[serde(default)]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_message: Option<String>,
}

/// The source of a record: an MCP server (its name and what it says about itself) or a tools
/// file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSource {
    pub name: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The record's category was inferred (the nearest of the catalog's own), not given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub category_inferred: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    pub kind: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolExample {
    pub id: String,
    pub title: String,
    pub description: String,
    pub use_case: String,
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    pub complexity_level: ComplexityLevel,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prerequisites: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_examples: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsagePattern {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub tool_sequence: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<String>,
}
