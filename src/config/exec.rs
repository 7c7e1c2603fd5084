//! The `[tools]` section of the configuration: what tool execution may touch and where it
//! reaches. Local and LSP tools read only under the workspace root and the allowed paths;
//! GitHub is reached at a configurable API base (GitHub Enterprise, or a test server); the
//! package registries default to whatever the machine's own npm and pip are configured with,
//! so toolscout never hard-codes a registry and follows mirrors and proxies the user set up.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The public GitHub REST API; GitHub Enterprise users set `github_api_url`.
pub const DEFAULT_GITHUB_API_URL: &str = "https://api.github.com";
/// Characters of tool output per query before it is paginated (octocode's default budget).
pub const DEFAULT_OUTPUT_CHARS: usize = 8000;

/// `[tools]` in the configuration file; every key optional, unknown keys refused.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolsFile {
    workspace_root: Option<PathBuf>,
    allowed_paths: Option<Vec<PathBuf>>,
    github_api_url: Option<String>,
    npm_registry: Option<String>,
    pypi_url: Option<String>,
    output_chars: Option<usize>,
    /// Time limit of one query of any tool, in milliseconds, in place of each family's own.
    timeout_ms: Option<u64>,
    /// Language server commands by language key (`typescript`, `python`, `rust`, ...), each
    /// an argv list; they replace the built-in registry's command for that language.
    lsp_servers: Option<BTreeMap<String, Vec<String>>>,
}

/// The effective tool-execution settings.
#[derive(Clone)]
pub struct ExecConfig {
    /// Relative tool paths resolve against this directory; it is always an allowed root.
    pub workspace_root: PathBuf,
    /// Further directories the local and LSP tools may read (besides the workspace root).
    pub allowed_paths: Vec<PathBuf>,
    /// GitHub REST API base, without a trailing slash.
    pub github_api_url: String,
    /// Token for GitHub (`TOOLSCOUT_GITHUB_TOKEN`, else `GH_TOKEN`, else `GITHUB_TOKEN`).
    pub github_token: Option<String>,
    /// npm registry base; `None` asks `npm config get registry` when first needed.
    pub npm_registry: Option<String>,
    /// PyPI base (the one serving `/pypi/<name>/json`); `None` asks pip's configuration.
    pub pypi_url: Option<String>,
    /// Output budget per query, in characters, before pagination.
    pub output_chars: usize,
    /// Time limit of one query (retries included), in place of each family's own (GitHub
    /// 60 s, the others 30 s); `None` keeps those.
    pub timeout: Option<Duration>,
    /// Language server overrides by language key.
    pub lsp_servers: BTreeMap<String, Vec<String>>,
    /// The home directory, for `~` in tool paths (`HOME`).
    pub home: Option<PathBuf>,
    /// Where language server programs are looked for (`PATH`).
    pub search_path: Vec<PathBuf>,
}

impl std::fmt::Debug for ExecConfig {
    // The token never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecConfig")
            .field("workspace_root", &self.workspace_root)
            .field("allowed_paths", &self.allowed_paths)
            .field("github_api_url", &self.github_api_url)
            .field(
                "github_token",
                &self.github_token.as_ref().map(|_| "********"),
            )
            .field("npm_registry", &self.npm_registry)
            .field("pypi_url", &self.pypi_url)
            .field("output_chars", &self.output_chars)
            .field("timeout", &self.timeout)
            .field("lsp_servers", &self.lsp_servers)
            .field("home", &self.home)
            .field("search_path", &self.search_path)
            .finish()
    }
}

impl ExecConfig {
    /// Settings for tests and embedders: `root` is the workspace, nothing else configured
    /// (the process's own `HOME` and `PATH` still apply).
    pub fn for_workspace(root: &Path) -> ExecConfig {
        ExecConfig {
            workspace_root: root.to_path_buf(),
            allowed_paths: Vec::new(),
            github_api_url: DEFAULT_GITHUB_API_URL.to_string(),
            github_token: None,
            npm_registry: None,
            pypi_url: None,
            output_chars: DEFAULT_OUTPUT_CHARS,
            timeout: None,
            lsp_servers: BTreeMap::new(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            search_path: std::env::var_os("PATH")
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default(),
        }
    }

    /// Every directory the local tools may read: the workspace root, then the allowed paths.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.workspace_root.as_path())
            .chain(self.allowed_paths.iter().map(PathBuf::as_path))
    }

