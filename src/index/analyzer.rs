//! The text analyzer shared by the keyword index and its queries: tokenizing, identifier
//! splitting (camelCase and letter/digit boundaries), stop words, English stemming, and the
//! pairs of adjacent words the index also holds.

use std::sync::LazyLock;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
    TextAnalyzerBuilder, Token, TokenFilter, TokenStream, Tokenizer,
};

/// The name the analyzer is registered under in the tantivy index.
pub const TOKENIZER_NAME: &str = "toolscout";

/// Terms longer than this (in bytes, after identifier splitting) are dropped: they are hashes,
/// base64 or URLs glued together, never words anyone types.
pub(crate) const MAX_TERM_BYTES: usize = 64;

/// A deliberately small stop-word list: Lucene's English list plus the filler of requests
/// ("how can I ...", "I need a tool that ..."). Words that carry intent in a tool request
/// ("find", "search", "get", "list", "new", "all", "from") are kept on purpose. "s" and "t" are
/// what an apostrophe leaves ("it's", "don't"): as terms they matched every "'s" of every tool.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", // Lucene's list ends here.
    "i", "me", "my", "we", "our", "you", "your", "can", "could", "would", "should", "do", "does",
    "did", "how", "what", "which", "who", "want", "need", "please", "some", "s", "t",
];

/// The word chain: `SimpleTokenizer` (split on anything not alphanumeric) ->
/// `IdentifierSplit` (the whole word, then its camelCase / letter-digit parts) ->
/// `RemoveLongFilter` -> `LowerCaser` -> `StopWordFilter` (`STOP_WORDS`) -> English `Stemmer`.
fn words() -> TextAnalyzerBuilder<impl Tokenizer> {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(IdentifierSplit)
        // The filter drops tokens of `limit` bytes or more.
        .filter(RemoveLongFilter::limit(MAX_TERM_BYTES + 1))
        .filter(LowerCaser)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| w.to_string()),
        ))
        .filter(Stemmer::new(Language::English))
}

/// The words of a text: what `analyze` returns and what the rest of the crate compares
/// (vocabulary, names, document frequencies).
pub fn analyzer() -> TextAnalyzer {
    words().build()
}

/// The analyzer the index stores and queries with: the words, each followed by the pair it
/// makes with the word before it (`WordPairs`).
pub fn indexing_analyzer() -> TextAnalyzer {
    words().filter(WordPairs).build()
}

/// Built once, as `ANALYZER`.
pub(crate) static INDEXING_ANALYZER: LazyLock<TextAnalyzer> = LazyLock::new(indexing_analyzer);

/// Built once; cloning is cheap (the stop-word set is shared) and gives each call the
/// `&mut` analyzer tantivy needs.
pub(crate) static ANALYZER: LazyLock<TextAnalyzer> = LazyLock::new(analyzer);

