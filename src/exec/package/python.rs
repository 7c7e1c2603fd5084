//! PyPI: `<base>/pypi/<name>/json`, trying the spellings a project may be filed under
//! (as given, PEP 503-normalised, `-` as `_`), since mirrors do not all redirect them. PyPI
//! has no keyword search API, so a larger searchLimit still looks up the one project and says
//! so. The source repository is picked from the project URLs by how reliable the label is.

use super::http::{get_json, Fetched};
use super::registry::Registry;
use super::repo::{self, RepoRef};
use super::{repository_hints, Report};
use crate::exec::outcome::QueryError;
use serde_json::{json, Map, Value};

pub(crate) async fn search(
    http: &reqwest::Client,
    registry: &Registry,
    name: &str,
    limit: usize,
    metadata: bool,
) -> Result<Report, QueryError> {
    if !valid_name(name) {
        return Ok(Report {
            hints: vec![
                format!("'{name}' is not a Python project name; PyPI lookups need the exact name (PyPI offers no keyword search)"),
                format!("To discover projects by topic, use githubSearchRepositories with keywordsToSearch from '{name}'"),
                "If it is a JavaScript library, npm supports keyword search: ecosystem=\"npm\" with searchLimit=5".into(),
            ],
            ..Report::default()
        });
    }
    let tried = variations(name);
    for candidate in &tried {
        let url = registry.url(&["pypi", candidate, "json"])?;
        let body =
            match get_json(http, registry, url, &format!("PyPI lookup of {candidate}")).await? {
                Fetched::Json(v) => v,
                Fetched::NotFound => continue,
            };
        let Some(info) = body.get("info").filter(|i| i.is_object()) else {
            continue;
        };
        let (pkg, found_repo) = package(info, &body, metadata);
        let found_name = pkg
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(candidate)
            .to_string();
        let mut hints = Vec::new();
        if info.get("yanked").and_then(Value::as_bool) == Some(true) {
            hints.push(format!(
                "YANKED: {found_name} {} was withdrawn by its maintainers",
                pkg["version"].as_str().unwrap_or_default()
            ));
        }
        if !found_name.eq_ignore_ascii_case(name) {
            hints.push(format!(
                "Filed on PyPI as '{found_name}' (asked for '{name}')"
            ));
        }
        match (&found_repo, pkg.get("repository").and_then(Value::as_str)) {
            (None, Some(url)) => hints.push(format!(
                "The source of {found_name} is at {url}, which the GitHub tools cannot read"
            )),
            _ => repository_hints(&found_name, found_repo.as_ref(), None, &mut hints),
        }
        hints.push(format!("Install: pip install {found_name}"));
        if limit > 1 {
            hints.push("PyPI has no keyword search, so only this exact project was looked up; for alternatives use githubSearchRepositories".into());
        }
        if !metadata {
            hints.push("Set pythonFetchMetadata=true for author, keywords, homepage, dependencies, requiresPython and the publish date".into());
        }
        return Ok(Report {
            packages: vec![Value::Object(pkg)],
            total_found: 1,
            hints,
        });
    }
    let mut hints = vec![
        format!("No Python project '{name}' at {} (from {}); tried {}", registry.base, registry.source, tried.join(", ")),
        "Check the spelling: PyPI names ignore case and treat '-', '_' and '.' alike, but the words must match (e.g. 'beautifulsoup4', not 'bs4')".into(),
        "If it is a JavaScript library, retry with ecosystem=\"npm\"".into(),
    ];
    if !registry.source.contains("default") {
        hints.push("If that index serves only the simple API, set pypi_url to a base that serves /pypi/<name>/json".into());
    }
    Ok(Report {
        hints,
        ..Report::default()
    })
}

