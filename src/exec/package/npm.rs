//! npm: an exact lookup (`<registry>/<name>/latest`, the latest version's manifest) when one
//! package is asked for by a name that can be one, otherwise the registry's keyword search
//! (`/-/v1/search`). `npmFetchMetadata` reads the full package document instead, which also
//! carries publish times. Registries without dist-tag routes are served by falling back to the
//! full document before concluding that a package does not exist.

use super::http::{get_json, Fetched};
use super::npm_record::{from_search, package};
use super::registry::Registry;
use super::repo;
use super::{repository_hints, Report};
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use serde_json::{Map, Value};

/// Longest npm package name.
const MAX_NAME: usize = 214;

pub(crate) async fn search(
    http: &reqwest::Client,
    registry: &Registry,
    name: &str,
    limit: usize,
    metadata: bool,
) -> Result<Report, QueryError> {
    if limit == 1 && looks_like_name(name) {
        return exact(http, registry, name, metadata).await;
    }
    match keyword(http, registry, name, limit, metadata).await {
        // A registry without search can still answer for a name that can be exact.
        Err(e) if e.code == ToolErrorCode::SearchUnsupported && looks_like_name(name) => {
            let mut report = exact(http, registry, name, metadata).await?;
            report.hints.insert(0, format!("This registry offers no keyword search, so '{name}' was looked up as an exact package name"));
            Ok(report)
        }
        other => other,
    }
}

/// Whether `s` can be an npm package name (`name` or `@scope/name`; legacy capitals allowed).
pub(crate) fn looks_like_name(s: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && !p.starts_with('_')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
    };
    if s.len() > MAX_NAME {
        return false;
    }
    match s.strip_prefix('@') {
        Some(rest) => rest
            .split_once('/')
            .is_some_and(|(scope, n)| part(scope) && part(n)),
        None => part(s),
    }
}

async fn exact(
    http: &reqwest::Client,
    registry: &Registry,
    name: &str,
    metadata: bool,
) -> Result<Report, QueryError> {
    let what = format!("npm lookup of {name}");
    let pkg = if metadata {
        match get_json(http, registry, registry.url(&[name])?, &what).await? {
            Fetched::Json(doc) => from_document(&doc, true),
            Fetched::NotFound => None,
        }
    } else {
        match get_json(http, registry, registry.url(&[name, "latest"])?, &what).await? {
            Fetched::Json(manifest) => Some(package(&manifest, None, false)),
            // Some registries serve no dist-tag routes; the document answers for them.
            Fetched::NotFound => {
                match get_json(http, registry, registry.url(&[name])?, &what).await? {
                    Fetched::Json(doc) => from_document(&doc, false),
                    Fetched::NotFound => None,
                }
            }
        }
    };
    let Some(pkg) = pkg else {
        return Ok(not_found(http, registry, name).await);
    };
    let mut hints = Vec::new();
    found_hints(&pkg, &mut hints);
    if !metadata {
        hints.push("Set npmFetchMetadata=true for author, keywords, engines, dependencies and the publish date".into());
    }
    Ok(Report {
        packages: vec![Value::Object(pkg)],
        total_found: 1,
        hints,
    })
}

/// The latest version of a full package document, or `None` when it has none (unpublished).
fn from_document(doc: &Value, metadata: bool) -> Option<Map<String, Value>> {
    let latest = doc.pointer("/dist-tags/latest")?.as_str()?;
    let manifest = doc.get("versions")?.get(latest)?;
    Some(package(manifest, Some(doc), metadata))
}

async fn not_found(http: &reqwest::Client, registry: &Registry, name: &str) -> Report {
    let mut hints = vec![format!(
        "No npm package is named '{name}' on the registry at {} (from {})",
        registry.base, registry.source
    )];
    // Close names from the registry's own search are the most useful correction.
    let similar = match registry.url(&["-", "v1", "search"]) {
        Ok(mut url) => {
            url.query_pairs_mut()
                .append_pair("text", &name.replace(['@', '/'], " "))
                .append_pair("size", "5");
            match get_json(http, registry, url, "npm search").await {
                Ok(Fetched::Json(v)) => v["objects"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o.pointer("/package/name")?.as_str())
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            }
        }
        Err(_) => Vec::new(),
    };
    if !similar.is_empty() {
        hints.push(format!(
            "Similar names on the registry: {}",
            similar.join(", ")
        ));
    }
    hints.push(format!("Check the spelling (npm names are lowercase), or search by keywords: name=\"{name}\" with searchLimit=5"));
    hints.push("If it is a Python library, retry with ecosystem=\"python\"".into());
    Report {
        packages: Vec::new(),
        total_found: 0,
        hints,
    }
}

