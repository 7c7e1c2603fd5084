//! Catalog sources (`[[sources]]` in the configuration file): where the catalog's tools come
//! from, in order. A `dir` is a catalog directory as `catalog validate` checks it; a `file` is
//! a JSON `tools/list` result or a tools JSON-lines file (the shapes `toolscout eval` reads);
//! an `mcp` source is an MCP server toolscout starts (`command`, `args`, `env`, `cwd`) or
//! connects to over streamable HTTP (`url`, `headers`; see `mcp_endpoint`), and asks for its
//! tools. Each is checked here once, with the entry and field named in every error, so the
//! loader trusts what it gets.
//!
//! Without `[[sources]]`, the catalog is the one directory of `catalog_dir`. A `catalog_dir`
//! given by flag or environment replaces the configured `dir` sources, so `--catalog` means
//! the same with or without a configuration file.

use super::mcp_endpoint::{http_endpoint, McpEndpoint};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long listing an MCP source's tools may take by default.
pub const DEFAULT_SOURCE_TIMEOUT: Duration = Duration::from_secs(30);

/// One `[[sources]]` entry as written; every field optional so that each error can say which
/// field a kind needs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceEntry {
    name: Option<String>,
    kind: Option<String>,
    path: Option<PathBuf>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    /// Header name -> the environment variable holding its value.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout_secs: Option<u64>,
}

/// A checked catalog source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogSource {
    /// Lowercase letters, digits, `-` and `_`; unique. Tools of `mcp` and `file` sources get
    /// the id `<name>.<tool>`.
    pub name: String,
    pub kind: SourceKind,
    /// How long starting (connecting to) and listing an `mcp` source may take, and each call
    /// to its tools.
    pub timeout: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceKind {
    Dir(PathBuf),
    File(PathBuf),
    /// An MCP server, over stdio or streamable HTTP.
    Mcp(McpEndpoint),
}

impl CatalogSource {
    /// The word `kind = "..."` uses for this source.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            SourceKind::Dir(_) => "dir",
            SourceKind::File(_) => "file",
            SourceKind::Mcp { .. } => "mcp",
        }
    }
}

/// The effective sources: the configured ones with relative paths taken from `base` (the
/// configuration file's directory), the `dir` ones replaced by `catalog_dir` when a flag or
/// the environment gave it (`explicit_dir`), or `catalog_dir` alone when none is configured.
pub(crate) fn checked(
    entries: Vec<SourceEntry>,
    catalog_dir: &Path,
    explicit_dir: bool,
    base: &Path,
) -> Result<Vec<CatalogSource>> {
    let catalog = || CatalogSource {
        name: "catalog".into(),
        kind: SourceKind::Dir(catalog_dir.to_path_buf()),
        timeout: DEFAULT_SOURCE_TIMEOUT,
    };
    if entries.is_empty() {
        return Ok(vec![catalog()]);
    }
    let mut out: Vec<CatalogSource> = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let source = checked_entry(i, entry, base, &|v| std::env::var(v).ok())?;
        if let Some(first) = out.iter().position(|s| s.name == source.name) {
            return Err(Error::Config(format!(
                "sources[{i}].name: expected a name no other source has, found \"{}\" (also sources[{first}])",
                source.name
            )));
        }
        out.push(source);
    }
    if explicit_dir {
        out.retain(|s| !matches!(s.kind, SourceKind::Dir(_)));
        if out.iter().any(|s| s.name == "catalog") {
            return Err(Error::Config(
                "sources: a source named \"catalog\" conflicts with the catalog directory given by --catalog or TOOLSCOUT_CATALOG_DIR; rename it".into(),
            ));
        }
        out.insert(0, catalog());
    }
    Ok(out)
}

/// A mistake in field `field` of entry `i`.
fn field_error(i: usize, field: &str, expected: &str, found: String) -> Error {
    Error::Config(format!(
        "sources[{i}].{field}: expected {expected}, found {found}"
    ))
}

