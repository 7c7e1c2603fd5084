//! Pagination of tool output: pages of a list of items ([`ListPage`]), and character pages
//! of long text ([`paginate`]). Character offsets count Unicode scalar values, not bytes, so a
//! page never splits a character and `charOffset` means the same in every language an agent
//! is written in.

use serde_json::{json, Value};
use std::ops::Range;

/// Page `number` of a list of `total` items shown `size` at a time. Each tool names the
/// fields of its own pagination object (octocode's contracts differ), so this holds only the
/// arithmetic they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ListPage {
    /// 1-based; may lie past the last page, which then shows nothing.
    pub number: usize,
    pub size: usize,
    pub total: usize,
    /// At least 1: an empty list is one empty page.
    pub pages: usize,
}

impl ListPage {
    /// A page and a size below 1 count as 1.
    pub(crate) fn new(total: usize, number: usize, size: usize) -> ListPage {
        let size = size.max(1);
        ListPage {
            number: number.max(1),
            size,
            total,
            pages: total.div_ceil(size).max(1),
        }
    }

    /// The indexes of the items on this page; empty past the last page.
    pub(crate) fn range(&self) -> Range<usize> {
        let start = (self.number - 1).saturating_mul(self.size).min(self.total);
        start..start.saturating_add(self.size).min(self.total)
    }

    pub(crate) fn has_more(&self) -> bool {
        self.number < self.pages
    }

    pub(crate) fn is_past_end(&self) -> bool {
        self.number > self.pages
    }

    /// The pagination object of the local tools: `currentPage`, `totalPages`, the page size
    /// and the total under the tool's own names (`filesPerPage`, `totalFiles`), `hasMore`.
    pub(crate) fn to_json(self, size_key: &str, total_key: &str) -> Value {
        let mut out = serde_json::Map::new();
        out.insert("currentPage".into(), json!(self.number));
        out.insert("totalPages".into(), json!(self.pages));
        out.insert(size_key.into(), json!(self.size));
        out.insert(total_key.into(), json!(self.total));
        out.insert("hasMore".into(), json!(self.has_more()));
        Value::Object(out)
    }
}

/// One page of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub text: String,
    /// Present when the text did not fit in one page or an offset was asked for.
    pub pagination: Option<Value>,
    pub hints: Vec<String>,
}

