//! How much of a tool's name a query covers, and what that does to the name's share of the
//! tool's BM25.
//!
//! Why: a name is the strongest field, so one word of a long name carried a tool on its own.
//! "Wind speed in Boston" put a speed-camera tool first on "speed", "the price of a coin" a
//! petrol-price tool on "price", "cargo build fails; look on the web" a crate search tool on
//! "cargo". A name met in full says what the request is for; a name met in one word of
//! three says less. Search engines that rank on names and titles weigh the same thing (field
//! completeness). A name's words weigh their inverse document frequency among names, so a
//! generic word ("tool", "get") left out costs less than a distinctive one.
//!
//! The name part of a tool's score is multiplied by `NAME_FLOOR + (1 - NAME_FLOOR) x
//! coverage`, coverage being the best share over the tool's names (id, name, aliases, each
//! also split into words).
//!
//! Measured on the development suite's tune halves (hybrid NDCG@5 MetaTool / bfcl / apibank
//! / agent requests, from 71.9 / 78.6 / 73.8 / 93.1): floor 0.25 72.3 / 79.1 / 73.8 / 93.1,
//! 0.5 72.2 / 79.2 / 73.9 / 93.1, 0.75 72.1 / 78.9 / 73.9 / 93.1; with squared idf weights,
//! 0.5 72.3 / 79.2 / 73.8 / 93.1. Lower floors cost multi-tool queries: a generic tool that
//! a two-part request meets in one word of its name ("affordable housing" for a
//! house-purchasing tool) loses the fifth place more often. All gold in 5, search /
//! recommend, from MetaTool 45.1 / 48.3, apibank 50.0 / 54.4, bfcl 57.6 / 67.4: floor 0.5
//! 43.8 / 46.3, 48.5 / 52.9, 59.8 / 68.5; 0.75 45.1 / 47.9, 48.5 / 52.9 (one query), 57.6 /
//! 67.4. 0.75 is the floor that gains on every set's single-tool queries and costs the
//! multi-tool queries no more than a query a set.

use super::analyze;
use std::collections::HashMap;
use std::ops::Range;
use tantivy::Score;

/// What a name's part of the score keeps at coverage 0 (a name met only in words of no
/// weight); 1 turns the discount off.
pub(super) const NAME_FLOOR: Score = 0.75;

/// Every tool's names, flat: a tool is a range of names, a name a range of words, a word an
/// id with its inverse document frequency among the names. Ids, not strings, because every
/// tool that a query meets in its name is looked at by every query.
#[derive(Debug, Default)]
pub(super) struct NameCoverage {
    ids: HashMap<String, u32>,
    /// Per ordinal, its range in `names`.
    tools: Vec<Range<u32>>,
    /// Per name, its range in `words` and the words' summed weight.
    names: Vec<(Range<u32>, Score)>,
    words: Vec<(u32, Score)>,
    floor: Score,
}

impl NameCoverage {
    /// `names` holds (ordinal, names field text: one name a line); `idf` gives an analysed
    /// word's inverse document frequency in the names field.
    pub(super) fn build<'a>(
        names: impl Iterator<Item = (u32, &'a str)>,
        idf: impl Fn(&str) -> Score,
        floor: Score,
    ) -> NameCoverage {
        let mut out = NameCoverage {
            floor,
            ..NameCoverage::default()
        };
        for (ordinal, text) in names {
            let at = ordinal as usize;
            if out.tools.len() <= at {
                out.tools.resize(at + 1, 0..0);
            }
            let first = out.names.len() as u32;
            for line in text.lines() {
                let start = out.words.len();
                let mut total = 0.0;
                for word in analyze(line) {
                    let next = out.ids.len() as u32;
                    let id = *out.ids.entry(word.clone()).or_insert(next);
                    if out.words[start..].iter().all(|&(w, _)| w != id) {
                        let weight = idf(&word);
                        total += weight;
                        out.words.push((id, weight));
                    }
                }
                if total > 0.0 {
                    out.names
                        .push((start as u32..out.words.len() as u32, total));
                } else {
                    out.words.truncate(start);
                }
            }
            out.tools[at] = first..out.names.len() as u32;
        }
        out
    }

