//! githubViewRepoStructure: a repository's layout from the git trees API (one recursive
//! tree, `GET /repos/{o}/{r}/git/trees/{branch}?recursive=1`, on the default branch unless
//! one is given), cut to `path` and `depth`, with noise directories left out, paginated by
//! entries and grouped per directory into files and folders. For trees too large for GitHub
//! to send whole, a missing `path` is listed one level deep through the contents API.

use super::client::{Github, Media, Subject};
use super::window::{size_of, window};
use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::page::ListPage;
use crate::exec::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Directories whose contents are generated or vendored: hidden unless asked for by path.
const NOISE: [&str; 4] = [".git", "node_modules", "dist", "__pycache__"];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    owner: String,
    repo: String,
    branch: Option<String>,
    #[serde(default)]
    path: String,
    #[serde(default = "one")]
    depth: usize,
    #[serde(default = "fifty")]
    entries_per_page: usize,
    #[serde(default = "one")]
    entry_page_number: usize,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn one() -> usize {
    1
}
fn fifty() -> usize {
    50
}

/// One tree entry, path relative to the repository root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    folder: bool,
}

impl Entry {
    fn parent(&self) -> &str {
        self.path.rsplit_once('/').map_or("", |(p, _)| p)
    }
    fn name(&self) -> &str {
        self.path
            .rsplit_once('/')
            .map_or(self.path.as_str(), |(_, n)| n)
    }
}

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let (owner, repo) = (q.owner.trim(), q.repo.trim());
    let target = q
        .path
        .trim()
        .trim_matches('/')
        .trim_start_matches("./")
        .to_string();
    let target = if target == "." { String::new() } else { target };
    let gh = Github::new(ctx);
    let branch = match q.branch.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        Some(b) => b.to_string(),
        None => default_branch(&gh, owner, repo)
            .await?
            .unwrap_or_else(|| "main".to_string()),
    };
    let Some(tree) = fetch_tree(&gh, &q, owner, repo, &branch).await? else {
        return Ok(Outcome::empty(json!({
            "owner": owner, "repo": repo, "branch": branch, "path": target, "structure": {},
            "hints": ["The repository has no commits yet, so there is nothing to list"],
        })));
    };
    let truncated = tree
        .get("truncated")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let all = entries_of(&tree);
    let mut hints = Vec::new();
    let entries = if target.is_empty() {
        within(&all, &target, q.depth)
    } else {
        match all.iter().find(|e| e.path == target) {
            Some(e) if !e.folder => {
                return Err(QueryError::new(
                    Failure::Invalid,
                    ToolErrorCode::PathIsFile,
                    format!("{target} is a file in {owner}/{repo}, not a directory"),
                )
                .hint(format!("Read it with githubGetFileContent (path={target})")));
            }
            Some(_) => within(&all, &target, q.depth),
            None if truncated => {
                hints.push("The repository is too large for GitHub to send its whole tree, so this directory was listed one level deep".to_string());
                one_level(&gh, owner, repo, &branch, &target).await?
            }
            None => return Err(missing_path(&all, owner, repo, &branch, &target)),
        }
    };
    let data = json!({"owner": owner, "repo": repo, "branch": branch, "path": target});
    let listed = Listed {
        entries,
        truncated,
        target: &target,
    };
    Ok(listed.answer(ctx, &q, data, hints))
}

/// The repository's default branch; `None` when GitHub does not name one.
async fn default_branch(
    gh: &Github<'_>,
    owner: &str,
    repo: &str,
) -> Result<Option<String>, QueryError> {
    let info = gh
        .json(
            &["repos", owner, repo],
            &[],
            Media::Json,
            Subject::Repository { owner, repo },
        )
        .await?;
    Ok(info
        .get("default_branch")
        .and_then(Value::as_str)
        .map(str::to_string))
}