    /// Layers environment over file over defaults. `cwd` is the default workspace root.
    pub(crate) fn from_sources(
        file: ToolsFile,
        env: &BTreeMap<String, String>,
        cwd: &Path,
        sources: &mut BTreeMap<&'static str, String>,
    ) -> Result<ExecConfig> {
        let mut at = Sources { env, sources };
        let (workspace_root, allowed_paths) =
            at.workspace(file.workspace_root, file.allowed_paths, cwd)?;
        let (github_api_url, npm_registry, pypi_url) =
            at.endpoints(file.github_api_url, file.npm_registry, file.pypi_url)?;
        let github_token = at
            .var("TOOLSCOUT_GITHUB_TOKEN")
            .or_else(|| at.var("GH_TOKEN"))
            .or_else(|| at.var("GITHUB_TOKEN"));
        let output_chars = at.output_chars(file.output_chars)?;
        let lsp_servers = checked_lsp_servers(file.lsp_servers.unwrap_or_default())?;
        let timeout = checked_timeout(file.timeout_ms)?;
        let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let search_path = env
            .get("PATH")
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        Ok(ExecConfig {
            home,
            search_path,
            workspace_root,
            allowed_paths,
            github_api_url,
            github_token,
            npm_registry,
            pypi_url,
            output_chars,
            timeout,
            lsp_servers,
        })
    }
}

/// Longest `timeout_ms`: ten minutes; a query that needs longer is better narrowed.
const MAX_TIMEOUT_MS: u64 = 600_000;

fn checked_timeout(ms: Option<u64>) -> Result<Option<Duration>> {
    match ms {
        None => Ok(None),
        Some(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Some(Duration::from_millis(ms))),
        Some(ms) => Err(Error::Config(format!(
            "[tools] timeout_ms: expected 1 to {MAX_TIMEOUT_MS} milliseconds, found {ms}"
        ))),
    }
}

/// The environment and where each `[tools]` value came from.
struct Sources<'a> {
    env: &'a BTreeMap<String, String>,
    sources: &'a mut BTreeMap<&'static str, String>,
}

impl Sources<'_> {
    /// A set, non-blank environment variable.
    fn var(&self, name: &str) -> Option<String> {
        self.env.get(name).filter(|v| !v.trim().is_empty()).cloned()
    }

    /// `TOOLSCOUT_<KEY>` when set, else the file's value; records which.
    fn pick<T>(&mut self, key: &'static str, file: Option<T>) -> (Option<String>, Option<T>) {
        let from_env = self.var(&format!("TOOLSCOUT_{}", key.to_uppercase()));
        let source = if from_env.is_some() {
            format!("env TOOLSCOUT_{}", key.to_uppercase())
        } else if file.is_some() {
            "file".to_string()
        } else {
            "default".to_string()
        };
        self.sources.insert(key, source);
        (from_env, file)
    }

    /// The workspace root (default: the working directory) and the other allowed paths,
    /// each an existing directory.
    fn workspace(
        &mut self,
        root: Option<PathBuf>,
        allowed: Option<Vec<PathBuf>>,
        cwd: &Path,
    ) -> Result<(PathBuf, Vec<PathBuf>)> {
        let (root_env, root_file) = self.pick("workspace_root", root);
        let workspace_root = match root_env.map(PathBuf::from).or(root_file) {
            Some(root) => existing_dir("workspace_root", &expand_home(&root, self.env))?,
            // The working directory is only a default: commands that run no tool (search,
            // validate) must not fail because it vanished; the tools then find nothing there.
            None => cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf()),
        };
        let (paths_env, paths_file) = self.pick("allowed_paths", allowed);
        let allowed: Vec<PathBuf> = match paths_env {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect(),
            None => paths_file.unwrap_or_default(),
        };
        let allowed_paths = allowed
            .iter()
            .map(|p| existing_dir("allowed_paths", &expand_home(p, self.env)))
            .collect::<Result<Vec<_>>>()?;
        Ok((workspace_root, allowed_paths))
    }

    /// The GitHub API and the package registries' base URLs.
    fn endpoints(
        &mut self,
        github: Option<String>,
        npm: Option<String>,
        pypi: Option<String>,
    ) -> Result<(String, Option<String>, Option<String>)> {
        let (api_env, api_file) = self.pick("github_api_url", github);
        let github_api_url = base_url(
            "github_api_url",
            &api_env
                .or(api_file)
                .unwrap_or_else(|| DEFAULT_GITHUB_API_URL.to_string()),
        )?;
        let (npm_env, npm_file) = self.pick("npm_registry", npm);
        let npm_registry = npm_env
            .or(npm_file)
            .map(|u| base_url("npm_registry", &u))
            .transpose()?;
        let (pypi_env, pypi_file) = self.pick("pypi_url", pypi);
        let pypi_url = pypi_env
            .or(pypi_file)
            .map(|u| base_url("pypi_url", &u))
            .transpose()?;
        Ok((github_api_url, npm_registry, pypi_url))
    }

    /// How many characters a tool's output may hold, 500 to 1,000,000.
    fn output_chars(&mut self, file: Option<usize>) -> Result<usize> {
        let (chars_env, chars_file) = self.pick("output_chars", file);
        match (chars_env, chars_file) {
            (Some(v), _) => v.parse::<usize>().ok().filter(|n| (500..=1_000_000).contains(n)).ok_or_else(|| {
                Error::Config(format!(
                    "output_chars (env TOOLSCOUT_OUTPUT_CHARS): expected a whole number from 500 to 1000000, found \"{v}\""
                ))
            }),
            (None, Some(n)) if !(500..=1_000_000).contains(&n) => Err(Error::Config(format!(
                "output_chars (file): expected a whole number from 500 to 1000000, found {n}"
            ))),
            (None, Some(n)) => Ok(n),
            (None, None) => Ok(DEFAULT_OUTPUT_CHARS),
        }
    }
}

