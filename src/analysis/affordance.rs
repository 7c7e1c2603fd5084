//! What a tool's parameters take, read from its input schema (parameter names, types,
//! formats, descriptions) and MCP annotations, and how well that fits a request's entities:
//! a request that mentions `owner/repo` fits a tool that takes `owner` and `repo`, one that
//! names a file path fits a tool with a `path`. Computed once per tool when an engine is
//! built; matching is a few comparisons per candidate.

use super::entities::EntityKind;
use super::locality::{self, Locality, ToolPlace};
use super::QueryAnalysis;
use crate::catalog::{split_identifier, ParameterDefinition, ToolRecord};
use serde_json::Value;

/// The entity kinds a tool's parameters take, with the parameters that take each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Affordances {
    takes: Vec<(EntityKind, Vec<String>)>,
    pub locality: Option<Locality>,
    /// Whether the tool reads or changes what it is given.
    pub action: Option<super::action::Action>,
}

/// How a request's entities and locality fit one tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Match {
    /// Each entity kind of the request that the tool takes, with the parameters taking it.
    pub matched: Vec<(EntityKind, Vec<String>)>,
    /// Entity kinds the request mentions.
    pub asked: usize,
    /// The request's locality and whether the tool's agrees.
    pub locality: Option<(Locality, bool)>,
}

impl Match {
    /// 0..1: the share of the request's entity kinds (and its locality, when it states one)
    /// that the tool takes.
    pub fn score(&self) -> f64 {
        let (agree, said) = match self.locality {
            Some((_, agree)) => (u8::from(agree), 1),
            None => (0, 0),
        };
        let total = self.asked + said;
        if total == 0 {
            return 0.0;
        }
        (self.matched.len() + usize::from(agree)) as f64 / total as f64
    }

