//! lspFindReferences: every usage of the symbol at a position, the declaration marked, paged,
//! optionally narrowed by include/exclude globs on the workspace-relative path. Semantic: the
//! server's `textDocument/references` (plus `textDocument/definition` to mark the declaration).
//! Fallback: whole-word code occurrences in the project's files of the same language.

use super::fallback;
use super::text::Files;
use super::{
    ask, connect, hidden_hint, line_range, locations, mode, prepare, start_line, visible, Answerer,
    Target,
};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::page::ListPage;
use crate::exec::Context;
use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Occurrences a text search collects, at most.
const MAX_TEXT_REFERENCES: usize = 5000;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Query {
    uri: String,
    symbol_name: String,
    line_hint: usize,
    #[serde(default)]
    order_hint: usize,
    #[serde(default = "yes")]
    include_declaration: bool,
    #[serde(default = "two")]
    context_lines: usize,
    #[serde(default = "twenty")]
    references_per_page: usize,
    #[serde(default = "one")]
    page: usize,
    #[serde(default)]
    include_pattern: Vec<String>,
    #[serde(default)]
    exclude_pattern: Vec<String>,
}

fn yes() -> bool {
    true
}
fn two() -> usize {
    2
}
fn twenty() -> usize {
    20
}
fn one() -> usize {
    1
}

/// Include/exclude globs. A pattern with a `/` matches the workspace-relative path; one
/// without also matches the bare file name (`*.test.ts`).
struct Filter {
    include: Vec<(GlobMatcher, bool)>,
    exclude: Vec<(GlobMatcher, bool)>,
}