/// Language-server commands from the file: each a non-empty argument list.
fn checked_lsp_servers(
    servers: BTreeMap<String, Vec<String>>,
) -> Result<BTreeMap<String, Vec<String>>> {
    if let Some((lang, _)) = servers
        .iter()
        .find(|(_, argv)| argv.is_empty() || argv[0].trim().is_empty())
    {
        return Err(Error::Config(format!(
            "tools.lsp_servers.{lang} (file): expected a command as a non-empty list such as [\"pylsp\"], found an empty one"
        )));
    }
    Ok(servers)
}

fn expand_home(path: &Path, env: &BTreeMap<String, String>) -> PathBuf {
    match (path.strip_prefix("~"), env.get("HOME")) {
        (Ok(rest), Some(home)) if !home.is_empty() => Path::new(home).join(rest),
        _ => path.to_path_buf(),
    }
}

/// A root must exist and is kept in canonical form, so prefix checks on resolved paths work.
fn existing_dir(key: &str, path: &Path) -> Result<PathBuf> {
    match path.canonicalize() {
        Ok(p) if p.is_dir() => Ok(p),
        Ok(_) => Err(Error::Config(format!(
            "{key}: expected a directory, found a file at {}",
            path.display()
        ))),
        Err(e) => Err(Error::Config(format!(
            "{key}: expected an existing directory, found {} ({e})",
            path.display()
        ))),
    }
}

fn base_url(key: &str, url: &str) -> Result<String> {
    let trimmed = url.trim().trim_end_matches('/');
    let ok = (trimmed.starts_with("http://") || trimmed.starts_with("https://"))
        && trimmed.len() > "https://".len()
        && !trimmed.contains(char::is_whitespace);
    if ok {
        Ok(trimmed.to_string())
    } else {
        Err(Error::Config(format!(
            "{key}: expected an http(s) URL such as https://github.example.com/api/v3, found \"{url}\""
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(env: &[(&str, &str)], file: ToolsFile) -> Result<ExecConfig> {
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let dir = std::env::temp_dir();
        ExecConfig::from_sources(file, &env, &dir, &mut BTreeMap::new())
    }

    #[test]
    fn defaults_use_the_working_directory_and_public_github() {
        let c = load(&[], ToolsFile::default()).unwrap();
        assert_eq!(
            c.workspace_root,
            std::env::temp_dir().canonicalize().unwrap()
        );
        assert_eq!(c.github_api_url, DEFAULT_GITHUB_API_URL);
        assert!(c.npm_registry.is_none() && c.pypi_url.is_none());
        assert_eq!(c.output_chars, DEFAULT_OUTPUT_CHARS);
    }

    #[test]
    fn a_vanished_working_directory_is_not_an_error() {
        let c = ExecConfig::from_sources(
            ToolsFile::default(),
            &BTreeMap::new(),
            Path::new("/nonexistent"),
            &mut BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(c.workspace_root, Path::new("/nonexistent"));
    }

    #[test]
    fn token_order_and_urls() {
        let c = load(
            &[
                ("GITHUB_TOKEN", "b"),
                ("GH_TOKEN", "a"),
                ("TOOLSCOUT_GITHUB_API_URL", "http://127.0.0.1:9/api/v3/"),
            ],
            ToolsFile::default(),
        )
        .unwrap();
        assert_eq!(c.github_token.as_deref(), Some("a"));
        assert_eq!(c.github_api_url, "http://127.0.0.1:9/api/v3");
        assert!(!format!("{c:?}").contains("\"a\""));
        let e = load(
            &[("TOOLSCOUT_GITHUB_API_URL", "ftp://x")],
            ToolsFile::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("github_api_url"), "{e}");
    }

    #[test]
    fn missing_roots_are_refused_with_the_key() {
        let e = load(
            &[("TOOLSCOUT_ALLOWED_PATHS", "/no/such/dir")],
            ToolsFile::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("allowed_paths") && e.to_string().contains("/no/such/dir"),
            "{e}"
        );
        let e = load(
            &[("TOOLSCOUT_WORKSPACE_ROOT", "/no/such/root")],
            ToolsFile::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("workspace_root"), "{e}");
        let e = load(&[("TOOLSCOUT_OUTPUT_CHARS", "12")], ToolsFile::default()).unwrap_err();
        assert!(e.to_string().contains("500 to 1000000"), "{e}");
    }
}
