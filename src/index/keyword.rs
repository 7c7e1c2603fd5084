//! The keyword index: BM25 over the per-field text of every `ToolDocument`, held in RAM by
//! tantivy. Owns the field weights (the analyzer is in `analyzer`), the filtered top-k search and the per-hit "which query term matched which
//! field" explanation. Built once per catalog and read-only afterwards.
//!
//! Scoring is a sum of per-field BM25 scores, each multiplied by its field weight
//! (`FieldWeights`). Queries are built term by term (never through tantivy's query parser) so
//! that no user input can be a syntax error.

use crate::catalog::ToolDocument;
use crate::error::Error;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use tantivy::indexer::{IndexWriterOptions, NoMergePolicy};
use tantivy::postings::TermInfo;
use tantivy::query::{BooleanQuery, BoostQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TokenStream;

use super::analyzer::ANALYZER;
pub use super::analyzer::{analyze, analyzer, IdentifierSplit, TOKENIZER_NAME};
use tantivy::{
    DocId, DocSet, Index, IndexWriter, InvertedIndexReader, ReloadPolicy, Score, Searcher,
    TantivyDocument, Term, TERMINATED,
};

/// Arena given to the single indexing thread. The arena grows page by page, so a small
/// catalog never touches most of it; a catalog that outgrows it is flushed into several
/// segments and merged back into one (see `build`).
const WRITER_MEMORY_BUDGET: usize = 512 << 20;

/// The indexed text fields of a tool, in the order used everywhere in this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeywordField {
    Names,
    Keywords,
    Description,
    Guidance,
    Parameters,
    Examples,
}

impl KeywordField {
    pub const ALL: [KeywordField; 6] = [
        KeywordField::Names,
        KeywordField::Keywords,
        KeywordField::Description,
        KeywordField::Guidance,
        KeywordField::Parameters,
        KeywordField::Examples,
    ];

    /// The field's name in the index and in `KeywordHit::matched`.
    pub fn as_str(self) -> &'static str {
        match self {
            KeywordField::Names => "names",
            KeywordField::Keywords => "keywords",
            KeywordField::Description => "description",
            KeywordField::Guidance => "guidance",
            KeywordField::Parameters => "parameters",
            KeywordField::Examples => "examples",
        }
    }

    fn text(self, doc: &ToolDocument) -> &str {
        match self {
            KeywordField::Names => &doc.names,
            KeywordField::Keywords => &doc.keywords,
            KeywordField::Description => &doc.description,
            KeywordField::Guidance => &doc.guidance,
            KeywordField::Parameters => &doc.parameters,
            KeywordField::Examples => &doc.examples,
        }
    }
}

/// Multipliers of each field's BM25 score. A weight of 0 (or less) leaves the field out of
/// queries altogether.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldWeights {
    pub names: f32,
    pub keywords: f32,
    pub description: f32,
    pub guidance: f32,
    pub parameters: f32,
    pub examples: f32,
}

impl Default for FieldWeights {
    /// Names say what a tool is, keywords were written for search, descriptions are prose;
    /// examples, guidance and parameters mention many things a tool is *not* about.
    fn default() -> Self {
        FieldWeights {
            names: 3.0,
            keywords: 2.0,
            description: 1.0,
            guidance: 0.5,
            parameters: 0.4,
            examples: 0.8,
        }
    }
}