/// The analysed terms of `text`, in order, duplicates included: what the index stores for
/// that text and what a query made of it looks up.
pub fn analyze(text: &str) -> Vec<String> {
    let mut analyzer = ANALYZER.clone();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

/// Token filter that splits identifiers: a token with camelCase humps or letter/digit
/// boundaries is emitted whole (so "githubgetfilecontent" and "localsearchcode" match
/// exactly), then as its parts ("github", "get", "file", "content"). The whole token shares
/// the first part's position. Must run before `LowerCaser`, which erases the humps.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdentifierSplit;

impl TokenFilter for IdentifierSplit {
    type Tokenizer<T: Tokenizer> = IdentifierSplitFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> IdentifierSplitFilter<T> {
        IdentifierSplitFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
pub struct IdentifierSplitFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for IdentifierSplitFilter<T> {
    type TokenStream<'a> = IdentifierSplitStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        IdentifierSplitStream {
            tail: self.inner.token_stream(text),
            token: Token::default(),
            pending: Vec::new(),
            parts: Vec::new(),
            shift: 0,
        }
    }
}

pub struct IdentifierSplitStream<T> {
    tail: T,
    token: Token,
    /// Parts still to emit, last part first (popped from the end).
    pending: Vec<Token>,
    /// Scratch space for part byte ranges.
    parts: Vec<(usize, usize)>,
    /// Positions added so far by split tokens, so later tokens keep increasing positions.
    shift: usize,
}

impl<T: TokenStream> TokenStream for IdentifierSplitStream<T> {
    fn advance(&mut self) -> bool {
        if let Some(part) = self.pending.pop() {
            self.token = part;
            return true;
        }
        if !self.tail.advance() {
            return false;
        }
        let source = self.tail.token();
        self.token.clone_from(source);
        let position = source.position.wrapping_add(self.shift);
        self.token.position = position;
        self.parts.clear();
        identifier_parts(&source.text, &mut self.parts);
        if self.parts.len() > 1 {
            self.token.position_length = self.parts.len();
            for (i, &(from, to)) in self.parts.iter().enumerate().rev() {
                self.pending.push(Token {
                    offset_from: source.offset_from + from,
                    offset_to: source.offset_from + to,
                    position: position.wrapping_add(i),
                    text: source.text[from..to].to_string(),
                    position_length: 1,
                });
            }
            self.shift += self.parts.len() - 1;
        }
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Byte ranges of the words of an identifier, by the same rules as
/// `crate::catalog::split_identifier` (which returns owned lowercase words; the analyzer
/// needs ranges to keep offsets pointing into the original text).
pub(crate) fn identifier_parts(s: &str, out: &mut Vec<(usize, usize)>) {
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if let Some(from) = start.take() {
                out.push((from, i));
            }
            prev = None;
            continue;
        }
        match (start, prev) {
            (Some(from), Some(p)) => {
                let next = chars.peek().map(|&(_, n)| n);
                let boundary = (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() && c.is_numeric())
                    || (p.is_numeric() && c.is_alphabetic())
                    // "HTTPServer": split before the last capital of a run followed by lowercase.
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()));
                if boundary {
                    out.push((from, i));
                    start = Some(i);
                }
            }
            _ => start = Some(i),
        }
        prev = Some(c);
    }
    if let Some(from) = start {
        out.push((from, s.len()));
    }
}

/// Token filter that adds, after each word, the pair it makes with the word before it (stop
/// words already gone, so "price of a stock" pairs "price" and "stock"), written in sorted
/// order joined by `PAIR_JOINER` so that "stock price" and "price of stock" give one term.
/// The whole token of a split identifier is skipped: its parts pair with each other instead.
/// Runs last, on stemmed words.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordPairs;

/// Joins the two words of a pair term; the tokenizer splits on it, so no word contains it.
pub(crate) const PAIR_JOINER: char = '_';

impl TokenFilter for WordPairs {
    type Tokenizer<T: Tokenizer> = WordPairsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> WordPairsFilter<T> {
        WordPairsFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
pub struct WordPairsFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for WordPairsFilter<T> {
    type TokenStream<'a> = WordPairsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        WordPairsStream {
            tail: self.inner.token_stream(text),
            token: Token::default(),
            previous: None,
            pair: None,
        }
    }
}

pub struct WordPairsStream<T> {
    tail: T,
    token: Token,
    /// The last single word emitted.
    previous: Option<Token>,
    /// A pair waiting to follow the word just emitted.
    pair: Option<Token>,
}

impl<T: TokenStream> TokenStream for WordPairsStream<T> {
    fn advance(&mut self) -> bool {
        if let Some(pair) = self.pair.take() {
            self.token = pair;
            return true;
        }
        if !self.tail.advance() {
            return false;
        }
        self.token.clone_from(self.tail.token());
        if self.token.position_length > 1 {
            return true;
        }
        if let Some(previous) = self.previous.take() {
            if previous.text != self.token.text {
                let (a, b) = if previous.text < self.token.text {
                    (&previous.text, &self.token.text)
                } else {
                    (&self.token.text, &previous.text)
                };
                self.pair = Some(Token {
                    offset_from: previous.offset_from.min(self.token.offset_from),
                    offset_to: previous.offset_to.max(self.token.offset_to),
                    position: self.token.position,
                    text: format!("{a}{PAIR_JOINER}{b}"),
                    position_length: 1,
                });
            }
        }
        self.previous = Some(self.token.clone());
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}
