//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// The `toolscout` binary built for this test run.
pub fn toolscout_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolscout"))
}

/// `tests/fixtures` of this crate.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// The catalog shipped with the crate (`catalog/`).
pub fn shipped_catalog() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalog")
}

/// The binary as a command that never touches the real home: file logs and the vector
/// cache and the usage store off unless a test turns them on.
pub fn toolscout() -> std::process::Command {
    let mut cmd = std::process::Command::new(toolscout_bin());
    cmd.env("TOOLSCOUT_CACHE_DIR", "")
        .env("TOOLSCOUT_LOG_DIR", "")
        .env("TOOLSCOUT_DATA_DIR", "");
    cmd
}

/// `text` without ANSI escape sequences (ESC, `[`, parameters, a final letter).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Every file under `dir`, in path order.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Reads an HTTP/1.1 request up to the end of its head, for the loopback stand-ins of GitHub;
/// `None` when the client went away first.
pub async fn request_head(socket: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    Some(seen)
}
