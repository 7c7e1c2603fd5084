//! How file metadata reads in the listings of localFindFiles and localViewStructure (sizes,
//! times, permission bits), and the character window that keeps a page of entries within the
//! output budget without cutting an entry in half, so every window is still valid JSON data.

use serde_json::{json, Value};
use std::time::SystemTime;
use time::OffsetDateTime;

/// `512B`, `4.0KB`, `3.1MB`: binary units with one decimal, as ls -h shows them.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1}{}", UNITS[unit])
}

/// RFC 3339 in UTC with milliseconds, e.g. `2026-05-02T09:17:31.000Z`.
pub(crate) fn iso_time(t: SystemTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    OffsetDateTime::from(t)
        .format(&format)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".into())
}

/// Octal permission digits: `644`, or `4755` when a setuid, setgid or sticky bit is set.
pub(crate) fn octal_mode(mode: u32) -> String {
    let bits = mode & 0o7777;
    if bits > 0o777 {
        format!("{bits:04o}")
    } else {
        format!("{bits:03o}")
    }
}

/// `rwxr-xr-x`, with `s`/`S` and `t`/`T` for the special bits as ls shows them.
pub(crate) fn rwx_mode(mode: u32) -> String {
    let mut out = String::with_capacity(9);
    let triads = [
        (0o400, 0o200, 0o100, 0o4000, 's'),
        (0o040, 0o020, 0o010, 0o2000, 's'),
        (0o004, 0o002, 0o001, 0o1000, 't'),
    ];
    for (r, w, x, special, letter) in triads {
        out.push(if mode & r != 0 { 'r' } else { '-' });
        out.push(if mode & w != 0 { 'w' } else { '-' });
        out.push(match (mode & x != 0, mode & special != 0) {
            (true, true) => letter,
            (false, true) => letter.to_ascii_uppercase(),
            (true, false) => 'x',
            (false, false) => '-',
        });
    }
    out
}

/// `word` or `words` after a count.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The entries of one page that fit a character window.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Window {
    pub(crate) items: Vec<Value>,
    /// Present when the page was split: where this window sits in the serialised page.
    pub(crate) pagination: Option<Value>,
    pub(crate) hints: Vec<String>,
}

