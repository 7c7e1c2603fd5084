//! The persisted semantic index: the vectors, the HNSW graphs and their codes of a built
//! snapshot, stored in the cache directory under the model and the catalog version, so that a
//! restart loads them instead of building the graphs again (building is the whole cost of a
//! start: ~1.3 s at 1k tools and ~30 s at 10k on two cores; loading is a read).
//!
//! A start whose catalog version has no file takes the newest file of the same model as the
//! base of an update (`semantic`): the tools that did not change keep their vectors, so a
//! restart after a small catalog change is as fast as one without. Only indexes with a graph
//! are stored (below `VectorParams::exact_below` vectors a build takes milliseconds), and only
//! [`KEEP_FILES`] files per model are kept.
//!
//! File (`index/<model>-<catalog version>.bin`): the magic `TSIDX1\n`, the model id, the
//! dimension, the catalog version, each tool's id and passage fingerprint, both vector indexes
//! (`vector::store`), the passage kinds, and a CRC-32 of everything before it. A file that is
//! damaged, truncated or of another model or dimension is ignored with a warning.

use super::bytes::{Read, Reader, Writer};
use super::semantic::{Semantic, ToolKey};
use super::vector::VectorIndex;
use crate::catalog::PassageKind;
use crate::embed::Embedder;
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8] = b"TSIDX1\n";

/// Files kept per model: the catalog versions a process may come back to.
pub const KEEP_FILES: usize = 3;

const KINDS: [PassageKind; 5] = [
    PassageKind::Summary,
    PassageKind::Keywords,
    PassageKind::Guidance,
    PassageKind::Example,
    PassageKind::Parameters,
];

/// Characters of a model id or version that may go into a file name.
fn safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn file_of(cache_dir: &Path, model: &str, version: &str) -> PathBuf {
    cache_dir
        .join("index")
        .join(format!("{}-{}.bin", safe(model), safe(version)))
}

/// Whether a persisted index is worth writing for `semantic`: it has a graph.
pub fn worth_saving(semantic: &Semantic) -> bool {
    semantic.summaries.uses_hnsw() || semantic.passages.uses_hnsw()
}

/// Stores `semantic` for `version` (through a temporary file and a rename) and drops the
/// model's oldest files beyond [`KEEP_FILES`].
pub fn save(cache_dir: &Path, version: &str, semantic: &Semantic) -> Result<PathBuf, Error> {
    let model = semantic.embedder.model_id();
    let path = file_of(cache_dir, model, version);
    let mut w = Writer::default();
    w.bytes.extend_from_slice(MAGIC);
    w.str(model);
    w.u32(semantic.summaries.dim() as u32);
    w.str(version);
    w.u64(semantic.tools.len() as u64);
    for t in &semantic.tools {
        w.str(&t.id);
        w.bytes.extend_from_slice(&t.fingerprint);
    }
    semantic.summaries.write(&mut w);
    semantic.passages.write(&mut w);
    let kinds: Vec<u32> = semantic.passage_kinds.iter().map(|k| *k as u32).collect();
    w.u32s(&kinds);
    let crc = crc32fast::hash(&w.bytes);
    w.u32(crc);
    let io = |e: std::io::Error| Error::Io {
        path: path.clone(),
        source: e,
    };
    let dir = path.parent().unwrap_or(cache_dir);
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &w.bytes).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    prune(dir, model);
    Ok(path)
}

/// The model's files, newest first.
fn files_of_model(dir: &Path, model: &str) -> Vec<PathBuf> {
    let prefix = format!("{}-", safe(model));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".bin")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    files.into_iter().map(|(_, p)| p).collect()
}

fn prune(dir: &Path, model: &str) {
    for old in files_of_model(dir, model).into_iter().skip(KEEP_FILES) {
        let _ = std::fs::remove_file(old);
    }
}

