//! The on-disk cache of catalog passage vectors, keyed by a hash of the model and the text.
//!
//! Embedding a catalog is model-bound (the forward pass is the whole cost: ~16 tools/s on two
//! cores for the shipped catalog), so a server restart or a catalog reload where few entries
//! changed should not pay it again. Only catalog passages go through the cache; query texts
//! never do (they are unbounded and may be private).
//!
//! File format (`vectors-<model>.bin`, little-endian): the magic `TSVEC1\n`, the dimension
//! (u32), the entry count (u32), then per entry a 32-byte SHA-256 key and `dim` f32 values.
//! A file that is missing, truncated or of another dimension is ignored with a warning, and
//! rewritten whole (through a temporary file and a rename) when the cache has new entries,
//! keeping the entries in use and at most [`SPARE_ENTRIES`] others.

use super::Embedder;
use crate::error::Error;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8] = b"TSVEC1\n";

type Key = [u8; 32];

/// Vectors of texts embedded before, by model.
pub struct VectorCache {
    path: PathBuf,
    model: String,
    dim: usize,
    /// Read from the file on first use: a start that loads a persisted index and embeds
    /// nothing never pays for parsing it.
    entries: std::sync::OnceLock<Mutex<HashMap<Key, Vec<f32>>>>,
    /// Entries added since the file was read.
    added: Mutex<usize>,
    /// Keys this process looked up or added: what the current catalog needs.
    used: Mutex<std::collections::HashSet<Key>>,
}

/// Entries kept beyond the ones in use when the file is rewritten: enough for a few catalog
/// versions (or catalogs) side by side, bounded so the file cannot grow without limit.
const SPARE_ENTRIES: usize = 20_000;

/// What one cached embedding pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUse {
    pub hits: usize,
    pub misses: usize,
}

