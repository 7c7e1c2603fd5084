//! Timeouts, retries and circuit breakers around every query, layered as octocode layers
//! them, outermost first: timeout -> circuit -> retry. The timeout bounds the whole query,
//! retries included; a circuit counts a query once, after its retries, and only failures of
//! the service (upstream errors, timeouts), never a wrong query, so one agent's typos cannot
//! open a circuit for everybody.

use super::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use super::Family;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How one family of tools is retried and timed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    pub timeout: Duration,
    pub attempts: u32,
    pub initial_delay: Duration,
    pub max_delay: Duration,
    pub multiplier: u32,
}

impl Policy {
    /// octocode's figures per family.
    pub fn for_family(family: Family) -> Policy {
        let ms = Duration::from_millis;
        match family {
            Family::Github => Policy {
                timeout: ms(60_000),
                attempts: 3,
                initial_delay: ms(1000),
                max_delay: ms(30_000),
                multiplier: 3,
            },
            Family::Local => Policy {
                timeout: ms(30_000),
                attempts: 2,
                initial_delay: ms(100),
                max_delay: ms(1000),
                multiplier: 2,
            },
            Family::Lsp => Policy {
                timeout: ms(30_000),
                attempts: 3,
                initial_delay: ms(500),
                max_delay: ms(5000),
                multiplier: 2,
            },
            Family::Package => Policy {
                timeout: ms(30_000),
                attempts: 3,
                initial_delay: ms(1000),
                max_delay: ms(15_000),
                multiplier: 2,
            },
        }
    }

    fn delay(&self, retry: u32) -> Duration {
        let factor = self.multiplier.saturating_pow(retry.saturating_sub(1));
        self.initial_delay
            .saturating_mul(factor)
            .min(self.max_delay)
    }
}

/// When a circuit opens and how it recovers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircuitSpec {
    pub failure_threshold: u32,
    pub success_threshold: u32,
    pub reset_timeout: Duration,
}

impl CircuitSpec {
    pub fn for_circuit(name: &str) -> CircuitSpec {
        let s = Duration::from_secs;
        let (failure_threshold, success_threshold, reset_timeout) = match name {
            "github:search" | "github:pulls" => (2, 1, s(60)),
            "github:content" => (3, 1, s(30)),
            "lsp:navigation" => (3, 1, s(10)),
            "lsp:hierarchy" => (2, 1, s(15)),
            "local" => (5, 1, s(5)),
            "package" => (3, 1, s(45)),
            _ => (3, 2, s(30)),
        };
        CircuitSpec {
            failure_threshold,
            success_threshold,
            reset_timeout,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed,
    Open,
    HalfOpen,
}

#[derive(Debug)]
struct Circuit {
    spec: CircuitSpec,
    state: State,
    failures: u32,
    successes: u32,
    last_failure: Option<Instant>,
    calls: u64,
    rejected: u64,
}

/// Every circuit that has been used, by name.
#[derive(Debug, Default)]
pub struct Circuits {
    inner: Mutex<BTreeMap<&'static str, Circuit>>,
}

impl Circuits {
    /// Lets a query through, or refuses it while the circuit is open. An open circuit whose
    /// reset time has passed lets queries through half-open.
    pub fn admit(&self, name: &'static str, tool: &str) -> Result<(), QueryError> {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let c = map.entry(name).or_insert_with(|| Circuit {
            spec: CircuitSpec::for_circuit(name),
            state: State::Closed,
            failures: 0,
            successes: 0,
            last_failure: None,
            calls: 0,
            rejected: 0,
        });
        c.calls += 1;
        if c.state == State::Open {
            let since = c.last_failure.map_or(Duration::MAX, |t| t.elapsed());
            if since >= c.spec.reset_timeout {
                c.state = State::HalfOpen;
                c.successes = 0;
            } else {
                c.rejected += 1;
                let wait = (c.spec.reset_timeout - since).as_secs().max(1);
                return Err(QueryError::new(
                    Failure::Unavailable,
                    ToolErrorCode::CircuitOpen,
                    format!("Circuit '{name}' is open after repeated failures; {tool} is paused for {wait} s"),
                )
                .detail("circuit", name)
                .detail("retryAfter", wait)
                .hint(format!("Retry after {wait} seconds"))
                .hint("GET /health lists every circuit's state"));
            }
        }
        Ok(())
    }

    /// Records a query's final result on its circuit.
    pub fn record(&self, name: &'static str, failed: bool) {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Some(c) = map.get_mut(name) else { return };
        if failed {
            c.last_failure = Some(Instant::now());
            c.failures += 1;
            if c.state == State::HalfOpen || c.failures >= c.spec.failure_threshold {
                c.state = State::Open;
            }
        } else {
            match c.state {
                State::HalfOpen => {
                    c.successes += 1;
                    if c.successes >= c.spec.success_threshold {
                        c.state = State::Closed;
                        c.failures = 0;
                    }
                }
                _ => c.failures = 0,
            }
        }
    }

    /// `/health`'s `circuits`: only circuits that have been used.
    pub fn snapshot(&self) -> Value {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Map::new();
        for (name, c) in map.iter() {
            let state = match c.state {
                State::Closed => "closed",
                State::Open => "open",
                State::HalfOpen => "half-open",
            };
            out.insert(
                name.to_string(),
                json!({
                    "state": state,
                    "failures": c.failures,
                    "isHealthy": c.state == State::Closed,
                    "calls": c.calls,
                    "rejected": c.rejected,
                    "failureThreshold": c.spec.failure_threshold,
                    "resetTimeoutSeconds": c.spec.reset_timeout.as_secs(),
                }),
            );
        }
        Value::Object(out)
    }
}

