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
                    length = Some(content_length(value.trim())?);
                }
            }
            None if !in_header => continue,
            None => return Err(invalid(format!("malformed header line '{line}'"))),
        }
    }
    let length = length.ok_or_else(|| invalid("a message without Content-Length"))?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| invalid(format!("the body is not JSON: {e}")))
}

/// A `Content-Length` value, refused at once when over the limit (before the rest of the
/// header, and long before a body buffer exists), also when too large for any integer.
fn content_length(text: &str) -> std::io::Result<usize> {
    let over = || {
        let shown: String = text.chars().take(30).collect();
        invalid(format!(
            "a message of {shown} bytes is over the {MAX_BODY}-byte limit"
        ))
    };
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_BODY => Ok(n),
        Ok(_) => Err(over()),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(over()),
        Err(_) => Err(invalid(format!("bad Content-Length '{text}'"))),
    }
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

    /// Serves `data` a few bytes per read, in the sizes `steps` cycles through, the way a
    /// pipe hands over what a server wrote.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        steps: Vec<usize>,
        reads: usize,
    }

    impl tokio::io::AsyncRead for Trickle {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            let step = self.steps[self.reads % self.steps.len()].max(1);
            self.reads += 1;
            let at = self.at;
            let end = (at + step).min(self.data.len()).min(at + buf.remaining());
            buf.put_slice(&self.data[at..end]);
            self.at = end;
            std::task::Poll::Ready(Ok(()))
        }
    }

    fn trickle(data: Vec<u8>, steps: Vec<usize>) -> BufReader<Trickle> {
        BufReader::new(Trickle {
            data,
            at: 0,
            steps,
            reads: 0,
        })
    }

    /// Every message `reader` yields until the end or the first error.
    fn read_all(mut reader: BufReader<Trickle>) -> (Vec<Value>, Option<std::io::Error>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut out = Vec::new();
            loop {
                match read_message(&mut reader).await {
                    Ok(Some(m)) => out.push(m),
                    Ok(None) => return (out, None),
                    Err(e) => return (out, Some(e)),
                }
            }
        })
    }

    proptest::proptest! {
        #![proptest_config(crate::fuzz_json::config(256))]

        /// Any bytes, after any header a server might send (a Content-Length of any digits,
        /// signed or huge): the decoder ends (messages, then the end or an error) without a
        /// panic, and a length over the limit is refused by name.
        #[test]
        fn arbitrary_bytes_end_in_messages_or_an_error(
            length in proptest::option::of("[-+]?[0-9]{1,25}"),
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512),
            steps in proptest::collection::vec(1usize..64, 1..4),
        ) {
            let mut data = Vec::new();
            if let Some(length) = &length {
                data.extend(format!("Content-Length: {length}\r\n\r\n").into_bytes());
            }
            data.extend(bytes);
            let (_, error) = read_all(trickle(data, steps));
            let over = length.as_deref().and_then(|l| l.parse::<u128>().ok()).is_some_and(|n| n > MAX_BODY as u128);
            if over {
                let error = error.expect("an oversized length is an error");
                proptest::prop_assert!(error.to_string().contains("limit"), "{}", error);
            }
        }

        /// Messages of any JSON, each perhaps after a banner line, arrive whole and in order
        /// however the stream is cut into reads.
        #[test]
        fn framed_messages_survive_any_cutting(
            results in proptest::collection::vec(crate::fuzz_json::value(), 1..6),
            banners in proptest::collection::vec(proptest::option::of("[a-zA-Z .]{0,30}\n"), 6),
            steps in proptest::collection::vec(1usize..300, 1..5),
        ) {
            let mut data = Vec::new();
            let mut expected = Vec::new();
            for (i, result) in results.into_iter().enumerate() {
                let message = json!({"jsonrpc": "2.0", "id": i, "result": result});
                let frame = encode(&message).unwrap();
                // What the decoder should give: the body as serde_json reads it back.
                let body_at = frame.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
                expected.push(serde_json::from_slice::<Value>(&frame[body_at..]).unwrap());
                if let Some(banner) = &banners[i] {
                    data.extend(banner.as_bytes());
                }
                data.extend(frame);
            }
            let (got, error) = read_all(trickle(data, steps));
            proptest::prop_assert!(error.is_none(), "{:?}", error);
            proptest::prop_assert_eq!(got, expected);
        }
    }
}
