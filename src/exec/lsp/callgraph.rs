//! The text-based call graph behind lspCallHierarchy's fallback: callers are the functions
//! that enclose `name(` call sites of the symbol (by indentation), callees are the `name(`
//! calls inside the symbol's body (by braces or indentation), each callee located at its
//! declaration-looking line when one exists. Levels beyond 1 repeat the step on the functions
//! found. Best effort by construction; the tool labels it `lspMode: "fallback"`. Blocking.

use super::fallback::{self, Scope};
use super::hierarchy::{Call, Direction, Graph, Node};
use super::line_range;
use super::resolve::{self, Syntax};
use super::text::Files;
use crate::exec::text::split_lines;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Occurrences examined per level, at most.
const MAX_HITS: usize = 2000;

/// What the fallback knows about the target.
pub(crate) struct Start<'a> {
    pub(crate) path: &'a Path,
    pub(crate) symbol: &'a str,
    pub(crate) line: usize,
    pub(crate) byte: usize,
    pub(crate) character: usize,
    pub(crate) end_character: usize,
    pub(crate) syntax: Syntax,
}

fn name_range(line: usize, text: &str, byte: usize, name: &str) -> serde_json::Value {
    let start = resolve::utf16_len(&text[..byte.min(text.len())]);
    line_range(line, start, start + resolve::utf16_len(name))
}

/// The call graph around `start` by text, `depth` levels in `direction`.
pub(crate) fn build(scope: &Scope, start: &Start, direction: Direction, depth: usize) -> Graph {
    let mut files = Files::new(&scope.sandbox);
    let syntax = start.syntax;
    let symbol = start.symbol;
    // The item: the position itself when it declares the symbol, else the first declaration.
    let here_declares = files.get(start.path).and_then(|text| {
        let lines = split_lines(&text);
        let line = lines.get(start.line)?;
        fallback::declaration_kind(&resolve::mask(line, &syntax), start.byte, symbol.len())
    });
    let declaration = match here_declares {
        Some(kind) => Some((start.path.to_path_buf(), start.line, start.byte, kind)),
        None => fallback::find(scope, &mut files, &[symbol], &syntax, true, 1)
            .hits
            .into_iter()
            .next()
            .and_then(|h| {
                let text = files.get(&h.path)?;
                let byte = resolve::byte_of_utf16(split_lines(&text).get(h.line)?, h.start);
                Some((h.path, h.line, byte, h.kind.unwrap_or("function")))
            }),
    };
    let item = match &declaration {
        Some((path, line, byte, kind)) => {
            let text = files.get(path).unwrap_or_default();
            let line_text = split_lines(&text).get(*line).map_or("", |l| l).to_string();
            Node::new(
                symbol,
                kind,
                path.clone(),
                name_range(*line, &line_text, *byte, symbol),
            )
        }
        None => Node::new(
            symbol,
            "unknown",
            start.path.to_path_buf(),
            line_range(start.line, start.character, start.end_character),
        ),
    };
    let mut graph = Graph::new(item);
    match direction {
        Direction::Incoming => callers(scope, &mut files, &mut graph, symbol, syntax, depth),
        Direction::Outgoing => match declaration {
            Some((path, line, byte, _)) => callees(scope, &mut files, &mut graph, (symbol.to_string(), path, line, byte), syntax, depth),
            None => graph.notes.push(format!(
                "No declaration of '{symbol}' was found by text search, so the calls it makes cannot be listed"
            )),
        },
    }
    graph
}

/// Whether the code after a name (at `end`, a byte offset in `masked`) is a call: `(` or
/// `<...>(`, after optional spaces.
fn is_call(masked: &str, end: usize) -> bool {
    let rest = masked[end.min(masked.len())..].trim_start();
    if rest.starts_with('(') {
        return true;
    }
    rest.strip_prefix('<')
        .and_then(|r| r.find('>').map(|i| &r[i + 1..]))
        .is_some_and(|r| r.trim_start().starts_with('('))
}

fn callers(
    scope: &Scope,
    files: &mut Files,
    graph: &mut Graph,
    symbol: &str,
    syntax: Syntax,
    depth: usize,
) {
    let mut frontier = vec![symbol.to_string()];
    let mut seen: HashSet<String> = HashSet::from([symbol.to_string()]);
    for level in 1..=depth {
        if frontier.is_empty() {
            break;
        }
        let names: Vec<&str> = frontier.iter().map(String::as_str).collect();
        let found = fallback::find(scope, files, &names, &syntax, false, MAX_HITS);
        graph.truncated |= found.truncated;
        let mut next = Vec::new();
        let mut calls: Vec<Call> = Vec::new();
        for hit in found.hits.into_iter().filter(|h| h.kind.is_none()) {
            let Some(text) = files.get(&hit.path) else {
                continue;
            };
            let lines = split_lines(&text);
            let Some(line) = lines.get(hit.line) else {
                continue;
            };
            let byte = resolve::byte_of_utf16(line, hit.start);
            if !is_call(&resolve::mask(line, &syntax), byte + hit.name.len()) {
                continue;
            }
            let peer = match fallback::enclosing(&lines, hit.line, byte, &syntax) {
                Some((name, l, b)) => {
                    let kind = fallback::declaration_kind(
                        &resolve::mask(lines[l], &syntax),
                        b,
                        name.len(),
                    )
                    .unwrap_or("function");
                    if seen.insert(name.clone()) {
                        next.push(name.clone());
                    }
                    Node::new(
                        &name,
                        kind,
                        hit.path.clone(),
                        name_range(l, lines[l], b, &name),
                    )
                }
                None => top_level(&hit.path, line_range(hit.line, hit.start, hit.end)),
            };
            let site = line_range(hit.line, hit.start, hit.end);
            let via = (level > 1).then(|| hit.name.clone());
            add_site(&mut calls, (level, via, peer), hit.path.clone(), site);
        }
        graph.calls.extend(calls);
        frontier = next;
    }
}

