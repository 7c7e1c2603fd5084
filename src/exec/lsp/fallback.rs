//! Text-based stand-ins for a language server, used when none is available for a file's
//! language or it has no answer: whole-word occurrences of names in the project's source files
//! of the same language (walked with the `ignore` crate, so `.gitignore`d and hidden files and
//! dependency directories are skipped, and protected files never read), declaration-looking
//! lines (`function X`, `class X`, `def X`, `fn X`, `const X =`, method headers), the function
//! that encloses a line (by indentation), and the calls inside a function body (declarations
//! themselves are recognised by `declare`). All of it is heuristic and is always labelled
//! `lspMode: "fallback"` by the tools. Blocking: callers run it on the blocking pool.

pub(crate) use super::declare::declaration_kind;
use super::declare::{declared_function, regex};
use super::registry::Language;
use super::resolve::{self, is_word, Syntax};
use super::text::Files;
use crate::exec::sandbox::Sandbox;
use crate::exec::text::split_lines;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Source files looked at, at most.
const MAX_FILES: usize = 20_000;
/// Files larger than this are skipped (bundles, generated code).
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// A text search stops after this long, well inside the LSP family's 30 s limit.
const TIME_BUDGET: Duration = Duration::from_secs(12);
/// Dependency and tool directories skipped even without a `.gitignore`.
const SKIP_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".next",
    ".nuxt",
];

/// The files a text search covers: the target file first, then the project's other files of
/// the same language (or, for an unknown language, the same extension).
pub(crate) struct Scope {
    pub(crate) files: Vec<PathBuf>,
    /// Whether the walk stopped at `MAX_FILES` or the time budget.
    pub(crate) truncated: bool,
    deadline: Instant,
    /// Every file of the scope is read through it.
    pub(crate) sandbox: Sandbox,
}

impl Scope {
    pub(crate) fn new(
        root: &Path,
        sandbox: &Sandbox,
        first: &Path,
        language: Option<&Language>,
    ) -> Scope {
        let deadline = Instant::now() + TIME_BUDGET;
        let ext = first
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let wanted = |p: &Path| match language {
            Some(lang) => lang.owns(p),
            None => {
                p.extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    == ext
            }
        };
        let walk = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .git_global(false)
            .require_git(false)
            .max_filesize(Some(MAX_FILE_BYTES))
            .filter_entry(|e| {
                !e.file_type().is_some_and(|t| t.is_dir())
                    || !SKIP_DIRS.iter().any(|d| e.file_name() == *d)
            })
            .build();
        let mut files = Vec::new();
        let mut truncated = false;
        for entry in walk.flatten() {
            if files.len() >= MAX_FILES || Instant::now() > deadline {
                truncated = true;
                break;
            }
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && path != first
                && wanted(path)
                && sandbox.allows(path)
            {
                files.push(path.to_path_buf());
            }
        }
        files.sort();
        files.insert(0, first.to_path_buf());
        Scope {
            files,
            truncated,
            deadline,
            sandbox: sandbox.clone(),
        }
    }

    fn expired(&self) -> bool {
        Instant::now() > self.deadline
    }
}

/// One occurrence of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) line: usize,
    /// UTF-16 columns of the name.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The kind of declaration the line makes of the name, if it looks like one.
    pub(crate) kind: Option<&'static str>,
}

/// What a search found.
pub(crate) struct Found {
    pub(crate) hits: Vec<Hit>,
    /// Whether the search stopped early (limit, time budget, or the walk itself stopped).
    pub(crate) truncated: bool,
}

/// Whole-word occurrences of the target's symbol in its project (declarations only when
/// `declarations_only`), found on the blocking pool; `None` if that task died.
pub(crate) async fn search_target(
    ctx: &crate::exec::Context,
    target: &super::Target,
    declarations_only: bool,
    limit: usize,
) -> Option<Found> {
    let root = ctx.lsp.project_root(&target.path);
    let sandbox = ctx.sandbox.clone();
    let (path, language, syntax, symbol) = (
        target.path.clone(),
        target.language,
        target.syntax,
        target.symbol.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let scope = Scope::new(&root, &sandbox, &path, language);
        find(
            &scope,
            &mut Files::new(&sandbox),
            &[&symbol],
            &syntax,
            declarations_only,
            limit,
        )
    })
    .await
    .ok()
}

