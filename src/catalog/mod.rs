//! The tool catalog: a directory of JSON files, one per tool, checked by `validate` and held
//! as an immutable `Catalog` with a content version hash. The catalog is data; nothing here
//! knows about search or transports.

mod checks;
mod document;
#[cfg(test)]
mod fuzz_tests;
pub mod mcp;
mod record;
mod report;
pub(crate) mod suggest;
mod text;
mod validate;

pub use document::{Passage, PassageKind, ToolDocument};
pub use record::{
    ComplexityLevel, Execution, ParameterDefinition, PerformanceTier, ToolExample, ToolRecord,
    ToolSource, ToolType, UsagePattern, DEFAULT_SCORE,
};
pub use report::{render_human, render_json};
pub use suggest::{normalize_name, suggest};
pub use text::split_identifier;
pub(crate) use text::split_sentences_where;
pub use validate::{
    validate, validate_values, Diagnostic, Severity, Source, Validation, USEFUL_DESCRIPTION_CHARS,
};

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// A validated catalog, sorted by tool id.
#[derive(Debug, Clone)]
pub struct Catalog {
    dir: PathBuf,
    tools: Vec<ToolRecord>,
    by_id: HashMap<String, usize>,
    version: String,
}

/// How one catalog source fared when the catalog was assembled (`/health` shows them).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SourceReport {
    pub name: String,
    /// `dir`, `file` or `mcp`.
    pub kind: String,
    /// Tools it added to the catalog.
    pub tools: usize,
    /// Why it added none, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Tool names it shares with an earlier source (each kept under its own id).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_names: Vec<String>,
}

impl Catalog {
    /// Loads and validates `dir`. On any error the whole validation comes back, so the
    /// caller can show the maintainer every problem.
    pub fn load(dir: &Path) -> Result<(Catalog, Validation), LoadError> {
        let sources = read_dir(dir).map_err(LoadError::Io)?;
        let validation = validate(&sources);
        if validation.errors() > 0 {
            return Err(LoadError::Invalid {
                dir: dir.to_path_buf(),
                validation,
            });
        }
        let tools = validation.tools.iter().map(|(_, t)| t.clone()).collect();
        Ok((Catalog::from_tools(dir.to_path_buf(), tools), validation))
    }

