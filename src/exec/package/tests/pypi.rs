//! PyPI through the fake registry, and character pagination of whole results.

use super::*;

#[tokio::test]
async fn pypi_lookup_finds_the_github_repository() {
    let (ctx, _log, _d) = setup("/npm").await;
    let o = run(
        &ctx,
        &query(json!({"name": "requests", "ecosystem": "python"})),
    )
    .await
    .unwrap();
    check(&o);
    let p = &o.data["packages"][0];
    assert_eq!(p["name"], "requests");
    assert_eq!(p["version"], "2.32.3");
    assert_eq!(p["description"], "Python HTTP for Humans.");
    assert_eq!(p["repository"], "https://github.com/psf/requests");
    assert_eq!(
        (p["owner"].as_str(), p["repo"].as_str()),
        (Some("psf"), Some("requests"))
    );
    assert!(p.get("author").is_none());
    assert!(has_hint(&o, "Install: pip install requests"));
    assert!(has_hint(&o, "owner=\"psf\", repo=\"requests\""));

    let meta = run(&ctx, &query(json!({"name": "requests", "ecosystem": "python", "pythonFetchMetadata": true, "searchLimit": 4}))).await.unwrap();
    check(&meta);
    let p = &meta.data["packages"][0];
    assert_eq!(p["author"], "Kenneth Reitz");
    assert_eq!(p["requiresPython"], ">=3.8");
    assert_eq!(p["dependencies"], json!({"idna": "<4,>=2.5"}));
    assert_eq!(p["extras"]["socks"], json!(["PySocks!=1.5.7,>=1.5.6"]));
    assert_eq!(p["lastPublished"], "2024-05-29T15:37:47.000Z");
    assert!(
        p.get("keywords").is_none(),
        "an empty keyword string adds nothing"
    );
    assert!(has_hint(&meta, "no keyword search"));
}

#[tokio::test]
async fn pypi_tries_name_variations_and_reports_misses() {
    let (ctx, log, _d) = setup("/npm").await;
    let o = run(
        &ctx,
        &query(json!({"name": "Flask_SQLAlchemy", "ecosystem": "python"})),
    )
    .await
    .unwrap();
    check(&o);
    assert_eq!(o.data["packages"][0]["name"], "Flask-SQLAlchemy");
    assert_eq!(o.data["packages"][0]["license"], "BSD-3-Clause");
    assert_eq!(o.data["packages"][0]["description"], Value::Null);
    assert_eq!(o.data["packages"][0]["owner"], "pallets-eco");
    assert!(has_hint(&o, "Filed on PyPI as 'Flask-SQLAlchemy'"));
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "/py/pypi/Flask_SQLAlchemy/json",
            "/py/pypi/flask-sqlalchemy/json"
        ]
    );

    let none = run(
        &ctx,
        &query(json!({"name": "no-such-project", "ecosystem": "python"})),
    )
    .await
    .unwrap();
    check(&none);
    assert_eq!(none.status, Status::Empty);
    assert!(has_hint(&none, "tried no-such-project, no_such_project"));
    let words = run(
        &ctx,
        &query(json!({"name": "http client", "ecosystem": "python"})),
    )
    .await
    .unwrap();
    check(&words);
    assert_eq!(words.status, Status::Empty);
    assert!(has_hint(&words, "no keyword search"));
}

#[tokio::test]
async fn whole_results_paginate_by_characters_when_asked() {
    let (ctx, _log, _d) = setup("/npm").await;
    let full = run(
        &ctx,
        &query(json!({"name": "express", "ecosystem": "npm", "npmFetchMetadata": true})),
    )
    .await
    .unwrap();
    let whole = serde_json::to_string_pretty(&full.data["packages"]).unwrap();
    let first = run(&ctx, &query(json!({"name": "express", "ecosystem": "npm", "npmFetchMetadata": true, "charLength": 100}))).await.unwrap();
    check(&first);
    assert_eq!(first.data["content"].as_str().unwrap(), &whole[..100]);
    assert_eq!(first.data["pagination"]["hasMore"], true);
    assert!(has_hint(&first, "charOffset=100"));
    let second = run(&ctx, &query(json!({"name": "express", "ecosystem": "npm", "npmFetchMetadata": true, "charOffset": 100, "charLength": 100}))).await.unwrap();
    assert_eq!(second.data["content"].as_str().unwrap(), &whole[100..200]);
    // A window that holds everything keeps the structured answer.
    let fits = run(
        &ctx,
        &query(json!({"name": "express", "ecosystem": "npm", "charLength": 50000})),
    )
    .await
    .unwrap();
    check(&fits);
    assert_eq!(fits.data["packages"][0]["name"], "express");
    assert!(fits.data.get("pagination").is_none());
}
