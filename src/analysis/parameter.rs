//! What one parameter takes, read from its name's words, its description's phrases, its
//! JSON Schema format and its type: the vocabulary `affordance` matches requests against.
//! A parameter's type has the last say (a flag takes no value, a number only a number), a
//! flag's word goes to the parameter it qualifies, and what a description says of the
//! default is not read as what the parameter takes.

use super::entities::EntityKind;
use crate::catalog::{split_identifier, ParameterDefinition};
use serde_json::Value;

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
    (EntityKind::Line, &["line number", "line range"]),
    (
        EntityKind::Repository,
        &["owner/repo", "repository owner", "repository name"],
    ),
    (EntityKind::Url, &["url", "uri", "server address"]),
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

/// The kinds one parameter's name, description and format say it takes, before its type
/// has a say (`type_holds`).
pub(super) fn kinds_of(p: &ParameterDefinition) -> Vec<EntityKind> {
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
    let said = without_defaults(&description);
    for (kind, phrases) in DESCRIPTION_PHRASES {
        if phrases.iter().any(|ph| says_phrase(&said, ph)) {
            out.push(*kind);
        }
    }
    if let Some(kind) = format.and_then(|f| FORMATS.iter().find(|(n, _)| *n == f).map(|(_, k)| *k))
    {
        out.push(kind);
    }
    // A parameter that says it is a file takes a path, and a URL only when it says so too
    // ("Values files or URLs"): an LSP request's `uri` is the file the symbol is in, not a
    // page on the web.
    if is_a_file(&description) {
        out.push(EntityKind::Path);
        if !["url", "uri"].iter().any(|u| says_phrase(&description, u)) {
            out.retain(|k| *k != EntityKind::Url);
        }
    }
    if out.contains(&EntityKind::Path) && takes_directories(&words, &description) {
        out.push(EntityKind::Directory);
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a value of parameter `p` can be an entity of kind `k`. A flag takes no value:
/// `filesOnly`, `line_porcelain` or curl's `get` ("append data to the URL query string")
/// say what the tool does with a path, a line or a URL, and none takes one. A number takes
/// only what is written as one: a line, a depth, a pull request or issue number, a time as
/// a timestamp. A choice among fixed words takes only a registry or a file type: `sort_dir`
/// (a direction) takes no directory, and a `date` that picks how dates are shown takes none.
pub(super) fn type_holds(p: &ParameterDefinition, k: EntityKind) -> bool {
    let choice = p.kind == "enum"
        || p.constraints
            .as_ref()
            .is_some_and(|c| c.get("enum").is_some());
    if choice {
        return matches!(k, EntityKind::Registry | EntityKind::FileType);
    }
    types_of(p).any(|t| match t {
        "boolean" => false,
        "integer" | "number" => matches!(
            k,
            EntityKind::Line
                | EntityKind::Depth
                | EntityKind::PullRequest
                | EntityKind::Issue
                | EntityKind::Date
        ),
        _ => true,
    })
}

/// A parameter's JSON types, "null" left out ("integer|null" is an optional integer).
fn types_of(p: &ParameterDefinition) -> impl Iterator<Item = &str> {
    p.kind.split('|').filter(|t| *t != "null")
}

/// Whether `p` is a flag: true or false is all it takes.
fn is_flag(p: &ParameterDefinition) -> bool {
    types_of(p).all(|t| t == "boolean") && types_of(p).next().is_some()
}

/// The parameter whose value `p` is: itself, unless it is a flag. A flag qualifies the
/// parameter its name opens with (`matchStringIsRegex` says `matchString` is a regular
/// expression); any other flag takes nothing.
pub(super) fn taker_of<'a>(
    p: &'a ParameterDefinition,
    all: &'a [ParameterDefinition],
) -> Option<&'a ParameterDefinition> {
    if !is_flag(p) {
        return Some(p);
    }
    all.iter()
        .filter(|q| !is_flag(q) && q.name.len() >= 3)
        .filter(|q| {
            p.name.strip_prefix(q.name.as_str()).is_some_and(|rest| {
                rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_' || c == '-')
            })
        })
        .max_by_key(|q| q.name.len())
}

