//! Source repositories named by package metadata, in every spelling npm and PyPI records
//! carry: `git+https://host/o/r.git`, `git+ssh://git@host/o/r.git`, `git@host:o/r.git`,
//! `git://host/o/r`, `github:o/r` and the bare `o/r` shorthand (GitHub), web URLs pointing
//! deeper into a repository (`/tree/main/pkg`). The result says which host it is on, so
//! only GitHub repositories are offered to the GitHub tools.

use reqwest::Url;

/// A repository on a code host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepoRef {
    /// Lowercase host, e.g. `github.com`.
    pub(crate) host: String,
    pub(crate) owner: String,
    pub(crate) repo: String,
}

/// Hosts whose URLs name a repository as `/<owner>/<repo>` (GitLab groups may nest; the
/// first two segments still name a browsable project path prefix).
const CODE_HOSTS: [&str; 4] = ["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// First path segments of GitHub URLs that are not owners.
const NOT_OWNERS: [&str; 9] = [
    "sponsors",
    "orgs",
    "apps",
    "marketplace",
    "settings",
    "topics",
    "features",
    "about",
    "site",
];

impl RepoRef {
    pub(crate) fn is_github(&self) -> bool {
        self.host == "github.com"
    }

    /// `https://<host>/<owner>/<repo>`.
    pub(crate) fn web_url(&self) -> String {
        format!("https://{}/{}/{}", self.host, self.owner, self.repo)
    }
}

/// Whether `host` is a known public code host.
pub(crate) fn is_code_host(host: &str) -> bool {
    let h = host.trim_start_matches("www.");
    CODE_HOSTS.contains(&h)
}

/// Parses any of the spellings above; `None` for what is not a repository reference.
pub(crate) fn parse(reference: &str) -> Option<RepoRef> {
    let s = reference.trim();
    let s = s.strip_prefix("git+").unwrap_or(s);
    let s = s.split('#').next().unwrap_or(s).trim();
    if s.is_empty() {
        return None;
    }
    for (prefix, host) in [
        ("github:", "github.com"),
        ("gitlab:", "gitlab.com"),
        ("bitbucket:", "bitbucket.org"),
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            return from_path(host, rest);
        }
    }
    if s.contains("://") {
        let url = Url::parse(s).ok()?;
        let host = url.host_str()?.to_ascii_lowercase();
        return from_path(host.trim_start_matches("www."), url.path());
    }
    // scp-like `git@host:owner/repo.git`.
    if let Some((user_host, path)) = s.split_once(':') {
        let host = user_host.rsplit('@').next()?;
        if host.contains('.') && !path.starts_with('/') {
            return from_path(&host.to_ascii_lowercase(), path);
        }
        return None;
    }
    // npm's bare `owner/repo` shorthand means GitHub.
    let parts: Vec<&str> = s.split('/').collect();
    if parts.len() == 2 {
        return from_path("github.com", s);
    }
    None
}

fn from_path(host: &str, path: &str) -> Option<RepoRef> {
    let mut segs = path.split('/').filter(|p| !p.is_empty());
    let owner = segs.next()?;
    let repo = segs.next()?;
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && s != "."
            && s != ".."
    };
    if !valid(owner) || !valid(repo) {
        return None;
    }
    if host == "github.com" && NOT_OWNERS.contains(&owner.to_ascii_lowercase().as_str()) {
        return None;
    }
    Some(RepoRef {
        host: host.to_string(),
        owner: owner.to_string(),
        repo: repo.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gh(s: &str) -> Option<(String, String)> {
        parse(s)
            .filter(RepoRef::is_github)
            .map(|r| (r.owner, r.repo))
    }

    #[test]
    fn every_npm_spelling_of_a_github_repository() {
        let want = Some(("expressjs".to_string(), "express".to_string()));
        for s in [
            "expressjs/express",
            "github:expressjs/express",
            "git+https://github.com/expressjs/express.git",
            "https://github.com/expressjs/express",
            "https://www.github.com/expressjs/express/",
            "git://github.com/expressjs/express.git",
            "git+ssh://git@github.com/expressjs/express.git",
            "ssh://git@github.com/expressjs/express",
            "git@github.com:expressjs/express.git",
            "https://github.com/expressjs/express/tree/master/lib#readme",
            "git+https://github.com/expressjs/express.git#v5",
        ] {
            assert_eq!(gh(s), want, "{s}");
        }
    }

    #[test]
    fn other_hosts_are_recognised_but_not_github() {
        let r = parse("gitlab:group/project").unwrap();
        assert_eq!(
            (r.host.as_str(), r.owner.as_str(), r.repo.as_str()),
            ("gitlab.com", "group", "project")
        );
        assert!(!r.is_github());
        assert_eq!(
            parse("https://gitlab.com/a/b.git").unwrap().web_url(),
            "https://gitlab.com/a/b"
        );
        assert!(is_code_host("www.github.com") && !is_code_host("example.org"));
    }

    #[test]
    fn non_repositories_are_refused() {
        for s in [
            "",
            "https://github.com/sponsors/someone",
            "https://github.com/onlyowner",
            "a/b/c",
            "not a url",
            "https://example.org",
            "file:../x",
        ] {
            assert!(gh(s).is_none(), "{s}");
        }
    }
}