/// PEP 508 project names: letters, digits, `.`, `_`, `-`, starting and ending alphanumeric.
fn valid_name(s: &str) -> bool {
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    ends(s.chars().next())
        && ends(s.chars().last())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// The name as given, PEP 503-normalised, and with `_` for `-`, without repeats.
fn variations(name: &str) -> Vec<String> {
    let lower = name.to_ascii_lowercase();
    let mut normalized = String::new();
    for c in lower.chars() {
        if "-_.".contains(c) {
            if !normalized.ends_with('-') {
                normalized.push('-');
            }
        } else {
            normalized.push(c);
        }
    }
    let mut out = vec![name.to_string()];
    for v in [normalized, lower.replace('-', "_")] {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The return schema's package from PyPI's `info` (and the release files for dates).
fn package(info: &Value, body: &Value, metadata: bool) -> (Map<String, Value>, Option<RepoRef>) {
    let mut m = Map::new();
    m.insert(
        "name".into(),
        json!(text(info.get("name")).unwrap_or_default()),
    );
    m.insert(
        "version".into(),
        json!(text(info.get("version")).unwrap_or_else(|| "unknown".into())),
    );
    m.insert(
        "description".into(),
        text(info.get("summary")).map_or(Value::Null, Value::from),
    );
    m.insert(
        "license".into(),
        license(info).map_or(Value::Null, Value::from),
    );
    let (url, parsed) = match repository(info) {
        Some((url, parsed)) => (Some(url), parsed),
        None => (None, None),
    };
    m.insert("repository".into(), url.map_or(Value::Null, Value::from));
    if let Some(r) = parsed.as_ref().filter(|r| r.is_github()) {
        m.insert("owner".into(), json!(r.owner));
        m.insert("repo".into(), json!(r.repo));
    }
    if metadata {
        let author = text(info.get("author"))
            .or_else(|| text(info.get("author_email")))
            .or_else(|| text(info.get("maintainer")));
        if let Some(a) = author {
            m.insert("author".into(), json!(a));
        }
        let keywords: Vec<String> = match info.get("keywords") {
            Some(Value::String(s)) if s.contains(',') => s
                .split(',')
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect(),
            Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(Value::Array(a)) => a.iter().filter_map(|k| text(Some(k))).collect(),
            _ => Vec::new(),
        };
        if !keywords.is_empty() {
            m.insert("keywords".into(), json!(keywords));
        }
        if let Some(h) =
            text(info.get("home_page")).or_else(|| url_labelled(info, &["homepage", "home"]))
        {
            m.insert("homepage".into(), json!(h));
        }
        if let Some(r) = text(info.get("requires_python")) {
            m.insert("requiresPython".into(), json!(r));
        }
        let (deps, extras) = dependencies(info.get("requires_dist"));
        if !deps.is_empty() {
            m.insert("dependencies".into(), Value::Object(deps));
        }
        if !extras.is_empty() {
            m.insert("extras".into(), Value::Object(extras));
        }
        if let Some(t) = last_published(body, info) {
            m.insert("lastPublished".into(), json!(t));
        }
    }
    (m, parsed)
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "UNKNOWN")
        .map(str::to_string)
}

/// The SPDX expression, else a short `license` field (some projects paste the whole text
/// there), else the licence classifiers.
fn license(info: &Value) -> Option<String> {
    if let Some(l) = text(info.get("license_expression")) {
        return Some(l);
    }
    if let Some(l) = text(info.get("license")).filter(|l| l.len() <= 100 && !l.contains('\n')) {
        return Some(l);
    }
    let from_classifiers: Vec<&str> = info
        .get("classifiers")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter(|c| c.starts_with("License ::"))
        .filter_map(|c| c.rsplit("::").next().map(str::trim))
        .collect();
    (!from_classifiers.is_empty()).then(|| from_classifiers.join(", "))
}

/// The project URL labelled like one of `labels` (compared lowercase, letters only).
fn url_labelled(info: &Value, labels: &[&str]) -> Option<String> {
    let urls = info.get("project_urls")?.as_object()?;
    urls.iter().find_map(|(k, v)| {
        let key: String = k
            .to_ascii_lowercase()
            .chars()
            .filter(char::is_ascii_alphabetic)
            .collect();
        labels
            .contains(&key.as_str())
            .then(|| text(Some(v)))
            .flatten()
    })
}

/// The source repository: a URL labelled as source, else a homepage on a code host, else
/// any project URL inside a GitHub repository (issues, changelog).
fn repository(info: &Value) -> Option<(String, Option<RepoRef>)> {
    let source_labels = [
        "source",
        "sourcecode",
        "repository",
        "code",
        "github",
        "git",
        "repo",
        "scm",
        "sourcerepository",
    ];
    if let Some(url) =
        url_labelled(info, &source_labels).filter(|u| u.starts_with("http") || u.starts_with("git"))
    {
        return Some(match repo::parse(&url) {
            Some(r) if repo::is_code_host(&r.host) => (r.web_url(), Some(r)),
            other => (url.trim_end_matches('/').to_string(), other),
        });
    }
    let homepages = [
        text(info.get("home_page")),
        url_labelled(info, &["homepage", "home"]),
    ];
    for url in homepages.into_iter().flatten() {
        if let Some(r) = repo::parse(&url).filter(|r| repo::is_code_host(&r.host)) {
            return Some((r.web_url(), Some(r)));
        }
    }
    let urls = info.get("project_urls").and_then(Value::as_object)?;
    urls.values()
        .filter_map(|v| repo::parse(v.as_str()?))
        .find(RepoRef::is_github)
        .map(|r| (r.web_url(), Some(r)))
}

/// `requires_dist` as `{name: "spec[; marker]"}` for what is always installed, and
/// `{extra: [requirement, ...]}` for what an extra pulls in.
fn dependencies(requires: Option<&Value>) -> (Map<String, Value>, Map<String, Value>) {
    let (mut deps, mut extras) = (Map::new(), Map::new());
    for req in requires
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let (spec, marker) = match req.split_once(';') {
            Some((s, m)) => (s.trim(), Some(m.trim())),
            None => (req.trim(), None),
        };
        let name_len = spec
            .find(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
            .unwrap_or(spec.len());
        let (name, rest) = spec.split_at(name_len);
        if name.is_empty() {
            continue;
        }
        if let Some(extra) = marker.and_then(extra_of) {
            let list = extras.entry(extra).or_insert_with(|| json!([]));
            if let Value::Array(a) = list {
                a.push(json!(spec));
            }
            continue;
        }
        let mut value = rest
            .trim()
            .trim_start_matches(['('])
            .trim_end_matches([')'])
            .trim()
            .to_string();
        if value.is_empty() {
            value = "*".into();
        }
        if let Some(m) = marker {
            value = format!("{value}; {m}");
        }
        match deps.get_mut(name) {
            Some(Value::String(prev)) => *prev = format!("{prev} || {value}"),
            _ => {
                deps.insert(name.to_string(), json!(value));
            }
        }
    }
    (deps, extras)
}

/// The extra a marker such as `extra == "socks"` belongs to.
fn extra_of(marker: &str) -> Option<String> {
    let at = marker.find("extra")?;
    let rest = marker[at + 5..]
        .trim_start()
        .strip_prefix("==")?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = &rest[1..];
    Some(inner[..inner.find(quote)?].to_string())
}

/// The newest upload time among the latest release's files.
fn last_published(body: &Value, info: &Value) -> Option<String> {
    let files = body
        .get("urls")
        .and_then(Value::as_array)
        .filter(|f| !f.is_empty())
        .or_else(|| {
            let version = info.get("version")?.as_str()?;
            body.get("releases")?.get(version)?.as_array()
        })?;
    files
        .iter()
        .filter_map(|f| {
            f.get("upload_time_iso_8601")
                .or_else(|| f.get("upload_time"))
                .and_then(Value::as_str)
        })
        .max()
        .map(str::to_string)
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn names_and_their_variations() {
        assert!(valid_name("requests") && valid_name("zope.interface") && valid_name("A_b-c"));
        assert!(
            !valid_name("http client") && !valid_name("-x") && !valid_name("x-") && !valid_name("")
        );
        assert_eq!(
            variations("Flask_SQLAlchemy"),
            vec!["Flask_SQLAlchemy", "flask-sqlalchemy", "flask_sqlalchemy"]
        );
        assert_eq!(variations("requests"), vec!["requests"]);
        assert_eq!(
            variations("typing-extensions"),
            vec!["typing-extensions", "typing_extensions"]
        );
    }

    #[test]
    fn requires_dist_splits_into_dependencies_and_extras() {
        let reqs = json!([
            "charset_normalizer<4,>=2",
            "idna (<4,>=2.5)",
            "certifi",
            "numpy>=1.22; python_version < \"3.11\"",
            "numpy>=1.23; python_version >= \"3.11\"",
            "PySocks!=1.5.7,>=1.5.6; extra == 'socks'",
            "chardet<6,>=3.0.2; extra == \"use-chardet-on-py3\"",
        ]);
        let (deps, extras) = dependencies(Some(&reqs));
        assert_eq!(deps["charset_normalizer"], "<4,>=2");
        assert_eq!(deps["idna"], "<4,>=2.5");
        assert_eq!(deps["certifi"], "*");
        assert_eq!(
            deps["numpy"],
            ">=1.22; python_version < \"3.11\" || >=1.23; python_version >= \"3.11\""
        );
        assert_eq!(extras["socks"], json!(["PySocks!=1.5.7,>=1.5.6"]));
        assert_eq!(extras["use-chardet-on-py3"], json!(["chardet<6,>=3.0.2"]));
    }

    #[test]
    fn repository_license_and_dates_are_picked_sensibly() {
        let info = json!({
            "name": "demo", "version": "1.0", "license": "Copyright (c) 2020\nPermission is hereby granted...",
            "classifiers": ["License :: OSI Approved :: MIT License", "Programming Language :: Python"],
            "home_page": "https://demo.readthedocs.io",
            "project_urls": {"Funding": "https://github.com/sponsors/x", "Issue tracker": "https://github.com/acme/demo/issues"},
        });
        let (url, r) = repository(&info).unwrap();
        assert_eq!(url, "https://github.com/acme/demo");
        assert_eq!(r.unwrap().owner, "acme");
        assert_eq!(license(&info).as_deref(), Some("MIT License"));
        let labelled = json!({"project_urls": {"Source Code": "https://git.example.org/team/demo/", "Homepage": "https://github.com/acme/demo"}});
        assert_eq!(
            repository(&labelled).unwrap().0,
            "https://git.example.org/team/demo"
        );
        let body = json!({"urls": [{"upload_time_iso_8601": "2024-05-01T10:00:00Z"}, {"upload_time_iso_8601": "2024-05-02T09:00:00Z"}]});
        assert_eq!(
            last_published(&body, &info).as_deref(),
            Some("2024-05-02T09:00:00Z")
        );
        assert_eq!(
            extra_of("python_version < '3' and extra == 'x'").as_deref(),
            Some("x")
        );
    }
}
