//! The catalog's words as written, for spelling corrections of query words the keyword index
//! has never seen ("serch code" -> "search code"). Built once per snapshot from the same
//! documents the keyword index reads; looked up only for unknown words, so a query without
//! typos never touches it.

use super::names::char_mask;
use crate::catalog::{split_identifier, ToolDocument};
use std::collections::HashMap;

/// Query words shorter than this are never corrected: at three letters almost every string
/// is one edit from some catalog word, so a "correction" would be a guess.
const MIN_WORD: usize = 4;
/// Catalog words from this length are corrections ("gett" -> "get").
const MIN_CORRECTION: usize = 3;
/// Longer words are not catalog vocabulary worth suggesting (hashes, run-together text).
const MAX_WORD: usize = 24;

/// Lowercase alphabetic words of the catalog, bucketed by length in characters.
#[derive(Default)]
pub struct Vocabulary {
    by_len: Vec<Vec<Word>>,
}

struct Word {
    text: String,
    chars: Vec<char>,
    mask: u64,
    /// How many tools use the word: among equally close corrections, the commoner one wins.
    tools: u32,
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocabulary")
            .field("words", &self.len())
            .finish()
    }
}

impl Vocabulary {
    /// Every word of the documents' indexed fields, identifiers split as the analyzer splits
    /// them (`localSearchCode` gives local, search, code).
    pub fn build(docs: &[ToolDocument]) -> Vocabulary {
        let mut tools: HashMap<String, u32> = HashMap::new();
        for d in docs {
            let fields = [
                &d.names,
                &d.keywords,
                &d.description,
                &d.guidance,
                &d.parameters,
                &d.examples,
            ];
            let mut seen: Vec<String> = fields
                .iter()
                .flat_map(|f| split_identifier(f))
                .filter(|w| {
                    (MIN_CORRECTION..=MAX_WORD).contains(&w.chars().count())
                        && w.chars().all(|c| c.is_alphabetic())
                })
                .collect();
            seen.sort_unstable();
            seen.dedup();
            for w in seen {
                *tools.entry(w).or_default() += 1;
            }
        }
        let mut by_len: Vec<Vec<Word>> = Vec::new();
        let mut words: Vec<(String, u32)> = tools.into_iter().collect();
        // Bucket order is irrelevant to results (ties break by word), fixed for reproducible
        // debugging.
        words.sort_unstable();
        for (text, tools) in words {
            let chars: Vec<char> = text.chars().collect();
            if by_len.len() <= chars.len() {
                by_len.resize_with(chars.len() + 1, Vec::new);
            }
            let mask = char_mask(&chars);
            by_len[chars.len()].push(Word {
                text,
                chars,
                mask,
                tools,
            });
        }
        Vocabulary { by_len }
    }

