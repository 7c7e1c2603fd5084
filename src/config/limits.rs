//! The `[limits]` section of the configuration: how much CPU work runs at once and how much
//! may wait (see `admission`). The defaults fit the machine: one worker per core for
//! ranking and as many for the local tools, so neither starves the other, and a queue deep
//! enough for a burst of agents.

use crate::admission::Limits;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Waiting requests per worker: a burst of this many agents per core is queued, not refused.
const QUEUE_PER_WORKER: usize = 32;

/// `[limits]` in the configuration file; every key optional, unknown keys refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Searches, recommendations and comparisons computed at once (0: one per core).
    pub workers: usize,
    /// Requests that may wait for a worker before more are refused with 503 (0: 32 per worker).
    pub queue: usize,
    /// Longest wait in a burst, in milliseconds.
    pub max_wait_ms: u64,
    /// Longest wait once the queue has not emptied for 100 ms, or refused a request within
    /// the last 100 ms (sustained overload).
    pub overload_wait_ms: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            workers: 0,
            queue: 0,
            max_wait_ms: 250,
            overload_wait_ms: 5,
        }
    }
}

impl LimitsConfig {
    pub(crate) fn check(&self) -> Result<()> {
        if self.max_wait_ms == 0 || self.overload_wait_ms > self.max_wait_ms {
            return Err(Error::Config(format!(
                "[limits]: expected 0 < overload_wait_ms <= max_wait_ms, found overload_wait_ms = {} and max_wait_ms = {}",
                self.overload_wait_ms, self.max_wait_ms
            )));
        }
        Ok(())
    }

    /// The gate's limits on this machine.
    pub fn limits(&self) -> Limits {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let workers = if self.workers == 0 {
            cores
        } else {
            self.workers
        };
        Limits {
            workers,
            queue: if self.queue == 0 {
                workers * QUEUE_PER_WORKER
            } else {
                self.queue
            },
            max_wait: Duration::from_millis(self.max_wait_ms),
            overload_wait: Duration::from_millis(self.overload_wait_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_cores_and_explicit_values_win() {
        let d = LimitsConfig::default().limits();
        assert!(d.workers >= 1);
        assert_eq!(d.queue, d.workers * QUEUE_PER_WORKER);
        let set = LimitsConfig {
            workers: 3,
            queue: 7,
            max_wait_ms: 50,
            overload_wait_ms: 2,
        };
        assert_eq!(
            set.limits(),
            Limits {
                workers: 3,
                queue: 7,
                max_wait: Duration::from_millis(50),
                overload_wait: Duration::from_millis(2)
            }
        );
    }

    #[test]
    fn waits_out_of_order_are_refused_with_both_values() {
        let bad = LimitsConfig {
            max_wait_ms: 10,
            overload_wait_ms: 20,
            ..LimitsConfig::default()
        };
        let message = bad.check().unwrap_err().to_string();
        assert!(message.contains("overload_wait_ms = 20") && message.contains("max_wait_ms = 10"));
    }
}
