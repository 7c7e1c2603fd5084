//! The find-syntax values of localFindFiles, parsed strictly: ages (`7d`), sizes (`+10M`,
//! with find's rounding up to whole units), `-perm` modes (octal or symbolic, exact, all-of
//! or any-of) and POSIX regular expressions translated to the `regex` crate's syntax. A value
//! that does not parse is a validation error naming the field and showing what was expected;
//! nothing is silently read as zero.

use crate::exec::outcome::QueryError;
use std::time::Duration;

/// `N[hdwm]`: hours, days, weeks or 30-day months.
pub(crate) fn age(field: &str, raw: &str) -> Result<Duration, QueryError> {
    let text = raw.trim();
    let bad = || {
        QueryError::invalid(format!(
            "{field} must be a whole number followed by h, d, w or m (hours, days, weeks, 30-day months); found '{raw}'"
        ))
        .detail("field", field)
        .hint(format!("For example {field}='24h', '7d', '2w' or '6m'"))
    };
    let split = text
        .len()
        .checked_sub(1)
        .filter(|&i| text.is_char_boundary(i))
        .ok_or_else(bad)?;
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let hours: u64 = match unit {
        "h" => 1,
        "d" => 24,
        "w" => 24 * 7,
        "m" => 24 * 30,
        _ => return Err(bad()),
    };
    let count: u64 = digits.parse().map_err(|_| bad())?;
    count
        .checked_mul(hours * 3600)
        .map(Duration::from_secs)
        .ok_or_else(|| {
            QueryError::invalid(format!("{field} '{raw}' is too large")).detail("field", field)
        })
}

/// A size bound in find's `-size` terms: the file size rounded up to whole `unit`s is
/// compared with `count`, so `sizeLess: '1M'` keeps only empty files, exactly as find does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size {
    pub(crate) count: u64,
    pub(crate) unit: u64,
    /// Written without a unit, so read as find does: 512-byte blocks.
    pub(crate) implicit_blocks: bool,
}

impl Size {
    /// The size in whole units, rounded up.
    pub(crate) fn units_of(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.unit)
    }
}

/// `N[cwbkMG]`, optionally with the sign find would use (`+` for sizeGreater, `-` for
/// sizeLess). `K`, `m` and `g` are accepted for `k`, `M` and `G`: they mean nothing else.
pub(crate) fn size(field: &str, raw: &str, sign: char) -> Result<Size, QueryError> {
    let text = raw.trim();
    let text = text.strip_prefix(sign).unwrap_or(text);
    let bad = || {
        QueryError::invalid(format!(
            "{field} must be a whole number with an optional find size unit (c bytes, w 2-byte words, b 512-byte blocks, k KiB, M MiB, G GiB); found '{raw}'"
        ))
        .detail("field", field)
        .hint(format!("For example {field}='100k' or '10M'; '500c' means 500 bytes"))
    };
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(bad());
    }
    let count: u64 = digits.parse().map_err(|_| bad())?;
    let unit_bytes = match unit {
        "" | "b" => 512,
        "c" => 1,
        "w" => 2,
        "k" | "K" => 1024,
        "M" | "m" => 1024 * 1024,
        "G" | "g" => 1024 * 1024 * 1024,
        _ => return Err(bad()),
    };
    Ok(Size {
        count,
        unit: unit_bytes,
        implicit_blocks: unit.is_empty(),
    })
}

/// A `-perm` test on the 12 permission bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Perm {
    /// `644`: exactly these bits.
    Exact(u32),
    /// `-644`: at least these bits.
    All(u32),
    /// `/644`: any of these bits (every entry when the mode is 0, as in find).
    Any(u32),
}

impl Perm {
    pub(crate) fn matches(self, mode: u32) -> bool {
        let mode = mode & 0o7777;
        match self {
            Perm::Exact(m) => mode == m,
            Perm::All(m) => mode & m == m,
            Perm::Any(m) => m == 0 || mode & m != 0,
        }
    }
}

