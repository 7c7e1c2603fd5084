//! The answer of lspCallHierarchy once the graph is built: the item, one page of calls with
//! the code of each function (then a character window over that code), the pagination, and
//! hints on what was found, cut or hidden.

use super::super::text::{self, Files};
use super::super::{hidden_hint, start_line, Target};
use super::{peer_key, Call, Direction, Graph, Node, Query, MAX_EXPANSIONS};
use crate::exec::outcome::Outcome;
use crate::exec::page::ListPage;
use crate::exec::Context;
use serde_json::{json, Map, Value};

fn lines_of(ranges: &[Value]) -> Vec<usize> {
    ranges.iter().map(start_line).collect()
}

/// Functions as the answer shows them, with their code read once per file.
struct Shown<'a> {
    ctx: &'a Context,
    q: &'a Query,
    files: Files,
}

impl Shown<'_> {
    fn node(&mut self, n: &Node, targets: &[usize]) -> Value {
        let mut v = json!({
            "name": n.name,
            "kind": n.kind,
            "uri": self.ctx.sandbox.display(&n.path),
            "range": n.range,
            "content": self.files.snippet(&n.path, targets, self.q.context_lines),
        });
        if let Some(detail) = &n.detail {
            v["detail"] = json!(detail);
        }
        v
    }

    fn call(&mut self, call: &Call) -> Value {
        let direction = self.q.direction;
        let targets = match direction {
            Direction::Incoming => lines_of(&call.from_ranges),
            Direction::Outgoing => vec![start_line(&call.peer.range)],
        };
        let mut entry = json!({"fromRanges": call.from_ranges, "level": call.level});
        entry[peer_key(direction)] = self.node(&call.peer, &targets);
        if direction == Direction::Outgoing {
            entry["callSites"] =
                json!(self
                    .files
                    .snippet(&call.sites_path, &lines_of(&call.from_ranges), 0));
        }
        if let Some(via) = &call.via {
            entry["via"] = json!(via);
        }
        entry
    }
}

pub(super) fn render(
    ctx: &Context,
    target: &Target,
    q: &Query,
    depth: usize,
    graph: Graph,
    lsp_mode: &str,
    mut hints: Vec<String>,
) -> Outcome {
    let mut shown = Shown {
        ctx,
        q,
        files: Files::new(&ctx.sandbox),
    };
    shown.files.insert(&target.path, target.text.clone());
    let item = shown.node(&graph.item, &[start_line(&graph.item.range)]);
    let total = graph.calls.len();
    let list = ListPage::new(total, q.page, q.calls_per_page);
    let entries: Vec<Value> = graph.calls[list.range()]
        .iter()
        .map(|call| shown.call(call))
        .collect();
    let (entries, window) = windowed(ctx, q, entries);
    hints.extend(graph.notes.iter().cloned());
    hints.extend(hidden_hint(&graph.hidden, "call(s)"));
    if graph.truncated {
        hints.push(format!("The graph was cut short (at most {MAX_EXPANSIONS} functions are expanded per query); use a smaller depth or start from a deeper function"));
    }
    let past_end = entries.is_empty() && window.pagination.is_none();
    hints.extend(found_hints(q, &graph, &list, depth, past_end));
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
            "totalPages": list.pages,
            "totalResults": total,
            "hasMore": list.has_more(),
            "resultsPerPage": list.size,
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

/// The entries with their code cut to the character window; entries whose code lies
/// outside the window are left out.
fn windowed(ctx: &Context, q: &Query, entries: Vec<Value>) -> (Vec<Value>, text::Window) {
    let key = peer_key(q.direction);
    let contents: Vec<String> = entries
        .iter()
        .map(|e| e[key]["content"].as_str().unwrap_or("").to_string())
        .collect();
    let mut window = text::window(
        contents,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
    );
    let parts = std::mem::take(&mut window.parts);
    let entries = entries
        .into_iter()
        .zip(parts)
        .filter_map(|(mut e, part)| {
            e[key]["content"] = json!(part?);
            Some(e)
        })
        .collect();
    (entries, window)
}

/// What was found and how to go on: none, a page past the end, or the calls of this page.
fn found_hints(
    q: &Query,
    graph: &Graph,
    list: &ListPage,
    depth: usize,
    past_end: bool,
) -> Vec<String> {
    let total_pages = list.pages;
    let (who, none) = match q.direction {
        Direction::Incoming => ("caller(s)", "No callers were found: the function may be unused, called dynamically, or only passed around (lspFindReferences lists every reference)"),
        Direction::Outgoing => ("callee(s)", "No calls were found inside this function"),
    };
    if list.total == 0 {
        return vec![none.to_string()];
    }
    if past_end {
        return vec![format!(
            "page {} is past the last page ({total_pages}); use page=1 to {total_pages}",
            list.number
        )];
    }
    let mut hints = vec![format!(
        "{} {who} of '{}' found, {depth} level(s) deep",
        list.total, graph.item.name
    )];
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
    hints
}
