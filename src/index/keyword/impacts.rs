//! Per-term impact lists: for every analysed term, every tool containing it with the term's
//! whole contribution to the tool's score, its best field's `weight x BM25` plus
//! [`TIE_BREAKER`] times the other fields', computed once at build time by tantivy's own BM25
//! (`Bm25Weight`, with the index's statistics).
//!
//! A term counts mostly in its best field (a disjunction-max per term, as Lucene's and
//! tantivy's "best fields" queries), not in full once per field it occurs in: summed, a word
//! that a tool's name, description and guidance all repeat scored three times, and one rare
//! word of a long request matched that way outranked tools matching most of the request
//! ("the price to earnings ratio of an NFT collection" put a petrol-price tool first).
//! MetaTool, all 20,544 queries, NDCG@5 keyword / hybrid: fields summed 52.5 / 71.0, tie
//! breaker 0.3 53.5 / 71.3, best field only 53.2 / 71.4; on the 497 two-tool queries search
//! had both gold tools in its first 5 for 50.3%, 49.5% and 48.3%: 0.3 keeps most of the gain
//! without losing the second intent of a two-part request.
//!
//! Why: a tool's keyword score is a sum over query terms of these per-term contributions, and
//! none of them depends on the query, so a query is answered exactly by adding up at most a
//! few lists. Tantivy's block-WAND union over (term x field) scorers, six fields per term,
//! measured 0.2-0.4 ms at 10k tools, most of it merging and skipping the scorers; adding the
//! lists costs a few microseconds per thousand postings. The index is read-only, so nothing
//! ever has to be updated. Tantivy stays the index (analysis, dictionaries, postings,
//! statistics); the tests check these lists against tantivy's own search.
//!
//! A posting also keeps the share of its score that the tool's names give (`name_shares`),
//! which `coverage` scales by how much of the name a query covers; search and the exact
//! scores of chosen tools add up the same numbers.
//!
//! Memory: 10 bytes per (term, tool) pair, about 1 KiB per synthetic tool before word pairs
//! were indexed. Pairs of adjacent words are terms too: on the shipped catalog they are
//! 28.5k of 43.8k postings, so the lists take about 2.9 times what words alone took.

use super::{KeywordField, MatchedTerm, QueryTerm};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::ops::Range;
use std::sync::Arc;
use tantivy::postings::Postings;
use tantivy::query::Bm25Weight;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, InvertedIndexReader, Score, Searcher, Term, TERMINATED};

/// Per-thread buffers of [`Impacts::top_k`]: a running sum per tool ordinal (all zero between
/// queries) and the tools reached. Reused, so a query over a large catalog does not allocate
/// and zero a buffer of the catalog's size.
#[derive(Default)]
struct Scratch {
    sums: Vec<Score>,
    /// The part of each sum that came from the tools' names.
    names: Vec<Score>,
    reached: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Puts a [`Scratch`] back to all zeros when dropped.
struct Reset<'a>(&'a mut Scratch);

impl Drop for Reset<'_> {
    fn drop(&mut self) {
        let Scratch {
            sums,
            names,
            reached,
        } = &mut *self.0;
        for &o in reached.iter() {
            sums[o as usize] = 0.0;
            names[o as usize] = 0.0;
        }
        reached.clear();
    }
}

/// A hit ordered so that the *worse* one is greater (score descending, then ordinal
/// ascending, reversed): a max-heap of them has the one to evict on top, and its sorted
/// vector lists the best first.
struct Worse(Scored);

impl Ord for Worse {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.0.ordinal.cmp(&other.0.ordinal))
    }
}

