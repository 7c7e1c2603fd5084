//! The pattern, compiled the way ripgrep compiles it: Rust regex through `grep-regex` (smart
//! case, word and whole-line wrapping, literal mode, line-terminator stripping outside
//! multiline mode), or, for `perlRegex`, `fancy-regex` run one line at a time so look-around
//! and backreferences work without a match ever spanning a line it should not.

use super::options::{Case, Options};
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher, NoCaptures};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

/// Backtracking budget per line for perlRegex patterns, so a pathological pattern fails one
/// line with a warning instead of pinning a core.
const PERL_BACKTRACK_LIMIT: usize = 1_000_000;

/// A compiled pattern of either engine.
#[derive(Debug, Clone)]
pub(crate) enum AnyMatcher {
    Rust(RegexMatcher),
    Perl(PerlMatcher),
}

/// `fancy-regex` behind grep's `Matcher` interface.
#[derive(Debug, Clone)]
pub(crate) struct PerlMatcher {
    regex: fancy_regex::Regex,
    /// Whether a match may span lines (multiline mode searches the whole buffer).
    multiline: bool,
}

/// Why matching failed on some input (perlRegex only: its backtracking limit).
#[derive(Debug, Clone)]
pub(crate) struct MatchError(String);

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad_pattern(engine: &str, pattern: &str, reason: impl std::fmt::Display) -> QueryError {
    let mut e = QueryError::new(
        Failure::Invalid,
        ToolErrorCode::InvalidPattern,
        format!("pattern {pattern:?} is not a valid {engine}: {reason}"),
    )
    .detail("pattern", pattern);
    let reason = reason.to_string();
    if reason.contains("\\n") || reason.contains("line terminator") {
        e = e.hint(
            "Set multiline=true to let a match span lines (a pattern containing \\n needs it)",
        );
    }
    e.hint("Set fixedString=true to search for the text literally, or escape regex characters such as ( ) [ ] . * + ? with a backslash")
}

/// Compiles the pattern with the query's case, word, line and multiline settings.
pub(crate) fn build(o: &Options) -> Result<AnyMatcher, QueryError> {
    if o.perl_regex {
        return build_perl(o).map(AnyMatcher::Perl);
    }
    let mut b = RegexMatcherBuilder::new();
    // ripgrep always lets ^ and $ match at line boundaries.
    b.multi_line(true)
        .unicode(!o.no_unicode)
        .octal(false)
        .fixed_strings(o.fixed_string)
        .word(o.whole_word)
        .whole_line(o.line_regexp);
    match o.case {
        Case::Sensitive => b.case_insensitive(false).case_smart(false),
        Case::Insensitive => b.case_insensitive(true).case_smart(false),
        Case::Smart => b.case_insensitive(false).case_smart(true),
    };
    if o.multiline {
        b.line_terminator(None).dot_matches_new_line(o.dotall);
    } else {
        b.line_terminator(Some(b'\n'));
    }
    b.build(&o.pattern)
        .map(AnyMatcher::Rust)
        .map_err(|e| bad_pattern("Rust regex", &o.pattern, e))
}

/// Whether a perlRegex pattern has an uppercase letter that is not part of an escape such as
/// `\W` or `\S` (smart case, as ripgrep reads it).
fn has_uppercase_literal(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c.is_uppercase() {
            return true;
        }
    }
    false
}

fn build_perl(o: &Options) -> Result<PerlMatcher, QueryError> {
    let insensitive = match o.case {
        Case::Sensitive => false,
        Case::Insensitive => true,
        Case::Smart => !has_uppercase_literal(&o.pattern),
    };
    let mut pattern = format!("(?:{})", o.pattern);
    if o.line_regexp {
        pattern = format!("^{pattern}$");
    } else if o.whole_word {
        // ripgrep's -w: no word character directly before or after the match.
        pattern = format!(r"(?<!\w){pattern}(?!\w)");
    }
    // Inline flags rather than builder options: fancy-regex applies them to the parts it runs
    // itself (look-around, backreferences) as well as to the parts it delegates.
    let flags = [
        (insensitive, "i"),
        (o.multiline, "m"),
        (o.multiline && o.dotall, "s"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, f)| *f)
    .collect::<String>();
    if !flags.is_empty() {
        pattern = format!("(?{flags}){pattern}");
    }
    let regex = fancy_regex::RegexBuilder::new(&pattern)
        .backtrack_limit(PERL_BACKTRACK_LIMIT)
        .build()
        .map_err(|e| bad_pattern("PCRE-style regex", &o.pattern, e))?;
    Ok(PerlMatcher {
        regex,
        multiline: o.multiline,
    })
}

