//! `toolscout catalog import --mcp "<command>" | --url URL [--header NAME=ENVVAR ...]
//! [--out DIR]`: starts an MCP server (or connects to one over streamable HTTP, sending each
//! header with the value of its environment variable), lists its tools and writes one catalog
//! file per tool (`<out>/<category>/<tool_id>.json`), then runs the validator over what it
//! wrote, so the maintainer sees in one report what each file still lacks (examples, when to
//! use it, keywords). Existing files are never overwritten.

use super::common::{bad_argument, load_catalog_dir, load_embedder, runtime};
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolscout::catalog;
use toolscout::config::{
    http_endpoint, CatalogSource, Config, McpEndpoint, SourceKind, DEFAULT_SOURCE_TIMEOUT,
};
use toolscout::Error;

#[derive(Args)]
#[command(group = clap::ArgGroup::new("server").required(true).args(["mcp", "url"]))]
pub(crate) struct ImportArgs {
    /// The command that starts the MCP server, as one string ('python3 -m mcp_server_time');
    /// single or double quotes group words
    #[arg(long, value_name = "COMMAND")]
    mcp: Option<String>,
    /// The streamable-HTTP endpoint of an MCP server (http:// or https://)
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// A header to send to --url, as NAME=ENVVAR: the value is read from the environment
    /// variable ENVVAR, never given on the command line (repeatable)
    #[arg(long = "header", value_name = "NAME=ENVVAR", requires = "url")]
    headers: Vec<String>,
    /// The source's name: the prefix of every imported id (default: the command's name, or
    /// the URL's host)
    #[arg(long)]
    name: Option<String>,
    /// Where to write the files (default: the configured catalog directory)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Directory with the embedding model, to place tools in categories by meaning
    #[arg(long, value_name = "DIR")]
    pub(crate) models: Option<PathBuf>,
}

pub(crate) fn run(config: &Config, args: ImportArgs) -> Result<ExitCode, Error> {
    let source = source(&args)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| config.catalog_dir.clone());
    // The catalog's categories, when there is one to place the tools in.
    let known = if config.catalog_dir.is_dir() {
        load_catalog_dir(&config.catalog_dir)?.tools().to_vec()
    } else {
        Vec::new()
    };
    let embedder = load_embedder(config).ok();
    let imported = runtime()?.block_on(toolscout::mcp::gateway::import(
        &source,
        &known,
        embedder.as_deref(),
    ))?;
    let mut written = 0;
    for tool in &imported {
        let path = out
            .join(&tool.category)
            .join(format!("{}.json", tool.tool_id));
        if path.exists() {
            eprintln!(
                "kept {} (it exists; remove it to import again)",
                path.display()
            );
            continue;
        }
        write(&path, &tool.document)?;
        println!("wrote {}", path.display());
        written += 1;
    }
    println!("{written} of {} tools written", imported.len());
    let sources = catalog::read_dir(&out)?;
    let validation = catalog::validate(&sources);
    print!("{}", catalog::render_human(&validation, false));
    Ok(if validation.is_valid(false) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The server to import from, as a source: a command's (`--mcp`) or a URL's (`--url`).
fn source(args: &ImportArgs) -> Result<CatalogSource, Error> {
    let (name, kind) = match (&args.mcp, &args.url) {
        (Some(line), _) => {
            let words = split_command(line)?;
            let name = args.name.clone().unwrap_or_else(|| source_name(&words[0]));
            let endpoint = McpEndpoint::Stdio {
                command: words[0].clone(),
                args: words[1..].to_vec(),
                env: Default::default(),
                cwd: None,
            };
            (name, endpoint)
        }
        (None, Some(url)) => {
            let host = reqwest::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string));
            let name = args
                .name
                .clone()
                .unwrap_or_else(|| source_name(host.as_deref().unwrap_or("mcp")));
            let headers = header_variables(&args.headers)?;
            let place = |field: &str| match field.strip_prefix("headers.") {
                Some(header) => format!("--header {header}"),
                None => format!("--{field}"),
            };
            let lookup = |v: &str| std::env::var(v).ok();
            let endpoint = http_endpoint(&place, &name, url, &headers, &lookup)?;
            (name, endpoint)
        }
        (None, None) => {
            return Err(bad_argument(
                "/mcp",
                "expected --mcp COMMAND or --url URL, found neither".into(),
            ))
        }
    };
    Ok(CatalogSource {
        name,
        kind: SourceKind::Mcp(kind),
        timeout: DEFAULT_SOURCE_TIMEOUT,
    })
}

/// `--header NAME=ENVVAR` flags as header name -> variable.
fn header_variables(flags: &[String]) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    for flag in flags {
        let Some((name, variable)) = flag.split_once('=') else {
            return Err(bad_argument(
                "/header",
                format!("expected NAME=ENVVAR (the variable that holds the value), found {flag:?}"),
            ));
        };
        out.insert(name.trim().to_string(), variable.trim().to_string());
    }
    Ok(out)
}

fn write(path: &Path, document: &serde_json::Value) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text =
        serde_json::to_string_pretty(document).map_err(|e| Error::Internal(e.to_string()))?;
    std::fs::write(path, text + "\n").map_err(io)
}

/// A source name from a command: its file name, in the sources' alphabet.
fn source_name(command: &str) -> String {
    let base = Path::new(command)
        .file_name()
        .map_or(command.to_string(), |f| f.to_string_lossy().to_string());
    let name: String = base
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        name
    } else {
        format!("mcp{name}")
    }
}

/// Words of a command line: whitespace separates, single or double quotes group.
fn split_command(line: &str) -> Result<Vec<String>, Error> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if quote.is_some() {
        return Err(bad_argument(
            "/mcp",
            format!("expected closed quotes, found {line:?}"),
        ));
    }
    if started {
        words.push(word);
    }
    if words.is_empty() {
        return Err(bad_argument(
            "/mcp",
            "expected a command, found nothing".into(),
        ));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_on_spaces_and_group_in_quotes() {
        let w = split_command(r#"python3 -m 'my server' "a b" c"#).unwrap();
        assert_eq!(w, ["python3", "-m", "my server", "a b", "c"]);
        assert!(split_command("  ").is_err());
        assert!(split_command("x 'open").is_err());
        assert_eq!(split_command("Ⱥ é").unwrap(), ["Ⱥ", "é"]);
    }

    #[test]
    fn source_names_come_from_the_command() {
        assert_eq!(source_name("/usr/bin/mcp-server-time"), "mcp_server_time");
        assert_eq!(source_name("-x"), "mcp_x");
        assert_eq!(source_name("mcp.example.com"), "mcp_example_com");
    }

    #[test]
    fn header_flags_name_a_variable_each() {
        let h = header_variables(&["Authorization=API_TOKEN".into(), "X-Key = K".into()]);
        let h = h.unwrap();
        assert_eq!(h["Authorization"], "API_TOKEN");
        assert_eq!(h["X-Key"], "K");
        let err = header_variables(&["Authorization".into()]).unwrap_err();
        assert!(err.to_string().contains("expected NAME=ENVVAR"), "{err}");
    }
}
