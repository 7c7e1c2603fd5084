//! Wall-clock helpers: RFC 3339 timestamps for responses and reports.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now, in UTC, as RFC 3339 with second precision.
pub fn now_rfc3339() -> String {
    let now = OffsetDateTime::now_utc();
    let now = now.replace_nanosecond(0).unwrap_or(now);
    now.format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into())
}

/// Parses an RFC 3339 date-time.
pub fn parse_rfc3339(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Rfc3339).ok()
}

/// Now, in UTC, as RFC 3339 with exactly three fractional digits (log records line up).
pub fn now_rfc3339_millis() -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    OffsetDateTime::now_utc()
        .format(&format)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn millisecond_timestamps_have_three_digits() {
        let t = super::now_rfc3339_millis();
        assert_eq!(t.len(), "2026-01-01T00:00:00.000Z".len(), "{t}");
        assert!(super::parse_rfc3339(&t).is_some(), "{t}");
    }
}
