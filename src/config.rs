//! Configuration: defaults, then an optional `toolscout.toml`, then `TOOLSCOUT_*` environment
//! variables, then command-line flags; later sources win. This is the only module that reads
//! environment variables, so every knob is visible in one place and in `--print-config`.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

mod exec;
mod search;
pub use exec::ExecConfig;
pub use search::{SearchConfig, SearchMode};

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
    /// Origins a browser may call the API from (CORS); empty means CORS is off, `*` any origin.
    pub cors_origins: Vec<String>,
    /// Search behaviour (`[search]` in the file): seed 002's `SearchConfiguration`.
    pub search: SearchConfig,
    /// Tool execution (`[tools]` in the file): sandbox roots, GitHub, registries, LSP.
    pub exec: ExecConfig,
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
    cors_origins: Option<Vec<String>>,
    #[serde(default)]
    search: Option<SearchConfig>,
    #[serde(default)]
    tools: Option<exec::ToolsFile>,
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
        let explicit = flags
            .config_file
            .clone()
            .map(|p| (p, "flag --config".to_string()))
            .or_else(|| {
                env.get("TOOLSCOUT_CONFIG")
                    .map(|p| (PathBuf::from(p), "env TOOLSCOUT_CONFIG".to_string()))
            });
        let (file, config_file) = match explicit {
            Some((path, _)) => (read_file(&path)?, Some(path)),
            None => {
                let local = cwd.join("toolscout.toml");
                if local.is_file() {
                    (read_file(&local)?, Some(local))
                } else {
                    (FileConfig::default(), None)
                }
            }
        };

        let mut sources = BTreeMap::new();
        let mut layer = |key: &'static str,
                         default: Option<String>,
                         file: Option<String>,
                         flag: Option<String>|
         -> Option<String> {
            let env_name = format!("TOOLSCOUT_{}", key.to_uppercase());
            let (value, source) = if let Some(v) = flag {
                (Some(v), format!("flag --{}", key.replace('_', "-")))
            } else if let Some(v) = env.get(&env_name) {
                (Some(v.clone()), format!("env {env_name}"))
            } else if let Some(v) = file {
                (Some(v), "file".to_string())
            } else {
                (default, "default".to_string())
            };
            sources.insert(key, source);
            value
        };
        let path_str = |p: Option<PathBuf>| p.map(|p| p.to_string_lossy().into_owned());

        let addr = layer(
            "addr",
            Some(DEFAULT_ADDR.into()),
            file.addr,
            flags.addr.clone(),
        )
        .unwrap_or_default();
        let catalog_dir = layer(
            "catalog_dir",
            Some(path_str(Some(default_dir("catalog"))).unwrap_or_default()),
            path_str(file.catalog_dir),
            path_str(flags.catalog_dir.clone()),
        )
        .unwrap_or_default();
        let models_dir = layer(
            "models_dir",
            Some(path_str(Some(default_dir("models"))).unwrap_or_default()),
            path_str(file.models_dir),
            path_str(flags.models_dir.clone()),
        )
        .unwrap_or_default();
        let auth_token = layer(
            "auth_token",
            None,
            file.auth_token,
            flags.auth_token.clone(),
        )
        .filter(|t| !t.is_empty());
        let max_body = layer(
            "max_body_bytes",
            Some(DEFAULT_MAX_BODY_BYTES.to_string()),
            file.max_body_bytes.map(|n| n.to_string()),
            flags.max_body_bytes.map(|n| n.to_string()),
        )
        .unwrap_or_default();
        let log_level = layer(
            "log_level",
            Some("info".into()),
            file.log_level,
            flags.log_level.clone(),
        )
        .unwrap_or_default();

        let default_log_dir = env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| Path::new(h).join(".toolscout").join("logs"));
        let log_dir = layer(
            "log_dir",
            path_str(default_log_dir),
            path_str(file.log_dir),
            path_str(flags.log_dir.clone()),
        )
        .filter(|d| !d.trim().is_empty())
        .map(PathBuf::from);
        let default_cache_dir = env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| Path::new(h).join(".toolscout").join("cache"));
        let cache_dir = layer(
            "cache_dir",
            path_str(default_cache_dir),
            path_str(file.cache_dir),
            path_str(flags.cache_dir.clone()),
        )
        .filter(|d| !d.trim().is_empty())
        .map(PathBuf::from);
        let cors = layer(
            "cors_origins",
            None,
            file.cors_origins.map(|list| list.join(",")),
            flags.cors_origins.as_ref().map(|list| list.join(",")),
        )
        .unwrap_or_default();
        let cors_origins = parse_origins(&cors, &sources["cors_origins"])?;

        let addr: SocketAddr = addr.parse().map_err(|_| {
            Error::Config(format!(
                "addr ({}): expected host:port such as {DEFAULT_ADDR}, found \"{addr}\"",
                sources["addr"]
            ))
        })?;
        let max_body_bytes: usize = max_body.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
            Error::Config(format!(
                "max_body_bytes ({}): expected a positive whole number of bytes, found \"{max_body}\"",
                sources["max_body_bytes"]
            ))
        })?;
        if let Some(token) = &auth_token {
            if token.chars().count() < MIN_TOKEN_CHARS {
                return Err(Error::Config(format!(
                    "auth_token ({}): expected at least {MIN_TOKEN_CHARS} characters, found {}",
                    sources["auth_token"],
                    token.chars().count()
                )));
            }
        }
        if !addr.ip().is_loopback() && auth_token.is_none() {
            return Err(Error::Config(format!(
                "addr ({}): {addr} is not a loopback address; binding there needs an auth token \
                 (--auth-token or TOOLSCOUT_AUTH_TOKEN) so that nobody else on the network can use the server",
                sources["addr"]
            )));
        }
        let search = file.search.unwrap_or_default();
        search.check()?;
        let exec =
            ExecConfig::from_sources(file.tools.unwrap_or_default(), env, cwd, &mut sources)?;
        sources.insert(
            "search",
            if search == SearchConfig::default() {
                "default".into()
            } else {
                "file".into()
            },
        );
        Ok(Config {
            search,
            exec,
            addr,
            catalog_dir: PathBuf::from(catalog_dir),
            models_dir: PathBuf::from(models_dir),
            auth_token,
            max_body_bytes,
            log_level,
            log_dir,
            cache_dir,
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
        out
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
