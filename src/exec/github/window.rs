//! `charOffset`/`charLength` for structured answers. A list of items (files, repositories,
//! entries, pull-request parts) is measured as compact JSON, one item after another, and the
//! window keeps whole items only: an answer must stay valid JSON of the tool's return
//! schema, so an item is never cut in half. A window starts at the item containing
//! `charOffset` and takes items while they fit in `charLength` (the output budget when no
//! length is given), always at least one. `outputPagination` reports where the window lies.

use serde_json::{json, Value};

/// The items to keep (`start..end`), and how to say so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Window {
    pub start: usize,
    pub end: usize,
    /// `outputPagination` for `data`, when the answer was windowed.
    pub info: Option<Value>,
    pub hints: Vec<String>,
}

/// Characters of `v` as compact JSON.
pub(crate) fn size_of(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

/// Chooses the items within `[offset, offset + length)` of the concatenated `sizes`.
pub(crate) fn window(
    sizes: &[usize],
    offset: Option<usize>,
    length: Option<usize>,
    budget: usize,
    noun: &str,
) -> Window {
    let n = sizes.len();
    let total: usize = sizes.iter().sum();
    let auto = offset.is_none() && length.is_none();
    let len = length.unwrap_or(budget).max(1);
    let off = offset.unwrap_or(0);
    if off == 0 && total <= len {
        return Window {
            start: 0,
            end: n,
            info: None,
            hints: Vec::new(),
        };
    }
    if off >= total {
        return Window {
            start: n,
            end: n,
            info: Some(json!({"charOffset": off, "charLength": 0, "totalChars": total, "hasMore": false})),
            hints: vec![format!("charOffset={off} is past the end of this answer ({total} characters); start again at charOffset=0")],
        };
    }
    let mut starts = Vec::with_capacity(n);
    let mut at = 0;
    for s in sizes {
        starts.push(at);
        at += s;
    }
    let a = (0..n)
        .find(|&i| starts[i] + sizes[i] > off)
        .unwrap_or(n - 1);
    let mut b = a + 1;
    while b < n && starts[b] + sizes[b] - starts[a] <= len {
        b += 1;
    }
    let end_char = starts[b - 1] + sizes[b - 1];
    let has_more = b < n;
    let mut info = json!({
        "charOffset": starts[a],
        "charLength": end_char - starts[a],
        "totalChars": total,
        "hasMore": has_more,
    });
    let mut hints = Vec::new();
    if auto {
        hints.push(format!(
            "The answer came to {total} characters, more than the {budget}-character budget, so only {noun} {}-{} of {n} are shown",
            a + 1,
            b
        ));
    } else {
        hints.push(format!(
            "Showing {noun} {}-{} of {n} (characters {}-{end_char} of {total})",
            a + 1,
            b,
            starts[a]
        ));
    }
    if has_more {
        info["nextCharOffset"] = json!(starts[b]);
        hints.push(format!(
            "Next part: charOffset={} (from {noun} {})",
            starts[b],
            b + 1
        ));
    }
    if b - a == 1 && sizes[a] > len {
        hints.push(format!(
            "One item alone is {} characters, more than charLength={len}; it is shown whole",
            sizes[a]
        ));
    }
    Window {
        start: a,
        end: b,
        info: Some(info),
        hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_answers_are_untouched() {
        let w = window(&[10, 10], None, None, 100, "files");
        assert_eq!((w.start, w.end, w.info), (0, 2, None));
    }

    #[test]
    fn windows_keep_whole_items_and_point_to_the_next_part() {
        let sizes = [40, 40, 40, 40, 40];
        let w = window(&sizes, None, None, 100, "files");
        assert_eq!((w.start, w.end), (0, 2));
        assert_eq!(w.info.as_ref().unwrap()["nextCharOffset"], 80);
        assert!(
            w.hints[0].contains("more than the 100-character budget"),
            "{:?}",
            w.hints
        );
        assert!(w.hints.iter().any(|h| h.contains("charOffset=80")));

        // An offset inside an item starts at that item.
        let w = window(&sizes, Some(90), Some(100), 100, "files");
        assert_eq!((w.start, w.end), (2, 4));
        assert_eq!(w.info.as_ref().unwrap()["charOffset"], 80);
        let last = window(&sizes, Some(160), Some(100), 100, "files");
        assert_eq!((last.start, last.end), (4, 5));
        assert_eq!(last.info.unwrap()["hasMore"], false);

        let past = window(&sizes, Some(500), None, 100, "files");
        assert_eq!((past.start, past.end), (5, 5));
        assert!(past.hints[0].contains("past the end"));

        // An item larger than the window still comes whole, with a note.
        let big = window(&[500, 10], None, Some(100), 100, "files");
        assert_eq!((big.start, big.end), (0, 1));
        assert!(big.hints.iter().any(|h| h.contains("shown whole")));
    }
}