/// Cuts a page of entries to the characters `[offset, offset + length)` of its serialised
/// form (each entry's compact JSON plus a separator). Entries are never split: the window
/// starts at the entry holding `offset` and ends before the first entry that would overflow,
/// keeping at least one. With no `length` the budget is the window, and a page that fits it is
/// returned whole without pagination.
pub(crate) fn window(
    items: Vec<Value>,
    offset: Option<usize>,
    length: Option<usize>,
    budget: usize,
    page_param: &str,
) -> Window {
    let sizes: Vec<usize> = items
        .iter()
        .map(|v| v.to_string().chars().count() + 1)
        .collect();
    let total: usize = sizes.iter().sum();
    let offset = offset.unwrap_or(0);
    if offset == 0 && length.is_none() && total <= budget {
        return Window {
            items,
            pagination: None,
            hints: Vec::new(),
        };
    }
    let auto = length.is_none();
    let length = length.unwrap_or(budget).max(1);
    let mut hints = Vec::new();
    if offset >= total {
        hints.push(format!(
            "charOffset={offset} is past the end of this page ({total} characters); start again at charOffset=0"
        ));
        return Window {
            items: Vec::new(),
            pagination: Some(
                json!({"charOffset": offset, "charLength": 0, "totalChars": total, "hasMore": false}),
            ),
            hints,
        };
    }
    let mut start = 0;
    let mut first = 0;
    while start + sizes[first] <= offset {
        start += sizes[first];
        first += 1;
    }
    let mut end = start;
    let mut last = first;
    while last < items.len() && (last == first || end + sizes[last] - start <= length) {
        end += sizes[last];
        last += 1;
    }
    let has_more = end < total;
    if auto && offset == 0 {
        hints.push(format!(
            "This page is {total} characters, more than the {budget}-character budget, so it is shown in windows; a smaller {page_param} also helps"
        ));
    }
    if has_more {
        hints.push(format!(
            "Next window of this page: charOffset={end} (same page number; {} characters remain)",
            total - end
        ));
    }
    let items: Vec<Value> = items.into_iter().skip(first).take(last - first).collect();
    Window {
        items,
        pagination: Some(json!({
            "charOffset": start,
            "charLength": end - start,
            "totalChars": total,
            "hasMore": has_more,
        })),
        hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn sizes_read_like_ls_h() {
        assert_eq!(human_size(0), "0B");
        assert_eq!(human_size(1023), "1023B");
        assert_eq!(human_size(4096), "4.0KB");
        assert_eq!(human_size(10_854), "10.6KB");
        assert_eq!(human_size(3_250_585), "3.1MB");
        assert_eq!(human_size(5 << 30), "5.0GB");
    }

    #[test]
    fn times_are_utc_with_milliseconds() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_777_713_451_250);
        assert_eq!(iso_time(t), "2026-05-02T09:17:31.250Z");
    }

    #[test]
    fn permission_bits_in_both_notations() {
        assert_eq!(octal_mode(0o100644), "644");
        assert_eq!(octal_mode(0o4755), "4755");
        assert_eq!(rwx_mode(0o644), "rw-r--r--");
        assert_eq!(rwx_mode(0o755), "rwxr-xr-x");
        assert_eq!(rwx_mode(0o4755), "rwsr-xr-x");
        assert_eq!(rwx_mode(0o2644), "rw-r-Sr--");
        assert_eq!(rwx_mode(0o1777), "rwxrwxrwt");
        assert_eq!(rwx_mode(0o1776), "rwxrwxrwT");
    }

    fn items(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| json!({"path": format!("file-{i:02}.txt")}))
            .collect()
    }

    #[test]
    fn a_page_within_budget_is_untouched() {
        let w = window(items(3), None, None, 8000, "filesPerPage");
        assert_eq!(w.items.len(), 3);
        assert!(w.pagination.is_none() && w.hints.is_empty());
    }

    #[test]
    fn windows_hold_whole_entries_and_chain_through_the_page() {
        // Each item is {"path":"file-00.txt"} = 22 characters, 23 with the separator.
        let all = items(10);
        let first = window(all.clone(), None, Some(50), 8000, "filesPerPage");
        assert_eq!(first.items, all[..2].to_vec());
        let p = first.pagination.unwrap();
        assert_eq!(
            (
                p["charOffset"].as_u64(),
                p["charLength"].as_u64(),
                p["totalChars"].as_u64()
            ),
            (Some(0), Some(46), Some(230))
        );
        assert!(
            first.hints.iter().any(|h| h.contains("charOffset=46")),
            "{:?}",
            first.hints
        );
        // An offset inside an entry starts at that entry, so nothing is skipped.
        let second = window(all.clone(), Some(50), Some(50), 8000, "filesPerPage");
        assert_eq!(second.items, all[2..4].to_vec());
        let last = window(all.clone(), Some(207), Some(50), 8000, "filesPerPage");
        assert_eq!(last.items, all[9..].to_vec());
        assert_eq!(last.pagination.unwrap()["hasMore"], false);
        // A window smaller than one entry still shows that entry.
        assert_eq!(
            window(all.clone(), None, Some(1), 8000, "filesPerPage")
                .items
                .len(),
            1
        );
        let past = window(all, Some(500), None, 8000, "filesPerPage");
        assert!(past.items.is_empty() && past.hints[0].contains("past the end"));
    }

    #[test]
    fn a_page_over_budget_is_windowed_automatically() {
        let w = window(items(10), None, None, 100, "filesPerPage");
        assert_eq!(w.items.len(), 4);
        assert!(w.hints[0].contains("budget"), "{:?}", w.hints);
        assert!(w.hints[1].contains("charOffset=92"), "{:?}", w.hints);
    }
}
