//! The literal prefilter: which rows can match a text, and where. Each row has anchors,
//! literals one of which every match contains (a vendor prefix, the vendor's name before a
//! key, the keyword of an assignment); one case-insensitive Aho-Corasick pass over the text
//! finds the anchors present (capitalised prefixes such as `SK` must match in their case),
//! and a row runs only on the lines holding one of its anchors. Rows whose matches span lines
//! (key blocks) and rows without a usable anchor run over the whole text.
//!
//! Why not one `RegexSet`: with 200 patterns, several with long counted repetitions, its lazy
//! DFA thrashes its cache and falls back to a far slower engine: 0.3 MB/s on this
//! repository's sources. Anchors alone gave 28 MiB/s, running rows line by line 47, and
//! case-exact capital prefixes 52 MiB/s (`cargo bench --bench exec -- redact`).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};

pub(super) struct Prefilter {
    finder: Option<AhoCorasick>,
    /// Anchors taken from a case-sensitive prefix with capitals (`SK`, `AKIA`), which must
    /// match in their case: the finder ignores case, so `task` finds `sk`, let go here.
    exact: Vec<Option<String>>,
    /// For each anchor (the finder's pattern id), the rows it stands for.
    owners: Vec<Vec<usize>>,
    /// Rows with no anchor.
    always: Vec<usize>,
    rows: usize,
}

impl Prefilter {
    /// `rows`: each row's name and pattern source, in table order.
    pub(super) fn new<'a>(rows: impl Iterator<Item = (&'a str, &'a str)>) -> Prefilter {
        let mut anchors: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut count = 0;
        for (i, (name, source)) in rows.enumerate() {
            count += 1;
            match anchors_of(name, source) {
                None => always.push(i),
                Some(words) => {
                    for w in words {
                        match anchors.iter().position(|a| *a == w) {
                            Some(at) => owners[at].push(i),
                            None => {
                                anchors.push(w);
                                owners.push(vec![i]);
                            }
                        }
                    }
                }
            }
        }
        let finder = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&anchors)
            .ok();
        let exact = anchors
            .into_iter()
            .map(|a| a.bytes().any(|b| b.is_ascii_uppercase()).then_some(a))
            .collect();
        Prefilter {
            finder,
            exact,
            owners,
            always,
            rows: count,
        }
    }

    /// Which rows run where: over the whole text (`whole_rows` marks the rows whose matches
    /// can span lines; rows without anchors always run), or on the lines where one of their
    /// anchors occurs.
    pub(super) fn plan(&self, text: &str, whole_rows: &[bool]) -> Plan {
        let mut plan = Plan {
            whole: vec![false; self.rows],
            lines: Vec::new(),
        };
        for &i in &self.always {
            plan.whole[i] = true;
        }
        let Some(finder) = &self.finder else {
            plan.whole = vec![true; self.rows];
            return plan;
        };
        for m in finder.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if let Some(anchor) = &self.exact[id] {
                if text.as_bytes()[m.range()] != *anchor.as_bytes() {
                    continue;
                }
            }
            let owners = &self.owners[id];
            let (start, end) = line_around(text, m.start(), m.end());
            for &row in owners {
                if whole_rows[row] {
                    plan.whole[row] = true;
                    continue;
                }
                match plan.lines.last_mut() {
                    // Anchors come in order of their ends, so a line's come together.
                    Some((s, e, rows)) if *s == start => {
                        *e = (*e).max(end);
                        rows.push(row);
                    }
                    _ => plan.lines.push((start, end, vec![row])),
                }
            }
        }
        // Lines in order without overlap (an anchor across a line break joins its lines),
        // each line's rows in table order, once.
        plan.lines.sort_by_key(|l| l.0);
        let mut merged: Vec<(usize, usize, Vec<usize>)> = Vec::with_capacity(plan.lines.len());
        for (s, e, rows) in plan.lines.drain(..) {
            match merged.last_mut() {
                Some((_, le, lrows)) if s < *le => {
                    *le = (*le).max(e);
                    lrows.extend(rows);
                }
                _ => merged.push((s, e, rows)),
            }
        }
        for (_, _, rows) in &mut merged {
            rows.sort_unstable();
            rows.dedup();
        }
        plan.lines = merged;
        plan
    }
}

/// Where each row runs for one text.
pub(super) struct Plan {
    pub(super) whole: Vec<bool>,
    /// (start, end, rows): byte ranges of lines (without their line break) and the rows to run
    /// on each.
    pub(super) lines: Vec<(usize, usize, Vec<usize>)>,
}

