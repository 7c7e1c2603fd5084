//! Check-then-open races from the corpus (`races` in `tests/fixtures/sandbox/attacks.json`): a
//! thread keeps swapping a path inside the root between what it should be and a symbolic link
//! to an outside canary (the file itself, or a directory above it) while the tools read it
//! over and over. Each read must come back as the inside text, a refusal or "not found" (in
//! the instant a directory is moved away), and the marker must never appear.

use crate::common::fixtures;
use crate::sandbox_layout::{code, run, Layout};
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolscout::exec::Tool;

const INSIDE: &str = "const inside = 1;\n";

/// Flips `target` between its inside form and a link to `outside` until `stop`.
fn flipper(target: PathBuf, outside: PathBuf, is_dir: bool, stop: Arc<AtomicBool>) {
    let away = target.with_extension("away");
    let tmp = target.with_extension("tmp");
    while !stop.load(Ordering::Relaxed) {
        if is_dir {
            // A directory cannot be renamed over a link: move it aside, put the link in,
            // then take the link out and move the directory back.
            std::fs::rename(&target, &away).unwrap();
            symlink(&outside, &target).unwrap();
            std::thread::yield_now();
            std::fs::remove_file(&target).unwrap();
            std::fs::rename(&away, &target).unwrap();
        } else {
            // rename() replaces the path atomically: it is always either the file or the link.
            symlink(&outside, &tmp).unwrap();
            std::fs::rename(&tmp, &target).unwrap();
            std::thread::yield_now();
            std::fs::write(&tmp, INSIDE).unwrap();
            std::fs::rename(&tmp, &target).unwrap();
        }
        std::thread::yield_now();
    }
}

fn query(tool: &str, path: &str) -> (Tool, Value) {
    match tool {
        "localGetFileContent" => (Tool::LocalGetFileContent, json!({"path": path})),
        "localSearchCode" => (
            Tool::LocalSearchCode,
            json!({"pattern": "inside", "path": path, "followSymlinks": true}),
        ),
        "lspGotoDefinition" => (
            Tool::LspGotoDefinition,
            json!({"uri": path, "symbolName": "inside", "lineHint": 1}),
        ),
        // The listings are of the directory that holds the target.
        "localViewStructure" => (
            Tool::LocalViewStructure,
            json!({"path": parent(path), "hidden": true}),
        ),
        "localFindFiles" => (Tool::LocalFindFiles, json!({"path": parent(path)})),
        other => panic!("no race query for {other}"),
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

/// Reads `path` with every tool of the race until each has read the inside text and been
/// refused at least once (so the swap really raced the reads), within the iterations and a
/// time limit; counts (read, refused).
async fn race(layout: &Layout, race: &Value, path: &str) -> (usize, usize) {
    let executor = layout.executor();
    let (mut read, mut refused) = (0, 0);
    let iterations = race["iterations"].as_u64().unwrap() as usize;
    let started = Instant::now();
    for i in 0.. {
        let enough = i >= iterations && read > 0 && refused > 0;
        if enough || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        for tool in race["tools"].as_array().unwrap() {
            let tool = tool.as_str().unwrap();
            let (t, q) = query(tool, path);
            let r = run(&executor, t, q).await;
            let out = serde_json::to_string(&r.data).unwrap();
            layout.assert_no_escape(&format!("{} {tool} #{i}", race["id"]), path, &out);
            match code(&r) {
                "" if out.contains("inside") => read += 1,
                "" => {}
                "pathValidationFailed" => refused += 1,
                "fileNotFound" | "pathNotFound" => {}
                other => panic!("{tool}: unexpected {other}: {out}"),
            }
        }
    }
    (read, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_swapped_for_a_link_between_check_and_open_never_leaks() {
    let text = std::fs::read_to_string(fixtures().join("sandbox/attacks.json")).unwrap();
    let corpus: Value = serde_json::from_str(&text).unwrap();
    for spec in corpus["races"].as_array().unwrap() {
        let layout = Layout::new();
        let target = spec["target"].as_str().unwrap();
        let is_dir = target.contains('/');
        let (swapped, outside) = if is_dir {
            let dir = Path::new(target).parent().unwrap();
            (layout.root.join(dir), layout.outside.join(dir))
        } else {
            (
                layout.root.join(target),
                layout.outside.join("race-canary.txt"),
            )
        };
        std::fs::create_dir_all(layout.root.join(target).parent().unwrap()).unwrap();
        std::fs::write(layout.root.join(target), INSIDE).unwrap();
        if is_dir {
            // The outside twin holds the canary under the same name, and a file named with the
            // marker that only a listing of the wrong directory would show.
            std::fs::write(outside.join(format!("{}.txt", layout.marker)), "").unwrap();
            std::fs::write(
                outside.join("race.txt"),
                format!("const inside = '{}';\n", layout.marker),
            )
            .unwrap();
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flip = {
            let stop = stop.clone();
            std::thread::spawn(move || flipper(swapped, outside, is_dir, stop))
        };
        let (read, refused) = race(&layout, spec, target).await;
        stop.store(true, Ordering::Relaxed);
        flip.join().unwrap();
        assert!(read > 0, "{}: the inside text was never read", spec["id"]);
        assert!(
            refused > 0,
            "{}: no read was ever refused, so nothing raced",
            spec["id"]
        );
    }
}
