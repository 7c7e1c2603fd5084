//! The served OpenAPI document, fuzzed: schemathesis (installed by `scripts/fetch-schemathesis`,
//! which `make test` runs) generates requests from `/openapi.json`, valid and invalid, sends
//! them to the real server and checks every answer: no 5xx, a documented status, content type
//! and headers, a body matching the documented schema, invalid data refused. Requests the
//! document allows but the server refuses on catalog grounds (an unknown tool id, min above
//! max) are not failures here: JSON Schema cannot state those rules.

use crate::common::shipped_catalog;
use crate::server::Server;
use std::path::Path;
use std::process::Command;

#[test]
fn schemathesis_finds_no_failure_in_the_served_document() {
    let st = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/schemathesis/bin/st");
    assert!(
        st.is_file(),
        "{} is missing: run scripts/fetch-schemathesis (make test does)",
        st.display()
    );
    // With the model: without it, semantic search answers 503 (documented, but a 5xx, which
    // schemathesis counts as a server error).
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    // Hypothesis keeps its example database in the working directory: a scratch one.
    let scratch = tempfile::tempdir().unwrap();
    let out = Command::new("timeout")
        .arg("600")
        .arg(&st)
        .args(["run", &server.url("/openapi.json")])
        .args([
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
        ])
        // A fixed seed and example count: the same requests every run, ~1,200 of them. One
        // worker: with two threads, schemathesis 4.32.5 on CPython 3.11 itself failed now and
        // then on a loaded machine (a SystemError in `ast` while generating, not a finding).
        .args(["--seed", "1", "--max-examples", "25", "--workers", "1"])
        // On a loaded CI machine, generation can be slow and a request wait: hypothesis'
        // "too slow" health check and a tight timeout would fail the run for the machine's sake.
        .args(["--suppress-health-check", "all", "--request-timeout", "30"])
        .args(["--warnings", "off"])
        .current_dir(scratch.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("schemathesis starts");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found failures (exit {:?}):\n{report}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("No issues found"), "{report}");
}