/// One entry; `lookup` reads the environment variables that hold header values.
fn checked_entry(
    i: usize,
    e: SourceEntry,
    base: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<CatalogSource> {
    let bad = |field: &str, expected: &str, found: String| field_error(i, field, expected, found);
    let name = e
        .name
        .clone()
        .ok_or_else(|| bad("name", "a name", "none".into()))?;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !valid {
        return Err(bad(
            "name",
            "1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or digit",
            format!("\"{name}\""),
        ));
    }
    let timeout_secs = e.timeout_secs;
    let kind = source_kind(i, e, &name, base, lookup)?;
    let timeout = match timeout_secs {
        None => DEFAULT_SOURCE_TIMEOUT,
        Some(s @ 1..=600) => Duration::from_secs(s),
        Some(s) => return Err(bad("timeout_secs", "1 to 600 seconds", s.to_string())),
    };
    Ok(CatalogSource {
        name,
        kind,
        timeout,
    })
}

/// The kind of entry `i` and its fields.
fn source_kind(
    i: usize,
    e: SourceEntry,
    name: &str,
    base: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<SourceKind> {
    let bad = |field: &str, expected: &str, found: String| field_error(i, field, expected, found);
    let kind = e.kind.as_deref().unwrap_or("");
    let resolve = |p: PathBuf| if p.is_relative() { base.join(p) } else { p };
    let fields_of_mcp = e.command.is_some()
        || !e.args.is_empty()
        || !e.env.is_empty()
        || e.cwd.is_some()
        || !e.headers.is_empty();
    match kind {
        "dir" | "file" => {
            if fields_of_mcp || e.url.is_some() {
                return Err(bad(
                    "kind",
                    "\"mcp\" for a source with command, args, env, cwd, url or headers",
                    format!("\"{kind}\""),
                ));
            }
            let path = e
                .path
                .map(resolve)
                .ok_or_else(|| bad("path", &format!("the {kind}'s path"), "none".into()))?;
            Ok(if kind == "dir" {
                SourceKind::Dir(path)
            } else {
                SourceKind::File(path)
            })
        }
        "mcp" if e.url.is_some() => {
            if let Some(field) = stdio_field(&e) {
                return Err(bad(
                    field,
                    "no command, args, env, cwd or path for a source with a url",
                    format!("{field} as well as url"),
                ));
            }
            let url = e.url.as_deref().unwrap_or_default();
            Ok(SourceKind::Mcp(http_endpoint(
                &|field| format!("sources[{i}].{field}"),
                name,
                url,
                &e.headers,
                lookup,
            )?))
        }
        "mcp" => mcp_kind(
            e.command,
            e.args,
            e.env,
            e.cwd.map(resolve),
            e.headers,
            e.path,
        )
        .map_err(|(field, expected, found)| bad(field, expected, found)),
        other => Err(bad(
            "kind",
            "\"dir\", \"file\" or \"mcp\"",
            format!("\"{other}\""),
        )),
    }
}

/// The first field of a stdio server an entry with a `url` also has.
fn stdio_field(e: &SourceEntry) -> Option<&'static str> {
    [
        ("command", e.command.is_some()),
        ("args", !e.args.is_empty()),
        ("env", !e.env.is_empty()),
        ("cwd", e.cwd.is_some()),
        ("path", e.path.is_some()),
    ]
    .into_iter()
    .find_map(|(field, set)| set.then_some(field))
}

type FieldError = (&'static str, &'static str, String);

/// A stdio server's fields.
fn mcp_kind(
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    headers: BTreeMap<String, String>,
    path: Option<PathBuf>,
) -> std::result::Result<SourceKind, FieldError> {
    if path.is_some() {
        return Err((
            "path",
            "no path for an mcp source (command, args, env, cwd; or url, headers)",
            "a path".into(),
        ));
    }
    if !headers.is_empty() {
        return Err((
            "headers",
            "headers only with a url (a stdio server takes env)",
            "headers without url".into(),
        ));
    }
    let command = command.filter(|c| !c.trim().is_empty()).ok_or((
        "command",
        "the command that starts the MCP server",
        "none".to_string(),
    ))?;
    if let Some(key) = env
        .keys()
        .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
    {
        return Err((
            "env",
            "variable names without '=' or NUL",
            format!("\"{key}\""),
        ));
    }
    Ok(SourceKind::Mcp(McpEndpoint::Stdio {
        command,
        args,
        env,
        cwd,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(toml_text: &str) -> Vec<SourceEntry> {
        #[derive(Deserialize)]
        struct File {
            sources: Vec<SourceEntry>,
        }
        toml::from_str::<File>(toml_text).unwrap().sources
    }

    #[test]
    fn no_sources_is_the_catalog_directory() {
        let s = checked(vec![], Path::new("/c"), false, Path::new("/")).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].kind, SourceKind::Dir("/c".into()));
    }

    #[test]
    fn sources_are_checked_in_order_with_paths_from_the_file() {
        let e = entry(
            r#"
            [[sources]]
            name = "shipped"
            kind = "dir"
            path = "catalog"
            [[sources]]
            name = "time"
            kind = "mcp"
            command = "python3"
            args = ["-m", "mcp_server_time"]
            timeout_secs = 10
            "#,
        );
        let s = checked(e.clone(), Path::new("/c"), false, Path::new("/etc/ts")).unwrap();
        assert_eq!(s[0].kind, SourceKind::Dir("/etc/ts/catalog".into()));
        assert_eq!(s[1].kind_name(), "mcp");
        assert_eq!(s[1].timeout, Duration::from_secs(10));
        // --catalog replaces the configured directories and keeps the rest.
        let s = checked(e, Path::new("/c"), true, Path::new("/etc/ts")).unwrap();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["catalog", "time"]);
    }

    #[test]
    fn a_url_source_reads_its_headers_from_the_environment() {
        let e = entry(
            "[[sources]]\nname = \"api\"\nkind = \"mcp\"\nurl = \"http://127.0.0.1:8080/mcp\"\nheaders = { Authorization = \"API_TOKEN\" }\ntimeout_secs = 5",
        );
        let lookup = |v: &str| (v == "API_TOKEN").then(|| "Bearer t0k3n".to_string());
        let s = checked_entry(0, e[0].clone(), Path::new("/"), &lookup).unwrap();
        assert_eq!(s.kind_name(), "mcp");
        assert_eq!(s.timeout, Duration::from_secs(5));
        let SourceKind::Mcp(McpEndpoint::Http { url, headers }) = &s.kind else {
            panic!("{s:?}")
        };
        assert_eq!(url, "http://127.0.0.1:8080/mcp");
        assert_eq!(headers[0].name, "Authorization");
        assert_eq!(headers[0].value(), "Bearer t0k3n");
        assert!(!format!("{s:?}").contains("t0k3n"));
    }

    #[test]
    fn each_mistake_names_its_entry_and_field() {
        let cases = [
            (
                "name = \"Time\"\nkind = \"mcp\"\ncommand = \"x\"",
                "sources[0].name",
            ),
            (
                "name = \"t\"\nkind = \"npm\"",
                "sources[0].kind: expected \"dir\", \"file\" or \"mcp\", found \"npm\"",
            ),
            ("name = \"t\"\nkind = \"mcp\"", "sources[0].command"),
            ("name = \"t\"\nkind = \"dir\"", "sources[0].path"),
            (
                "name = \"t\"\nkind = \"dir\"\npath = \"x\"\ncommand = \"y\"",
                "sources[0].kind",
            ),
            (
                "name = \"t\"\nkind = \"mcp\"\nurl = \"file:///mcp.sock\"",
                "sources[0].url: expected an http:// or https:// URL with a host",
            ),
            (
                "name = \"t\"\nkind = \"mcp\"\nurl = \"http://127.0.0.1/mcp\"\ncommand = \"x\"",
                "sources[0].command: expected no command, args, env, cwd or path for a source with a url",
            ),
            (
                "name = \"t\"\nkind = \"mcp\"\ncommand = \"x\"\nheaders = { X-Key = \"K\" }",
                "sources[0].headers: expected headers only with a url",
            ),
            (
                "name = \"t\"\nkind = \"mcp\"\nurl = \"https://h/mcp\"\nheaders = { X-Key = \"TOOLSCOUT_TEST_UNSET_VARIABLE\" }",
                "sources[0].headers.X-Key: expected the environment variable TOOLSCOUT_TEST_UNSET_VARIABLE to hold the value of header X-Key for source 't', found it unset",
            ),
            (
                "name = \"t\"\nkind = \"mcp\"\ncommand = \"x\"\ntimeout_secs = 0",
                "sources[0].timeout_secs",
            ),
        ];
        for (body, expected) in cases {
            let e = entry(&format!("[[sources]]\n{body}"));
            let err = checked(e, Path::new("/c"), false, Path::new("/")).unwrap_err();
            assert!(err.to_string().contains(expected), "{body}: {err}");
        }
        let twice = entry(
            "[[sources]]\nname = \"a\"\nkind = \"dir\"\npath = \"x\"\n[[sources]]\nname = \"a\"\nkind = \"file\"\npath = \"y\"",
        );
        let err = checked(twice, Path::new("/c"), false, Path::new("/")).unwrap_err();
        assert!(err.to_string().contains("sources[1].name"), "{err}");
    }
}
