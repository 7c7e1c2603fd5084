//! The keyword index: BM25 over the per-field text of every `ToolDocument`, held in RAM by
//! tantivy. Owns the field weights (the analyzer is in `analyzer`), the filtered top-k search
//! and the per-hit "which query term matched which field" explanation. Built once per catalog
//! and read-only afterwards.
//!
//! Scoring is a sum of per-field BM25 scores, each multiplied by its field weight
//! (`FieldWeights`). Queries are analysed term by term (never through tantivy's query parser)
//! so that no user input can be a syntax error, and answered by adding up per-term impact
//! lists precomputed from tantivy's postings and BM25 (`impacts`), a name's part weighed by
//! how much of the name the query covers (`coverage`); tantivy's own search of the same query
//! (names weighed as any field) is the tests' reference (`reference`).

use crate::catalog::ToolDocument;
use crate::error::Error;
pub use crate::rank::MatchedTerm;
use std::sync::Arc;
use tantivy::indexer::{IndexWriterOptions, NoMergePolicy};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TokenStream;

pub use super::analyzer::{analyze, analyzer, IdentifierSplit, TOKENIZER_NAME};
use super::analyzer::{indexing_analyzer, INDEXING_ANALYZER, PAIR_JOINER};
use coverage::{NameCoverage, NAME_FLOOR};
use impacts::{matched_pairs, Impacts};
pub use query::{terms_only_within, terms_outside, KeywordQuery};
use tantivy::{Index, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term};

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

    /// These weights with every field but `field` left out: one field's own BM25, for tests
    /// and offline studies of the ranking.
    pub fn only(self, field: KeywordField) -> FieldWeights {
        let keep = |f: KeywordField| if f == field { self.get(f) } else { 0.0 };
        FieldWeights {
            names: keep(KeywordField::Names),
            keywords: keep(KeywordField::Keywords),
            description: keep(KeywordField::Description),
            guidance: keep(KeywordField::Guidance),
            parameters: keep(KeywordField::Parameters),
            examples: keep(KeywordField::Examples),
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordHit {
    pub ordinal: u32,
    /// Sum over query terms of weight x BM25 in the term's best field, plus 0.3 x its other
    /// fields' (see `impacts`).
    pub bm25: f32,
    /// (field name, query word as the user typed it) for every query term found in the
    /// tool, grouped by query term in query order, then by field in `KeywordField::ALL` order.
    pub matched: Vec<MatchedTerm>,
}

/// An analysed query term and the slice of the query it came from.
#[derive(Debug, Clone)]
struct QueryTerm {
    term: String,
    surface: Arc<str>,
}

impl QueryTerm {
    /// Whether the term is a pair of words, which scores but is no matched word of its own.
    fn is_pair(&self) -> bool {
        self.term.contains(PAIR_JOINER)
    }

    /// Multiplier of the term's score: 1 for a word, `PAIR_WEIGHT` for a pair of words.
    fn weight(&self) -> f32 {
        if self.is_pair() {
            PAIR_WEIGHT
        } else {
            1.0
        }
    }
}

/// How much a pair of adjacent words (see `analyzer::WordPairs`) counts against a single
/// word. A tool whose text says "stock price" fits "the price of a stock" better than one
/// that says "price" in one place and "stock" in another. Tune halves, hybrid NDCG@5
/// MetaTool / bfcl / apibank / agent requests, from 72.0 / 78.1 / 72.6 / 92.5 without pairs:
/// 0.3 71.9 / 78.4 / 72.9 / 92.5, 0.5 72.0 / 78.4 / 73.3 / 92.5, 0.7 72.0 / 78.2 / 73.1 /
/// 92.7, 1 71.9 / 78.2 / 73.1 / 93.0. Indexing the pairs alone (weight 0) moved no set by
/// more than 0.1.
const PAIR_WEIGHT: f32 = 0.5;

/// A BM25 index over a catalog's documents. Immutable and cheap to share (`Send + Sync`).
pub struct KeywordIndex {
    searcher: Searcher,
    fields: [Field; 6],
    weights: FieldWeights,
    /// Per segment, doc id -> tool ordinal, read once from the `ordinal` fast field.
    segment_ordinals: Vec<Vec<u32>>,
    /// Per segment, the inverted index of each field in `KeywordField::ALL` order (for the
    /// tantivy reference search of the tests).
    #[cfg(test)]
    inverted: Vec<Vec<std::sync::Arc<tantivy::InvertedIndexReader>>>,
    /// Every term's contribution to every tool's score, which queries add up (see `impacts`).
    impacts: Impacts,
    /// Every tool's names, to weigh a name matched in part (see `coverage`).
    coverage: NameCoverage,
}

/// An in-memory index with one text field a keyword field and the tool ordinal as a fast
/// field, with the request analyzer registered.
fn empty_index() -> (Index, [Field; KeywordField::ALL.len()], Field) {
    let mut schema_builder = Schema::builder();
    // Frequencies but no positions: scoring is per-term BM25, nothing runs phrase queries,
    // and positions would roughly double the index.
    let text_options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields =
        KeywordField::ALL.map(|f| schema_builder.add_text_field(f.as_str(), text_options.clone()));
    let ordinal_field =
        schema_builder.add_u64_field("ordinal", NumericOptions::default().set_fast());
    let index = Index::create_in_ram(schema_builder.build());
    index
        .tokenizers()
        .register(TOKENIZER_NAME, indexing_analyzer());
    (index, fields, ordinal_field)
}

/// Adds every document and merges into one segment.
fn write_documents(
    index: &Index,
    fields: &[Field],
    ordinal_field: Field,
    docs: &[ToolDocument],
) -> Result<(), Error> {
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
    Ok(())
}

impl std::fmt::Debug for KeywordIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeywordIndex")
            .field("num_docs", &self.num_docs())
            .field("segments", &self.segment_ordinals.len())
            .field("weights", &self.weights)
            .field("impacts", &self.impacts.len())
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
        Self::build_with(docs, weights, NAME_FLOOR)
    }

    /// `build`, with the share of a name's part of the score that a query covering none of
    /// the name's other words keeps (`coverage::NAME_FLOOR`; 1 weighs names as plain BM25).
    fn build_with(
        docs: &[ToolDocument],
        weights: FieldWeights,
        name_floor: f32,
    ) -> Result<KeywordIndex, Error> {
        let (index, fields, ordinal_field) = empty_index();
        write_documents(&index, &fields, ordinal_field, docs)?;
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
        let impacts = Impacts::build(
            &searcher,
            &fields,
            KeywordField::ALL.map(|f| weights.get(f)),
            &inverted,
            &segment_ordinals,
        )
        .map_err(internal)?;
        let mut out = KeywordIndex {
            searcher,
            fields,
            weights,
            segment_ordinals,
            #[cfg(test)]
            inverted,
            impacts,
            coverage: NameCoverage::default(),
        };
        out.coverage = NameCoverage::build(
            docs.iter().map(|d| (d.ordinal, d.names.as_str())),
            |word| out.idf(KeywordField::Names, word),
            name_floor,
        );
        Ok(out)
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
    pub fn search<'q>(
        &self,
        query: impl Into<KeywordQuery<'q>>,
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> Vec<KeywordHit> {
        let query = query.into();
        let terms = query_terms(query.text);
        if terms.is_empty() || k == 0 {
            return Vec::new();
        }
        let lists = self.impacts.term_lists(&terms, query.unnamed);
        let ids = self.coverage.ids(&query_words(&terms, query.unnamed));
        let factor = |o: u32| self.coverage.factor(o, &ids);
        self.impacts
            .top_k(&lists, k, allow, &factor)
            .into_iter()
            .map(|hit| KeywordHit {
                ordinal: hit.ordinal,
                bm25: hit.score,
                matched: matched_pairs(&self.impacts, &terms, &lists, hit.ordinal),
            })
            .collect()
    }
}

/// The analysed words of a query's terms that can meet a name (its pairs and `unnamed`
/// terms left out).
fn query_words<'t>(terms: &'t [QueryTerm], unnamed: &[String]) -> Vec<&'t str> {
    terms
        .iter()
        .filter(|t| !t.is_pair() && !unnamed.contains(&t.term))
        .map(|t| t.term.as_str())
        .collect()
}

/// The distinct analysed terms of a query, each with the slice of the query it came from.
fn query_terms(query: &str) -> Vec<QueryTerm> {
    let mut analyzer = INDEXING_ANALYZER.clone();
    let mut stream = analyzer.token_stream(query);
    let mut out: Vec<QueryTerm> = Vec::new();
    while let Some(token) = stream.next() {
        if out.iter().any(|t| t.term == token.text) {
            continue;
        }
        let surface = query
            .get(token.offset_from..token.offset_to)
            .unwrap_or(&token.text)
            .into();
        out.push(QueryTerm {
            term: token.text.clone(),
            surface,
        });
    }
    out
}

mod coverage;
mod exact;
mod impacts;
mod query;
#[cfg(test)]
mod reference;

#[cfg(test)]
mod pair_tests;
#[cfg(test)]
mod tests;
