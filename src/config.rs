//! Configuration: defaults, then an optional `toolscout.toml`, then `TOOLSCOUT_*` environment
//! variables, then command-line flags; later sources win. This is the only module that reads
//! environment variables, so every knob is visible in one place and in `--print-config`.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

mod catalog_sources;
mod exec;
mod layers;
mod limits;
mod mcp_endpoint;
mod search;
mod usage;
pub use catalog_sources::{CatalogSource, SourceKind, DEFAULT_SOURCE_TIMEOUT};
pub use exec::ExecConfig;
pub use limits::LimitsConfig;
pub use mcp_endpoint::{http_endpoint, HttpHeader, McpEndpoint};
pub use search::{SearchConfig, SearchMode};
pub use usage::UsageConfig;

use layers::{checked_addr, checked_max_body, config_file, Layers};

pub const DEFAULT_ADDR: &str = "127.0.0.1:1987";
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// Tokens shorter than this are guessable; refused.
const MIN_TOKEN_CHARS: usize = 16;

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the HTTP server listens.
    pub addr: SocketAddr,
    /// The catalog directory (`<category>/<tool_id>.json` files).
    pub catalog_dir: PathBuf,
    /// Where the catalog's tools come from, in order (`[[sources]]`; by default the one
    /// directory `catalog_dir`).
    pub catalog_sources: Vec<CatalogSource>,
    /// Where the embedding model, tokenizer and ONNX Runtime live.
    pub models_dir: PathBuf,
    /// Bearer token required on every route but `/health`; required to bind off loopback.
    pub auth_token: Option<String>,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Log filter (tracing `EnvFilter` syntax), e.g. `info` or `toolscout=debug`.
    pub log_level: String,
    /// Where the server appends JSON-lines request and error logs (`requests.log`,
    /// `errors.log`); `None` (an empty value, or no home directory) turns file logs off.
    pub log_dir: Option<PathBuf>,
    /// Where catalog passage vectors are cached between runs (`embed::cache`); `None` (an
    /// empty value, or no home directory) embeds the whole catalog at every start.
    pub cache_dir: Option<PathBuf>,
    /// Where the usage store keeps its database (`usage.db`); `None` (an empty value, or no
    /// home directory) turns the store off.
    pub data_dir: Option<PathBuf>,
    /// Origins a browser may call the API from (CORS); empty means CORS is off, `*` any origin.
    pub cors_origins: Vec<String>,
    /// Search behaviour (`[search]` in the file): seed 002's `SearchConfiguration`.
    pub search: SearchConfig,
    /// The `[limits]` table: CPU work at once and the queue before it (see `admission`).
    pub limits: LimitsConfig,
    /// Tool execution (`[tools]` in the file): sandbox roots, GitHub, registries, LSP.
    pub exec: ExecConfig,
    /// The `[usage]` table: the usage store's retention, queue and `min_calls`.
    pub usage: UsageConfig,
    /// The configuration file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// Where each value came from: `default`, `file`, `env NAME`, `flag --name`.
    pub sources: BTreeMap<&'static str, String>,
}

/// Values given on the command line; `None` leaves the lower layers in force.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config_file: Option<PathBuf>,
    pub addr: Option<String>,
    pub catalog_dir: Option<PathBuf>,
    pub models_dir: Option<PathBuf>,
    pub auth_token: Option<String>,
    pub max_body_bytes: Option<usize>,
    pub log_level: Option<String>,
    pub log_dir: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub cors_origins: Option<Vec<String>>,
}

/// The file format: every key optional, unknown keys refused (a typo must not pass silently).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    addr: Option<String>,
    catalog_dir: Option<PathBuf>,
    models_dir: Option<PathBuf>,
    auth_token: Option<String>,
    max_body_bytes: Option<usize>,
    log_level: Option<String>,
    log_dir: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    cors_origins: Option<Vec<String>>,
    #[serde(default)]
    search: Option<SearchConfig>,
    #[serde(default)]
    tools: Option<exec::ToolsFile>,
    #[serde(default)]
    limits: Option<LimitsConfig>,
    #[serde(default)]
    usage: Option<UsageConfig>,
    #[serde(default)]
    sources: Vec<catalog_sources::SourceEntry>,
}

