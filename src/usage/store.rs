//! The SQLite usage store: a bounded channel to the one writer thread, a counter of what it
//! could not take, and a separate read connection for statistics.

use super::db::{self, FILE};
use super::record::Record;
use super::stats::{self, FeedbackEvent, ToolUse, UsageOverview, UsageStats};
use super::writer::{Counters, Msg, Retention, Writer};
use super::{Options, UsageHealth, UsageStore};
use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a flush waits between attempts to get its marker into a full queue.
const FLUSH_RETRY: Duration = Duration::from_millis(1);

pub(crate) struct SqliteStore {
    /// `None` once dropping: the writer sees the channel close, drains it and stops.
    tx: Option<SyncSender<Msg>>,
    writer: Option<JoinHandle<()>>,
    reader: Mutex<Connection>,
    counters: Arc<Counters>,
    path: PathBuf,
    min_calls: u64,
    /// Whether a failed read has been logged: the first is, the rest only at debug level.
    read_warned: AtomicBool,
}

impl SqliteStore {
    /// Opens (creating as needed) `<dir>/usage.db` and starts its writer. The error says why
    /// the store cannot run; a corrupt file is not an error (it is moved aside).
    pub(crate) fn open(options: &Options) -> Result<SqliteStore, String> {
        std::fs::create_dir_all(&options.dir)
            .map_err(|e| format!("cannot create {}: {e}", options.dir.display()))?;
        let path = options.dir.join(FILE);
        let conn = db::open_writer(&path)?;
        let reader = db::open_reader(&path)?;
        let (tx, rx) = sync_channel(options.queue.max(1));
        let counters = Arc::new(Counters::default());
        let writer = Writer {
            conn,
            rx,
            retention: Retention {
                days: options.retention_days,
                rows: options.retention_rows,
                prune_every: options.prune_every.max(1),
                implicit_window_ms: options.implicit_window_ms,
            },
            counters: Arc::clone(&counters),
        };
        let writer = std::thread::Builder::new()
            .name("usage-writer".into())
            .spawn(move || writer.run())
            .map_err(|e| format!("cannot start the usage writer: {e}"))?;
        Ok(SqliteStore {
            tx: Some(tx),
            writer: Some(writer),
            reader: Mutex::new(reader),
            counters,
            path,
            min_calls: options.min_calls,
            read_warned: AtomicBool::new(false),
        })
    }

    /// Tests: the transactions that have written records.
    #[cfg(test)]
    pub(crate) fn commits(&self) -> u64 {
        self.counters.commits.load(Ordering::Relaxed)
    }

    /// Tests: stops the writer (as a slow disk would) until the returned sender is used or
    /// dropped. Returns once the writer is stopped, so the queue is empty then.
    #[cfg(test)]
    pub(crate) fn stall(&self) -> SyncSender<()> {
        let (stalled_tx, stalled_rx) = sync_channel(1);
        let (release_tx, release_rx) = sync_channel(1);
        if let Some(tx) = &self.tx {
            tx.send(Msg::Stall {
                stalled: stalled_tx,
                release: release_rx,
            })
            .expect("the writer runs");
            stalled_rx.recv().expect("the writer stalls");
        }
        release_tx
    }

    /// Runs a read on the reader's connection; a failure is logged and read as `None`.
    fn read<T>(&self, what: &str, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let conn = self
            .reader
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match f(&conn) {
            Ok(v) => Some(v),
            Err(e) => {
                if !self.read_warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(error = %e, database = %self.path.display(), "cannot read {what} from the usage store");
                } else {
                    tracing::debug!(error = %e, "cannot read {what} from the usage store");
                }
                None
            }
        }
    }
}

impl UsageStore for SqliteStore {
    fn record(&self, record: Record) {
        let sent = match &self.tx {
            Some(tx) => tx.try_send(Msg::Record(record)).is_ok(),
            None => false,
        };
        if !sent {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn stats_for(&self, tool_id: &str) -> Option<UsageStats> {
        self.read("statistics", |c| {
            stats::stats_for(c, tool_id, self.min_calls)
        })
        .flatten()
    }

    fn overview(&self, limit: usize) -> UsageOverview {
        self.read("the overview", |c| stats::overview(c, limit))
            .unwrap_or_default()
    }

    fn tool_uses(&self) -> Vec<ToolUse> {
        self.read("tool uses", stats::tool_uses).unwrap_or_default()
    }

    fn feedback_events(&self, limit: usize) -> Vec<FeedbackEvent> {
        self.read("feedback", |c| stats::feedback_events(c, limit))
            .unwrap_or_default()
    }

    fn flush(&self, timeout: Duration) -> bool {
        let Some(tx) = &self.tx else {
            return false;
        };
        let deadline = Instant::now() + timeout;
        let (ack_tx, ack_rx) = sync_channel(1);
        let mut msg = Msg::Flush(ack_tx);
        // A blocking send could outlast the timeout behind a stalled writer: retry instead.
        loop {
            match tx.try_send(msg) {
                Ok(()) => break,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    if Instant::now() >= deadline {
                        return false;
                    }
                    msg = back;
                    std::thread::sleep(FLUSH_RETRY);
                }
            }
        }
        ack_rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .is_ok()
    }

    fn health(&self) -> UsageHealth {
        UsageHealth {
            enabled: true,
            path: Some(self.path.to_string_lossy().into_owned()),
            written: self.counters.written.load(Ordering::Relaxed),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
            off_reason: None,
        }
    }

    fn min_calls(&self) -> u64 {
        self.min_calls
    }
}

impl Drop for SqliteStore {
    /// Closes the channel and waits for the writer to write what is queued: a clean stop
    /// loses nothing.
    fn drop(&mut self) {
        self.tx.take();
        if let Some(writer) = self.writer.take() {
            if writer.join().is_err() {
                tracing::warn!("the usage writer panicked; records still queued are lost");
            }
        }
    }
}
