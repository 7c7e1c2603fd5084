//! Catalog records from MCP `tools/list` entries: the tool's name, title, description,
//! `inputSchema` (parameters with their descriptions), `outputSchema` and annotations, plus the
//! server's name and description as context. Fields the upstream does not give stay absent or
//! neutral; nothing is invented. Also the parameter listing some tool sets carry as text
//! ("Parameters: city (string, required): The city.; ...") parsed into the same parameters, so
//! both shapes index the same way.

use super::record::{ParameterDefinition, PerformanceTier, ToolRecord, ToolSource, ToolType};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// One entry of a `tools/list` result, as MCP servers send it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub input_schema: Option<Value>,
    #[serde(default)]
    pub output_schema: Option<Value>,
    #[serde(default)]
    pub annotations: Option<Value>,
}

/// The server a tool comes from: its name and what it says about itself (the `serverInfo`
/// and `instructions` of its initialize result, or a configured description).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct McpServer {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default, alias = "instructions")]
    pub description: Option<String>,
}

/// A catalog record for `tool` under `tool_id`. `category` is the caller's (an inferred or
/// configured one); scores stay at the neutral default.
pub fn record_from_mcp(
    tool: &McpTool,
    server: Option<&McpServer>,
    tool_id: String,
    category: String,
) -> ToolRecord {
    let input_schema = tool
        .input_schema
        .clone()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    let title = tool.title.clone().or_else(|| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get("title"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let mut record = blank_record(tool_id, tool.name.clone(), category);
    record.aliases = title.into_iter().filter(|t| *t != tool.name).collect();
    record.description = tool.description.clone().unwrap_or_default();
    record.parameters = parameters_of(&input_schema);
    record.input_schema = input_schema;
    record.return_schema = tool.output_schema.clone();
    record.annotations = tool.annotations.clone();
    record.source = server.map(|s| ToolSource {
        name: s.name.clone(),
        kind: "mcp".into(),
        title: s.title.clone(),
        description: s.description.clone(),
        category_inferred: false,
    });
    record
}

/// A record with only an id, a name and a category; every other field neutral or empty.
pub fn blank_record(tool_id: String, name: String, category: String) -> ToolRecord {
    ToolRecord {
        tool_id,
        name,
        aliases: Vec::new(),
        description: String::new(),
        category,
        category_inferred: false,
        tool_type: ToolType::ThirdParty,
        version: "0".into(),
        author: None,
        license: None,
        repository_url: None,
        documentation_url: None,
        complexity_score: super::record::DEFAULT_SCORE,
        popularity_score: super::record::DEFAULT_SCORE,
        reliability_score: super::record::DEFAULT_SCORE,
        performance_tier: PerformanceTier::Balanced,
        search_keywords: Vec::new(),
        semantic_tags: Vec::new(),
        parameters: Vec::new(),
        input_schema: json!({"type": "object", "properties": {}}),
        return_schema: None,
        execution: None,
        examples: Vec::new(),
        when_to_use: String::new(),
        usage_patterns: Vec::new(),
        similar_tools: Vec::new(),
        complementary_tools: Vec::new(),
        prerequisite_tools: Vec::new(),
        usage_stats: None,
        annotations: None,
        source: None,
        created_at: "1970-01-01T00:00:00Z".into(),
        updated_at: "1970-01-01T00:00:00Z".into(),
    }
}

/// The parameters a JSON Schema object declares, in the schema's order.
pub fn parameters_of(schema: &Value) -> Vec<ParameterDefinition> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, p)| ParameterDefinition {
            name: name.clone(),
            kind: type_name(p),
            required: required.contains(&name.as_str()),
            description: p
                .get("description")
                .or_else(|| p.get("title"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            default_value: p.get("default").cloned(),
            validation_rules: Vec::new(),
            examples: p
                .get("examples")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            constraints: constraints_of(p),
            deprecated: p.get("deprecated").and_then(Value::as_bool) == Some(true),
            deprecation_message: None,
        })
        .collect()
}

/// A property's type as one word (`string`, `integer|null`, `object`); "any" when the schema
/// gives none.
fn type_name(p: &Value) -> String {
    match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if p.get("enum").is_some() => "string".into(),
        _ => "any".into(),
    }
}