impl PartialOrd for Worse {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Worse {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Worse {}

/// The lists of every term, each sorted by tool ordinal.
#[derive(Default)]
pub(super) struct Impacts {
    /// Term -> its list's range in the arrays below.
    lists: HashMap<String, (u32, u32)>,
    ordinals: Vec<u32>,
    scores: Vec<Score>,
    /// Bit i set: the term occurs in field `KeywordField::ALL[i]` of the tool.
    fields: Vec<u8>,
    /// The share of each score that the tool's names give, in 255ths (see `coverage`): a
    /// byte a posting rather than a map of the names' postings, which a query over a large
    /// catalog looked up thousands of times.
    name_shares: Vec<u8>,
    /// One more than the largest ordinal with a posting.
    bound: usize,
}

/// (tool ordinal, weighted BM25 in one field, that field's bit) while building.
type Posting = (u32, Score, u8);

/// How much a term's other fields add to its best field's score (tantivy's and Lucene's
/// disjunction-max `tie_breaker`): 0 counts the best field only, 1 sums the fields. See the
/// module comment for the measurements behind 0.3.
pub(super) const TIE_BREAKER: Score = 0.3;

/// The field bit of `KeywordField::Names` (the first field).
const NAMES_BIT: u8 = 1;

/// What a tool's name part of its score is multiplied by (`coverage`).
pub(super) type NameFactor<'a> = &'a dyn Fn(u32) -> Score;

/// One query term's list.
#[derive(Clone)]
pub(super) struct TermList {
    /// Index of the term in the query's terms.
    pub(super) term: usize,
    range: Range<usize>,
    weight: Score,
    /// False for a term that is no evidence of a name (`KeywordQuery::unnamed`): its postings
    /// count without their names' part.
    named: bool,
}

/// A tool's score for a query: the sum of its postings.
pub(super) struct Scored {
    pub(super) ordinal: u32,
    pub(super) score: Score,
}

impl Impacts {
    /// Reads every (term, field) posting of every segment. `weights[i]` is the multiplier of
    /// field `KeywordField::ALL[i]`; fields weighted 0 or less are left out, as in queries.
    pub(super) fn build(
        searcher: &Searcher,
        fields: &[Field; 6],
        weights: [f32; 6],
        inverted: &[Vec<Arc<InvertedIndexReader>>],
        segment_ordinals: &[Vec<u32>],
    ) -> tantivy::Result<Impacts> {
        let mut postings: HashMap<String, Vec<Posting>> = HashMap::new();
        for (segment_ord, segment) in searcher.segment_readers().iter().enumerate() {
            let ordinals = &segment_ordinals[segment_ord];
            for (i, &field) in fields.iter().enumerate() {
                if weights[i] <= 0.0 {
                    continue;
                }
                let norms = segment.get_fieldnorms_reader(field)?;
                let reader = &inverted[segment_ord][i];
                let mut stream = reader.terms().stream()?;
                while stream.advance() {
                    let Ok(text) = std::str::from_utf8(stream.key()) else {
                        continue;
                    };
                    let term = Term::from_field_text(field, text);
                    // The same weight a `BoostQuery(TermQuery)` of this term would score with.
                    let bm25 = Bm25Weight::for_terms(searcher, std::slice::from_ref(&term))?;
                    let list = postings.entry(text.to_string()).or_default();
                    let mut docs = reader.read_postings_from_terminfo(
                        stream.value(),
                        IndexRecordOption::WithFreqs,
                    )?;
                    let mut doc = docs.doc();
                    while doc != TERMINATED {
                        let score =
                            bm25.score(norms.fieldnorm_id(doc), docs.term_freq()) * weights[i];
                        list.push((ordinals[doc as usize], score, 1 << i));
                        doc = docs.advance();
                    }
                }
            }
        }
        let mut out = Impacts::default();
        let mut terms: Vec<(String, Vec<Posting>)> = postings.into_iter().collect();
        // Dictionary order, so that the arrays (and the build) are reproducible.
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (text, mut list) in terms {
            // Stable: a tool's fields stay in `KeywordField::ALL` order, so its fields' scores
            // are combined in one fixed order.
            list.sort_by_key(|p| p.0);
            let start = out.ordinals.len() as u32;
            for group in list.chunk_by(|a, b| a.0 == b.0) {
                let best = group.iter().map(|p| p.1).fold(0.0, Score::max);
                let sum: Score = group.iter().map(|p| p.1).sum();
                let score = best + TIE_BREAKER * (sum - best);
                let name_share = group.iter().find(|p| p.2 == NAMES_BIT).map_or(0, |name| {
                    let part = if name.1 >= best {
                        name.1
                    } else {
                        TIE_BREAKER * name.1
                    };
                    ((part / score * 255.0).round() as u8).max(1)
                });
                out.name_shares.push(name_share);
                out.ordinals.push(group[0].0);
                out.scores.push(score);
                out.fields.push(group.iter().fold(0, |mask, p| mask | p.2));
                out.bound = out.bound.max(group[0].0 as usize + 1);
            }
            out.lists.insert(text, (start, out.ordinals.len() as u32));
        }
        Ok(out)
    }

    /// The lists of the query terms present in the index, `unnamed` terms marked so.
    pub(super) fn term_lists(&self, terms: &[QueryTerm], unnamed: &[String]) -> Vec<TermList> {
        terms
            .iter()
            .enumerate()
            .filter_map(|(term, t)| {
                let &(a, b) = self.lists.get(&t.term)?;
                Some(TermList {
                    term,
                    range: a as usize..b as usize,
                    weight: t.weight(),
                    named: !unnamed.contains(&t.term),
                })
            })
            .collect()
    }