impl VectorCache {
    /// Opens the cache of `model` (vectors of `dim` values) in `dir`; a missing or unreadable
    /// file gives an empty cache.
    pub fn open(dir: &Path, model: &str, dim: usize) -> VectorCache {
        let safe: String = model
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("vectors-{safe}.bin"));
        VectorCache {
            path,
            model: model.to_string(),
            dim,
            entries: std::sync::OnceLock::new(),
            added: Mutex::new(0),
            used: Mutex::new(std::collections::HashSet::new()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries, read from the file the first time.
    fn entries(&self) -> &Mutex<HashMap<Key, Vec<f32>>> {
        self.entries.get_or_init(|| {
            let entries = match std::fs::read(&self.path) {
                Ok(bytes) => parse(&bytes, self.dim).unwrap_or_else(|why| {
                    tracing::warn!(path = %self.path.display(), why, "ignoring the vector cache");
                    HashMap::new()
                }),
                Err(_) => HashMap::new(),
            };
            Mutex::new(entries)
        })
    }

    pub fn len(&self) -> usize {
        self.entries().lock().map_or(0, |e| e.len())
    }

    /// Marks `texts` as in use without looking their vectors up, so that a save keeps them
    /// (a catalog update embeds only its changed tools but still uses the others).
    pub fn keep<'t>(&self, texts: impl Iterator<Item = &'t str>) {
        if let Ok(mut used) = self.used.lock() {
            used.extend(texts.map(|t| self.key(t)));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key(&self, text: &str) -> Key {
        let mut h = Sha256::new();
        h.update(self.model.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.finalize().into()
    }

    /// Vectors of `texts`: cached ones from the cache, the rest from `embedder` in one call
    /// (then cached).
    pub fn embed(
        &self,
        embedder: &dyn Embedder,
        texts: &[&str],
    ) -> Result<(Vec<Vec<f32>>, CacheUse), Error> {
        let keys: Vec<Key> = texts.iter().map(|t| self.key(t)).collect();
        self.used
            .lock()
            .map_err(poisoned)?
            .extend(keys.iter().copied());
        let mut out: Vec<Option<Vec<f32>>> = {
            let entries = self.entries().lock().map_err(poisoned)?;
            keys.iter().map(|k| entries.get(k).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        let usage = CacheUse {
            hits: texts.len() - missing.len(),
            misses: missing.len(),
        };
        if !missing.is_empty() {
            let todo: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let vectors = embedder.embed(&todo)?;
            let mut entries = self.entries().lock().map_err(poisoned)?;
            for (&i, v) in missing.iter().zip(vectors) {
                if v.len() == self.dim {
                    entries.insert(keys[i], v.clone());
                }
                out[i] = Some(v);
            }
            *self.added.lock().map_err(poisoned)? += missing.len();
        }
        Ok((
            out.into_iter().map(Option::unwrap_or_default).collect(),
            usage,
        ))
    }

    /// Writes the cache when it has new entries: to a temporary file, then renamed over the
    /// old one, so a crash never leaves half a file.
    pub fn save(&self) -> Result<(), Error> {
        if *self.added.lock().map_err(poisoned)? == 0 {
            return Ok(());
        }
        let entries = self.entries().lock().map_err(poisoned)?;
        let used = self.used.lock().map_err(poisoned)?;
        // Every entry in use, then others (in key order, so the choice is stable) up to
        // SPARE_ENTRIES.
        let mut keys: Vec<&Key> = entries.keys().filter(|k| used.contains(*k)).collect();
        let mut spare: Vec<&Key> = entries.keys().filter(|k| !used.contains(*k)).collect();
        spare.sort_unstable();
        keys.extend(spare.into_iter().take(SPARE_ENTRIES));
        keys.sort_unstable();
        let mut bytes = Vec::with_capacity(MAGIC.len() + 8 + keys.len() * (32 + 4 * self.dim));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.dim as u32).to_le_bytes());
        bytes.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for k in keys {
            bytes.extend_from_slice(k);
            for x in &entries[k] {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let io = |e: std::io::Error| Error::Io {
            path: self.path.clone(),
            source: e,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &bytes).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)?;
        *self.added.lock().map_err(poisoned)? = 0;
        Ok(())
    }
}

fn poisoned<T>(_: T) -> Error {
    Error::Internal("vector cache lock poisoned".into())
}

fn parse(bytes: &[u8], dim: usize) -> Result<HashMap<Key, Vec<f32>>, String> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or("not a toolscout vector cache")?;
    let u32_at = |at: usize| -> Result<usize, String> {
        rest.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| "truncated header".to_string())
    };
    let (file_dim, count) = (u32_at(0)?, u32_at(4)?);
    if file_dim != dim {
        return Err(format!("vectors of {file_dim} dimensions, expected {dim}"));
    }
    let entry = 32 + 4 * dim;
    let body = &rest[8..];
    if body.len() != count * entry {
        return Err(format!(
            "expected {count} entries ({} bytes), found {} bytes",
            count * entry,
            body.len()
        ));
    }
    let mut out = HashMap::with_capacity(count);
    for chunk in body.chunks_exact(entry) {
        let mut key = [0u8; 32];
        key.copy_from_slice(&chunk[..32]);
        let v: Vec<f32> = chunk[32..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        out.insert(key, v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts the texts it embeds; vectors are a function of the text.
    struct Counting(AtomicUsize);

    impl Embedder for Counting {
        fn dim(&self) -> usize {
            3
        }
        fn model_id(&self) -> &str {
            "counting"
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, 1.0, 0.5])
                .collect())
        }
    }

    #[test]
    fn second_open_serves_from_disk_and_new_texts_are_embedded() {
        let dir = tempfile::tempdir().unwrap();
        let model = Counting(AtomicUsize::new(0));
        let cache = VectorCache::open(dir.path(), "m/1", 3);
        let (v, usage) = cache.embed(&model, &["a", "bb", "a"]).unwrap();
        assert_eq!(usage, CacheUse { hits: 0, misses: 3 });
        assert_eq!(v[1], vec![2.0, 1.0, 0.5]);
        cache.save().unwrap();
        assert!(cache.path().ends_with("vectors-m_1.bin"));

        let again = VectorCache::open(dir.path(), "m/1", 3);
        assert_eq!(again.len(), 2);
        let (v, usage) = again.embed(&model, &["bb", "ccc"]).unwrap();
        assert_eq!(usage, CacheUse { hits: 1, misses: 1 });
        assert_eq!(v, vec![vec![2.0, 1.0, 0.5], vec![3.0, 1.0, 0.5]]);
        assert_eq!(model.0.load(Ordering::SeqCst), 4);

        // Another model shares nothing; a file of another dimension is ignored.
        assert_eq!(VectorCache::open(dir.path(), "m/2", 3).len(), 0);
        assert_eq!(VectorCache::open(dir.path(), "m/1", 4).len(), 0);
    }

    #[test]
    fn a_damaged_file_is_ignored_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors-m.bin");
        std::fs::write(&path, b"TSVEC1\n\x03\0\0\0\x05\0\0\0short").unwrap();
        let cache = VectorCache::open(dir.path(), "m", 3);
        assert!(cache.is_empty());
        let model = Counting(AtomicUsize::new(0));
        cache.embed(&model, &["x"]).unwrap();
        cache.save().unwrap();
        assert_eq!(VectorCache::open(dir.path(), "m", 3).len(), 1);
        assert!(parse(b"nope", 3).is_err());
    }
}
