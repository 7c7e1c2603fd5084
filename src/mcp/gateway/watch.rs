//! Reloads the catalog when a source changes: an upstream MCP server announces that its
//! tool list changed (`follow_upstreams`), or a `dir` source changes on disk (`watch_dirs`).
//! Four times a second the sources' files are listed with their sizes and modification
//! times; a listing that differs from the one served, and holds still for one more look (an
//! editor's save, a `git checkout`), triggers `Service::reload`. Polling needs no platform
//! watcher and costs a few thousand `stat` calls a second for a catalog of a thousand files.
//! A reload that fails (a file saved half-way) leaves the last good catalog serving and
//! waits for the next change.

use crate::config::{Config, SourceKind};
use crate::service::Service;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Starts the upstreams' sessions and reloads when one announces changed tools. Changes that
/// come together (several servers, or one announcing twice) make one reload, and reloads
/// start at most once per `RELOAD_GAP`: a server that announces without end (a bug, or
/// hostile) costs one reload a second, not a core.
pub fn follow_upstreams(service: Arc<Service>, pool: Arc<super::Pool>) {
    pool.warm_up();
    let mut changes = pool.list_changes();
    tokio::spawn(async move {
        let mut last: Option<tokio::time::Instant> = None;
        while changes.changed().await.is_ok() {
            tokio::time::sleep(POLL / 2).await;
            if let Some(at) = last {
                tokio::time::sleep_until(at + RELOAD_GAP).await;
            }
            changes.borrow_and_update();
            last = Some(tokio::time::Instant::now());
            match service.reload().await {
                Ok(r) => {
                    tracing::info!(version = %r.version, "an upstream's tools changed; reloaded")
                }
                Err(e) => tracing::warn!(error = %e, "an upstream's tools changed; not reloaded"),
            }
        }
    });
}

/// The least time between two reloads an upstream's announcements start.
const RELOAD_GAP: Duration = Duration::from_secs(1);

/// How often the sources are looked at.
const POLL: Duration = Duration::from_millis(250);

/// One look at the files: path, size and modification time of each, in path order.
type Listing = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The files of `config`'s `dir` sources as they are now: taken before the catalog is read,
/// so that a change made while the server starts is seen as one.
pub fn dir_listing(config: &Config) -> DirListing {
    let dirs = dirs_of(config);
    let mut files = Vec::new();
    for dir in &dirs {
        walk(dir, &mut files, 0);
    }
    files.sort();
    DirListing { dirs, files }
}

/// The `dir` sources and their files at one moment.
pub struct DirListing {
    dirs: Vec<PathBuf>,
    files: Listing,
}

fn dirs_of(config: &Config) -> Vec<PathBuf> {
    config
        .catalog_sources
        .iter()
        .filter_map(|s| match &s.kind {
            SourceKind::Dir(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

/// Watches the `dir` sources of `since` for as long as the process runs, reloading on any
/// change from that listing on.
pub fn watch_dirs(service: Arc<Service>, since: DirListing) {
    let DirListing { dirs, files } = since;
    if dirs.is_empty() {
        return;
    }
    tokio::spawn(async move {
        let mut served = files;
        loop {
            tokio::time::sleep(POLL).await;
            let now = listing(&dirs).await;
            if now == served {
                continue;
            }
            // Still changing: look again before reloading.
            tokio::time::sleep(POLL / 2).await;
            if listing(&dirs).await != now {
                continue;
            }
            served = now;
            match service.reload().await {
                Ok(r) => tracing::info!(version = %r.version, "catalog files changed; reloaded"),
                Err(e) => tracing::warn!(error = %e, "catalog files changed; not reloaded"),
            }
        }
    });
}

async fn listing(dirs: &[PathBuf]) -> Listing {
    let dirs = dirs.to_vec();
    tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for dir in &dirs {
            walk(dir, &mut out, 0);
        }
        out.sort();
        out
    })
    .await
    .unwrap_or_default()
}

/// The JSON files under `dir`, as the catalog reads them (two levels: category, file).
fn walk(dir: &Path, out: &mut Listing, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() && depth < 2 {
            walk(&path, out, depth + 1);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push((path, meta.len(), meta.modified().ok()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listing_sees_added_changed_and_removed_files() {
        let dir = tempfile::tempdir().unwrap();
        let dirs = vec![dir.path().to_path_buf()];
        std::fs::create_dir(dir.path().join("web")).unwrap();
        let first = listing(&dirs).await;
        assert!(first.is_empty());
        std::fs::write(dir.path().join("web/a.json"), "{}").unwrap();
        std::fs::write(dir.path().join("web/notes.txt"), "not a tool").unwrap();
        let added = listing(&dirs).await;
        assert_eq!(added.len(), 1);
        std::fs::write(dir.path().join("web/a.json"), "{\"x\": 1}").unwrap();
        assert_ne!(listing(&dirs).await, added);
        std::fs::remove_file(dir.path().join("web/a.json")).unwrap();
        assert!(listing(&dirs).await.is_empty());
    }
}