impl Config {
    /// Loads the configuration from the process environment.
    pub fn load(flags: &Overrides) -> Result<Config> {
        // HOME locates the default log and cache directories and `~` in tool paths; PATH
        // is where language servers are looked for; the tokens authenticate GitHub calls.
        let env: BTreeMap<String, String> = std::env::vars()
            .filter(|(k, _)| {
                k.starts_with("TOOLSCOUT_")
                    || ["HOME", "PATH", "GH_TOKEN", "GITHUB_TOKEN"].contains(&k.as_str())
            })
            .collect();
        Config::from_sources(flags, &env, Path::new("."))
    }

    /// Loads from explicit sources (tests pass their own environment and working directory).
    pub fn from_sources(
        flags: &Overrides,
        env: &BTreeMap<String, String>,
        cwd: &Path,
    ) -> Result<Config> {
        let (mut file, config_file) = config_file(flags, env, cwd)?;
        let entries = std::mem::take(&mut file.sources);
        let mut layers = Layers {
            env,
            sources: BTreeMap::new(),
        };
        let picked = layers.pick_all(&mut file, flags);
        let mut sources = layers.sources;
        let cors_origins = parse_origins(&picked.cors, &sources["cors_origins"])?;
        let addr = checked_addr(&picked.addr, picked.auth_token.as_deref(), &sources)?;
        let max_body_bytes = checked_max_body(&picked.max_body, &sources["max_body_bytes"])?;
        let search = file.search.unwrap_or_default();
        search.check()?;
        let limits = file.limits.unwrap_or_default();
        limits.check()?;
        let exec =
            ExecConfig::from_sources(file.tools.unwrap_or_default(), env, cwd, &mut sources)?;
        let search_source = if search == SearchConfig::default() {
            "default"
        } else {
            "file"
        };
        sources.insert("search", search_source.into());
        let limits_source = if limits == LimitsConfig::default() {
            "default"
        } else {
            "file"
        };
        sources.insert("limits", limits_source.into());
        let usage = file.usage.unwrap_or_default();
        usage.check()?;
        let usage_source = if usage == UsageConfig::default() {
            "default"
        } else {
            "file"
        };
        sources.insert("usage", usage_source.into());
        // Relative source paths are the configuration file's, as its author sees them.
        let base = config_file
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
        let explicit_dir = sources
            .get("catalog_dir")
            .is_some_and(|s| s.starts_with("flag") || s.starts_with("env"));
        let catalog_sources =
            catalog_sources::checked(entries, &picked.catalog_dir, explicit_dir, &base)?;
        Ok(Config {
            catalog_sources,
            search,
            limits,
            exec,
            usage,
            addr,
            catalog_dir: picked.catalog_dir,
            models_dir: picked.models_dir,
            auth_token: picked.auth_token,
            max_body_bytes,
            log_level: picked.log_level,
            log_dir: picked.log_dir,
            cache_dir: picked.cache_dir,
            data_dir: picked.data_dir,
            cors_origins,
            config_file,
            sources,
        })
    }

