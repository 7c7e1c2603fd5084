//! Tests of `keyword`.

use super::*;
use crate::catalog::{split_identifier, Catalog};
use crate::index::analyzer::{identifier_parts, MAX_TERM_BYTES};

pub(super) fn doc(ordinal: u32, names: &str, keywords: &str, description: &str) -> ToolDocument {
    ToolDocument {
        ordinal,
        tool_id: format!("tool_{ordinal}"),
        names: names.to_string(),
        keywords: keywords.to_string(),
        description: description.to_string(),
        guidance: String::new(),
        parameters: String::new(),
        examples: String::new(),
        passages: Vec::new(),
    }
}

pub(super) fn build(docs: &[ToolDocument]) -> KeywordIndex {
    KeywordIndex::build(docs, FieldWeights::default()).unwrap()
}

pub(super) fn ordinals(hits: &[KeywordHit]) -> Vec<u32> {
    hits.iter().map(|h| h.ordinal).collect()
}

#[test]
fn analyzer_chain() {
    assert_eq!(
        analyze("githubGetFileContent"),
        ["githubgetfilecont", "github", "get", "file", "content"]
    );
    assert_eq!(analyze("Searching the FILES!"), ["search", "file"]);
    assert_eq!(
        analyze("HTTPServer2"),
        ["httpserver2", "http", "server", "2"]
    );
    assert_eq!(analyze("find, search, get"), ["find", "search", "get"]);
    assert!(analyze("?!-- ... //").is_empty());
    assert!(analyze("the and of to").is_empty());
    // An apostrophe's leftovers are no terms: "it's" had matched every "'s" of every tool.
    assert_eq!(analyze("what's in it? don't"), ["don"]);
    assert_eq!(analyze("s3 bucket"), ["s3", "3", "bucket"]);
    // A term longer than MAX_TERM_BYTES is dropped, its parts are not.
    let long = format!("{}Tail", "x".repeat(MAX_TERM_BYTES));
    assert_eq!(analyze(&long), [&"x".repeat(MAX_TERM_BYTES), "tail"]);
}

#[test]
fn identifier_parts_agree_with_split_identifier() {
    for s in [
        "githubGetFileContent",
        "HTTPServer2",
        "lspGotoDefinition",
        "kebab-case_name",
        "utf8Decode",
        "ABC",
        "x",
        "getV2API",
        "naïveÜberCase",
    ] {
        let mut parts = Vec::new();
        identifier_parts(s, &mut parts);
        let words: Vec<String> = parts.iter().map(|&(a, b)| s[a..b].to_lowercase()).collect();
        assert_eq!(words, split_identifier(s), "{s}");
    }
}

#[test]
fn query_surfaces_point_into_the_query() {
    let terms = query_terms("Searching githubGetFile, searching");
    let pairs: Vec<(&str, &str)> = terms
        .iter()
        .map(|t| (t.term.as_str(), &*t.surface))
        .collect();
    assert_eq!(
        pairs,
        [
            ("search", "Searching"),
            ("githubgetfil", "githubGetFile"),
            ("github", "github"),
            ("github_search", "Searching github"),
            ("get", "Get"),
            ("get_github", "githubGet"),
            ("file", "File"),
            ("file_get", "GetFile"),
            ("file_search", "File, searching"),
        ]
    );
}

#[test]
fn identifiers_are_found_split_and_joined() {
    let index = build(&[
        doc(
            0,
            "githubGetFileContent",
            "",
            "Reads a file from a repository",
        ),
        doc(1, "localSearchCode", "", "Searches code on disk"),
        doc(2, "unrelated", "", "Sends an email"),
    ]);
    for query in [
        "github get file content",
        "githubgetfilecontent",
        "GithubGetFileContent",
    ] {
        assert_eq!(ordinals(&index.search(query, 5, None))[0], 0, "{query}");
    }
    for query in ["localsearchcode", "local search code", "localSearchCode"] {
        assert_eq!(ordinals(&index.search(query, 5, None))[0], 1, "{query}");
    }
}

#[test]
fn stemming_matches_word_forms() {
    let index = build(&[
        doc(0, "alpha", "", "search the codebase"),
        doc(1, "beta", "", "list open issues"),
    ]);
    assert_eq!(ordinals(&index.search("searching", 5, None)), [0]);
    assert_eq!(ordinals(&index.search("searches", 5, None)), [0]);
    assert_eq!(ordinals(&index.search("issue listing", 5, None)), [1]);
}

