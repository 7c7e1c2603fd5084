//! The temporary layout the sandbox attack corpus runs against, and the executor over it: a
//! workspace root with ordinary files, protected files holding the canary marker, and every
//! kind of link out of it; beside it an outside directory and a home directory full of canary
//! files (some named with the marker, so a listing that escapes shows it too).

use crate::common::shipped_catalog;
use serde_json::{json, Map, Value};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use toolscout::catalog::Catalog;
use toolscout::config::ExecConfig;
use toolscout::exec::{Executor, QueryResult, Tool};

/// The built layout. `base` holds `root` (the workspace), `outside`, `root-evil` and `home`.
pub struct Layout {
    _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    /// Text that only the files toolscout must never read hold (outside, home, protected).
    pub marker: String,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn link(target: impl AsRef<Path>, at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    symlink(target, at).unwrap();
}

impl Layout {
    pub fn new() -> Layout {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, outside, home) = (base.join("root"), base.join("outside"), base.join("home"));
        let marker = format!("zebra-canary-{}-{}", std::process::id(), line!());
        // Every canary's text starts so (see `assert_no_escape`).
        let secret = format!("leaked: {marker}\n");
        // Inside, readable.
        write(
            &root.join("src/main.ts"),
            "export function main(): number {\n  return helper();\n}\nfunction helper(): number {\n  return 1;\n}\n",
        );
        write(&root.join("notes.txt"), "inside-ok notes\nmain\n");
        // TypeScript that imports through a directory link out of the root: the language
        // server follows it; the answers must not.
        write(
            &root.join("src/uses.ts"),
            "import { leak, leaky } from \"../link_dir_abs/secret\";\nimport { helper2 } from \"./local\";\nexport function useIt(): string {\n  return leaky() + leak + helper2();\n}\n",
        );
        write(
            &root.join("src/local.ts"),
            "export function helper2(): string {\n  return \"inside-ok\";\n}\n",
        );
        write(&root.join("docs/readme.md"), "# readme\ninside-ok\n");
        write(&root.join("deep/a/b/c/keep.txt"), "inside-ok deep\n");
        // Inside, protected: they hold the marker because they must never be read either.
        for p in [
            ".git/config",
            ".git/HEAD",
            ".GIT/config",
            ".SSH/id_rsa",
            "sub/.ssh/id_ed25519",
            ".env",
            ".ENV",
            "config/.env.production",
        ] {
            write(&root.join(p), &secret);
        }
        // Outside: canaries, one named with the marker, a source file, keys.
        write(
            &outside.join("secret.ts"),
            &format!("export const leak = \"leaked: {marker}\";\nexport function leaky(): string {{\n  return leak;\n}}\n"),
        );
        for p in [
            "canary.txt",
            ".ssh/id_rsa",
            ".env",
            "hard-canary.txt",
            "racedir/race.txt",
        ] {
            write(&outside.join(p), &secret);
        }
        write(&outside.join(format!("{marker}.txt")), &secret);
        write(
            &outside.join("race-canary.txt"),
            &format!("const inside = '{marker}';\n"),
        );
        write(&base.join("root-evil/canary.txt"), &secret);
        // Ignore files the search walker reads: one above the root, one linked in from outside.
        // A line that is not a valid glob (`[` unclosed) would be quoted by a parse error.
        write(&base.join(".gitignore"), &format!("[{marker}\n"));
        write(&outside.join("ignore-canary"), &format!("[{marker}\n"));
        write(&home.join(".ssh/id_rsa"), &secret);
        write(&home.join(".bashrc"), &secret);
        Layout::links(&root, &outside, &home);
        std::fs::hard_link(outside.join("hard-canary.txt"), root.join("hardlink.txt")).unwrap();
        write(&root.join("inner_hard_a.txt"), "inside-ok twice\n");
        std::fs::hard_link(root.join("inner_hard_a.txt"), root.join("inner_hard_b.txt")).unwrap();
        Layout {
            _dir: dir,
            base,
            root,
            outside,
            home,
            marker,
        }
    }

