//! Reading the file for localGetFileContent, refusing what cannot be served: a missing
//! path, a directory or device, a file over the size limits, binary content. Only the first
//! 8 KB is read before the refusals, so a refused file is never read whole; UTF-16 is
//! converted and a UTF-8 byte-order mark dropped.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::sandbox::{OpenError, Sandbox};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Bytes looked at to decide whether a file is text.
const SNIFF_BYTES: usize = 8192;
/// Files above this need a line range, a matchString or charLength.
const FULL_READ_LIMIT: u64 = 100 * 1024;
/// Files above this are not read at all; localSearchCode scans them without loading them.
const READ_LIMIT: u64 = 64 * 1024 * 1024;

/// Reads the file, refusing what is not a readable regular text file. `partial` reads (a
/// range, a match, a character window) may touch files over the 100 KB rule.
pub(super) fn read_text(
    sandbox: &Sandbox,
    path: &Path,
    raw: &str,
    partial: bool,
) -> Result<(String, Metadata, Vec<String>), QueryError> {
    let (mut file, meta) = regular_file(sandbox, path, raw)?;
    let size = meta.len();
    if size > READ_LIMIT {
        return Err(too_large(raw, size, READ_LIMIT, &["Use localSearchCode on this file to find the lines you need; it does not load the file"]));
    }
    let read_failed = |e: std::io::Error| {
        QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: {}", e.kind()),
        )
    };
    // The sniff and the size rule need only the head; a refused file is never read whole.
    let mut bytes = Vec::with_capacity(size.min(READ_LIMIT) as usize);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut bytes)
        .map_err(read_failed)?;
    check_head(raw, &bytes, size, partial)?;
    file.take(READ_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(read_failed)?;
    let (text, warnings) = decode(bytes);
    Ok((text, meta, warnings))
}

/// The file, opened through the sandbox, and its metadata, when the path names a regular file
/// that exists and may be read. The checks run on the open file, so they describe what is read.
fn regular_file(sandbox: &Sandbox, path: &Path, raw: &str) -> Result<(File, Metadata), QueryError> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => QueryError::new(
            Failure::NotFound,
            ToolErrorCode::FileNotFound,
            format!("File '{raw}' does not exist"),
        )
        .hint("Relative paths start at the workspace root; localFindFiles finds a file by name")
        .hint("localViewStructure lists what a directory holds"),
        std::io::ErrorKind::PermissionDenied => QueryError::new(
            Failure::Denied,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: permission denied"),
        ),
        kind => QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::FileAccessFailed,
            format!("File '{raw}' cannot be read: {kind}"),
        ),
    };
    let (file, meta) = sandbox.open(path, raw).map_err(|e| match e {
        OpenError::Io(e) => io(e),
        OpenError::Refused(e) => e,
    })?;
    if meta.is_dir() {
        return Err(QueryError::new(Failure::Invalid, ToolErrorCode::PathIsDirectory, format!("'{raw}' is a directory, not a file"))
            .hint("Use localViewStructure to list the directory, or localFindFiles / localSearchCode to pick a file in it"));
    }
    if !meta.is_file() {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::NotARegularFile,
            format!("'{raw}' is not a regular file (device, socket or pipe)"),
        ));
    }
    Ok((file, meta))
}

/// The refusals decided by the file's first 8 KB and its size: binary content, and an
/// unbounded read of a file over 100 KB.
fn check_head(raw: &str, head: &[u8], size: u64, partial: bool) -> Result<(), QueryError> {
    let utf16 = matches!(head, [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..]);
    if !utf16 && looks_binary(head) {
        return Err(QueryError::new(
            Failure::Unprocessable,
            ToolErrorCode::BinaryFileUnsupported,
            format!("File '{raw}' is binary (a NUL byte or invalid UTF-8 in its first 8 KB)"),
        )
        .hint("localSearchCode with binaryFiles=text can still find text inside it"));
    }
    if size > FULL_READ_LIMIT && !partial {
        return Err(too_large(
            raw,
            size,
            FULL_READ_LIMIT,
            &[
                "Read a part: startLine/endLine for a range, matchString for the lines around a term, or charLength/charOffset to page through it",
                "localSearchCode on this file lists the line numbers worth reading",
            ],
        ));
    }
    Ok(())
}

fn too_large(raw: &str, size: u64, limit: u64, hints: &[&str]) -> QueryError {
    let mut e = QueryError::new(
        Failure::Unprocessable,
        ToolErrorCode::FileTooLarge,
        format!(
            "File '{raw}' is {} KB, over the {} KB limit for this kind of read",
            size / 1024,
            limit / 1024
        ),
    )
    .detail("sizeBytes", size)
    .detail("limitBytes", limit);
    for h in hints {
        e = e.hint(*h);
    }
    e
}

/// The text of the bytes, with a warning for a conversion or for invalid UTF-8 past the
/// sniffed head; a UTF-8 byte-order mark is dropped.
fn decode(bytes: Vec<u8>) -> (String, Vec<String>) {
    let mut warnings = Vec::new();
    let text = if let Some(text) = decode_utf16(&bytes) {
        warnings.push("The file is UTF-16; it was converted to UTF-8".to_string());
        text
    } else {
        match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(
                    "Some bytes past the first 8 KB are not valid UTF-8; they are shown as U+FFFD"
                        .to_string(),
                );
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        }
    };
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text);
    // Redacted whole, before lines, ranges or matches are cut from it: a range that starts
    // inside a private key would otherwise show bare key lines no pattern can recognise.
    let redacted = match crate::exec::redact::redact(&text) {
        std::borrow::Cow::Owned(clean) => Some(clean),
        std::borrow::Cow::Borrowed(_) => None,
    };
    (redacted.unwrap_or(text), warnings)
}

/// A NUL byte or invalid UTF-8 in the first 8 KB (a sequence cut by the 8 KB boundary is fine).
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    head.contains(&0) || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
}

/// Text behind a UTF-16 byte-order mark.
fn decode_utf16(bytes: &[u8]) -> Option<String> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks_exact(2).map(|c| {
        if little {
            u16::from_le_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], c[1]])
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{fffd}'))
            .collect(),
    )
}
