//! Asking the machine's own npm and pip: the commands run (each with a timeout, never
//! through a shell) and how their output is read. pip's settings come from `pip config
//! list`, with pip's precedence; an index URL becomes the base its JSON API lives under.

use reqwest::Url;
use std::time::Duration;
use tokio::process::Command;

/// How long one configuration command (npm, pip, python) may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The programs asked when the configuration names no registry; replaceable in tests.
#[derive(Debug, Clone)]
pub(crate) struct Probes {
    /// Prints npm's registry URL.
    pub(crate) npm: Vec<String>,
    /// Prints npm's `cafile` setting.
    pub(crate) npm_cafile: Vec<String>,
    /// Each prints pip's configuration as `section.key='value'` lines; the first that runs wins.
    pub(crate) pip_config: Vec<Vec<String>>,
    /// Each prints pip's built-in default index; the first that runs wins.
    pub(crate) pip_default: Vec<Vec<String>>,
}

impl Default for Probes {
    fn default() -> Probes {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // pip's own constant, so the default index is whatever this machine's pip uses.
        let default_index = "from pip._internal.models.index import PyPI; print(PyPI.url)";
        Probes {
            npm: argv(&["npm", "config", "get", "registry", "--no-workspaces"]),
            npm_cafile: argv(&["npm", "config", "get", "cafile", "--no-workspaces"]),
            pip_config: vec![
                argv(&["python3", "-m", "pip", "config", "list"]),
                argv(&["pip3", "config", "list"]),
                argv(&["pip", "config", "list"]),
            ],
            pip_default: vec![
                argv(&["python3", "-c", default_index]),
                argv(&["python", "-c", default_index]),
            ],
        }
    }
}

pub(crate) fn trim_base(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

/// `text` as a registry base if it is one http(s) URL.
pub(crate) fn http_url(text: &str) -> Option<String> {
    let t = text.trim();
    let ok =
        (t.starts_with("http://") || t.starts_with("https://")) && !t.contains(char::is_whitespace);
    (ok && Url::parse(t).is_ok()).then(|| trim_base(t))
}

/// The base of a pip index: `.../simple/` (or devpi's `.../+simple/`) loses that last
/// segment, since the JSON API lives beside the simple index, not under it.
pub(crate) fn index_base(index: &str) -> Option<String> {
    let base = http_url(index)?;
    let stripped = ["/simple", "/+simple"]
        .iter()
        .find_map(|s| base.strip_suffix(s))
        .unwrap_or(&base);
    Some(stripped.to_string())
}

/// A setting pip would use (`index-url`, `cert`) from `pip config list`, with its key: the
/// environment (`:env:`) beats the `install` section, which beats `global`, as in pip's own
/// option parsing.
pub(crate) fn pip_setting(listing: &str, option: &str) -> Option<(String, String)> {
    let mut found: Vec<(usize, String, String)> = Vec::new();
    for line in listing.lines() {
        let Some((key, value)) = line.trim().split_once('=') else {
            continue;
        };
        let Some((section, name)) = key.trim().rsplit_once('.') else {
            continue;
        };
        let rank = match section {
            _ if name != option => continue,
            ":env:" => 0,
            "install" => 1,
            "global" => 2,
            _ => continue,
        };
        let value = value.trim().trim_matches(|c| c == '\'' || c == '"').trim();
        // pip allows several whitespace-separated index URLs; the first is the index.
        if let Some(first) = value.split_whitespace().next() {
            found.push((rank, key.trim().to_string(), first.to_string()));
        }
    }
    found.sort_by_key(|(rank, _, _)| *rank);
    found.into_iter().next().map(|(_, k, v)| (k, v))
}

/// The stdout of the first of `commands` that succeeds.
pub(crate) async fn first_output(commands: &[Vec<String>]) -> Result<String, String> {
    let mut errors = Vec::new();
    for argv in commands {
        match run(argv).await {
            Ok(out) => return Ok(out),
            Err(e) => errors.push(format!("`{}`: {e}", argv.join(" "))),
        }
    }
    Err(if errors.is_empty() {
        "no command to run".into()
    } else {
        errors.join("; ")
    })
}

/// Runs `argv` with a timeout; its stdout when it exits 0.
pub(crate) async fn run(argv: &[String]) -> Result<String, String> {
    let (program, args) = argv.split_first().ok_or("empty command")?;
    let mut cmd = Command::new(program);
    crate::exec::scrub_env(&mut cmd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    let out = match tokio::time::timeout(COMMAND_TIMEOUT, child.wait_with_output()).await {
        Err(_) => return Err(format!("no answer within {} s", COMMAND_TIMEOUT.as_secs())),
        Ok(Err(e)) => return Err(e.to_string()),
        Ok(Ok(out)) => out,
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        return Err(format!(
            "exited with {}{}",
            out.status,
            if last.is_empty() {
                String::new()
            } else {
                format!(": {last}")
            }
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_config_precedence_and_index_bases() {
        let listing = "global.index-url='http://g.invalid/simple'\ninstall.index-url='http://i.invalid/simple/'\nglobal.cert='/ca.pem'\n";
        assert_eq!(
            pip_setting(listing, "index-url").unwrap().1,
            "http://i.invalid/simple/"
        );
        assert_eq!(
            pip_setting(listing, "cert").unwrap(),
            ("global.cert".into(), "/ca.pem".into())
        );
        let with_env =
            format!("{listing}:env:.index-url='http://e.invalid/simple http://second.invalid/'\n");
        assert_eq!(
            pip_setting(&with_env, "index-url").unwrap(),
            (":env:.index-url".into(), "http://e.invalid/simple".into())
        );
        assert_eq!(pip_setting("global.timeout='60'", "index-url"), None);
        assert_eq!(
            pip_setting("global.extra-index-url='http://x.invalid/'", "index-url"),
            None
        );
        assert_eq!(
            index_base("https://mirror.invalid/pypi/simple/").as_deref(),
            Some("https://mirror.invalid/pypi")
        );
        assert_eq!(
            index_base("https://mirror.invalid/"),
            Some("https://mirror.invalid".into())
        );
        assert_eq!(index_base("/opt/wheels"), None);
    }
}
