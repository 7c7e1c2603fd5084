//! The gate's promises: never more than `workers` at once, a full queue refused at once, a
//! burst served whole, a standing queue refused after the short wait, a waiter whose client
//! left gone from the queue, and a panic reported rather than hung on.

use super::*;
use std::sync::mpsc;

fn limits(workers: usize, queue: usize, max_wait_ms: u64, overload_wait_ms: u64) -> Limits {
    Limits {
        workers,
        queue,
        max_wait: Duration::from_millis(max_wait_ms),
        overload_wait: Duration::from_millis(overload_wait_ms),
    }
}

/// Occupies the gate's only worker until the returned sender is used or dropped.
async fn hold(gate: &Arc<Gate>) -> (mpsc::Sender<()>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<()>();
    let held = gate.clone();
    let task = tokio::spawn(async move {
        held.run(move || {
            let _ = rx.recv();
        })
        .await
        .unwrap();
    });
    while gate.stats().busy == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    (tx, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_more_than_workers_run_at_once() {
    let gate = Arc::new(Gate::new("search", limits(2, 64, 5_000, 5_000)));
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let (gate, running, most) = (gate.clone(), running.clone(), most.clone());
            tokio::spawn(async move {
                gate.run(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                })
                .await
            })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), Ok(()));
    }
    assert_eq!(most.load(Ordering::SeqCst), 2);
    let stats = gate.stats();
    assert_eq!((stats.admitted, stats.refused, stats.busy), (12, 0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_refuses_at_once() {
    let gate = Arc::new(Gate::new("search", limits(1, 1, 10_000, 10_000)));
    let (release, holder) = hold(&gate).await;
    let queued = {
        let gate = gate.clone();
        tokio::spawn(async move { gate.run(|| 7).await })
    };
    while gate.stats().waiting == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let refused = gate.run(|| 8).await.unwrap_err();
    let Refused::Overloaded {
        work,
        workers,
        waiting,
        waited,
    } = refused
    else {
        panic!("expected an overload, got {refused:?}");
    };
    assert_eq!((work, workers, waiting), ("search", 1, 1));
    assert!(waited < Duration::from_secs(1), "refused after {waited:?}");
    release.send(()).unwrap();
    holder.await.unwrap();
    assert_eq!(queued.await.unwrap(), Ok(7), "the queued one is served");
    assert_eq!(gate.stats().refused, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_within_the_queue_is_served_whole() {
    let gate = Arc::new(Gate::new("search", limits(1, 16, 10_000, 1)));
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let gate = gate.clone();
            tokio::spawn(async move {
                gate.run(move || {
                    std::thread::sleep(Duration::from_millis(5));
                    i
                })
                .await
            })
        })
        .collect();
    let mut served = Vec::new();
    for t in tasks {
        served.push(t.await.unwrap().expect("served"));
    }
    served.sort();
    assert_eq!(served, (0..10).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standing_queue_gives_up_after_the_short_wait() {
    let gate = Arc::new(Gate::new("tools", limits(1, 16, 60_000, 20)));
    let (release, holder) = hold(&gate).await;
    // Past the standing interval with the worker still busy: overload, not a burst.
    tokio::time::sleep(STANDING + Duration::from_millis(50)).await;
    let refused = gate.run(|| ()).await.unwrap_err();
    let Refused::Overloaded { work, waited, .. } = refused else {
        panic!("expected an overload, got {refused:?}");
    };
    assert_eq!(work, "tools");
    assert!(
        waited >= Duration::from_millis(20),
        "gave up after {waited:?}"
    );
    assert!(
        waited < Duration::from_secs(30),
        "waited the long wait: {waited:?}"
    );
    release.send(()).unwrap();
    holder.await.unwrap();
    // Idle again: the next request finds a worker at once.
    assert_eq!(gate.run(|| 1).await, Ok(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiter_whose_client_left_leaves_the_queue() {
    let gate = Arc::new(Gate::new("search", limits(1, 4, 60_000, 60_000)));
    let (release, holder) = hold(&gate).await;
    let ran = Arc::new(AtomicUsize::new(0));
    let waiter = {
        let (gate, ran) = (gate.clone(), ran.clone());
        tokio::spawn(async move { gate.run(move || ran.fetch_add(1, Ordering::SeqCst)).await })
    };
    while gate.stats().waiting == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    waiter.abort();
    assert!(waiter.await.unwrap_err().is_cancelled());
    assert_eq!(gate.stats().waiting, 0);
    release.send(()).unwrap();
    holder.await.unwrap();
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "the abandoned work never ran"
    );
}

#[tokio::test]
async fn work_that_panics_is_reported_and_frees_its_worker() {
    let gate = Gate::new("search", limits(1, 4, 1_000, 1_000));
    let died = gate.run(|| panic!("boom")).await.unwrap_err();
    assert!(matches!(died, Refused::Died(_)), "{died:?}");
    assert_eq!(gate.run(|| 3).await, Ok(3));
    assert_eq!(gate.stats().busy, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_keeps_the_next_arrivals_short_though_a_worker_was_just_free() {
    let gate = Arc::new(Gate::new("search", limits(1, 16, 60_000, 20)));
    let (release, holder) = hold(&gate).await;
    tokio::time::sleep(STANDING + Duration::from_millis(50)).await;
    assert!(gate.run(|| ()).await.is_err(), "a standing queue refuses");
    release.send(()).unwrap();
    holder.await.unwrap();
    // A worker was free a moment ago (the queue emptied), but the refusal was within the
    // interval: this is still the overload, and the next waiter is not given a minute.
    let (release, holder) = hold(&gate).await;
    let next = tokio::time::timeout(Duration::from_secs(5), gate.run(|| ())).await;
    let refused = next.expect("waited past the short wait").unwrap_err();
    assert!(matches!(refused, Refused::Overloaded { .. }), "{refused:?}");
    release.send(()).unwrap();
    holder.await.unwrap();
}
