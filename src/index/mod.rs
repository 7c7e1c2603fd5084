//! Search indexes over a catalog: `vector` (HNSW over passage embeddings) and `keyword`
//! (tantivy BM25 over per-field tool text). Both are built once and shared read-only; both
//! speak in tool ordinals (positions in the catalog), never ids.

pub mod analyzer;
pub(crate) mod bytes;
pub mod keyword;
pub mod names;
pub mod persist;
pub mod semantic;
pub mod snapshot;
#[doc(hidden)]
pub mod synthetic;
pub mod vector;
pub mod vocabulary;
