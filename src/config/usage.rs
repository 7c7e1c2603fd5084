//! The `[usage]` section of the configuration: how long the usage store (`usage`) keeps what
//! it records, how many records may wait for its writer, and how many executions a tool
//! needs before its measured figures are used. Where the store lives is the top-level
//! `data_dir`, picked with the other directories.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Longest retention accepted: a hundred years, so days convert to milliseconds without
/// overflow and a typo of a few extra digits is caught.
const MAX_RETENTION_DAYS: u32 = 36_500;
/// Largest queue accepted: the queue's slots (about 200 bytes each, the records' text aside)
/// are allocated up front, so this bounds them to a few hundred megabytes.
const MAX_QUEUE: usize = 1 << 20;

/// `[usage]` in the configuration file; every key optional, unknown keys refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct UsageConfig {
    /// Records older than this many days are pruned.
    pub retention_days: u32,
    /// Each table keeps at most this many records, the newest.
    pub retention_rows: u64,
    /// Records that may wait for the writer; one more is dropped (and counted), so a request
    /// never waits on the disk.
    pub queue: usize,
    /// Executions of a tool before its measured latency and success rate are used.
    pub min_calls: u64,
}

impl Default for UsageConfig {
    fn default() -> Self {
        UsageConfig {
            retention_days: 90,
            retention_rows: 1_000_000,
            queue: 4096,
            min_calls: 20,
        }
    }
}

impl UsageConfig {
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |key: &str, expected: &str, found: String| {
            Err(Error::Config(format!(
                "[usage]: expected {key} {expected}, found {found}"
            )))
        };
        if !(1..=MAX_RETENTION_DAYS).contains(&self.retention_days) {
            return bad(
                "retention_days",
                &format!("from 1 to {MAX_RETENTION_DAYS}"),
                self.retention_days.to_string(),
            );
        }
        if self.retention_rows == 0 || self.retention_rows > i64::MAX as u64 {
            return bad(
                "retention_rows",
                "a positive whole number",
                self.retention_rows.to_string(),
            );
        }
        if !(1..=MAX_QUEUE).contains(&self.queue) {
            return bad(
                "queue",
                &format!("from 1 to {MAX_QUEUE}"),
                self.queue.to_string(),
            );
        }
        if self.min_calls == 0 {
            return bad("min_calls", "at least 1", "0".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_each_bad_value_is_named() {
        UsageConfig::default().check().unwrap();
        let cases = [
            (
                UsageConfig {
                    retention_days: 0,
                    ..UsageConfig::default()
                },
                "expected retention_days from 1 to 36500, found 0",
            ),
            (
                UsageConfig {
                    retention_rows: 0,
                    ..UsageConfig::default()
                },
                "expected retention_rows a positive whole number, found 0",
            ),
            (
                UsageConfig {
                    queue: 0,
                    ..UsageConfig::default()
                },
                "expected queue from 1 to 1048576, found 0",
            ),
            (
                UsageConfig {
                    min_calls: 0,
                    ..UsageConfig::default()
                },
                "expected min_calls at least 1, found 0",
            ),
        ];
        for (config, expected) in cases {
            let message = config.check().unwrap_err().to_string();
            assert!(message.contains(expected), "{message}");
            assert!(message.contains("[usage]"), "{message}");
        }
    }
}
