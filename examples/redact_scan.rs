//! False-positive measurement for secret redaction: walks the directories given, runs
//! `redact` over every UTF-8 text file, and prints every hit (file:line, kind, the value
//! masked to its first four characters and length, and the line around it) for review,
//! then the totals: MB scanned, hits, hits per MB, hits per kind, MB/s.
//!
//! Run: `cargo run --release --example redact_scan -- [--exclude DIR]... [--quiet] DIR...`
//! (`--quiet` prints only the totals). `.git` and `target` directories are skipped.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;
use toolscout::exec::redact::redact_reporting;

/// Files above this are not text anyone reads through a tool (the redactor drops them).
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

#[derive(Default)]
struct Totals {
    files: usize,
    bytes: u64,
    skipped: usize,
    hits: usize,
    per_kind: BTreeMap<&'static str, usize>,
}

struct Options {
    dirs: Vec<PathBuf>,
    excluded: Vec<PathBuf>,
    quiet: bool,
}

fn options() -> Options {
    let mut o = Options {
        dirs: Vec::new(),
        excluded: Vec::new(),
        quiet: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quiet" => o.quiet = true,
            "--exclude" => o.excluded.extend(args.next().map(PathBuf::from)),
            _ => o.dirs.push(PathBuf::from(a)),
        }
    }
    if o.dirs.is_empty() {
        eprintln!("usage: redact_scan [--exclude DIR]... [--quiet] DIR...");
        std::process::exit(2);
    }
    o
}

fn walk(dir: &Path, o: &Options, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        if kind.is_dir() && name != ".git" && name != "target" && !o.excluded.contains(&path) {
            walk(&path, o, out);
        } else if kind.is_file() && !o.excluded.contains(&path) {
            out.push(path);
        }
    }
}

/// `ghp_…(40)`: enough to recognise a hit, never the value.
fn mask(value: &str) -> String {
    let head: String = value.chars().take(4).collect();
    format!("{head}…({})", value.chars().count())
}

fn scan(path: &Path, o: &Options, t: &mut Totals) {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let text = match String::from_utf8(bytes) {
        Ok(text)
            if size <= MAX_FILE_BYTES && !text.as_bytes().iter().take(8192).any(|&b| b == 0) =>
        {
            text
        }
        _ => {
            t.skipped += 1;
            return;
        }
    };
    t.files += 1;
    t.bytes += text.len() as u64;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut hits = Vec::new();
    let _ = redact_reporting(&text, |kind, value| hits.push((kind, value.to_string())));
    for (kind, value) in hits {
        t.hits += 1;
        *t.per_kind.entry(kind).or_default() += 1;
        if o.quiet {
            continue;
        }
        // The n-th report of a value is its n-th occurrence.
        let from = seen.get(&value).copied().unwrap_or(0);
        let at = text[from..].find(&value).map_or(0, |i| from + i);
        seen.insert(value.clone(), at + value.len().max(1));
        let line_no = text[..at].matches('\n').count() + 1;
        let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let context = text[line..end].replace(&value, &mask(&value));
        let context: String = context.trim().chars().take(160).collect();
        println!(
            "{}:{line_no}\t{kind}\t{}\t{context}",
            path.display(),
            mask(&value)
        );
    }
}

fn main() {
    let o = options();
    let started = Instant::now();
    let mut files = Vec::new();
    for dir in &o.dirs {
        walk(dir, &o, &mut files);
    }
    files.sort();
    let mut t = Totals::default();
    for path in &files {
        scan(path, &o, &mut t);
    }
    let mb = t.bytes as f64 / 1e6;
    let secs = started.elapsed().as_secs_f64();
    println!("--");
    println!(
        "files scanned: {} (skipped, binary or over 10 MB: {})",
        t.files, t.skipped
    );
    println!("MB scanned: {mb:.1}");
    println!(
        "hits: {}  hits per MB: {:.4}",
        t.hits,
        t.hits as f64 / mb.max(1e-9)
    );
    for (kind, n) in &t.per_kind {
        println!("  {kind}: {n}");
    }
    println!(
        "elapsed: {secs:.1} s ({:.1} MB/s including reading)",
        mb / secs
    );
}
