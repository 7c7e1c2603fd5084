//! The synthetic catalogs of the search bench: tools named and described from a Zipf
//! vocabulary seeded with real words of the tool domain (the fake embedder is `embedder.rs`).

use toolscout::catalog::mcp::blank_record;
use toolscout::catalog::{
    ComplexityLevel, ParameterDefinition, PerformanceTier, ToolExample, ToolRecord, ToolType,
};
use toolscout::index::synthetic::SplitMix64;

/// Short agent-style queries. Some have at most three words on purpose: only those take the
/// near-miss-name path of query suggestions, which scans every tool name.
pub const QUERIES: [&str; 20] = [
    "search code for a regex",
    "read a file from github",
    "list open pull requests",
    "run sql query on postgres",
    "convert pdf to text",
    "find files by name",
    "git diff",
    "send http request",
    "parse json output",
    "resize an image",
    "kubernetes pod logs",
    "query a database table",
    "write text to a file",
    "search the web for news",
    "create a docker container",
    "summarize a csv file",
    "translate text",
    "fetch a web page",
    "schedule a cron job",
    "compress a directory",
];

pub const DIM: usize = 384;
pub const VOCABULARY: usize = 4_000;

/// Real words of the tool domain. They are spread over the frequent ranks of the Zipf
/// vocabulary, so the queries' words have realistic posting lists (a few percent to a few
/// tenths of the documents), and tool names start with them, so queries find clusters.
pub const REAL_WORDS: &[&str] = &[
    "search",
    "code",
    "regex",
    "pattern",
    "read",
    "file",
    "files",
    "github",
    "repository",
    "list",
    "open",
    "pull",
    "request",
    "requests",
    "issue",
    "run",
    "sql",
    "query",
    "postgres",
    "mysql",
    "database",
    "table",
    "convert",
    "pdf",
    "text",
    "document",
    "find",
    "name",
    "git",
    "diff",
    "commit",
    "branch",
    "merge",
    "send",
    "http",
    "api",
    "endpoint",
    "parse",
    "json",
    "yaml",
    "xml",
    "output",
    "input",
    "resize",
    "image",
    "photo",
    "video",
    "audio",
    "kubernetes",
    "pod",
    "cluster",
    "logs",
    "log",
    "container",
    "docker",
    "create",
    "delete",
    "update",
    "write",
    "web",
    "page",
    "news",
    "fetch",
    "download",
    "upload",
    "summarize",
    "csv",
    "spreadsheet",
    "translate",
    "language",
    "schedule",
    "cron",
    "job",
    "task",
    "compress",
    "archive",
    "zip",
    "directory",
    "folder",
    "path",
    "content",
    "line",
    "lines",
    "match",
    "replace",
    "edit",
    "format",
    "lint",
    "test",
    "build",
    "deploy",
    "server",
    "client",
    "cloud",
    "storage",
    "bucket",
    "email",
    "message",
    "slack",
    "chat",
    "calendar",
    "event",
    "user",
    "account",
    "auth",
    "token",
    "secret",
    "key",
    "config",
    "settings",
    "metric",
    "monitor",
    "alert",
    "trace",
    "error",
    "debug",
    "profile",
    "memory",
    "cpu",
    "process",
    "shell",
    "command",
    "terminal",
    "script",
    "python",
    "javascript",
    "rust",
    "package",
    "dependency",
    "install",
    "version",
    "release",
    "tag",
    "label",
    "comment",
    "review",
    "report",
    "chart",
    "graph",
    "plot",
    "data",
    "analysis",
    "statistics",
    "model",
    "embedding",
    "vector",
    "index",
    "cache",
    "queue",
    "stream",
    "socket",
    "network",
    "dns",
    "url",
    "link",
    "browser",
    "screenshot",
    "scrape",
    "crawl",
    "html",
    "markdown",
    "notebook",
    "backup",
    "restore",
    "sync",
    "copy",
    "move",
    "rename",
    "permission",
    "status",
    "health",
    "check",
    "validate",
    "schema",
    "transform",
    "filter",
    "sort",
    "aggregate",
    "join",
    "export",
    "import",
    "row",
    "column",
    "record",
    "field",
    "value",
    "date",
    "time",
    "timezone",
    "currency",
    "weather",
    "map",
    "location",
    "geocode",
    "symbol",
    "function",
    "class",
    "definition",
    "reference",
];

pub const CATEGORIES: [&str; 15] = [
    "cloud",
    "code_hosting",
    "code_intelligence",
    "code_search",
    "containers",
    "data_analysis",
    "database",
    "documents",
    "file_system",
    "media",
    "messaging",
    "monitoring",
    "networking",
    "security",
    "web",
];

/// Words the fake embedder skips when it looks for a text's leading content words: what a
/// sentence model also mostly ignores.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of",
    "on", "or", "the", "to", "with",
];

// ---- synthetic catalog ------------------------------------------------------------------

