//! lspCallHierarchy: who calls a function (incoming) or what it calls (outgoing), 1 to 3
//! levels deep, as one flat list paged by `callsPerPage` (each call carries its `level` and,
//! beyond level 1, `via`: the function of the level above it connects to). Semantic:
//! `textDocument/prepareCallHierarchy` then `callHierarchy/incomingCalls` or `outgoingCalls`
//! per function, breadth first, each function expanded once. Fallback: `callgraph`.

use super::callgraph::{self, Start};
use super::fallback::Scope;
use super::text::{self, Files};
use super::{ask, connect, hidden_hint, mode, prepare, start_line, visible, Answerer, Target};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::page::ListPage;
use crate::exec::Context;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::path::PathBuf;

/// Hierarchy requests one query may send (depth 3 on a popular function fans out).
const MAX_EXPANSIONS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    Incoming,
    Outgoing,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Incoming => "incoming",
            Direction::Outgoing => "outgoing",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Query {
    uri: String,
    symbol_name: String,
    line_hint: usize,
    #[serde(default)]
    order_hint: usize,
    direction: Direction,
    #[serde(default = "one")]
    depth: usize,
    #[serde(default = "two")]
    context_lines: usize,
    #[serde(default = "fifteen")]
    calls_per_page: usize,
    #[serde(default = "one")]
    page: usize,
    char_offset: Option<usize>,
    char_length: Option<usize>,
}

fn one() -> usize {
    1
}
fn two() -> usize {
    2
}
fn fifteen() -> usize {
    15
}

/// A function in the graph; `range` is its name.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) path: PathBuf,
    pub(crate) range: Value,
    pub(crate) detail: Option<String>,
}

impl Node {
    pub(crate) fn new(name: &str, kind: &str, path: PathBuf, range: Value) -> Node {
        Node {
            name: name.to_string(),
            kind: kind.to_string(),
            path,
            range,
            detail: None,
        }
    }

    pub(crate) fn same(&self, other: &Node) -> bool {
        self.path == other.path
            && self.range.get("start") == other.range.get("start")
            && self.name == other.name
    }
}

/// One edge: the caller (incoming) or callee (outgoing), and the call sites, which lie in
/// `sites_path` (the caller's file).
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) level: usize,
    pub(crate) via: Option<String>,
    pub(crate) peer: Node,
    pub(crate) from_ranges: Vec<Value>,
    pub(crate) sites_path: PathBuf,
}

/// The answer before rendering.
pub(crate) struct Graph {
    pub(crate) item: Node,
    pub(crate) calls: Vec<Call>,
    /// Peers outside the allowed directories, by file name.
    pub(crate) hidden: Vec<String>,
    pub(crate) truncated: bool,
    pub(crate) notes: Vec<String>,
}

impl Graph {
    pub(crate) fn new(item: Node) -> Graph {
        Graph {
            item,
            calls: Vec::new(),
            hidden: Vec::new(),
            truncated: false,
            notes: Vec::new(),
        }
    }
}

const SYMBOL_KINDS: [&str; 26] = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enumMember",
    "struct",
    "event",
    "operator",
    "typeParameter",
];

