//! Value checks for the keyword-anchored kinds: what a captured value must look like before
//! it is replaced. The regex found `password = ...` or `api_key: ...`; these functions keep
//! variable references, placeholders, identifiers, paths and plain words (which is what such
//! assignments hold in ordinary code) from being redacted.

use super::patterns::Check;

/// Whether `value`, captured by a row with `check`, is a secret.
pub(crate) fn passes(check: Check, value: &str) -> bool {
    match check {
        Check::Shape => !masked(value),
        Check::Password => password(value),
        Check::Value => random_looking(value),
    }
}

/// A vendor shape filled with `x` or `*` (`sk_test_xxxxxxxxxxxxxxxx`) is documentation.
fn masked(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    lower.contains("xxxxxxxx") || lower.contains("********")
}

/// A password: anything but a reference, a placeholder, an identifier or a lone plain word.
fn password(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '{' || c == '}');
    if v.is_empty() || is_reference(value) || is_placeholder(v) || is_code_like(v) {
        return false;
    }
    // `new_password`, `DB_PASSWORD`, `auth.password`, `newPassword`: names, not values.
    if has_separator(v, &['_', '.']) && wordy(v) || is_camel(v) || is_screaming(v) {
        return false;
    }
    // A single word of letters (`required`, `optional`) is a message, not a password.
    !v.chars().all(|c| c.is_ascii_alphabetic())
}

/// A token or key: long enough, not a name made of words, and mixing character classes.
fn random_looking(value: &str) -> bool {
    let v = value;
    if v.len() < 8 || is_reference(v) || is_placeholder(v) || is_code_like(v) {
        return false;
    }
    if wordy(v) || is_camel(v) || is_screaming(v) || is_path_or_url(v) {
        return false;
    }
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let alpha = v.bytes().any(|b| b.is_ascii_alphabetic());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let symbol = v.bytes().any(|b| b"+/=!@#%^&*~-_.".contains(&b));
    (digit && alpha) || (upper && lower && (symbol || v.len() >= 16))
}

/// `$X`, `${X}`, `$(cmd)`, `{{ x }}`, `%X%`, `<x>`, `process.env.X`, `os.environ[...]`, and
/// a value some earlier row already replaced.
fn is_reference(v: &str) -> bool {
    v.starts_with('$')
        || v.contains("${")
        || v.contains("$(")
        || v.contains("{{")
        || (v.starts_with('%') && v.ends_with('%'))
        || v.starts_with('<')
        || v.contains("process.env")
        || v.contains("os.environ")
        || v.contains("getenv")
        || v.contains("ENV[")
        || v.contains("[REDACTED")
}

/// Documentation and template values: `your-api-key-here`, `xxxxxxxx`, `changeme`.
fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    const WORDS: [&str; 14] = [
        "your",
        "xxxx",
        "****",
        "....",
        "changeme",
        "change_me",
        "change-me",
        "placeholder",
        "example",
        "redacted",
        "dummy",
        "replace",
        "insert",
        "<",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    let first = v.chars().next().unwrap_or(' ');
    v.chars().all(|c| c == first)
        || [
            "password",
            "passwd",
            "secret",
            "undefined",
            "null",
            "true",
            "false",
            "none",
        ]
        .contains(&lower.as_str())
}

/// Regex and template fragments (`[A-Za-z0-9]{32}`, `\d+`, `(?i)`) are not credentials.
fn is_code_like(v: &str) -> bool {
    v.contains('\\')
        || v.contains("()")
        || v.contains("](")
        || v.contains("]{")
        || v.contains("(?")
        || v.contains("::")
        || v.starts_with(':')
}

fn is_path_or_url(v: &str) -> bool {
    v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with("~/")
        || v.contains("://")
}

fn has_separator(v: &str, seps: &[char]) -> bool {
    v.contains(|c| seps.contains(&c))
}

/// Made of words: every `_`/`-`/`.`/`:`/`/`/`#` separated part is letters, optionally ending
/// in up to three digits (`v2`, `sha256`), or a short number. `user_input2`, `token-v2`,
/// `hunter22`, `owner256/home#assets/credentials` (a path to credentials, not one).
fn wordy(v: &str) -> bool {
    v.split(['_', '-', '.', ':', '/', '#']).all(|part| {
        let letters = part.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = part.len() - letters.len();
        let word = letters.chars().all(|c| c.is_ascii_alphabetic())
            && (letters.chars().skip(1).all(|c| c.is_ascii_lowercase())
                || letters.chars().all(|c| c.is_ascii_uppercase()));
        let number = letters.is_empty() && digits <= 4;
        word && digits <= 3 && !letters.is_empty() || number || part.is_empty()
    })
}

/// `newPassword`, `ApiKeyHeader`: words joined in camel case, at most two digits at the end.
fn is_camel(v: &str) -> bool {
    let body = v.trim_end_matches(|c: char| c.is_ascii_digit());
    if v.len() - body.len() > 2 || body.is_empty() || !body.chars().all(|c| c.is_ascii_alphabetic())
    {
        return false;
    }
    // Each upper-case letter after the first starts a word of at least two lower-case letters.
    let (mut run, mut humps) = (usize::MAX, 0);
    for c in body.chars().skip(1) {
        if c.is_ascii_uppercase() {
            if run < 2 {
                return false;
            }
            (run, humps) = (0, humps + 1);
        } else {
            run = run.saturating_add(1);
        }
    }
    humps > 0 && run >= 2
}

/// `DB_PASSWORD`, `OPENAI_API_KEY`: environment variable names.
fn is_screaming(v: &str) -> bool {
    v.contains('_')
        && v.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_told_from_names_and_placeholders() {
        for yes in [
            "hunter22",
            "correct-horse-battery",
            "s3cr3t!Pass",
            "P@ss word",
            "{Tr1cky;}",
        ] {
            assert!(password(yes), "{yes}");
        }
        for no in [
            "password",
            "new_password",
            "DB_PASSWORD",
            "auth.password",
            "newPassword",
            "${DB_PASS}",
            "<password>",
            "your-password-here",
            "required",
            "xxxxxxxx",
        ] {
            assert!(!password(no), "{no}");
        }
    }

    #[test]
    fn tokens_must_look_random() {
        for yes in [
            "a8f7e6d5c4b3a291",
            "prod_a8f7e6d5c4b3a291",
            "Zm9vYmFyYmF6cXV4",
            "tok-3kd9Fj2mQp",
        ] {
            assert!(random_looking(yes), "{yes}");
        }
        for no in [
            "user_input2",
            "test_key_1234",
            "OPENAI_API_KEY",
            "accessTokenValue",
            "process.env.API_KEY",
            "/etc/secret/path",
            "[A-Za-z0-9]{32}",
            "undefined",
            "sha256_digest",
            "your-api-key-here",
        ] {
            assert!(!random_looking(no), "{no}");
        }
    }
}
