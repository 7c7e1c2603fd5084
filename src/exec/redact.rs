//! Secret redaction over everything a tool returns. Each match of a known credential shape
//! becomes `[REDACTED-<NAME>]`, so the agent sees that something was there and what kind,
//! never the value. Patterns favour precision: a vendor prefix or a fixed structure, and
//! generic `password = "..."` assignments only when quoted and eight characters or longer.
//! A `RegexSet` finds which patterns occur, so clean text costs one scan.

use regex::{Regex, RegexSet};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Text longer than this is dropped whole rather than scanned.
const MAX_SCANNED_CHARS: usize = 10_000_000;

const PATTERNS: &[(&str, &str)] = &[
    (
        "PRIVATEKEY",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    (
        "GITHUBTOKENS",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
    ),
    (
        "GITLABTOKEN",
        r"\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|agent|soat)-[A-Za-z0-9_-]{20,}",
    ),
    (
        "AWSACCESSKEYID",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
    ),
    (
        "AWSSECRETACCESSKEY",
        r#"(?i)\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b"#,
    ),
    ("OPENAIPROJECTAPIKEY", r"\bsk-proj-[A-Za-z0-9_-]{20,}"),
    (
        "OPENAISERVICEACCOUNTKEY",
        r"\bsk-svcacct-[A-Za-z0-9_-]{20,}",
    ),
    ("OPENAIADMINKEY", r"\bsk-admin-[A-Za-z0-9_-]{20,}"),
    ("ANTHROPICAPIKEY", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    (
        "OPENAIAPIKEY",
        r"\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b",
    ),
    ("HUGGINGFACETOKEN", r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("GROQAPIKEY", r"\bgsk_[A-Za-z0-9]{48,}\b"),
    ("SLACKTOKEN", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    (
        "SLACKWEBHOOK",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]+",
    ),
    (
        "DISCORDWEBHOOK",
        r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
    ),
    (
        "STRIPEKEY",
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
    ),
    ("GOOGLEAPIKEY", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("GOOGLEOAUTHTOKEN", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    ("NPMTOKEN", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PYPITOKEN", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    (
        "SENDGRIDAPIKEY",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    ("TWILIOAPIKEY", r"\bSK[0-9a-f]{32}\b"),
    ("MAILGUNAPIKEY", r"\bkey-[0-9a-f]{32}\b"),
    ("SHOPIFYTOKEN", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("DIGITALOCEANTOKEN", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("LINEARAPIKEY", r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("DOCKERHUBTOKEN", r"\bdckr_pat_[A-Za-z0-9_-]{27,}"),
    ("SENTRYTOKEN", r"\bsntr[yu]s?_[A-Za-z0-9+/=_]{40,}"),
    ("TELEGRAMBOTTOKEN", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"),
    ("ATLASSIANTOKEN", r"\bATATT3[A-Za-z0-9_=-]{100,}"),
    (
        "AZURESTORAGECONNECTIONSTRING",
        r"DefaultEndpointsProtocol=https?;AccountName=[^;\s]+;AccountKey=[A-Za-z0-9+/=]{40,}",
    ),
    (
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    (
        "DATABASEURL",
        r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|clickhouse)://[^\s:/@]+:[^\s@/]+@[^\s'\x22]+",
    ),
    (
        "BASICAUTHHEADER",
        r"(?i)\bauthorization:\s*basic\s+[A-Za-z0-9+/=]{8,}",
    ),
    (
        "BEARERTOKEN",
        r"(?i)\bauthorization:\s*bearer\s+[A-Za-z0-9._~+/-]{16,}=*",
    ),
    (
        "GENERICSECRET",
        r#"(?i)\b(?:password|passwd|secret|secret_?key|api_?key|access_?token|auth_?token|client_?secret)\b["']?\s*[:=]\s*["'][^"'\s]{8,}["']"#,
    ),
];

struct Patterns {
    set: RegexSet,
    each: Vec<(String, Regex)>,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        // Constant patterns; the unit test below compiles every one of them.
        let set =
            RegexSet::new(PATTERNS.iter().map(|(_, p)| *p)).unwrap_or_else(|_| RegexSet::empty());
        let each = PATTERNS
            .iter()
            .filter_map(|(name, p)| {
                Regex::new(p)
                    .ok()
                    .map(|r| (format!("[REDACTED-{name}]"), r))
            })
            .collect();
        Patterns { set, each }
    })
}

/// `text` with every secret replaced; borrowed when nothing matched.
pub fn redact(text: &str) -> Cow<'_, str> {
    if text.len() > MAX_SCANNED_CHARS {
        return Cow::Borrowed("[CONTENT-REDACTED-SIZE-LIMIT]");
    }
    let p = patterns();
    let hits = p.set.matches(text);
    if !hits.matched_any() {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for i in hits.iter() {
        let (label, re) = &p.each[i];
        if let Cow::Owned(replaced) = re.replace_all(&out, label.as_str()) {
            out = replaced;
        }
    }
    Cow::Owned(out)
}

/// Redacts every string inside `value`, in place.
pub fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = redact(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => map.values_mut().for_each(redact_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for (name, p) in PATTERNS {
            assert!(Regex::new(p).is_ok(), "{name}");
        }
        assert_eq!(patterns().each.len(), PATTERNS.len());
    }

    #[test]
    fn known_shapes_are_replaced_by_their_kind() {
        let cases = [
            (
                concat!("token = ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
                "[REDACTED-GITHUBTOKENS]",
            ),
            (
                concat!("AKIA", "IOSFODNN7EXAMPLE"),
                "[REDACTED-AWSACCESSKEYID]",
            ),
            (
                concat!("OPENAI=sk-proj-", "abcdefghijklmnopqrstuvwxyz012345"),
                "[REDACTED-OPENAIPROJECTAPIKEY]",
            ),
            (
                "postgres://admin:hunter22@db.internal:5432/app",
                "[REDACTED-DATABASEURL]",
            ),
            (
                "password = \"correct-horse-battery\"",
                "[REDACTED-GENERICSECRET]",
            ),
            (
                concat!(
                    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH ",
                    "PRIVATE KEY-----"
                ),
                "[REDACTED-PRIVATEKEY]",
            ),
        ];
        for (input, label) in cases {
            let out = redact(input);
            assert!(out.contains(label), "{input} -> {out}");
        }
    }

    #[test]
    fn ordinary_code_is_left_alone() {
        for text in [
            "fn password_is_valid(p: &str) -> bool { p.len() > 8 }",
            "let api_key = std::env::var(\"API_KEY\")?;",
            "see https://github.com/owner/repo/blob/main/src/lib.rs",
            "password = \"short\"",
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
}
