//! npm through the fake registry: exact lookups, metadata, search, misses, failures.

use super::*;
use crate::exec::ToolErrorCode;

#[tokio::test]
async fn npm_exact_lookup_reads_only_the_latest_manifest() {
    let (ctx, log, _d) = setup("/npm").await;
    let o = run(&ctx, &query(json!({"name": "express", "ecosystem": "npm"})))
        .await
        .unwrap();
    check(&o);
    assert_eq!(o.status, Status::HasResults);
    let p = &o.data["packages"][0];
    assert_eq!(p["name"], "express");
    assert_eq!(p["version"], "5.1.0");
    assert_eq!(p["repoUrl"], "expressjs/express");
    assert_eq!(p["license"], "MIT");
    assert_eq!(p["mainEntry"], Value::Null);
    assert!(p.get("dependencies").is_none() && p.get("author").is_none());
    assert_eq!(o.data["totalFound"], 1);
    assert!(has_hint(&o, "Install: npm install express"));
    assert!(has_hint(
        &o,
        "githubViewRepoStructure with owner=\"expressjs\", repo=\"express\""
    ));
    assert_eq!(*log.lock().unwrap(), vec!["/npm/express/latest"]);
}

#[tokio::test]
async fn npm_metadata_comes_from_the_full_document() {
    let (ctx, log, _d) = setup("/npm").await;
    let o = run(
        &ctx,
        &query(json!({"name": "express", "ecosystem": "npm", "npmFetchMetadata": true})),
    )
    .await
    .unwrap();
    check(&o);
    let p = &o.data["packages"][0];
    assert_eq!(p["author"], "TJ Holowaychuk <tj@example.test>");
    assert_eq!(p["engines"], json!({"node": ">= 18"}));
    assert_eq!(p["dependencies"]["accepts"], "^2.0.0");
    assert_eq!(p["keywords"], json!(["express", "framework", "web"]));
    assert_eq!(p["homepage"], "https://expressjs.test/");
    assert_eq!(p["lastPublished"], "2025-03-31T14:00:00.000Z");
    assert_eq!(*log.lock().unwrap(), vec!["/npm/express"]);
}

#[tokio::test]
async fn scoped_names_fall_back_to_the_document_and_report_monorepo_path_and_deprecation() {
    let (ctx, log, _d) = setup("/npm").await;
    let o = run(
        &ctx,
        &query(json!({"name": "@acme/widget", "ecosystem": "npm"})),
    )
    .await
    .unwrap();
    check(&o);
    let p = &o.data["packages"][0];
    assert_eq!(p["repoUrl"], "acme/mono");
    assert_eq!(p["path"], "packages/widget");
    assert_eq!(p["typeDefinitions"], "./index.d.ts");
    assert_eq!(p["deprecated"], "moved to @acme/widgets");
    assert!(hints(&o)[0].starts_with("DEPRECATED: @acme/widget@2.0.0"));
    assert!(has_hint(&o, "path=\"packages/widget\""));
    assert_eq!(
        *log.lock().unwrap(),
        vec!["/npm/@acme%2Fwidget/latest", "/npm/@acme%2Fwidget"]
    );
}

