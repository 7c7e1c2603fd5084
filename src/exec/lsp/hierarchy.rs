//! lspCallHierarchy: who calls a function (incoming) or what it calls (outgoing), 1 to 3
//! levels deep, as one flat list paged by `callsPerPage` (each call carries its `level` and,
//! beyond level 1, `via`: the function of the level above it connects to). Semantic:
//! `textDocument/prepareCallHierarchy` then `callHierarchy/incomingCalls` or `outgoingCalls`
//! per function, breadth first, each function expanded once. Fallback: `callgraph`.

use super::callgraph::{self, Start};
use super::fallback::Scope;
use super::{ask, connect, mode, prepare, visible, Answerer, Target};
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::Context;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::PathBuf;
use view::render;

#[path = "hierarchy_view.rs"]
mod view;

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
    expand(ctx, client, first, item, direction, depth).await
}

/// Breadth first from the item: each level asks for the calls of the functions found on the
/// level before, each function once, at most MAX_EXPANSIONS in all.
async fn expand(
    ctx: &Context,
    client: &super::Client,
    first: Value,
    item: Node,
    direction: Direction,
    depth: usize,
) -> Result<Result<Graph, String>, QueryError> {
    let method = match direction {
        Direction::Incoming => "callHierarchy/incomingCalls",
        Direction::Outgoing => "callHierarchy/outgoingCalls",
    };
    let mut seen = HashSet::from([node_key(&item)]);
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
            let step = Step {
                level,
                depth,
                direction,
                caller: &caller,
            };
            for call in answer.as_array().into_iter().flatten() {
                step.add(ctx, call, &mut graph, &mut seen, &mut next);
            }
        }
        frontier = next;
    }
    Ok(Ok(graph))
}

/// A function as the breadth-first walk tells functions apart.
type NodeKey = (PathBuf, Option<Value>, String);

fn node_key(n: &Node) -> NodeKey {
    (
        n.path.clone(),
        n.range.get("start").cloned(),
        n.name.clone(),
    )
}

/// The expansion of one function on one level.
struct Step<'a> {
    level: usize,
    depth: usize,
    direction: Direction,
    caller: &'a Node,
}

impl Step<'_> {
    /// Records one call the server reported, and queues its peer for the next level when it
    /// is new.
    fn add(
        &self,
        ctx: &Context,
        call: &Value,
        graph: &mut Graph,
        seen: &mut HashSet<NodeKey>,
        next: &mut Vec<(Value, Node)>,
    ) {
        let Some(peer_raw) = call.get(peer_key(self.direction)) else {
            return;
        };
        let peer = match node(ctx, peer_raw) {
            Ok(peer) => peer,
            Err(name) => {
                graph.hidden.push(name);
                return;
            }
        };
        if self.level < self.depth && seen.insert(node_key(&peer)) {
            next.push((peer_raw.clone(), peer.clone()));
        }
        let from_ranges = call
            .get("fromRanges")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let sites_path = match self.direction {
            Direction::Incoming => peer.path.clone(),
            Direction::Outgoing => self.caller.path.clone(),
        };
        let via = (self.level > 1).then(|| self.caller.name.clone());
        graph.calls.push(Call {
            level: self.level,
            via,
            peer,
            from_ranges,
            sites_path,
        });
    }
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

/// The key of the other function in a call: the caller for incoming calls, the callee for
/// outgoing ones (LSP's names).
fn peer_key(direction: Direction) -> &'static str {
    match direction {
        Direction::Incoming => "from",
        Direction::Outgoing => "to",
    }
}