#[test]
fn name_hit_outranks_description_hit() {
    let index = build(&[
        doc(0, "textmatcher", "", "regex based matching of text lines"),
        doc(1, "regex tester", "", "matching of text lines by pattern"),
    ]);
    let hits = index.search("regex", 5, None);
    assert_eq!(ordinals(&hits), [1, 0]);
    assert!(hits[0].bm25 > hits[1].bm25);
}

#[test]
fn weights_are_tunable() {
    let docs = [
        doc(0, "textmatcher", "", "regex based matching of text lines"),
        doc(1, "regex tester", "", "matching of text lines by pattern"),
    ];
    let weights = FieldWeights {
        names: 0.0,
        ..FieldWeights::default()
    };
    let index = KeywordIndex::build(&docs, weights).unwrap();
    assert_eq!(ordinals(&index.search("regex", 5, None)), [0]);
}

#[test]
fn filter_applies_before_the_cut() {
    let docs: Vec<ToolDocument> = (0..60)
        .map(|i| {
            // Scores vary with the number of "alpha"s, so unfiltered top-k would be
            // dominated by disallowed docs.
            let body = "alpha ".repeat(1 + (i as usize % 5));
            doc(
                i,
                &format!("tool{i}"),
                "",
                &format!("{body} filler words here"),
            )
        })
        .collect();
    let index = build(&docs);
    let allow = |o: u32| o.is_multiple_of(7);
    let all = index.search("alpha", 1000, None);
    assert_eq!(all.len(), 60);
    let expected: Vec<u32> = ordinals(&all).into_iter().filter(|&o| allow(o)).collect();
    assert_eq!(expected.len(), 9);
    // Fewer allowed matches than k: every one of them comes back.
    assert_eq!(ordinals(&index.search("alpha", 10, Some(&allow))), expected);
    // More than k: the best k allowed ones, in the unfiltered ranking's order.
    assert_eq!(
        ordinals(&index.search("alpha", 3, Some(&allow))),
        expected[..3]
    );
    // Nothing allowed: nothing.
    assert!(index.search("alpha", 10, Some(&|_| false)).is_empty());
}

#[test]
fn ties_break_by_ordinal_whatever_the_insertion_order() {
    // Identical documents inserted in scrambled ordinal order.
    let order = [7u32, 3, 9, 0, 5, 1, 8, 2, 6, 4];
    let docs: Vec<ToolDocument> = order
        .iter()
        .map(|&o| doc(o, "same name", "", "same description about widgets"))
        .collect();
    let index = build(&docs);
    let hits = index.search("widgets", 10, None);
    assert_eq!(ordinals(&hits), (0..10).collect::<Vec<u32>>());
    assert!(hits.windows(2).all(|w| w[0].bm25 == w[1].bm25));
    assert_eq!(ordinals(&index.search("widgets", 3, None)), [0, 1, 2]);
    let odd = |o: u32| o % 2 == 1;
    assert_eq!(ordinals(&index.search("widgets", 2, Some(&odd))), [1, 3]);
    // Same query, same answer.
    assert_eq!(index.search("widgets", 10, None), hits);
}

#[test]
fn empty_queries_return_nothing() {
    let index = build(&[doc(0, "the tool", "", "of and to")]);
    for query in ["", "   ", "?!--...", "the and of to", "!!! the ???"] {
        assert!(index.search(query, 10, None).is_empty(), "{query:?}");
    }
    assert!(index.search("tool", 0, None).is_empty());
    assert_eq!(index.search("tool", 10, None).len(), 1);
}

#[test]
fn empty_index_is_searchable() {
    let index = build(&[]);
    assert_eq!(index.num_docs(), 0);
    assert!(index.search("anything", 10, None).is_empty());
    assert_eq!(index.doc_freq("anything"), 0);
}

#[test]
fn matched_names_terms_and_fields() {
    let mut d = doc(
        0,
        "regex tester",
        "regex, pattern",
        "Tests patterns against text",
    );
    d.examples = "Validate an email regex".to_string();
    let index = build(&[d, doc(1, "other", "", "searching text files")]);
    let hits = index.search("Regex searching unknownword", 10, None);
    assert_eq!(ordinals(&hits), [0, 1]);
    let pairs = |h: &KeywordHit| -> Vec<MatchedTerm> { h.matched.clone() };
    let s = |a: &'static str, b: &str| (a, Arc::<str>::from(b));
    assert_eq!(
        pairs(&hits[0]),
        [
            s("names", "Regex"),
            s("keywords", "Regex"),
            s("examples", "Regex")
        ]
    );
    assert_eq!(pairs(&hits[1]), [s("description", "searching")]);
}

