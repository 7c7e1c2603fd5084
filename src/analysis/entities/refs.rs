//! Entities that name versions of things: a git revision ("the release/2.x branch", "branch
//! feature/oauth-refresh", "tag v2.27.0", "commit 3f9c2ab") and a container image reference
//! ("nginx:1.27", "gcr.io/acme/api:2.3.0"). Both are values a tool takes (`branch`, `rev`,
//! `image`) and both read like topic words otherwise: "feature/oauth-refresh" is no request
//! about OAuth and "redis:7" none for a Redis client.
//!
//! They run before the path pass, which would read "release/2.x" as a path and
//! "feature/oauth-refresh" as `owner/repo`.

use super::{ends_value, EntityKind};
use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// Branch names that carry no digit or separator but are branches by convention.
const BRANCH_NAMES: &[&str] = &["main", "master", "develop", "trunk", "dev", "gh-pages"];

struct Patterns {
    /// "branch NAME", "tag NAME", "commit SHA".
    ref_after: Regex,
    /// "NAME branch".
    ref_before: Regex,
    /// `name:tag` with a tag that reads as a version, or any word after a name with a slash.
    image: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("ref pattern compiles");
        Patterns {
            ref_after: re(
                r"(?i)\b(?:branch|tag)\s+`?([A-Za-z0-9][\w.\-/]*\w)`?|\bcommit\s+`?([0-9a-f]{7,40})\b",
            ),
            ref_before: re(r"(?i)(?:^|[\s(`])`?([A-Za-z0-9][\w.\-/]*\w)`?\s+branch\b"),
            image: re(
                r"(?:^|[\s(`'\x22])((?:[a-z0-9][a-z0-9.-]*(?::\d+)?/)?(?:[a-z0-9][a-z0-9_-]*/)*[a-z0-9][a-z0-9_-]*):(latest|v?\d{1,3}(?:\.\d+){0,2}(?:-[a-z0-9][a-z0-9.]*)?|[a-z][a-z0-9_.-]{0,40})",
            ),
        }
    })
}

/// Whether a word names a branch or tag rather than being an ordinary word before or after
/// "branch" ("the default branch", "my feature branch", "no else branch"): it has a digit or
/// a separator, or it is one of the conventional branch names.
fn is_ref_name(name: &str) -> bool {
    name.chars()
        .any(|c| c.is_ascii_digit() || matches!(c, '/' | '-' | '_' | '.'))
        || BRANCH_NAMES.contains(&name.to_ascii_lowercase().as_str())
}

/// Revisions and images in `text`, as (kind, span) in no particular order. A revision's span
/// runs over the word that names it ("release/2.x branch"), so that a text leaving it out
/// does not say "branch" twice.
pub(super) fn refs(text: &str) -> Vec<(EntityKind, Range<usize>)> {
    let p = patterns();
    let mut out = Vec::new();
    for c in p.ref_after.captures_iter(text) {
        let whole = c.get(0).map_or(0..0, |m| m.range());
        match (c.get(1), c.get(2)) {
            (Some(name), _) if is_ref_name(name.as_str()) => {
                out.push((EntityKind::Revision, whole.start..name.end()))
            }
            (_, Some(sha)) if sha.as_str().chars().any(|c| c.is_ascii_digit()) => {
                out.push((EntityKind::Revision, whole.start..sha.end()))
            }
            _ => {}
        }
    }
    for c in p.ref_before.captures_iter(text) {
        let (Some(name), Some(whole)) = (c.get(1), c.get(0)) else {
            continue;
        };
        if is_ref_name(name.as_str()) {
            out.push((EntityKind::Revision, name.start()..whole.end()));
        }
    }
    for c in p.image.captures_iter(text) {
        let (Some(name), Some(tag)) = (c.get(1), c.get(2)) else {
            continue;
        };
        if ends_value(text, tag.end(), ")`'\",;!?")
            && is_image(text, name.as_str(), name.start(), tag.as_str())
        {
            out.push((EntityKind::Image, name.start()..tag.end()));
        }
    }
    out
}

/// Names of fields in `field:value` pairs ("id:3", "version:3.1.0"), which look like images.
const FIELD_WORDS: &[&str] = &[
    "id", "uid", "pid", "version", "ver", "v", "ip", "port", "page", "user", "key", "type", "size",
    "limit", "count", "status", "value", "level", "mode", "host", "name", "rate", "step", "line",
    "col", "row", "index", "time", "date", "day", "year", "score", "rating",
];