/// Cuts `text`, secrets redacted, at `offset` for `length` characters. With no `length`, the whole text is
/// returned if it fits `budget`, else its first `budget` characters with a hint (octocode's
/// auto-pagination).
pub fn paginate(text: &str, offset: Option<usize>, length: Option<usize>, budget: usize) -> Page {
    // Offsets count in the redacted text: a page boundary inside a secret would leave each
    // half too short to be recognised, and chosen offsets could read one out piece by piece.
    let redacted = super::redact::redact(text);
    let text: &str = &redacted;
    let total = text.chars().count();
    let offset = offset.unwrap_or(0);
    let auto = length.is_none() && offset == 0 && total > budget;
    let length = length.unwrap_or(budget).max(1);
    if offset == 0 && total <= length {
        return Page {
            text: text.to_string(),
            pagination: None,
            hints: Vec::new(),
        };
    }
    let start = offset.min(total);
    let end = (start + length).min(total);
    let byte = |chars: usize| {
        text.char_indices()
            .nth(chars)
            .map_or(text.len(), |(b, _)| b)
    };
    let slice = text[byte(start)..byte(end)].to_string();
    let total_pages = total.div_ceil(length).max(1);
    let has_more = end < total;
    let mut hints = Vec::new();
    if auto {
        hints.push(format!(
            "Output was {total} characters, so it was cut to the first {length}; pass charOffset and charLength to read further"
        ));
    }
    if has_more {
        hints.push(format!(
            "Next page: charOffset={end} ({} characters remaining)",
            total - end
        ));
    } else if start >= total && total > 0 {
        hints.push(format!(
            "charOffset={offset} is past the end ({total} characters); start again at charOffset=0"
        ));
    }
    Page {
        text: slice,
        pagination: Some(json!({
            "currentPage": start / length + 1,
            "totalPages": total_pages,
            "hasMore": has_more,
            "charOffset": start,
            "charLength": end - start,
            "totalChars": total,
        })),
        hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_pages_cover_every_item_once() {
        for total in 0..12 {
            for size in 1..5 {
                let first = ListPage::new(total, 1, size);
                let mut seen = Vec::new();
                for number in 1..=first.pages {
                    let page = ListPage::new(total, number, size);
                    assert!(!page.is_past_end());
                    assert_eq!(page.has_more(), number < first.pages);
                    seen.extend(page.range());
                }
                assert_eq!(
                    seen,
                    (0..total).collect::<Vec<_>>(),
                    "{total} items by {size}"
                );
                let past = ListPage::new(total, first.pages + 1, size);
                assert!(past.is_past_end() && past.range().is_empty() && !past.has_more());
            }
        }
    }

    #[test]
    fn list_page_json_names_the_tool_fields_in_order() {
        let p = ListPage::new(7, 2, 3);
        assert_eq!(
            p.to_json("filesPerPage", "totalFiles").to_string(),
            r#"{"currentPage":2,"totalPages":3,"filesPerPage":3,"totalFiles":7,"hasMore":true}"#
        );
    }

    #[test]
    fn list_page_clamps_zero_and_huge_numbers() {
        let p = ListPage::new(0, 0, 0);
        assert_eq!((p.number, p.size, p.pages, p.range()), (1, 1, 1, 0..0));
        let far = ListPage::new(10, usize::MAX, 3);
        assert!(far.is_past_end());
        assert_eq!(far.range(), 10..10);
    }

    #[test]
    fn short_text_is_one_page_without_pagination() {
        let p = paginate("hello", None, None, 8000);
        assert_eq!(p.text, "hello");
        assert!(p.pagination.is_none() && p.hints.is_empty());
    }

    #[test]
    fn long_text_is_auto_paginated_at_character_boundaries() {
        let text = "é".repeat(10);
        let p = paginate(&text, None, None, 4);
        assert_eq!(p.text, "éééé");
        let pg = p.pagination.unwrap();
        assert_eq!(pg["totalPages"], 3);
        assert_eq!(pg["hasMore"], true);
        assert!(p.hints.iter().any(|h| h.contains("charOffset=4")));
        let last = paginate(&text, Some(8), Some(4), 4);
        assert_eq!(last.text, "éé");
        assert_eq!(last.pagination.unwrap()["currentPage"], 3);
        let past = paginate(&text, Some(50), Some(4), 4);
        assert_eq!(past.text, "");
        assert!(past.hints[0].contains("past the end"));
    }

    #[test]
    fn pages_never_cut_a_secret_in_two() {
        let token = concat!("ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
        let text = format!("{} {token} {}", "a".repeat(30), "b".repeat(30));
        // Any page length, read page after page: together the pages hold the label, never
        // the token or a piece of it long enough to matter.
        for length in 1..50 {
            let (mut all, mut offset) = (String::new(), 0);
            loop {
                let p = paginate(&text, Some(offset), Some(length), 8000);
                if p.text.is_empty() {
                    break;
                }
                all.push_str(&p.text);
                offset += length;
            }
            assert!(!all.contains("aBcDeFgH"), "{length}: {all}");
            assert!(all.contains("[REDACTED-GITHUBTOKENS]"), "{length}: {all}");
        }
        let auto = paginate(&text, None, None, 40);
        assert!(!auto.text.contains("ghp_aBcD"), "{}", auto.text);
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        /// A page is the characters asked for, cut at character boundaries.
        #[test]
        fn hostile_text_pages_by_characters(
            text in crate::hostile_text::text(),
            offset in proptest::option::of(0usize..20_000),
            length in proptest::option::of(0usize..5_000),
            budget in 1usize..5_000,
        ) {
            let page = paginate(&text, offset, length, budget);
            let chars: Vec<char> = text.chars().collect();
            let start = offset.unwrap_or(0).min(chars.len());
            let expected: String = chars[start..].iter().collect();
            proptest::prop_assert!(expected.starts_with(&page.text) || page.text == text);
        }
    }
}
