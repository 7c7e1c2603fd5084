//! Tests of the pair terms of adjacent words (`analyzer::WordPairs`) in queries and scores.

use super::tests::{build, doc, ordinals};
use super::*;

/// Adjacent words also meet as one pair term, in either order and across a stop word; the
/// whole of a split identifier is no word of a pair, its parts are.
#[test]
fn adjacent_words_pair_up() {
    let terms: Vec<String> = query_terms("the price of a Stock, stockPrice")
        .into_iter()
        .map(|t| t.term)
        .collect();
    assert_eq!(
        terms,
        ["price", "stock", "price_stock", "stockpric"],
        "pairs repeat as one term"
    );
    let pair = query_terms("stock price")
        .into_iter()
        .find(QueryTerm::is_pair)
        .unwrap();
    assert_eq!(
        (pair.term.as_str(), &*pair.surface),
        ("price_stock", "stock price")
    );
    assert_eq!(pair.weight(), PAIR_WEIGHT);
}

/// A tool that says the request's two words together outranks one that says them apart,
/// and the pair is no matched word of its own.
#[test]
fn a_tool_saying_the_words_together_outranks_one_saying_them_apart() {
    let docs = [
        doc(
            0,
            "market data",
            "",
            "stock listings and a price history of bonds",
        ),
        doc(1, "quotes", "", "the latest stock price of a company"),
    ];
    let index = build(&docs);
    let hits = index.search("current price of a stock", 2, None);
    assert_eq!(ordinals(&hits), [1, 0]);
    assert!(
        hits[0].matched.iter().all(|(_, w)| !w.contains(' ')),
        "{:?}",
        hits[0].matched
    );
}