    /// Every kind of symbolic link: to files and directories, absolute and relative, chains,
    /// loops, dangling, to protected files inside, and harmless ones (controls).
    fn links(root: &Path, outside: &Path, home: &Path) {
        link(outside.join("canary.txt"), &root.join("link_file_abs"));
        link("../outside/canary.txt", &root.join("link_file_rel"));
        link("../../outside/canary.txt", &root.join("src/link_nested"));
        link(outside.join("does-not-exist"), &root.join("dangling_out"));
        link(home, &root.join("link_home"));
        link("/", &root.join("link_slash"));
        link("..", &root.join("link_root_parent"));
        link("/proc/self/root", &root.join("link_proc"));
        link("/dev/zero", &root.join("link_dev_zero"));
        link(".env", &root.join("inner_link_env"));
        link(".git", &root.join("link_to_git"));
        link("../.SSH/id_rsa", &root.join("docs/innocent.md"));
        link("notes.txt", &root.join("ok_link"));
        link(root.join("notes.txt"), &root.join("link_abs_to_notes"));
        link(outside, &root.join("link_dir_abs"));
        link("../outside", &root.join("link_dir_rel"));
        link("../../../../../outside", &root.join("deep/a/b/c/link"));
        link("../..", &root.join("src/up"));
        link("chain2", &root.join("chain1"));
        link("src/chain3", &root.join("chain2"));
        link(outside.join("canary.txt"), &root.join("src/chain3"));
        link("link_dir_rel", &root.join("chain_dir"));
        link("src/hop", &root.join("mixed_chain"));
        link("../link_dir_abs", &root.join("src/hop"));
        link("loop_b", &root.join("loop_a"));
        link("loop_a", &root.join("loop_b"));
        link("self_loop", &root.join("self_loop"));
        link("hardlink.txt", &root.join("hardlink_via_link"));
        link(outside.join("ignore-canary"), &root.join("docs/.gitignore"));
        link(outside.join("ignore-canary"), &root.join("src/.ignore"));
    }

    /// `text` with the corpus placeholders filled in.
    pub fn fill(&self, text: &str) -> String {
        let mut out = text
            .replace("{root}", &self.root.to_string_lossy())
            .replace("{outside}", &self.outside.to_string_lossy())
            .replace("{home}", &self.home.to_string_lossy())
            .replace("{base}", &self.base.to_string_lossy())
            .replace("{marker}", &self.marker);
        while let Some(start) = out.find("{repeat:") {
            let end = start + out[start..].find('}').expect("a closed {repeat:N:TEXT}");
            let (count, unit) = out[start + 8..end].split_once(':').unwrap();
            let repeated = unit.repeat(count.parse().unwrap());
            out.replace_range(start..=end, &repeated);
        }
        out
    }

    /// An executor for the shipped catalog's tools with this layout's root and home.
    pub fn executor(&self) -> Executor {
        let mut config = ExecConfig::for_workspace(&self.root);
        config.home = Some(self.home.clone());
        let (catalog, _) = Catalog::load(&shipped_catalog()).unwrap();
        Executor::new(config, &catalog).unwrap()
    }

    /// What no output may hold: the marker, and absolute paths of the layout that `input`
    /// does not itself contain (a refusal quotes the input; it must not add where it led).
    pub fn assert_no_escape(&self, what: &str, input: &str, output: &str) {
        if let Some(why) = self.escape(input, output) {
            panic!("{what}: {why}\ninput: {input:?}\noutput: {output}");
        }
    }

    /// What [`Layout::assert_no_escape`] finds wrong with `output`, if anything.
    pub fn escape(&self, input: &str, output: &str) -> Option<String> {
        // An input naming the marker (a canary's file name) is quoted back; the canaries'
        // text must still never appear.
        let leak = if input.contains(&self.marker) {
            format!("leaked: {}", self.marker)
        } else {
            self.marker.clone()
        };
        if output.contains(&leak) {
            return Some("the canary marker escaped".into());
        }
        [&self.outside, &self.home, &self.root, &self.base]
            .iter()
            .map(|p| p.to_string_lossy())
            .find(|place| !input.contains(&**place) && output.contains(&**place))
            .map(|place| format!("the output discloses {place}"))
    }
}

/// One query with the research fields every tool requires.
pub fn query(fields: Value) -> Map<String, Value> {
    let mut q = fields.as_object().unwrap().clone();
    q.insert("id".into(), json!("q"));
    q.insert("researchGoal".into(), json!("sandbox corpus"));
    q.insert("reasoning".into(), json!("sandbox corpus"));
    q
}

/// Runs one query of `tool` and returns its result.
pub async fn run(executor: &Executor, tool: Tool, fields: Value) -> QueryResult {
    let mut call = executor.call(tool, vec![query(fields)]).await;
    call.results.remove(0)
}

/// A result's `errorCode`, "" when it is not an error.
pub fn code(r: &QueryResult) -> &str {
    r.data["errorCode"].as_str().unwrap_or("")
}
