//! Fuzzing of the doors' request parsing, in process: arbitrary JSON bodies on every POST
//! route, arbitrary query strings and path segments on the GET routes that read them, and
//! bodies nested 100,000 deep (the JSON parser's depth limit must refuse them on the
//! server's own stack) or just under the limit (parsed, then walked by the schema checks).
//! Every answer must be a 2xx, or a 4xx carrying the JSON error envelope; a 5xx or a panic
//! fails. The MCP door gets the same: arbitrary arguments to each meta-tool, and malformed
//! lines on its stdio transport, after which the session must still answer.

use crate::in_process::router;
use axum::http::Method;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};

/// Room for 100k-deep bodies (200 KB), so the parser and not the size limit refuses them.
const BODY_LIMIT: usize = 4 << 20;

const POST_ROUTES: &[&str] = &[
    "/search",
    "/recommend",
    "/compare",
    "/catalog/validate",
    "/tools/call/localSearchCode",
    "/tools/call/noSuchTool",
];

/// `default` cases, or as many as `PROPTEST_CASES` asks for (a longer run than `make test`
/// affords).
pub(crate) fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    Config::with_cases(cases)
}

/// The status and the body (JSON, or `Null`) of one JSON request.
async fn send(router: &axum::Router, method: Method, path: &str, body: String) -> (u16, Value) {
    crate::in_process::send(router.clone(), method, path, &body, "application/json").await
}

/// A 2xx, or a 4xx with the error envelope (or, for a tool call, octocode's failed result).
fn acceptable(status: u16, body: &Value) -> bool {
    let envelope = body["error"]["error_code"].is_string();
    let failed_call = body["success"] == false && body["data"]["results"].is_array();
    (200..300).contains(&status) || ((400..500).contains(&status) && (envelope || failed_call))
}

/// `depth` arrays nested, as text (never a `Value`: the point is that none gets built).
fn nested(depth: usize, objects: bool) -> String {
    let (open, close) = if objects {
        ("{\"a\":", "}")
    } else {
        ("[", "]")
    };
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

#[tokio::test]
async fn deep_bodies_are_refused_by_the_parser_on_every_post_route() {
    let router = router(BODY_LIMIT);
    for route in POST_ROUTES {
        for objects in [false, true] {
            let (status, body) = send(&router, Method::POST, route, nested(100_000, objects)).await;
            let message = body["error"]["message"].as_str().unwrap_or("");
            assert_eq!(status, 400, "{route}: {body}");
            assert!(message.contains("recursion limit"), "{route}: {message}");
            // Just under the limit: parsed, then refused or answered by the route itself.
            let (status, body) = send(&router, Method::POST, route, nested(120, objects)).await;
            assert!(
                acceptable(status, &body),
                "{route} at depth 120: {status} {body}"
            );
        }
    }
    let (status, _) = send(&router, Method::GET, "/health", String::new()).await;
    assert_eq!(status, 200, "the server is still answering");
}

/// Arbitrary JSON: scalars, strings with any characters, arrays and objects a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(1e308)),
        "\\PC{0,12}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec(("\\PC{0,8}", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Every byte but the unreserved ones percent-encoded.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn arbitrary_bodies_and_queries_get_an_answer_or_an_envelope() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let router = router(BODY_LIMIT);
    let mut runner = TestRunner::new(cases(128));
    let names = prop_oneof![
        Just("q".to_string()),
        Just("k".to_string()),
        Just("page".to_string()),
        Just("per_page".to_string()),
        Just("category".to_string()),
        Just("task".to_string()),
        "\\PC{0,6}",
    ];
    let pairs = proptest::collection::vec((names, any::<String>()), 0..5);
    let cases = (0..POST_ROUTES.len(), json_value(), pairs, "\\PC{1,20}");
    let outcome = runner.run(&cases, |(route, body, pairs, segment)| {
        runtime.block_on(async {
            let route = POST_ROUTES[route];
            let (status, answer) = send(&router, Method::POST, route, body.to_string()).await;
            prop_assert!(
                acceptable(status, &answer),
                "{route} {body}: {status} {answer}"
            );
            let query: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect();
            let query = query.join("&");
            let segment = encode(&segment);
            for path in [
                format!("/search?{query}"),
                format!("/catalog/tools?{query}"),
                format!("/prompts/info/find-tool?{query}"),
                format!("/prompts/info/{segment}"),
                format!("/tools/info/{segment}"),
                format!("/catalog/tools/{segment}"),
            ] {
                let (status, answer) = send(&router, Method::GET, &path, String::new()).await;
                prop_assert!(acceptable(status, &answer), "{path}: {status} {answer}");
            }
            Ok(())
        })
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
