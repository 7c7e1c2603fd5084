//! Where an `mcp` source's server is: a command toolscout starts and talks to over stdio, or a
//! streamable-HTTP endpoint (`url`) it connects to, with headers whose values come from
//! environment variables (the file names the variable, never the value, so a token in a
//! checked-in configuration is impossible). Each is checked here once, with the entry, field,
//! header and variable named in every error.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How toolscout reaches an `mcp` source's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpEndpoint {
    /// A server over stdio: the command toolscout starts, with its arguments, extra
    /// environment and working directory.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// A server over streamable HTTP at `url` (http or https), sent `headers` on every
    /// request.
    Http {
        url: String,
        headers: Vec<HttpHeader>,
    },
}

/// A header sent to an HTTP upstream: its name, the environment variable it was read from,
/// and the value (kept out of `Debug`, so no log or error prints it).
#[derive(Clone, PartialEq, Eq)]
pub struct HttpHeader {
    pub name: String,
    pub variable: String,
    value: String,
}

impl HttpHeader {
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl std::fmt::Debug for HttpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: <${}>", self.name, self.variable)
    }
}

/// Headers the MCP transport sets itself: a configured one would break the session.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Where a field was given, for errors: `url` or `headers.<name>` as a file's
/// `sources[2].url` or a command line's `--header <name>`.
pub type Place<'a> = &'a dyn Fn(&str) -> String;

/// The HTTP endpoint at `url` with `headers` (header name -> environment variable), values
/// read through `lookup`. `at` names each field's place for errors, `source` the source. Refused: a scheme other than http and https, credentials in the URL (they
/// belong in a header read from the environment), and headers sent in clear text to a host
/// off this machine.
pub fn http_endpoint(
    at: Place,
    source: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<McpEndpoint> {
    let bad = |field: &str, expected: &str, found: String| {
        Error::Config(format!("{}: expected {expected}, found {found}", at(field)))
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        bad(
            "url",
            "an http:// or https:// URL",
            format!("\"{url}\" ({e})"),
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(bad(
            "url",
            "an http:// or https:// URL with a host",
            format!("\"{url}\""),
        ));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad(
            "url",
            "a URL without user or password (send credentials in `headers`, read from the environment)",
            format!("credentials in \"{}\"", parsed.host_str().unwrap_or("")),
        ));
    }
    if parsed.scheme() == "http" && !headers.is_empty() && !is_loopback(&parsed) {
        return Err(bad(
            "url",
            "https:// for a source with headers on another machine (plain http would send them in clear text)",
            format!("\"{url}\""),
        ));
    }
    let mut checked = Vec::new();
    for (name, variable) in headers {
        checked.push(header(at, source, name, variable, lookup)?);
    }
    Ok(McpEndpoint::Http {
        url: url.to_string(),
        headers: checked,
    })
}

/// One header: a valid, unreserved name, and the value of the variable it names.
fn header(
    at: Place,
    source: &str,
    name: &str,
    variable: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<HttpHeader> {
    let field = at(&format!("headers.{name}"));
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(Error::Config(format!(
            "{field}: expected an HTTP header name (letters, digits, '-'), found \"{name}\""
        )));
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(Error::Config(format!(
            "{field}: expected a header the MCP transport does not set itself (not {}), found \"{name}\"",
            RESERVED_HEADERS.join(", ")
        )));
    }
    if variable.is_empty() || variable.contains('=') || variable.contains('\0') {
        return Err(Error::Config(format!(
            "{field}: expected the name of the environment variable holding the header's value, found \"{variable}\""
        )));
    }
    let value = lookup(variable).ok_or_else(|| {
        Error::Config(format!(
            "{field}: expected the environment variable {variable} to hold the value of header {name} for source '{source}', found it unset"
        ))
    })?;
    if reqwest::header::HeaderValue::from_str(&value).is_err() {
        return Err(Error::Config(format!(
            "{field}: expected the environment variable {variable} to hold a header value (visible ASCII, no line breaks), found other characters"
        )));
    }
    Ok(HttpHeader {
        name: name.to_string(),
        variable: variable.to_string(),
        value,
    })
}

/// `localhost` or a loopback address: traffic that never leaves this machine.
fn is_loopback(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "API_TOKEN" => Some("Bearer abc".into()),
            "BROKEN" => Some("a\nb".into()),
            _ => None,
        }
    }

    fn entry(i: usize) -> impl Fn(&str) -> String {
        move |field| format!("sources[{i}].{field}")
    }

    fn headers(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_header_value_comes_from_its_variable_and_is_never_printed() {
        let h = headers(&[("Authorization", "API_TOKEN")]);
        let e = http_endpoint(&entry(1), "api", "https://h.example/mcp", &h, &env).unwrap();
        let McpEndpoint::Http { url, headers: sent } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(url, "https://h.example/mcp");
        assert_eq!(sent[0].value(), "Bearer abc");
        assert_eq!(sent[0].variable, "API_TOKEN");
        assert!(!format!("{e:?}").contains("abc"), "{e:?}");
        // Plain HTTP on this machine, with or without headers.
        assert!(http_endpoint(&entry(0), "a", "http://127.0.0.1:9/mcp", &h, &env).is_ok());
        assert!(http_endpoint(&entry(0), "a", "http://localhost/mcp", &h, &env).is_ok());
        assert!(http_endpoint(&entry(0), "a", "http://[::1]:8/mcp", &h, &env).is_ok());
        assert!(http_endpoint(&entry(0), "a", "http://h.example/mcp", &headers(&[]), &env).is_ok());
    }

    #[test]
    fn each_mistake_names_the_place_header_and_variable() {
        let none = headers(&[]);
        let cases: [(&str, BTreeMap<String, String>, &str); 8] = [
            ("ftp://h/mcp", none.clone(), "sources[0].url: expected an http:// or https:// URL with a host, found \"ftp://h/mcp\""),
            ("not a url", none.clone(), "sources[0].url: expected an http:// or https:// URL"),
            ("https://u:p@h/mcp", none.clone(), "without user or password"),
            ("http://h.example/mcp", headers(&[("X-Key", "API_TOKEN")]), "https:// for a source with headers"),
            ("https://h/mcp", headers(&[("X-Key", "MISSING")]), "sources[0].headers.X-Key: expected the environment variable MISSING to hold the value of header X-Key for source 'api', found it unset"),
            ("https://h/mcp", headers(&[("Mcp-Session-Id", "API_TOKEN")]), "sources[0].headers.Mcp-Session-Id: expected a header the MCP transport does not set itself"),
            ("https://h/mcp", headers(&[("bad header", "API_TOKEN")]), "sources[0].headers.bad header: expected an HTTP header name"),
            ("https://h/mcp", headers(&[("X-Key", "BROKEN")]), "sources[0].headers.X-Key: expected the environment variable BROKEN to hold a header value"),
        ];
        for (url, h, expected) in cases {
            let err = http_endpoint(&entry(0), "api", url, &h, &env).unwrap_err();
            assert!(err.to_string().contains(expected), "{url}: {err}");
            assert!(!err.to_string().contains("a\nb"), "{err}");
        }
    }
}
