//! Which language server serves which file: the built-in table (file extension -> language
//! key, LSP language id and server command), overridden per language key by the `[tools]
//! lsp_servers` setting. A command is looked up in that order: the configured one, the
//! table's program on PATH, then toolscout's own install directory of language servers that
//! `scripts/fetch-language-servers` fills (`target/tools/lsp/node_modules/.bin`, found from
//! the executable or the source tree it was built from). Nothing a request says ever becomes
//! part of a command line: a request only picks a row of this table by its file's extension.

use super::resolve::{Syntax, C_LIKE, DASH, HASH, LISP, RUST};
use crate::config::ExecConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One language: the key users configure, its extensions with their LSP language ids, the
/// default server command and how its lines hide code (for symbol resolution and fallback).
#[derive(Debug)]
pub(crate) struct Language {
    pub(crate) key: &'static str,
    pub(crate) name: &'static str,
    pub(crate) extensions: &'static [(&'static str, &'static str)],
    pub(crate) command: &'static [&'static str],
    pub(crate) syntax: Syntax,
}

macro_rules! lang {
    ($key:literal, $name:literal, [$(($ext:literal, $id:literal)),+], [$($arg:literal),+], $syntax:expr) => {
        Language { key: $key, name: $name, extensions: &[$(($ext, $id)),+], command: &[$($arg),+], syntax: $syntax }
    };
}

/// The built-in table (octocode's registry), one language a row.
#[rustfmt::skip]
pub(crate) const LANGUAGES: &[Language] = &[
    lang!("typescript", "TypeScript/JavaScript",
        [("ts", "typescript"), ("tsx", "typescriptreact"), ("js", "javascript"), ("jsx", "javascriptreact"),
         ("mjs", "javascript"), ("cjs", "javascript"), ("mts", "typescript"), ("cts", "typescript")],
        ["typescript-language-server", "--stdio"], C_LIKE),
    lang!("python", "Python", [("py", "python"), ("pyi", "python")], ["pylsp"], HASH),
    lang!("go", "Go", [("go", "go")], ["gopls", "serve"], C_LIKE),
    lang!("rust", "Rust", [("rs", "rust")], ["rust-analyzer"], RUST),
    lang!("java", "Java", [("java", "java")], ["jdtls"], C_LIKE),
    lang!("kotlin", "Kotlin", [("kt", "kotlin"), ("kts", "kotlin")], ["kotlin-language-server"], C_LIKE),
    lang!("cpp", "C/C++",
        [("c", "c"), ("h", "c"), ("cpp", "cpp"), ("hpp", "cpp"), ("cc", "cpp"), ("cxx", "cpp")],
        ["clangd"], C_LIKE),
    lang!("csharp", "C#", [("cs", "csharp")], ["csharp-ls"], C_LIKE),
    lang!("ruby", "Ruby", [("rb", "ruby")], ["solargraph", "stdio"], HASH),
    lang!("php", "PHP", [("php", "php")], ["intelephense", "--stdio"], C_LIKE),
    lang!("swift", "Swift", [("swift", "swift")], ["sourcekit-lsp"], C_LIKE),
    lang!("dart", "Dart", [("dart", "dart")], ["dart", "language-server", "--client-id=toolscout"], C_LIKE),
    lang!("lua", "Lua", [("lua", "lua")], ["lua-language-server"], DASH),
    lang!("zig", "Zig", [("zig", "zig")], ["zls"], RUST),
    lang!("elixir", "Elixir", [("ex", "elixir"), ("exs", "elixir")], ["elixir-ls"], HASH),
    lang!("scala", "Scala", [("scala", "scala"), ("sc", "scala")], ["metals"], C_LIKE),
    lang!("haskell", "Haskell", [("hs", "haskell")], ["haskell-language-server-wrapper", "--lsp"], DASH),
    lang!("ocaml", "OCaml", [("ml", "ocaml"), ("mli", "ocaml")], ["ocamllsp"], RUST),
    lang!("clojure", "Clojure", [("clj", "clojure"), ("cljs", "clojure"), ("cljc", "clojure")], ["clojure-lsp"], LISP),
    lang!("vue", "Vue", [("vue", "vue")], ["vue-language-server", "--stdio"], C_LIKE),
    lang!("svelte", "Svelte", [("svelte", "svelte")], ["svelteserver", "--stdio"], C_LIKE),
    lang!("yaml", "YAML", [("yaml", "yaml"), ("yml", "yaml")], ["yaml-language-server", "--stdio"], HASH),
    lang!("toml", "TOML", [("toml", "toml")], ["taplo", "lsp", "stdio"], HASH),
    lang!("json", "JSON", [("json", "json"), ("jsonc", "jsonc")], ["vscode-json-language-server", "--stdio"], C_LIKE),
    lang!("html", "HTML", [("html", "html")], ["vscode-html-language-server", "--stdio"], C_LIKE),
    lang!("css", "CSS", [("css", "css"), ("scss", "scss"), ("less", "less")], ["vscode-css-language-server", "--stdio"], C_LIKE),
    lang!("bash", "Shell", [("sh", "shellscript"), ("bash", "shellscript"), ("zsh", "shellscript")], ["bash-language-server", "start"], HASH),
    lang!("sql", "SQL", [("sql", "sql")], ["sql-language-server", "up", "--method", "stdio"], DASH),
    lang!("graphql", "GraphQL", [("graphql", "graphql"), ("gql", "graphql")], ["graphql-lsp", "server", "-m", "stream"], HASH),
    lang!("terraform", "Terraform", [("tf", "terraform")], ["terraform-ls", "serve"], HASH),
];

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The language of a file, by extension.
pub(crate) fn language_for(path: &Path) -> Option<&'static Language> {
    let ext = extension(path)?;
    LANGUAGES
        .iter()
        .find(|l| l.extensions.iter().any(|(e, _)| *e == ext))
}