/// Whether the upstream asked to be left alone (its `retryAfter`, in seconds) for longer than
/// the retry would wait: retrying sooner only spends the caller's quota (GitHub counts it),
/// so the error goes back with the wait it asked for.
fn asks_longer(e: &QueryError, delay: Duration) -> bool {
    e.details
        .get("retryAfter")
        .and_then(Value::as_u64)
        .is_some_and(|secs| Duration::from_secs(secs) > delay)
}

/// Runs `attempt` under the policy's retries, all within its timeout. A transient failure is
/// tried again after the policy's delay, unless the upstream asked for a longer wait.
pub async fn run<F, Fut>(policy: Policy, tool: &str, mut attempt: F) -> Result<Outcome, QueryError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Outcome, QueryError>>,
{
    let retried = async {
        let mut tries = 0;
        loop {
            tries += 1;
            match attempt().await {
                Err(e)
                    if e.failure.is_transient()
                        && tries < policy.attempts
                        && !asks_longer(&e, policy.delay(tries)) =>
                {
                    tokio::time::sleep(policy.delay(tries)).await;
                }
                Err(mut e) => {
                    if tries > 1 {
                        e.details.insert("attempts".into(), json!(tries));
                    }
                    return Err(e);
                }
                ok => return ok,
            }
        }
    };
    match tokio::time::timeout(policy.timeout, retried).await {
        Ok(result) => result,
        Err(_) => Err(QueryError::new(
            Failure::Timeout,
            ToolErrorCode::Timeout,
            format!("{tool} timed out after {} ms", policy.timeout.as_millis()),
        )
        .hint(
            "Narrow the query (a smaller path, a more specific pattern, fewer results) and retry",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn quick(attempts: u32, timeout_ms: u64) -> Policy {
        Policy {
            timeout: Duration::from_millis(timeout_ms),
            attempts,
            initial_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
            multiplier: 2,
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = Policy::for_family(Family::Github);
        assert_eq!(p.delay(1), Duration::from_secs(1));
        assert_eq!(p.delay(2), Duration::from_secs(3));
        assert_eq!(p.delay(5), Duration::from_secs(30));
    }

    #[tokio::test]
    async fn transient_failures_are_retried_and_others_are_not() {
        let calls = AtomicU32::new(0);
        let r = run(quick(3, 1000), "t", || async {
            if calls.fetch_add(1, Ordering::SeqCst) < 2 {
                Err(QueryError::new(
                    Failure::Upstream { transient: true },
                    ToolErrorCode::RateLimited,
                    "slow down",
                ))
            } else {
                Ok(Outcome::found(json!({})))
            }
        })
        .await;
        assert!(r.is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 3);

        let calls = AtomicU32::new(0);
        let r = run(quick(3, 1000), "t", || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err::<Outcome, _>(QueryError::invalid("bad"))
        })
        .await;
        assert_eq!(r.unwrap_err().code, ToolErrorCode::ValidationFailed);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_failure_asking_for_a_longer_wait_is_not_retried_sooner() {
        for (asked, expected_calls) in [(60u64, 1u32), (0, 3)] {
            let calls = AtomicU32::new(0);
            let r = run(quick(3, 1000), "t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err::<Outcome, _>(
                    QueryError::new(
                        Failure::Upstream { transient: true },
                        ToolErrorCode::RateLimited,
                        "rate limit",
                    )
                    .detail("retryAfter", asked),
                )
            })
            .await;
            assert_eq!(r.unwrap_err().details["retryAfter"], json!(asked));
            assert_eq!(
                calls.load(Ordering::SeqCst),
                expected_calls,
                "asked {asked}"
            );
        }
    }

    #[tokio::test]
    async fn the_timeout_bounds_the_whole_query() {
        let r = run(quick(3, 20), "slowTool", || async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(Outcome::found(json!({})))
        })
        .await;
        let e = r.unwrap_err();
        assert_eq!(e.failure, Failure::Timeout);
        assert!(
            e.message.contains("slowTool timed out after 20 ms"),
            "{}",
            e.message
        );
    }

    #[test]
    fn circuits_open_at_the_threshold_and_half_open_after_the_reset() {
        let c = Circuits::default();
        for _ in 0..2 {
            c.admit("github:search", "githubSearchCode").unwrap();
            c.record("github:search", true);
        }
        let e = c.admit("github:search", "githubSearchCode").unwrap_err();
        assert_eq!(e.code, ToolErrorCode::CircuitOpen);
        assert_eq!(e.failure, Failure::Unavailable);
        let snap = c.snapshot();
        assert_eq!(snap["github:search"]["state"], "open");
        assert_eq!(snap["github:search"]["isHealthy"], false);
        assert_eq!(snap["github:search"]["rejected"], 1);
        // Pretend the reset time passed: the next query is let through half-open, and its
        // success closes the circuit.
        {
            let mut map = c.inner.lock().unwrap();
            let circuit = map.get_mut("github:search").unwrap();
            circuit.last_failure = Some(Instant::now() - Duration::from_secs(61));
        }
        c.admit("github:search", "githubSearchCode").unwrap();
        assert_eq!(c.snapshot()["github:search"]["state"], "half-open");
        c.record("github:search", false);
        assert_eq!(c.snapshot()["github:search"]["state"], "closed");
        assert!(
            c.snapshot().get("local").is_none(),
            "unused circuits are not listed"
        );
    }
}
