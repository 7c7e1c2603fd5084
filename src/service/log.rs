//! The request log: one JSON line per request in `<log_dir>/requests.log`, and every error
//! (status >= 400) once more in `<log_dir>/errors.log` with its error code, message and, for
//! 5xx, the internal cause the answer leaves out. HTTP logs each request here, MCP each tool
//! call. 4xx answers are logged as errors too (like octocode's `errors.log` keeps validation
//! errors): a caller's rejected request is what an operator most often needs to look up.
//!
//! Logging must never stop a door from serving: a log directory that cannot be created, or
//! a write that fails, is reported once on stderr and file logging is then skipped.

use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub const REQUESTS_FILE: &str = "requests.log";
pub const ERRORS_FILE: &str = "errors.log";

/// One request, as logged.
#[derive(Debug, Serialize)]
pub struct Entry<'a> {
    pub timestamp: String,
    pub request_id: &'a str,
    pub method: &'a str,
    /// The route template that matched (`/tools/info/{toolName}`), or null for no route.
    pub route: Option<&'static str>,
    pub path: &'a str,
    pub status: u16,
    pub duration_ms: f64,
    /// The tool the route names, as the caller wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<&'a str>,
}

/// The open log files, if file logging is on.
pub struct RequestLog {
    dir: Option<PathBuf>,
    files: Option<(Mutex<File>, Mutex<File>)>,
    warned: AtomicBool,
}

impl RequestLog {
    /// Opens (creating as needed) the log files under `dir`; `None` turns file logging off.
    pub fn open(dir: Option<&Path>) -> RequestLog {
        let Some(dir) = dir else {
            return RequestLog::off();
        };
        let open = |name: &str| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(name))
                .map(Mutex::new)
        };
        let opened = std::fs::create_dir_all(dir)
            .and_then(|()| Ok((open(REQUESTS_FILE)?, open(ERRORS_FILE)?)));
        match opened {
            Ok(files) => RequestLog {
                dir: Some(dir.to_path_buf()),
                files: Some(files),
                warned: AtomicBool::new(false),
            },
            Err(e) => {
                tracing::warn!(
                    log_dir = %dir.display(),
                    error = %e,
                    "cannot open the log directory; serving without file logs"
                );
                RequestLog::off()
            }
        }
    }

    pub fn off() -> RequestLog {
        RequestLog {
            dir: None,
            files: None,
            warned: AtomicBool::new(true),
        }
    }

    /// The directory logs go to, when file logging is on.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Appends the entry to `requests.log`, and to `errors.log` when it is an error.
    pub fn record(&self, entry: &Entry<'_>) {
        let Some((requests, errors)) = &self.files else {
            return;
        };
        let Ok(mut line) = serde_json::to_vec(entry) else {
            return;
        };
        line.push(b'\n');
        // One write per line on an append-mode file: lines from concurrent requests do not
        // interleave, and a reader sees each line as soon as the request is answered.
        let mut result = write_line(requests, &line);
        if entry.status >= 400 {
            result = result.and(write_line(errors, &line));
        }
        if let Err(e) = result {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(error = %e, "cannot write the request log; further failures are not reported");
            }
        }
    }
}

fn write_line(file: &Mutex<File>, line: &[u8]) -> std::io::Result<()> {
    let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    file.write_all(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_json_lines_and_errors_twice() {
        let dir = tempfile::tempdir().unwrap();
        let logs_dir = dir.path().join("nested").join("logs");
        let log = RequestLog::open(Some(&logs_dir));
        assert_eq!(log.dir(), Some(logs_dir.as_path()));
        let mut entry = Entry {
            timestamp: "2026-01-01T00:00:00Z".into(),
            request_id: "r1",
            method: "GET",
            route: Some("/health"),
            path: "/health",
            status: 200,
            duration_ms: 1.5,
            tool: None,
            error_code: None,
            error_message: None,
            cause: None,
        };
        log.record(&entry);
        entry.status = 404;
        entry.request_id = "r2";
        entry.error_code = Some("ROUTE_NOT_FOUND");
        log.record(&entry);
        let requests = std::fs::read_to_string(logs_dir.join(REQUESTS_FILE)).unwrap();
        let errors = std::fs::read_to_string(logs_dir.join(ERRORS_FILE)).unwrap();
        let lines: Vec<serde_json::Value> = requests
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["request_id"], "r1");
        assert!(lines[0].get("error_code").is_none());
        assert_eq!(errors.lines().count(), 1);
        assert!(errors.contains("\"error_code\":\"ROUTE_NOT_FOUND\""));
    }

    #[test]
    fn an_unusable_directory_turns_file_logs_off() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let log = RequestLog::open(Some(&file.join("logs")));
        assert!(log.dir().is_none());
        // Recording is then a no-op, not a panic.
        log.record(&Entry {
            timestamp: String::new(),
            request_id: "r",
            method: "GET",
            route: None,
            path: "/",
            status: 500,
            duration_ms: 0.0,
            tool: None,
            error_code: None,
            error_message: None,
            cause: None,
        });
    }
}