impl Language {
    /// The LSP language id of `path`, one of this language's.
    pub(crate) fn language_id(&self, path: &Path) -> &'static str {
        let ext = extension(path).unwrap_or_default();
        self.extensions
            .iter()
            .find(|(e, _)| *e == ext)
            .map_or(self.extensions[0].1, |(_, id)| id)
    }

    /// Whether `path` has one of this language's extensions.
    pub(crate) fn owns(&self, path: &Path) -> bool {
        extension(path).is_some_and(|ext| self.extensions.iter().any(|(e, _)| *e == ext))
    }
}

/// A server command ready to spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
}

impl Launch {
    /// The program's file name, for messages (never the full path).
    pub(crate) fn name(&self) -> String {
        self.program.file_name().map_or_else(
            || self.program.to_string_lossy().into_owned(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// The built-in table plus configuration, and where programs are looked for.
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    overrides: BTreeMap<String, Vec<String>>,
    search_path: Vec<PathBuf>,
    install_dirs: Vec<PathBuf>,
}

impl Registry {
    pub(crate) fn new(config: &ExecConfig) -> Registry {
        Registry::with_dirs(
            config.lsp_servers.clone(),
            config.search_path.clone(),
            install_dirs(),
        )
    }

    pub(crate) fn with_dirs(
        overrides: BTreeMap<String, Vec<String>>,
        search_path: Vec<PathBuf>,
        install_dirs: Vec<PathBuf>,
    ) -> Registry {
        Registry {
            overrides,
            search_path,
            install_dirs,
        }
    }

    /// The command for `lang`, or why there is none (a sentence naming what was tried and how
    /// to fix it).
    pub(crate) fn resolve(&self, lang: &Language) -> Result<Launch, String> {
        if let Some(argv) = self.overrides.get(lang.key).filter(|a| !a.is_empty()) {
            let program = &argv[0];
            return match self.find_program(program, false) {
                Some(found) => Ok(Launch {
                    program: found,
                    args: argv[1..].to_vec(),
                }),
                None => Err(format!(
                    "The configured {} language server '{program}' (tools.lsp_servers.{}) was not found; install it or fix that setting",
                    lang.name, lang.key
                )),
            };
        }
        let program = lang.command[0];
        match self.find_program(program, true) {
            Some(found) => Ok(Launch {
                program: found,
                args: lang.command[1..].iter().map(|s| s.to_string()).collect(),
            }),
            None => Err(install_advice(lang)),
        }
    }

    /// An absolute or relative path must exist; a bare name is looked up on PATH, then (for
    /// built-in commands) in toolscout's own install directories.
    fn find_program(&self, program: &str, own_installs: bool) -> Option<PathBuf> {
        let given = Path::new(program);
        if given.components().count() > 1 || given.is_absolute() {
            return is_executable(given).then(|| given.to_path_buf());
        }
        let on_path = self.search_path.iter().map(|d| d.join(program));
        let installed = self
            .install_dirs
            .iter()
            .filter(|_| own_installs)
            .map(|d| d.join("node_modules").join(".bin").join(program));
        on_path.chain(installed).find(|p| is_executable(p))
    }
}

fn install_advice(lang: &Language) -> String {
    let program = lang.command[0];
    let how = if lang.key == "typescript" {
        "run scripts/fetch-language-servers (or `npm install -g typescript-language-server typescript`)".to_string()
    } else {
        format!("install {program} and put it on PATH")
    };
    format!(
        "No {} language server was found ({program} is not on PATH). For semantic results {how}, or set tools.lsp_servers.{} to the server's command, e.g. [\"/path/to/{program}\"{}]",
        lang.name,
        lang.key,
        lang.command[1..].iter().map(|a| format!(", \"{a}\"")).collect::<String>()
    )
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Where `scripts/fetch-language-servers` may have installed servers: beside an installed
/// binary (`<prefix>/share/toolscout/lsp`), in the target directory the binary runs from
/// (`target/tools/lsp`), and in the source tree it was built from.
fn install_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    if let Some(dir) = &exe_dir {
        if let Some(prefix) = dir.parent() {
            dirs.push(prefix.join("share").join("toolscout").join("lsp"));
        }
        for ancestor in dir.ancestors().take(5) {
            dirs.push(ancestor.join("tools").join("lsp"));
            dirs.push(ancestor.join("target").join("tools").join("lsp"));
        }
    }
    dirs.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join("tools")
            .join("lsp"),
    );
    let mut seen = Vec::new();
    for d in dirs {
        if d.is_dir() && !seen.contains(&d) {
            seen.push(d);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn extensions_pick_languages_and_ids() {
        let ts = language_for(Path::new("src/App.TSX")).unwrap();
        assert_eq!(ts.key, "typescript");
        assert_eq!(ts.language_id(Path::new("src/App.tsx")), "typescriptreact");
        assert_eq!(ts.language_id(Path::new("a.mjs")), "javascript");
        assert_eq!(language_for(Path::new("x.py")).unwrap().key, "python");
        assert_eq!(
            language_for(Path::new("x.hpp"))
                .unwrap()
                .language_id(Path::new("x.hpp")),
            "cpp"
        );
        assert!(language_for(Path::new("notes.txt")).is_none());
        assert!(language_for(Path::new("Makefile")).is_none());
        let mut keys: Vec<&str> = LANGUAGES.iter().map(|l| l.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), LANGUAGES.len(), "language keys are unique");
    }

    #[test]
    fn configured_then_path_then_own_installs() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let own = dir.path().join("own");
        let ts = language_for(Path::new("a.ts")).unwrap();
        let py = language_for(Path::new("a.py")).unwrap();

        let none = Registry::with_dirs(BTreeMap::new(), vec![bin.clone()], vec![own.clone()]);
        let why = none.resolve(ts).unwrap_err();
        assert!(
            why.contains("scripts/fetch-language-servers")
                && why.contains("tools.lsp_servers.typescript"),
            "{why}"
        );
        let why = none.resolve(py).unwrap_err();
        assert!(
            why.contains("install pylsp") && why.contains("tools.lsp_servers.python"),
            "{why}"
        );

        executable(&own.join("node_modules/.bin/typescript-language-server"));
        let launch = none.resolve(ts).unwrap();
        assert_eq!(
            launch.program,
            own.join("node_modules/.bin/typescript-language-server")
        );
        assert_eq!(launch.args, vec!["--stdio"]);
        assert_eq!(launch.name(), "typescript-language-server");

        executable(&bin.join("typescript-language-server"));
        assert_eq!(
            none.resolve(ts).unwrap().program,
            bin.join("typescript-language-server")
        );

        let custom = dir.path().join("custom-ts");
        executable(&custom);
        let overrides = BTreeMap::from([
            (
                "typescript".to_string(),
                vec![
                    custom.to_string_lossy().into_owned(),
                    "--stdio".into(),
                    "--log-level=1".into(),
                ],
            ),
            (
                "python".to_string(),
                vec!["no-such-python-server".to_string()],
            ),
        ]);
        let configured = Registry::with_dirs(overrides, vec![bin.clone()], vec![own.clone()]);
        let launch = configured.resolve(ts).unwrap();
        assert_eq!((launch.program, launch.args.len()), (custom, 2));
        let why = configured.resolve(py).unwrap_err();
        assert!(
            why.contains("'no-such-python-server'") && why.contains("tools.lsp_servers.python"),
            "{why}"
        );
    }

    #[test]
    fn a_configured_path_must_exist_and_be_executable() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "not a program").unwrap();
        let overrides =
            BTreeMap::from([("go".to_string(), vec![plain.to_string_lossy().into_owned()])]);
        let r = Registry::with_dirs(overrides, vec![], vec![]);
        assert!(r.resolve(language_for(Path::new("m.go")).unwrap()).is_err());
    }
}
