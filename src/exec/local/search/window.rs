//! Character windows over one page of results. When the page's JSON is longer than the
//! output budget (or a window was asked for with charOffset/charLength), each file entry and
//! each match is placed at its character position in the page's serialised form, and a
//! window keeps the matches that start inside it: whole matches only, so every window is
//! well-formed, and consecutive windows partition the page without gaps or repeats.

use super::output::{plural, Run};
use crate::exec::text::{json_chars, positions, CharRequest};
use serde_json::{json, Value};

/// A character window over a page.
pub(super) struct Window {
    pub pagination: Value,
    pub hints: Vec<String>,
    pub has_more: bool,
}

/// A file entry laid out for windowing: its header (with an empty matches list) and its
/// matches, each with the character position where its JSON starts in the page.
struct Placed {
    head_at: usize,
    head: Value,
    matches: Vec<(usize, Value)>,
}

/// Places each entry's header, then each of its matches, at its character position in the
/// page's JSON (after the opening bracket, one separator between items); returns the
/// entries and the page's length.
fn layout(entries: &[Value]) -> (Vec<Placed>, usize) {
    let mut parts: Vec<(Value, Vec<Value>)> = Vec::with_capacity(entries.len());
    let mut sizes = Vec::new();
    for e in entries {
        let matches = e
            .get("matches")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut head = e.clone();
        head["matches"] = json!([]);
        sizes.push(json_chars(&head));
        sizes.extend(matches.iter().map(json_chars));
        parts.push((head, matches));
    }
    let (starts, total) = positions(&sizes, 1, 1);
    let mut at = starts.into_iter();
    let placed = parts
        .into_iter()
        .map(|(head, matches)| Placed {
            head_at: at.next().unwrap_or(total),
            head,
            matches: matches
                .into_iter()
                .map(|m| (at.next().unwrap_or(total), m))
                .collect(),
        })
        .collect();
    (placed, total)
}

/// A match longer than the whole window, its value cut so the window stays near its length.
fn shortened(mut m: Value, length: usize) -> Value {
    let keep = (length / 2).max(100);
    if let Some(v) = m.get("value").and_then(Value::as_str) {
        // Redacted before it is cut, as in `clip_line`.
        let cut: String = crate::exec::redact::redact(v).chars().take(keep).collect();
        m["value"] = json!(format!("{cut}…"));
    }
    m
}

impl Run<'_> {
    /// Keeps the matches whose serialised form starts inside [charOffset, charOffset+length):
    /// each file entry, then each of its matches, counts at its position in the page's JSON.
    /// Without charOffset/charLength a page that fits the budget is returned whole.
    pub(super) fn window(
        &mut self,
        entries: Vec<Value>,
    ) -> Result<(Vec<Value>, Option<Window>), String> {
        let (placed, total) = layout(&entries);
        let ask = CharRequest::new(self.o.char_offset, self.o.char_length, self.budget);
        if ask.auto && total <= self.budget {
            return Ok((entries, None));
        }
        let (offset, length) = (ask.offset, ask.length);
        if offset >= total {
            return Err(format!("charOffset={offset} is past the end of this page's output ({total} characters); start again at charOffset=0"));
        }
        let files = self.kept(placed, offset, length);
        if ask.auto {
            self.warnings.push(format!("This page of results is {total} characters, more than the {} budget, so it was split into character windows", self.budget));
        }
        Ok((files, Some(Window::over(offset, length, total))))
    }

    /// The entries with the matches that start inside the window; an entry stays when its
    /// header or one of its matches does. Oversized matches are cut, with a warning.
    fn kept(&mut self, placed: Vec<Placed>, offset: usize, length: usize) -> Vec<Value> {
        let end = offset + length;
        let inside = |p: usize| p >= offset && p < end;
        let mut files = Vec::new();
        let mut oversized = 0;
        for Placed {
            head_at,
            mut head,
            matches,
        } in placed
        {
            let kept: Vec<Value> = matches
                .into_iter()
                .filter(|(p, _)| inside(*p))
                .map(|(_, m)| {
                    if json_chars(&m) > length {
                        oversized += 1;
                        return shortened(m, length);
                    }
                    m
                })
                .collect();
            if inside(head_at) || !kept.is_empty() {
                head["matches"] = Value::Array(kept);
                files.push(head);
            }
        }
        if oversized > 0 {
            self.warnings.push(format!(
                "{} longer than the {length}-character window and cut; read it with localGetFileContent startLine/endLine",
                plural(oversized, "match was", "matches were")
            ));
        }
        files
    }
}

impl Window {
    /// The pagination object and the pointer to the next window.
    fn over(offset: usize, length: usize, total: usize) -> Window {
        let end = offset + length;
        let has_more = end < total;
        let mut hints = Vec::new();
        if has_more {
            hints.push(format!(
                "Next window: charOffset={end} with the same query ({} characters remaining)",
                total - end
            ));
        }
        let pagination = json!({
            "charOffset": offset,
            "charLength": end.min(total) - offset,
            "totalChars": total,
            "currentWindow": offset / length + 1,
            "totalWindows": total.div_ceil(length),
            "hasMore": has_more,
        });
        Window {
            pagination,
            hints,
            has_more,
        }
    }
}
