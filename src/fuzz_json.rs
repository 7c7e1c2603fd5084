//! Generators for the fuzz suites of the JSON entry points (catalog files, request bodies,
//! tool arguments, LSP messages): hostile scalars (wrong types, huge and tiny numbers,
//! NaN-ish strings, hostile text), arbitrary JSON trees, deep nesting, and mutations of a
//! valid document (a field deleted, retyped or added), so that most cases land near the
//! valid shape, where the parsers' own checks run, rather than at the first schema error.

use proptest::prelude::*;
use serde_json::{json, Map, Number, Value};

/// A suite's configuration: `default` cases, or as many as `PROPTEST_CASES` asks for (a
/// longer run than `make test` affords: `PROPTEST_CASES=10000 cargo test --lib fuzz`).
pub(crate) fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

/// Numbers at the edges: zero, negatives, the integer limits, floats that are not whole,
/// and the extremes of f64 (serde_json has no NaN or infinity; they arrive as strings).
fn edge_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(0.5)),
        Just(json!(-0.0)),
        Just(json!(1e308)),
        Just(json!(f64::MIN_POSITIVE)),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
    ]
}

/// Strings a parser may try to read as something else: NaN-ish and huge numbers, empty and
/// blank text, paths that climb out, globs and regexes that do not compile, then any hostile
/// text (controls, NUL, right-to-left, emoji, combining marks, very long words).
fn edge_string() -> impl Strategy<Value = String> {
    const SPECIAL: &[&str] = &[
        "",
        " ",
        "NaN",
        "-Infinity",
        "1e999",
        "-0",
        "18446744073709551616",
        "null",
        "true",
        "../../../../etc/passwd",
        "/",
        "~",
        "C:\\Windows",
        "[",
        "(?<",
        "**/***/{",
        "a\0b",
        "\u{202E}txt.exe",
        "%00",
        "\\u0000",
    ];
    prop_oneof![
        2 => proptest::sample::select(SPECIAL).prop_map(str::to_string),
        3 => crate::hostile_text::short_text(),
        1 => crate::hostile_text::text(),
        1 => any::<String>(),
    ]
}

/// Any scalar: null, a boolean, an edge number or an edge string.
pub(crate) fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        edge_number(),
        edge_string().prop_map(Value::String),
    ]
}

/// An arbitrary JSON tree: scalars, arrays and objects (keys hostile too), a few levels deep.
pub(crate) fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((edge_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// `depth` arrays (or objects under key "a") nested in one another, as text: built without
/// a `Value`, since a parser must refuse it before any tree that deep exists.
pub(crate) fn deep_text(depth: usize, objects: bool) -> String {
    let (open, close) = if objects {
        ("{\"a\":", "}")
    } else {
        ("[", "]")
    };
    let mut out = String::with_capacity(depth * (open.len() + close.len()) + 1);
    for _ in 0..depth {
        out.push_str(open);
    }
    out.push('1');
    for _ in 0..depth {
        out.push_str(close);
    }
    out
}

/// One change to a document.
#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    /// The field at this index (of all the document's fields, depth first) is removed.
    Delete(usize),
    /// The value at this index is replaced.
    Replace(usize, Value),
    /// The object at this index gets one more member.
    Add(usize, String, Value),
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => any::<usize>().prop_map(Mutation::Delete),
        4 => (any::<usize>(), value()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        1 => (any::<usize>(), edge_string(), value()).prop_map(|(i, k, v)| Mutation::Add(i, k, v)),
    ]
}

/// JSON pointers of every value under `root` (the root itself excluded), depth first.
fn pointers(root: &Value) -> Vec<String> {
    fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
        let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let p = format!("{at}/{}", escape(k));
                    out.push(p.clone());
                    walk(child, &p, out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    let p = format!("{at}/{i}");
                    out.push(p.clone());
                    walk(child, &p, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(root, "", &mut out);
    out
}

/// Applies `mutations` in order; an index picks among the document's values at that point
/// (modulo their number), so every mutation lands somewhere.
pub(crate) fn mutate(mut doc: Value, mutations: &[Mutation]) -> Value {
    for m in mutations {
        let all = pointers(&doc);
        if all.is_empty() {
            return doc;
        }
        let at = |i: usize| all[i % all.len()].clone();
        match m {
            Mutation::Delete(i) => {
                let p = at(*i);
                let (parent, key) = p.rsplit_once('/').expect("a pointer has a slash");
                match doc.pointer_mut(parent) {
                    Some(Value::Object(map)) => {
                        map.shift_remove(&key.replace("~1", "/").replace("~0", "~"));
                    }
                    Some(Value::Array(items)) => {
                        if let Ok(i) = key.parse::<usize>() {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
            Mutation::Replace(i, v) => {
                if let Some(slot) = doc.pointer_mut(&at(*i)) {
                    *slot = v.clone();
                }
            }
            Mutation::Add(i, k, v) => {
                let p = at(*i);
                let target = match doc.pointer_mut(&p) {
                    Some(Value::Object(_)) => p,
                    _ => String::new(),
                };
                if let Some(Value::Object(map)) = doc.pointer_mut(&target) {
                    map.insert(k.clone(), v.clone());
                }
            }
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_delete_replace_and_add_where_they_point() {
        let doc = json!({"a": 1, "b": {"c": [true, false]}});
        assert_eq!(
            mutate(doc.clone(), &[Mutation::Delete(0)]),
            json!({"b": {"c": [true, false]}})
        );
        assert_eq!(
            mutate(doc.clone(), &[Mutation::Replace(3, json!("x"))]),
            json!({"a": 1, "b": {"c": ["x", false]}})
        );
        assert_eq!(
            mutate(doc.clone(), &[Mutation::Add(1, "d".into(), json!(null))]),
            json!({"a": 1, "b": {"c": [true, false], "d": null}})
        );
        assert_eq!(mutate(json!({"k/~": 1}), &[Mutation::Delete(0)]), json!({}));
    }

    /// serde_json's depth limit (128) is what keeps a deep body, catalog file or LSP message
    /// from overflowing the stack: no source may lift it, nor may the crate's features.
    #[test]
    fn nothing_lifts_the_json_depth_limit() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let needles = [
            concat!("disable_", "recursion_limit"),
            concat!("serde_", "stacker"),
        ];
        let mut stack = vec![root.join("src"), root.join("tests")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for needle in needles {
                        assert!(!text.contains(needle), "{} uses {needle}", path.display());
                    }
                }
            }
        }
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains(concat!("unbounded_", "depth")),
            "Cargo.toml lifts the depth limit"
        );
    }

    #[test]
    fn deep_text_nests_as_asked() {
        assert_eq!(deep_text(2, false), "[[1]]");
        assert_eq!(deep_text(1, true), "{\"a\":1}");
        let err = serde_json::from_str::<Value>(&deep_text(100_000, false)).unwrap_err();
        assert!(err.to_string().contains("recursion limit"), "{err}");
    }
}