/// A `CallHierarchyItem` as a node, if the agent may see its file.
fn node(ctx: &Context, item: &Value) -> Result<Node, String> {
    let path = visible(ctx, item.get("uri").and_then(Value::as_str).unwrap_or(""))?;
    let kind = item
        .get("kind")
        .and_then(Value::as_u64)
        .and_then(|k| SYMBOL_KINDS.get((k as usize).wrapping_sub(1)))
        .unwrap_or(&"unknown");
    let range = item
        .get("selectionRange")
        .or_else(|| item.get("range"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut node = Node::new(
        item.get("name").and_then(Value::as_str).unwrap_or("?"),
        kind,
        path,
        range,
    );
    node.detail = item
        .get("detail")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    Ok(node)
}

pub(super) async fn run(ctx: &Context, q: Query) -> Result<Outcome, QueryError> {
    let target = prepare(ctx, &q.uri, &q.symbol_name, q.line_hint, q.order_hint)?;
    let depth = q.depth.clamp(1, 3);
    let mut hints = Vec::new();
    let semantic = match connect(ctx, &target).await? {
        Answerer::Server(client) => semantic(ctx, &client, &target, q.direction, depth).await?,
        Answerer::Text(why) => Err(why),
    };
    let (graph, fallback_why) = match semantic {
        Ok(graph) => (graph, None),
        Err(why) => (
            text_graph(ctx, &target, q.direction, depth).await,
            Some(why),
        ),
    };
    let lsp_mode = mode(fallback_why.as_deref(), &mut hints);
    Ok(render(ctx, &target, &q, depth, graph, lsp_mode, hints))
}

/// The graph from the server, or why a text search has to stand in.
async fn semantic(
    ctx: &Context,
    client: &super::Client,
    target: &Target,
    direction: Direction,
    depth: usize,
) -> Result<Result<Graph, String>, QueryError> {
    if !client.supports("callHierarchyProvider") {
        return Ok(Err(format!(
            "{} does not support call hierarchy, so these results come from text search",
            client.name()
        )));
    }
    let params = json!({"textDocument": target.document(), "position": target.position()});
    let first = match ask(client, "textDocument/prepareCallHierarchy", params).await? {
        Ok(Value::Array(items)) if !items.is_empty() => items[0].clone(),
        Ok(_) => {
            return Ok(Err(format!(
                "{} found no function or method named '{}' at line {}, so these results come from text search",
                client.name(),
                target.symbol,
                target.at.line + 1
            )))
        }
        Err(why) => return Ok(Err(why)),
    };
    let item = match node(ctx, &first) {
        Ok(item) => item,
        Err(_) => {
            return Ok(Err(format!(
                "{} placed '{}' outside the allowed directories",
                client.name(),
                target.symbol
            )))
        }
    };
    let (method, peer_key) = match direction {
        Direction::Incoming => ("callHierarchy/incomingCalls", "from"),
        Direction::Outgoing => ("callHierarchy/outgoingCalls", "to"),
    };
    let key = |n: &Node| {
        (
            n.path.clone(),
            n.range.get("start").cloned(),
            n.name.clone(),
        )
    };
    let mut seen = HashSet::from([key(&item)]);
    let mut graph = Graph::new(item.clone());
    let mut frontier = vec![(first, item)];
    let mut expansions = 0;
    for level in 1..=depth {
        let mut next = Vec::new();
        for (raw, caller) in frontier {
            if expansions == MAX_EXPANSIONS {
                graph.truncated = true;
                break;
            }
            expansions += 1;
            let answer = match ask(client, method, json!({"item": raw})).await? {
                Ok(answer) => answer,
                Err(why) if level == 1 => return Ok(Err(why)),
                Err(_) => {
                    graph.truncated = true;
                    continue;
                }
            };
            for call in answer.as_array().into_iter().flatten() {
                let Some(peer_raw) = call.get(peer_key) else {
                    continue;
                };
                let peer = match node(ctx, peer_raw) {
                    Ok(peer) => peer,
                    Err(name) => {
                        graph.hidden.push(name);
                        continue;
                    }
                };
                if level < depth && seen.insert(key(&peer)) {
                    next.push((peer_raw.clone(), peer.clone()));
                }
                let from_ranges = call
                    .get("fromRanges")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let sites_path = match direction {
                    Direction::Incoming => peer.path.clone(),
                    Direction::Outgoing => caller.path.clone(),
                };
                let via = (level > 1).then(|| caller.name.clone());
                graph.calls.push(Call {
                    level,
                    via,
                    peer,
                    from_ranges,
                    sites_path,
                });
            }
        }
        frontier = next;
    }
    Ok(Ok(graph))
}

async fn text_graph(ctx: &Context, target: &Target, direction: Direction, depth: usize) -> Graph {
    let root = ctx.lsp.project_root(&target.path);
    let sandbox = ctx.sandbox.clone();
    let (path, language, symbol, at, syntax) = (
        target.path.clone(),
        target.language,
        target.symbol.clone(),
        target.at,
        target.syntax,
    );
    let fallback_item = Node::new(
        &symbol,
        "unknown",
        path.clone(),
        super::line_range(at.line, at.character, at.end_character),
    );
    tokio::task::spawn_blocking(move || {
        let scope = Scope::new(&root, &sandbox, &path, language);
        let start = Start {
            path: &path,
            symbol: &symbol,
            line: at.line,
            byte: at.byte,
            character: at.character,
            end_character: at.end_character,
            syntax,
        };
        callgraph::build(&scope, &start, direction, depth)
    })
    .await
    .unwrap_or_else(|_| Graph::new(fallback_item))
}

fn lines_of(ranges: &[Value]) -> Vec<usize> {
    ranges.iter().map(start_line).collect()
}

fn render(
    ctx: &Context,
    target: &Target,
    q: &Query,
    depth: usize,
    graph: Graph,
    lsp_mode: &str,
    mut hints: Vec<String>,
) -> Outcome {
    let mut files = Files::default();
    files.insert(&target.path, target.text.clone());
    let display = |n: &Node, files: &mut Files, targets: &[usize]| {
        let mut v = json!({
            "name": n.name,
            "kind": n.kind,
            "uri": ctx.sandbox.display(&n.path),
            "range": n.range,
            "content": files.snippet(&n.path, targets, q.context_lines),
        });
        if let Some(detail) = &n.detail {
            v["detail"] = json!(detail);
        }
        v
    };
    let item = display(&graph.item, &mut files, &[start_line(&graph.item.range)]);
    let total = graph.calls.len();
    let list = ListPage::new(total, q.page, q.calls_per_page);
    let (per_page, total_pages) = (list.size, list.pages);
    let page: Vec<&Call> = graph.calls[list.range()].iter().collect();
    let mut entries: Vec<Value> = page
        .iter()
        .map(|call| {
            let targets = match q.direction {
                Direction::Incoming => lines_of(&call.from_ranges),
                Direction::Outgoing => vec![start_line(&call.peer.range)],
            };
            let mut entry = json!({"fromRanges": call.from_ranges, "level": call.level});
            entry[peer_key(q.direction)] = display(&call.peer, &mut files, &targets);
            if q.direction == Direction::Outgoing {
                entry["callSites"] =
                    json!(files.snippet(&call.sites_path, &lines_of(&call.from_ranges), 0));
            }
            if let Some(via) = &call.via {
                entry["via"] = json!(via);
            }
            entry
        })
        .collect();
    let contents: Vec<String> = entries
        .iter()
        .map(|e| {
            e[peer_key(q.direction)]["content"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let window = text::window(
        contents,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
    );
    entries = entries
        .into_iter()
        .zip(window.parts)
        .filter_map(|(mut e, part)| {
            e[peer_key(q.direction)]["content"] = json!(part?);
            Some(e)
        })
        .collect();

    let (who, none) = match q.direction {
        Direction::Incoming => ("caller(s)", "No callers were found: the function may be unused, called dynamically, or only passed around (lspFindReferences lists every reference)"),
        Direction::Outgoing => ("callee(s)", "No calls were found inside this function"),
    };
    hints.extend(graph.notes.iter().cloned());
    hints.extend(hidden_hint(&graph.hidden, "call(s)"));
    if graph.truncated {
        hints.push(format!("The graph was cut short (at most {MAX_EXPANSIONS} functions are expanded per query); use a smaller depth or start from a deeper function"));
    }
    if total == 0 {
        hints.push(none.to_string());
    } else if entries.is_empty() && window.pagination.is_none() {
        hints.push(format!(
            "page {} is past the last page ({total_pages}); use page=1 to {total_pages}",
            list.number
        ));
    } else {
        hints.push(format!(
            "{total} {who} of '{}' found, {depth} level(s) deep",
            graph.item.name
        ));
        if depth > 1 {
            hints.push("level says how far from the item a call is; via names the function of the level above it connects to".into());
        }
        if list.has_more() {
            hints.push(format!(
                "Page {} of {total_pages}: pass page={} for more",
                list.number,
                list.number + 1
            ));
        }
        hints.push(
            "Continue from any function with its uri and range.start.line + 1 as lineHint".into(),
        );
    }
    hints.extend(window.hints);
    let found = !entries.is_empty();
    let calls_key = match q.direction {
        Direction::Incoming => "incomingCalls",
        Direction::Outgoing => "outgoingCalls",
    };
    let mut data = Map::new();
    data.insert("item".into(), item);
    data.insert("direction".into(), json!(q.direction.name()));
    data.insert("depth".into(), json!(depth));
    data.insert(calls_key.into(), json!(entries));
    data.insert(
        "pagination".into(),
        json!({
            "currentPage": list.number,
            "totalPages": total_pages,
            "totalResults": total,
            "hasMore": list.has_more(),
            "resultsPerPage": per_page,
        }),
    );
    if let Some(p) = window.pagination {
        data.insert("outputPagination".into(), p);
    }
    data.insert("lspMode".into(), json!(lsp_mode));
    data.insert("hints".into(), json!(hints));
    let data = Value::Object(data);
    if found {
        Outcome::found(data)
    } else {
        Outcome::empty(data)
    }
}

fn peer_key(direction: Direction) -> &'static str {
    match direction {
        Direction::Incoming => "from",
        Direction::Outgoing => "to",
    }
}