    /// The ids of a query's analysed words that occur in some name.
    pub(super) fn ids(&self, words: &[&str]) -> Vec<u32> {
        words
            .iter()
            .filter_map(|w| self.ids.get(*w).copied())
            .collect()
    }

    /// The best share of one of the tool's names that a query's word `ids` cover, by
    /// weight: 1 when a name is met in full, 0 when none of its words is.
    pub(super) fn share(&self, ordinal: u32, ids: &[u32]) -> Score {
        let Some(names) = self.tools.get(ordinal as usize) else {
            return 0.0;
        };
        let names = &self.names[names.start as usize..names.end as usize];
        names
            .iter()
            .map(|(words, total)| {
                let met: Score = self.words[words.start as usize..words.end as usize]
                    .iter()
                    .filter(|(w, _)| ids.contains(w))
                    .map(|(_, idf)| idf)
                    .sum();
                met / total
            })
            .fold(0.0, Score::max)
    }

    /// What the tool's name part of the score is multiplied by for a query of word `ids`.
    pub(super) fn factor(&self, ordinal: u32, ids: &[u32]) -> Score {
        self.floor + (1.0 - self.floor) * self.share(ordinal, ids)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{build, doc, ordinals};
    use super::super::KeywordIndex;
    use super::*;

    fn coverage(names: &[&str], idf: impl Fn(&str) -> Score) -> NameCoverage {
        let joined: Vec<String> = names.iter().map(|n| n.replace('|', "\n")).collect();
        NameCoverage::build(
            joined
                .iter()
                .enumerate()
                .map(|(o, t)| (o as u32, t.as_str())),
            idf,
            NAME_FLOOR,
        )
    }

    #[test]
    fn share_is_the_best_name_s_covered_weight() {
        let c = coverage(&["speed cameras|sa speed cameras", "weather tool"], |w| {
            if w == "tool" {
                1.0
            } else {
                2.0
            }
        });
        let share = |o: u32, words: &[&str]| c.share(o, &c.ids(words));
        assert_eq!(share(0, &["speed"]), 0.5);
        assert_eq!(share(0, &["speed", "camera"]), 1.0);
        assert_eq!(share(1, &["weather"]), 2.0 / 3.0);
        assert_eq!(share(1, &["rain"]), 0.0);
        assert_eq!(c.factor(1, &c.ids(&["rain"])), NAME_FLOOR);
        assert_eq!(c.factor(0, &c.ids(&["speed", "camera"])), 1.0);
        // A tool without names, or beyond the catalog, is covered by nothing.
        assert_eq!(share(7, &["speed"]), 0.0);
    }

    /// One word of a long name no longer outranks a name met in full: the petrol-price tool
    /// matched on "price" alone, where the coin-price tool's whole name is in the request.
    #[test]
    fn a_name_met_in_full_outranks_one_met_in_part() {
        let docs = [
            doc(0, "petrol prices\nAusPetrolPrices", "", "fuel at the pump"),
            doc(1, "coin price\nCoinPrice", "", "crypto markets"),
            doc(2, "weather", "", "forecasts"),
            doc(3, "news", "", "headlines"),
        ];
        let index = build(&docs);
        let hits = index.search("the coin price of dogecoin", 4, None);
        assert_eq!(ordinals(&hits), [1, 0]);
        let plain = KeywordIndex::build_with(&docs, Default::default(), 1.0).unwrap();
        let petrol = |i: &KeywordIndex| {
            i.search("price", 4, None)
                .into_iter()
                .find(|h| h.ordinal == 0)
                .map(|h| h.bm25)
                .unwrap()
        };
        assert!(petrol(&index) < petrol(&plain));
        // The exact scores of chosen tools agree with the search's.
        let exact = index.score_ordinals("price", &[0]);
        assert_eq!(exact[0].as_ref().map(|h| h.bm25), Some(petrol(&index)));
    }
}
