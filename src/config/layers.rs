//! Where each configuration value comes from: the layers (flag, environment, file, default)
//! picked key by key with their sources remembered, and the checks of the top-level values.

use super::{
    default_dir, read_file, FileConfig, Overrides, DEFAULT_ADDR, DEFAULT_MAX_BODY_BYTES,
    MIN_TOKEN_CHARS,
};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The configuration file and its path: `--config`, else `TOOLSCOUT_CONFIG`, else a
/// `toolscout.toml` in the working directory, else none (every key at its default).
pub(super) fn config_file(
    flags: &Overrides,
    env: &BTreeMap<String, String>,
    cwd: &Path,
) -> Result<(FileConfig, Option<PathBuf>)> {
    let explicit = flags
        .config_file
        .clone()
        .or_else(|| env.get("TOOLSCOUT_CONFIG").map(PathBuf::from));
    if let Some(path) = explicit {
        return Ok((read_file(&path)?, Some(path)));
    }
    let local = cwd.join("toolscout.toml");
    if local.is_file() {
        Ok((read_file(&local)?, Some(local)))
    } else {
        Ok((FileConfig::default(), None))
    }
}

/// The top-level values as the layers gave them, before they are checked.
pub(super) struct Picked {
    pub(super) addr: String,
    pub(super) catalog_dir: PathBuf,
    pub(super) models_dir: PathBuf,
    pub(super) auth_token: Option<String>,
    pub(super) max_body: String,
    pub(super) log_level: String,
    pub(super) log_dir: Option<PathBuf>,
    pub(super) cache_dir: Option<PathBuf>,
    pub(super) data_dir: Option<PathBuf>,
    pub(super) cors: String,
}

/// Picks each value from the first layer that has it (flag, `TOOLSCOUT_<KEY>`, file,
/// default) and remembers which, for `--print-config` and error messages.
pub(super) struct Layers<'a> {
    pub(super) env: &'a BTreeMap<String, String>,
    pub(super) sources: BTreeMap<&'static str, String>,
}

