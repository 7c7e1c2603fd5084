//! Tests of `affordance` and `parameter`: what parameters take, read from schemas, and how
//! requests fit.

use super::*;
use crate::analysis::parameter::{is_a_file, placeholders, says_phrase, without_defaults};
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

#[test]
fn a_path_template_takes_what_its_placeholders_name() {
    let api = tool(json!({"type": "object", "properties": {
        "endpoint": {"type": "string",
            "description": "REST path such as repos/{owner}/{repo}/releases"},
        "format": {"type": "string",
            "description": "Printed after the transfer, e.g. %{time_total}"}}}));
    let a = Affordances::of(&api);
    let m = a.fit(&QueryAnalysis::of("list the releases of tokio-rs/axum"));
    assert!(
        m.reasons()
            .iter()
            .any(|r| r == "mentions owner/repo, and this tool takes endpoint"),
        "{m:?}"
    );
    // A format's variables are no placeholders of a path: `time_total` takes no date.
    let dated = a.fit(&QueryAnalysis::of("releases since 2024-01-01"));
    assert!(
        !dated.reasons().iter().any(|r| r.contains("format")),
        "{dated:?}"
    );
    assert_eq!(
        placeholders("a/{b}/c {d} x/{e f}/{}").collect::<Vec<_>>(),
        ["b"]
    );
}

/// "top 10 most visited URLs in my places.sqlite" had not fitted the SQLite shell, whose
/// file parameter is named `database`: a description that opens by calling the parameter
/// a file says it takes a path.
#[test]
fn a_parameter_described_as_a_file_takes_a_path() {
    let shell = tool(json!({"type": "object", "properties": {
        "database": {"type": "string", "description": "Database file to open (positional)."},
        "mode": {"type": "string", "description": "Output file format, e.g. csv."},
        "limit": {"type": "integer", "description": "Number of files to return."}}}));
    let m = Affordances::of(&shell).fit(&QueryAnalysis::of("count the rows in places.sqlite"));
    assert!(
        m.reasons()
            .iter()
            .any(|r| r == "mentions a file path, and this tool takes database"),
        "{m:?}"
    );
    assert!(is_a_file("file of extra dictionary words, one per line"));
    assert!(is_a_file("pdf file to read"));
    assert!(!is_a_file("output file format"));
    assert!(!is_a_file("number of files to return"));
    assert!(!is_a_file("whether to include hidden files"));
    assert!(!is_a_file("print the profile of each run"));
}

#[test]
fn a_description_phrase_counts_only_as_whole_words() {
    // "curl", "purl", "during" and "update" hold "url", "uri" and "date" inside other words.
    let t = tool(json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "Package name, or a purl during lookups"},
        "extra": {"type": "string", "description": "Extra curl options to update the request"}}}));
    let a = Affordances::of(&t);
    assert_eq!(
        a.fit(&QueryAnalysis::of("fetch https://example.com/docs"))
            .matched,
        vec![]
    );
    assert_eq!(
        a.fit(&QueryAnalysis::of("changes since 2024-05-01"))
            .matched,
        vec![]
    );
    let urls = tool(json!({"type": "object", "properties": {
        "targets": {"type": "array", "description": "The URLs to check"}}}));
    let m = Affordances::of(&urls).fit(&QueryAnalysis::of("check https://example.com/docs"));
    assert_eq!(m.matched.len(), 1, "{m:?}");
    assert!(says_phrase("owner/repo form", "owner/repo"));
    assert!(!says_phrase("a globally unique id", "glob"));
    assert!(says_phrase("glob patterns", "glob") && says_phrase("globs to skip", "glob"));
}

/// A parameter's type bounds what it takes: a flag takes no value (a search tool's
/// `filesOnly` or `lineRegexp` had made it take paths and lines), unless its name opens with
/// the parameter it qualifies; a number takes only what is written as one.
#[test]
fn a_parameter_takes_only_what_its_type_holds() {
    let reader = tool(json!({"type": "object", "properties": {
        "matchString": {"type": "string", "description": "Only the lines around this text"},
        "matchStringIsRegex": {"type": "boolean", "description": "Read matchString as a regex"},
        "filesOnly": {"type": "boolean", "description": "Return only file paths"},
        "lineRegexp": {"type": "boolean", "description": "Match whole lines only"},
        "maxFiles": {"type": "integer", "description": "Number of files to return"},
        "showFunction": {"type": "boolean", "description": "Show the enclosing function"}}}));
    let a = Affordances::of(&reader);
    let fit = |q: &str| a.fit(&QueryAnalysis::of(q)).matched;
    assert_eq!(fit("read src/main.rs around line 40"), vec![]);
    assert_eq!(fit("where is `parse_config` defined"), vec![]);
    assert_eq!(
        fit("lines matching the regex /^fn \\w+/"),
        vec![(EntityKind::Regex, vec!["matchString".to_string()])]
    );
    assert_eq!(a.locality, None);
    let lister = tool(json!({"type": "object", "properties": {
        "sort_dir": {"type": "string", "enum": ["asc", "desc"], "description": "Sort direction"},
        "date": {"type": "string", "enum": ["iso", "relative"], "description": "How dates show"},
        "depth": {"type": ["integer", "null"], "description": "Directory levels below path"},
        "hidden": {"type": ["boolean", "null"], "description": "Also hidden directories"},
        "ecosystem": {"type": "string", "enum": ["npm", "pypi"]}}}));
    let a = Affordances::of(&lister);
    let m = a.fit(&QueryAnalysis::of(
        "list src/ two levels deep, changed since 2024-05-01",
    ));
    assert_eq!(
        m.matched,
        vec![(EntityKind::Depth, vec!["depth".to_string()])]
    );
    let m = a.fit(&QueryAnalysis::of("an npm library for colours"));
    assert_eq!(m.matched.len(), 1, "{m:?}");
}

