//! How each entity kind reads: in an explanation ("mentions owner/repo") and as the word
//! that stands for a value a text leaves out.

use super::EntityKind;

impl EntityKind {
    /// How the kind reads in an explanation ("mentions owner/repo").
    pub fn label(self) -> &'static str {
        match self {
            EntityKind::Path => "a file path",
            EntityKind::Directory => "a directory",
            EntityKind::Depth => "a depth",
            EntityKind::Registry => "a package registry",
            EntityKind::Setting => "an environment variable",
            EntityKind::FileType => "a file type",
            EntityKind::Line => "a line number",
            EntityKind::Repository => "owner/repo",
            EntityKind::Url => "a URL",
            EntityKind::PullRequest => "a pull request",
            EntityKind::Issue => "an issue number",
            EntityKind::Package => "a package",
            EntityKind::Symbol => "a code symbol",
            EntityKind::Regex => "a regular expression",
            EntityKind::Sql => "SQL",
            EntityKind::Email => "an e-mail address",
            EntityKind::Date => "a date or time",
            EntityKind::Revision => "a branch, tag or commit",
            EntityKind::Image => "a container image",
            EntityKind::Channel => "a channel",
        }
    }

    /// The word that stands for a value of this kind when the value itself is left out of
    /// a text (a repository's name is not a request for a tool of that name).
    pub fn placeholder(self) -> &'static str {
        match self {
            EntityKind::Path => "file",
            EntityKind::Directory => "directory",
            EntityKind::Depth => "depth",
            EntityKind::Registry => "registry",
            EntityKind::Setting => "environment variable",
            EntityKind::FileType => "files",
            EntityKind::Line => "line",
            EntityKind::Repository => "repository",
            EntityKind::Url => "url",
            EntityKind::PullRequest => "pull request",
            EntityKind::Issue => "issue",
            EntityKind::Package => "package",
            EntityKind::Symbol => "symbol",
            EntityKind::Regex => "pattern",
            EntityKind::Sql => "sql query",
            EntityKind::Email => "email",
            EntityKind::Date => "date",
            EntityKind::Revision => "branch",
            EntityKind::Image => "container image",
            EntityKind::Channel => "channel",
        }
    }
}
