//! The table of the 13 research tools toolscout runs itself: their public names and the
//! family each belongs to. A leaf of the crate: the catalog checks an entry's `executor`
//! against it and `exec` dispatches by it, so neither needs the other.

/// The 13 research tools toolscout executes natively, by their public names.
pub const BUILTIN_TOOLS: [&str; 13] = [
    "githubSearchCode",
    "githubGetFileContent",
    "githubViewRepoStructure",
    "githubSearchRepositories",
    "githubSearchPullRequests",
    "packageSearch",
    "localSearchCode",
    "localGetFileContent",
    "localFindFiles",
    "localViewStructure",
    "lspGotoDefinition",
    "lspFindReferences",
    "lspCallHierarchy",
];

/// Whether `name` is a builtin executor.
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_TOOLS.contains(&name)
}

/// One of the 13 tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    GithubSearchCode,
    GithubGetFileContent,
    GithubViewRepoStructure,
    GithubSearchRepositories,
    GithubSearchPullRequests,
    PackageSearch,
    LocalSearchCode,
    LocalGetFileContent,
    LocalFindFiles,
    LocalViewStructure,
    LspGotoDefinition,
    LspFindReferences,
    LspCallHierarchy,
}

/// Tools that share a transport, a resilience policy and a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Github,
    Local,
    Lsp,
    Package,
}

impl Tool {
    pub const ALL: [Tool; 13] = [
        Tool::GithubSearchCode,
        Tool::GithubGetFileContent,
        Tool::GithubViewRepoStructure,
        Tool::GithubSearchRepositories,
        Tool::GithubSearchPullRequests,
        Tool::PackageSearch,
        Tool::LocalSearchCode,
        Tool::LocalGetFileContent,
        Tool::LocalFindFiles,
        Tool::LocalViewStructure,
        Tool::LspGotoDefinition,
        Tool::LspFindReferences,
        Tool::LspCallHierarchy,
    ];

    pub fn name(self) -> &'static str {
        BUILTIN_TOOLS[self as usize]
    }

    pub fn from_name(name: &str) -> Option<Tool> {
        BUILTIN_TOOLS
            .iter()
            .position(|n| *n == name)
            .map(|i| Tool::ALL[i])
    }

    pub fn family(self) -> Family {
        use Tool::*;
        match self {
            GithubSearchCode
            | GithubGetFileContent
            | GithubViewRepoStructure
            | GithubSearchRepositories
            | GithubSearchPullRequests => Family::Github,
            PackageSearch => Family::Package,
            LocalSearchCode | LocalGetFileContent | LocalFindFiles | LocalViewStructure => {
                Family::Local
            }
            LspGotoDefinition | LspFindReferences | LspCallHierarchy => Family::Lsp,
        }
    }
}
