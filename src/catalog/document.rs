//! What gets indexed for a tool: per-field text for BM25 and a few passages for embeddings.
//! One pure function (`ToolDocument::from_record`) so the keyword and vector indexes, the eval
//! harness and the tests all see the same text.

use super::record::ToolRecord;
use super::text::{chunk_sentences, group_words, split_identifier};

/// The indexed text of one tool. `ordinal` is the tool's position in the catalog (id order);
/// indexes return ordinals, never ids, so ranking stays cheap and deterministic.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDocument {
    pub ordinal: u32,
    pub tool_id: String,
    /// Name and aliases, each also split into words (`localSearchCode` -> "local search code").
    pub names: String,
    /// Search keywords and semantic tags (tags with dashes as spaces).
    pub keywords: String,
    /// The description.
    pub description: String,
    /// When-to-use guidance.
    pub guidance: String,
    /// Parameter names (split) and descriptions.
    pub parameters: String,
    /// Example titles, use cases and descriptions; usage pattern names and descriptions.
    pub examples: String,
    /// Texts embedded separately; a tool scores by its best passage.
    pub passages: Vec<Passage>,
}

/// One embedded text of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub kind: PassageKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PassageKind {
    /// "<name words>: <description>": the tool's main statement.
    Summary,
    /// One search phrase of several words, or the one-word keywords as a list.
    Keywords,
    /// A chunk of the when-to-use guidance (long guidance is split into sentence groups).
    Guidance,
    /// One example's use case and title.
    Example,
    /// A group of parameters ("name (type): description; ...") and what the tool returns.
    Parameters,
}

impl PassageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PassageKind::Summary => "summary",
            PassageKind::Keywords => "keywords",
            PassageKind::Guidance => "guidance",
            PassageKind::Example => "example",
            PassageKind::Parameters => "parameters",
        }
    }
}

impl ToolDocument {
    pub fn from_record(ordinal: u32, tool: &ToolRecord) -> ToolDocument {
        let parameters = tool
            .parameters
            .iter()
            .map(|p| format!("{}: {}", split_identifier(&p.name).join(" "), p.description))
            .chain(returns_text(tool).map(|r| format!("returns: {r}")))
            .collect::<Vec<_>>()
            .join("\n");
        let mut examples: Vec<String> = tool
            .examples
            .iter()
            .map(|e| format!("{}. {}. {}", e.title, e.use_case, e.description))
            .collect();
        examples.extend(
            tool.usage_patterns
                .iter()
                .map(|p| format!("{}. {}", p.name, p.description)),
        );
        let names = name_field(tool);
        let keywords = keyword_field(tool);
        let passages = passages(tool);
        ToolDocument {
            ordinal,
            tool_id: tool.tool_id.clone(),
            names,
            keywords,
            description: tool.description.clone(),
            guidance: match tool.source.as_ref().and_then(|s| s.description.as_ref()) {
                Some(d) if !tool.when_to_use.is_empty() => format!("{}\n{d}", tool.when_to_use),
                Some(d) => d.clone(),
                None => tool.when_to_use.clone(),
            },
            parameters,
            examples: examples.join("\n"),
            passages,
        }
    }
}

/// Every name of a tool (id, name, aliases), each also split into words where that differs
/// ("localSearchCode" -> "local search code").
fn name_field(tool: &ToolRecord) -> String {
    let mut names = Vec::new();
    for name in tool.names().chain(std::iter::once(tool.tool_id.as_str())) {
        names.push(name.to_string());
        let words = split_identifier(name).join(" ");
        if words != name.to_lowercase() {
            names.push(words);
        }
    }
    names.dedup();
    names.join("\n")
}