/// A flag about directories ("directoriesOnly", "include hidden files and directories")
/// takes no directory itself, but says the tool walks them: when no parameter says it takes
/// one (a server's schema often describes none), its path parameters do. Called for a tool
/// with such a flag.
pub(super) fn walked_directories(takes: &mut Vec<(EntityKind, Vec<String>)>) {
    if takes.iter().any(|(k, _)| *k == EntityKind::Directory) {
        return;
    }
    if let Some((_, paths)) = takes.iter().find(|(k, _)| *k == EntityKind::Path) {
        let paths = paths.clone();
        takes.push((EntityKind::Directory, paths));
    }
}

/// Words that open what a description says of the value a parameter falls back to.
const DEFAULT_CUES: &[&str] = &[
    "defaults to",
    "default to",
    "default is",
    "default:",
    "when omitted",
    "if omitted",
    "if not given",
    "if not specified",
    "if not provided",
    "when not given",
    "when not set",
    "if unset",
    "when unset",
];

/// A lowercased description without its clauses about the default, each from its cue to the
/// end of its sentence: "Directory to clone into; defaults to the repository name" takes a
/// directory, not a repository, and "Default is YYYY-MM-DD" makes a format no date.
pub(super) fn without_defaults(description: &str) -> String {
    let mut out = description.to_string();
    while let Some(at) = DEFAULT_CUES
        .iter()
        .filter_map(|c| find_words(&out, c))
        .min()
    {
        let rest = &out[at..];
        let end = rest
            .match_indices(['.', ';'])
            .map(|(i, _)| i)
            .find(|&i| rest[i + 1..].chars().next().is_none_or(char::is_whitespace))
            .map_or(out.len(), |i| at + i + 1);
        out.replace_range(at..end, " ");
    }
    out
}

/// Where `text` first says `phrase` as words of its own: "default is" in "the default is
/// 10", not in "the default isolation level".
fn find_words(text: &str, phrase: &str) -> Option<usize> {
    word_matches(text, phrase, false).next()
}

/// Whether `text` says `phrase` as words of its own, or their plural: "the URL to fetch"
/// says "url", and "curl options", a "purl" or "during the run" do not; "update" says no
/// "date". A phrase's own punctuation ("owner/repo", "name[:tag]") is matched as written.
pub(super) fn says_phrase(text: &str, phrase: &str) -> bool {
    word_matches(text, phrase, true).next().is_some()
}

/// Where `text` says `phrase` as words of its own (or, with `plural`, their plural): no
/// letter or digit runs on either side, unless the phrase itself opens or ends with other
/// punctuation.
fn word_matches<'a>(
    text: &'a str,
    phrase: &'a str,
    plural: bool,
) -> impl Iterator<Item = usize> + 'a {
    let word_char = |c: char| c.is_alphanumeric();
    text.match_indices(phrase)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let opens = !phrase.starts_with(word_char)
                || !text[..at].chars().next_back().is_some_and(word_char);
            let rest = &text[at + phrase.len()..];
            let rest = match plural {
                true => rest.strip_prefix('s').unwrap_or(rest),
                false => rest,
            };
            let closes = !phrase.ends_with(word_char) || !rest.starts_with(word_char);
            opens && closes
        })
}

/// Whether a description opens by saying the parameter is a file: "Database file to open",
/// "PDF file to read", "File of extra dictionary words". A parameter named `database` or
/// `image` takes a path as surely as one named `file`. Not a file's property ("Output file
/// format"), its address on the web ("File URL") or a count or a choice about files ("Number
/// of files to return", "Whether to include hidden files").
pub(super) fn is_a_file(description: &str) -> bool {
    const BEFORE: &[&str] = &[
        "of", "per", "to", "for", "in", "on", "with", "number", "max", "maximum", "many", "how",
        "whether", "if", "no",
    ];
    #[rustfmt::skip]
    const AFTER: &[&str] = &[
        "format", "formats", "type", "types", "extension", "extensions", "size", "mode",
        "count", "system", "name", "names", "content", "contents", "encoding", "permissions",
        "url", "urls", "uri", "link",
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
pub(super) fn placeholders(description: &str) -> impl Iterator<Item = &str> {
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