/// The byte range of the line(s) holding `start..end`, without the final line break.
fn line_around(text: &str, start: usize, end: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let from = bytes[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let to = bytes[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| end + i);
    (from, to)
}

/// Literals every match of `source` contains (lower case unless taken from a case-sensitive
/// prefix), or `None` when there are none
/// worth having (a pattern that starts with a class).
fn anchors_of(name: &str, source: &str) -> Option<Vec<String>> {
    if let Some(words) = by_name(name) {
        return Some(words.iter().map(|w| w.to_string()).collect());
    }
    // `(?i:vendor|other)...`: the vendor names of a keyword-anchored row.
    if let Some(rest) = source.strip_prefix("(?i:") {
        let group = &rest[..rest.find(')')?];
        if group
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_|.-".contains(&b))
        {
            return Some(group.split('|').map(str::to_ascii_lowercase).collect());
        }
    }
    let hir = regex_syntax::parse(source).ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let mut words: Vec<String> = seq
        .literals()?
        .iter()
        .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned())
        .collect();
    words.sort();
    words.dedup();
    let usable = !words.is_empty() && words.iter().all(|w| w.len() >= 2);
    usable.then_some(words)
}

/// Rows whose patterns start with a class or an optional part: their anchors, by hand.
fn by_name(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "GENERICPASSWORD" | "CONNECTIONSTRINGPASSWORD" => &["pass", "pwd"],
        "GENERICSECRET" => &["secret", "token", "key", "auth", "credential"],
        "CLISECRETFLAG" | "URLQUERYSECRET" | "XMLSECRET" => {
            &["pass", "pwd", "token", "key", "secret"]
        }
        "NPMRCAUTHTOKEN" => &["_auth", "npmauth"],
        "AWSSECRETACCESSKEY" => &["secret"],
        "AWSSESSIONTOKEN" => &["iqojb3jpz2lux2vj", "fwogzxivyxdze", "session"],
        "AZURESASTOKEN" => &["sharedaccesssignature", "sig="],
        "AZUREACCOUNTKEY" => &["accountkey"],
        "AZURESHAREDACCESSKEY" => &["sharedaccesskey"],
        "AZURECOSMOSKEY" => &["primary", "secondary"],
        "AZURECLIENTSECRET" => &["q~"],
        "AZUREDEVOPSPAT" => &["azdo"],
        "KUBECONFIGKEYDATA" => &["client-key-data", "token-data"],
        "TELEGRAMBOTTOKEN" => &[":aa"],
        "TERRAFORMCLOUDTOKEN" => &[".atlasv1."],
        "NEWRELICKEY" => &["nrak-", "nrii-", "nraa-", "nrjs-", "nral"],
        "MAILCHIMPAPIKEY" => &["-us"],
        "DATABASEURL" | "BASICAUTHURL" | "SENTRYDSN" => &["://"],
        "JDBCPASSWORD" => &["jdbc:"],
        "BASICAUTHHEADER" | "BEARERTOKEN" => &["authorization", "bearer"],
        "APIKEYHEADER" => &["api-key", "apikey", "-token"],
        "CURLUSERPASSWORD" => &["-u", "--user"],
        "APPSETTINGSECRET" => &["<add"],
        "PRIVATEKEY" => &["private key"],
        "FACEBOOKACCESSTOKEN" => &["eaab", "eaac", "eaag", "eaai", "eaaj"],
        "JFROGAPIKEY" => &["akcp"],
        "PUTTYPRIVATEKEY" => &["putty-user-key-file", "private-lines:"],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_come_from_prefixes_vendor_names_or_the_table() {
        assert_eq!(anchors_of("X", r"\bghp_[A-Za-z0-9]{36}").unwrap(), ["ghp_"]);
        assert_eq!(
            anchors_of("X", r"\b(?:sk|rk)_live_[a-z]{4}").unwrap(),
            ["rk_live_", "sk_live_"]
        );
        assert_eq!(
            anchors_of("X", r"(?i:fastly|fst)[a-z]{0,3}=").unwrap(),
            ["fastly", "fst"]
        );
        assert_eq!(
            anchors_of("GENERICPASSWORD", r"[a-z]*").unwrap(),
            ["pass", "pwd"]
        );
        assert!(anchors_of("X", r"\b[MNO][a-z]{20}").is_none());
    }

    #[test]
    fn rows_run_on_the_lines_of_their_anchors() {
        let rows = [
            ("A", r"ghp_[a-z]+"),
            ("B", r"(?i:stripe)x"),
            ("C", r"\b[MN][a-z]{3}x"),
            ("D", r"ghp_"),
        ];
        let p = Prefilter::new(rows.into_iter());
        // A case-sensitive prefix with capitals must match in its case.
        let upper = Prefilter::new([("S", r"\bSK[0-9a-f]{32}")].into_iter());
        assert!(upper.plan("a task", &[false]).lines.is_empty());
        assert_eq!(upper.plan("SK0", &[false]).lines.len(), 1);
        let whole = [false, false, false, true];
        let text = "one\na GHP_ token\nStripe ghp_";
        let plan = p.plan(text, &whole);
        // C has no anchor and D spans lines: both run over the whole text.
        assert_eq!(plan.whole, [false, false, true, true]);
        assert_eq!(plan.lines, [(4, 16, vec![0]), (17, 28, vec![0, 1])]);
        assert_eq!(&text[4..16], "a GHP_ token");
        let none = p.plan("nothing here", &whole);
        assert!(none.lines.is_empty());
        assert_eq!(none.whole, [false, false, true, false]);
    }
}
