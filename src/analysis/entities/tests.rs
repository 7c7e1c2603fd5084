//! Tests of `entities`.

use super::*;

fn kinds(text: &str) -> Vec<(EntityKind, String)> {
    entities(text)
        .into_iter()
        .map(|e| (e.kind, text[e.span].to_string()))
        .collect()
}

#[test]
fn repositories_paths_and_files_are_told_apart() {
    let k = kinds("search issues in rust-lang/cargo about src/core/mod.rs and config.yaml");
    assert!(
        k.contains(&(EntityKind::Repository, "rust-lang/cargo".into())),
        "{k:?}"
    );
    assert!(
        k.contains(&(EntityKind::Path, "src/core/mod.rs".into())),
        "{k:?}"
    );
    assert!(
        k.contains(&(EntityKind::Path, "config.yaml".into())),
        "{k:?}"
    );
    let k = kinds("open the vercel/next.js repo");
    assert_eq!(k[0].0, EntityKind::Repository, "{k:?}");
    // A usual directory name as the owner, but possessive: a repository.
    let k = kinds("show the tree of helm/helm's pkg/ directory");
    assert_eq!(k[0], (EntityKind::Repository, "helm/helm".into()), "{k:?}");
    let k = kinds("show the tree of helm/charts");
    assert_eq!(k[0].0, EntityKind::Path, "{k:?}");
    // An organisation named like its project: "bug reports in helm/helm" had read as a file.
    let k = kinds("any bug reports in helm/helm mentioning 'OCI timeout'?");
    assert_eq!(k[0], (EntityKind::Repository, "helm/helm".into()), "{k:?}");
}

/// An extension no list knows is still one: "queries/tags.scm" had read as a repository,
/// which made a local tree-sitter run look like a request about a code host.
#[test]
fn a_slashed_name_with_any_extension_is_a_path() {
    for (text, value) in [
        ("run queries/tags.scm over src/", "queries/tags.scm"),
        ("check rules/auth.rego", "rules/auth.rego"),
    ] {
        let k = kinds(text);
        assert_eq!(k[0], (EntityKind::Path, value.into()), "{k:?}");
    }
    let k = kinds("run the pandoc/latex image with the current dir mounted");
    assert_eq!(k[0], (EntityKind::Image, "pandoc/latex".into()), "{k:?}");
    let k = kinds("clone tokio-rs/tokio at v1.2");
    assert_eq!(k[0].0, EntityKind::Repository, "{k:?}");
    assert!(is_extension_like("scm") && !is_extension_like("2") && !is_extension_like("Md"));
}

#[test]
fn times_fractions_and_dates_are_no_lines_or_repositories() {
    let k = kinds("remind me on March 16th at 2:30 PM");
    assert!(k.contains(&(EntityKind::Date, "2:30 PM".into())), "{k:?}");
    assert!(k.iter().all(|(kind, _)| *kind != EntityKind::Line), "{k:?}");
    for text in ["calculate 25*3+7/3", "due 10/12/2024", "a 16/9 screen"] {
        let k = kinds(text);
        assert!(
            k.iter()
                .all(|(kind, _)| !matches!(kind, EntityKind::Repository | EntityKind::Path)),
            "{text}: {k:?}"
        );
    }
    let k = kinds("open src/main.rs:42 and a+b/c");
    assert!(k.contains(&(EntityKind::Line, ":42".into())), "{k:?}");
    assert!(k.contains(&(EntityKind::Path, "a+b/c".into())), "{k:?}");
}

#[test]
fn numbers_urls_and_packages() {
    let k = kinds("review PR #1234 and issue #7 then fetch https://example.com/a?b=1");
    assert_eq!(k[0], (EntityKind::PullRequest, "PR #1234".into()));
    assert_eq!(k[1], (EntityKind::Issue, "issue #7".into()));
    assert_eq!(k[2].0, EntityKind::Url);
    let e = entities("what is the latest version of the npm package zod");
    assert_eq!(e[0].kind, EntityKind::Registry);
    assert_eq!(e[1].kind, EntityKind::Package);
    assert_eq!(e[1].ecosystem, Some("npm"));
    let k = kinds("which dependencies does the PyPI package 'docker' declare?");
    assert_eq!(
        k,
        vec![
            (EntityKind::Registry, "PyPI".into()),
            (EntityKind::Package, "docker".into())
        ]
    );
    let k = kinds("is there a library called left-pad, or an npm library for parsing cron?");
    assert_eq!(
        k,
        vec![
            (EntityKind::Package, "left-pad".into()),
            (EntityKind::Registry, "npm".into())
        ]
    );
    let k = kinds("see line 42 of main.rs and all YAML files");
    assert!(
        k.iter()
            .any(|(k, t)| *k == EntityKind::Line && t == "line 42"),
        "{k:?}"
    );
    assert!(
        k.iter()
            .any(|(k, t)| *k == EntityKind::FileType && t == "YAML files"),
        "{k:?}"
    );
}

#[test]
fn symbols_dates_and_sql() {
    let k = kinds("where is `parseConfig` called, and Foo::bar? SELECT id FROM users on March 3rd");
    assert!(
        k.iter()
            .any(|(k, t)| *k == EntityKind::Symbol && t == "parseConfig"),
        "{k:?}"
    );
    assert!(
        k.iter()
            .any(|(k, t)| *k == EntityKind::Symbol && t == "Foo::bar"),
        "{k:?}"
    );
    assert!(k.iter().any(|(k, _)| *k == EntityKind::Sql), "{k:?}");
    assert!(
        k.iter()
            .any(|(k, t)| *k == EntityKind::Date && t == "March 3rd"),
        "{k:?}"
    );
}

#[test]
fn plain_sentences_have_none() {
    assert!(entities("Find the weather forecast for tomorrow's trip").len() <= 1);
    assert!(entities("I need a tool that helps me plan meals").is_empty());
}

#[test]
fn a_placeholder_keeps_what_a_value_says_of_its_kind() {
    let placeholders = |text: &str| -> Vec<String> {
        entities(text)
            .iter()
            .map(|e| e.placeholder_in(text).into_owned())
            .collect()
    };
    assert_eq!(
        placeholders("copy s3://lake/exports/orders.parquet to ./data"),
        ["s3 url", "file"]
    );
    assert_eq!(placeholders("fetch https://example.com/a.json"), ["url"]);
    assert_eq!(
        placeholders("read .spec.replicas from k8s/deployment.yaml"),
        ["yaml file"]
    );
    assert_eq!(
        placeholders("top URLs in my places.sqlite history"),
        ["sqlite file"]
    );
    assert_eq!(
        placeholders("from branch feature/tagging, and tag v2.27.0"),
        ["branch", "tag"]
    );
    // Only a known extension says a format, and a language is none.
    assert_eq!(placeholders("open ./notes/todo.xyz"), ["file"]);
    assert_eq!(
        placeholders("change DEBUG in settings.py and src/app.ts"),
        ["file", "file"]
    );
}
