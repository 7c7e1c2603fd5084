//! A small HTTP client for the integration tests: requests to a `Server`, answers as
//! (status, headers, JSON body).

use crate::server::Server;
use reqwest::header::HeaderMap;
use serde_json::Value;

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap()
}

pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    pub async fn from(resp: reqwest::Response) -> Answer {
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.json::<Value>().await.unwrap_or(Value::Null);
        Answer {
            status,
            headers,
            body,
        }
    }

    /// The error code of an error envelope.
    pub fn code(&self) -> &str {
        self.body["error"]["error_code"].as_str().unwrap_or("")
    }

    /// The JSON pointers of the violations of a VALIDATION_FAILED envelope.
    pub fn pointers(&self) -> Vec<String> {
        self.body["error"]["context"]["parameters"]["violations"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v["pointer"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub async fn get(server: &Server, path: &str) -> Answer {
    Answer::from(client().get(server.url(path)).send().await.unwrap()).await
}

pub async fn post_json(server: &Server, path: &str, body: impl Into<reqwest::Body>) -> Answer {
    post(server, path, "application/json", body).await
}

pub async fn post(
    server: &Server,
    path: &str,
    content_type: &str,
    body: impl Into<reqwest::Body>,
) -> Answer {
    let resp = client()
        .post(server.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    Answer::from(resp).await
}