impl Filter {
    fn new(include: &[String], exclude: &[String]) -> Result<Filter, QueryError> {
        let compile = |field: &str, patterns: &[String]| {
            patterns
                .iter()
                .map(|p| {
                    Glob::new(p)
                        .map(|g| (g.compile_matcher(), p.contains('/')))
                        .map_err(|e| {
                            QueryError::invalid(format!(
                                "{field} '{p}' is not a valid glob: {}",
                                e.kind()
                            ))
                            .hint("Globs look like **/*.test.ts, src/**, or *.spec.js")
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Filter {
            include: compile("includePattern", include)?,
            exclude: compile("excludePattern", exclude)?,
        })
    }

    fn keeps(&self, display: &str) -> bool {
        let name = Path::new(display)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let hit = |set: &[(GlobMatcher, bool)]| {
            set.iter()
                .any(|(g, slash)| g.is_match(display) || (!slash && g.is_match(&name)))
        };
        (self.include.is_empty() || hit(&self.include)) && !hit(&self.exclude)
    }
}

struct Reference {
    path: PathBuf,
    display: String,
    range: Value,
    is_definition: bool,
}

impl Reference {
    fn key(&self) -> (String, u64, u64) {
        let at = |k: &str| self.range.pointer(k).and_then(Value::as_u64).unwrap_or(0);
        (
            self.display.clone(),
            at("/start/line"),
            at("/start/character"),
        )
    }
}

pub(super) async fn run(ctx: &Context, q: Query) -> Result<Outcome, QueryError> {
    let filter = Filter::new(&q.include_pattern, &q.exclude_pattern)?;
    let target = prepare(ctx, &q.uri, &q.symbol_name, q.line_hint, q.order_hint)?;
    let mut hints = Vec::new();
    let mut hidden = Vec::new();
    let mut fallback_why = None;
    let mut refs = Vec::new();
    match connect(ctx, &target).await? {
        Answerer::Server(client) => {
            let params = json!({
                "textDocument": target.document(),
                "position": target.position(),
                "context": {"includeDeclaration": q.include_declaration},
            });
            match ask(&client, "textDocument/references", params).await? {
                Ok(Value::Null) => {
                    fallback_why = Some(format!("{} had no reference information for this position, so these results come from text search", client.name()))
                }
                Ok(answer) => {
                    let params = json!({"textDocument": target.document(), "position": target.position()});
                    let definitions = client.request("textDocument/definition", params).await.map(|a| locations(&a)).unwrap_or_default();
                    for (uri, range) in locations(&answer) {
                        let is_definition = definitions.iter().any(|(u, r)| *u == uri && r.get("start") == range.get("start"));
                        match visible(ctx, &uri) {
                            Ok(path) => refs.push(Reference { display: ctx.sandbox.display(&path), path, range, is_definition }),
                            Err(name) => hidden.push(name),
                        }
                    }
                }
                Err(why) => fallback_why = Some(why),
            }
        }
        Answerer::Text(why) => fallback_why = Some(why),
    }
    if fallback_why.is_some() {
        let (found, truncated) = text_references(ctx, &target).await;
        refs = found
            .into_iter()
            .filter(|r| q.include_declaration || !r.is_definition)
            .collect();
        if truncated {
            hints.push(format!("The text search stopped early (it reads at most {MAX_TEXT_REFERENCES} matches and a bounded number of files); narrow it with includePattern"));
        }
    }
    let lsp_mode = mode(fallback_why.as_deref(), &mut hints);
    hints.extend(hidden_hint(&hidden, "reference(s)"));
    let before = refs.len();
    refs.retain(|r| filter.keeps(&r.display));
    refs.sort_by_key(Reference::key);
    refs.dedup_by(|a, b| a.key() == b.key());
    if refs.len() < before && (!q.include_pattern.is_empty() || !q.exclude_pattern.is_empty()) {
        hints.push(format!(
            "{} reference(s) were left out by includePattern/excludePattern",
            before - refs.len()
        ));
    }
    Ok(render(ctx, &target, &q, refs, lsp_mode, hints))
}

async fn text_references(ctx: &Context, target: &Target) -> (Vec<Reference>, bool) {
    let Some(found) = fallback::search_target(ctx, target, false, MAX_TEXT_REFERENCES).await else {
        return (Vec::new(), true);
    };
    let refs = found
        .hits
        .into_iter()
        .map(|h| Reference {
            display: ctx.sandbox.display(&h.path),
            range: line_range(h.line, h.start, h.end),
            is_definition: h.kind.is_some(),
            path: h.path,
        })
        .collect();
    (refs, found.truncated)
}

fn render(
    ctx: &Context,
    target: &Target,
    q: &Query,
    refs: Vec<Reference>,
    lsp_mode: &str,
    mut hints: Vec<String>,
) -> Outcome {
    let total = refs.len();
    let list = ListPage::new(total, q.page, q.references_per_page);
    let (per_page, total_pages) = (list.size, list.pages);
    let page: Vec<&Reference> = refs[list.range()].iter().collect();
    let file_count = {
        let mut names: Vec<&str> = refs.iter().map(|r| r.display.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    };
    let mut files = Files::new(&ctx.sandbox);
    files.insert(&target.path, target.text.clone());
    let mut snippets = |context: usize| -> Vec<String> {
        page.iter()
            .map(|r| files.snippet(&r.path, &[start_line(&r.range)], context))
            .collect()
    };
    let mut contents = snippets(q.context_lines);
    let budget = ctx.config.output_chars;
    if q.context_lines > 0 && contents.iter().map(|c| c.chars().count()).sum::<usize>() > budget {
        contents = snippets(0);
        hints.push(format!(
            "Snippets were cut to the reference line itself to stay within {budget} characters; lower referencesPerPage for more context"
        ));
    }
    let locations: Vec<Value> = page
        .iter()
        .zip(contents)
        .map(|(r, content)| json!({"uri": r.display, "range": r.range, "content": content, "isDefinition": r.is_definition}))
        .collect();
    page_hints(
        &mut hints,
        target,
        &list,
        total,
        file_count,
        locations.is_empty(),
    );
    let found = !locations.is_empty();
    let data = json!({
        "locations": locations,
        "pagination": {
            "currentPage": list.number,
            "totalPages": total_pages,
            "totalResults": total,
            "hasMore": list.has_more(),
            "resultsPerPage": per_page,
        },
        "hasMultipleFiles": file_count > 1,
        "lspMode": lsp_mode,
        "hints": hints,
    });
    if found {
        Outcome::found(data)
    } else {
        Outcome::empty(data)
    }
}

/// What the page of references means and where to go next.
fn page_hints(
    hints: &mut Vec<String>,
    target: &Target,
    list: &ListPage,
    total: usize,
    file_count: usize,
    page_empty: bool,
) {
    let total_pages = list.pages;
    if total == 0 {
        hints.push(format!(
            "No references to '{}' were found; check the position with lspGotoDefinition, or search by text with localSearchCode",
            target.symbol
        ));
    } else if page_empty {
        hints.push(format!(
            "page {} is past the last page ({total_pages}); use page=1 to {total_pages}",
            list.number
        ));
    } else {
        hints.push(format!(
            "Found {total} reference(s) in {file_count} file(s)"
        ));
        hints.push("isDefinition=true marks the declaration; use range.start.line + 1 as lineHint for follow-up LSP calls".into());
        if list.has_more() {
            hints.push(format!(
                "Page {} of {total_pages}: pass page={} for more",
                list.number,
                list.number + 1
            ));
        }
        hints.push("For call relationships only, lspCallHierarchy is more precise".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_paths_and_bare_names() {
        let f = Filter::new(&[], &["*.test.ts".into(), "**/legacy/**".into()]).unwrap();
        assert!(f.keeps("src/a.ts"));
        assert!(!f.keeps("src/a.test.ts"));
        assert!(!f.keeps("src/legacy/old.ts"));
        let f = Filter::new(&["src/**".into()], &[]).unwrap();
        assert!(f.keeps("src/x/y.ts") && !f.keeps("test/y.ts"));
        let e = Filter::new(&["src/[".into()], &[]).err().unwrap();
        assert!(
            e.message.contains("includePattern 'src/['"),
            "{}",
            e.message
        );
    }
}
