//! Where a request points and where a tool works: on the user's machine, on a remote service
//! (a code host, a registry) or on the open web. A request says so in phrases ("in my
//! project", "on GitHub", "look it up online") outside the values it carries, and in
//! entities (`owner/repo`, `./src`); a tool in its input schema (a path, a repository, a URL
//! to open) and in what its name and description say it does (a web search, a browser). The
//! affordance signal counts a request's locality as one more thing a tool can take.

use super::entities::{Entity, EntityKind};

/// Where a tool works or a request points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locality {
    /// Files and processes on the user's machine.
    Local,
    /// A remote service: a code host, a registry.
    Remote,
    /// The open web: pages, search engines. Apart from remote: a request that says
    /// "search the web" is no request for a code host's search, and one about a code host
    /// ("remote writers", "on GitHub") none for a web search.
    Web,
}

impl Locality {
    pub fn as_str(self) -> &'static str {
        match self {
            Locality::Local => "local",
            Locality::Remote => "remote",
            Locality::Web => "web",
        }
    }

    /// Whether a tool that works at `tool` fits a request that points at `self`.
    pub fn fits(self, tool: Option<Locality>) -> bool {
        tool == Some(self)
    }

    /// The match reason for a tool that fits.
    pub fn reason(self) -> String {
        match self {
            Locality::Web => "asks about the web, and this tool works on the web".to_string(),
            l => format!(
                "asks about {} things, and this tool works on {} ones",
                l.as_str(),
                l.as_str()
            ),
        }
    }
}

/// Phrases that put a request on the user's machine or in their checkout.
const LOCAL_CUES: &[&str] = &[
    "my project",
    "this project",
    "the project",
    "my repo",
    "this repo",
    "my repository",
    "this repository",
    "my codebase",
    "this codebase",
    "the codebase",
    "across the codebase",
    "my machine",
    "this machine",
    "locally",
    "local",
    "on disk",
    "my checkout",
    "working tree",
    "working copy",
    "workspace",
    "my code",
    "our code",
    "current directory",
    "this directory",
    "here in",
];

/// Phrases that put a request on a remote service.
const REMOTE_CUES: &[&str] = &[
    "on github",
    "github",
    "upstream",
    "remote",
    "public repos",
    "public repositories",
    "open source",
    "on gitlab",
    "gitlab",
];

/// Phrases that send a request to the open web. They name the instrument, so they win over
/// a repository or code host the request is about ("search the web for news on
/// rust-lang/cargo").
const WEB_CUES: &[&str] = &[
    "the web",
    "the internet",
    "web search",
    "web page",
    "web pages",
    // A page open in a browser is on the web, and a browser is how to reach it.
    "in the browser",
    "in a browser",
    "in my browser",
    "in a real browser",
    "in a headless browser",
];

/// Words that may follow "online" when it says where to look ("look it up online", "search
/// online for"), not what kind of thing is meant ("an online store", "online courses").
const AFTER_ONLINE: &[&str] = &[
    "for", "about", "and", "or", "to", "then", "so", "but", "if", "where", "what", "how",
    "whether", "please", "first", "now", "instead", "too",
];

/// Parameter-name words of a URL to open. Narrower than the words of the URL kind
/// (`affordance`): an `endpoint` or a `webhook` is an API's address, not a page.
pub(crate) const PAGE_URL_WORDS: &[&str] = &["url", "uri", "link", "href"];

/// Words of a tool's name or description that say it reads the open web.
const WEB_TOOL_PHRASES: &[&str] = &[
    "web search",
    "search the web",
    "searches the web",
    "internet",
    "browser",
    "web page",
    "web pages",
    "webpage",
    "webpages",
];

/// Local, remote or the web, from the request's phrases and entities; None when it says
/// none, or local and one of the others.
pub(crate) fn of_request(text: &str, entities: &[Entity]) -> Option<Locality> {
    let lower = outside_values(text, entities).to_lowercase();
    let web = has_phrase(&lower, WEB_CUES)
        || online_as_place(&lower)
        || entities.iter().any(|e| {
            e.kind == EntityKind::Url && text.get(e.span.clone()).is_some_and(is_web_page)
        });
    let remote = web
        || has_phrase(&lower, REMOTE_CUES)
        || entities.iter().any(|e| e.kind == EntityKind::Repository);
    let local = has_phrase(&lower, LOCAL_CUES)
        || entities.iter().any(|e| {
            matches!(e.kind, EntityKind::Path | EntityKind::Directory) && {
                let s = &text[e.span.clone()];
                s.starts_with("./") || s.starts_with("../") || s.starts_with('~')
            }
        });
    match (local, remote, web) {
        (true, false, _) => Some(Locality::Local),
        (false, true, true) => Some(Locality::Web),
        (false, true, false) => Some(Locality::Remote),
        _ => None,
    }
}

/// Hosts whose URLs name repositories, issues and pull requests: remote things a code
/// host's tools take, not pages to open.
const CODE_HOSTS: &[&str] = &["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// Whether `url` is a web address outside the code hosts: the request that carries it is
/// about the web whatever else it names ("the GitHub Actions docs at
/// https://docs.github.com/..."). A code host's URL names a repository, an issue or a pull
/// request, and an `s3://` or `gs://` one a bucket: remote things, not pages.
fn is_web_page(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let host = rest.split(['/', ':', '?', '#']).next().unwrap_or("");
    let host = host.strip_prefix("www.").unwrap_or(host);
    !CODE_HOSTS.contains(&host)
}

/// `text` with every entity's value blanked out (same length, so spans still hold): a cue
/// word inside a value names a thing, not where to look. "data/local.db" is no local cue,
/// ".github/workflows/ci.yml" no remote one.
fn outside_values(text: &str, entities: &[Entity]) -> String {
    let mut out = text.to_string();
    for e in entities {
        if let Some(value) = text.get(e.span.clone()) {
            out.replace_range(e.span.clone(), &" ".repeat(value.len()));
        }
    }
    out
}

/// What a tool's schema and text say about where it works.
pub(crate) struct ToolPlace<'a> {
    pub takes_repository: bool,
    pub takes_url: bool,
    /// A required parameter is a URL to open (`PAGE_URL_WORDS`).
    pub opens_url: bool,
    pub takes_path: bool,
    /// MCP's `openWorldHint` annotation.
    pub open_world: Option<bool>,
    /// The tool's name (split into words) and description, lowercased.
    pub text: &'a str,
}