    /// The best `k` allowed tools by summed score (score descending, then ordinal ascending),
    /// every tool with a posting considered: exact, not a pruned approximation.
    pub(super) fn top_k(
        &self,
        lists: &[TermList],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
        factor: NameFactor<'_>,
    ) -> Vec<Scored> {
        if lists.is_empty() || k == 0 {
            return Vec::new();
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            // Zeroes what this query touched however the query ends (even by a panicking
            // filter), so the next query on this thread starts clean.
            let guard = Reset(&mut scratch);
            let Scratch {
                sums,
                names,
                reached,
            } = &mut *guard.0;
            if sums.len() < self.bound {
                sums.resize(self.bound, 0.0);
                names.resize(self.bound, 0.0);
            }
            // Scores are positive (BM25's idf is), so 0 marks a tool not reached yet.
            for list in lists {
                for at in list.range.clone() {
                    let (score, name) = self.parts(list, at);
                    if score <= 0.0 {
                        continue;
                    }
                    let o = self.ordinals[at];
                    let sum = &mut sums[o as usize];
                    if *sum == 0.0 {
                        reached.push(o);
                    }
                    *sum += score;
                    names[o as usize] += name;
                }
            }
            // A heap of the k best so far, the worst on top: most tools fail the comparison
            // with it and cost nothing more; the filter is asked only of those that pass.
            let mut top: BinaryHeap<Worse> = BinaryHeap::with_capacity(k + 1);
            for &o in reached.iter() {
                let mut hit = Worse(Scored {
                    ordinal: o,
                    score: sums[o as usize],
                });
                let better = |hit: &Worse| top.len() < k || top.peek().is_some_and(|w| hit < w);
                let name = names[o as usize];
                // The names' discount only lowers a score, so a tool that cannot make the
                // top k without it is passed over before its names are looked at.
                if name > 0.0 && better(&hit) {
                    hit.0.score -= (1.0 - factor(o)) * name;
                }
                let better = better(&hit);
                if better && allow.is_none_or(|allow| allow(o)) {
                    top.push(hit);
                    if top.len() > k {
                        top.pop();
                    }
                }
            }
            top.into_sorted_vec().into_iter().map(|w| w.0).collect()
        })
    }

    /// The tool's summed score over `lists` (None: no query term occurs in it), added up in
    /// the same order as [`Impacts::top_k`], so both give the same number.
    pub(super) fn score(
        &self,
        lists: &[TermList],
        ordinal: u32,
        factor: NameFactor<'_>,
    ) -> Option<Score> {
        let mut sum: Option<Score> = None;
        let mut name: Score = 0.0;
        for list in lists {
            if let Some(at) = self.find(list, ordinal) {
                let (score, part) = self.parts(list, at);
                if score > 0.0 {
                    *sum.get_or_insert(0.0) += score;
                    name += part;
                }
            }
        }
        if name > 0.0 {
            sum = sum.map(|s| s - (1.0 - factor(ordinal)) * name);
        }
        sum
    }

    /// The score of the posting at `at` of `list` and the names' part of it, both weighed by
    /// the list's weight; an unnamed term's posting counts without its names' part.
    fn parts(&self, list: &TermList, at: usize) -> (Score, Score) {
        let score = self.scores[at] * list.weight;
        let name = score * Score::from(self.name_shares[at]) / 255.0;
        if list.named {
            (score, name)
        } else {
            (score - name, 0.0)
        }
    }

    /// Which fields of the tool contain the term of `list` (bit i: `KeywordField::ALL[i]`).
    pub(super) fn fields(&self, list: &TermList, ordinal: u32) -> u8 {
        self.find(list, ordinal).map_or(0, |at| self.fields[at])
    }

    fn find(&self, list: &TermList, ordinal: u32) -> Option<usize> {
        let slice = &self.ordinals[list.range.clone()];
        slice
            .binary_search(&ordinal)
            .ok()
            .map(|i| list.range.start + i)
    }

    /// (term, tool) pairs held.
    pub(super) fn len(&self) -> usize {
        self.ordinals.len()
    }
}

/// The (field, query word) pairs of a tool: grouped by query term in query order, then by
/// field in `KeywordField::ALL` order, each pair once.
pub(super) fn matched_pairs(
    impacts: &Impacts,
    terms: &[QueryTerm],
    lists: &[TermList],
    ordinal: u32,
) -> Vec<MatchedTerm> {
    let mut out: Vec<MatchedTerm> = Vec::new();
    for list in lists {
        if terms[list.term].is_pair() {
            continue;
        }
        let mut mask = impacts.fields(list, ordinal);
        if !list.named {
            // An unnamed term does not count as met in the names.
            mask &= !NAMES_BIT;
        }
        for (i, kind) in KeywordField::ALL.iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let surface = &terms[list.term].surface;
            if !out.iter().any(|(f, w)| *f == kind.as_str() && w == surface) {
                out.push((kind.as_str(), surface.clone()));
            }
        }
    }
    out
}