/// find's `-perm` argument: `644`, `-644`, `/644`, `-u+x`, `/u+w,g+w`, `u=rwx,go=rx`. The
/// obsolete BSD `+mode` is read as `/mode`, its old meaning.
pub(crate) fn perm(raw: &str) -> Result<Perm, QueryError> {
    let text = raw.trim();
    let octal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (kind, body): (fn(u32) -> Perm, &str) = match text.as_bytes().first() {
        Some(b'-') => (Perm::All, &text[1..]),
        Some(b'/') => (Perm::Any, &text[1..]),
        // BSD's '+111'; a symbolic '+x' keeps its '+', which is then the operator.
        Some(b'+') if octal(&text[1..]) => (Perm::Any, &text[1..]),
        Some(b'+') => (Perm::Any, text),
        _ => (Perm::Exact, text),
    };
    let bad = |why: String| {
        QueryError::invalid(format!(
            "permissions '{raw}' is not a find -perm mode: {why}"
        ))
        .detail("field", "permissions")
        .hint("Octal such as '644' (exact), '-644' (all of these bits), '/111' (any of these bits)")
        .hint("or symbolic such as '-u+x', '/g+w,o+w', 'u=rwx,go=rx'")
    };
    if body.is_empty() {
        return Err(bad("no mode was given".into()));
    }
    let mode = if octal(body) {
        if body.len() > 4 || body.bytes().any(|b| b > b'7') {
            return Err(bad("octal modes have 1 to 4 digits from 0 to 7".into()));
        }
        u32::from_str_radix(body, 8).map_err(|e| bad(e.to_string()))?
    } else {
        symbolic(body).map_err(bad)?
    };
    Ok(kind(mode))
}

/// A chmod-style symbolic mode applied to 000, as find reads it.
fn symbolic(body: &str) -> Result<u32, String> {
    const WHO_BITS: [(char, u32); 3] = [('u', 0o4700), ('g', 0o2070), ('o', 0o1007)];
    let mut mode = 0u32;
    for clause in body.split(',') {
        let ops_at = clause
            .find(['+', '-', '='])
            .ok_or_else(|| format!("'{clause}' has no +, - or ="))?;
        let (who, mut rest) = clause.split_at(ops_at);
        let mut mask = 0u32;
        for c in who.chars() {
            mask |= match c {
                'a' => 0o7777,
                'u' | 'g' | 'o' => WHO_BITS
                    .iter()
                    .find(|(w, _)| *w == c)
                    .map_or(0, |(_, b)| *b),
                other => return Err(format!("'{other}' is not one of u, g, o, a")),
            };
        }
        if who.is_empty() {
            mask = 0o7777;
        }
        while let Some(op) = rest.chars().next() {
            let perms_end = rest[1..]
                .find(['+', '-', '='])
                .map_or(rest.len(), |i| i + 1);
            let perms = &rest[1..perms_end];
            rest = &rest[perms_end..];
            let mut bits = 0u32;
            for p in perms.chars() {
                bits |= match p {
                    'r' => 0o444,
                    'w' => 0o222,
                    'x' | 'X' => 0o111,
                    's' => 0o6000,
                    't' => 0o1000,
                    'u' | 'g' | 'o' => {
                        return Err(format!(
                            "copying bits from '{p}' (as in g=u) is not supported; list the bits"
                        ))
                    }
                    other => return Err(format!("'{other}' is not one of r, w, x, X, s, t")),
                };
            }
            let bits = bits & mask;
            match op {
                '+' => mode |= bits,
                '-' => mode &= !bits,
                _ => mode = (mode & !mask) | bits,
            }
        }
    }
    Ok(mode)
}

/// The regex dialects find's `-regextype` offers here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub(crate) enum RegexType {
    #[serde(rename = "posix-egrep")]
    Egrep,
    #[serde(rename = "posix-extended")]
    Extended,
    #[serde(rename = "posix-basic")]
    Basic,
}

impl RegexType {
    pub(crate) fn name(self) -> &'static str {
        match self {
            RegexType::Egrep => "posix-egrep",
            RegexType::Extended => "posix-extended",
            RegexType::Basic => "posix-basic",
        }
    }
}