/// Web when the tool opens a URL it is given or says it searches or browses the web;
/// remote when it takes a repository or a URL or its annotations say it reaches an open
/// world; local when it takes paths and nothing remote.
pub(crate) fn of_tool(place: &ToolPlace<'_>) -> Option<Locality> {
    if place.opens_url || has_phrase(place.text, WEB_TOOL_PHRASES) {
        Some(Locality::Web)
    } else if place.takes_repository || place.takes_url || place.open_world == Some(true) {
        Some(Locality::Remote)
    } else if place.takes_path || place.open_world == Some(false) {
        Some(Locality::Local)
    } else {
        None
    }
}

/// Whether lowercased `text` says "online" as where to look: at the end of a clause or
/// before a function word, not before the noun it describes.
fn online_as_place(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .collect();
    // Splitting on punctuation leaves an empty word where a clause ends.
    words.iter().enumerate().any(|(i, w)| {
        *w == "online"
            && words
                .get(i + 1)
                .is_none_or(|next| next.is_empty() || AFTER_ONLINE.contains(next))
    })
}

/// Whether lowercased `text` holds one of `phrases` between word boundaries.
fn has_phrase(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|c| {
        text.match_indices(c).any(|(i, _)| {
            let before = text[..i]
                .chars()
                .next_back()
                .is_none_or(|ch| !ch.is_alphanumeric());
            let after = text[i + c.len()..]
                .chars()
                .next()
                .is_none_or(|ch| !ch.is_alphanumeric());
            before && after
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entities;

    fn of(text: &str) -> Option<Locality> {
        of_request(text, &entities(text))
    }

    #[test]
    fn a_request_points_local_remote_or_at_the_web() {
        assert_eq!(of("grep my project for TODO"), Some(Locality::Local));
        assert_eq!(
            of("search issues in rust-lang/cargo"),
            Some(Locality::Remote)
        );
        assert_eq!(
            of("what does this error mean? look it up online"),
            Some(Locality::Web)
        );
        assert_eq!(of("check what the web says about it"), Some(Locality::Web));
        // The instrument named wins over the repository talked about.
        assert_eq!(
            of("search the web for news about rust-lang/cargo"),
            Some(Locality::Web)
        );
        assert_eq!(of("compare my local config with what the web says"), None);
        assert_eq!(of("plan a trip"), None);
        // "online" before its noun says what kind of thing, not where to look.
        assert_eq!(of("recommend an online store for shoes"), None);
        assert_eq!(of("search online for reviews of it"), Some(Locality::Web));
        assert_eq!(of("any disruptions in internet connectivity?"), None);
        // Cues are whole words: "webhook" and "the website" are no web cues.
        assert_eq!(of("post to the webhook"), None);
    }

    /// "data/local.db" had made a request about a SQLite file local and
    /// ".github/workflows/ci.yml" one about a workflow file remote: a cue inside a value is
    /// part of a name.
    #[test]
    fn cues_inside_values_are_names() {
        assert_eq!(of("what's in the sync_state table of data/local.db?"), None);
        assert_eq!(of("bump node-version in .github/workflows/ci.yml"), None);
        assert_eq!(
            of("fetch https://docs.github.com/en/actions"),
            Some(Locality::Web)
        );
        assert_eq!(
            of("open data/local.db from my checkout"),
            Some(Locality::Local)
        );
        assert_eq!(
            of("read README.md of tokio-rs/axum on GitHub"),
            Some(Locality::Remote)
        );
    }

    /// A page open in a browser is on the web.
    #[test]
    fn a_browser_is_a_web_cue() {
        assert_eq!(
            of("screenshot the GitHub pull request page that's open in the browser"),
            Some(Locality::Web)
        );
        assert_eq!(of("load it in a real browser"), Some(Locality::Web));
        assert_eq!(of("write a browser extension"), None);
    }

    #[test]
    fn a_web_tool_fits_web_requests_only() {
        assert!(!Locality::Remote.fits(Some(Locality::Web)));
        assert!(Locality::Web.fits(Some(Locality::Web)));
        assert!(!Locality::Web.fits(Some(Locality::Remote)));
        assert!(!Locality::Local.fits(Some(Locality::Web)));
        assert!(!Locality::Web.fits(None));
    }

    #[test]
    fn a_tool_works_where_its_schema_and_text_say() {
        let place = |opens_url, takes_url, text| ToolPlace {
            takes_repository: false,
            takes_url,
            opens_url,
            takes_path: false,
            open_world: None,
            text,
        };
        assert_eq!(of_tool(&place(true, true, "fetch")), Some(Locality::Web));
        assert_eq!(
            of_tool(&place(
                false,
                false,
                "runs a web search and returns results"
            )),
            Some(Locality::Web)
        );
        assert_eq!(
            of_tool(&place(false, true, "posts to a webhook")),
            Some(Locality::Remote)
        );
        assert_eq!(of_tool(&place(false, false, "formats json")), None);
    }
}