impl FieldWeights {
    pub fn get(&self, field: KeywordField) -> f32 {
        match field {
            KeywordField::Names => self.names,
            KeywordField::Keywords => self.keywords,
            KeywordField::Description => self.description,
            KeywordField::Guidance => self.guidance,
            KeywordField::Parameters => self.parameters,
            KeywordField::Examples => self.examples,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordHit {
    pub ordinal: u32,
    /// Sum over fields of weight x BM25.
    pub bm25: f32,
    /// (field name, query word as the user typed it) for every query term found in the
    /// tool, grouped by query term in query order, then by field in `KeywordField::ALL` order.
    pub matched: Vec<(String, String)>,
}

/// An analysed query term and the slice of the query it came from.
#[derive(Debug, Clone)]
struct QueryTerm {
    term: String,
    surface: String,
}

/// A BM25 index over a catalog's documents. Immutable and cheap to share (`Send + Sync`).
pub struct KeywordIndex {
    searcher: Searcher,
    fields: [Field; 6],
    weights: FieldWeights,
    /// Per segment, doc id -> tool ordinal, read once from the `ordinal` fast field so that
    /// the search loop maps hits with one array access.
    segment_ordinals: Vec<Vec<u32>>,
    /// Tool ordinal -> (segment, doc id): the inverse of `segment_ordinals`.
    locations: Vec<Option<(u32, DocId)>>,
    /// Per segment, the inverted index of each field in `KeywordField::ALL` order, opened
    /// once instead of on every query.
    inverted: Vec<Vec<Arc<InvertedIndexReader>>>,
}

impl std::fmt::Debug for KeywordIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeywordIndex")
            .field("num_docs", &self.num_docs())
            .field("segments", &self.segment_ordinals.len())
            .field("weights", &self.weights)
            .finish()
    }
}

fn internal(e: impl std::fmt::Display) -> Error {
    Error::Internal(format!("keyword index: {e}"))
}

impl KeywordIndex {
    /// Indexes `docs` in RAM. Ordinals come from the documents, not from their position in
    /// the slice.
    pub fn build(docs: &[ToolDocument], weights: FieldWeights) -> Result<KeywordIndex, Error> {
        let mut schema_builder = Schema::builder();
        // Frequencies but no positions: scoring is per-term BM25, nothing runs phrase queries,
        // and positions would roughly double the index.
        let text_options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        let fields = KeywordField::ALL
            .map(|f| schema_builder.add_text_field(f.as_str(), text_options.clone()));
        let ordinal_field =
            schema_builder.add_u64_field("ordinal", NumericOptions::default().set_fast());
        let index = Index::create_in_ram(schema_builder.build());
        index.tokenizers().register(TOKENIZER_NAME, analyzer());

        // One worker thread: doc ids then follow insertion order, which keeps builds
        // reproducible; background merges are off so the merge below is the only one.
        let mut writer: IndexWriter<TantivyDocument> = index
            .writer_with_options(
                IndexWriterOptions::builder()
                    .num_worker_threads(1)
                    .memory_budget_per_thread(WRITER_MEMORY_BUDGET)
                    .build(),
            )
            .map_err(internal)?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        for doc in docs {
            let mut tdoc = TantivyDocument::default();
            for (field, kind) in fields.iter().zip(KeywordField::ALL) {
                tdoc.add_text(*field, kind.text(doc));
            }
            tdoc.add_u64(ordinal_field, u64::from(doc.ordinal));
            writer.add_document(tdoc).map_err(internal)?;
        }
        writer.commit().map_err(internal)?;
        // A single segment keeps the search loop to one pass and postings lookups to one
        // dictionary per field.
        let segment_ids = index.searchable_segment_ids().map_err(internal)?;
        if segment_ids.len() > 1 {
            writer.merge(&segment_ids).wait().map_err(internal)?;
        }
        writer.wait_merging_threads().map_err(internal)?;

        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(internal)?;
        let searcher = reader.searcher();
        let mut segment_ordinals = Vec::with_capacity(searcher.segment_readers().len());
        let mut inverted = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            inverted.push(
                fields
                    .iter()
                    .map(|&field| segment.inverted_index(field))
                    .collect::<tantivy::Result<Vec<_>>>()
                    .map_err(internal)?,
            );
            let column = segment.fast_fields().u64("ordinal").map_err(internal)?;
            let ordinals = (0..segment.max_doc())
                .map(|doc| {
                    let value = column.first(doc).unwrap_or_default();
                    u32::try_from(value).map_err(internal)
                })
                .collect::<Result<Vec<u32>, Error>>()?;
            segment_ordinals.push(ordinals);
        }
        let mut locations: Vec<Option<(u32, DocId)>> = Vec::new();
        for (segment, ordinals) in segment_ordinals.iter().enumerate() {
            for (doc, &o) in ordinals.iter().enumerate() {
                if locations.len() <= o as usize {
                    locations.resize(o as usize + 1, None);
                }
                locations[o as usize] = Some((segment as u32, doc as DocId));
            }
        }
        Ok(KeywordIndex {
            searcher,
            fields,
            weights,
            segment_ordinals,
            locations,
            inverted,
        })
    }

    pub fn weights(&self) -> FieldWeights {
        self.weights
    }

    pub fn num_docs(&self) -> u64 {
        self.searcher.num_docs()
    }