/// Rewrites a POSIX regex into the `regex` crate's syntax. Extended regexes mostly are that
/// syntax already; basic ones swap escaped and bare operators (`\(`, `\{`, `\|`, `\+`, `\?`).
/// GNU's word anchors `\<` `\>` become `\b`. Back-references have no equivalent in a
/// linear-time engine and are refused with the reason.
pub(crate) fn posix_to_regex(pattern: &str, dialect: RegexType) -> Result<String, String> {
    let basic = dialect == RegexType::Basic;
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    // Where a `*` is literal in a basic regex: at the start, after `^` or after `\(`.
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        let was_start = at_start;
        at_start = false;
        match c {
            '[' => {
                let end = bracket_end(&chars, i).ok_or("a bracket expression '[' is not closed")?;
                out.push_str(&bracket(&chars[i..=end]));
                i = end + 1;
                continue;
            }
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("the pattern ends with a lone backslash".into());
                };
                i += 2;
                match next {
                    '1'..='9' => {
                        return Err(format!(
                            "back-reference \\{next} is not supported (matching runs in linear time, which rules them out); rewrite without it"
                        ))
                    }
                    '<' | '>' => out.push_str("\\b"),
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if basic => {
                        out.push(next);
                        at_start = next == '(';
                    }
                    '`' => out.push_str("\\A"),
                    '\'' => out.push_str("\\z"),
                    n => {
                        out.push('\\');
                        out.push(n);
                    }
                }
                continue;
            }
            '(' | ')' | '{' | '}' | '|' | '+' | '?' if basic => {
                out.push('\\');
                out.push(c);
            }
            '*' if basic && was_start => out.push_str("\\*"),
            '^' => {
                out.push('^');
                at_start = true;
            }
            '(' => {
                out.push('(');
                at_start = true;
            }
            other => out.push(other),
        }
        i += 1;
    }
    Ok(out)
}

