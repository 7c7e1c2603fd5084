//! The JSON body extractor: content type, size and syntax checked before any handler runs,
//! each failure as the shared error envelope (415, 413, 400) rather than axum's plain text.

use super::envelope::ApiError;
use super::problem::HttpError;
use super::AppState;
use crate::error::{Error, Violation};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use serde_json::Value;

/// A request body that is syntactically valid JSON. Schema validation is the engine's job.
pub struct JsonBody(pub Value);

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if mime != "application/json" && !mime.ends_with("+json") {
            let found = if content_type.is_empty() {
                "no content type".to_string()
            } else {
                content_type
            };
            return Err(ApiError::new(
                "request",
                HttpError::UnsupportedMediaType { found },
            ));
        }
        let limit = state.service.config().max_body_bytes;
        let bytes = Bytes::from_request(req, state).await.map_err(|e| match e {
            BytesRejection::FailedToBufferBody(_) => {
                ApiError::new("request", HttpError::PayloadTooLarge { limit })
            }
            other => ApiError::new("request", Error::Internal(other.to_string())),
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(malformed(
                "expected a JSON object, found an empty body".into(),
            ));
        }
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
            malformed(format!(
                "expected valid JSON, found a syntax error at line {} column {}: {}",
                e.line(),
                e.column(),
                e.to_string()
                    .rsplit_once(" at line ")
                    .map_or(e.to_string(), |(m, _)| m.to_string())
            ))
        })
    }
}

fn malformed(message: String) -> ApiError {
    ApiError::new(
        "request",
        Error::Validation {
            what: "request body".into(),
            violations: vec![Violation {
                pointer: String::new(),
                message,
            }],
        },
    )
}
