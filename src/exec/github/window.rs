//! `charOffset`/`charLength` for structured answers. A list of items (files, repositories,
//! entries, pull-request parts) is measured as compact JSON, one item after another, and the
//! window keeps whole items only: an answer must stay valid JSON of the tool's return
//! schema, so an item is never cut in half. A window starts at the item containing
//! `charOffset` and takes items while they fit in `charLength` (the output budget when no
//! length is given), always at least one. `outputPagination` reports where the window lies.

use crate::exec::text::{positions, CharRequest};
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

pub(crate) use crate::exec::text::json_chars as size_of;

/// Chooses the items within `[offset, offset + length)` of the concatenated `sizes`.
pub(crate) fn window(
    sizes: &[usize],
    offset: Option<usize>,
    length: Option<usize>,
    budget: usize,
    noun: &str,
) -> Window {
    let n = sizes.len();
    let (starts, total) = positions(sizes, 0, 0);
    let ask = CharRequest::new(offset, length, budget);
    if ask.offset == 0 && total <= ask.length {
        return Window {
            start: 0,
            end: n,
            info: None,
            hints: Vec::new(),
        };
    }
    if ask.offset >= total {
        return past_end(n, ask.offset, total);
    }
    let span = Span::choose(sizes, &starts, ask);
    Window {
        start: span.first,
        end: span.end,
        info: Some(span.info(&starts, total)),
        hints: span.hints(sizes, &starts, total, ask, budget, noun),
    }
}

/// The empty window of an offset at or past the end of the answer.
fn past_end(n: usize, off: usize, total: usize) -> Window {
    Window {
        start: n,
        end: n,
        info: Some(json!({"charOffset": off, "charLength": 0, "totalChars": total, "hasMore": false})),
        hints: vec![format!("charOffset={off} is past the end of this answer ({total} characters); start again at charOffset=0")],
    }
}

/// The items a window keeps: from the one containing the offset, while they fit.
struct Span {
    first: usize,
    end: usize,
}

impl Span {
    fn choose(sizes: &[usize], starts: &[usize], ask: CharRequest) -> Span {
        let n = sizes.len();
        let first = (0..n)
            .find(|&i| starts[i] + sizes[i] > ask.offset)
            .unwrap_or(n - 1);
        let mut end = first + 1;
        while end < n && starts[end] + sizes[end] - starts[first] <= ask.length {
            end += 1;
        }
        Span { first, end }
    }

    /// `outputPagination`: where the window lies among the answer's characters.
    fn info(&self, starts: &[usize], total: usize) -> Value {
        // Items lie back to back, so the window ends where the next item starts.
        let end_char = starts.get(self.end).copied().unwrap_or(total);
        let mut info = json!({
            "charOffset": starts[self.first],
            "charLength": end_char - starts[self.first],
            "totalChars": total,
            "hasMore": self.end < starts.len(),
        });
        if self.end < starts.len() {
            info["nextCharOffset"] = json!(starts[self.end]);
        }
        info
    }

    /// What was shown, where the next part starts, and a note on an item shown whole.
    fn hints(
        &self,
        sizes: &[usize],
        starts: &[usize],
        total: usize,
        ask: CharRequest,
        budget: usize,
        noun: &str,
    ) -> Vec<String> {
        let (a, b, n) = (self.first, self.end, sizes.len());
        let end_char = starts[b - 1] + sizes[b - 1];
        let mut hints = vec![if ask.auto {
            format!(
                "The answer came to {total} characters, more than the {budget}-character budget, so only {noun} {}-{b} of {n} are shown",
                a + 1
            )
        } else {
            format!(
                "Showing {noun} {}-{b} of {n} (characters {}-{end_char} of {total})",
                a + 1,
                starts[a]
            )
        }];
        if b < n {
            hints.push(format!(
                "Next part: charOffset={} (from {noun} {})",
                starts[b],
                b + 1
            ));
        }
        if b - a == 1 && sizes[a] > ask.length {
            hints.push(format!(
                "One item alone is {} characters, more than charLength={}; it is shown whole",
                sizes[a], ask.length
            ));
        }
        hints
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