/// Whole-word code occurrences of any of `names` in the scope's files, in file order;
/// `declarations_only` keeps those on declaration-looking lines. Texts read are kept in
/// `files` for the snippets.
pub(crate) fn find(
    scope: &Scope,
    files: &mut Files,
    names: &[&str],
    syntax: &Syntax,
    declarations_only: bool,
    limit: usize,
) -> Found {
    let mut hits = Vec::new();
    for path in &scope.files {
        if hits.len() >= limit || scope.expired() {
            hits.truncate(limit);
            return Found {
                hits,
                truncated: true,
            };
        }
        let Some(text) = files.get(path) else {
            continue;
        };
        if !names.iter().any(|n| text.contains(n)) {
            continue;
        }
        for (n, line) in split_lines(&text).into_iter().enumerate() {
            let masked = resolve::mask(line, syntax);
            for name in names {
                for byte in resolve::occurrences(line, name, syntax) {
                    let kind = declaration_kind(&masked, byte, name.len());
                    if declarations_only && kind.is_none() {
                        continue;
                    }
                    let start = resolve::utf16_len(&line[..byte]);
                    hits.push(Hit {
                        name: name.to_string(),
                        path: path.clone(),
                        line: n,
                        start,
                        end: start + resolve::utf16_len(name),
                        kind,
                    });
                }
            }
        }
    }
    let truncated = scope.truncated || hits.len() > limit;
    hits.truncate(limit);
    Found { hits, truncated }
}

fn indent(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count()
}

/// The function around `line`: a function declared earlier on the same line, else the nearest
/// function declaration above that is indented less than every line between. `None` means
/// module (file) scope. Returns (name, line, byte of the name).
pub(crate) fn enclosing(
    lines: &[&str],
    line: usize,
    byte: usize,
    syntax: &Syntax,
) -> Option<(String, usize, usize)> {
    let here = lines.get(line)?;
    let masked = resolve::mask(here, syntax);
    if let Some((at, name)) = declared_function(&masked).filter(|(at, _)| *at < byte) {
        return Some((name.to_string(), line, at));
    }
    let mut threshold = indent(here);
    for l in (0..line).rev() {
        let masked = resolve::mask(lines[l], syntax);
        if masked.trim().is_empty() {
            continue;
        }
        if threshold == 0 {
            return None;
        }
        let depth = indent(lines[l]);
        if depth < threshold {
            if let Some((at, name)) = declared_function(&masked) {
                return Some((name.to_string(), l, at));
            }
            threshold = depth;
        }
    }
    None
}

/// The last line of the body of the function declared on `decl`: to the brace that closes the
/// first `{` when one opens within three lines, else (indentation languages) the last line
/// indented deeper than the declaration.
pub(crate) fn body_end(lines: &[&str], decl: usize, syntax: &Syntax) -> usize {
    let last = lines.len().saturating_sub(1);
    let opens =
        (decl..=(decl + 2).min(last)).any(|l| resolve::mask(lines[l], syntax).contains('{'));
    if opens && !resolve::mask(lines[decl], syntax).trim_end().ends_with(':') {
        let mut depth = 0i64;
        let mut opened = false;
        for (l, line) in lines.iter().enumerate().skip(decl).take(5000) {
            for c in resolve::mask(line, syntax).chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
                if opened && depth <= 0 {
                    return l;
                }
            }
        }
        return last;
    }
    let base = indent(lines[decl]);
    let mut end = decl;
    for (l, line) in lines.iter().enumerate().skip(decl + 1) {
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) <= base {
            break;
        }
        end = l;
    }
    end
}

/// Words followed by `(` that are not calls.
const NOT_CALLS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "function",
    "fn",
    "def",
    "func",
    "elif",
    "with",
    "match",
    "await",
    "yield",
    "typeof",
    "sizeof",
    "super",
    "constructor",
    "foreach",
    "until",
    "unless",
    "assert",
    "not",
    "and",
    "or",
    "in",
    "is",
    "lambda",
    "new",
    "throw",
    "import",
    "require",
];