/// The keywords of a property that constrain its values (enum, format, pattern, ranges).
fn constraints_of(p: &Value) -> Option<Value> {
    const KEYS: [&str; 7] = [
        "enum",
        "format",
        "pattern",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
    ];
    let map: Map<String, Value> = KEYS
        .iter()
        .filter_map(|k| p.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// Parses a parameter listing written as text, "Parameters: name (type, required):
/// description; name (type): description" with an optional trailing "Returns: ...", into a
/// JSON Schema object ("Parameters: none" gives one without properties). `None` when the
/// text is not such a listing (then it is guidance).
pub fn schema_from_listing(text: &str) -> Option<(Value, Option<String>)> {
    let rest = text.trim().strip_prefix("Parameters:")?;
    let (params, returns) = match rest.find(" Returns:") {
        Some(i) => (
            &rest[..i],
            Some(rest[i + " Returns:".len()..].trim().to_string()),
        ),
        None => (rest, None),
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for entry in split_entries(params) {
        let Some((head, description)) = entry.split_once("):") else {
            continue;
        };
        let Some((name, kind)) = head.split_once(" (") else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || name.contains(' ') {
            continue;
        }
        let mut parts = kind.split(',').map(str::trim);
        let ty = json_type(parts.next().unwrap_or_default());
        if parts.any(|p| p == "required") {
            required.push(Value::String(name.to_string()));
        }
        properties.insert(
            name.to_string(),
            json!({"type": ty, "description": description.trim()}),
        );
    }
    let schema = json!({"type": "object", "properties": properties, "required": required});
    Some((schema, returns.filter(|r| !r.is_empty())))
}

/// Entries of a listing: separated by "; " where the next entry starts "name (".
fn split_entries(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices("; ") {
        let next = &text[i + 2..];
        let starts_entry = next
            .split_once(" (")
            .is_some_and(|(n, _)| !n.is_empty() && !n.contains(' '));
        if starts_entry && i >= start {
            out.push(text[start..i].trim());
            start = i + 2;
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|e| !e.is_empty()).collect()
}

/// A JSON Schema type for a type word of a listing (Python, Java and JSON spellings).
fn json_type(word: &str) -> &'static str {
    match word.to_ascii_lowercase().as_str() {
        "str" | "string" | "char" => "string",
        "int" | "integer" | "long" | "short" => "integer",
        "float" | "double" | "number" => "number",
        "bool" | "boolean" => "boolean",
        "list" | "array" | "tuple" | "arraylist" => "array",
        "dict" | "object" | "hashmap" | "map" => "object",
        _ => "string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_entry_keeps_what_it_gives() {
        let tool: McpTool = serde_json::from_value(json!({
            "name": "get_current_time",
            "title": "Current time",
            "description": "Get the current time in a timezone.",
            "inputSchema": {"type": "object", "properties": {
                "timezone": {"type": "string", "description": "IANA timezone name"}},
                "required": ["timezone"]},
            "annotations": {"readOnlyHint": true}
        }))
        .unwrap();
        let server = McpServer {
            name: "time".into(),
            title: None,
            description: Some("Time and timezone conversion".into()),
        };
        let r = record_from_mcp(
            &tool,
            Some(&server),
            "time.get_current_time".into(),
            "x".into(),
        );
        assert_eq!(r.aliases, vec!["Current time".to_string()]);
        assert_eq!(r.parameters.len(), 1);
        assert!(r.parameters[0].required);
        assert_eq!(r.parameters[0].kind, "string");
        assert_eq!(r.annotations.unwrap()["readOnlyHint"], json!(true));
        assert_eq!(r.source.unwrap().name, "time");
        assert!(r.return_schema.is_none());
    }

    #[test]
    fn a_listing_becomes_a_schema() {
        let (schema, returns) = schema_from_listing(
            "Parameters: user_id (str): The id; of a user.; start_time (str, required): \
             Format: %Y-%m-%d Returns: health_data (list): The data.",
        )
        .unwrap();
        let props = schema["properties"].as_object().unwrap();
        assert_eq!(props.len(), 2);
        assert_eq!(props["user_id"]["description"], "The id; of a user.");
        assert_eq!(schema["required"], json!(["start_time"]));
        assert_eq!(returns.as_deref(), Some("health_data (list): The data."));
        assert!(schema_from_listing("Use this for weather.").is_none());
        let (none, returns) = schema_from_listing("Parameters: none Returns: x (str): X.").unwrap();
        assert!(none["properties"].as_object().unwrap().is_empty());
        assert!(returns.is_some());
    }

    #[test]
    fn odd_listings_never_panic() {
        for text in [
            "Parameters:",
            "Parameters: ; ; (",
            "Parameters: é (Ⱥ): ; x (",
            "Parameters: a (int):",
        ] {
            let _ = schema_from_listing(text);
        }
    }
}