/// The node for calls made at the top level of a file, outside any function.
fn top_level(path: &Path, range: serde_json::Value) -> Node {
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Node::new(
        &format!("{file} (top level)"),
        "module",
        path.to_path_buf(),
        range,
    )
}

/// Adds a call site to the call from the same peer by the same route, or a new call.
fn add_site(
    calls: &mut Vec<Call>,
    (level, via, peer): (usize, Option<String>, Node),
    sites_path: PathBuf,
    site: serde_json::Value,
) {
    match calls
        .iter_mut()
        .find(|c| c.peer.same(&peer) && c.via == via)
    {
        Some(call) => call.from_ranges.push(site),
        None => calls.push(Call {
            level,
            via,
            sites_path,
            peer,
            from_ranges: vec![site],
        }),
    }
}

/// (caller name, caller path, callee name, call sites).
type Sites = Vec<(String, PathBuf, String, Vec<serde_json::Value>)>;

/// Every call made in the bodies of the frontier's functions, grouped by caller and callee.
fn call_sites(files: &mut Files, frontier: &[Function], syntax: &Syntax) -> Sites {
    let mut sites: Sites = Vec::new();
    for (caller, path, decl, byte) in frontier {
        let Some(text) = files.get(path) else {
            continue;
        };
        let lines = split_lines(&text);
        let end = fallback::body_end(&lines, *decl, syntax);
        for (name, l, b) in fallback::calls_in(&lines, *decl, end, syntax, (*decl, *byte)) {
            let site = name_range(l, lines[l], b, &name);
            match sites
                .iter_mut()
                .find(|s| s.0 == *caller && s.1 == *path && s.2 == name)
            {
                Some(s) => s.3.push(site),
                None => sites.push((caller.clone(), path.clone(), name, vec![site])),
            }
        }
    }
    sites
}

type Function = (String, PathBuf, usize, usize);

fn callees(
    scope: &Scope,
    files: &mut Files,
    graph: &mut Graph,
    start: Function,
    syntax: Syntax,
    depth: usize,
) {
    let mut seen: HashSet<String> = HashSet::from([start.0.clone()]);
    let mut frontier = vec![start];
    let mut unresolved: Vec<String> = Vec::new();
    for level in 1..=depth {
        if frontier.is_empty() {
            break;
        }
        let sites = call_sites(files, &frontier, &syntax);
        let mut names: Vec<&str> = sites.iter().map(|s| s.2.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let declared = fallback::find(scope, files, &names, &syntax, true, MAX_HITS);
        graph.truncated |= declared.truncated;
        let mut next = Vec::new();
        for (caller, caller_path, name, ranges) in sites {
            let via = (level > 1).then(|| caller.clone());
            let peer = match declared.hits.iter().find(|h| h.name == name) {
                Some(h) => {
                    if seen.insert(name.clone()) {
                        if let Some(text) = files.get(&h.path) {
                            let byte = split_lines(&text)
                                .get(h.line)
                                .map_or(0, |l| resolve::byte_of_utf16(l, h.start));
                            next.push((name.clone(), h.path.clone(), h.line, byte));
                        }
                    }
                    Node::new(
                        &name,
                        h.kind.unwrap_or("function"),
                        h.path.clone(),
                        line_range(h.line, h.start, h.end),
                    )
                }
                None => {
                    if !unresolved.contains(&name) {
                        unresolved.push(name.clone());
                    }
                    Node::new(&name, "unknown", caller_path.clone(), ranges[0].clone())
                }
            };
            graph.calls.push(Call {
                level,
                via,
                peer,
                from_ranges: ranges,
                sites_path: caller_path,
            });
        }
        frontier = next;
    }
    if !unresolved.is_empty() {
        let shown: Vec<&str> = unresolved.iter().take(8).map(String::as_str).collect();
        graph.notes.push(format!(
            "No declaration was found in this project for {} (library, built-in or dynamic calls); they are shown at their call site with kind \"unknown\"",
            shown.join(", ")
        ));
    }
}