/// A parameter named like a URL but described as a file is a file: language-server tools
/// whose `uri` is "File containing the symbol" had read as tools of the web.
#[test]
fn a_uri_described_as_a_file_is_a_local_path() {
    let lsp = tool(json!({"type": "object", "properties": {
        "uri": {"type": "string", "description": "File containing the symbol, relative to the root"},
        "symbolName": {"type": "string"},
        "lineHint": {"type": "integer", "description": "1-based line of the symbol"}},
        "required": ["uri", "symbolName"]}));
    let a = Affordances::of(&lsp);
    assert_eq!(a.locality, Some(Locality::Local));
    assert!(a
        .fit(&QueryAnalysis::of("open https://example.com/a.html"))
        .matched
        .is_empty());
    let values = tool(json!({"type": "object", "properties": {
        "values": {"type": "array", "description": "Values files or URLs"}}}));
    let m = Affordances::of(&values).fit(&QueryAnalysis::of("use https://example.com/v.yaml"));
    assert_eq!(m.matched.len(), 1, "{m:?}");
    assert!(!is_a_file("file url to download"));
}

/// A server that describes no parameter still says, by a flag, that its `path` is walked.
#[test]
fn a_flag_about_directories_says_the_path_takes_them() {
    let t = tool(json!({"type": "object", "properties": {
        "path": {"type": "string"}, "directoriesOnly": {"type": "boolean"}}}));
    let m = Affordances::of(&t).fit(&QueryAnalysis::of("what is inside the docs/ folder"));
    assert!(
        m.matched
            .iter()
            .any(|(k, p)| *k == EntityKind::Directory && p == &["path"]),
        "{m:?}"
    );
}

/// What a description says of the default is not what the parameter takes: a clone's
/// target directory "defaults to the repository name" and takes no repository.
#[test]
fn a_default_clause_says_nothing_of_what_a_parameter_takes() {
    let t = tool(json!({"type": "object", "properties": {
        "directory": {"type": "string",
            "description": "Directory to clone into; defaults to the repository name. Any path."},
        "format": {"type": "string", "description": "Output format. Default is YYYY-MM-DD."}}}));
    let a = Affordances::of(&t);
    assert!(a
        .fit(&QueryAnalysis::of("clone tokio-rs/tokio"))
        .matched
        .is_empty());
    assert!(a
        .fit(&QueryAnalysis::of("entries since 2024-05-01"))
        .matched
        .is_empty());
    assert_eq!(
        without_defaults("a; defaults to x. when omitted, y; kept"),
        "a;     kept"
    );
    let isolation = "the default isolation level. a url";
    assert_eq!(without_defaults(isolation), isolation);
}

/// The words descriptions use for a line range and a server's address.
#[test]
fn a_line_range_and_a_server_address_are_read() {
    let t = tool(json!({"type": "object", "properties": {
        "L": {"type": "array", "description": "-L: line ranges to annotate, each start,end"},
        "addr": {"type": "string", "description": "Loki server address (--addr)"}}}));
    let a = Affordances::of(&t);
    let m = a.fit(&QueryAnalysis::of("who changed line 42 of src/lib.rs"));
    assert!(
        m.matched
            .iter()
            .any(|(k, p)| *k == EntityKind::Line && p == &["L"]),
        "{m:?}"
    );
    let m = a.fit(&QueryAnalysis::of("query http://localhost:3100 for errors"));
    assert!(
        m.matched
            .iter()
            .any(|(k, p)| *k == EntityKind::Url && p == &["addr"]),
        "{m:?}"
    );
}

proptest::proptest! {
    #![proptest_config(crate::hostile_text::config())]
    #[test]
    fn any_description_reads_without_panicking(
        text in crate::hostile_text::text(),
        phrase in crate::hostile_text::text(),
    ) {
        let lower = text.to_lowercase();
        let said = says_phrase(&lower, &phrase);
        proptest::prop_assert!(!said || lower.contains(phrase.as_str()));
        let kept = without_defaults(&lower);
        proptest::prop_assert!(kept.len() <= lower.len());
    }
}
