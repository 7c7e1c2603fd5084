//! The secret kinds: one row per credential shape, as data. A row is precise by itself (a
//! vendor prefix, a fixed structure, or a keyword right before the value), and rows whose
//! value could also be an ordinary word carry a [`Check`] that the engine applies to the
//! captured value. The secret is the named group `s` when there is one (the key, the URL's
//! scheme and host stay visible), else the whole match. Order matters: specific shapes run
//! before the keyword-anchored ones, so a vendor key in `api_key = "..."` keeps its kind.
//!
//! The vendor rows live in `vendors.rs`.
//!
//! `\b` is rewritten to an ASCII word boundary when compiled (see `mod.rs`), which keeps the
//! lazy DFA usable on non-ASCII text.

/// What the engine verifies about a captured value before replacing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The regex alone is precise.
    Shape,
    /// A keyword-anchored value: must look like a secret, not a word, reference or path.
    Value,
    /// A password inside a URL or connection string: anything but a placeholder.
    Password,
}

/// One kind of secret.
pub(crate) struct Kind {
    pub(crate) name: &'static str,
    pub(crate) pattern: &'static str,
    pub(crate) check: Check,
    /// Matches can span lines, so the row runs over the whole text, not line by line.
    pub(crate) multiline: bool,
}

pub(super) const fn k(name: &'static str, pattern: &'static str) -> Kind {
    Kind {
        name,
        pattern,
        check: Check::Shape,
        multiline: false,
    }
}

pub(super) const fn v(name: &'static str, pattern: &'static str) -> Kind {
    Kind {
        name,
        pattern,
        check: Check::Value,
        multiline: false,
    }
}

pub(super) const fn p(name: &'static str, pattern: &'static str) -> Kind {
    Kind {
        name,
        pattern,
        check: Check::Password,
        multiline: false,
    }
}

/// A row whose matches span lines.
const fn block(name: &'static str, pattern: &'static str) -> Kind {
    Kind {
        name,
        pattern,
        check: Check::Shape,
        multiline: true,
    }
}

/// Private keys first: they span lines, and their bodies would otherwise feed other rows.
const KEYS: &[Kind] = &[
    block(
        "OPENSSHPRIVATEKEY",
        r"-----BEGIN OPENSSH PRIVATE KEY-----(?:\s|\\[rn])*(?:[A-Za-z0-9+/=]|\s|\\[rn])*[A-Za-z0-9+/=]{16}(?:[A-Za-z0-9+/=]|\s|\\[rn])*(?:-----END OPENSSH PRIVATE KEY-----)?",
    ),
    block(
        "PGPPRIVATEKEY",
        r"-----BEGIN PGP PRIVATE KEY BLOCK-----(?:\s|\\[rn])*(?:[A-Za-z-]+: [^\r\n\\]*(?:\r?\n|\\n))*(?:[A-Za-z0-9+/=]|\s|\\[rn])*[A-Za-z0-9+/=]{16}(?:[A-Za-z0-9+/=]|\s|\\[rn])*(?:-----END PGP PRIVATE KEY BLOCK-----)?",
    ),
    // RSA, EC, DSA, ENCRYPTED, PKCS#8 and any other `... PRIVATE KEY`; the body may be cut
    // short (a page or a window ended inside it), so the END line is optional.
    block(
        "PRIVATEKEY",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:\s|\\[rn])*(?:[A-Za-z-]+: [^\r\n\\]*(?:\r?\n|\\n))*(?:[A-Za-z0-9+/=]|\s|\\[rn])*[A-Za-z0-9+/=]{16}(?:[A-Za-z0-9+/=]|\s|\\[rn])*(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?",
    ),
    // The tail of a key whose BEGIN line was cut off.
    block(
        "PRIVATEKEY",
        r"(?:[A-Za-z0-9+/=]{16,}(?:\r?\n|\\n)[ \t]*)+-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    block(
        "PUTTYPRIVATEKEY",
        r"PuTTY-User-Key-File-[0-9]: [\s\S]*?Private-MAC: [0-9a-f]{40,64}",
    ),
    block(
        "PUTTYPRIVATEKEY",
        r"Private-Lines: [0-9]+\r?\n(?P<s>(?:[A-Za-z0-9+/=]{8,}\r?\n?)+)",
    ),
    k(
        "AGESECRETKEY",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    ),
    k(
        "GCPPRIVATEKEYID",
        r#""private_key_id"\s*:\s*"(?P<s>[a-f0-9]{40})""#,
    ),
    k(
        "KUBECONFIGKEYDATA",
        r"(?i:client-key-data|token-data)[\x22']?\s*:\s*[\x22']?(?P<s>[A-Za-z0-9+/=]{40,})",
    ),
];

/// Keys that name a password: their values may be words, so [`Check::Password`] applies.
macro_rules! password_key {
    () => {
        r"(?:pass(?:word|wd|phrase)?|pwd)"
    };
}

/// Keys that name any other secret; [`Check::Value`] asks the value to look random.
macro_rules! secret_key {
    () => {
        r"(?:secret(?:[_.-]?key)?(?:[_.-]?base)?|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|client[_.-]?secret|auth(?:[_.-]?key)?|credentials?|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key)"
    };
}

