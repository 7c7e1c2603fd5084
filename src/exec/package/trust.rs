//! The certificate authorities npm or pip is configured to trust (npm's `cafile`, pip's
//! `cert`). A registry behind a TLS-inspecting proxy or signed by a private CA is reached by
//! npm and pip only because of that setting, so the registry resolved from their
//! configuration is reached with the same trust: a client with those CAs added to the
//! built-in roots. Consulted only when the registry itself came from npm or pip.

use std::time::Duration;

/// The same limits as the shared client (see `exec::Context`).
const TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A client that also trusts every certificate in the PEM bundle at `path`.
pub(crate) async fn client_trusting(path: &str) -> Result<reqwest::Client, String> {
    let pem = tokio::fs::read(path)
        .await
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| format!("{path} is not a PEM bundle: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{path} holds no PEM certificates"));
    }
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("toolscout/", env!("CARGO_PKG_VERSION")))
        .timeout(TIMEOUT)
        .connect_timeout(CONNECT_TIMEOUT);
    for cert in certs {
        builder = builder.add_root_certificate(cert);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build a client trusting {path}: {e}"))
}

/// A CA file setting as npm prints it: a path, or `null`/`undefined`/nothing when unset.
pub(crate) fn configured_path(printed: &str) -> Option<String> {
    let p = printed.trim().trim_matches(|c| c == '\'' || c == '"');
    (!p.is_empty() && p != "null" && p != "undefined").then(|| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_settings_are_recognised() {
        assert_eq!(configured_path("null\n"), None);
        assert_eq!(configured_path("undefined"), None);
        assert_eq!(configured_path("  "), None);
        assert_eq!(
            configured_path("'certs/ca.pem'\n").as_deref(),
            Some("certs/ca.pem")
        );
    }

    #[tokio::test]
    async fn unusable_bundles_are_reported_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.pem");
        let e = client_trusting(missing.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(e.contains("cannot read"), "{e}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = client_trusting(empty.to_str().unwrap()).await.unwrap_err();
        assert!(
            e.contains("no PEM certificates") || e.contains("not a PEM bundle"),
            "{e}"
        );
    }
}