/// Calls in lines `from..=to` (a function body): (name, line, byte) in order, skipping the
/// function's own header name and keywords.
pub(crate) fn calls_in(
    lines: &[&str],
    from: usize,
    to: usize,
    syntax: &Syntax,
    own: (usize, usize),
) -> Vec<(String, usize, usize)> {
    static CALL: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(call) = regex(&CALL, r"([A-Za-z_$][\w$]*)\s*(?:<[\w$<>,\s\[\]]*>)?\s*\(") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (l, line) in lines.iter().enumerate().take(to + 1).skip(from) {
        let masked = resolve::mask(line, syntax);
        for caps in call.captures_iter(&masked) {
            let Some(name) = caps.get(1) else { continue };
            let before = masked[..name.start()].chars().next_back();
            if (l, name.start()) == own
                || NOT_CALLS.contains(&name.as_str())
                || before.is_some_and(is_word)
            {
                continue;
            }
            if l == from && declaration_kind(&masked, name.start(), name.len()).is_some() {
                continue;
            }
            out.push((name.as_str().to_string(), l, name.start()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::lsp::resolve::{C_LIKE, HASH};

    #[test]
    fn enclosing_functions_follow_indentation() {
        let src = "function outer() {\n  if (x) {\n    inner(1);\n  }\n}\n\nif (y) {\n  inner(2);\n}\nclass A {\n  run() {\n    inner(3);\n  }\n}\nconst f = () => inner(4);\n";
        let lines = split_lines(src);
        let at = |l: usize| {
            enclosing(&lines, l, lines[l].find("inner").unwrap(), &C_LIKE)
                .map(|(n, line, _)| (n, line))
        };
        assert_eq!(at(2), Some(("outer".into(), 0)));
        assert_eq!(
            at(7),
            None,
            "a call in a top-level block is at module scope"
        );
        assert_eq!(at(11), Some(("run".into(), 10)));
        assert_eq!(at(14), Some(("f".into(), 14)));
        let py = "class A:\n    def total(self):\n        return self.sum()\n";
        let lines = split_lines(py);
        assert_eq!(
            enclosing(&lines, 2, 20, &HASH).map(|(n, l, _)| (n, l)),
            Some(("total".into(), 1))
        );
    }

    #[test]
    fn bodies_and_calls() {
        let src = "function a(x) {\n  const y = b(x) + c.d(1);\n  if (y) { return e<T>(y); }\n}\nfunction z() {}\n";
        let lines = split_lines(src);
        assert_eq!(body_end(&lines, 0, &C_LIKE), 3);
        assert_eq!(body_end(&lines, 4, &C_LIKE), 4);
        let calls: Vec<String> = calls_in(&lines, 0, 3, &C_LIKE, (0, 9))
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(calls, vec!["b", "d", "e"]);
        let py = "def total(self):\n    x = self.sum()\n\n    return x\nprint(1)\n";
        let lines = split_lines(py);
        assert_eq!(body_end(&lines, 0, &HASH), 3);
        let calls: Vec<String> = calls_in(&lines, 0, 3, &HASH, (0, 4))
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(calls, vec!["sum"]);
    }

    #[test]
    fn scope_and_find_cover_the_language_and_skip_dependencies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/dep")).unwrap();
        std::fs::write(root.join("src/a.ts"), "export function run() {}\n").unwrap();
        std::fs::write(
            root.join("src/b.ts"),
            "import { run } from './a';\nrun(); // run\nconst s = 'run';\n",
        )
        .unwrap();
        std::fs::write(root.join("src/c.py"), "run()\n").unwrap();
        std::fs::write(root.join("node_modules/dep/d.ts"), "run();\n").unwrap();
        std::fs::write(root.join(".env.ts"), "run();\n").unwrap();
        let sandbox = Sandbox::new(&crate::config::ExecConfig::for_workspace(&root));
        let ts = super::super::registry::language_for(Path::new("x.ts"));
        let scope = Scope::new(&root, &sandbox, &root.join("src/b.ts"), ts);
        assert_eq!(
            scope.files,
            vec![root.join("src/b.ts"), root.join("src/a.ts")]
        );
        let mut files = Files::new(&sandbox);
        let found = find(&scope, &mut files, &["run"], &C_LIKE, false, 100);
        let at: Vec<(usize, Option<&str>)> = found.hits.iter().map(|h| (h.line, h.kind)).collect();
        assert_eq!(at, vec![(0, None), (1, None), (0, Some("function"))]);
        let found = find(&scope, &mut files, &["run"], &C_LIKE, true, 100);
        assert_eq!(found.hits.len(), 1);
        let found = find(&scope, &mut files, &["run"], &C_LIKE, false, 1);
        assert!(found.truncated && found.hits.len() == 1);
    }
}