async fn keyword(
    http: &reqwest::Client,
    registry: &Registry,
    text: &str,
    limit: usize,
    metadata: bool,
) -> Result<Report, QueryError> {
    let mut url = registry.url(&["-", "v1", "search"])?;
    url.query_pairs_mut()
        .append_pair("text", text)
        .append_pair("size", &limit.to_string());
    let body = match get_json(http, registry, url, "npm search").await? {
        Fetched::Json(v) => v,
        Fetched::NotFound => {
            return Err(QueryError::new(
                Failure::Upstream { transient: false },
                ToolErrorCode::SearchUnsupported,
                format!("npm search: the registry at {} (from {}) has no keyword search (HTTP 404)", registry.base, registry.source),
            )
            .hint("Look up an exact package name with searchLimit=1 instead; that needs no search support")
            .hint("Or set npm_registry to a registry that implements /-/v1/search"));
        }
    };
    let Some(objects) = body.get("objects").and_then(Value::as_array) else {
        return Err(QueryError::new(
            Failure::Upstream { transient: false },
            ToolErrorCode::InvalidRegistryResponse,
            format!(
                "npm search: the registry at {} answered without an 'objects' list",
                registry.base
            ),
        ));
    };
    let mut packages: Vec<Map<String, Value>> = objects
        .iter()
        .filter_map(|o| o.get("package"))
        .filter_map(from_search)
        .take(limit)
        .collect();
    let total = body
        .get("total")
        .and_then(Value::as_u64)
        .map_or(packages.len(), |t| t as usize)
        .max(packages.len());
    let mut hints = Vec::new();
    if packages.is_empty() {
        return Ok(no_match(text));
    }
    if metadata {
        enrich(http, registry, &mut packages, &mut hints).await;
    }
    if total > packages.len() {
        hints.push(format!("Showing the registry's top {} of {total} matches; raise searchLimit (up to 10) or refine the keywords", packages.len()));
    }
    found_hints(&packages[0], &mut hints);
    if packages.len() > 1 {
        hints.push(
            "Compare version, license and lastPublished across the candidates before choosing"
                .into(),
        );
    }
    if !metadata {
        hints.push(
            "Set npmFetchMetadata=true for author, engines and dependencies of each candidate"
                .into(),
        );
    }
    Ok(Report {
        packages: packages.into_iter().map(Value::Object).collect(),
        total_found: total,
        hints,
    })
}

/// The answer to a keyword search that found nothing, with what to try instead.
fn no_match(text: &str) -> Report {
    Report {
        packages: Vec::new(),
        total_found: 0,
        hints: vec![
            format!("No npm package matches '{text}'"),
            "Use fewer or broader keywords, or the exact package name with searchLimit=1".into(),
            "If it is a Python library, retry with ecosystem=\"python\"".into(),
        ],
    }
}

/// Replaces each search hit with the full record from its document, in parallel; a hit
/// whose document cannot be read keeps its search fields and gets a hint.
async fn enrich(
    http: &reqwest::Client,
    registry: &Registry,
    packages: &mut [Map<String, Value>],
    hints: &mut Vec<String>,
) {
    let mut set = tokio::task::JoinSet::new();
    for (i, p) in packages.iter().enumerate() {
        let Some(name) = p.get("name").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        let (http, registry) = (http.clone(), registry.clone());
        set.spawn(async move {
            let got = match registry.url(&[&name]) {
                Ok(url) => {
                    get_json(&http, &registry, url, &format!("npm metadata of {name}")).await
                }
                Err(e) => Err(e),
            };
            (i, name, got)
        });
    }
    while let Some(joined) = set.join_next().await {
        let Ok((i, name, got)) = joined else { continue };
        match got {
            Ok(Fetched::Json(doc)) => {
                if let Some(full) = from_document(&doc, true) {
                    packages[i] = full;
                }
            }
            Ok(Fetched::NotFound) => hints.push(format!(
                "The document of {name} was not found, so its metadata is missing"
            )),
            Err(e) => hints.push(format!(
                "Metadata of {name} could not be read: {}",
                e.message
            )),
        }
    }
}

fn found_hints(pkg: &Map<String, Value>, hints: &mut Vec<String>) {
    let name = pkg.get("name").and_then(Value::as_str).unwrap_or_default();
    if let Some(msg) = pkg.get("deprecated").and_then(Value::as_str) {
        let version = pkg
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("latest");
        hints.insert(0, format!("DEPRECATED: {name}@{version}: {msg}"));
    }
    let r = pkg
        .get("repoUrl")
        .and_then(Value::as_str)
        .and_then(repo::parse)
        .or_else(|| {
            pkg.get("repository")
                .and_then(Value::as_str)
                .and_then(repo::parse)
        });
    repository_hints(
        name,
        r.as_ref(),
        pkg.get("path").and_then(Value::as_str),
        hints,
    );
    hints.push(format!("Install: npm install {name}"));
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn exact_names_and_keyword_text_are_told_apart() {
        for ok in [
            "express",
            "@tanstack/react-query",
            "lodash.merge",
            "JSONStream",
            "a-b_c~d",
        ] {
            assert!(looks_like_name(ok), "{ok}");
        }
        for no in [
            "react form validation",
            "@scope",
            "@/x",
            ".hidden",
            "_private",
            "a/b",
            "",
            &"x".repeat(215),
        ] {
            assert!(!looks_like_name(no), "{no}");
        }
    }
}
