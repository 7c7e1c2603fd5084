//! The embedder's ONNX Runtime sessions, each behind its own lock, and a small work split
//! (opening them side by side, and running a large bulk call's chunks on all of them).
//!
//! Why several sessions: a short query (the case a server lives on) gains nothing from a
//! second intra-op thread (measured end to end on the 2-core machine: 4.0-4.5 ms a search
//! with one or two), while one session behind one lock serialises concurrent queries. With
//! one session a core, concurrent queries embed side by side: distinct searches with two
//! connections went from ~300 to ~370 answers/s in alternating runs.

use ort::session::Session;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, TryLockError};

/// The sessions, each usable by one caller at a time.
pub(super) struct Sessions {
    sessions: Vec<Mutex<Session>>,
    /// Where the next caller starts looking for an idle session, so callers spread out.
    next: AtomicUsize,
}

impl Sessions {
    /// Takes at least one session.
    pub(super) fn new(sessions: Vec<Session>) -> Sessions {
        debug_assert!(!sessions.is_empty());
        Sessions {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// How many sessions there are.
    pub(super) fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Runs `f` on an idle session, or, when every one is busy, waits for one. A panic while a
    /// lock was held cannot leave a session half-updated from our side (we keep no state in
    /// it), so a poisoned lock is still usable.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut Session) -> R) -> R {
        let n = self.sessions.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for k in 0..n {
            match self.sessions[(start + k) % n].try_lock() {
                Ok(mut session) => return f(&mut session),
                Err(TryLockError::Poisoned(p)) => return f(&mut p.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let mut session = self.sessions[start]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f(&mut session)
    }
}

/// Runs `work(0..n)` on up to `workers` threads (the caller's own when one is enough) and
/// returns the results in index order. The first error stops the threads from taking more
/// work and is returned.
pub(super) fn run_split<T, E>(
    n: usize,
    workers: usize,
    work: impl Fn(usize) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
{
    let workers = workers.clamp(1, n.max(1));
    if workers == 1 {
        return (0..n).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<T, E>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n || failed.load(Ordering::Relaxed) {
                    break;
                }
                let result = work(k);
                if result.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                *slots[k].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
            });
        }
    });
    let mut out = Vec::with_capacity(n);
    for slot in slots {
        match slot.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(Ok(value)) => out.push(value),
            Some(Err(e)) => return Err(e),
            // Left untaken only after a failure, whose slot comes first or later; keep
            // looking for it.
            None => continue,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::run_split;

    #[test]
    fn results_come_in_index_order_whatever_the_workers() {
        for workers in [1, 2, 3, 8] {
            let out: Result<Vec<usize>, ()> = run_split(10, workers, |k| Ok(k * k));
            assert_eq!(out.unwrap(), (0..10).map(|k| k * k).collect::<Vec<_>>());
        }
        let none: Result<Vec<usize>, ()> = run_split(0, 4, Ok);
        assert!(none.unwrap().is_empty());
    }

    #[test]
    fn an_error_is_returned_and_stops_the_work() {
        for workers in [1, 2, 4] {
            let out: Result<Vec<usize>, String> = run_split(50, workers, |k| {
                if k == 7 {
                    Err(format!("chunk {k}"))
                } else {
                    Ok(k)
                }
            });
            assert_eq!(out.unwrap_err(), "chunk 7");
        }
    }
}
