//! Picking the part of a file to return: a clamped line range, or the windows around the
//! lines a matchString hits (substring or regex, case-insensitive unless asked otherwise),
//! merged where they touch (the windows and markers are `exec::text`'s, shared with
//! githubGetFileContent), joined with "... [K lines omitted] ..." markers, and shrunk by
//! `minify` when that makes the extract shorter.

use super::minify::{self, Line, Style};
use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::text::{clamp_lines, join_windows, line_windows};

/// Matches beyond this many are not extracted (a warning says how many there were).
pub(crate) const MAX_MATCHES: usize = 50;

/// What matchString is compiled to.
pub(crate) enum Needle {
    Substring {
        lower: String,
        case_sensitive: bool,
        raw: String,
    },
    Regex(regex::Regex),
}

impl Needle {
    pub fn new(pattern: &str, is_regex: bool, case_sensitive: bool) -> Result<Needle, QueryError> {
        if is_regex {
            // The regex crate runs in linear time, so no pattern can stall the server.
            regex::RegexBuilder::new(pattern)
                .case_insensitive(!case_sensitive)
                .size_limit(1 << 22)
                .build()
                .map(Needle::Regex)
                .map_err(|e| {
                    QueryError::new(
                        Failure::Invalid,
                        ToolErrorCode::InvalidPattern,
                        format!("matchString {pattern:?} is not a valid regex: {e}"),
                    )
                    .hint("Set matchStringIsRegex=false to look for the text literally")
                })
        } else {
            Ok(Needle::Substring {
                lower: pattern.to_lowercase(),
                case_sensitive,
                raw: pattern.to_string(),
            })
        }
    }

    fn hits(&self, line: &str) -> bool {
        match self {
            Needle::Substring {
                raw,
                case_sensitive: true,
                ..
            } => line.contains(raw.as_str()),
            Needle::Substring { lower, .. } => line.to_lowercase().contains(lower.as_str()),
            Needle::Regex(r) => r.is_match(line),
        }
    }
}

/// The windows around matchString hits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MatchExtract {
    pub text: String,
    /// Merged windows, 1-based and inclusive.
    pub ranges: Vec<(usize, usize)>,
    /// Lines that matched (at most MAX_MATCHES).
    pub matched: Vec<usize>,
    /// All matching lines, including those past MAX_MATCHES.
    pub total_matches: usize,
    /// Comment lines or blank runs were dropped.
    pub minified: bool,
}

/// Finds the matching lines and builds the extract; `None` when nothing matched.
pub(crate) fn by_match(
    lines: &[&str],
    needle: &Needle,
    context: usize,
    style: Style,
) -> Option<MatchExtract> {
    let all: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| needle.hits(l))
        .map(|(i, _)| i + 1)
        .collect();
    if all.is_empty() {
        return None;
    }
    let matched: Vec<usize> = all.iter().copied().take(MAX_MATCHES).collect();
    let ranges = line_windows(&matched, context, lines.len());
    let render = |shrink: bool| -> String {
        join_windows(&ranges, |s, e| {
            let window: Vec<Line<'_>> = (s..=e)
                .map(|n| Line {
                    number: n,
                    text: lines[n - 1],
                    matched: matched.binary_search(&n).is_ok(),
                })
                .collect();
            let kept = if shrink {
                minify::shrink(&window, style)
            } else {
                window
            };
            kept.iter().map(|l| l.text.to_string()).collect()
        })
    };
    let plain = render(false);
    let small = render(true);
    let minified = small.chars().count() < plain.chars().count();
    Some(MatchExtract {
        text: if minified { small } else { plain },
        ranges,
        matched,
        total_matches: all.len(),
        minified,
    })
}

/// A line range after clamping.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineExtract {
    pub text: String,
    pub start: usize,
    pub end: usize,
    pub warnings: Vec<String>,
}

/// Lines `start..=end`; an end past the file is trimmed with a warning. `None` when `start`
/// lies past the last line.
pub(crate) fn by_lines(lines: &[&str], start: usize, end: usize) -> Option<LineExtract> {
    let total = lines.len();
    let span = clamp_lines(total, start, end)?;
    let mut warnings = Vec::new();
    if span.trimmed {
        warnings.push(format!(
            "Requested endLine {end} adjusted to {total} (the file's last line)"
        ));
    }
    Some(LineExtract {
        text: lines[span.start - 1..span.end].join("\n"),
        start: span.start,
        end: span.end,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::text::split_lines;

    #[test]
    fn windows_merge_and_gaps_are_marked() {
        let text: String = (1..=40)
            .map(|i| {
                if i == 10 || i == 12 || i == 30 {
                    format!("hit {i}\n")
                } else {
                    format!("l{i}\n")
                }
            })
            .collect();
        let lines = split_lines(&text);
        let needle = Needle::new("HIT", false, false).unwrap();
        let x = by_match(&lines, &needle, 2, Style::Plain).unwrap();
        assert_eq!(x.ranges, [(8, 14), (28, 32)]);
        assert_eq!(x.matched, [10, 12, 30]);
        assert_eq!(x.text, "l8\nl9\nhit 10\nl11\nhit 12\nl13\nl14\n\n... [13 lines omitted] ...\n\nl28\nl29\nhit 30\nl31\nl32");
        assert!(by_match(
            &lines,
            &Needle::new("HIT", false, true).unwrap(),
            2,
            Style::Plain
        )
        .is_none());
        let adjacent = by_match(
            &lines,
            &Needle::new(r"^hit 1[02]$", true, true).unwrap(),
            1,
            Style::Plain,
        )
        .unwrap();
        assert_eq!(adjacent.ranges, [(9, 13)]);
        assert!(Needle::new("(", true, false).is_err());
    }

    #[test]
    fn at_most_fifty_matches_are_used() {
        let text = "x\n".repeat(80);
        let x = by_match(
            &split_lines(&text),
            &Needle::new("x", false, false).unwrap(),
            1,
            Style::Plain,
        )
        .unwrap();
        assert_eq!((x.matched.len(), x.total_matches), (50, 80));
        assert_eq!(x.ranges, [(1, 51)]);
    }

    #[test]
    fn comment_stripping_applies_only_when_shorter() {
        let src = "// header\n// more\nfn a() {}\n// note\nfn b() {} // call\n";
        let lines = split_lines(src);
        let x = by_match(
            &lines,
            &Needle::new("fn b", false, true).unwrap(),
            5,
            Style::CFamily { line: true },
        )
        .unwrap();
        assert!(x.minified);
        assert_eq!(x.text, "fn a() {}\nfn b() {} // call");
        assert_eq!(x.ranges, [(1, 5)]);
    }

    #[test]
    fn line_ranges_are_clamped() {
        let lines = split_lines("a\nb\nc\n");
        let x = by_lines(&lines, 2, 9).unwrap();
        assert_eq!((x.text.as_str(), x.start, x.end), ("b\nc", 2, 3));
        assert!(x.warnings[0].contains("endLine 9 adjusted to 3"));
        assert!(by_lines(&lines, 4, 5).is_none());
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_match_strings_find_windows(
            text in crate::hostile_text::text(),
            pattern in crate::hostile_text::short_text(),
            case_sensitive in proptest::bool::ANY,
        ) {
            let lines: Vec<&str> = text.split('\n').collect();
            if let Ok(needle) = Needle::new(&pattern, false, case_sensitive) {
                let _ = by_match(&lines, &needle, 2, Style::Plain);
                let _ = by_match(&lines, &needle, 0, Style::CFamily { line: true });
            }
        }
    }
}
