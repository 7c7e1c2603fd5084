//! The one writer of the usage database: a thread that drains the store's bounded channel,
//! writes what it finds in one transaction a batch, derives implicit selections in SQL, and
//! prunes to the retention bounds now and then. Requests only ever `try_send` to it.

use super::db::TABLES;
use super::record::{now_ms, query_hash, AnswerShown, Execution, Feedback, Record};
use rusqlite::{params, Connection, Transaction};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

/// Records written in one transaction at most: a commit (an fsync of the WAL, now and then)
/// costs far more than a row, so rows are batched, but not so many that a flush waits long.
const MAX_BATCH: usize = 1024;
/// How long a batch collects records after its first before it is written. A commit writes
/// every page the batch touched to the WAL, and a writer woken by every record switches
/// context once a record: with one record a commit the writer took ~30% of the server's CPU
/// under cached searches (17,000 answers/s, each recorded), ~15% waking a record at a time.
/// It sleeps instead, then drains what came. Records wait here, requests never do
/// (`try_send`); a flush waits at most this long, and a writer that fell behind (a full
/// batch) does not sleep.
const LINGER: Duration = Duration::from_millis(25);
/// An idle writer still prunes this often, so the day bound holds on a quiet server.
const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);
/// Rows one prune deletes from a table per bound at most, so a prune never holds the writer
/// for long (the queue fills meanwhile); the next prunes catch up.
const PRUNE_CHUNK: i64 = 50_000;
const DAY_MS: i64 = 86_400_000;

/// What the store sends its writer.
pub(crate) enum Msg {
    Record(Record),
    /// Write everything received so far, then answer.
    Flush(SyncSender<()>),
    /// Tests: say so on `stalled`, then wait until `release` is sent to or dropped, as a
    /// writer stuck on a slow disk would.
    #[cfg(test)]
    Stall {
        stalled: SyncSender<()>,
        release: Receiver<()>,
    },
}

/// Counts the store shows in `/health`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Records written.
    pub(crate) written: AtomicU64,
    /// Transactions that wrote them.
    pub(crate) commits: AtomicU64,
    /// Records dropped because the queue was full (or the writer gone).
    pub(crate) dropped: AtomicU64,
    /// Records lost to a failed write.
    pub(crate) failed: AtomicU64,
    /// Whether a write failure has been logged: the first is, the rest only counted.
    pub(crate) warned: AtomicBool,
}

/// The bounds the writer keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retention {
    pub(crate) days: u32,
    pub(crate) rows: u64,
    /// Records written between two prunes.
    pub(crate) prune_every: u64,
    /// How long after an answer an execution of one of its tools in the same session
    /// counts as selecting it.
    pub(crate) implicit_window_ms: i64,
}

pub(crate) struct Writer {
    pub(crate) conn: Connection,
    pub(crate) rx: Receiver<Msg>,
    pub(crate) retention: Retention,
    pub(crate) counters: std::sync::Arc<Counters>,
}

impl Writer {
    /// Runs until every sender is gone and the channel is drained.
    pub(crate) fn run(mut self) {
        let mut since_prune = 0;
        let mut last_prune = Instant::now();
        // Whether the last batch was full: the writer is behind and collects no longer.
        let mut behind = false;
        self.prune();
        loop {
            let first = match self.rx.recv_timeout(PRUNE_INTERVAL) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => {
                    self.prune();
                    last_prune = Instant::now();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if matches!(first, Msg::Record(_)) && !behind {
                std::thread::sleep(LINGER);
            }
            let mut pending: Vec<Record> = Vec::new();
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    Msg::Record(r) => pending.push(r),
                    Msg::Flush(ack) => {
                        since_prune += self.commit(&mut pending);
                        if since_prune >= self.retention.prune_every {
                            self.prune();
                            (since_prune, last_prune) = (0, Instant::now());
                        }
                        // The flusher may have given up waiting; nothing to do then.
                        let _ = ack.send(());
                    }
                    #[cfg(test)]
                    Msg::Stall { stalled, release } => {
                        since_prune += self.commit(&mut pending);
                        let _ = stalled.send(());
                        let _ = release.recv();
                    }
                }
                if pending.len() < MAX_BATCH {
                    next = self.rx.try_recv().ok();
                }
            }
            behind = pending.len() >= MAX_BATCH;
            since_prune += self.commit(&mut pending);
            if since_prune >= self.retention.prune_every || last_prune.elapsed() > PRUNE_INTERVAL {
                self.prune();
                (since_prune, last_prune) = (0, Instant::now());
            }
        }
    }

    /// Writes `pending` in one transaction and empties it; the number of records written.
    fn commit(&mut self, pending: &mut Vec<Record>) -> u64 {
        if pending.is_empty() {
            return 0;
        }
        let n = pending.len() as u64;
        let window = self.retention.implicit_window_ms;
        let result = self.conn.transaction().and_then(|tx| {
            for record in pending.iter() {
                insert(&tx, record, window)?;
            }
            tx.commit()
        });
        pending.clear();
        match result {
            Ok(()) => {
                self.counters.written.fetch_add(n, Ordering::Relaxed);
                self.counters.commits.fetch_add(1, Ordering::Relaxed);
                n
            }
            Err(e) => {
                self.counters.failed.fetch_add(n, Ordering::Relaxed);
                self.warn_once("cannot write usage records", &e);
                0
            }
        }
    }

    /// Deletes records older than the retention in days, then all but the newest
    /// `retention.rows` of each table.
    fn prune(&mut self) {
        let cutoff = now_ms().saturating_sub(i64::from(self.retention.days) * DAY_MS);
        let rows = i64::try_from(self.retention.rows).unwrap_or(i64::MAX);
        let result = self.conn.transaction().and_then(|tx| {
            for table in TABLES {
                tx.execute(
                    &format!(
                        "DELETE FROM {table} WHERE id IN
                         (SELECT id FROM {table} WHERE time_ms < ?1 LIMIT ?2)"
                    ),
                    params![cutoff, PRUNE_CHUNK],
                )?;
                // Ids only grow (the oldest rows are the ones deleted), so the newest `rows`
                // are those above max(id) - rows: found from the key's b-tree at once, where
                // an OFFSET would step through every row kept.
                tx.execute(
                    &format!(
                        "DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE id <=
                         (SELECT max(id) FROM {table}) - ?1 ORDER BY id LIMIT ?2)"
                    ),
                    params![rows, PRUNE_CHUNK],
                )?;
            }
            tx.commit()
        });
        if let Err(e) = result {
            self.warn_once("cannot prune the usage database", &e);
        }
    }

    fn warn_once(&self, what: &str, e: &rusqlite::Error) {
        if !self.counters.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %e, "{what}; further failures are only counted in /health");
        } else {
            tracing::debug!(error = %e, "{what}");
        }
    }
}

