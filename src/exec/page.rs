//! Character pagination of long tool output. Offsets count Unicode scalar values, not bytes,
//! so a page never splits a character and `charOffset` means the same in every language an
//! agent is written in.

use serde_json::{json, Value};

/// One page of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub text: String,
    /// Present when the text did not fit in one page or an offset was asked for.
    pub pagination: Option<Value>,
    pub hints: Vec<String>,
}

/// Cuts `text` at `offset` for `length` characters. With no `length`, the whole text is
/// returned if it fits `budget`, else its first `budget` characters with a hint (octocode's
/// auto-pagination).
pub fn paginate(text: &str, offset: Option<usize>, length: Option<usize>, budget: usize) -> Page {
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
}
