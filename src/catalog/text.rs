//! Text pieces the catalog's documents are built from, and that request analysis shares:
//! sentences, chunks of sentences or other pieces by word count, and the words of an
//! identifier.

/// Groups sentences into chunks of at most about `max_words` words (a longer sentence is
/// its own chunk).
pub(crate) fn chunk_sentences(text: &str, max_words: usize) -> Vec<String> {
    group_words(split_sentences(text).into_iter(), max_words, " ")
}

/// Joins pieces with `sep` into groups of at most about `max_words` words (a longer piece
/// is its own group); blank groups are dropped.
pub(super) fn group_words<'a>(
    pieces: impl Iterator<Item = &'a str>,
    max_words: usize,
    sep: &str,
) -> Vec<String> {
    let mut groups = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    for piece in pieces {
        let n = piece.split_whitespace().count();
        if words > 0 && words + n > max_words {
            groups.push(std::mem::take(&mut current));
            words = 0;
        }
        if !current.is_empty() {
            current.push_str(sep);
        }
        current.push_str(piece);
        words += n;
    }
    if !current.trim().is_empty() {
        groups.push(current);
    }
    groups.retain(|g| !g.trim().is_empty());
    groups
}

/// Sentences: text up to '.', '!' or '?' followed by whitespace, or a line break.
fn split_sentences(text: &str) -> Vec<&str> {
    split_sentences_where(text, |_, _| true)
}

/// [`split_sentences`], where a full stop ends a sentence only when `full_stop_ends` says so
/// of the text before it and the text after it (a request's "Dr. Johnson" is one sentence).
pub(crate) fn split_sentences_where(
    text: &str,
    full_stop_ends: impl Fn(&str, &str) -> bool,
) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end_mark = matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_none_or(|c| c.is_ascii_whitespace())
            && (b != b'.' || full_stop_ends(&text[start..i], &text[i + 1..]));
        if end_mark || b == b'\n' {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + 1;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Splits an identifier into lowercase words at camelCase humps, digits boundaries and any
/// non-alphanumeric separator: `githubGetFileContent` -> [github, get, file, content],
/// `HTTPServer2` -> [http, server, 2], `kebab-case_name` -> [kebab, case, name].
pub fn split_identifier(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&prev) = current.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic())
                // "HTTPServer": split before the last capital of a run followed by lowercase.
                || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(|n| n.is_lowercase()));
            if boundary {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words.into_iter().map(|w| w.to_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_identifiers() {
        assert_eq!(
            split_identifier("githubGetFileContent"),
            ["github", "get", "file", "content"]
        );
        assert_eq!(split_identifier("HTTPServer2"), ["http", "server", "2"]);
        assert_eq!(
            split_identifier("kebab-case_name"),
            ["kebab", "case", "name"]
        );
        assert_eq!(
            split_identifier("lspGotoDefinition"),
            ["lsp", "goto", "definition"]
        );
        assert_eq!(
            split_identifier("review-requested"),
            ["review", "requested"]
        );
        assert!(split_identifier("--").is_empty());
    }

    #[test]
    fn chunks_sentences_by_words() {
        let text = "One two three. Four five six! Seven eight nine ten? Eleven";
        assert_eq!(
            chunk_sentences(text, 6),
            [
                "One two three. Four five six!",
                "Seven eight nine ten? Eleven"
            ]
        );
        assert_eq!(chunk_sentences("", 6), Vec::<String>::new());
        assert_eq!(chunk_sentences("v1.2 is out", 6), ["v1.2 is out"]);
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        /// Catalog text arrives in `POST /catalog/validate` bodies: any of it is split.
        #[test]
        fn hostile_text_chunks_and_splits(text in crate::hostile_text::text(), max in 1usize..20) {
            for chunk in chunk_sentences(&text, max) {
                proptest::prop_assert!(!chunk.trim().is_empty());
            }
            let _ = split_identifier(&text);
        }
    }
}
