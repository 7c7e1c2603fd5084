//! Character windows over one page of results. When the page's JSON is longer than the
//! output budget (or a window was asked for with charOffset/charLength), each file entry and
//! each match is placed at its character position in the page's serialised form, and a
//! window keeps the matches that start inside it: whole matches only, so every window is
//! well-formed, and consecutive windows partition the page without gaps or repeats.

use super::output::{plural, Run};
use serde_json::{json, Value};

/// A character window over a page.
pub(super) struct Window {
    pub pagination: Value,
    pub hints: Vec<String>,
    pub has_more: bool,
}

fn chars_of(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

impl Run<'_> {
    /// Keeps the matches whose serialised form starts inside [charOffset, charOffset+length):
    /// each file entry, then each of its matches, counts at its position in the page's JSON.
    /// Without charOffset/charLength a page that fits the budget is returned whole.
    pub(super) fn window(
        &mut self,
        entries: Vec<Value>,
    ) -> Result<(Vec<Value>, Option<Window>), String> {
        let o = self.o;
        // Positions: each entry's header (with an empty matches list), then its matches.
        let mut pos = 1; // the opening bracket
        let mut layout = Vec::with_capacity(entries.len());
        for e in &entries {
            let matches = e
                .get("matches")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut head = e.clone();
            head["matches"] = json!([]);
            let head_at = pos;
            pos += chars_of(&head) + 1;
            let mut at = Vec::with_capacity(matches.len());
            for m in &matches {
                at.push(pos);
                pos += chars_of(m) + 1;
            }
            layout.push((head_at, head, matches, at));
        }
        let total = pos;
        let auto = o.char_offset.is_none() && o.char_length.is_none();
        if auto && total <= self.budget {
            return Ok((entries, None));
        }
        let offset = o.char_offset.unwrap_or(0);
        let length = o.char_length.unwrap_or(self.budget).max(1);
        if offset >= total {
            return Err(format!("charOffset={offset} is past the end of this page's output ({total} characters); start again at charOffset=0"));
        }
        let end = offset + length;
        let inside = |p: usize| p >= offset && p < end;
        let mut files = Vec::new();
        let mut oversized = 0;
        for (head_at, mut head, matches, at) in layout {
            let kept: Vec<Value> = matches
                .into_iter()
                .zip(at)
                .filter(|(_, p)| inside(*p))
                .map(|(mut m, _)| {
                    if chars_of(&m) > length {
                        oversized += 1;
                        let keep = (length / 2).max(100);
                        if let Some(v) = m.get("value").and_then(Value::as_str) {
                            let cut: String = v.chars().take(keep).collect();
                            m["value"] = json!(format!("{cut}…"));
                        }
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
        let has_more = end < total;
        let mut hints = Vec::new();
        if auto {
            self.warnings.push(format!("This page of results is {total} characters, more than the {} budget, so it was split into character windows", self.budget));
        }
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
        Ok((
            files,
            Some(Window {
                pagination,
                hints,
                has_more,
            }),
        ))
    }
}
