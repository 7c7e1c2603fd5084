//! The engine against the corpus (`tests/fixtures/secrets/corpus.json`): every kind in the
//! table has samples, every positive sample loses its secret to a label of its kind, and
//! every near miss (per kind and shared: hashes, UUIDs, lockfile integrity strings,
//! placeholders, references) comes back byte for byte.

use super::*;
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    kinds: Vec<KindSamples>,
    negatives: Vec<Negative>,
}

#[derive(Deserialize)]
struct KindSamples {
    kind: String,
    positives: Vec<Positive>,
    negatives: Vec<String>,
}

#[derive(Deserialize)]
struct Positive {
    context: String,
    text: String,
    secret: String,
}

#[derive(Deserialize)]
struct Negative {
    what: String,
    text: String,
}

fn corpus() -> Corpus {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/secrets/corpus.json"
    );
    let text = std::fs::read_to_string(path).expect("the corpus is checked in");
    serde_json::from_str(&text).expect("the corpus parses")
}

#[test]
fn every_pattern_compiles() {
    for kind in patterns::all() {
        let source = ascii_boundaries(kind.pattern);
        assert!(Regex::new(&source).is_ok(), "{}: {source}", kind.name);
    }
    assert_eq!(compiled().rows.len(), patterns::all().count());
}

#[test]
fn at_least_a_hundred_kinds_each_with_samples() {
    let names = kinds();
    assert!(names.len() >= 100, "{} kinds", names.len());
    let corpus = corpus();
    for name in &names {
        let samples = corpus.kinds.iter().find(|k| k.kind == *name);
        let samples = samples.unwrap_or_else(|| panic!("{name} has no corpus entry"));
        assert!(
            !samples.positives.is_empty(),
            "{name} has no positive sample"
        );
        assert!(!samples.negatives.is_empty(), "{name} has no near miss");
    }
    for k in &corpus.kinds {
        assert!(names.contains(&k.kind.as_str()), "{} is not a kind", k.kind);
    }
}

#[test]
fn every_positive_loses_its_secret_to_its_kind() {
    let mut failures = Vec::new();
    for k in corpus().kinds {
        let label = format!("[REDACTED-{}]", k.kind);
        for p in &k.positives {
            let out = redact(&p.text);
            if out.contains(&p.secret) || !out.contains(&label) {
                failures.push(format!(
                    "{} / {}: {:?} -> {:?}",
                    k.kind, p.context, p.text, out
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} leaks:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_near_miss_is_untouched() {
    let corpus = corpus();
    let mut failures = Vec::new();
    let shared = corpus.negatives.iter().map(|n| (n.what.as_str(), &n.text));
    let per_kind = corpus
        .kinds
        .iter()
        .flat_map(|k| k.negatives.iter().map(move |t| (k.kind.as_str(), t)));
    for (what, text) in shared.chain(per_kind) {
        if let Cow::Owned(out) = redact(text) {
            failures.push(format!("{what}: {text:?} -> {out:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} false positives:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_whole_corpus_in_one_file_leaks_nothing() {
    // Rows run one after another over the same text: one row's replacement must not hide a
    // neighbour from the next, and samples side by side must not merge into one match.
    let corpus = corpus();
    let positives: Vec<&Positive> = corpus.kinds.iter().flat_map(|k| &k.positives).collect();
    let file: String = positives.iter().map(|p| format!("{}\n", p.text)).collect();
    let out = redact(&file);
    for p in positives {
        assert!(
            !out.contains(&p.secret),
            "{} leaked in the combined file",
            p.secret
        );
    }
    let negatives: String = corpus
        .negatives
        .iter()
        .map(|n| format!("{}\n", n.text))
        .collect();
    assert!(matches!(redact(&negatives), Cow::Borrowed(_)));
}

#[test]
fn reporting_names_each_kind_and_value() {
    let text = concat!(
        "a ghp_",
        "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 b\npassword: hunter22x\n"
    );
    let mut seen = Vec::new();
    let out = redact_reporting(text, |kind, value| seen.push((kind, value.to_string())));
    assert_eq!(
        out,
        "a [REDACTED-GITHUBTOKENS] b\npassword: [REDACTED-GENERICPASSWORD]\n"
    );
    assert_eq!(seen[0].0, "GITHUBTOKENS");
    assert_eq!(seen[1], ("GENERICPASSWORD", "hunter22x".to_string()));
}

#[test]
fn ordinary_code_is_left_alone() {
    for text in [
        "fn password_is_valid(p: &str) -> bool { p.len() > 8 }",
        "let api_key = std::env::var(\"API_KEY\")?;",
        "see https://github.com/owner/repo/blob/main/src/lib.rs",
        "password = \"short\"",
        "über ünïcödé text with a token: ${TOKEN} and 🎉",
    ] {
        assert!(matches!(redact(text), Cow::Borrowed(_)), "{text}");
    }
}

#[test]
fn values_are_redacted_in_place_at_any_depth() {
    let mut v = serde_json::json!({"a": [{"b": concat!("x ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 y")}], "n": 1});
    redact_value(&mut v);
    assert_eq!(v["a"][0]["b"], "x [REDACTED-GITHUBTOKENS] y");
    assert_eq!(v["n"], 1);
}

#[test]
fn redaction_keeps_lines_and_is_idempotent() {
    // Line numbers stay valid (search hits, line ranges, LSP positions), and output already
    // redacted (a page of it, say) passes through unchanged.
    for k in corpus().kinds {
        for p in &k.positives {
            let once = redact(&p.text);
            assert_eq!(
                once.lines().count(),
                p.text.lines().count(),
                "{}: {once}",
                k.kind
            );
            assert_eq!(redact(&once), once, "{}", k.kind);
        }
    }
}

/// Fragments that wake the prefilter and the multi-line rows, mixed with any text: whatever
/// arrives, redaction does not panic, keeps the line count and is idempotent.
fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        Just("ghp_".to_string()),
        Just("-----BEGIN RSA PRIVATE KEY-----\n".to_string()),
        Just("\n-----END RSA PRIVATE KEY-----".to_string()),
        Just("password = \"".to_string()),
        Just("api_key: ".to_string()),
        Just("postgres://u:".to_string()),
        Just("AccountKey=".to_string()),
        Just("eyJ".to_string()),
        Just("\n".to_string()),
        "[A-Za-z0-9+/=_-]{0,48}",
        "\\PC{0,12}",
        any::<String>(),
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|parts| parts.concat())
}

proptest::proptest! {
    #![proptest_config(crate::fuzz_json::config(256))]
    #[test]
    fn any_text_is_redacted_without_panic_keeping_lines(text in hostile_text()) {
        let once = redact(&text).into_owned();
        proptest::prop_assert_eq!(once.matches('\n').count(), text.matches('\n').count());
        proptest::prop_assert_eq!(redact(&once).into_owned(), once);
    }
}