/// The persisted index of `version` for `embedder`'s model, else the model's newest one (the
/// base for an update of a catalog of `tools` tools), else None. The newest one is read only
/// when its tool count is within reach of an update (its header says; the file may be large).
pub fn load(
    cache_dir: &Path,
    version: &str,
    embedder: &Arc<dyn Embedder>,
    tools: usize,
) -> Option<Semantic> {
    let model = embedder.model_id();
    let exact = file_of(cache_dir, model, version);
    let mut candidates = vec![exact.clone()];
    let base = files_of_model(&cache_dir.join("index"), model)
        .into_iter()
        .find(|p| *p != exact)
        .filter(|p| {
            tool_count(p).is_some_and(|n| {
                n.abs_diff(tools) as f64 <= super::semantic::MAX_OVERLAY_SHARE * tools as f64
            })
        });
    candidates.extend(base);
    for path in candidates {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match parse(&bytes, embedder) {
            Ok(semantic) => return Some(semantic),
            Err(why) => {
                tracing::warn!(path = %path.display(), why, "ignoring a persisted index");
            }
        }
    }
    None
}

/// The tool count a file's header gives, from its first few kilobytes.
fn tool_count(path: &Path) -> Option<usize> {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut head)
        .ok()?;
    let mut r = Reader::new(head.strip_prefix(MAGIC)?);
    r.str("model").ok()?;
    r.u32("dimension").ok()?;
    r.str("catalog version").ok()?;
    usize::try_from(r.u64("tool count").ok()?).ok()
}

fn parse(bytes: &[u8], embedder: &Arc<dyn Embedder>) -> Read<Semantic> {
    let (body, crc) = bytes
        .len()
        .checked_sub(4)
        .map(|at| bytes.split_at(at))
        .ok_or("shorter than a checksum")?;
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err("checksum mismatch (a damaged or partly written file)".into());
    }
    let mut r = Reader::new(body);
    let magic = (0..MAGIC.len())
        .map(|_| r.u8("magic"))
        .collect::<Read<Vec<u8>>>()?;
    if magic != MAGIC {
        return Err("not a toolscout index file".into());
    }
    let model = r.str("model")?;
    let dim = r.u32("dimension")? as usize;
    if model != embedder.model_id() || dim != embedder.dim() {
        return Err(format!(
            "expected model {} of {} dimensions, found {model} of {dim}",
            embedder.model_id(),
            embedder.dim()
        ));
    }
    r.str("catalog version")?;
    let count = r.u64("tool count")?;
    let mut tools = Vec::new();
    for _ in 0..count {
        let id = r.str("tool id")?;
        let mut fingerprint = [0u8; 16];
        for b in &mut fingerprint {
            *b = r.u8("fingerprint")?;
        }
        tools.push(ToolKey { id, fingerprint });
    }
    let bound = u32::try_from(tools.len()).map_err(|_| "too many tools")?;
    let summaries = VectorIndex::read(&mut r, bound)?;
    let passages = VectorIndex::read(&mut r, bound)?;
    let passage_kinds = r
        .u32s("passage kinds")?
        .into_iter()
        .map(|k| {
            KINDS
                .get(k as usize)
                .copied()
                .ok_or(format!("passage kind {k}"))
        })
        .collect::<Read<Vec<PassageKind>>>()?;
    if passage_kinds.len() != passages.vector_numbers() || !r.is_at_end() {
        return Err("passage kinds: expected one per passage vector, then the end".into());
    }
    if summaries.dim() != dim || passages.dim() != dim {
        return Err(format!("vectors: expected dimension {dim}"));
    }
    Ok(Semantic {
        embedder: embedder.clone(),
        summaries,
        passages,
        passage_kinds,
        tools,
    })
}

#[cfg(test)]
mod tests {
    use super::KINDS;

    #[test]
    fn every_passage_kind_reads_back_from_its_number() {
        for kind in KINDS {
            assert_eq!(KINDS[kind as usize], kind);
        }
    }
}
