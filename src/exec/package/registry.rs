//! Where the registries are. Each base URL is resolved once, on first use: the configuration
//! wins; otherwise npm's own `registry` setting and pip's own index (its configured
//! `index-url`, else the default compiled into pip), so a mirror or proxy the user set up for
//! npm and pip is followed here too, and no registry host is ever written in this code.
//! A registry found through npm or pip is reached with the CAs that tool trusts (`trust`).
//! A failed resolution is not cached: installing npm or pip later makes the tool work
//! without a restart.

use super::probe::{first_output, http_url, index_base, pip_setting, run, trim_base, Probes};
use super::trust;
use crate::config::ExecConfig;
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use reqwest::Url;
use tokio::sync::OnceCell;

/// A resolved registry base and where it came from (named in hints and errors).
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    /// Base URL without a trailing slash.
    pub(crate) base: String,
    /// e.g. "the npm_registry setting", "npm config", "pip config (global.index-url)".
    pub(crate) source: String,
    /// A client trusting the CA bundle npm or pip is configured with, when there is one.
    pub(crate) client: Option<reqwest::Client>,
}

impl Registry {
    fn new(base: String, source: impl Into<String>) -> Registry {
        Registry {
            base,
            source: source.into(),
            client: None,
        }
    }

    /// The client to reach this registry with: its own when it has one, else `shared`.
    pub(crate) fn http<'a>(&'a self, shared: &'a reqwest::Client) -> &'a reqwest::Client {
        self.client.as_ref().unwrap_or(shared)
    }

    /// Adds the trust of the CA bundle at `path` (if any); a bundle that cannot be used is
    /// named in `source`, so a later TLS error explains itself.
    async fn trusting(mut self, path: Option<String>, setting: &str) -> Registry {
        if let Some(path) = path {
            match trust::client_trusting(&path).await {
                Ok(client) => {
                    self.client = Some(client);
                    self.source = format!("{}, trusting its {setting} {path}", self.source);
                }
                Err(why) => {
                    self.source = format!("{}; its {setting} was not used: {why}", self.source)
                }
            }
        }
        self
    }

    /// The base with `segments` appended, each percent-encoded as one path segment (so a
    /// scoped npm name `@scope/name` becomes `@scope%2Fname`).
    pub(crate) fn url(&self, segments: &[&str]) -> Result<Url, QueryError> {
        let mut url = Url::parse(&self.base).map_err(|e| {
            QueryError::new(
                Failure::Unavailable,
                ToolErrorCode::RegistryUrlInvalid,
                format!(
                    "registry base '{}' (from {}) is not a usable URL: {e}",
                    self.base, self.source
                ),
            )
            .hint("Set npm_registry / pypi_url in the [tools] configuration to an http(s) URL")
        })?;
        {
            let mut path = url.path_segments_mut().map_err(|()| {
                QueryError::new(
                    Failure::Unavailable,
                    ToolErrorCode::RegistryUrlInvalid,
                    format!(
                        "registry base '{}' (from {}) cannot take a path",
                        self.base, self.source
                    ),
                )
            })?;
            path.pop_if_empty();
            for s in segments {
                path.push(s);
            }
        }
        Ok(url)
    }
}

/// Registry base URLs, resolved once when first needed.
pub struct Registries {
    npm_setting: Option<String>,
    pypi_setting: Option<String>,
    probes: Probes,
    npm: OnceCell<Registry>,
    pypi: OnceCell<Registry>,
}

impl Registries {
    pub fn new(config: &ExecConfig) -> Registries {
        Registries::with_probes(config, Probes::default())
    }

    pub(crate) fn with_probes(config: &ExecConfig, probes: Probes) -> Registries {
        Registries {
            npm_setting: config.npm_registry.clone(),
            pypi_setting: config.pypi_url.clone(),
            probes,
            npm: OnceCell::new(),
            pypi: OnceCell::new(),
        }
    }