/// Index of the `]` closing the bracket expression opened at `open`, honouring a leading
/// `]` or `^]` and `[:class:]`, `[=x=]`, `[.x.]` items.
fn bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            ']' => return Some(i),
            '[' if matches!(chars.get(i + 1), Some(':' | '=' | '.')) => {
                let kind = chars[i + 1];
                let close = (i + 2..chars.len().saturating_sub(1))
                    .find(|&j| chars[j] == kind && chars[j + 1] == ']')?;
                i = close + 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// A POSIX bracket expression in `regex` syntax: backslashes are literal in POSIX brackets,
/// so they are escaped; a leading `]` is escaped; classes pass through.
fn bracket(chars: &[char]) -> String {
    let mut out = String::from("[");
    let mut i = 1;
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str("\\]");
        i += 1;
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' if matches!(chars.get(i + 1), Some(':')) => {
                let close = (i + 2..chars.len())
                    .find(|&j| chars[j] == ':' && chars.get(j + 1) == Some(&']'))
                    .unwrap_or(chars.len() - 1);
                out.extend(&chars[i..(close + 2).min(chars.len())]);
                i = close + 2;
                continue;
            }
            '\\' | '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_need_a_number_and_a_unit() {
        assert_eq!(
            age("modifiedWithin", "24h").unwrap(),
            Duration::from_secs(24 * 3600)
        );
        assert_eq!(
            age("modifiedWithin", "7d").unwrap(),
            Duration::from_secs(7 * 86_400)
        );
        assert_eq!(
            age("modifiedWithin", "2w").unwrap(),
            Duration::from_secs(14 * 86_400)
        );
        assert_eq!(
            age("modifiedWithin", " 6m ").unwrap(),
            Duration::from_secs(180 * 86_400)
        );
        for bad in [
            "",
            "7",
            "d",
            "7x",
            "-7d",
            "7 d",
            "1.5d",
            "7D",
            "ä",
            "99999999999999999999d",
        ] {
            let e = age("modifiedBefore", bad).unwrap_err();
            assert!(
                e.message.starts_with("modifiedBefore"),
                "{bad}: {}",
                e.message
            );
            assert_eq!(e.details["field"], "modifiedBefore");
        }
        assert!(age("accessedWithin", "9999999999999999d")
            .unwrap_err()
            .message
            .contains("too large"));
    }

    #[test]
    fn sizes_follow_find_units_and_rounding() {
        let k = size("sizeGreater", "10k", '+').unwrap();
        assert_eq!((k.count, k.unit), (10, 1024));
        assert_eq!(size("sizeGreater", "+10K", '+').unwrap(), k);
        assert_eq!(size("sizeLess", "-1M", '-').unwrap().unit, 1 << 20);
        assert_eq!(size("sizeLess", "2G", '-').unwrap().unit, 1 << 30);
        assert_eq!(size("sizeLess", "500c", '-').unwrap().unit, 1);
        assert_eq!(size("sizeLess", "3w", '-').unwrap().unit, 2);
        let blocks = size("sizeLess", "8", '-').unwrap();
        assert!(blocks.implicit_blocks && blocks.unit == 512);
        // find rounds up: one byte is one whole MiB, so '-1M' keeps only empty files.
        let m = size("sizeLess", "1M", '-').unwrap();
        assert_eq!(
            (
                m.units_of(0),
                m.units_of(1),
                m.units_of(1 << 20),
                m.units_of((1 << 20) + 1)
            ),
            (0, 1, 1, 2)
        );
        for bad in ["", "k", "10x", "1.5M", "10 k", "+-1k", "10kb"] {
            assert!(
                size("sizeGreater", bad, '+')
                    .unwrap_err()
                    .message
                    .contains("sizeGreater"),
                "{bad}"
            );
        }
    }

    #[test]
    fn perm_modes_octal_and_symbolic() {
        assert_eq!(perm("644").unwrap(), Perm::Exact(0o644));
        assert_eq!(perm("-644").unwrap(), Perm::All(0o644));
        assert_eq!(perm("/111").unwrap(), Perm::Any(0o111));
        assert_eq!(perm("+111").unwrap(), Perm::Any(0o111));
        assert_eq!(perm("4755").unwrap(), Perm::Exact(0o4755));
        assert_eq!(perm("-u+x").unwrap(), Perm::All(0o100));
        assert_eq!(perm("u=rwx,go=rx").unwrap(), Perm::Exact(0o755));
        assert_eq!(perm("/g+w,o+w").unwrap(), Perm::Any(0o022));
        assert_eq!(perm("a+r").unwrap(), Perm::Exact(0o444));
        assert_eq!(perm("+x").unwrap(), Perm::Any(0o111));
        assert_eq!(perm("u+rwx-w").unwrap(), Perm::Exact(0o500));
        assert_eq!(perm("-u+s").unwrap(), Perm::All(0o4000));
        assert_eq!(perm("o+t").unwrap(), Perm::Exact(0o1000));
        for bad in ["", "-", "888", "12345", "u+q", "z+x", "ux", "g=u"] {
            let e = perm(bad).unwrap_err();
            assert!(e.message.contains("-perm"), "{bad}: {}", e.message);
        }
        assert!(Perm::Exact(0o644).matches(0o100644) && !Perm::Exact(0o644).matches(0o100664));
        assert!(Perm::All(0o110).matches(0o755) && !Perm::All(0o110).matches(0o705));
        assert!(Perm::Any(0o011).matches(0o701) && !Perm::Any(0o011).matches(0o700));
        assert!(Perm::Any(0).matches(0o600));
    }

    fn rx(p: &str, t: RegexType) -> String {
        posix_to_regex(p, t).unwrap()
    }

    #[test]
    fn posix_regexes_translate() {
        use RegexType::*;
        assert_eq!(rx(r".*\.(ts|tsx)$", Extended), r".*\.(ts|tsx)$");
        assert_eq!(rx(r"a\{2\}\(b\|c\)+", Basic), r"a{2}(b|c)\+");
        assert_eq!(rx(r"*a", Basic), r"\*a");
        assert_eq!(rx(r"\(*a\)", Basic), r"(\*a)");
        assert_eq!(rx(r"x*", Basic), r"x*");
        assert_eq!(rx(r"[[:digit:]]+\.log", Egrep), r"[[:digit:]]+\.log");
        assert_eq!(rx(r"[]a\]", Extended), r"[\]a\\]");
        assert_eq!(rx(r"\<main\>", Extended), r"\bmain\b");
        let e = posix_to_regex(r"\(a\)\1", Basic).unwrap_err();
        assert!(e.contains("back-reference"), "{e}");
        assert!(posix_to_regex("[abc", Extended)
            .unwrap_err()
            .contains("not closed"));
        assert!(posix_to_regex("abc\\", Extended)
            .unwrap_err()
            .contains("backslash"));
        for (p, t) in [
            (r".*\.(ts|tsx)$", Extended),
            (r"a\{2\}\(b\|c\)+", Basic),
            (r"[]a\]", Extended),
            (r"[[:digit:]]+\.log", Egrep),
        ] {
            assert!(regex::Regex::new(&rx(p, t)).is_ok(), "{p}");
        }
    }
}