/// Pseudo-English words drawn with a Zipf(1.0) law (as in `benches/keyword.rs`): a handful of
/// very common words, a long tail of rare ones. The first ten are real stop words, then every
/// third rank is a [`REAL_WORDS`] entry until they run out, the rest pseudo-words.
pub struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    pub fn new() -> Words {
        const ONSETS: [&str; 16] = [
            "b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "st", "tr", "gr",
        ];
        const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "ea"];
        const CODAS: [&str; 8] = ["", "n", "r", "s", "t", "x", "ng", "ck"];
        let mut rng = SplitMix64::new(7);
        let mut words: Vec<String> = [
            "the", "a", "to", "of", "and", "in", "for", "is", "with", "on",
        ]
        .map(String::from)
        .to_vec();
        let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
        seen.extend(REAL_WORDS.iter().map(|w| w.to_string()));
        let mut real = REAL_WORDS.iter();
        while words.len() < VOCABULARY {
            if words.len() % 3 == 1 {
                if let Some(w) = real.next() {
                    words.push(w.to_string());
                    continue;
                }
            }
            let mut w = String::new();
            for _ in 0..1 + rng.below(3) {
                w.push_str(ONSETS[rng.below(ONSETS.len())]);
                w.push_str(VOWELS[rng.below(VOWELS.len())]);
                w.push_str(CODAS[rng.below(CODAS.len())]);
            }
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let mut cumulative: Vec<f64> = (0..VOCABULARY)
            .map(|rank| {
                total += 1.0 / (rank + 1) as f64;
                total
            })
            .collect();
        for c in &mut cumulative {
            *c /= total;
        }
        Words { words, cumulative }
    }

    fn word(&self, rng: &mut SplitMix64) -> &str {
        let u = rng.next_f64();
        let rank = self.cumulative.partition_point(|&c| c < u);
        &self.words[rank.min(VOCABULARY - 1)]
    }

    /// A Zipf word that is not a stop word (for names and titles).
    fn content_word(&self, rng: &mut SplitMix64) -> &str {
        loop {
            let w = self.word(rng);
            if !STOP_WORDS.contains(&w) {
                return w;
            }
        }
    }

    fn sentence(&self, rng: &mut SplitMix64, lo: usize, hi: usize) -> String {
        let n = lo + rng.below(hi - lo + 1);
        (0..n).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }
}

fn camel(words: &[&str]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(w);
        } else {
            let mut chars = w.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
    out
}

/// `n` deterministic tools, `tool_00001`..: a camelCase name led by a domain word (60%) or a
/// vocabulary word, a 20-60 word description, 3-5 keywords, 2 tags, 1-3 parameters and 2-3
/// examples whose titles start with the name's first word (so the fake embedder puts all of
/// a tool's passages in its cluster, as a real model puts a tool's passages near each other).
///
/// `when_to_use` is left empty: each guidance chunk is one more vector to embed and insert,
/// and the 100k catalog already has ~450k; the guidance field weighs 0.2 in BM25 anyway.
pub fn synthetic_tools(words: &Words, n: usize) -> Vec<ToolRecord> {
    let mut rng = SplitMix64::new(42);
    (1..=n)
        .map(|i| {
            let head = if rng.below(10) < 6 {
                REAL_WORDS[rng.below(REAL_WORDS.len())].to_string()
            } else {
                words.content_word(&mut rng).to_string()
            };
            let mut parts = vec![head.as_str()];
            let extra: Vec<String> = (0..1 + rng.below(2))
                .map(|_| words.content_word(&mut rng).to_string())
                .collect();
            parts.extend(extra.iter().map(String::as_str));
            let name = camel(&parts);
            let keywords = (0..3 + rng.below(3))
                .map(|_| REAL_WORDS[rng.below(REAL_WORDS.len())].to_string())
                .collect();
            let semantic_tags = (0..2)
                .map(|_| {
                    format!(
                        "{}-{}",
                        REAL_WORDS[rng.below(REAL_WORDS.len())],
                        words.content_word(&mut rng)
                    )
                })
                .collect();
            let parameters = (0..1 + rng.below(3))
                .map(|_| ParameterDefinition {
                    name: camel(&[words.content_word(&mut rng), words.content_word(&mut rng)]),
                    kind: "string".into(),
                    required: rng.below(2) == 0,
                    description: words.sentence(&mut rng, 5, 12),
                    default_value: None,
                    validation_rules: Vec::new(),
                    examples: Vec::new(),
                    constraints: None,
                    deprecated: false,
                    deprecation_message: None,
                })
                .collect();
            let examples = (0..2 + rng.below(2))
                .map(|j| ToolExample {
                    id: format!("ex{j}"),
                    title: format!("{head} {}", words.sentence(&mut rng, 2, 4)),
                    description: words.sentence(&mut rng, 8, 15),
                    use_case: words.sentence(&mut rng, 8, 15),
                    arguments: serde_json::json!({}),
                    code: None,
                    language: None,
                    expected_output: None,
                    complexity_level: ComplexityLevel::Simple,
                    tags: Vec::new(),
                    prerequisites: None,
                    notes: None,
                    related_examples: None,
                })
                .collect();
            // Field by field in the order the generator draws them, so the catalog stays the
            // one earlier runs measured.
            let description = words.sentence(&mut rng, 20, 60);
            let category = CATEGORIES[rng.below(CATEGORIES.len())].to_string();
            let mut t = blank_record(format!("tool_{i:05}"), name, category);
            t.description = description;
            t.tool_type = [ToolType::System, ToolType::Custom, ToolType::ThirdParty][i % 3];
            t.version = "1.0.0".into();
            t.complexity_score = rng.next_f64();
            t.popularity_score = rng.next_f64();
            t.reliability_score = rng.next_f64();
            t.performance_tier = [
                PerformanceTier::Fast,
                PerformanceTier::Balanced,
                PerformanceTier::Comprehensive,
            ][i % 3];
            t.search_keywords = keywords;
            t.semantic_tags = semantic_tags;
            t.parameters = parameters;
            t.examples = examples;
            t.created_at = "2024-01-01T00:00:00Z".into();
            t.updated_at = "2024-01-01T00:00:00Z".into();
            t
        })
        .collect()
}

// ---- fake embedder ----------------------------------------------------------------------
