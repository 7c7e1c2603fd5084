//! npm records in the return schema's shape: a version manifest (with its package document
//! when metadata was asked for) or a search hit. The registry's fields come in several
//! historical spellings (`license` as a string or `{type}`, the legacy `licenses` list,
//! `author` as a string or a person, entry points in `main` or `exports`); each is read here.

use super::repo::{self, RepoRef};
use serde_json::{json, Map, Value};

/// A search hit: name, version, description, licence, repository, publish date.
pub(crate) fn from_search(p: &Value) -> Option<Map<String, Value>> {
    let mut m = Map::new();
    m.insert("name".into(), json!(p.get("name")?.as_str()?));
    m.insert(
        "version".into(),
        json!(p
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("unknown")),
    );
    m.insert(
        "description".into(),
        text(p.get("description")).map_or(Value::Null, Value::from),
    );
    m.insert(
        "license".into(),
        license(p).map_or(Value::Null, Value::from),
    );
    let link = p.pointer("/links/repository").and_then(Value::as_str);
    if let Some(raw) = link {
        put_repository(&mut m, repo::parse(raw), raw);
    }
    if let Some(date) = p.get("date").and_then(Value::as_str) {
        m.insert("lastPublished".into(), json!(date));
    }
    Some(m)
}

/// A version manifest (optionally with its package document) in the return schema's shape.
pub(crate) fn package(manifest: &Value, doc: Option<&Value>, metadata: bool) -> Map<String, Value> {
    let field = |k: &str| manifest.get(k).or_else(|| doc.and_then(|d| d.get(k)));
    let mut m = Map::new();
    let name = field("name").and_then(Value::as_str).unwrap_or_default();
    m.insert("name".into(), json!(name));
    let version = manifest
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    m.insert("version".into(), json!(version));
    m.insert(
        "description".into(),
        text(field("description")).map_or(Value::Null, Value::from),
    );
    m.insert(
        "license".into(),
        license(manifest)
            .or_else(|| doc.and_then(license))
            .map_or(Value::Null, Value::from),
    );
    put_source(&mut m, field("repository"));
    m.insert(
        "mainEntry".into(),
        main_entry(manifest).map_or(Value::Null, Value::from),
    );
    m.insert(
        "typeDefinitions".into(),
        types_entry(manifest).map_or(Value::Null, Value::from),
    );
    match manifest.get("deprecated") {
        Some(Value::String(s)) if !s.trim().is_empty() => {
            m.insert("deprecated".into(), json!(s.trim()));
        }
        Some(Value::Bool(true)) => {
            m.insert("deprecated".into(), json!("deprecated by its maintainers"));
        }
        _ => {}
    }
    if !metadata {
        return m;
    }
    put_metadata(&mut m, manifest, field);
    let time = doc.and_then(|d| d.get("time"));
    if let Some(t) = time
        .and_then(|t| t.get(version).or_else(|| t.get("modified")))
        .and_then(Value::as_str)
    {
        m.insert("lastPublished".into(), json!(t));
    }
    m
}

/// The repository the package's source lives in, and its directory there.
fn put_source(m: &mut Map<String, Value>, repository: Option<&Value>) {
    let (raw, directory) = match repository {
        Some(Value::String(s)) => (Some(s.as_str()), None),
        Some(Value::Object(o)) => (
            o.get("url").and_then(Value::as_str),
            o.get("directory").and_then(Value::as_str),
        ),
        _ => (None, None),
    };
    if let Some(raw) = raw {
        put_repository(m, repo::parse(raw), raw);
    }
    if let Some(dir) = directory
        .map(|d| d.trim_start_matches("./").trim_matches('/'))
        .filter(|d| !d.is_empty())
    {
        m.insert("path".into(), json!(dir));
    }
}

