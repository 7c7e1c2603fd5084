//! Turning matched bytes into the text an agent reads: lossy UTF-8 without the line
//! terminator, cut to `matchContentLength` characters. A long line is cut around its match,
//! not from its start, so a hit deep inside a minified bundle is still visible.

/// A line's bytes as text: invalid UTF-8 becomes U+FFFD, a trailing `\r` is dropped.
pub(crate) fn line_text(raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    String::from_utf8_lossy(raw).into_owned()
}

/// Cuts `text` to at most `max` characters (plus `…` marks where it was cut). `at` is the
/// match as (start, length) in characters; the kept window contains it when it can. Returns
/// the text and whether it was cut.
pub(crate) fn clip_line(text: &str, at: Option<(usize, usize)>, max: usize) -> (String, bool) {
    // Redacted before it is cut: half a token is no longer recognisable as one.
    let redacted = crate::exec::redact::redact(text);
    let text: &str = &redacted;
    let total = text.chars().count();
    if total <= max {
        return (text.to_string(), false);
    }
    let start = match at {
        Some((s, len)) if s + len > max => {
            // Centre-ish: a quarter of the window before the match, the rest from it on.
            let lead = (max / 4).min(s);
            (s - lead).min(total - max)
        }
        _ => 0,
    };
    let window: String = text.chars().skip(start).take(max).collect();
    let mut out = String::with_capacity(window.len() + 6);
    if start > 0 {
        out.push('…');
    }
    out.push_str(&window);
    if start + max < total {
        out.push('…');
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_whole() {
        assert_eq!(
            clip_line("let x = 1;", Some((4, 1)), 200),
            ("let x = 1;".to_string(), false)
        );
    }

    #[test]
    fn long_lines_keep_the_match_in_view() {
        let line = format!("{}needle{}", "a".repeat(1000), "b".repeat(1000));
        let (cut, was_cut) = clip_line(&line, Some((1000, 6)), 40);
        assert!(was_cut);
        assert!(cut.contains("needle"), "{cut}");
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert_eq!(cut.chars().count(), 42);
        let (head, _) = clip_line(&line, Some((2, 3)), 10);
        assert_eq!(head, format!("{}…", "a".repeat(10)));
        let (tail, _) = clip_line(&line, Some((2003, 3)), 10);
        assert!(tail.ends_with("bbb") && tail.starts_with('…'), "{tail}");
    }

    #[test]
    fn lossy_text_drops_carriage_returns() {
        assert_eq!(line_text(b"a\xffb\r"), "a\u{fffd}b");
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_lines_clip_to_whole_characters(
            text in crate::hostile_text::text(),
            at in proptest::option::of((0usize..20_000, 0usize..100)),
            max in 0usize..400,
        ) {
            let (clipped, cut) = clip_line(&text, at, max);
            let n = clipped.chars().count();
            let fits = if cut { n <= max + 2 } else { clipped == text };
            proptest::prop_assert!(fits, "{n} characters for max {max}");
            let _ = line_text(text.as_bytes());
        }
    }
}
