//! The tool error codes: every `errorCode` a failed query can carry, declared once with its
//! meaning. They are octocode's camelCase strings and serialize as such, so the JSON an agent
//! reads does not depend on how toolscout spells them in Rust. The README's table of tool
//! error codes and the OpenAPI enum are held to this list by the tests below and in
//! `http::openapi`.

use serde::{Serialize, Serializer};

/// Declares the codes, their wire names and meanings in one list, so the list the docs are
/// checked against cannot miss a variant.
macro_rules! tool_error_codes {
    ($($variant:ident = $name:literal: $meaning:literal,)*) => {
        /// A stable camelCase code naming why a tool query failed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ToolErrorCode {
            $(#[doc = $meaning] $variant,)*
        }

        impl ToolErrorCode {
            /// Every code, in the order of the README's table.
            pub const ALL: &'static [ToolErrorCode] = &[$(ToolErrorCode::$variant,)*];

            /// The code as it appears in `errorCode`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ToolErrorCode::$variant => $name,)*
                }
            }

            /// What the code means, as the README's table says.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(ToolErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

tool_error_codes! {
    ValidationFailed = "validationFailed": "The query does not fit the tool's schema or its values are out of range.",
    ConflictingOptions = "conflictingOptions": "Two local options that exclude each other were both given.",
    ConflictingModes = "conflictingModes": "githubGetFileContent was given more than one of fullContent, a line range and matchString.",
    InvalidPattern = "invalidPattern": "A regex (pattern or matchString) does not compile.",
    InvalidGlob = "invalidGlob": "An include or exclude glob does not compile.",
    UnknownFileType = "unknownFileType": "A localSearchCode type is not one of ripgrep's file types.",
    UnknownEncoding = "unknownEncoding": "A localSearchCode encoding is not a known label.",
    WrongFamily = "wrongFamily": "A tool was routed to a family that does not run it (a toolscout bug).",
    PathValidationFailed = "pathValidationFailed": "A local path is outside the allowed roots, protected, or cannot be resolved.",
    PathNotFound = "pathNotFound": "The directory or path to search, list or read does not exist.",
    PathIsDirectory = "pathIsDirectory": "A file was expected and the path is a directory.",
    PathIsFile = "pathIsFile": "A directory was expected and the path is a file (GitHub).",
    NotADirectory = "notADirectory": "A directory was expected and the local path is not one.",
    NotAFile = "notAFile": "An LSP tool was given a directory instead of a source file.",
    NotARegularFile = "notARegularFile": "The local path is a device, socket or pipe.",
    PermissionDenied = "permissionDenied": "The operating system refused to read a local path.",
    FileNotFound = "fileNotFound": "The file does not exist (locally, or in the repository at that branch).",
    FileAccessFailed = "fileAccessFailed": "A local file exists but could not be read.",
    FileNotReadable = "fileNotReadable": "A source file for an LSP tool exists but could not be read.",
    FileTooLarge = "fileTooLarge": "The file is over the size limit for this kind of read.",
    BinaryFile = "binaryFile": "An LSP tool was given a binary file.",
    BinaryFileUnsupported = "binaryFileUnsupported": "The file is binary; only text files are read.",
    DirectoryNotSupported = "directoryNotSupported": "githubGetFileContent was asked for type=directory.",
    SymlinkUnsupported = "symlinkUnsupported": "The repository path is a symbolic link.",
    SubmoduleUnsupported = "submoduleUnsupported": "The repository path is a git submodule.",
    UnsupportedEntry = "unsupportedEntry": "The repository path is neither a file nor a directory.",
    LineOutOfRange = "lineOutOfRange": "lineHint lies outside the file.",
    OrderHintOutOfRange = "orderHintOutOfRange": "orderHint asks for an occurrence the line does not have.",
    SymbolNotFound = "symbolNotFound": "The symbol does not occur as code on or near lineHint.",
    LspStartFailed = "lspStartFailed": "The language server did not start.",
    LspServerExited = "lspServerExited": "The language server exited or could not be reached.",
    LspNotReady = "lspNotReady": "The language server is still loading the project.",
    LspTimeout = "lspTimeout": "The language server did not answer in time.",
    RepositoryNotFound = "repositoryNotFound": "The GitHub repository does not exist or is not visible.",
    RepositoryEmpty = "repositoryEmpty": "The GitHub repository has no commits yet.",
    BranchNotFound = "branchNotFound": "The branch, tag or commit does not exist in the repository.",
    PullRequestNotFound = "pullRequestNotFound": "The pull request number does not exist in the repository.",
    NotFound = "notFound": "GitHub found nothing at the searched address.",
    AuthFailed = "authFailed": "GitHub rejected the token, or needs one and none is configured.",
    Forbidden = "forbidden": "GitHub refused access to the repository or organisation.",
    RateLimited = "rateLimited": "GitHub or a package registry is rate limiting; retryAfter says when to retry.",
    GithubValidationFailed = "githubValidationFailed": "GitHub could not process the request (HTTP 422).",
    GithubError = "githubError": "GitHub answered with another client error.",
    GithubConfigInvalid = "githubConfigInvalid": "github_api_url is not usable as a base URL.",
    UpstreamError = "upstreamError": "GitHub had an internal error (HTTP 5xx).",
    UpstreamInvalidResponse = "upstreamInvalidResponse": "GitHub answered with something that is not what its API promises.",
    UpstreamTimeout = "upstreamTimeout": "GitHub did not answer in time.",
    NetworkError = "networkError": "GitHub could not be reached.",
    ResponseTooLarge = "responseTooLarge": "GitHub's answer is larger than toolscout reads.",
    RegistryUnresolved = "registryUnresolved": "No package registry is configured and none could be read from npm or pip.",
    RegistryUrlInvalid = "registryUrlInvalid": "The configured package registry URL is not usable.",
    RegistryUnreachable = "registryUnreachable": "The package registry could not be reached.",
    RegistryTimeout = "registryTimeout": "The package registry did not answer in time.",
    RegistryError = "registryError": "The package registry had an internal error (HTTP 5xx).",
    RegistryAccessDenied = "registryAccessDenied": "The package registry requires credentials.",
    RegistryRejected = "registryRejected": "The package registry refused the request.",
    RegistryResponseTooLarge = "registryResponseTooLarge": "The package registry's answer is larger than toolscout reads.",
    InvalidRegistryResponse = "invalidRegistryResponse": "The package registry answered with something that is not what its API promises.",
    SearchUnsupported = "searchUnsupported": "The npm registry has no keyword search.",
    Timeout = "timeout": "The query ran past the tool family's time limit.",
    Overloaded = "overloaded": "Every worker for local tools is busy and the queue before them is full; retryAfter says when to retry.",
    CircuitOpen = "circuitOpen": "The tool's circuit is open after repeated failures; retryAfter says when it closes.",
    McpServerUnavailable = "mcpServerUnavailable": "The upstream MCP server could not be started or reached, or its session ended; it is restarted with backoff.",
    McpToolError = "mcpToolError": "The upstream MCP tool ran and reported an error (isError); its content says why.",
    McpProtocolError = "mcpProtocolError": "The upstream MCP server refused the call or answered outside the protocol.",
    McpTimeout = "mcpTimeout": "The upstream MCP server did not answer within its source's timeout.",
    InternalError = "internalError": "The tool stopped unexpectedly (a toolscout bug).",
}

impl Serialize for ToolErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for ToolErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table, as it must read: one row per code, in declaration order.
    fn readme_table() -> String {
        let mut rows = vec![
            "| `errorCode` | Meaning |".to_string(),
            "|---|---|".to_string(),
        ];
        rows.extend(
            ToolErrorCode::ALL
                .iter()
                .map(|c| format!("| `{}` | {} |", c.as_str(), c.meaning())),
        );
        rows.join("\n")
    }

    #[test]
    fn codes_are_unique_camel_case_and_serialize_as_their_names() {
        let mut names: Vec<&str> = ToolErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ToolErrorCode::ALL.len());
        for c in ToolErrorCode::ALL {
            let name = c.as_str();
            assert!(
                name.starts_with(|ch: char| ch.is_ascii_lowercase()),
                "{name}"
            );
            assert!(name.chars().all(|ch| ch.is_ascii_alphanumeric()), "{name}");
            assert_eq!(serde_json::to_value(c).unwrap(), name);
            assert_eq!(format!("{:?}", c).to_lowercase(), name.to_lowercase());
        }
    }

    #[test]
    fn the_readme_lists_every_code_with_its_meaning() {
        let readme = include_str!("../../README.md");
        let table = readme_table();
        assert!(
            readme.contains(&table),
            "README.md must hold the table of tool error codes exactly as:\n\n{table}\n"
        );
    }
}