/// The branch's whole tree; `None` for a repository without commits.
async fn fetch_tree(
    gh: &Github<'_>,
    q: &Query,
    owner: &str,
    repo: &str,
    branch: &str,
) -> Result<Option<Value>, QueryError> {
    let tree_subject = Subject::Tree {
        owner,
        repo,
        branch,
    };
    match gh
        .json(
            &["repos", owner, repo, "git", "trees", branch],
            &[("recursive", "1".into())],
            Media::Json,
            tree_subject,
        )
        .await
    {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.code == ToolErrorCode::RepositoryEmpty => Ok(None),
        Err(e) if e.code == ToolErrorCode::BranchNotFound && q.branch.is_some() => {
            // The branch or the repository may be missing: one look at the repository tells.
            Err(match default_branch(gh, owner, repo).await {
                Ok(Some(d)) => e.hint(format!("The default branch of {owner}/{repo} is {d}")),
                Ok(None) => e,
                Err(repo_error) if repo_error.code == ToolErrorCode::RepositoryNotFound => {
                    repo_error
                }
                Err(_) => e,
            })
        }
        Err(e) => Err(e),
    }
}

/// The files (blobs) and folders of a tree answer.
fn entries_of(tree: &Value) -> Vec<Entry> {
    tree.get("tree")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let path = e.get("path")?.as_str()?.to_string();
            let kind = e.get("type")?.as_str()?;
            Some(Entry {
                path,
                folder: kind != "blob",
            })
        })
        .collect()
}

/// The entries under the asked path, before noise is dropped and the page is cut.
struct Listed<'a> {
    entries: Vec<Entry>,
    truncated: bool,
    target: &'a str,
}

impl Listed<'_> {
    /// The page of entries, grouped by directory and windowed, with its summary and hints.
    fn answer(self, ctx: &Context, q: &Query, mut data: Value, mut hints: Vec<String>) -> Outcome {
        let (target, truncated) = (self.target, self.truncated);
        let mut entries = self.entries;
        let original = entries.len();
        entries.retain(|e| !is_noise(&e.path, target));
        let filtered = entries.len() < original;
        entries.sort_by(|a, b| {
            (a.parent(), !a.folder, a.name()).cmp(&(b.parent(), !b.folder, b.name()))
        });
        let total_files = entries.iter().filter(|e| !e.folder).count();
        let total_folders = entries.len() - total_files;
        let list = ListPage::new(entries.len(), q.entry_page_number, q.entries_per_page);
        let (page, per_page, total_pages) = (list.number, list.size, list.pages);
        let page_entries = &entries[list.range()];
        data["summary"] = json!({
            "totalFiles": total_files, "totalFolders": total_folders, "truncated": truncated,
            "filtered": filtered, "originalCount": original,
        });
        data["pagination"] = json!({"currentPage": page, "totalPages": total_pages, "hasMore": list.has_more(), "totalEntries": entries.len(), "entriesPerPage": per_page});
        if page_entries.is_empty() {
            hints.push(if !entries.is_empty() {
                format!("entryPageNumber={page} is past the last page ({total_pages}); start again at entryPageNumber=1")
            } else if filtered {
                format!("Only generated or vendored directories ({}) are here; ask for one of them by path to list it", NOISE.join(", "))
            } else {
                "The directory is empty".to_string()
            });
            data["structure"] = json!({});
            data["hints"] = json!(hints);
            return Outcome::empty(data);
        }
        let sizes: Vec<usize> = page_entries
            .iter()
            .map(|e| size_of(&json!(e.path)))
            .collect();
        let w = window(
            &sizes,
            q.char_offset,
            q.char_length,
            ctx.config.output_chars,
            "entries",
        );
        data["structure"] = group(&page_entries[w.start..w.end]);
        if let Some(info) = w.info {
            data["outputPagination"] = info;
        }
        hints.push(format!(
            "{} entries ({total_files} files, {total_folders} folders); page {page} of {total_pages}",
            entries.len()
        ));
        if list.has_more() {
            hints.push(format!("Next: entryPageNumber={}", page + 1));
        }
        hints.extend(w.hints);
        hints.extend(listing_notes(
            filtered,
            truncated,
            q.depth < 2 && total_folders > 0,
        ));
        data["hints"] = json!(hints);
        Outcome::found(data)
    }
}