    /// The npm registry: `npm_registry`, else `npm config get registry` (with npm's
    /// `cafile`).
    pub(crate) async fn npm(&self) -> Result<&Registry, QueryError> {
        self.npm
            .get_or_try_init(|| async {
                if let Some(base) = &self.npm_setting {
                    return Ok(Registry::new(trim_base(base), "the npm_registry setting"));
                }
                let tried = self.probes.npm.join(" ");
                let (registry, cafile) =
                    tokio::join!(run(&self.probes.npm), run(&self.probes.npm_cafile));
                match registry {
                    Ok(out) => match http_url(&out) {
                        Some(base) => {
                            let cafile = cafile.ok().as_deref().and_then(trust::configured_path);
                            Ok(Registry::new(base, "npm config")
                                .trusting(cafile, "cafile")
                                .await)
                        }
                        None => Err(unresolved(
                            "npm",
                            format!("`{tried}` printed {:?}, not an http(s) URL", out.trim()),
                        )),
                    },
                    Err(why) => Err(unresolved("npm", format!("`{tried}` failed: {why}"))),
                }
            })
            .await
    }

    /// The PyPI base serving `/pypi/<name>/json`: `pypi_url`, else pip's configured
    /// `index-url` turned into its base, else pip's built-in default index.
    pub(crate) async fn pypi(&self) -> Result<&Registry, QueryError> {
        self.pypi
            .get_or_try_init(|| async {
                if let Some(base) = &self.pypi_setting {
                    return Ok(Registry::new(trim_base(base), "the pypi_url setting"));
                }
                let mut why = Vec::new();
                let mut cert = None;
                match first_output(&self.probes.pip_config).await {
                    Ok(listing) => {
                        cert = pip_setting(&listing, "cert").map(|(_, path)| path);
                        if let Some((key, index)) = pip_setting(&listing, "index-url") {
                            match index_base(&index) {
                                Some(base) => {
                                    return Ok(Registry::new(base, format!("pip config ({key})"))
                                        .trusting(cert, "cert")
                                        .await)
                                }
                                None => {
                                    why.push(format!("pip's {key} {index:?} is not an http(s) URL"))
                                }
                            }
                        }
                    }
                    Err(e) => why.push(format!("pip config: {e}")),
                }
                match first_output(&self.probes.pip_default).await {
                    Ok(out) => match index_base(out.trim()) {
                        Some(base) => Ok(Registry::new(base, "pip's default index")
                            .trusting(cert, "cert")
                            .await),
                        None => {
                            why.push(format!(
                                "pip's default index {:?} is not an http(s) URL",
                                out.trim()
                            ));
                            Err(unresolved("python", why.join("; ")))
                        }
                    },
                    Err(e) => {
                        why.push(format!("pip's default index: {e}"));
                        Err(unresolved("python", why.join("; ")))
                    }
                }
            })
            .await
    }
}