    /// The `[tools]` table of `to_toml`.
    fn exec_toml(&self, q: &dyn Fn(&str) -> String) -> String {
        let e = &self.exec;
        let source = |key: &str| {
            self.sources
                .get(key)
                .map_or("default", |s| s.as_str())
                .to_string()
        };
        let line = |key: &str, value: String| format!("{key} = {value}  # {}\n", source(key));
        let allowed: Vec<String> = e
            .allowed_paths
            .iter()
            .map(|p| q(&p.to_string_lossy()))
            .collect();
        let mut out = String::from("\n[tools]\n");
        out.push_str(&line(
            "workspace_root",
            q(&e.workspace_root.to_string_lossy()),
        ));
        out.push_str(&line("allowed_paths", format!("[{}]", allowed.join(", "))));
        out.push_str(&line("github_api_url", q(&e.github_api_url)));
        out.push_str(&line("output_chars", e.output_chars.to_string()));
        if let Some(t) = e.timeout {
            out.push_str(&line("timeout_ms", t.as_millis().to_string()));
        }
        for (key, value) in [("npm_registry", &e.npm_registry), ("pypi_url", &e.pypi_url)] {
            out.push_str(&match value {
                Some(url) => line(key, q(url)),
                None => format!(
                    "# {key} not set: asked of the machine's own client when first needed\n"
                ),
            });
        }
        out.push_str(if e.github_token.is_some() {
            "# a GitHub token is set\n"
        } else {
            "# no GitHub token (TOOLSCOUT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN)\n"
        });
        out
    }

    /// The configuration as TOML, each value annotated with its source; the token is masked.
    pub fn to_toml(&self) -> String {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut out = String::from("# effective toolscout configuration\n");
        if let Some(f) = &self.config_file {
            out.push_str(&format!("# read from {}\n", f.display()));
        }
        let mut line = |key: &str, value: String| {
            out.push_str(&format!(
                "{key} = {value}  # {}\n",
                self.sources.get(key).map_or("default", |s| s)
            ));
        };
        line("addr", q(&self.addr.to_string()));
        line("catalog_dir", q(&self.catalog_dir.to_string_lossy()));
        line("models_dir", q(&self.models_dir.to_string_lossy()));
        line("max_body_bytes", self.max_body_bytes.to_string());
        line("log_level", q(&self.log_level));
        // An empty log_dir turns file logs off, so "" is the effective value then.
        let log_dir = self.log_dir.as_deref().map(Path::to_string_lossy);
        line("log_dir", q(log_dir.as_deref().unwrap_or("")));
        let cache_dir = self.cache_dir.as_deref().map(Path::to_string_lossy);
        line("cache_dir", q(cache_dir.as_deref().unwrap_or("")));
        let data_dir = self.data_dir.as_deref().map(Path::to_string_lossy);
        line("data_dir", q(data_dir.as_deref().unwrap_or("")));
        let origins: Vec<String> = self.cors_origins.iter().map(|o| q(o)).collect();
        line("cors_origins", format!("[{}]", origins.join(", ")));
        match &self.auth_token {
            Some(_) => line("auth_token", q("********")),
            None => out.push_str("# auth_token not set (only loopback binds are allowed)\n"),
        }
        out.push_str(&self.exec_toml(&q));
        out.push_str(&format!(
            "\n[search]  # {}\n",
            self.sources.get("search").map_or("default", |s| s)
        ));
        if let Ok(toml::Value::Table(table)) = toml::Value::try_from(&self.search) {
            for (k, v) in table {
                out.push_str(&format!("{k} = {v}\n"));
            }
        }
        let l = self.limits.limits();
        out.push_str(&format!(
            "\n[limits]  # {}\nworkers = {}\nqueue = {}\nmax_wait_ms = {}\noverload_wait_ms = {}\n",
            self.sources.get("limits").map_or("default", |s| s),
            l.workers,
            l.queue,
            l.max_wait.as_millis(),
            l.overload_wait.as_millis()
        ));
        let u = &self.usage;
        out.push_str(&format!(
            "\n[usage]  # {}\nretention_days = {}\nretention_rows = {}\nqueue = {}\nmin_calls = {}\n",
            self.sources.get("usage").map_or("default", |s| s),
            u.retention_days,
            u.retention_rows,
            u.queue,
            u.min_calls
        ));
        out.push_str(&self.sources_toml(&q));
        out
    }