/// Whether `name:tag` is an image and not a host and port ("localhost:80", "db.internal:443"),
/// a field and its value ("id:3") or a key ("the key user:42"): a host has a dot or is
/// localhost, and a tag that is one plain number after the word "key" numbers a key.
fn is_image(text: &str, name: &str, start: usize, tag: &str) -> bool {
    if !name.chars().any(|c| c.is_ascii_alphabetic()) || FIELD_WORDS.contains(&name) {
        return false;
    }
    let first = name.split('/').next().unwrap_or(name);
    if !name.contains('/') && (first.contains('.') || first == "localhost") {
        return false;
    }
    // A word tag ("dev", "alpine") makes an image only of a name with a slash
    // (`acme/proxy:dev`): "note:draft" in prose is no image, and a repository is never
    // written with a tag.
    let versioned = tag == "latest"
        || tag
            .trim_start_matches('v')
            .starts_with(|c: char| c.is_ascii_digit());
    if !versioned && !name.contains('/') {
        return false;
    }
    let plain_number = tag.chars().all(|c| c.is_ascii_digit());
    let before = text[..start].trim_end().to_ascii_lowercase();
    let keyed = before.ends_with("key") || before.ends_with("keys");
    !(plain_number && keyed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(EntityKind, &str)> {
        let mut r: Vec<(EntityKind, &str)> =
            refs(text).into_iter().map(|(k, s)| (k, &text[s])).collect();
        r.sort();
        r
    }

    #[test]
    fn branches_tags_and_commits_are_revisions() {
        assert_eq!(
            found("does it appear on the release/2.x branch?"),
            vec![(EntityKind::Revision, "release/2.x branch")]
        );
        assert_eq!(
            found("the PR opened from my branch feature/oauth-refresh"),
            vec![(EntityKind::Revision, "branch feature/oauth-refresh")]
        );
        assert_eq!(
            found("get the Dockerfile at tag v2.27.0"),
            vec![(EntityKind::Revision, "tag v2.27.0")]
        );
        assert_eq!(
            found("blame it as of commit 3f9c2ab"),
            vec![(EntityKind::Revision, "commit 3f9c2ab")]
        );
        assert_eq!(
            found("clone it, main branch only"),
            vec![(EntityKind::Revision, "main branch")]
        );
    }

    #[test]
    fn ordinary_words_around_branch_are_no_revisions() {
        for text in [
            "if statements with no else branch",
            "switch to the default branch",
            "list the commits on my branch since it left main",
            "merge my feature branch",
            "commit the changes",
            "dashboards with the tag prod",
        ] {
            assert_eq!(found(text), vec![], "{text}");
        }
    }

    #[test]
    fn images_have_a_version_tag() {
        assert_eq!(
            found("run the nginx:1.27 image locally"),
            vec![(EntityKind::Image, "nginx:1.27")]
        );
        assert_eq!(
            found("spin up redis:7 locally on 6379"),
            vec![(EntityKind::Image, "redis:7")]
        );
        assert_eq!(
            found("deploy gcr.io/acme/api:2.3.0 to Cloud Run"),
            vec![(EntityKind::Image, "gcr.io/acme/api:2.3.0")]
        );
        assert_eq!(
            found("pull nginx:1.27 redis:7 python:3.12."),
            vec![
                (EntityKind::Image, "nginx:1.27"),
                (EntityKind::Image, "python:3.12"),
                (EntityKind::Image, "redis:7")
            ]
        );
        assert_eq!(
            found("start acme/kubectl-proxy:dev detached"),
            vec![(EntityKind::Image, "acme/kubectl-proxy:dev")]
        );
        assert_eq!(found("the status:draft filter"), vec![]);
        assert_eq!(found("see acme/web:src/main.rs"), vec![]);
        assert_eq!(
            found("inside python:3.12-slim, run the tests"),
            vec![(EntityKind::Image, "python:3.12-slim")]
        );
    }

    #[test]
    fn hosts_keys_lines_and_times_are_no_images() {
        for text in [
            "postgres on localhost:5432",
            "curl localhost:80 now",
            "ping db.internal:443",
            "the Redis key user:42",
            "what's the TTL on rate:user:42",
            "see src/server/mod.rs:88",
            "meet at 10:30 tomorrow",
            "Makefile:12 is wrong",
            "the projects Adriel works on? id:3",
            "an API request on the dashboard\nversion:3.1.0\nIP:192.168.11.33",
        ] {
            assert_eq!(found(text), vec![], "{text}");
        }
    }
}