    pub fn len(&self) -> usize {
        self.by_len.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The catalog word closest to `word` (lowercased): one edit away for words of up to six
    /// letters, two for longer ones, where swapping two neighbouring letters is one edit.
    /// Closest first, then the word more tools use, then alphabetical. None for short words,
    /// words with digits or symbols, words the catalog has as they are, and words nothing is
    /// close to.
    pub fn correct(&self, word: &str) -> Option<&str> {
        let w: Vec<char> = word.to_lowercase().chars().collect();
        if w.len() < MIN_WORD || w.len() > MAX_WORD || !w.iter().all(|c| c.is_alphabetic()) {
            return None;
        }
        let k = if w.len() <= 6 { 1 } else { 2 };
        let mask = char_mask(&w);
        let lo = w.len() - k;
        let hi = (w.len() + k).min(self.by_len.len().saturating_sub(1));
        let mut best: Option<(usize, &Word)> = None;
        for bucket in self.by_len.get(lo..=hi).into_iter().flatten() {
            for cand in bucket {
                // An insertion or deletion flips at most one bit of the mask, a substitution two.
                if (cand.mask ^ mask).count_ones() as usize > 2 * k {
                    continue;
                }
                let d = typo_distance(&w, &cand.chars);
                if d > k {
                    continue;
                }
                if d == 0 {
                    return None;
                }
                let better = match best {
                    None => true,
                    Some((bd, b)) => {
                        (d, std::cmp::Reverse(cand.tools), &cand.text)
                            < (bd, std::cmp::Reverse(b.tools), &b.text)
                    }
                };
                if better {
                    best = Some((d, cand));
                }
            }
        }
        best.map(|(_, w)| w.text.as_str())
    }
}

/// Edits (insert, delete, substitute, or swap two neighbouring letters) between `a` and `b`:
/// the optimal string alignment distance. Typing mistakes are mostly these four; plain
/// Levenshtein counts "serach" two edits from "search". Words are at most `MAX_WORD` long,
/// so the full table is small.
fn typo_distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=m).collect();
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ToolDocument;

    fn doc(ordinal: u32, description: &str) -> ToolDocument {
        ToolDocument {
            ordinal,
            tool_id: format!("t{ordinal}"),
            names: "localSearchCode".into(),
            keywords: String::new(),
            description: description.into(),
            guidance: String::new(),
            parameters: String::new(),
            examples: String::new(),
            passages: Vec::new(),
        }
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn vocabulary() -> Vocabulary {
        Vocabulary::build(&[
            doc(
                0,
                "Search the repository for a pattern, then read the project files.",
            ),
            doc(1, "Lists branches of a repository; searches nothing."),
            doc(2, "Reads a branch."),
        ])
    }

    #[test]
    fn misspellings_of_catalog_words_are_corrected() {
        let v = vocabulary();
        assert_eq!(v.correct("serch"), Some("search"));
        assert_eq!(v.correct("Repositry"), Some("repository"));
        assert_eq!(v.correct("projec"), Some("project"));
        // Identifiers are split: "local" comes from localSearchCode.
        assert_eq!(v.correct("locl"), Some("local"));
    }

    #[test]
    fn swapped_letters_count_as_one_edit() {
        let v = vocabulary();
        assert_eq!(v.correct("serach"), Some("search"));
        assert_eq!(v.correct("raed"), Some("read"));
        assert_eq!(typo_distance(&chars("search"), &chars("serach")), 1);
        assert_eq!(typo_distance(&chars("abc"), &chars("ca")), 3);
        assert_eq!(typo_distance(&chars(""), &chars("abc")), 3);
    }

    #[test]
    fn words_the_catalog_has_short_words_and_far_words_are_left_alone() {
        let v = vocabulary();
        assert_eq!(v.correct("search"), None);
        assert_eq!(v.correct("SEARCH"), None);
        // Three letters: too short to guess.
        assert_eq!(v.correct("rad"), None);
        // A three-letter catalog word is a correction, a three-letter query word is not.
        assert_eq!(v.correct("reeds"), Some("reads"));
        let v3 = Vocabulary::build(&[doc(0, "get the pod")]);
        assert_eq!(v3.correct("gett"), Some("get"));
        assert_eq!(v3.correct("gt"), None);
        assert_eq!(v3.correct("pdo"), None);
        // Six letters allow one edit only: "french" is two from "branch".
        assert_eq!(v.correct("french"), None);
        assert_eq!(v.correct("translate"), None);
        assert_eq!(v.correct("v2api"), None);
    }

    #[test]
    fn the_closest_then_commonest_then_first_word_wins() {
        // "branchs" is one edit from "branch", two from "branches".
        assert_eq!(vocabulary().correct("branchs"), Some("branch"));
        // "alphc" is one edit from "alpha" (two tools) and "alphb" (one).
        let v = Vocabulary::build(&[doc(0, "alpha beta"), doc(1, "alpha gamma"), doc(2, "alphb")]);
        assert_eq!(v.correct("alphc"), Some("alpha"));
        // Equally common: alphabetical order.
        let v = Vocabulary::build(&[doc(0, "alphb alpha")]);
        assert_eq!(v.correct("alphc"), Some("alpha"));
    }

    #[test]
    fn an_empty_catalog_corrects_nothing() {
        let v = Vocabulary::build(&[]);
        assert!(v.is_empty());
        assert_eq!(v.correct("serch"), None);
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_words_get_no_correction_or_a_catalog_word(word in crate::hostile_text::short_text()) {
            let v = vocabulary();
            if let Some(c) = v.correct(&word) {
                proptest::prop_assert!(c.chars().all(char::is_alphabetic), "{c}");
            }
        }
    }
}
