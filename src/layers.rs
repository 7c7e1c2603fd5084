//! The layer rule, checked: every top-level module of the library sits on one layer, and its
//! code names only modules of lower layers (`crate::<module>`). A test reads the sources,
//! so a new import that points upward or sideways fails `make test` with the file and the
//! edge to remove. Test code (files named `tests.rs`, anything after `#[cfg(test)]`) may
//! reach anywhere: a test of the error table may compile a schema.

/// The layers, lowest first. A module may use modules of lower layers only.
pub(crate) const LAYERS: &[&[&str]] = &[
    // Core: no dependencies inside the crate but each other, bottom up.
    &["time", "builtin", "admission"],
    &["error"],
    &["schema", "config"],
    // Tool metadata.
    &["catalog"],
    // Search building blocks.
    &["analysis", "embed", "rank"],
    &["index"],
    // The two engines, discovery and execution, and the usage store beside them.
    &["engine", "exec", "usage"],
    // What the doors share: rendering, prompts, the evaluation harness.
    &["format", "prompts", "eval"],
    // The one service behind every door.
    &["service"],
    // Doors (the CLI is the binary crate, above everything here). HTTP mounts MCP's
    // streamable transport at `/mcp`, so it sits above it.
    &["mcp"],
    &["http"],
];

/// The layer of a top-level module, if it is one of the library's.
pub(crate) fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules that `source` (one file, without its tests) names through
/// `crate::`, in `crate::x` paths and `use crate::{x, y}` groups.
pub(crate) fn named_modules(source: &str) -> Vec<String> {
    let code = match source.find("#[cfg(test)]") {
        Some(i) => &source[..i],
        None => source,
    };
    let mut out: Vec<String> = Vec::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            // Top-level names of the group: those not inside a nested `{...}`.
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(inner[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            out.push(ident(inner[start..].trim()));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_module_is_on_a_layer() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
        for line in lib.lines() {
            if let Some(name) = line.trim().strip_prefix("pub mod ") {
                let name = name.trim_end_matches(';');
                assert!(
                    name == "layers" || layer_of(name).is_some(),
                    "src/lib.rs declares `{name}`, which no layer in src/layers.rs holds"
                );
            }
        }
    }

    #[test]
    fn dependencies_point_down() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut wrong = Vec::new();
        for file in files {
            let rel = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
            let (Some(own), false) = (layer_of(top), rel.ends_with("tests.rs")) else {
                continue;
            };
            let source = std::fs::read_to_string(&file).unwrap();
            for used in named_modules(&source) {
                match layer_of(&used) {
                    Some(l) if used != top && l >= own => wrong.push(format!(
                        "src/{rel} ({top}, layer {own}) uses {used} (layer {l})"
                    )),
                    _ => {}
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "imports against the layers:\n{}",
            wrong.join("\n")
        );
    }

    #[test]
    fn names_are_read_from_paths_and_groups() {
        let src = "use crate::catalog::{Catalog, ToolRecord};\nuse crate::{error::Result, rank::{self, Weights}};\nfn f() { crate::time::now(); }\n#[cfg(test)]\nuse crate::http;";
        assert_eq!(named_modules(src), ["catalog", "error", "rank", "time"]);
    }
}