fn unresolved(ecosystem: &str, why: String) -> QueryError {
    let (setting, env) = if ecosystem == "npm" {
        ("npm_registry", "TOOLSCOUT_NPM_REGISTRY")
    } else {
        ("pypi_url", "TOOLSCOUT_PYPI_URL")
    };
    let program = if ecosystem == "npm" { "npm" } else { "pip" };
    QueryError::new(
        Failure::Unavailable,
        ToolErrorCode::RegistryUnresolved,
        format!("No {ecosystem} registry is configured and none could be read from {program}: {why}"),
    )
    .detail("ecosystem", ecosystem)
    .hint(format!("Set {setting} in the [tools] section of the configuration, or the {env} environment variable"))
    .hint(format!("Or install {program} and configure its registry; toolscout follows {program}'s own setting"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(npm: Option<&str>, pypi: Option<&str>) -> ExecConfig {
        let mut c = ExecConfig::for_workspace(Path::new("."));
        c.npm_registry = npm.map(str::to_string);
        c.pypi_url = pypi.map(str::to_string);
        c
    }

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Probes that run `sh -c <script>`, standing in for npm and pip.
    fn fake(npm: &str, pip_config: &str, pip_default: &str) -> Probes {
        Probes {
            npm: argv(&["sh", "-c", npm]),
            npm_cafile: argv(&["sh", "-c", "echo null"]),
            pip_config: vec![argv(&["sh", "-c", pip_config])],
            pip_default: vec![argv(&["sh", "-c", pip_default])],
        }
    }

    #[tokio::test]
    async fn the_configuration_wins_over_the_machine() {
        let r = Registries::with_probes(
            &config(
                Some("http://127.0.0.1:9/npm/"),
                Some("http://127.0.0.1:9/py"),
            ),
            fake(
                "echo http://elsewhere.invalid/",
                "echo \"global.index-url='http://elsewhere.invalid/simple'\"",
                "exit 1",
            ),
        );
        let npm = r.npm().await.unwrap();
        assert_eq!(npm.base, "http://127.0.0.1:9/npm");
        assert!(npm.source.contains("npm_registry"));
        assert_eq!(r.pypi().await.unwrap().base, "http://127.0.0.1:9/py");
    }

    #[tokio::test]
    async fn npm_config_output_is_parsed_and_trimmed() {
        let r = Registries::with_probes(
            &config(None, None),
            fake(
                "echo 'http://127.0.0.1:4873/'; echo 'warn noise' >&2",
                "exit 1",
                "exit 1",
            ),
        );
        let npm = r.npm().await.unwrap();
        assert_eq!(npm.base, "http://127.0.0.1:4873");
        assert_eq!(npm.source, "npm config");
        assert!(npm.client.is_none());

        // npm's cafile is followed; one that cannot be used is named, not fatal.
        let probes = Probes {
            npm_cafile: argv(&["sh", "-c", "echo /nonexistent/toolscout-ca.pem"]),
            ..fake("echo http://127.0.0.1:4873", "", "")
        };
        let npm = Registries::with_probes(&config(None, None), probes)
            .npm()
            .await
            .unwrap()
            .clone();
        assert_eq!(npm.base, "http://127.0.0.1:4873");
        assert!(
            npm.source
                .contains("cafile was not used: cannot read /nonexistent/toolscout-ca.pem"),
            "{}",
            npm.source
        );
        assert!(npm.client.is_none());
    }

    #[tokio::test]
    async fn npm_config_that_is_not_a_url_is_a_clear_unavailable_error() {
        let r = Registries::with_probes(
            &config(None, None),
            fake("echo undefined", "exit 1", "exit 1"),
        );
        let e = r.npm().await.unwrap_err();
        assert_eq!(e.failure, Failure::Unavailable);
        assert_eq!(e.code, ToolErrorCode::RegistryUnresolved);
        assert!(e.message.contains("\"undefined\""), "{}", e.message);
        assert!(e
            .hints
            .iter()
            .any(|h| h.contains("npm_registry") && h.contains("TOOLSCOUT_NPM_REGISTRY")));

        let missing = Probes {
            npm: argv(&["toolscout-no-such-program-npm"]),
            ..fake("", "exit 1", "exit 1")
        };
        let e = Registries::with_probes(&config(None, None), missing)
            .npm()
            .await
            .unwrap_err();
        assert!(e.message.contains("could not start"), "{}", e.message);
    }

    #[tokio::test]
    async fn pip_index_url_becomes_the_json_api_base_else_pips_default() {
        let listing = "echo \":env:.cert='/x'\"; echo \"global.index-url='http://127.0.0.1:3141/team/pypi/+simple/'\"";
        let r = Registries::with_probes(
            &config(None, None),
            fake("exit 1", listing, "echo http://wrong.invalid/"),
        );
        let py = r.pypi().await.unwrap();
        assert_eq!(py.base, "http://127.0.0.1:3141/team/pypi");
        assert!(
            py.source.starts_with(
                "pip config (global.index-url); its cert was not used: cannot read /x"
            ),
            "{}",
            py.source
        );

        let r = Registries::with_probes(
            &config(None, None),
            fake(
                "exit 1",
                "echo \"global.cert='/x'\"",
                "echo http://127.0.0.1:8080/",
            ),
        );
        let py = r.pypi().await.unwrap();
        assert_eq!(py.base, "http://127.0.0.1:8080");
        assert!(
            py.source
                .starts_with("pip's default index; its cert was not used"),
            "{}",
            py.source
        );

        let r = Registries::with_probes(&config(None, None), fake("exit 1", "exit 3", "exit 4"));
        let e = r.pypi().await.unwrap_err();
        assert_eq!(e.code, ToolErrorCode::RegistryUnresolved);
        assert!(
            e.message.contains("pip config") && e.message.contains("exited with"),
            "{}",
            e.message
        );
        assert!(e.hints.iter().any(|h| h.contains("pypi_url")));
    }

    #[test]
    fn urls_encode_scoped_names_as_one_segment() {
        let r = Registry::new("http://127.0.0.1:1/npm".into(), "test");
        assert_eq!(
            r.url(&["@scope/pkg", "latest"]).unwrap().as_str(),
            "http://127.0.0.1:1/npm/@scope%2Fpkg/latest"
        );
        let root = Registry::new("http://127.0.0.1:1".into(), "test");
        assert_eq!(
            root.url(&["pypi", "a b", "json"]).unwrap().as_str(),
            "http://127.0.0.1:1/pypi/a%20b/json"
        );
    }
}
