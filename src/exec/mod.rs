//! Tool execution. For now: the registry of builtin executors that catalog entries may bind to
//! with `execution: {kind: "builtin", name}`; the executors themselves arrive with the
//! tool-execution work.

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
