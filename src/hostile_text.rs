//! Hostile text for the property tests of the text functions a request reaches (task
//! splitting, request analysis, keyword terms, spelling, snippets and windows, symbol lookup):
//! characters whose byte length changes with their case, combining marks, right-to-left text,
//! emoji, NUL and other controls, very long words, mixed with the ordinary words and cue words
//! those functions look for. A byte offset found in one string and used in another, or a cut
//! that is not on a character boundary, panics on some of these.

use proptest::prelude::*;

/// Characters that break byte-offset assumptions. Case mapping changes the length of 'Ⱥ' (2
/// bytes, 'ⱥ' 3), 'ẞ' ('ß' 2 of 3), 'İ' ("i̇", 1 char to 2), 'ﬀ' ("FF") and the Kelvin sign
/// ('k', 3 bytes to 1); then titlecase, final sigma, combining marks alone and on letters,
/// Hebrew and Arabic words and bidi controls, emoji with a joiner and a variation selector,
/// NUL, other controls, a byte-order mark and full-width letters.
pub(crate) const TRICKY: &[&str] = &[
    "Ⱥ",
    "ẞ",
    "İ",
    "ﬀ",
    "\u{212A}",
    "ǅ",
    "ı",
    "ſ",
    "Σ",
    "ς",
    "e\u{301}",
    "\u{301}",
    "\u{308}\u{308}",
    "שלום",
    "مرحبا",
    "\u{200F}",
    "\u{202E}",
    "😀",
    "👩\u{200D}💻",
    "🏳\u{FE0F}\u{200D}🌈",
    "\0",
    "\u{1}",
    "\u{FEFF}",
    "\t",
    "\r\n",
    "ＡＢＣ",
    "。",
];

/// Ordinary words and the cue words the text functions react to: sequence cues, joiners,
/// negations, constraints, action verbs, quotes, numbered items, entities.
pub(crate) const WORDS: &[&str] = &[
    "then",
    "THEN",
    "Then",
    "and",
    "and then",
    "after that",
    "first",
    "first,",
    "next",
    "finally",
    "also",
    "or",
    "without",
    "not",
    "don't",
    "instead of",
    "only",
    "every",
    "at least",
    "find",
    "read",
    "list",
    "search",
    "grep",
    "the",
    "files",
    "my repo",
    "github",
    "python",
    "rust-lang/cargo",
    "src/main.rs",
    "line 3",
    "#42",
    "1)",
    "2.",
    ",",
    ".",
    ";",
    "?",
    "\"",
    "'",
    "`",
    "(",
    "Returns:",
    "camelCaseWord",
    "HTTPServer",
];

/// One piece: a tricky character, a word, any character at all, or a very long word.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(TRICKY).prop_map(str::to_string),
        4 => proptest::sample::select(WORDS).prop_map(str::to_string),
        2 => any::<char>().prop_map(String::from),
        1 => (proptest::sample::select(TRICKY), 1_000..3_000usize)
            .prop_map(|(s, n)| s.repeat(n)),
        1 => ("[a-zA-Z]", 2_000..5_000usize).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// Text of up to 16 pieces, each followed by nothing (so a tricky character can stick to a
/// cue word: "Ⱥthen"), a space or a comma and a space.
pub(crate) fn text() -> impl Strategy<Value = String> {
    let gap = prop_oneof![Just(""), Just(" "), Just(" "), Just(", ")];
    proptest::collection::vec((piece(), gap), 0..16)
        .prop_map(|parts| parts.into_iter().map(|(p, g)| p + g).collect())
}

/// Short hostile text: as [`text`] without the very long words, for functions whose cost
/// grows with the square of their input (edit distances).
pub(crate) fn short_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        proptest::sample::select(TRICKY).prop_map(str::to_string),
        proptest::sample::select(WORDS).prop_map(str::to_string),
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec((piece, prop_oneof![Just(""), Just(" ")]), 0..6)
        .prop_map(|parts| parts.into_iter().map(|(p, g)| p + g).collect())
}

/// Fewer cases than proptest's 256: each case may carry words thousands of characters long.
pub(crate) fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tricky_characters_change_length_with_case() {
        for s in ["Ⱥ", "ẞ", "İ", "\u{212A}"] {
            assert!(
                s.to_lowercase().len() != s.len() || s.to_uppercase().len() != s.len(),
                "{s}"
            );
        }
    }
}
