//! The HTTP exchanges of streamable-HTTP upstreams: rmcp's `StreamableHttpClient` over the
//! crate's reqwest 0.12. rmcp 3.11 ships this client only for reqwest 0.13 (feature
//! `transport-streamable-http-client-reqwest`). Moving the crate to 0.13 would change the TLS
//! stack and certificate trust of every GitHub and package-registry call for the sake of one
//! client (0.13's `rustls` brings aws-lc-rs, a C library to build on 2 cores, and the
//! platform verifier instead of our native roots; it has no `rustls-tls-native-roots`), and
//! enabling the feature beside 0.12 would put two reqwests in the build, while the trait asks
//! for four small methods. The protocol itself (sessions, SSE resumption, re-initialization
//! after an expired session) stays in rmcp's worker; this file only sends requests and reads
//! answers, within the limits the worker gives (no JSON body or SSE event above them is held
//! in memory).
//!
//! Timeouts: connecting is bounded by the source's timeout, and so is every POST and DELETE
//! (a tool call through the gateway is bounded by the same timeout above this). The GET
//! stream's answer must begin within it too, but the stream itself is not bounded: it is the
//! server's channel for notifications and stays open by design.
//! Redirects are not followed, so configured headers never reach another host.

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    HttpStatusError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

type HttpError = StreamableHttpError<ClientError>;

/// A reqwest failure whose message carries its causes: "error sending request" alone does
/// not say that the connection was refused.
#[derive(Debug)]
pub(crate) struct ClientError(reqwest::Error);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::error::with_causes(&self.0))
    }
}

impl std::error::Error for ClientError {}

fn client_error(e: reqwest::Error) -> HttpError {
    StreamableHttpError::Client(ClientError(e))
}

const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_HEADER: &str = "last-event-id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";
/// Bytes of a failed answer's body kept for the error message.
const DIAGNOSTIC_BYTES: usize = 2048;

/// A reqwest client for one upstream, with its request timeout.
#[derive(Clone)]
pub(crate) struct HttpClient {
    http: reqwest::Client,
    timeout: Duration,
}

impl HttpClient {
    pub(crate) fn new(timeout: Duration) -> Result<HttpClient, reqwest::Error> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            // rmcp's own client does the same: a pooled connection whose previous answer was
            // not read to the end stalls the next request by a delayed ACK (about 40 ms).
            .pool_max_idle_per_host(0)
            .build()?;
        Ok(HttpClient { http, timeout })
    }
}

/// `builder` with the session, bearer token and the transport's headers (the configured ones
/// and the negotiated protocol version).
fn with_headers(
    mut builder: RequestBuilder,
    session_id: Option<&str>,
    auth: Option<String>,
    headers: HashMap<HeaderName, HeaderValue>,
) -> RequestBuilder {
    if let Some(id) = session_id {
        builder = builder.header(SESSION_HEADER, id);
    }
    if let Some(token) = auth {
        builder = builder.bearer_auth(token);
    }
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    builder
}

/// Whether a `Content-Type` value is `expected`, whatever its case and parameters.
fn media_type_is(value: Option<&HeaderValue>, expected: &str) -> bool {
    value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(expected))
}

/// The whole body, refused past `max` bytes without reading further.
async fn read_body(mut response: Response, max: usize) -> Result<Vec<u8>, HttpError> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(client_error)? {
        if chunk.len() > max - body.len() {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The first `max` bytes of a failed answer, for its error message.
async fn diagnostic(mut response: Response, max: usize) -> String {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&body).trim().to_string()
}

/// A failure the worker can classify: rate limits and server errors keep their status.
fn status_error(status: StatusCode, headers: &HeaderMap, body: &str) -> HttpError {
    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        let retry_after = headers
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        return HttpStatusError::new(status.as_u16(), retry_after).into();
    }
    let hint = match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
            " (check the headers the source sends and the variables they are read from)"
        }
        s if s.is_redirection() => " (redirects are not followed: configure the final URL)",
        _ => "",
    };
    StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
        "expected a JSON-RPC answer, found HTTP {status}{hint}: {body}"
    )))
}

/// Counts the bytes of the SSE event being read, so one oversized event fails the stream
/// instead of filling memory.
#[derive(Default)]
struct EventSize {
    bytes: usize,
    /// The current line has no byte yet (a line break now ends the event).
    line_empty: bool,
    /// The last byte was a CR: a LF now belongs to the same line break.
    after_cr: bool,
}

#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error(transparent)]
    Http(ClientError),
    #[error("an SSE event exceeded the maximum size of {0} bytes")]
    EventTooLarge(usize),
}

