//! lspGotoDefinition: where the symbol at a position is defined. Semantic: the server's
//! `textDocument/definition`. Fallback: declaration-looking lines for the name in the
//! project's files of the same language, else the resolved position itself.

use super::fallback;
use super::resolve::SEARCH_RADIUS;
use super::text::{self, Files};
use super::{
    ask, connect, hidden_hint, line_range, locations, mode, position, prepare, start_line, visible,
    Answerer, Target,
};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::Context;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// Declarations a fallback answer lists, at most.
const MAX_FALLBACK_LOCATIONS: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Query {
    uri: String,
    symbol_name: String,
    line_hint: usize,
    #[serde(default)]
    order_hint: usize,
    #[serde(default = "default_context")]
    context_lines: usize,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn default_context() -> usize {
    5
}

/// One definition site: path, range, and the declaration kind when text search guessed it.
struct Site {
    path: PathBuf,
    range: Value,
    kind: Option<&'static str>,
}

pub(super) async fn run(ctx: &Context, q: Query) -> Result<Outcome, QueryError> {
    let target = prepare(ctx, &q.uri, &q.symbol_name, q.line_hint, q.order_hint)?;
    let mut hints = Vec::new();
    let mut hidden = Vec::new();
    let mut fallback_why = None;
    let mut sites = Vec::new();
    match connect(ctx, &target).await? {
        Answerer::Server(client) => {
            let params = json!({"textDocument": target.document(), "position": target.position()});
            match ask(&client, "textDocument/definition", params).await? {
                Ok(answer) => {
                    let found = locations(&answer);
                    if found.is_empty() {
                        fallback_why = Some(format!(
                            "{} found no definition for '{}' at line {}, so these results come from text search",
                            client.name(),
                            target.symbol,
                            target.at.line + 1
                        ));
                    }
                    for (uri, range) in found {
                        match visible(ctx, &uri) {
                            Ok(path) => sites.push(Site {
                                path,
                                range,
                                kind: None,
                            }),
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
        let (found, hint) = text_definitions(ctx, &target).await;
        sites = found;
        hints.extend(hint);
    }
    let lsp_mode = mode(fallback_why.as_deref(), &mut hints);
    hints.extend(hidden_hint(&hidden, "definition(s)"));
    Ok(render(ctx, &target, &q, sites, lsp_mode, hints))
}

/// Declarations found by text, or the resolved position when there is none.
async fn text_definitions(ctx: &Context, target: &Target) -> (Vec<Site>, Option<String>) {
    let found = fallback::search_target(ctx, target, true, MAX_FALLBACK_LOCATIONS)
        .await
        .map(|f| f.hits)
        .unwrap_or_default();
    if found.is_empty() {
        let here = Site {
            path: target.path.clone(),
            range: line_range(target.at.line, target.at.character, target.at.end_character),
            kind: None,
        };
        let hint = format!(
            "No declaration-looking line for '{}' was found in this project, so the location is the position you gave",
            target.symbol
        );
        return (vec![here], Some(hint));
    }
    let sites = found
        .into_iter()
        .map(|h| Site {
            range: line_range(h.line, h.start, h.end),
            path: h.path,
            kind: h.kind,
        })
        .collect();
    (
        sites,
        Some("Text matches are candidates, not proof: confirm with localGetFileContent".into()),
    )
}

fn render(
    ctx: &Context,
    target: &Target,
    q: &Query,
    sites: Vec<Site>,
    lsp_mode: &str,
    mut hints: Vec<String>,
) -> Outcome {
    let mut files = Files::new(&ctx.sandbox);
    files.insert(&target.path, target.text.clone());
    let contents: Vec<String> = sites
        .iter()
        .map(|s| files.snippet(&s.path, &[start_line(&s.range)], q.context_lines))
        .collect();
    let window = text::window(
        contents,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
    );
    let at_itself = sites.iter().any(|s| {
        s.path == target.path
            && start_line(&s.range) == target.at.line
            && s.range.pointer("/start/character").and_then(Value::as_u64)
                == Some(target.at.character as u64)
    });
    let mut out = Vec::new();
    for (site, part) in sites.iter().zip(window.parts) {
        let Some(content) = part else { continue };
        let mut location = json!({"uri": ctx.sandbox.display(&site.path), "range": site.range, "content": content});
        if let Some(kind) = site.kind {
            location["symbolKind"] = json!(kind);
        }
        out.push(location);
    }
    if !out.is_empty() {
        hints.push("Each location is a definition site; use range.start.line + 1 as lineHint to continue from it".into());
        if at_itself && lsp_mode == "semantic" {
            hints.push(format!(
                "'{}' is declared at the position you gave; lspFindReferences lists its usages, lspCallHierarchy its callers",
                target.symbol
            ));
        } else {
            hints.push("Next: lspFindReferences for every usage, lspCallHierarchy for callers and callees, localGetFileContent to read the whole definition".into());
        }
    } else {
        hints.push(format!("No definition of '{}' can be shown", target.symbol));
    }
    hints.extend(window.hints);
    let found = !out.is_empty();
    let mut data = json!({
        "locations": out,
        "resolvedPosition": position(target.at.line, target.at.character),
        "searchRadius": SEARCH_RADIUS,
        "lspMode": lsp_mode,
        "hints": hints,
    });
    if let Some(p) = window.pagination {
        data["outputPagination"] = p;
    }
    if found {
        Outcome::found(data)
    } else {
        Outcome::empty(data)
    }
}