/// Keyword phrases, semantic tags, and the name and title of the tool's source.
fn keyword_field(tool: &ToolRecord) -> String {
    let tags = tool.semantic_tags.iter().map(|t| t.replace('-', " "));
    // A tool from an MCP server or a tools file: the server's name and title say what
    // it belongs to ("github", "slack") as a catalog's keywords do, and the server's
    // description is guidance for every tool it serves. Keyword evidence only: one
    // shared passage per server would tie all of its tools on meaning.
    let source_names = tool
        .source
        .iter()
        .flat_map(|s| std::iter::once(s.name.clone()).chain(s.title.clone()));
    tool.search_keywords
        .iter()
        .cloned()
        .chain(source_names)
        .chain(tags)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The passages embedded for a tool: its summary, keyword phrases, guidance in chunks,
/// parameters in groups, and examples.
fn passages(tool: &ToolRecord) -> Vec<Passage> {
    let display = split_identifier(&tool.name).join(" ");
    let mut passages = vec![Passage {
        kind: PassageKind::Summary,
        text: format!("{display}: {}", tool.description),
    }];
    passages.extend(keyword_passages(&display, &tool.search_keywords));
    passages.extend(
        chunk_sentences(&tool.when_to_use, GUIDANCE_CHUNK_WORDS)
            .into_iter()
            .map(|text| Passage {
                kind: PassageKind::Guidance,
                text,
            }),
    );
    passages.extend(parameter_passages(tool));
    passages.extend(tool.examples.iter().map(|e| Passage {
        kind: PassageKind::Example,
        text: format!("{}: {}", e.title, e.use_case),
    }));
    passages
}

/// The parameters as passages of about `GUIDANCE_CHUNK_WORDS` words, "name (type):
/// description" each, what the tool returns at the end. A request names the values it has
/// ("a triangle with base 10 and height 5") and a parameter list says which tool takes
/// them: on bfcl's tune half these passages took semantic NDCG@5 from 61.4 to 68.1, and
/// with the returns apibank's from 60.7 to 64.5; one passage of every parameter blurred
/// (66.9 and 62.1).
///
/// A tool that describes none of its parameters gets none of them here (their names are in
/// the keyword field): bare names ("id (string): ; page (integer): ") meet no request, yet
/// a tool's cosine blends its summary with its best other passage. Among described ones a
/// bare name stays, read with them. Gains in MCP shape: README, "Retrieval quality".
fn parameter_passages(tool: &ToolRecord) -> Vec<Passage> {
    let described = tool
        .parameters
        .iter()
        .any(|p| !p.description.trim().is_empty());
    let parameters = if described { &tool.parameters[..] } else { &[] };
    let items: Vec<String> = parameters
        .iter()
        .map(|p| {
            format!(
                "{} ({}): {}",
                split_identifier(&p.name).join(" "),
                p.kind,
                p.description
            )
        })
        .chain(returns_text(tool).map(|r| format!("returns {r}")))
        .collect();
    let out = group_words(items.iter().map(String::as_str), GUIDANCE_CHUNK_WORDS, "; ");
    out.into_iter()
        .map(|text| Passage {
            kind: PassageKind::Parameters,
            text,
        })
        .collect()
}

/// What a tool returns, in words: its return schema's description, or its properties'
/// names and descriptions.
fn returns_text(tool: &ToolRecord) -> Option<String> {
    let schema = tool.return_schema.as_ref()?;
    if let Some(d) = schema.get("description").and_then(|d| d.as_str()) {
        return Some(d.to_string());
    }
    let props = schema.get("properties")?.as_object()?;
    let parts: Vec<String> = props
        .iter()
        .map(|(name, p)| {
            let d = p
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or_default();
            format!("{}: {d}", split_identifier(name).join(" "))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The keyword passages: each phrase of two words or more on its own, the one-word keywords
/// together as "<name>: a, b, c". A catalog's search phrases are written as users ask ("where
/// is this defined"), and a short query lands close to its own phrase but not to the mean of
/// ten. Measured on the shipped catalog, its 306 example use cases held out as queries (example
/// passages left out), semantic ranking only: NDCG@5 48.3 with all keywords in one passage, 54.9
/// with a passage a phrase (R@1 32.7 -> 39.9); the name in front of each phrase lost half of
/// that. A single word is a poor target for a sentence model and BM25 matches it exactly, so
/// one-word keywords keep one passage.
fn keyword_passages(display: &str, keywords: &[String]) -> Vec<Passage> {
    let (phrases, words): (Vec<&String>, Vec<&String>) = keywords
        .iter()
        .filter(|k| !k.trim().is_empty())
        .partition(|k| k.split_whitespace().count() >= 2);
    let mut out: Vec<Passage> = phrases
        .into_iter()
        .map(|k| Passage {
            kind: PassageKind::Keywords,
            text: k.trim().to_string(),
        })
        .collect();
    if !words.is_empty() {
        let list: Vec<&str> = words.iter().map(|w| w.trim()).collect();
        out.push(Passage {
            kind: PassageKind::Keywords,
            text: format!("{display}: {}", list.join(", ")),
        });
    }
    out
}

/// Guidance is embedded in chunks of about this many words: the model truncates long inputs
/// and a long text's mean-pooled vector blurs its separate points.
const GUIDANCE_CHUNK_WORDS: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_phrases_are_passages_of_their_own_and_single_words_share_one() {
        let kw = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let texts = |p: Vec<Passage>| {
            assert!(p.iter().all(|p| p.kind == PassageKind::Keywords));
            p.into_iter().map(|p| p.text).collect::<Vec<_>>()
        };
        assert_eq!(
            texts(keyword_passages(
                "lsp goto definition",
                &kw(&[
                    "go to definition",
                    "lsp",
                    " where is this defined ",
                    "",
                    "navigate"
                ])
            )),
            [
                "go to definition",
                "where is this defined",
                "lsp goto definition: lsp, navigate"
            ]
        );
        assert_eq!(
            texts(keyword_passages("x", &kw(&["grep", "regex"]))),
            ["x: grep, regex"]
        );
        assert!(keyword_passages("x", &[]).is_empty());
    }

    #[test]
    fn parameters_returns_and_the_server_are_indexed() {
        use crate::catalog::mcp::{record_from_mcp, McpServer, McpTool};
        let tool: McpTool = serde_json::from_value(serde_json::json!({
            "name": "create_issue",
            "description": "Open an issue.",
            "inputSchema": {"type": "object", "properties": {
                "repo": {"type": "string", "description": "owner/repo"},
                "title": {"type": "string", "description": "Issue title"}}},
            "outputSchema": {"type": "object", "properties": {
                "url": {"type": "string", "description": "Link to the issue"}}}
        }))
        .unwrap();
        let server = McpServer {
            name: "github".into(),
            title: None,
            description: Some("GitHub's API".into()),
        };
        let r = record_from_mcp(
            &tool,
            Some(&server),
            "github.create_issue".into(),
            "c".into(),
        );
        let d = ToolDocument::from_record(0, &r);
        let params: Vec<&str> = d
            .passages
            .iter()
            .filter(|p| p.kind == PassageKind::Parameters)
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(
            params,
            ["repo (string): owner/repo; title (string): Issue title; returns url: Link to the issue"]
        );
        assert!(
            d.parameters.contains("returns: url: Link to the issue"),
            "{}",
            d.parameters
        );
        assert!(d.keywords.contains("github"), "{}", d.keywords);
        assert_eq!(d.guidance, "GitHub's API");
    }

    #[test]
    fn parameters_without_any_description_are_not_embedded() {
        use crate::catalog::mcp::{record_from_mcp, McpTool};
        let tool = |props: serde_json::Value| -> ToolRecord {
            let t: McpTool = serde_json::from_value(serde_json::json!({
                "name": "search_repositories", "description": "Find repositories.",
                "inputSchema": {"type": "object", "properties": props}
            }))
            .unwrap();
            record_from_mcp(&t, None, "s".into(), "c".into())
        };
        let params = |r: &ToolRecord| -> Vec<String> {
            ToolDocument::from_record(0, r)
                .passages
                .into_iter()
                .filter(|p| p.kind == PassageKind::Parameters)
                .map(|p| p.text)
                .collect()
        };
        let bare = tool(serde_json::json!({"id": {"type": "string"},
            "researchGoal": {"type": "string", "description": "  "}}));
        assert!(params(&bare).is_empty());
        // Still words of the keyword field.
        let d = ToolDocument::from_record(0, &bare);
        assert!(d.parameters.contains("research goal"), "{}", d.parameters);
        let mixed = tool(serde_json::json!({"id": {"type": "string"},
            "owner": {"type": "string", "description": "Repository owner"}}));
        assert_eq!(
            params(&mixed),
            ["id (string): ; owner (string): Repository owner"]
        );
    }
}
