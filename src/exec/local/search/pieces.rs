//! Search lines that are pieces of a multi-line secret. A private key's body line, matched or
//! shown as context, is bare base64 that no pattern can tell from test data on its own. When
//! a file's kept lines include such a line, the whole file is redacted (as
//! localGetFileContent does; redaction keeps line numbers) and each such line is taken from
//! the redacted text.

use crate::exec::redact::redact;
use std::borrow::Cow;
use std::path::Path;

/// Replaces the kept lines (line number, text) of the file at `path` that lie inside one of
/// its multi-line secrets.
pub(super) fn redact_pieces<'a>(path: &Path, lines: impl Iterator<Item = (u64, &'a mut String)>) {
    let mut suspects: Vec<(u64, &mut String)> = lines.filter(|(_, v)| could_be_piece(v)).collect();
    if suspects.is_empty() {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        // Not readable as UTF-8 now: what cannot be checked is not shown.
        for (_, v) in suspects {
            *v = "[REDACTED-UNCHECKED]".to_string();
        }
        return;
    };
    let Cow::Owned(clean) = redact(&text) else {
        return;
    };
    let (before, after): (Vec<&str>, Vec<&str>) = (text.lines().collect(), clean.lines().collect());
    for (line, v) in suspects.iter_mut() {
        let n = usize::try_from(*line)
            .unwrap_or(usize::MAX)
            .saturating_sub(1);
        if let (Some(was), Some(now)) = (before.get(n), after.get(n)) {
            if was != now {
                **v = now.trim_end().to_string();
            }
        }
    }
}

/// A line that is only base64 (a key body line), possibly cut with `…`.
fn could_be_piece(value: &str) -> bool {
    let v = value.trim().trim_matches('…');
    v.len() >= 16
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_body_line_found_alone_is_redacted_from_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let body = "MIIEowIBAAKCAQEAx7fQ2bW9c3T1kPqz8vYhJ4nLm0sRtUe2aBcDdEfGhIjKlMnO";
        let key = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\nQ2bW9c3T1kPqz8vYhJ4n==\n-----END RSA PRIVATE KEY-----\n");
        let path = dir.path().join("key.pem");
        std::fs::write(&path, format!("# deploy key\n{key}")).unwrap();
        let (mut comment, mut line) = ("# deploy key".to_string(), body.to_string());
        redact_pieces(&path, [(1, &mut comment), (3, &mut line)].into_iter());
        assert_eq!(comment, "# deploy key");
        assert_eq!(line, "[REDACTED-PRIVATEKEY]");
    }

    #[test]
    fn base64_test_data_stays() {
        let dir = tempfile::tempdir().unwrap();
        let data = "SGVsbG8gd29ybGQsIHRoaXMgaXMgdGVzdCBkYXRh";
        let path = dir.path().join("data.txt");
        std::fs::write(&path, format!("{data}\n")).unwrap();
        let mut line = data.to_string();
        redact_pieces(&path, [(1, &mut line)].into_iter());
        assert_eq!(line, data);
    }
}
