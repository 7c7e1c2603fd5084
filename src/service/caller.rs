//! Who a request comes from, as far as the service needs to know: the request's id (echoed
//! in error bodies, recorded with every answer and execution) and the caller's session (so an
//! execution of a tool that a search in the same session returned counts as choosing it).
//!
//! A task-local the doors set around each request, rather than one more parameter on every
//! service method: HTTP scopes it in its middleware, MCP around each tool call, and the
//! service reads it where it records. Outside a scope (the CLI, tests) there is none.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

tokio::task_local! {
    static CALLER: Caller;
}

/// The request being served and the session it belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    pub request_id: Option<String>,
    pub session_id: Option<String>,
}

impl Caller {
    /// Runs `work` as this caller's.
    pub async fn scope<F: Future>(self, work: F) -> F::Output {
        CALLER.scope(self, work).await
    }

    /// The caller of the request being served; empty outside one.
    pub fn current() -> Caller {
        CALLER.try_with(Clone::clone).unwrap_or_default()
    }

    /// A new id for a request or a session: 16 hex digits, a counter mixed with the clock,
    /// unique within a process and unlikely to repeat across runs.
    pub fn new_id() -> String {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let mixed =
            (nanos ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        format!("{mixed:016x}")
    }

    /// A caller-supplied id (a header, an MCP session id) if it is sane: 1 to 128 printable
    /// ASCII characters.
    pub fn sane_id(id: &str) -> Option<String> {
        (!id.is_empty() && id.len() <= 128 && id.chars().all(|c| c.is_ascii_graphic()))
            .then(|| id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::Caller;

    #[tokio::test]
    async fn the_caller_is_seen_inside_its_scope_only() {
        assert_eq!(Caller::current(), Caller::default());
        let caller = Caller {
            request_id: Some("r1".into()),
            session_id: Some("s1".into()),
        };
        let seen = caller.clone().scope(async { Caller::current() }).await;
        assert_eq!(seen, caller);
        assert_eq!(Caller::current(), Caller::default());
    }

    #[test]
    fn only_sane_ids_are_taken() {
        assert_eq!(Caller::sane_id("abc-1"), Some("abc-1".into()));
        assert_eq!(Caller::sane_id(""), None);
        assert_eq!(Caller::sane_id("a b"), None);
        assert_eq!(Caller::sane_id("é"), None);
        assert_eq!(Caller::sane_id(&"x".repeat(129)), None);
    }
}