    /// Number of documents containing the analysed `term` (an item of `analyze`'s output) in
    /// any field. 0 means the catalog has never heard of it. A raw word must be analysed
    /// first: "Searching" is indexed as "search".
    pub fn doc_freq(&self, term: &str) -> u64 {
        let clauses: Vec<(Occur, Box<dyn Query>)> = self
            .fields
            .iter()
            .map(|&field| {
                let query =
                    TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::Basic);
                (Occur::Should, Box::new(query) as Box<dyn Query>)
            })
            .collect();
        match BooleanQuery::new(clauses).count(&self.searcher) {
            Ok(n) => n as u64,
            Err(e) => {
                tracing::error!(error = %e, "keyword index: doc_freq failed");
                0
            }
        }
    }

    /// Whether any document has the analysed `term` in any field: dictionary lookups only,
    /// much cheaper than `doc_freq`, which counts a union of postings.
    pub fn contains_term(&self, term: &str) -> bool {
        KeywordField::ALL
            .iter()
            .any(|&f| self.field_doc_freq(f, term) > 0)
    }

    /// Number of documents containing the analysed `term` in `field`.
    pub fn field_doc_freq(&self, field: KeywordField, term: &str) -> u64 {
        let term = Term::from_field_text(self.fields[field as usize], term);
        self.searcher.doc_freq(&term).unwrap_or_default()
    }

    /// The BM25 inverse document frequency of the analysed `term` in `field`, as tantivy
    /// computes it: ln(1 + (N - n + 0.5) / (n + 0.5)).
    pub fn idf(&self, field: KeywordField, term: &str) -> f32 {
        let n = self.field_doc_freq(field, term) as f32;
        let total = self.num_docs() as f32;
        (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
    }

    /// The `k` best documents for `query`, by score descending then ordinal ascending.
    /// `allow` is applied before the cut: when fewer than `k` allowed documents match, all of
    /// them come back. A query with no term left after analysis matches nothing.
    pub fn search(
        &self,
        query: &str,
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> Vec<KeywordHit> {
        let terms = query_terms(query);
        if terms.is_empty() || k == 0 {
            return Vec::new();
        }
        match self.search_terms(&terms, k, allow) {
            Ok(hits) => hits,
            Err(e) => {
                // A RAM index cannot fail to read; if it ever does, an empty result with a log
                // line beats failing the whole recommendation.
                tracing::error!(error = %e, "keyword index: search failed");
                Vec::new()
            }
        }
    }

    fn search_terms(
        &self,
        terms: &[QueryTerm],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> tantivy::Result<Vec<KeywordHit>> {
        let Some((query, lookups)) = self.build_query(terms)? else {
            return Ok(Vec::new());
        };
        let weight = query.weight(EnableScoring::enabled_from_searcher(&self.searcher))?;

        let capacity = k.min(self.num_docs() as usize);
        let mut top = BinaryHeap::<Candidate>::with_capacity(capacity + 1);
        for (segment_ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            let ordinals = &self.segment_ordinals[segment_ord];
            let start = threshold(&top, k);
            // `for_each_pruning` lets the union skip blocks that cannot beat the current k-th
            // score (block-WAND). The filter runs inside the callback, so the threshold only
            // rises once k *allowed* documents are held.
            weight.for_each_pruning(start, segment, &mut |doc, score| {
                let ordinal = ordinals[doc as usize];
                if allow.is_none_or(|allow| allow(ordinal)) {
                    let candidate = Candidate {
                        score,
                        ordinal,
                        segment: segment_ord as u32,
                        doc,
                    };
                    if top.len() < k {
                        top.push(candidate);
                    } else if top.peek().is_some_and(|worst| candidate < *worst) {
                        top.pop();
                        top.push(candidate);
                    }
                }
                threshold(&top, k)
            })?;
        }
        let ranked = top.into_sorted_vec();
        let matched = self.matched(terms, &lookups, &ranked)?;
        Ok(ranked
            .iter()
            .zip(matched)
            .map(|(c, matched)| KeywordHit {
                ordinal: c.ordinal,
                bm25: c.score,
                matched,
            })
            .collect())
    }

    /// The query of `terms` over every weighted field, and the (field, term) pairs present in
    /// the index; None when no pair is present.
    ///
    /// Most (field, term) pairs of a query do not occur at all. One dictionary lookup per
    /// pair settles that up front, so absent pairs cost no weight, no scorer and no
    /// explanation, and present ones reuse their `TermInfo` for the explanation.
    fn build_query(
        &self,
        terms: &[QueryTerm],
    ) -> tantivy::Result<Option<(BooleanQuery, Vec<Lookup>)>> {
        let mut lookups: Vec<Lookup> = Vec::new();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field_idx, (kind, &field)) in KeywordField::ALL.iter().zip(&self.fields).enumerate() {
            let weight = self.weights.get(*kind);
            if weight <= 0.0 {
                continue;
            }
            for (term_idx, term) in terms.iter().enumerate() {
                let term = Term::from_field_text(field, &term.term);
                let infos = self
                    .inverted
                    .iter()
                    .map(|fields| fields[field_idx].get_term_info(&term))
                    .collect::<std::io::Result<Vec<Option<TermInfo>>>>()?;
                if infos.iter().all(Option::is_none) {
                    continue;
                }
                lookups.push(Lookup {
                    field_idx,
                    term_idx,
                    infos,
                });
                let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(query), weight)),
                ));
            }
        }
        if clauses.is_empty() {
            return Ok(None);
        }
        Ok(Some((BooleanQuery::new(clauses), lookups)))
    }

    /// For each ranked candidate, the (field, query word) pairs present in it: the postings of
    /// every present pair, opened from its known `TermInfo`, seeked forward through the hits.
    /// A few microseconds for a page of hits, and no per-document side table in memory.
    fn matched(
        &self,
        terms: &[QueryTerm],
        lookups: &[Lookup],
        ranked: &[Candidate],
    ) -> tantivy::Result<Vec<Vec<(String, String)>>> {
        // found[hit][term][field]
        let mut found = vec![vec![[false; 6]; terms.len()]; ranked.len()];
        for (segment_ord, inverted) in self.inverted.iter().enumerate() {
            let mut hits: Vec<(DocId, usize)> = ranked
                .iter()
                .enumerate()
                .filter(|(_, c)| c.segment as usize == segment_ord)
                .map(|(i, c)| (c.doc, i))
                .collect();
            if hits.is_empty() {
                continue;
            }
            hits.sort_unstable();
            for lookup in lookups {
                let Some(info) = &lookup.infos[segment_ord] else {
                    continue;
                };
                let mut postings = inverted[lookup.field_idx]
                    .read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
                for &(doc, hit) in &hits {
                    // Hits are sorted by doc, so seeks only move forward, as DocSet wants.
                    let mut current = postings.doc();
                    if current < doc {
                        current = postings.seek(doc);
                    }
                    if current == TERMINATED {
                        break;
                    }
                    if current == doc {
                        found[hit][lookup.term_idx][lookup.field_idx] = true;
                    }
                }
            }
        }
        Ok(found
            .into_iter()
            .map(|per_term| {
                let mut out: Vec<(String, String)> = Vec::new();
                for (term, fields) in terms.iter().zip(per_term) {
                    for (kind, hit) in KeywordField::ALL.iter().zip(fields) {
                        if !hit {
                            continue;
                        }
                        let pair = (kind.as_str().to_string(), term.surface.clone());
                        if !out.contains(&pair) {
                            out.push(pair);
                        }
                    }
                }
                out
            })
            .collect())
    }
}

