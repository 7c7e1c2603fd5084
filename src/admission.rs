//! Admission for CPU work: a gate of `workers` permits in front of the blocking pool, with a
//! bounded queue. Without it every request got a blocking thread of its own, so 128
//! connections of uncached searches ran 128 rankings at once on two cores: each took 128
//! times longer and the process grew to gigabytes (a heap arena and a response in flight per
//! thread). Behind the gate at most `workers` run; the rest wait in a queue of `queue`
//! places, and a request that finds the queue full is refused at once, so a client learns
//! to back off (503 with `Retry-After`) instead of timing out.
//!
//! How long a request may wait follows CoDel (Nichols and Jacobson, "Controlling Queue
//! Delay", and its use for request queues in "Fail at Scale", Maurer 2015): a queue that
//! empties now and then is a burst, and a waiter may stay up to `max_wait`; a queue that has
//! not emptied for `STANDING`, or that had to refuse a request within it, is load beyond
//! capacity, and then a waiter gives up after `overload_wait`. So a burst of agents is
//! served whole, while under sustained overload the requests that are accepted still answer
//! within about one service time of an idle server's latency, and the rest are refused
//! quickly instead of all of them answering late.
//!
//! A request dropped while it waits (its client went away) leaves the queue and costs
//! nothing more; work already started runs to its end, which the permit bounds.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long the queue must stay non-empty before waiting counts as overload, not a burst:
/// CoDel's interval, about a worst-case round trip.
const STANDING: Duration = Duration::from_millis(100);

/// The gate's size and patience; `config` reads them from the `[limits]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Pieces of work that run at once.
    pub workers: usize,
    /// Requests that may wait for a worker; one more is refused.
    pub queue: usize,
    /// Longest wait in a burst.
    pub max_wait: Duration,
    /// Longest wait once the queue is standing (overload).
    pub overload_wait: Duration,
}

/// Why work was not done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Every worker was busy and the queue full, or the wait ran out.
    Overloaded {
        /// Which gate: `search`, `tools`.
        work: &'static str,
        workers: usize,
        /// Requests waiting when this one was refused.
        waiting: usize,
        /// How long this one waited before it was refused.
        waited: Duration,
    },
    /// The work panicked or its thread was lost.
    Died(String),
}

/// What `/health` shows of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct GateStats {
    pub workers: usize,
    pub busy: usize,
    pub waiting: usize,
    pub queue: usize,
    pub admitted: u64,
    pub refused: u64,
}

/// One gate; share it in an `Arc`.
pub struct Gate {
    work: &'static str,
    limits: Limits,
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    epoch: Instant,
    /// When (ms after `epoch`) a request last found a worker free: the queue was empty.
    idle_at: AtomicU64,
    /// When (ms after `epoch`, plus one; 0: never) a request was last refused.
    refused_at: AtomicU64,
    admitted: AtomicU64,
    refused: AtomicU64,
}

/// Leaves the queue when dropped, however the wait ended (a permit, a refusal, a client gone).
struct Queued<'a>(&'a AtomicUsize);

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Gate {
    /// A gate named `work`; at least one worker.
    pub fn new(work: &'static str, limits: Limits) -> Gate {
        let limits = Limits {
            workers: limits.workers.max(1),
            ..limits
        };
        Gate {
            work,
            permits: Arc::new(Semaphore::new(limits.workers)),
            limits,
            waiting: AtomicUsize::new(0),
            epoch: Instant::now(),
            idle_at: AtomicU64::new(0),
            refused_at: AtomicU64::new(0),
            admitted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// Runs `work` on the blocking pool once a worker is free, or refuses it.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let permit = self.permit().await?;
        self.admitted.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| Refused::Died(e.to_string()))
    }

    pub fn stats(&self) -> GateStats {
        GateStats {
            workers: self.limits.workers,
            busy: self.limits.workers - self.permits.available_permits().min(self.limits.workers),
            waiting: self.waiting.load(Ordering::SeqCst),
            queue: self.limits.queue,
            admitted: self.admitted.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
        }
    }

    async fn permit(&self) -> Result<OwnedSemaphorePermit, Refused> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            self.idle_at.store(self.now_ms(), Ordering::Relaxed);
            return Ok(permit);
        }
        let started = Instant::now();
        let ahead = self.waiting.fetch_add(1, Ordering::SeqCst);
        let _queued = Queued(&self.waiting);
        if ahead >= self.limits.queue {
            return Err(self.refuse(ahead, started));
        }
        let patience = if self.standing() {
            self.limits.overload_wait
        } else {
            self.limits.max_wait
        };
        match tokio::time::timeout(patience, self.permits.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(closed)) => Err(Refused::Died(closed.to_string())),
            Err(_) => Err(self.refuse(ahead, started)),
        }
    }

    /// The queue has not emptied for `STANDING`, or a request was refused within it. The
    /// second keeps an overload an overload: the short waits drain the queue now and then,
    /// and a request that then finds a worker free must not turn the next ones patient
    /// again while the load goes on (that swing put the p99 at twice the load at 120 ms).
    fn standing(&self) -> bool {
        let now = self.now_ms();
        let interval = STANDING.as_millis() as u64;
        let idle_at = self.idle_at.load(Ordering::Relaxed);
        let refused_at = self.refused_at.load(Ordering::Relaxed);
        // Saturating: another thread may have stored a refusal after `now` was read.
        now.saturating_sub(idle_at) > interval
            || (refused_at > 0 && (now + 1).saturating_sub(refused_at) <= interval)
    }

    fn refuse(&self, waiting: usize, started: Instant) -> Refused {
        self.refused.fetch_add(1, Ordering::Relaxed);
        self.refused_at.store(self.now_ms() + 1, Ordering::Relaxed);
        Refused::Overloaded {
            work: self.work,
            workers: self.limits.workers,
            waiting,
            waited: started.elapsed(),
        }
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests;