#[test]
fn doc_freq_counts_documents_across_fields() {
    let index = build(&[
        doc(0, "search", "search", "search everything"),
        doc(1, "other", "", "search files"),
        doc(2, "third", "", "nothing relevant"),
    ]);
    assert_eq!(index.doc_freq("search"), 2);
    assert_eq!(index.doc_freq("nonexistent"), 0);
    assert_eq!(index.field_doc_freq(KeywordField::Names, "search"), 1);
    assert_eq!(index.field_doc_freq(KeywordField::Description, "search"), 2);
    assert!(
        index.idf(KeywordField::Names, "search") > index.idf(KeywordField::Description, "search")
    );
}

#[test]
fn real_catalog_ranks_the_obvious_tool_first() {
    let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).unwrap();
    let docs: Vec<ToolDocument> = catalog.documents();
    let index = build(&docs);
    assert_eq!(index.num_docs(), docs.len() as u64);
    let top = |q: &str| {
        let hits = index.search(q, 3, None);
        catalog.tools()[hits[0].ordinal as usize].tool_id.clone()
    };
    assert_eq!(top("ripgrep"), "ripgrep");
    assert_eq!(top("localSearchCode"), "local_search_code");
    assert_eq!(top("localsearchcode"), "local_search_code");
    assert_eq!(top("kubernetes pod logs"), "kubectl_logs");
    for hit in index.search("search code with regex", 10, None) {
        assert!(!hit.matched.is_empty());
    }
}

#[test]
fn contains_term_agrees_with_doc_freq() {
    let catalog = Catalog::load(&crate::config::default_dir("catalog"))
        .unwrap()
        .0;
    let docs: Vec<ToolDocument> = catalog.documents();
    let index = KeywordIndex::build(&docs, FieldWeights::default()).unwrap();
    for word in ["ripgrep", "search", "kubernetes", "zzzqqq", "strawberry"] {
        for term in analyze(word) {
            assert_eq!(
                index.contains_term(&term),
                index.doc_freq(&term) > 0,
                "{term}"
            );
        }
    }
}

#[test]
fn exact_scores_equal_the_search_scores_beyond_the_top_k() {
    let docs: Vec<ToolDocument> = (0..30)
        .map(|i| {
            doc(
                i,
                &format!("tool{i}"),
                if i % 3 == 0 {
                    "search code files"
                } else {
                    "read files"
                },
                &format!("does thing number {i} with code"),
            )
        })
        .collect();
    let index = build(&docs);
    let all = index.search("search code", 30, None);
    assert!(all.len() > 5);
    // Ask for the hits ranked 4th onwards (outside a top 3) and one tool with no match.
    let wanted: Vec<u32> = all[3..].iter().map(|h| h.ordinal).collect();
    let mut asked = wanted.clone();
    let unmatched = (0..30).find(|o| !all.iter().any(|h| h.ordinal == *o));
    asked.extend(unmatched);
    let scored = index.score_ordinals("search code", &asked);
    for (hit, want) in scored.iter().zip(&all[3..]) {
        let hit = hit.as_ref().expect("a matching tool is scored");
        assert_eq!(hit.ordinal, want.ordinal);
        assert!(
            (hit.bm25 - want.bm25).abs() < 1e-5,
            "{} vs {}",
            hit.bm25,
            want.bm25
        );
        assert_eq!(hit.matched, want.matched);
    }
    if unmatched.is_some() {
        assert!(scored.last().unwrap().is_none());
    }
    assert!(index.score_ordinals("", &asked).iter().all(Option::is_none));
}

