//! The MCP conformance suite (`@modelcontextprotocol/conformance`, installed by
//! `scripts/fetch-mcp-conformance`, which `make test` runs) against `/mcp` of a real
//! `toolscout serve`. Most of the suite's server scenarios call fixture tools, prompts and
//! resources its reference server defines (`test_simple_text`, `test://static-text`, ...):
//! those do not apply to toolscout, whose tools are its catalog's. Every scenario the suite
//! lists is classified below, applicable or not (with the reason), and a test fails when the
//! suite lists one that is neither, so a new suite version is looked at, not silently skipped.

use crate::common::{shipped_catalog, strip_ansi};
use crate::server::Server;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The scenarios that exercise the protocol and transport rather than the suite's fixtures.
/// `server-sse-polling` calls a fixture tool `test_reconnection` too, but what it checks of
/// every server (a priming event with an id and empty data first on a POST SSE stream, a
/// `retry` field) applies; its disconnect-and-resume step needs that tool and ends in a
/// warning, which is not a failure.
const APPLICABLE: &[&str] = &[
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "prompts-list",
    "resources-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "server-sse-polling",
];

/// The scenarios that need what only the suite's reference server has, with why. Most call
/// a fixture tool, prompt or resource by name. `json-schema-2020-12` checks that the listing
/// keeps `$schema`, `$defs` and `additionalProperties` of the fixture tool
/// `json_schema_2020_12_tool`; toolscout lists only its meta-tools (and, with
/// `--expose-tools`, its executable tools, each schema under `queries`), so no tool of it can
/// have that name and schema. `tests/mcp_python` checks the same preservation on
/// `search_tools`, whose input schema is a 2020-12 one.
#[rustfmt::skip] // one scenario a line: a table reads better than rustfmt's layout
const INAPPLICABLE: &[(&str, &str)] = &[
    ("completion-complete", "no completions capability (and the prompt is a fixture)"),
    ("tools-call-simple-text", "fixture tool test_simple_text"),
    ("tools-call-image", "fixture tool test_image_content"),
    ("tools-call-audio", "fixture tool test_audio_content"),
    ("tools-call-embedded-resource", "fixture tool test_embedded_resource"),
    ("tools-call-mixed-content", "fixture tool test_multiple_content_types"),
    ("tools-call-with-logging", "fixture tool test_tool_with_logging"),
    ("tools-call-error", "fixture tool test_error_handling"),
    ("tools-call-with-progress", "fixture tool test_tool_with_progress"),
    ("tools-call-sampling", "fixture tool test_sampling; toolscout never samples"),
    ("tools-call-elicitation", "fixture tool test_elicitation; toolscout never elicits"),
    ("elicitation-sep1034-defaults", "fixture tool; toolscout never elicits"),
    ("elicitation-sep1330-enums", "fixture tool; toolscout never elicits"),
    ("json-schema-2020-12", "a tool named exactly json_schema_2020_12_tool; upstream tools are listed as <source>.<tool> (gateway.rs checks the keywords survive)"),
    ("resources-read-text", "fixture resource test://static-text"),
    ("resources-read-binary", "fixture resource test://static-binary"),
    ("resources-templates-read", "fixture template test://template/{id}/data"),
    ("resources-subscribe", "no subscriptions: the catalog is fixed while serving"),
    ("resources-unsubscribe", "no subscriptions: the catalog is fixed while serving"),
    ("prompts-get-simple", "fixture prompt test_simple_prompt"),
    ("prompts-get-with-args", "fixture prompt test_prompt_with_arguments"),
    ("prompts-get-embedded-resource", "fixture prompt test_prompt_with_embedded_resource"),
    ("prompts-get-with-image", "fixture prompt test_prompt_with_image"),
];

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/mcp-conformance/run")
}

/// Runs the suite's CLI with `args`; its output without colours (it colours it even when
/// NO_COLOR asks it not to).
fn run_suite(args: &[&str]) -> (Output, String) {
    assert!(
        suite().is_file(),
        "{} is missing: run scripts/fetch-mcp-conformance (make test does)",
        suite().display()
    );
    // `timeout`: a scenario waiting on a stream that never ends fails instead of hanging.
    let out = Command::new("timeout")
        .arg("120")
        .arg(suite())
        .args(args)
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0")
        .output()
        .expect("timeout starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, strip_ansi(&text))
}

/// Runs one scenario against `url`, failing with the suite's output (which names the failed
/// check and what the server answered).
fn assert_scenario_passes(url: &str, scenario: &str) {
    let (out, report) = run_suite(&["server", "--url", url, "--scenario", scenario]);
    assert!(
        out.status.success() && report.contains(", 0 failed,"),
        "conformance scenario {scenario} failed against {url} ({}):\n{report}",
        out.status
    );
}

#[test]
fn every_applicable_conformance_scenario_passes() {
    let server = Server::start(&shipped_catalog(), &[]);
    let url = server.url("/mcp");
    for scenario in APPLICABLE {
        assert_scenario_passes(&url, scenario);
    }
    // `--expose-tools` changes what tools/list shows: every executable tool, too.
    let exposed = Server::start(&shipped_catalog(), &["--expose-tools"]);
    assert_scenario_passes(&exposed.url("/mcp"), "tools-list");
}

#[test]
fn every_server_scenario_of_the_suite_is_classified() {
    let (out, listing) = run_suite(&["list", "--server"]);
    assert!(out.status.success(), "{listing}");
    // Lines `  - NAME [VERSIONS]` under the heading of the server scenarios.
    let listed: BTreeSet<&str> = listing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let applicable: BTreeSet<&str> = APPLICABLE.iter().copied().collect();
    let inapplicable: BTreeSet<&str> = INAPPLICABLE.iter().map(|(name, _)| *name).collect();
    assert!(
        applicable.is_disjoint(&inapplicable),
        "classified twice: {:?}",
        applicable.intersection(&inapplicable).collect::<Vec<_>>()
    );
    let classified: BTreeSet<&str> = applicable.union(&inapplicable).copied().collect();
    assert_eq!(
        listed, classified,
        "the suite's server scenarios differ from APPLICABLE + INAPPLICABLE: classify the \
         new ones, drop the gone ones\n{listing}"
    );
}