impl EventSize {
    fn feed(&mut self, chunk: &[u8], max: usize) -> Result<(), BodyError> {
        for &b in chunk {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.line_empty {
                        self.bytes = 0;
                    }
                    self.line_empty = true;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.after_cr = false;
                    self.line_empty = false;
                    self.bytes += 1;
                    if self.bytes > max {
                        return Err(BodyError::EventTooLarge(max));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The events of an SSE body, ending at the first error.
fn events(response: Response, max_event: usize) -> BoxStream<'static, Result<Sse, SseError>> {
    let start = EventSize {
        line_empty: true,
        ..EventSize::default()
    };
    let chunks = futures::stream::unfold(Some((response, start)), move |state| async move {
        let (mut response, mut size) = state?;
        match response.chunk().await {
            Ok(Some(chunk)) => match size.feed(&chunk, max_event) {
                Ok(()) => Some((Ok::<Bytes, BodyError>(chunk), Some((response, size)))),
                Err(e) => Some((Err(e), None)),
            },
            Ok(None) => None,
            Err(e) => Some((Err(BodyError::Http(ClientError(e))), None)),
        }
    });
    SseStream::from_bytes_stream(chunks).boxed()
}

impl HttpClient {
    /// A successful POST's answer: events, one JSON message, or nothing to read.
    async fn answer(
        response: Response,
        awaits_no_response: bool,
        session: Option<String>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let content_type = response.headers().get(CONTENT_TYPE).cloned();
        if response.content_length() == Some(0) && awaits_no_response {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if media_type_is(content_type.as_ref(), EVENT_STREAM) {
            let stream = events(response, limits.max_sse_event_size);
            return Ok(StreamableHttpPostResponse::Sse(stream, session));
        }
        if media_type_is(content_type.as_ref(), JSON) {
            let body = read_body(response, limits.max_json_response_size).await?;
            return match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(message) => Ok(StreamableHttpPostResponse::Json(message, session)),
                // Nothing waits for an answer to a notification: an odd body is no failure.
                Err(_) if awaits_no_response => Ok(StreamableHttpPostResponse::Accepted),
                Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!(
                        "expected a JSON-RPC message, found {e}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(DIAGNOSTIC_BYTES)])
                    ),
                ))),
            };
        }
        if awaits_no_response {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(StreamableHttpError::UnexpectedContentType(
            content_type.map(|v| String::from_utf8_lossy(v.as_bytes()).to_string()),
        ))
    }

    /// A failed POST: the server's JSON-RPC error when its body holds one (the worker routes
    /// it to the request), else the HTTP failure.
    async fn failure(
        response: Response,
        session: Option<String>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let status = response.status();
        let headers = response.headers().clone();
        if media_type_is(headers.get(CONTENT_TYPE), JSON) {
            let body = read_body(response, limits.max_json_response_size).await?;
            if let Ok(message @ JsonRpcMessage::Error(_)) =
                serde_json::from_slice::<ServerJsonRpcMessage>(&body)
            {
                return Ok(StreamableHttpPostResponse::Json(message, session));
            }
            let text = String::from_utf8_lossy(&body[..body.len().min(DIAGNOSTIC_BYTES)]);
            return Err(status_error(status, &headers, text.trim()));
        }
        let max = limits.max_error_response_size.min(DIAGNOSTIC_BYTES);
        Err(status_error(
            status,
            &headers,
            &diagnostic(response, max).await,
        ))
    }
}

impl StreamableHttpClient for HttpClient {
    type Error = ClientError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth, headers, limits)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let body = serde_json::to_vec(&message)?;
        let request = self
            .http
            .post(uri.as_ref())
            .timeout(self.timeout)
            .header(ACCEPT, format!("{JSON}, {EVENT_STREAM}"))
            .header(CONTENT_TYPE, JSON)
            .body(body);
        let request = with_headers(request, session_id.as_deref(), auth, headers);
        let response = request.send().await.map_err(client_error)?;
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            // The server forgot the session (it restarted): the worker starts a new one.
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if !status.is_success() {
            return Self::failure(response, session, limits).await;
        }
        let awaits_no_response = !matches!(message, JsonRpcMessage::Request(_));
        Self::answer(response, awaits_no_response, session, limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let request = self.http.delete(uri.as_ref()).timeout(self.timeout);
        let request = with_headers(request, Some(&session_id), auth, headers);
        let response = request.send().await.map_err(client_error)?;
        // A server that keeps no sessions, or already dropped this one, has nothing to delete.
        if matches!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED | StatusCode::NOT_FOUND
        ) {
            return Ok(());
        }
        response
            .error_for_status()
            .map(|_| ())
            .map_err(client_error)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let max = StreamableHttpResponseLimits::default().max_sse_event_size;
        self.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth, headers, max)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let mut request = self.http.get(uri.as_ref()).header(ACCEPT, EVENT_STREAM);
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_HEADER, id);
        }
        let request = with_headers(request, session_id.as_deref(), auth, headers);
        let response = tokio::time::timeout(self.timeout, request.send())
            .await
            .map_err(|_| {
                StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "expected the event stream to begin within {} s, found no answer",
                    self.timeout.as_secs()
                )))
            })?
            .map_err(client_error)?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if !status.is_success() {
            let headers = response.headers().clone();
            let body = diagnostic(response, DIAGNOSTIC_BYTES).await;
            return Err(status_error(status, &headers, &body));
        }
        let content_type = response.headers().get(CONTENT_TYPE);
        if !media_type_is(content_type, EVENT_STREAM) {
            let found = content_type.map(|v| String::from_utf8_lossy(v.as_bytes()).to_string());
            return Err(StreamableHttpError::UnexpectedContentType(found));
        }
        Ok(events(response, max_sse_event_size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_over_the_limit_fails_and_each_event_starts_anew() {
        let mut size = EventSize {
            line_empty: true,
            ..EventSize::default()
        };
        // Two events of 10 bytes each, in CRLF and LF, under a limit of 12.
        assert!(size.feed(b"data: 1234\r\n\r\ndata: 5", 12).is_ok());
        assert!(size.feed(b"678\n\n", 12).is_ok());
        // One event of two lines, 13 bytes together.
        let mut size = EventSize {
            line_empty: true,
            ..EventSize::default()
        };
        assert!(size.feed(b"data: 12\ndata", 12).is_ok());
        assert!(matches!(
            size.feed(b": 3\n\n", 12),
            Err(BodyError::EventTooLarge(12))
        ));
    }

    #[test]
    fn media_types_match_whatever_their_case_and_parameters() {
        let v = HeaderValue::from_static("Application/JSON; charset=utf-8");
        assert!(media_type_is(Some(&v), JSON));
        assert!(!media_type_is(Some(&v), EVENT_STREAM));
        assert!(!media_type_is(None, JSON));
    }
}