/// A (field, query term) pair present in the index, with its dictionary entry per segment.
struct Lookup {
    field_idx: usize,
    term_idx: usize,
    infos: Vec<Option<TermInfo>>,
}

/// A scored document during collection. Ordered so that the *worse* candidate is greater:
/// the heap's top is then the one to evict, and `into_sorted_vec` lists the best first.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: Score,
    ordinal: u32,
    segment: u32,
    doc: DocId,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.ordinal.cmp(&other.ordinal))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The score a document must exceed to be offered to the collector. Tantivy passes only
/// scores strictly above it, so it sits one float step below the k-th score: a tie with the
/// k-th document still arrives and is settled by ordinal, whatever the visiting order.
fn threshold(top: &BinaryHeap<Candidate>, k: usize) -> Score {
    match top.peek() {
        Some(worst) if top.len() >= k => next_down(worst.score),
        _ => Score::MIN,
    }
}

/// The largest float below `x` (`f32::next_down` needs a newer Rust than the crate's MSRV).
fn next_down(x: f32) -> f32 {
    if x.is_nan() || x == f32::NEG_INFINITY {
        x
    } else if x == 0.0 {
        -f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

/// The distinct analysed terms of a query, each with the slice of the query it came from.
fn query_terms(query: &str) -> Vec<QueryTerm> {
    let mut analyzer = ANALYZER.clone();
    let mut stream = analyzer.token_stream(query);
    let mut out: Vec<QueryTerm> = Vec::new();
    while let Some(token) = stream.next() {
        if out.iter().any(|t| t.term == token.text) {
            continue;
        }
        let surface = query
            .get(token.offset_from..token.offset_to)
            .unwrap_or(&token.text)
            .to_string();
        out.push(QueryTerm {
            term: token.text.clone(),
            surface,
        });
    }
    out
}

mod exact;

#[cfg(test)]
mod tests;
