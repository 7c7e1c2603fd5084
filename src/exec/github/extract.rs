//! Pure text work for githubGetFileContent: decoding the contents API's base64, telling
//! binary from text, and cutting a file into a line range or into the windows around the
//! lines that contain a string (overlapping windows merged and gaps marked by the shared
//! `exec::text`).

use crate::exec::text::{clamp_lines, join_windows, line_windows};

/// Decodes standard base64, ignoring the line breaks GitHub puts in it.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        }
    }
    let clean: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let body = clean
        .strip_suffix(b"==")
        .or_else(|| clean.strip_suffix(b"="))
        .unwrap_or(&clean);
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}

/// A NUL byte early in the file means binary, as git and ripgrep decide.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

/// A part of a file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Extract {
    pub content: String,
    /// 1-based, inclusive.
    pub start: usize,
    pub end: usize,
    pub hints: Vec<String>,
}

/// Lines `start..=end` (1-based); `None` when `start` is past the end of the file.
pub(crate) fn line_range(lines: &[&str], start: usize, end: usize) -> Option<Extract> {
    let total = lines.len();
    let span = clamp_lines(total, start, end)?;
    let mut hints = Vec::new();
    if span.trimmed {
        hints.push(format!("endLine={end} is past the end of the file; lines {}-{total} are shown (the file has {total} lines)", span.start));
    }
    if span.end < total {
        hints.push(format!(
            "More below: startLine={} continues ({} lines remaining)",
            span.end + 1,
            total - span.end
        ));
    }
    Some(Extract {
        content: lines[span.start - 1..span.end].join("\n"),
        start: span.start,
        end: span.end,
        hints,
    })
}

/// At most this many matching lines are turned into windows.
pub(crate) const MAX_MATCHES: usize = 50;

/// The windows of `context` lines around every line containing `needle`. An exact
/// (case-sensitive) match is preferred; failing that, case is ignored, and a hint says so.
/// `None` when the string occurs nowhere.
pub(crate) fn match_windows(
    lines: &[&str],
    needle: &str,
    context: usize,
) -> Option<(Extract, Vec<(usize, usize)>)> {
    let mut hints = Vec::new();
    let mut hits = hit_lines(lines, |l| l.contains(needle));
    if hits.is_empty() {
        let lower = needle.to_lowercase();
        hits = hit_lines(lines, |l| l.to_lowercase().contains(&lower));
        if hits.is_empty() {
            return None;
        }
        hints.push(format!(
            "\"{needle}\" occurs only with different letter case; those lines are shown"
        ));
    }
    let found = hits.len();
    if found > MAX_MATCHES {
        hints.push(format!(
            "{found} lines match; only the first {MAX_MATCHES} are shown, so use a more specific matchString or a line range after line {}",
            hits[MAX_MATCHES - 1]
        ));
        hits.truncate(MAX_MATCHES);
    }
    let windows = line_windows(&hits, context, lines.len());
    let content = join_windows(&windows, |a, b| {
        lines[a - 1..b].iter().map(|l| l.to_string()).collect()
    });
    hints.push(format!(
        "{found} matching line(s) in {} window(s); lines {} of {}",
        windows.len(),
        windows
            .iter()
            .map(|(a, b)| format!("{a}-{b}"))
            .collect::<Vec<_>>()
            .join(", "),
        lines.len()
    ));
    let (start, end) = (windows[0].0, windows[windows.len() - 1].1);
    Some((
        Extract {
            content,
            start,
            end,
            hints,
        },
        windows,
    ))
}

/// The 1-based numbers of the lines that `hits`.
fn hit_lines(lines: &[&str], hits: impl Fn(&str) -> bool) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| hits(l))
        .map(|(i, _)| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_with_line_breaks_decodes() {
        assert_eq!(decode_base64("aGVs\nbG8=\n").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(decode_base64("YQ==").unwrap(), b"a");
        assert_eq!(decode_base64("").unwrap(), b"");
        assert!(decode_base64("a$b=").is_none());
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0"));
        assert!(!looks_binary("héllo".as_bytes()));
    }

    #[test]
    fn line_ranges_clamp_at_the_end() {
        let lines: Vec<&str> = (1..=10)
            .map(|i| ["l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10"][i - 1])
            .collect();
        let e = line_range(&lines, 3, 4).unwrap();
        assert_eq!((e.content.as_str(), e.start, e.end), ("l3\nl4", 3, 4));
        assert!(e.hints[0].contains("startLine=5"));
        let e = line_range(&lines, 9, 50).unwrap();
        assert_eq!((e.content.as_str(), e.end), ("l9\nl10", 10));
        assert!(e.hints[0].contains("endLine=50"));
        assert!(line_range(&lines, 11, 12).is_none());
    }

    #[test]
    fn match_windows_merge_and_mark_gaps() {
        let text: Vec<String> = (1..=30)
            .map(|i| {
                if i == 5 || i == 7 || i == 25 {
                    format!("hit {i}")
                } else {
                    format!("line {i}")
                }
            })
            .collect();
        let lines: Vec<&str> = text.iter().map(String::as_str).collect();
        let (e, ranges) = match_windows(&lines, "hit", 2).unwrap();
        assert_eq!(ranges, vec![(3, 9), (23, 27)]);
        assert_eq!((e.start, e.end), (3, 27));
        assert!(
            e.content
                .contains("line 9\n\n... [13 lines omitted] ...\n\nline 23"),
            "{}",
            e.content
        );
        assert!(e.content.starts_with("line 3\nline 4\nhit 5"));
        let (e, _) = match_windows(&lines, "HIT 2", 0).unwrap();
        assert_eq!(e.content, "hit 25");
        assert!(e.hints[0].contains("different letter case"));
        assert!(match_windows(&lines, "absent", 2).is_none());
    }

    #[test]
    fn match_windows_cap_the_number_of_hits() {
        let lines: Vec<&str> = std::iter::repeat_n("x", 80).collect();
        let (e, _) = match_windows(&lines, "x", 0).unwrap();
        assert_eq!(e.end, MAX_MATCHES);
        assert!(e.hints[0].contains("80 lines match"));
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_needles_find_windows(text in crate::hostile_text::text(), needle in crate::hostile_text::short_text()) {
            let lines: Vec<&str> = text.split('\n').collect();
            let _ = match_windows(&lines, &needle, 3);
        }
    }
}