    /// The `[[sources]]` tables of `to_toml`: the effective catalog sources, in order. An
    /// `mcp` source's environment shows its variable names only.
    fn sources_toml(&self, q: &dyn Fn(&str) -> String) -> String {
        let mut out = String::new();
        for s in &self.catalog_sources {
            out.push_str(&format!(
                "\n[[sources]]\nname = {}\nkind = {}\n",
                q(&s.name),
                q(s.kind_name())
            ));
            match &s.kind {
                SourceKind::Dir(p) | SourceKind::File(p) => {
                    out.push_str(&format!("path = {}\n", q(&p.to_string_lossy())));
                }
                SourceKind::Mcp(endpoint) => out.push_str(&endpoint_toml(endpoint, q)),
            }
            if matches!(s.kind, SourceKind::Mcp(_)) {
                out.push_str(&format!("timeout_secs = {}\n", s.timeout.as_secs()));
            }
        }
        out
    }
}

/// An `mcp` source's server as `[[sources]]` fields. Its environment shows variable names
/// only, and its headers the variables they are read from, as the file holds them.
fn endpoint_toml(endpoint: &McpEndpoint, q: &dyn Fn(&str) -> String) -> String {
    match endpoint {
        McpEndpoint::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let args: Vec<String> = args.iter().map(|a| q(a)).collect();
            let mut out = format!("command = {}\nargs = [{}]\n", q(command), args.join(", "));
            if let Some(cwd) = cwd {
                out.push_str(&format!("cwd = {}\n", q(&cwd.to_string_lossy())));
            }
            if !env.is_empty() {
                let names: Vec<&str> = env.keys().map(String::as_str).collect();
                out.push_str(&format!("# env sets {}\n", names.join(", ")));
            }
            out
        }
        McpEndpoint::Http { url, headers } => {
            let mut out = format!("url = {}\n", q(url));
            if !headers.is_empty() {
                let pairs: Vec<String> = headers
                    .iter()
                    .map(|h| format!("{} = {}", q(&h.name), q(&h.variable)))
                    .collect();
                out.push_str(&format!("headers = {{ {} }}\n", pairs.join(", ")));
            }
            out
        }
    }
}

/// Splits a comma-separated origin list and checks each entry: `*`, or `http(s)://host[:port]`
/// exactly as a browser sends it in the `Origin` header (no path, no trailing slash).
fn parse_origins(list: &str, source: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for origin in list.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let rest = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"));
        let ok = origin == "*"
            || rest.is_some_and(|host| {
                !host.is_empty()
                    && !host.contains('/')
                    && host.chars().all(|c| c.is_ascii_graphic())
            });
        if !ok {
            return Err(Error::Config(format!(
                "cors_origins ({source}): expected origins such as https://app.example.com or *, found \"{origin}\""
            )));
        }
        out.push(origin.to_string());
    }
    Ok(out)
}

fn read_file(path: &Path) -> Result<FileConfig> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))
}

/// Finds a data directory (`catalog`, `models`) from the installation, not the working
/// directory: `<prefix>/share/toolscout/<name>` beside `<prefix>/bin/toolscout`, then the
/// nearest ancestor of the executable's directory that holds `<name>/` (a source checkout
/// running `target/*/toolscout`), then the source tree the binary was built from.
pub fn default_dir(name: &str) -> PathBuf {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    if let Some(dir) = &exe_dir {
        if let Some(prefix) = dir.parent() {
            let shared = prefix.join("share").join("toolscout").join(name);
            if shared.is_dir() {
                return shared;
            }
        }
        for ancestor in dir.ancestors().take(5) {
            let candidate = ancestor.join(name);
            if candidate.is_dir() {
                return candidate;
            }
        }
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    if built_from.is_dir() {
        return built_from;
    }
    exe_dir.unwrap_or_default().join(name)
}

#[cfg(test)]
mod tests;
