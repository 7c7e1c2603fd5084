//! LSP base-protocol framing: a `Content-Length` header block, a blank line, then a JSON
//! body. Reading is bounded (header line and body sizes) so a misbehaving server cannot make
//! toolscout allocate without limit.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

const MAX_HEADER_LINE: u64 = 8 * 1024;
const MAX_BODY: usize = 64 << 20;

/// One message, framed.
pub(crate) fn encode(message: &Value) -> serde_json::Result<Vec<u8>> {
    let body = serde_json::to_vec(message)?;
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(&body);
    Ok(frame)
}

fn invalid(why: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.into())
}

/// Reads one framed message; `None` at a clean end of stream. Lines that are not headers
/// before a message starts are skipped (some servers log a banner to stdout).
pub(crate) async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> std::io::Result<Option<Value>> {
    let mut length: Option<usize> = None;
    let mut in_header = false;
    loop {
        let mut line = String::new();
        let n = (&mut *reader)
            .take(MAX_HEADER_LINE)
            .read_line(&mut line)
            .await?;
        if n == 0 {
            if in_header {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the stream ended inside a header",
                ));
            }
            return Ok(None);
        }
        if !line.ends_with('\n') && n as u64 == MAX_HEADER_LINE {
            return Err(invalid("a header line is too long"));
        }
        let line = line.trim_end();
        if line.is_empty() {
            if in_header {
                break;
            }
            continue;
        }
        match line.split_once(':') {
            Some((name, value)) => {
                in_header = true;
                if name.trim().eq_ignore_ascii_case("content-length") {
                    let n = value
                        .trim()
                        .parse()
                        .map_err(|_| invalid(format!("bad Content-Length '{}'", value.trim())))?;
                    length = Some(n);
                }
            }
            None if !in_header => continue,
            None => return Err(invalid(format!("malformed header line '{line}'"))),
        }
    }
    let length = length.ok_or_else(|| invalid("a message without Content-Length"))?;
    if length > MAX_BODY {
        return Err(invalid(format!(
            "a message of {length} bytes is over the {MAX_BODY}-byte limit"
        )));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| invalid(format!("the body is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::BufReader;

    fn frame(body: &str) -> String {
        String::from_utf8(encode(&serde_json::from_str(body).unwrap()).unwrap()).unwrap()
    }

    #[tokio::test]
    async fn framing_reads_messages_skips_banners_and_refuses_garbage() {
        let input = format!(
            "Starting server...\n{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{{}}",
            frame(r#"{"jsonrpc":"2.0","id":1,"result":{"é":1}}"#)
        );
        let mut reader = BufReader::new(input.as_bytes());
        let first = read_message(&mut reader).await.unwrap().unwrap();
        assert_eq!(first["result"]["é"], 1);
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap(), json!({}));
        assert!(read_message(&mut reader).await.unwrap().is_none());

        for bad in [
            "Content-Length: x\r\n\r\n",
            "Content-Type: a\r\n\r\n{}",
            "Content-Length: 10\r\n\r\n{}",
        ] {
            let mut reader = BufReader::new(bad.as_bytes());
            assert!(read_message(&mut reader).await.is_err(), "{bad:?}");
        }
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1);
        assert!(read_message(&mut BufReader::new(huge.as_bytes()))
            .await
            .is_err());
    }
}