/// Author, keywords, homepage, engines and dependencies, asked for with metadata.
fn put_metadata<'a>(
    m: &mut Map<String, Value>,
    manifest: &'a Value,
    field: impl Fn(&str) -> Option<&'a Value>,
) {
    if let Some(a) = field("author").and_then(person) {
        m.insert("author".into(), json!(a));
    }
    let keywords: Vec<&str> = match field("keywords") {
        Some(Value::Array(k)) => k
            .iter()
            .filter_map(Value::as_str)
            .filter(|k| !k.trim().is_empty())
            .collect(),
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    if !keywords.is_empty() {
        m.insert("keywords".into(), json!(keywords));
    }
    if let Some(h) = text(field("homepage")) {
        m.insert("homepage".into(), json!(h));
    }
    for key in ["engines", "dependencies"] {
        if let Some(obj) = manifest
            .get(key)
            .and_then(Value::as_object)
            .filter(|o| !o.is_empty())
        {
            m.insert(key.into(), Value::Object(obj.clone()));
        }
    }
}

/// GitHub repositories as `repoUrl: owner/repo` (what the GitHub tools take); others as a
/// browsable `repository` URL.
fn put_repository(m: &mut Map<String, Value>, parsed: Option<RepoRef>, raw: &str) {
    match parsed {
        Some(r) if r.is_github() => {
            m.insert("repoUrl".into(), json!(format!("{}/{}", r.owner, r.repo)));
        }
        Some(r) => {
            m.insert("repository".into(), json!(r.web_url()));
        }
        None if !raw.trim().is_empty() => {
            m.insert(
                "repository".into(),
                json!(raw.trim().trim_start_matches("git+")),
            );
        }
        None => {}
    }
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `license` as a string or `{type}`, or the legacy `licenses: [{type}]`.
fn license(v: &Value) -> Option<String> {
    match v.get("license") {
        Some(Value::String(s)) if !s.trim().is_empty() => return Some(s.trim().to_string()),
        Some(Value::Object(o)) => return text(o.get("type")),
        _ => {}
    }
    let all: Vec<String> = v
        .get("licenses")?
        .as_array()?
        .iter()
        .filter_map(|l| text(l.get("type")).or_else(|| text(Some(l))))
        .collect();
    (!all.is_empty()).then(|| all.join(" OR "))
}

/// `"Name <email>"` from a string or `{name, email}`.
fn person(v: &Value) -> Option<String> {
    match v {
        Value::String(_) => text(Some(v)),
        Value::Object(o) => {
            let name = text(o.get("name"))?;
            Some(match text(o.get("email")) {
                Some(email) => format!("{name} <{email}>"),
                None => name,
            })
        }
        _ => None,
    }
}

/// `main`, else the root of `exports` (a string, or its import/require/default target).
fn main_entry(m: &Value) -> Option<String> {
    text(m.get("main")).or_else(|| {
        let root = match m.get("exports")? {
            Value::Object(o) if o.contains_key(".") => o.get(".")?,
            other => other,
        };
        match root {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => ["import", "require", "default", "node"]
                .iter()
                .find_map(|k| text(o.get(*k))),
            _ => None,
        }
    })
}

/// `types`/`typings`, else the `types` condition of the root export.
fn types_entry(m: &Value) -> Option<String> {
    text(m.get("types"))
        .or_else(|| text(m.get("typings")))
        .or_else(|| text(m.pointer("/exports/./types")))
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn manifests_map_to_the_return_shape() {
        let manifest = json!({
            "name": "@acme/widget", "version": "2.1.0", "description": " Widgets ",
            "licenses": [{"type": "MIT"}, {"type": "Apache-2.0"}],
            "repository": {"type": "git", "url": "git+ssh://git@github.com/acme/mono.git", "directory": "./packages/widget/"},
            "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.mjs"}},
            "author": {"name": "Ada", "email": "ada@acme.test"}, "keywords": "ui, widgets",
            "engines": {"node": ">=18"}, "dependencies": {}, "deprecated": "use @acme/widget2",
        });
        let doc =
            json!({"time": {"modified": "2025-02-01T00:00:00Z", "2.1.0": "2025-01-01T00:00:00Z"}});
        let m = package(&manifest, Some(&doc), true);
        assert_eq!(m["repoUrl"], "acme/mono");
        assert_eq!(m["path"], "packages/widget");
        assert_eq!(m["license"], "MIT OR Apache-2.0");
        assert_eq!(m["description"], "Widgets");
        assert_eq!(m["mainEntry"], "./dist/index.mjs");
        assert_eq!(m["typeDefinitions"], "./dist/index.d.ts");
        assert_eq!(m["author"], "Ada <ada@acme.test>");
        assert_eq!(m["keywords"], json!(["ui", "widgets"]));
        assert_eq!(m["engines"], json!({"node": ">=18"}));
        assert!(
            m.get("dependencies").is_none(),
            "empty dependency maps are left out"
        );
        assert_eq!(m["lastPublished"], "2025-01-01T00:00:00Z");
        assert_eq!(m["deprecated"], "use @acme/widget2");
        let lean = package(
            &json!({"name": "x", "version": "1.0.0", "repository": "gitlab:g/x"}),
            None,
            false,
        );
        assert_eq!(lean["repository"], "https://gitlab.com/g/x");
        assert_eq!(lean["license"], Value::Null);
        assert!(lean.get("author").is_none() && lean.get("repoUrl").is_none());
    }
}