fn insert(tx: &Transaction<'_>, record: &Record, window_ms: i64) -> rusqlite::Result<()> {
    match record {
        Record::Execution(e) => insert_execution(tx, e, window_ms),
        Record::Answer(a) => insert_answer(tx, a),
        Record::Feedback(f) => insert_feedback(tx, f),
    }
}

/// A record's time; 0 (or less: no real event is that old) is the time it is written, so
/// a caller that leaves the default gets a usable time, not 1970 pruned at once.
fn stamp(time_ms: i64) -> i64 {
    if time_ms > 0 {
        time_ms
    } else {
        now_ms()
    }
}

fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

/// The execution, and the implicit selection it makes: when its session was shown an answer
/// returning this tool within the window, the latest such answer gets one `selected` row
/// flagged implicit, unless it has a selection of this tool already.
fn insert_execution(tx: &Transaction<'_>, e: &Execution, window_ms: i64) -> rusqlite::Result<()> {
    let mut params_used = e.parameters.clone();
    params_used.sort();
    params_used.dedup();
    let time_ms = stamp(e.time_ms);
    tx.prepare_cached(
        "INSERT INTO executions (time_ms, tool_id, source, outcome, error_code, latency_ms,
         output_bytes, query_count, params, session_id, request_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        time_ms,
        e.tool_id,
        e.source,
        e.outcome.as_str(),
        e.error_code,
        if e.latency_ms.is_finite() {
            e.latency_ms.max(0.0)
        } else {
            0.0
        },
        i64::try_from(e.output_bytes).unwrap_or(i64::MAX),
        e.query_count,
        json_list(&params_used),
        e.session_id,
        e.request_id,
    ])?;
    let Some(session) = &e.session_id else {
        return Ok(());
    };
    tx.prepare_cached(
        "INSERT INTO feedback (time_ms, request_id, session_id, query_text, query_hash,
         tool_id, signal, implicit)
         SELECT ?1, a.request_id, a.session_id, a.query_text, a.query_hash, ?2, 'selected', 1
         FROM (SELECT * FROM answers
               WHERE session_id = ?3 AND time_ms BETWEEN ?1 - ?4 AND ?1
                 AND EXISTS (SELECT 1 FROM json_each(answers.tool_ids) WHERE value = ?2)
               ORDER BY time_ms DESC, id DESC LIMIT 1) a
         WHERE NOT EXISTS (SELECT 1 FROM feedback f WHERE f.request_id = a.request_id
                           AND f.tool_id = ?2 AND f.signal = 'selected')",
    )?
    .execute(params![time_ms, e.tool_id, session, window_ms])?;
    Ok(())
}

fn insert_answer(tx: &Transaction<'_>, a: &AnswerShown) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO answers (time_ms, request_id, session_id, kind, query_text, query_hash,
         tool_ids, result_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        stamp(a.time_ms),
        a.request_id,
        a.session_id,
        a.kind.as_str(),
        a.query,
        query_hash(&a.query),
        json_list(&a.tool_ids),
        a.tool_ids.len() as i64,
    ])?;
    Ok(())
}

fn insert_feedback(tx: &Transaction<'_>, f: &Feedback) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO feedback (time_ms, request_id, session_id, query_text, query_hash,
         tool_id, signal, implicit, comment) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8)",
    )?
    .execute(params![
        stamp(f.time_ms),
        f.request_id,
        f.session_id,
        f.query,
        f.query.as_deref().map(query_hash),
        f.tool_id,
        f.signal.as_str(),
        f.comment,
    ])?;
    Ok(())
}