impl PerlMatcher {
    fn find_in(&self, text: &str, pos: usize) -> Result<Option<(usize, usize)>, MatchError> {
        let mut pos = pos.min(text.len());
        while !text.is_char_boundary(pos) {
            pos += 1;
        }
        self.regex
            .find_from_pos(text, pos)
            .map(|m| m.map(|m| (m.start(), m.end())))
            .map_err(|e| MatchError(format!("perlRegex gave up on a line: {e}")))
    }
}

impl Matcher for PerlMatcher {
    type Captures = NoCaptures;
    type Error = MatchError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, MatchError> {
        if self.multiline {
            // Invalid UTF-8 ends what a &str regex can see; the valid prefix is searched.
            let text = match std::str::from_utf8(haystack) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(&haystack[..e.valid_up_to()]).unwrap_or(""),
            };
            return Ok(self.find_in(text, at)?.map(|(s, e)| Match::new(s, e)));
        }
        // Line by line: a match can never include a line terminator, which also lets the
        // searcher take its fast path (see `line_terminator`).
        let mut line_start = haystack[..at.min(haystack.len())]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let mut from = at.saturating_sub(line_start);
        while line_start <= haystack.len() {
            let line_end = haystack[line_start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(haystack.len(), |i| line_start + i);
            let line = &haystack[line_start..line_end];
            // Lines that are not UTF-8 cannot be handed to a &str regex; they never match.
            if let Ok(text) = std::str::from_utf8(line) {
                if let Some((s, e)) = self.find_in(text, from)? {
                    return Ok(Some(Match::new(line_start + s, line_start + e)));
                }
            }
            if line_end >= haystack.len() {
                break;
            }
            line_start = line_end + 1;
            from = 0;
        }
        Ok(None)
    }

    fn new_captures(&self) -> Result<NoCaptures, MatchError> {
        Ok(NoCaptures::new())
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        (!self.multiline).then(|| LineTerminator::byte(b'\n'))
    }
}

impl Matcher for AnyMatcher {
    type Captures = NoCaptures;
    type Error = MatchError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, MatchError> {
        match self {
            AnyMatcher::Rust(m) => m
                .find_at(haystack, at)
                .map_err(|e| MatchError(e.to_string())),
            AnyMatcher::Perl(m) => m.find_at(haystack, at),
        }
    }

    fn new_captures(&self) -> Result<NoCaptures, MatchError> {
        Ok(NoCaptures::new())
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        match self {
            AnyMatcher::Rust(m) => m.non_matching_bytes(),
            AnyMatcher::Perl(_) => None,
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match self {
            AnyMatcher::Rust(m) => m.line_terminator(),
            AnyMatcher::Perl(m) => m.line_terminator(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, MatchError> {
        match self {
            AnyMatcher::Rust(m) => m
                .find_candidate_line(haystack)
                .map_err(|e| MatchError(e.to_string())),
            AnyMatcher::Perl(m) => m.find_candidate_line(haystack),
        }
    }
}

impl AnyMatcher {
    /// The engine, as reported in `searchEngine`.
    pub fn engine(&self) -> &'static str {
        match self {
            AnyMatcher::Rust(_) => "ripgrep-lib",
            AnyMatcher::Perl(_) => "ripgrep-lib+fancy-regex",
        }
    }

    /// Every match in `bytes` (one matched line, or the lines of one multiline match).
    pub fn matches_in(&self, bytes: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at <= bytes.len() {
            match self.find_at(bytes, at) {
                Ok(Some(m)) => {
                    out.push((m.start(), m.end()));
                    // An empty match must still move forward.
                    at = if m.end() > m.start() {
                        m.end()
                    } else {
                        m.end() + 1
                    };
                }
                _ => break,
            }
        }
        out
    }
}