#[tokio::test]
async fn npm_keyword_search_lists_candidates_with_their_repositories() {
    let (ctx, _log, _d) = setup("/npm").await;
    let o = run(
        &ctx,
        &query(json!({"name": "web framework", "ecosystem": "npm", "searchLimit": 3})),
    )
    .await
    .unwrap();
    check(&o);
    let names: Vec<&str> = o.data["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["express", "koa", "hapi-like"]);
    assert_eq!(o.data["packages"][1]["repoUrl"], "koajs/koa");
    assert_eq!(
        o.data["packages"][2]["repository"],
        "https://gitlab.com/h/hapi"
    );
    assert_eq!(o.data["totalFound"], 120);
    assert!(has_hint(&o, "top 3 of 120"));

    let meta = run(&ctx, &query(json!({"name": "web framework", "ecosystem": "npm", "searchLimit": 3, "npmFetchMetadata": true}))).await.unwrap();
    check(&meta);
    assert_eq!(
        meta.data["packages"][0]["engines"],
        json!({"node": ">= 18"}),
        "hits are replaced by their documents"
    );
    assert_eq!(
        meta.data["packages"][1]["name"], "koa",
        "a hit without a document keeps its search fields"
    );
    assert!(has_hint(&meta, "document of koa was not found"));
}

#[tokio::test]
async fn missing_npm_packages_are_empty_with_corrections() {
    let (ctx, log, _d) = setup("/npm").await;
    let o = run(&ctx, &query(json!({"name": "exprss", "ecosystem": "npm"})))
        .await
        .unwrap();
    check(&o);
    assert_eq!(o.status, Status::Empty);
    assert_eq!(o.data["totalFound"], 0);
    assert!(has_hint(&o, "Similar names on the registry: express"));
    assert!(has_hint(&o, "ecosystem=\"python\""));
    assert_eq!(
        log.lock().unwrap().len(),
        3,
        "latest, document, then a search for close names"
    );

    let none = run(
        &ctx,
        &query(json!({"name": "zzz nothing", "ecosystem": "npm", "searchLimit": 2})),
    )
    .await
    .unwrap();
    check(&none);
    assert_eq!(none.status, Status::Empty);
    assert!(has_hint(&none, "broader keywords"));
}

#[tokio::test]
async fn registry_failures_map_to_retry_and_circuit_decisions() {
    let (ctx, _log, _d) = setup("/npm").await;
    let err = |name: &'static str| {
        let ctx = &ctx;
        async move {
            run(ctx, &query(json!({"name": name, "ecosystem": "npm"})))
                .await
                .unwrap_err()
        }
    };
    let e = err("flaky").await;
    assert_eq!(
        (e.failure, e.code),
        (
            Failure::Upstream { transient: true },
            ToolErrorCode::RegistryError
        )
    );
    assert_eq!(e.details["status"], 502);
    let e = err("limited").await;
    assert_eq!(
        (e.failure, e.code),
        (
            Failure::Upstream { transient: true },
            ToolErrorCode::RateLimited
        )
    );
    assert_eq!(e.details["retryAfter"], 7);
    let e = err("private").await;
    assert_eq!(
        (e.failure, e.code),
        (
            Failure::Upstream { transient: false },
            ToolErrorCode::RegistryAccessDenied
        )
    );
    let e = err("garbled").await;
    assert_eq!(e.code, ToolErrorCode::InvalidRegistryResponse);
    let e = run(
        &ctx,
        &query(json!({"name": "broken", "ecosystem": "python"})),
    )
    .await
    .unwrap_err();
    assert!(e.failure.is_transient());
}

#[tokio::test]
async fn unreachable_registries_and_missing_search_are_errors() {
    let (ctx, _log, _d) = setup("/bare").await;
    let e = run(
        &ctx,
        &query(json!({"name": "web framework", "ecosystem": "npm", "searchLimit": 5})),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.failure, e.code),
        (
            Failure::Upstream { transient: false },
            ToolErrorCode::SearchUnsupported
        )
    );
    assert!(e.hints.iter().any(|h| h.contains("searchLimit=1")));
    let exact = run(
        &ctx,
        &query(json!({"name": "express", "ecosystem": "npm", "searchLimit": 5})),
    )
    .await
    .unwrap();
    check(&exact);
    assert!(
        hints(&exact)[0].contains("no keyword search"),
        "{:?}",
        hints(&exact)
    );
    assert_eq!(exact.data["packages"][0]["version"], "5.1.0");

    // A port nothing listens on: bind one, then drop the listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.npm_registry = Some(format!("http://127.0.0.1:{port}"));
    let ctx = Context::new(config);
    let e = run(&ctx, &query(json!({"name": "express", "ecosystem": "npm"})))
        .await
        .unwrap_err();
    assert_eq!(
        (e.failure, e.code),
        (
            Failure::Upstream { transient: true },
            ToolErrorCode::RegistryUnreachable
        )
    );
    assert!(
        e.message.contains("the npm_registry setting"),
        "{}",
        e.message
    );
}