    /// The match as match reasons ("mentions owner/repo, and this tool takes owner and
    /// repo").
    pub fn reasons(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .matched
            .iter()
            .map(|(kind, params)| {
                format!(
                    "mentions {}, and this tool takes {}",
                    kind.label(),
                    join_and(params)
                )
            })
            .collect();
        if let Some((locality, true)) = self.locality {
            out.push(locality.reason());
        }
        out
    }
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Parameter-name words that say which kind of value a parameter takes.
const NAME_WORDS: &[(EntityKind, &[&str])] = &[
    (
        EntityKind::Path,
        &[
            "path",
            "paths",
            "file",
            "files",
            "filename",
            "filepath",
            "dir",
            "directory",
            "directories",
            "folder",
            "cwd",
            "chdir",
            "uri",
            "targets",
            "pathspec",
        ],
    ),
    (
        EntityKind::FileType,
        &[
            "extension",
            "extensions",
            "ext",
            "glob",
            "globs",
            "iglob",
            "filetype",
        ],
    ),
    (EntityKind::Line, &["line", "lines", "lineno", "row"]),
    (
        EntityKind::Repository,
        &["owner", "repo", "repository", "repos"],
    ),
    (
        EntityKind::Url,
        &["url", "uri", "urls", "link", "href", "endpoint", "webhook"],
    ),
    (EntityKind::PullRequest, &["pr", "pull", "prnumber"]),
    (EntityKind::Issue, &["issue", "issues", "ticket", "jql"]),
    (
        EntityKind::Package,
        &["package", "packages", "pkg", "crate", "dependency"],
    ),
    (
        EntityKind::Symbol,
        &["symbol", "symbolname", "function", "method", "identifier"],
    ),
    (EntityKind::Regex, &["pattern", "regex", "regexp", "grep"]),
    (EntityKind::Sql, &["sql", "statement"]),
    (EntityKind::Email, &["email", "recipient", "recipients"]),
    (
        EntityKind::Date,
        &[
            "date",
            "time",
            "datetime",
            "day",
            "since",
            "until",
            "timestamp",
            "deadline",
            "due",
        ],
    ),
    (
        EntityKind::Revision,
        &[
            "branch",
            "ref",
            "rev",
            "revision",
            "sha",
            "commitish",
            "treeish",
        ],
    ),
    (EntityKind::Depth, &["depth", "maxdepth", "mindepth"]),
    (EntityKind::Registry, &["ecosystem"]),
    (EntityKind::Setting, &["env", "environment"]),
    (
        EntityKind::Channel,
        &["channel", "channels", "hashtag", "hashtags"],
    ),
];

/// Description phrases that say the same, for parameters named otherwise.
const DESCRIPTION_PHRASES: &[(EntityKind, &[&str])] = &[
    (
        EntityKind::Path,
        &[
            "file path",
            "path to",
            "path of",
            "directory to",
            "files or directories",
            "file name",
        ],
    ),
    (EntityKind::FileType, &["file extension", "glob"]),
    (EntityKind::Line, &["line number"]),
    (
        EntityKind::Repository,
        &["owner/repo", "repository owner", "repository name"],
    ),
    (EntityKind::Url, &["url", "uri"]),
    (EntityKind::PullRequest, &["pull request"]),
    (EntityKind::Issue, &["issue number", "issue key"]),
    (
        EntityKind::Package,
        &[
            "package name",
            "package spec",
            "name of the package",
            "package to",
        ],
    ),
    (EntityKind::Symbol, &["symbol", "function name"]),
    (EntityKind::Regex, &["regular expression", "regex"]),
    (EntityKind::Sql, &["sql"]),
    (EntityKind::Email, &["email address", "e-mail"]),
    (EntityKind::Date, &["date", "yyyy", "timestamp"]),
    (
        EntityKind::Revision,
        &["branch", "tree-ish", "commit-ish", "commits, branches"],
    ),
    (
        EntityKind::Depth,
        &[
            "many levels",
            "directory levels",
            "levels below",
            "this deep",
        ],
    ),
    (
        EntityKind::Registry,
        &["package ecosystem", "registry to query"],
    ),
    // Not the name "image": an OCR tool's image is a file.
    (
        EntityKind::Image,
        &["container image", "docker image", "name[:tag]", "image:tag"],
    ),
    // Not "channel name": a message text's options mention the channel names it links.
    (EntityKind::Channel, &["channel id", "hashtag"]),
];

/// JSON Schema formats and the kind they take.
const FORMATS: &[(&str, EntityKind)] = &[
    ("uri", EntityKind::Url),
    ("url", EntityKind::Url),
    ("iri", EntityKind::Url),
    ("email", EntityKind::Email),
    ("date", EntityKind::Date),
    ("date-time", EntityKind::Date),
    ("time", EntityKind::Date),
    ("regex", EntityKind::Regex),
];

/// The kinds one parameter takes.
fn kinds_of(p: &ParameterDefinition) -> Vec<EntityKind> {
    let words: Vec<String> = split_identifier(&p.name);
    let joined = p.name.to_lowercase().replace(['_', '-'], "");
    let description = p.description.to_lowercase();
    let format = p
        .constraints
        .as_ref()
        .and_then(|c| c.get("format"))
        .and_then(Value::as_str);
    let mut out: Vec<EntityKind> = Vec::new();
    for (kind, names) in NAME_WORDS {
        if names
            .iter()
            .any(|n| words.iter().any(|w| w == n) || joined == *n)
        {
            out.push(*kind);
        }
    }
    for (kind, phrases) in DESCRIPTION_PHRASES {
        if phrases.iter().any(|ph| description.contains(ph)) {
            out.push(*kind);
        }
    }
    if let Some(kind) = format.and_then(|f| FORMATS.iter().find(|(n, _)| *n == f).map(|(_, k)| *k))
    {
        out.push(kind);
    }
    if out.contains(&EntityKind::Path) && takes_directories(&words, &description) {
        out.push(EntityKind::Directory);
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a path parameter takes directories: its name says so (`dir`, `directory`) or its
/// description does in its first words ("Directory to list", "Files or directories to
/// search"); a mention further on ("must lie inside one of the allowed directories") is
/// about something else.
fn takes_directories(name_words: &[String], description: &str) -> bool {
    const WORDS: &[&str] = &[
        "dir",
        "directory",
        "directories",
        "folder",
        "folders",
        "cwd",
    ];
    name_words.iter().any(|w| WORDS.contains(&w.as_str()))
        || description
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(6)
            .any(|w| WORDS.contains(&w))
}

impl Affordances {
    /// What `tool`'s parameters take, and where it works (`locality::of_tool`).
    pub fn of(tool: &ToolRecord) -> Affordances {
        let mut takes: Vec<(EntityKind, Vec<String>)> = Vec::new();
        for p in &tool.parameters {
            for kind in kinds_of(p) {
                match takes.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, params)) => params.push(p.name.clone()),
                    None => takes.push((kind, vec![p.name.clone()])),
                }
            }
        }
        takes.sort_by_key(|(k, _)| *k);
        let has = |k: EntityKind| takes.iter().any(|(t, _)| *t == k);
        let open_world = tool
            .annotations
            .as_ref()
            .and_then(|a| a.get("openWorldHint"))
            .and_then(Value::as_bool);
        let opens_url = tool.parameters.iter().any(|p| {
            p.required
                && split_identifier(&p.name)
                    .iter()
                    .any(|w| locality::PAGE_URL_WORDS.contains(&w.as_str()))
        });
        let text = format!(
            "{} {}",
            split_identifier(&tool.name).join(" "),
            tool.description
        )
        .to_lowercase();
        let locality = locality::of_tool(&ToolPlace {
            takes_repository: has(EntityKind::Repository),
            takes_url: has(EntityKind::Url),
            opens_url,
            takes_path: has(EntityKind::Path),
            open_world,
            text: &text,
        });
        Affordances {
            takes,
            locality,
            action: super::action::tool_action(tool),
        }
    }

