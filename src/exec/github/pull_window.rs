//! The character window of githubSearchPullRequests. Every pull request is split into parts
//! (its header, each file change, comment and commit), the parts are windowed like any other
//! list of items, and the chosen ones are put back together; a pull request whose header lay
//! in an earlier window comes back with its number, title and `continued: true`. A patch
//! longer than a window is cut, since it could never be shown whole.

use super::pull_parts::Parts;
use super::window::{size_of, window};
use serde_json::{json, Value};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Header,
    File,
    Comment,
    Commit,
}

impl Part {
    fn key(self) -> &'static str {
        match self {
            Part::Header => "",
            Part::File => "file_changes",
            Part::Comment => "comment_details",
            Part::Commit => "commit_details",
        }
    }
}

/// Splits every pull request into parts (its header, each file change, comment and commit),
/// windows the parts and puts the chosen ones back together. A patch longer than the window
/// is cut, since it could never be shown whole.
pub(crate) fn windowed(
    found: Vec<(String, String, Value)>,
    parts: Vec<Parts>,
    hints: &mut Vec<String>,
    offset: Option<usize>,
    length: Option<usize>,
    budget: usize,
    max_unit: usize,
) -> (Vec<Value>, Option<Value>, Vec<String>) {
    let mut units: Vec<(usize, Part, Value)> = Vec::new();
    let mut fetched: Vec<Vec<Part>> = Vec::new();
    let mut titles: Vec<(Value, Value)> = Vec::new();
    for (i, ((owner, repo, mut pr), p)) in found.into_iter().zip(parts).enumerate() {
        pr["repository"] = json!(format!("{owner}/{repo}"));
        hints.extend(p.hints);
        titles.push((pr["number"].clone(), pr["title"].clone()));
        units.push((i, Part::Header, pr.clone()));
        let mut kinds = Vec::new();
        for (kind, list) in [
            (Part::File, p.file_changes),
            (Part::Comment, p.comment_details),
            (Part::Commit, p.commit_details),
        ] {
            if let Some(list) = list {
                kinds.push(kind);
                for mut item in list {
                    if kind == Part::File {
                        // Room for the header too, so a pull request and its first file fit one window.
                        let room = max_unit
                            .saturating_sub(size_of(&pr) + 300)
                            .max(max_unit / 2);
                        cut_patch(&mut item, room, pr["number"].as_u64().unwrap_or(0), hints);
                    }
                    units.push((i, kind, item));
                }
            }
        }
        fetched.push(kinds);
    }
    let sizes: Vec<usize> = units.iter().map(|(_, _, v)| size_of(v)).collect();
    let w = window(&sizes, offset, length, budget, "parts");
    let mut out: Vec<(usize, Value)> = Vec::new();
    for (i, kind, value) in units.drain(w.start..w.end) {
        if out.last().is_none_or(|(j, _)| *j != i) {
            let mut base = if kind == Part::Header {
                value.clone()
            } else {
                // The header was in an earlier window: number and title say what this continues.
                let (number, title) = &titles[i];
                json!({"number": number, "title": title, "continued": true})
            };
            for k in &fetched[i] {
                base[k.key()] = json!([]);
            }
            out.push((i, base));
        }
        if kind != Part::Header {
            if let Some((_, pr)) = out.last_mut() {
                if let Some(list) = pr.get_mut(kind.key()).and_then(Value::as_array_mut) {
                    list.push(value);
                }
            }
        }
    }
    (out.into_iter().map(|(_, v)| v).collect(), w.info, w.hints)
}

/// Cuts a patch whose JSON form is longer than `max` characters (escapes such as `\n` count
/// twice, as they do in the answer).
fn cut_patch(change: &mut Value, max: usize, number: u64, hints: &mut Vec<String>) {
    let Some(patch) = change.get("patch").and_then(Value::as_str) else {
        return;
    };
    let max = max.max(200);
    let escaped = |c: char| match c {
        '\n' | '\r' | '\t' | '"' | '\\' => 2,
        c if (c as u32) < 0x20 => 6,
        _ => 1,
    };
    let mut used = 0;
    let mut keep_bytes = patch.len();
    for (i, c) in patch.char_indices() {
        used += escaped(c);
        if used > max {
            keep_bytes = i;
            break;
        }
    }
    if keep_bytes == patch.len() {
        return;
    }
    let file = change["filename"].as_str().unwrap_or("").to_string();
    let rest = patch[keep_bytes..].chars().count();
    change["patch"] = json!(format!(
        "{}\n... [patch cut: {rest} more characters]",
        &patch[..keep_bytes]
    ));
    hints.push(format!(
        "The patch of {file} in #{number} was cut short; ask for chosen lines with type=partialContent and partialContentMetadata=[{{\"file\": \"{file}\", \"additions\": [...]}}]"
    ));
}
