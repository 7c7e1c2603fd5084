//! The literal prefilter: which rows can match a text at all. Each row has anchors, literals
//! one of which every match contains (a vendor prefix, the vendor's name before a key, the
//! keyword of an assignment); one case-insensitive Aho-Corasick pass over the text finds the
//! anchors present, and only their rows run. Rows without a usable anchor always run.
//!
//! Why not one `RegexSet`: with 200 patterns, several with long counted repetitions, its lazy
//! DFA thrashes its cache and falls back to a far slower engine (0.3 MB/s on this
//! repository's sources, against well over 100 MB/s for this design; `cargo bench --bench
//! exec -- redact`).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};

pub(super) struct Prefilter {
    finder: Option<AhoCorasick>,
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
        Prefilter {
            finder,
            owners,
            always,
            rows: count,
        }
    }

    /// For each row, whether it can match `text`.
    pub(super) fn candidates(&self, text: &str) -> Vec<bool> {
        let mut run = vec![false; self.rows];
        let Some(finder) = &self.finder else {
            return vec![true; self.rows];
        };
        for &i in &self.always {
            run[i] = true;
        }
        let mut seen = vec![false; self.owners.len()];
        for m in finder.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if !seen[id] {
                seen[id] = true;
                self.owners[id].iter().for_each(|&row| run[row] = true);
            }
        }
        run
    }
}

/// Lower-case literals every match of `source` contains, or `None` when there are none
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
        .map(|l| String::from_utf8_lossy(l.as_bytes()).to_ascii_lowercase())
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
    fn only_rows_whose_anchor_occurs_run() {
        let rows = [
            ("A", r"ghp_[a-z]+"),
            ("B", r"(?i:stripe)x"),
            ("C", r"\b[MN][a-z]{3}x"),
        ];
        let p = Prefilter::new(rows.into_iter());
        assert_eq!(p.candidates("a GHP_ token"), [true, false, true]);
        assert_eq!(p.candidates("Stripe"), [false, true, true]);
        assert_eq!(p.candidates("nothing"), [false, false, true]);
    }
}
