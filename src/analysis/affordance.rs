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
    // Code in code form: a parameter that takes a snippet or pattern of code takes the
    // request's `assert_eq!(x, true)` as surely as one that takes a symbol.
    (
        EntityKind::Symbol,
        &["symbol", "function name", "code snippet", "code pattern"],
    ),
    (
        EntityKind::Regex,
        &["regular expression", "regex", "regexp"],
    ),
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

/// The kinds a parameter named `name` takes by its name's words (`NAME_WORDS`): "owner",
/// "file_path", "maxDepth".
fn named_kinds(name: &str) -> impl Iterator<Item = EntityKind> {
    let words = split_identifier(name);
    let joined = name.to_lowercase().replace(['_', '-'], "");
    NAME_WORDS
        .iter()
        .filter(move |(_, names)| {
            names
                .iter()
                .any(|n| words.iter().any(|w| w == n) || joined == *n)
        })
        .map(|(kind, _)| *kind)
}

/// The kinds one parameter takes.
fn kinds_of(p: &ParameterDefinition) -> Vec<EntityKind> {
    let words: Vec<String> = split_identifier(&p.name);
    let description = p.description.to_lowercase();
    let format = p
        .constraints
        .as_ref()
        .and_then(|c| c.get("format"))
        .and_then(Value::as_str);
    let mut out: Vec<EntityKind> = named_kinds(&p.name).collect();
    // A path template's placeholders are parameters of their own, read by their names.
    for name in placeholders(&p.description) {
        out.extend(named_kinds(name));
    }
    for (kind, phrases) in DESCRIPTION_PHRASES {
        if phrases.iter().any(|ph| says_phrase(&description, ph)) {
            out.push(*kind);
        }
    }
    if is_a_file(&description) {
        out.push(EntityKind::Path);
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

/// Whether `text` says `phrase` as words of its own, or their plural: "the URL to fetch"
/// says "url", and "curl options", a "purl" or "during the run" do not; "update" says no
/// "date". A phrase's own punctuation ("owner/repo", "name[:tag]") is matched as written.
fn says_phrase(text: &str, phrase: &str) -> bool {
    let word_char = |c: char| c.is_alphanumeric();
    text.match_indices(phrase).any(|(at, _)| {
        let opens = !phrase.starts_with(word_char)
            || !text[..at].chars().next_back().is_some_and(word_char);
        let rest = &text[at + phrase.len()..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let closes = !phrase.ends_with(word_char) || !rest.starts_with(word_char);
        opens && closes
    })
}

/// Whether a description opens by saying the parameter is a file: "Database file to open",
/// "PDF file to read", "File of extra dictionary words". A parameter named `database` or
/// `image` takes a path as surely as one named `file`. Not a file's property ("Output file
/// format") and not a count or a choice about files ("Number of files to return", "Whether
/// to include hidden files").
fn is_a_file(description: &str) -> bool {
    const BEFORE: &[&str] = &[
        "of", "per", "to", "for", "in", "on", "with", "number", "max", "maximum", "many", "how",
        "whether", "if", "no",
    ];
    #[rustfmt::skip]
    const AFTER: &[&str] = &[
        "format", "formats", "type", "types", "extension", "extensions", "size", "mode",
        "count", "system", "name", "names", "content", "contents", "encoding", "permissions",
    ];
    let words: Vec<&str> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .collect();
    let Some(at) = words
        .iter()
        .take(4)
        .position(|w| matches!(*w, "file" | "files"))
    else {
        return false;
    };
    !words[..at].iter().any(|w| BEFORE.contains(w))
        && !words.get(at + 1).is_some_and(|w| AFTER.contains(w))
}

/// The names in a description's path template ("repos/{owner}/{repo}/releases"): segments
/// only, since a `%{time_total}` or `page-{timestamp}` is a format's variable, not a value
/// the parameter takes.
fn placeholders(description: &str) -> impl Iterator<Item = &str> {
    description.split("/{").skip(1).filter_map(|rest| {
        let (name, _) = rest.split_once('}')?;
        let ok = !name.is_empty()
            && name.len() <= 32
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        ok.then_some(name)
    })
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
#[path = "affordance_tests.rs"]
mod tests;
