//! Text work the local and GitHub tools share, so they number, cut and measure text the same
//! way: lines as an editor numbers them (a line number one tool reports is the line another
//! reads), clamped line ranges, the merged windows of context around matching lines joined
//! with "... [K lines omitted] ..." markers, and the character measure and window request
//! behind `charOffset`/`charLength` on structured answers.

use serde_json::Value;

/// A file's lines: split on `\n`, a final terminator does not start another line, and a
/// trailing `\r` is not part of a line. Unlike `str::lines`, a lone `\r` ending the last line
/// is dropped too, as on every other line.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// A line range after clamping to the file: 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineSpan {
    pub start: usize,
    pub end: usize,
    /// The asked end lay past the last line and was trimmed to it.
    pub trimmed: bool,
}

/// Lines `start..=end` of a file of `total` lines, a start below 1 counting as 1 and an end
/// past the file trimmed; `None` when `start` lies past the last line.
pub(crate) fn clamp_lines(total: usize, start: usize, end: usize) -> Option<LineSpan> {
    let start = start.max(1);
    if start > total {
        return None;
    }
    Some(LineSpan {
        start,
        end: end.min(total),
        trimmed: end > total,
    })
}

/// The windows of `context` lines around each of the (ascending, 1-based) `hits` in a file of
/// `total` lines, 1-based and inclusive; windows that overlap or touch become one.
pub(crate) fn line_windows(hits: &[usize], context: usize, total: usize) -> Vec<(usize, usize)> {
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &hit in hits {
        let (start, end) = (
            hit.saturating_sub(context).max(1),
            (hit + context).min(total),
        );
        match windows.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => windows.push((start, end)),
        }
    }
    windows
}

/// The windows' text one after another, each gap between two windows marked with an
/// "... [K lines omitted] ..." line between blank lines. `text_of` gives a window's lines.
pub(crate) fn join_windows<F>(windows: &[(usize, usize)], mut text_of: F) -> String
where
    F: FnMut(usize, usize) -> Vec<String>,
{
    let mut out: Vec<String> = Vec::new();
    let mut previous_end = None;
    for &(start, end) in windows {
        if let Some(p) = previous_end {
            out.push(String::new());
            out.push(format!("... [{} lines omitted] ...", start - p - 1));
            out.push(String::new());
        }
        out.extend(text_of(start, end));
        previous_end = Some(end);
    }
    out.join("\n")
}

/// Characters of `v` as compact JSON: the measure of `charOffset`/`charLength` on answers
/// that are windowed as JSON rather than as text.
pub(crate) fn json_chars(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

/// A character window as asked for: `charOffset` (default 0) and `charLength` (default the
/// output budget, at least 1). `auto` when neither was given, so the window was the budget's
/// choice, not the agent's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CharRequest {
    pub offset: usize,
    pub length: usize,
    pub auto: bool,
}

impl CharRequest {
    pub(crate) fn new(offset: Option<usize>, length: Option<usize>, budget: usize) -> CharRequest {
        CharRequest {
            offset: offset.unwrap_or(0),
            length: length.unwrap_or(budget).max(1),
            auto: offset.is_none() && length.is_none(),
        }
    }
}

/// Where each of a run of items starts when they are laid out one after another from
/// `origin`, with `separator` characters between consecutive items; and where the run ends.
pub(crate) fn positions(sizes: &[usize], origin: usize, separator: usize) -> (Vec<usize>, usize) {
    let mut at = origin;
    let starts = sizes
        .iter()
        .map(|size| {
            let start = at;
            at += size + separator;
            start
        })
        .collect();
    (starts, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_like_an_editor_counts_them() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("a"), ["a"]);
        assert_eq!(split_lines("a\n"), ["a"]);
        assert_eq!(split_lines("a\n\n"), ["a", ""]);
        assert_eq!(split_lines("a\r\nb\r\n\n"), ["a", "b", ""]);
        assert_eq!(split_lines("\n"), [""]);
        assert_eq!(split_lines("a\r"), ["a"]);
    }

    #[test]
    fn line_ranges_clamp_to_the_file() {
        let span = |start, end, trimmed| {
            Some(LineSpan {
                start,
                end,
                trimmed,
            })
        };
        assert_eq!(clamp_lines(10, 0, 3), span(1, 3, false));
        assert_eq!(clamp_lines(10, 9, 50), span(9, 10, true));
        assert_eq!(clamp_lines(10, 11, 12), None);
    }

    #[test]
    fn windows_merge_and_gaps_are_marked() {
        let windows = line_windows(&[5, 7, 25], 2, 30);
        assert_eq!(windows, [(3, 9), (23, 27)]);
        assert_eq!(line_windows(&[1, 30], 3, 30), [(1, 4), (27, 30)]);
        let text = join_windows(&windows, |s, e| (s..=e).map(|n| n.to_string()).collect());
        assert!(text.starts_with("3\n4\n"), "{text}");
        assert!(
            text.contains("9\n\n... [13 lines omitted] ...\n\n23"),
            "{text}"
        );
    }

    #[test]
    fn items_are_placed_one_after_another() {
        assert_eq!(positions(&[3, 4, 5], 0, 0), (vec![0, 3, 7], 12));
        assert_eq!(positions(&[3, 4], 1, 1), (vec![1, 5], 10));
        assert_eq!(
            CharRequest::new(None, None, 9),
            CharRequest {
                offset: 0,
                length: 9,
                auto: true
            }
        );
        assert_eq!(
            CharRequest::new(Some(4), Some(0), 9),
            CharRequest {
                offset: 4,
                length: 1,
                auto: false
            }
        );
    }
}
