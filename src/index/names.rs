//! The name index: every tool's id, name and aliases, normalised, for the two questions a
//! query asks of names: "is this exactly a tool's name?" (a hash lookup) and "which names is
//! this a typo of?" (near-misses within a small edit distance).
//!
//! Near-misses are found without comparing the query to every name: names are bucketed by
//! length (an edit budget of k only reaches lengths within k), each carries a 64-bit mask of
//! the characters it contains (k edits change at most 2k bits of it), and only names passing
//! both filters pay a banded edit distance that gives up once the budget is exceeded. A plain
//! scan with a full edit distance per name cost ~4 ms per short query at 10k tools.

use crate::catalog::normalize_name;
use std::collections::HashMap;

struct NameEntry {
    chars: Box<[char]>,
    mask: u64,
    owner: u32,
}

/// Normalised names (see [`normalize_name`]) of the catalog's tools.
#[derive(Default)]
pub struct NameIndex {
    exact: HashMap<String, u32>,
    /// Entries of names with `i` characters at position `i`.
    by_len: Vec<Vec<NameEntry>>,
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex")
            .field("names", &self.exact.len())
            .finish()
    }
}

impl NameIndex {
    /// Indexes `(name, owner)` pairs; a name shared by several owners belongs to the first.
    pub fn build<'a>(names: impl IntoIterator<Item = (&'a str, u32)>) -> NameIndex {
        let mut index = NameIndex::default();
        for (name, owner) in names {
            let key = normalize_name(name);
            if key.is_empty() || index.exact.contains_key(&key) {
                continue;
            }
            let chars: Box<[char]> = key.chars().collect();
            if index.by_len.len() <= chars.len() {
                index.by_len.resize_with(chars.len() + 1, Vec::new);
            }
            index.by_len[chars.len()].push(NameEntry {
                mask: char_mask(&chars),
                chars,
                owner,
            });
            index.exact.insert(key, owner);
        }
        index
    }

    /// Number of distinct normalised names.
    pub fn len(&self) -> usize {
        self.exact.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }

    /// The owner of the name `query` normalises to, if any.
    pub fn exact(&self, query: &str) -> Option<u32> {
        let key = normalize_name(query);
        if key.is_empty() {
            return None;
        }
        self.exact.get(&key).copied()
    }

    /// Names 1 to `budget(name length)` edits (Levenshtein, in characters) away from the
    /// normalised `query`, as `(distance, owner)` sorted ascending, one entry per owner.
    /// `budget` must not exceed `max_edits`, which bounds the lengths looked at.
    pub fn near_misses(
        &self,
        query: &str,
        max_edits: usize,
        budget: impl Fn(usize) -> usize,
    ) -> Vec<(usize, u32)> {
        let q: Vec<char> = normalize_name(query).chars().collect();
        if q.is_empty() {
            return Vec::new();
        }
        let q_mask = char_mask(&q);
        let lo = q.len().saturating_sub(max_edits);
        let hi = (q.len() + max_edits).min(self.by_len.len().saturating_sub(1));
        let mut out = Vec::new();
        for bucket in self.by_len.get(lo..=hi).into_iter().flatten() {
            for e in bucket {
                let k = budget(e.chars.len()).min(max_edits);
                if e.chars.len().abs_diff(q.len()) > k
                    || (e.mask ^ q_mask).count_ones() as usize > 2 * k
                {
                    continue;
                }
                if let Some(d) = bounded_levenshtein(&q, &e.chars, k) {
                    if d >= 1 {
                        out.push((d, e.owner));
                    }
                }
            }
        }
        out.sort_unstable();
        let mut seen = std::collections::HashSet::new();
        out.retain(|&(_, o)| seen.insert(o));
        out
    }
}

/// Which characters occur: a-z and 0-9 get a bit each, anything else one of 28 hashed bits.
/// An insertion or deletion flips at most one bit, a substitution at most two.
pub(crate) fn char_mask(chars: &[char]) -> u64 {
    chars.iter().fold(0u64, |m, &c| {
        let bit = match c {
            'a'..='z' => c as u32 - 'a' as u32,
            '0'..='9' => 26 + (c as u32 - '0' as u32),
            _ => 36 + (c as u32 % 28),
        };
        m | (1 << bit)
    })
}