/// A quoted value assigned to a key ending in one of the keywords, in any language or format.
macro_rules! quoted {
    ($key:expr) => {
        concat!(
            r"(?i:[A-Za-z0-9_.-]*",
            $key,
            r")[\x22'\x60]?[ \t]*(?::=|=>|=|:)[ \t]*[rbuf]?[\x22'\x60](?P<s>[^\x22'\x60\s]{8,256})[\x22'\x60]"
        )
    };
}

/// An unquoted value on a line of its own (`.env`, YAML, INI, properties, shell `export`,
/// Dockerfile `ENV`): the value must run to the end of the line (or a comment), so code such
/// as `token = next_token(input)` is not a candidate.
macro_rules! unquoted {
    ($key:expr) => {
        concat!(
            r"(?m)^[ \t]*(?:export[ \t]+|ENV[ \t]+|ARG[ \t]+|set[ \t]+|-[ \t]+)?[\x22']?(?i:[A-Za-z0-9_.-]*",
            $key,
            r")[\x22']?[ \t]*(?::=|=|:)[ \t]*(?P<s>[^\s\x22'\x60;,(){}<>\[\]]{8,256});?(?:[ \t]+[#;][^\n]*)?[ \t]*\r?$"
        )
    };
}

/// Structures that carry a credential: tokens, URLs, headers, connection strings, flags.
const STRUCTURES: &[Kind] = &[
    k(
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    p(
        "DATABASEURL",
        r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?|bolt|nats|mqtts?|kafka|cassandra|oracle|snowflake|memcached|jdbc:[a-z0-9]+)://[^\s:/@\x22'<>]*:(?P<s>[^\s@/\x22'<>]{1,128})@[A-Za-z0-9_.-]+",
    ),
    p(
        "BASICAUTHURL",
        r"(?i)\b(?:https?|ftps?|sftp|ssh|git|smtps?|imaps?|pop3s?|ldaps?|wss?|svn|socks5h?)://[^\s:/@\x22'<>]{1,64}:(?P<s>[^\s@/\x22'<>]{3,128})@[A-Za-z0-9_.-]+",
    ),
    p(
        "JDBCPASSWORD",
        r"(?i)\bjdbc:[a-z0-9:]+[^\s\x22']*?[;?&]password=(?P<s>[^;&\s\x22']+)",
    ),
    p(
        "CONNECTIONSTRINGPASSWORD",
        r"(?i)\b(?:server|data source|host|address|addr|network address|user id|uid|user|username|database|initial catalog|driver|endpoint|accountendpoint)\s*=[^;\x22'\n]*;(?:[^;\x22'\n]*;)*?\s*(?:password|pwd)\s*=\s*(?P<s>\{[^}\n]*\}|[^;\x22'\n]+)",
    ),
    k(
        "BASICAUTHHEADER",
        r"(?i)\bauthorization[\x22']?\s*[:=]\s*[\x22']?basic\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})",
    ),
    v(
        "BEARERTOKEN",
        r"(?i)\b(?:authorization[\x22']?\s*[:=]\s*[\x22']?(?:bearer|token|bot)|bearer)\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
    ),
    v(
        "APIKEYHEADER",
        r"(?i)\b(?:x-api-key|x-auth-token|x-access-token|x-apikey|private-token|x-gitlab-token|x-vault-token)[\x22']?\s*[:=]\s*[\x22']?(?P<s>[A-Za-z0-9._~+/=-]{16,})",
    ),
    p(
        "CURLUSERPASSWORD",
        r"(?:\s-u|--user)[ \t]+[\x22']?[^\s:\x22']+:(?P<s>[^\s@\x22']{4,})",
    ),
    v(
        "CLISECRETFLAG",
        r"(?i)(?:^|\s)--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)(?:=|[ \t]+)[\x22']?(?P<s>[^\s\x22'\x60]{8,})",
    ),
    v(
        "URLQUERYSECRET",
        r"(?i)[?&](?:password|passwd|pwd|api_?key|apikey|access_token|auth_token|token|secret|client_secret|private_token)=(?P<s>[^&\s\x22'#<>]{16,})",
    ),
    v(
        "XMLSECRET",
        r"(?i)<(?:[a-z]+:)?(?:[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret))>(?P<s>[^<\s]{8,256})</",
    ),
    v(
        "APPSETTINGSECRET",
        r#"(?i)<add\s+key\s*=\s*"[^"]*(?:password|secret|token|apikey|api[_.-]key)[^"]*"\s+value\s*=\s*"(?P<s>[^"\s]{8,})""#,
    ),
    v(
        "SETTERSECRET",
        r"\b(?:set|with)(?:Password|Passwd|Secret|ClientSecret|Token|AccessToken|ApiKey|AuthToken)\(\s*[\x22'](?P<s>[^\x22'\s]{8,256})[\x22']",
    ),
];

/// Keyword-anchored assignments, last: everything specific has had its turn.
const GENERIC: &[Kind] = &[
    p("GENERICPASSWORD", quoted!(password_key!())),
    v("GENERICSECRET", quoted!(secret_key!())),
    p("GENERICPASSWORD", unquoted!(password_key!())),
    v("GENERICSECRET", unquoted!(secret_key!())),
];

use super::vendors::{AI, CLOUD, DEV, SAAS, SERVICES};

/// Every row, in the order the engine applies them.
pub(crate) fn all() -> impl Iterator<Item = &'static Kind> {
    [KEYS, CLOUD, DEV, SERVICES, AI, SAAS, STRUCTURES, GENERIC]
        .into_iter()
        .flatten()
}