/// The impact lists answer exactly what tantivy's own query engine answers: the same tools,
/// scores and matched fields, on every query of the shipped catalog's examples and names
/// (hundreds of queries of 1-12 words), with and without a filter and at several k.
#[test]
fn impact_lists_agree_with_tantivy() {
    let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).unwrap();
    let docs: Vec<ToolDocument> = catalog.documents();
    // Names weighed as any field, as tantivy weighs them.
    let index = KeywordIndex::build_with(&docs, FieldWeights::default(), 1.0).unwrap();
    let mut queries: Vec<String> = Vec::new();
    for t in catalog.tools() {
        queries.push(t.name.clone());
        queries.push(t.description.clone());
        queries.extend(t.examples.iter().map(|e| e.title.clone()));
        queries.extend(t.search_keywords.iter().cloned());
    }
    queries.push("zzzqqq unknown words only".into());
    let odd = |o: u32| o % 2 == 1;
    let mut compared = 0;
    for q in &queries {
        let terms = query_terms(q);
        for (k, allow) in [
            (3, None),
            (10, None),
            (200, None),
            (5, Some(&odd as &dyn Fn(u32) -> bool)),
        ] {
            let ours = index.search(q, k, allow);
            let theirs = if terms.is_empty() {
                Vec::new()
            } else {
                index.search_with_tantivy(&terms, k, allow).unwrap()
            };
            assert_eq!(ours.len(), theirs.len(), "{q:?} k={k}");
            for (a, b) in ours.iter().zip(&theirs) {
                // Both add the same f32 terms, in different orders: equal to a few ulps, so
                // a near-tie may swap places; the scores at each rank still agree.
                let tolerance = 1e-5 * b.bm25.abs().max(1.0);
                assert!(
                    (a.bm25 - b.bm25).abs() <= tolerance,
                    "{q:?} k={k}: {} vs {}",
                    a.bm25,
                    b.bm25
                );
                if a.ordinal == b.ordinal {
                    assert_eq!(a.matched, b.matched, "{q:?}");
                } else {
                    // A swapped near-tie, inside the top k or across its edge.
                    let twin = theirs.iter().find(|t| t.ordinal == a.ordinal);
                    let edge = theirs.last().map_or(f32::NAN, |t| t.bm25);
                    assert!(
                        twin.is_some_and(|t| (t.bm25 - a.bm25).abs() <= tolerance)
                            || (edge - a.bm25).abs() <= tolerance,
                        "{q:?} k={k}: tool {} differs",
                        a.ordinal
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 5_000, "{compared} hits compared");
}

/// A word a tool repeats in several fields counts in full in its best field only (plus the
/// tie breaker's share of the others): summed, one rare request word in a tool's name,
/// keywords and description outranked a tool matching the rest of the request.
#[test]
fn a_term_counts_in_its_best_field_plus_a_share_of_the_others() {
    let docs = [
        doc(0, "petrol prices", "price", "the price of petrol"),
        doc(1, "stock ratios", "", "price to earnings ratio"),
        doc(2, "weather", "", "forecasts"),
    ];
    // Names weighed as any field: how much of a name "price" covers is `coverage`'s part.
    let index = KeywordIndex::build_with(&docs, FieldWeights::default(), 1.0).unwrap();
    let field_only = |f: KeywordField| {
        let one = KeywordIndex::build_with(&docs, FieldWeights::default().only(f), 1.0).unwrap();
        one.search("price", 3, None)
            .into_iter()
            .find(|h| h.ordinal == 0)
            .map_or(0.0, |h| h.bm25)
    };
    let parts = [
        field_only(KeywordField::Names),
        field_only(KeywordField::Keywords),
        field_only(KeywordField::Description),
    ];
    assert!(parts.iter().all(|&p| p > 0.0), "{parts:?}");
    let best = parts.iter().copied().fold(0.0, f32::max);
    let want = best + impacts::TIE_BREAKER * (parts.iter().sum::<f32>() - best);
    let got = index.search("price", 3, None)[0].bm25;
    assert!((got - want).abs() < 1e-4 * want, "got {got}, want {want}");
    let summed: f32 = parts.iter().sum();
    assert!(got < 0.8 * summed, "got {got}, fields summed {summed}");
    // The tool matching three words of the request now leads the one repeating one word.
    let hits = index.search("price to earnings ratio", 3, None);
    assert_eq!(ordinals(&hits)[0], 1);
}

proptest::proptest! {
    #![proptest_config(crate::hostile_text::config())]

    /// Query terms keep the slice of the query they came from; the analyzer's offsets may
    /// point into a lowercased copy, so the slice is taken only where it is one.
    #[test]
    fn hostile_queries_analyse_and_search(query in crate::hostile_text::text()) {
        static INDEX: std::sync::OnceLock<KeywordIndex> = std::sync::OnceLock::new();
        let index = INDEX.get_or_init(|| {
            build(&[
                doc(0, "ripgrep", "search code regex", "Search file contents"),
                doc(1, "github_search_code", "github code search", "Search code on GitHub"),
            ])
        });
        for t in query_terms(&query) {
            proptest::prop_assert!(!t.term.is_empty());
        }
        let _ = index.search(&query, 10, None);
        let mut parts = Vec::new();
        identifier_parts(&query, &mut parts);
        for (from, to) in parts {
            proptest::prop_assert!(query.get(from..to).is_some());
        }
    }
}