/// The Levenshtein distance of `a` and `b` when it is at most `k`, else None. Only the band
/// of cells within `k` of the diagonal is computed (a path leaving it already costs more than
/// `k`), and the computation stops at the first row whose every cell exceeds `k`.
pub fn bounded_levenshtein(a: &[char], b: &[char], k: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > k {
        return None;
    }
    if n == 0 || m == 0 {
        return Some(n.max(m));
    }
    // Out-of-band cells: large, but adding 1 cannot overflow.
    const FAR: usize = usize::MAX / 2;
    let mut prev: Vec<usize> = (0..=m).map(|j| if j <= k { j } else { FAR }).collect();
    let mut cur = vec![FAR; m + 1];
    for i in 1..=n {
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(m);
        cur[lo - 1] = if lo == 1 { i } else { FAR };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let substitution = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let v = substitution.min(prev[j] + 1).min(cur[j - 1] + 1);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        // The next row reads one cell past this row's band: it must be out of band.
        if hi < m {
            cur[hi + 1] = FAR;
        }
        if row_min > k {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[m] <= k).then_some(prev[m])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn bounded_distance_on_known_pairs() {
        assert_eq!(
            bounded_levenshtein(&chars("ripgrep"), &chars("ripgrp"), 2),
            Some(1)
        );
        assert_eq!(
            bounded_levenshtein(&chars("kitten"), &chars("sitting"), 3),
            Some(3)
        );
        assert_eq!(
            bounded_levenshtein(&chars("kitten"), &chars("sitting"), 2),
            None
        );
        assert_eq!(bounded_levenshtein(&chars(""), &chars("ab"), 2), Some(2));
        assert_eq!(
            bounded_levenshtein(&chars("same"), &chars("same"), 0),
            Some(0)
        );
    }

    #[test]
    fn exact_and_near_misses() {
        let index = NameIndex::build([
            ("ripgrep", 0),
            ("rip_grep", 1),
            ("github_search_code", 2),
            ("fd", 3),
        ]);
        assert_eq!(
            index.len(),
            3,
            "rip_grep normalises to ripgrep, kept by owner 0"
        );
        assert_eq!(index.exact("RipGrep"), Some(0));
        assert_eq!(index.exact("github-search-code"), Some(2));
        assert_eq!(index.near_misses("ripgrp", 2, |_| 2), vec![(1, 0)]);
        assert_eq!(index.near_misses("githubsearchcod", 2, |_| 2), vec![(1, 2)]);
        assert!(
            index.near_misses("ripgrep", 2, |_| 2).is_empty(),
            "exact is not near"
        );
        assert!(index.near_misses("zzzzzz", 2, |_| 2).is_empty());
    }

    proptest! {
        /// The banded distance agrees with the full one whenever it answers, and answers
        /// exactly when the full distance is within the budget.
        #[test]
        fn bounded_agrees_with_full(a in "[a-d]{0,12}", b in "[a-d]{0,12}", k in 0usize..5) {
            let full = strsim::levenshtein(&a, &b);
            let bounded = bounded_levenshtein(&chars(&a), &chars(&b), k);
            prop_assert_eq!(bounded, (full <= k).then_some(full));
        }

        /// The filters never drop a name the full scan finds.
        #[test]
        fn near_misses_match_a_full_scan(
            names in proptest::collection::vec("[a-f0-9]{1,10}", 1..30),
            query in "[a-f0-9]{1,10}",
        ) {
            let index = NameIndex::build(names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u32)));
            let mut expected: Vec<(usize, u32)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for (i, n) in names.iter().enumerate() {
                if !seen.insert(n.clone()) { continue; }
                let d = strsim::levenshtein(&query, n);
                if (1..=2).contains(&d) { expected.push((d, i as u32)); }
            }
            expected.sort_unstable();
            prop_assert_eq!(index.near_misses(&query, 2, |_| 2), expected);
        }
    }

    proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_queries_find_names_without_panic(query in crate::hostile_text::short_text()) {
            let index = NameIndex::build([("ripgrep", 0), ("github_search_code", 1), ("fd", 2)]);
            let _ = index.exact(&query);
            let _ = index.near_misses(&query, 2, |len| (len / 3).clamp(1, 2));
        }
    }
}