impl Layers<'_> {
    fn pick(
        &mut self,
        key: &'static str,
        default: Option<String>,
        file: Option<String>,
        flag: Option<String>,
    ) -> Option<String> {
        let env_name = format!("TOOLSCOUT_{}", key.to_uppercase());
        let (value, source) = if let Some(v) = flag {
            (Some(v), format!("flag --{}", key.replace('_', "-")))
        } else if let Some(v) = self.env.get(&env_name) {
            (Some(v.clone()), format!("env {env_name}"))
        } else if let Some(v) = file {
            (Some(v), "file".to_string())
        } else {
            (default, "default".to_string())
        };
        self.sources.insert(key, source);
        value
    }

    /// Every value of the top level of the configuration, each from its first layer.
    pub(super) fn pick_all(&mut self, file: &mut FileConfig, flags: &Overrides) -> Picked {
        let addr = self
            .pick(
                "addr",
                Some(DEFAULT_ADDR.into()),
                file.addr.take(),
                flags.addr.clone(),
            )
            .unwrap_or_default();
        let auth_token = self
            .pick(
                "auth_token",
                None,
                file.auth_token.take(),
                flags.auth_token.clone(),
            )
            .filter(|t| !t.is_empty());
        let max_body = self
            .pick(
                "max_body_bytes",
                Some(DEFAULT_MAX_BODY_BYTES.to_string()),
                file.max_body_bytes.take().map(|n| n.to_string()),
                flags.max_body_bytes.map(|n| n.to_string()),
            )
            .unwrap_or_default();
        let log_level = self
            .pick(
                "log_level",
                Some("info".into()),
                file.log_level.take(),
                flags.log_level.clone(),
            )
            .unwrap_or_default();
        let (catalog_dir, models_dir) = self.pick_install_dirs(file, flags);
        let [log_dir, cache_dir, data_dir] = self.pick_home_dirs(file, flags);
        let cors = self
            .pick(
                "cors_origins",
                None,
                file.cors_origins.take().map(|list| list.join(",")),
                flags.cors_origins.as_ref().map(|list| list.join(",")),
            )
            .unwrap_or_default();
        Picked {
            addr,
            catalog_dir,
            models_dir,
            auth_token,
            max_body,
            log_level,
            log_dir,
            cache_dir,
            data_dir,
            cors,
        }
    }

    /// The directories of the installation: catalog and models.
    fn pick_install_dirs(
        &mut self,
        file: &mut FileConfig,
        flags: &Overrides,
    ) -> (PathBuf, PathBuf) {
        let catalog_dir = self
            .pick_path(
                "catalog_dir",
                Some(default_dir("catalog")),
                file.catalog_dir.take(),
                flags.catalog_dir.clone(),
            )
            .unwrap_or_default();
        let models_dir = self
            .pick_path(
                "models_dir",
                Some(default_dir("models")),
                file.models_dir.take(),
                flags.models_dir.clone(),
            )
            .unwrap_or_default();
        (catalog_dir, models_dir)
    }

    /// The directories toolscout writes: logs, vector cache and usage data, under
    /// `~/.toolscout` by default; an empty value turns each off. The data directory has no
    /// flag: it is set in the file or the environment.
    fn pick_home_dirs(&mut self, file: &mut FileConfig, flags: &Overrides) -> [Option<PathBuf>; 3] {
        let home_dir = |leaf: &str| {
            self.env
                .get("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| Path::new(h).join(".toolscout").join(leaf))
        };
        let defaults = [home_dir("logs"), home_dir("cache"), home_dir("data")];
        let [log_default, cache_default, data_default] = defaults;
        let set =
            |p: Option<PathBuf>| p.filter(|d| !d.as_os_str().to_string_lossy().trim().is_empty());
        let log_dir = self.pick_path(
            "log_dir",
            log_default,
            file.log_dir.take(),
            flags.log_dir.clone(),
        );
        let cache_dir = self.pick_path(
            "cache_dir",
            cache_default,
            file.cache_dir.take(),
            flags.cache_dir.clone(),
        );
        let data_dir = self.pick_path(
            "data_dir",
            data_default,
            file.data_dir.take(),
            flags.data_dir.clone(),
        );
        [set(log_dir), set(cache_dir), set(data_dir)]
    }

    fn pick_path(
        &mut self,
        key: &'static str,
        default: Option<PathBuf>,
        file: Option<PathBuf>,
        flag: Option<PathBuf>,
    ) -> Option<PathBuf> {
        let text = |p: Option<PathBuf>| p.map(|p| p.to_string_lossy().into_owned());
        self.pick(key, text(default), text(file), text(flag))
            .map(PathBuf::from)
    }
}

/// The listening address; off loopback only with an auth token (of a guess-proof length).
pub(super) fn checked_addr(
    addr: &str,
    auth_token: Option<&str>,
    sources: &BTreeMap<&'static str, String>,
) -> Result<SocketAddr> {
    let parsed: SocketAddr = addr.parse().map_err(|_| {
        Error::Config(format!(
            "addr ({}): expected host:port such as {DEFAULT_ADDR}, found \"{addr}\"",
            sources["addr"]
        ))
    })?;
    if let Some(token) = auth_token {
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(Error::Config(format!(
                "auth_token ({}): expected at least {MIN_TOKEN_CHARS} characters, found {}",
                sources["auth_token"],
                token.chars().count()
            )));
        }
    }
    if !parsed.ip().is_loopback() && auth_token.is_none() {
        return Err(Error::Config(format!(
            "addr ({}): {parsed} is not a loopback address; binding there needs an auth token \
             (--auth-token or TOOLSCOUT_AUTH_TOKEN) so that nobody else on the network can use the server",
            sources["addr"]
        )));
    }
    Ok(parsed)
}

pub(super) fn checked_max_body(max_body: &str, source: &str) -> Result<usize> {
    max_body.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
        Error::Config(format!(
            "max_body_bytes ({source}): expected a positive whole number of bytes, found \"{max_body}\""
        ))
    })
}