/// What was left out of the listing, and how to see more.
fn listing_notes(filtered: bool, truncated: bool, folders_unopened: bool) -> Vec<String> {
    let mut hints = Vec::new();
    if filtered {
        hints.push(format!(
            "Generated or vendored directories ({}) are left out; pass one as path to list it",
            NOISE.join(", ")
        ));
    }
    if truncated {
        hints.push("GitHub truncated the tree of this large repository, so some entries may be missing; list a subdirectory with path to see it in full".into());
    }
    if folders_unopened {
        hints.push("depth=2 also lists what the folders contain".into());
    }
    hints.push("Read a file with githubGetFileContent (owner, repo, path); keys of structure are directory paths".into());
    hints
}

/// Entries under `target` (the root when empty), at most `depth` levels below it.
fn within(all: &[Entry], target: &str, depth: usize) -> Vec<Entry> {
    all.iter()
        .filter(|e| {
            let rel = if target.is_empty() {
                Some(e.path.as_str())
            } else {
                e.path
                    .strip_prefix(target)
                    .and_then(|r| r.strip_prefix('/'))
            };
            rel.is_some_and(|r| !r.is_empty() && r.split('/').count() <= depth)
        })
        .cloned()
        .collect()
}

/// Whether a component below `target` is a noise directory.
fn is_noise(path: &str, target: &str) -> bool {
    let rel = if target.is_empty() {
        path
    } else {
        path.strip_prefix(target)
            .map_or(path, |r| r.trim_start_matches('/'))
    };
    rel.split('/').any(|c| NOISE.contains(&c))
}

/// Page entries as `{dir: {files, folders}}`; the listed directory itself is `.` at the root.
fn group(entries: &[Entry]) -> Value {
    let mut out = Map::new();
    for e in entries {
        let key = match e.parent() {
            "" => ".".to_string(),
            p => p.to_string(),
        };
        let slot = out
            .entry(key)
            .or_insert_with(|| json!({"files": [], "folders": []}));
        let list = if e.folder { "folders" } else { "files" };
        if let Some(items) = slot.get_mut(list).and_then(Value::as_array_mut) {
            items.push(json!(e.name()));
        }
    }
    Value::Object(out)
}

/// One level of `target` through the contents API.
async fn one_level(
    gh: &Github<'_>,
    owner: &str,
    repo: &str,
    branch: &str,
    target: &str,
) -> Result<Vec<Entry>, QueryError> {
    let mut segments = vec!["repos", owner, repo, "contents"];
    segments.extend(target.split('/'));
    let subject = Subject::File {
        owner,
        repo,
        path: target,
        branch: Some(branch),
    };
    let listing = gh
        .json(
            &segments,
            &[("ref", branch.to_string())],
            Media::Json,
            subject,
        )
        .await?;
    let Some(items) = listing.as_array() else {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::PathIsFile,
            format!("{target} is a file in {owner}/{repo}, not a directory"),
        )
        .hint(format!("Read it with githubGetFileContent (path={target})")));
    };
    Ok(items
        .iter()
        .filter_map(|i| {
            let path = i.get("path")?.as_str()?.to_string();
            Some(Entry {
                path,
                folder: matches!(i.get("type")?.as_str()?, "dir" | "submodule"),
            })
        })
        .collect())
}

/// A 404-style error for a path the tree does not have, with likely meant folders.
fn missing_path(all: &[Entry], owner: &str, repo: &str, branch: &str, target: &str) -> QueryError {
    let last = target.rsplit('/').next().unwrap_or(target).to_lowercase();
    let similar: Vec<&str> = all
        .iter()
        .filter(|e| e.folder && e.name().to_lowercase() == last)
        .map(|e| e.path.as_str())
        .take(5)
        .collect();
    let mut e = QueryError::new(
        Failure::NotFound,
        ToolErrorCode::PathNotFound,
        format!("{target} does not exist in {owner}/{repo} at {branch}"),
    );
    if !similar.is_empty() {
        e = e.hint(format!("Did you mean: {}?", similar.join(", ")));
    }
    e.hint("List the repository root (path=\"\") to see the real top-level folders; paths are case-sensitive")
}

#[cfg(test)]
#[path = "structure_tests.rs"]
mod tests;