    /// How `analysis` fits this tool.
    pub fn fit(&self, analysis: &QueryAnalysis) -> Match {
        self.fit_kinds(&analysis.kinds(), analysis.locality)
    }

    /// How a request with these entity kinds (distinct, sorted) and locality fits this tool.
    pub fn fit_kinds(&self, kinds: &[EntityKind], locality: Option<Locality>) -> Match {
        let matched = kinds
            .iter()
            .filter_map(|k| self.takes.iter().find(|(t, _)| t == k).cloned())
            .collect();
        Match {
            matched,
            asked: kinds.len(),
            locality: locality.map(|l| (l, l.fits(self.locality))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::mcp::{blank_record, parameters_of};
    use serde_json::json;

    fn tool(schema: Value) -> ToolRecord {
        let mut t = blank_record("t".into(), "t".into(), "c".into());
        t.parameters = parameters_of(&schema);
        t.input_schema = schema;
        t
    }

    #[test]
    fn owner_and_repo_take_a_repository() {
        let t = tool(json!({"type": "object", "properties": {
            "owner": {"type": "string"}, "repo": {"type": "string"}, "path": {"type": "string"}}}));
        let a = Affordances::of(&t);
        assert_eq!(a.locality, Some(Locality::Remote));
        let m = a.fit(&QueryAnalysis::of("read README.md in tokio-rs/axum"));
        assert_eq!(m.score(), 1.0, "{m:?}");
        assert_eq!(
            m.reasons()[0],
            "mentions a file path, and this tool takes path"
        );
        assert!(m.reasons().iter().any(|r| r.contains("owner and repo")));
    }

    #[test]
    fn a_local_tool_disagrees_with_a_remote_request() {
        let t = tool(json!({"type": "object", "properties": {
            "pattern": {"type": "string", "description": "Regular expression"},
            "path": {"type": "string"}}}));
        let a = Affordances::of(&t);
        assert_eq!(a.locality, Some(Locality::Local));
        let m = a.fit(&QueryAnalysis::of(
            "search rust-lang/cargo on GitHub for fn main",
        ));
        assert!(m.score() < 0.5, "{m:?}");
        let none = a.fit(&QueryAnalysis::of("weather tomorrow"));
        assert_eq!(none.score(), 0.0);
    }

    #[test]
    fn a_container_image_fits_a_container_tool_and_not_an_ocr_one() {
        let runner = tool(json!({"type": "object", "properties": {
            "image": {"type": "string", "description": "Image to run, as NAME[:TAG]"}}}));
        let ocr = tool(json!({"type": "object", "properties": {
            "image": {"type": "string", "description": "Input image (PNG, JPEG)"}}}));
        let q = QueryAnalysis::of("spin up redis:7 for the tests");
        assert_eq!(Affordances::of(&runner).fit(&q).score(), 1.0);
        assert_eq!(Affordances::of(&ocr).fit(&q).score(), 0.0);
    }

    #[test]
    fn a_directory_and_a_depth_fit_a_lister_and_not_a_file_reader() {
        let lister = tool(json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "Directory to list, relative to the root."},
            "depth": {"type": "integer", "description": "How many levels to descend."}}}));
        let reader = tool(json!({"type": "object", "properties": {
            "path": {"type": "string",
                     "description": "The file to read; must lie inside an allowed directory."}}}));
        let q = QueryAnalysis::of("show the contents of terraform/modules/ two levels deep");
        assert_eq!(
            q.kinds(),
            vec![EntityKind::Directory, EntityKind::Depth],
            "{q:?}"
        );
        assert_eq!(Affordances::of(&lister).fit(&q).score(), 1.0);
        assert_eq!(Affordances::of(&reader).fit(&q).score(), 0.0);
        // A file is a path both take.
        let file = QueryAnalysis::of("open terraform/modules/main.tf");
        assert_eq!(Affordances::of(&reader).fit(&file).score(), 1.0);
        assert_eq!(Affordances::of(&lister).fit(&file).score(), 1.0);
    }

    #[test]
    fn a_named_registry_fits_a_tool_that_takes_an_ecosystem() {
        let finder = tool(json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "Package to look up, e.g. 'express'."},
            "ecosystem": {"type": "string", "description": "Registry to query: npm or python."}}}));
        let q = QueryAnalysis::of("is there an npm library for rendering markdown?");
        let m = Affordances::of(&finder).fit(&q);
        assert_eq!(m.score(), 1.0, "{m:?}");
        assert_eq!(
            m.reasons(),
            vec!["mentions a package registry, and this tool takes ecosystem".to_string()]
        );
    }

    #[test]
    fn an_environment_setting_fits_a_tool_that_takes_env() {
        let runner = tool(json!({"type": "object", "properties": {
            "image": {"type": "string"},
            "env": {"type": "array", "description": "Environment variables, each KEY=VALUE."}}}));
        let q = QueryAnalysis::of("start a throwaway Postgres with POSTGRES_PASSWORD=test");
        assert_eq!(q.kinds(), vec![EntityKind::Setting]);
        let m = Affordances::of(&runner).fit(&q);
        assert_eq!(m.score(), 1.0, "{m:?}");
        // A depth parameter is read by its name as well as its description.
        let lister = tool(json!({"type": "object", "properties": {
            "maxDepth": {"type": "integer"}}}));
        let q = QueryAnalysis::of("list it two levels deep");
        assert_eq!(Affordances::of(&lister).fit(&q).score(), 1.0);
    }

    #[test]
    fn a_branch_fits_a_tool_that_takes_a_revision() {
        let grep = tool(json!({"type": "object", "properties": {
            "pattern": {"type": "string"},
            "tree": {"type": "string", "description": "Commits, branches or tags to search"}}}));
        let m = Affordances::of(&grep).fit(&QueryAnalysis::of(
            "does `set_nonblocking` appear on the release/2.x branch?",
        ));
        assert!(
            m.reasons()
                .contains(&"mentions a branch, tag or commit, and this tool takes tree".into()),
            "{m:?}"
        );
    }
}