    /// Builds a catalog from already validated tools.
    pub fn from_tools(dir: PathBuf, mut tools: Vec<ToolRecord>) -> Catalog {
        tools.sort_by(|a, b| a.tool_id.cmp(&b.tool_id));
        let by_id = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool_id.clone(), i))
            .collect();
        let version = content_version(&tools);
        Catalog {
            dir,
            tools,
            by_id,
            version,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn tools(&self) -> &[ToolRecord] {
        &self.tools
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// First 16 hex digits of a SHA-256 over the tools' canonical JSON: equal content, equal
    /// version, whatever the file layout or formatting.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The tool's position in `tools()`.
    pub fn ordinal(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).and_then(|&i| u32::try_from(i).ok())
    }

    pub fn get(&self, id: &str) -> Option<&ToolRecord> {
        self.by_id.get(id).map(|&i| &self.tools[i])
    }

    /// The tool, or `ToolNotFound` with close ids and names as suggestions.
    pub fn require(&self, id: &str) -> Result<&ToolRecord> {
        self.get(id).ok_or_else(|| Error::ToolNotFound {
            id: id.to_string(),
            suggestions: self.suggest_ids(id),
        })
    }

    /// Tool ids whose id, name or alias is close to `query`.
    pub fn suggest_ids(&self, query: &str) -> Vec<String> {
        let names: Vec<(&str, &str)> = self
            .tools
            .iter()
            .flat_map(|t| {
                std::iter::once((t.tool_id.as_str(), t.tool_id.as_str()))
                    .chain(t.names().map(move |n| (n, t.tool_id.as_str())))
            })
            .collect();
        let by_name: HashMap<&str, &str> = names.iter().copied().collect();
        let mut out: Vec<String> = Vec::new();
        for hit in suggest(query, names.iter().map(|(n, _)| *n)) {
            let id = by_name[hit.as_str()].to_string();
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    }

    /// The tool a caller names by its id, its execution name (`localSearchCode`) or, ignoring
    /// case and separators, its name or an alias; ids win over names.
    pub fn find(&self, name: &str) -> Option<&ToolRecord> {
        if let Some(tool) = self.get(name) {
            return Some(tool);
        }
        if let Some(tool) = self
            .tools
            .iter()
            .find(|t| t.execution.as_ref().is_some_and(|e| e.name == name))
        {
            return Some(tool);
        }
        let key = normalize_name(name);
        if key.is_empty() {
            return None;
        }
        self.tools.iter().find(|t| {
            normalize_name(&t.tool_id) == key || t.names().any(|n| normalize_name(n) == key)
        })
    }

    /// The violation (at `pointer`) for a category this catalog does not have, naming the
    /// known ones and the closest; `None` for a known category. Every request that names a
    /// category reports an unknown one with this text.
    pub fn check_category(&self, category: &str, pointer: &str) -> Option<crate::error::Violation> {
        let known = self.categories();
        if known.contains_key(category) {
            return None;
        }
        let names: Vec<&str> = known.keys().copied().collect();
        let close = suggest(category, names.iter().copied());
        let mut message = format!("expected one of {}, found \"{category}\"", names.join(", "));
        if let Some(best) = close.first() {
            message.push_str(&format!("; did you mean \"{best}\"?"));
        }
        Some(crate::error::Violation {
            pointer: pointer.into(),
            message,
        })
    }

    /// Tools toolscout can run itself (those with an `execution` binding), in id order.
    pub fn executable(&self) -> impl Iterator<Item = &ToolRecord> {
        self.tools.iter().filter(|t| t.is_executable())
    }

    /// The indexed text of every tool, ordinal = position in id order (what the indexes and
    /// the ranking speak in).
    pub fn documents(&self) -> Vec<ToolDocument> {
        self.tools
            .iter()
            .enumerate()
            .map(|(i, t)| ToolDocument::from_record(i as u32, t))
            .collect()
    }

    /// Tool counts per tool type (`system`, `third_party`, ...), sorted by type.
    pub fn tool_types(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for t in &self.tools {
            let kind = serde_json::to_value(t.tool_type)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *out.entry(kind).or_insert(0) += 1;
        }
        out
    }

    /// Tool counts per category, sorted by category.
    pub fn categories(&self) -> BTreeMap<&str, usize> {
        let mut out = BTreeMap::new();
        // A tool whose category is still to be inferred counts in none.
        for t in self.tools.iter().filter(|t| !t.category.is_empty()) {
            *out.entry(t.category.as_str()).or_insert(0) += 1;
        }
        out
    }
}

/// Why a catalog could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The directory itself could not be read.
    Io(Error),
    /// Files were read but some are invalid.
    Invalid {
        dir: PathBuf,
        validation: Validation,
    },
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Error {
        match e {
            LoadError::Io(e) => e,
            LoadError::Invalid { dir, validation } => Error::CatalogInvalid {
                dir,
                errors: validation.errors(),
                files: validation.files_with_errors(),
            },
        }
    }
}

/// Reads every `.json` file under `dir`. Files must sit at `<dir>/<category>/<id>.json`; a
/// file elsewhere is still read and validated, and reported as misplaced.
pub fn read_dir(dir: &Path) -> Result<Vec<Source>> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let meta = std::fs::metadata(dir).map_err(io(dir))?;
    if !meta.is_dir() {
        return Err(Error::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other("expected a directory, found a file"),
        });
    }
    let mut files = Vec::new();
    collect_json(dir, &mut files).map_err(io(dir))?;
    files.sort();
    let mut sources = Vec::with_capacity(files.len());
    for path in files {
        let rel = path.strip_prefix(dir).unwrap_or(&path);
        let label = rel.to_string_lossy().replace('\\', "/");
        let parts: Vec<&str> = label.split('/').collect();
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let dir_category = (parts.len() == 2).then(|| parts[0].to_string());
        sources.push(Source {
            label,
            dir_category,
            stem,
            bytes,
        });
    }
    Ok(sources)
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

fn content_version(tools: &[ToolRecord]) -> String {
    let mut hasher = Sha256::new();
    for t in tools {
        hasher.update(serde_json::to_vec(t).unwrap_or_default());
        hasher.update([0u8]);
    }
    let digest = hasher.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
