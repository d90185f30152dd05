//! Availability scheduling (§14): the per-pod next check and
//! FindMinNextPodAvailabilityCheck (R-83), the sync's requeue (S-13, S-14), and E-19.
//! Upstream C12 (TestNextPodAvailabilityCheck), C13 (…SimpleCheck), C14
//! (TestFindMinNextPodAvailability), A28 (TestReplicaSetAvailabilityCheck).

use crate::common;

use common::*;
use replicore::model::ReplicaSetStatus;
use replicore::outcome::{CallResult, SyncOutcome};
use replicore::replicaset::availability::{min_next_check, next_check, requeue_after};
use replicore::Requeue;
use replicore::{plan, Config, Duration, Pod};

/// `ready == None`: not ready; `Some(s)`: ready since `s` seconds before `now`.
fn p(name: &str, ready: Option<f64>) -> Pod {
    match ready {
        Some(s) => pod(name).ready_since(&ago(s)).build(),
        None => pod(name).not_ready().build(),
    }
}

/// C12: per pod.
#[test]
fn c12_next_pod_availability_check() {
    let n = now();
    assert_eq!(next_check(&p("a", None), 0, n), None, "not ready");
    assert_eq!(
        next_check(&p("a", Some(0.0)), 0, n),
        None,
        "no minReadySeconds"
    );
    assert_eq!(
        next_check(&pod("a").ready_no_ltt().build(), 1, n),
        None,
        "zero lastTransitionTime"
    );
    assert_eq!(
        next_check(&p("a", Some(0.0)), 1, n),
        Some(Duration::from_seconds(1)),
        "just became ready"
    );
    assert_eq!(
        next_check(&p("a", Some(20.0)), 30, n),
        Some(Duration::from_seconds(10)),
        "ready for 20 s"
    );
    assert_eq!(next_check(&p("a", Some(51.0)), 50, n), None, "available");
    // R-83: exactly at the boundary ⇒ nil (already available, R-03's <=).
    assert_eq!(
        next_check(&p("a", Some(50.0)), 50, n),
        None,
        "at the boundary"
    );
    assert_eq!(
        next_check(&p("a", Some(0.0)), -1, n),
        None,
        "negative minReadySeconds"
    );
}

fn five_pods(ready: [Option<f64>; 5]) -> Vec<Pod> {
    ready
        .iter()
        .enumerate()
        .map(|(i, r)| p(&format!("pod{}", i + 1), *r))
        .collect()
}

/// C13: the smallest positive wait, evaluated and re-evaluated at the same instant.
#[test]
fn c13_find_min_next_pod_availability_simple() {
    let n = now();
    let none: Vec<&Pod> = Vec::new();
    assert_eq!(min_next_check(&none, 0, n, n), None);
    let two_not_ready = [p("pod1", None), p("pod2", None)];
    let refs: Vec<&Pod> = two_not_ready.iter().collect();
    assert_eq!(min_next_check(&refs, 0, n, n), None);
    let two_ready = [p("pod1", Some(0.0)), p("pod2", Some(0.0))];
    let refs: Vec<&Pod> = two_ready.iter().collect();
    assert_eq!(min_next_check(&refs, 0, n, n), None);

    let row4 = five_pods([None, Some(2.0), Some(0.0), Some(4.0), None]);
    let refs: Vec<&Pod> = row4.iter().collect();
    assert_eq!(
        min_next_check(&refs, 10, n, n),
        Some(Duration::from_seconds(6))
    );

    let row5 = five_pods([None, Some(15.0), Some(11.0), Some(10.0), None]);
    let refs: Vec<&Pod> = row5.iter().collect();
    assert_eq!(
        min_next_check(&refs, 10, n, n),
        None,
        "pod4 exactly at the boundary"
    );
}

/// C14: the clock moved on since the evaluation ("status evaluation delay").
#[test]
fn c14_find_min_next_pod_availability_after_a_delay() {
    let n = now();
    let row4 = five_pods([None, Some(2.0), Some(0.0), Some(4.0), None]);
    let refs: Vec<&Pod> = row4.iter().collect();
    assert_eq!(
        min_next_check(&refs, 10, n, n.plus(Duration::from_seconds(2))),
        Some(Duration::from_seconds(4))
    );
    assert_eq!(
        min_next_check(&refs, 10, n, n.plus(Duration::from_seconds(7))),
        Some(Duration::ZERO),
        "past pod4's availability point: check now"
    );
}

// ---------------------------------------------------------------------------------------
// S-14 requeue

fn status(ready: i32, available: i32) -> ReplicaSetStatus {
    ReplicaSetStatus {
        ready_replicas: ready,
        available_replicas: available,
        ..ReplicaSetStatus::default()
    }
}

#[test]
fn s14_requeue_only_when_some_ready_pod_is_not_yet_available() {
    let n = now();
    let pods = [p("a", Some(2.0))];
    let refs: Vec<&Pod> = pods.iter().collect();
    assert_eq!(
        requeue_after(&status(1, 0), &refs, 10, n),
        Some(Duration::from_seconds(8))
    );
    assert_eq!(
        requeue_after(&status(1, 1), &refs, 10, n),
        None,
        "ready == available"
    );
    assert_eq!(
        requeue_after(&status(1, 0), &refs, 0, n),
        None,
        "minReadySeconds 0"
    );
}

/// S-14, E-19: ready pods without a ready time never become available; only the
/// minReadySeconds fallback fires.
#[test]
fn s14_e19_fallback_is_min_ready_seconds() {
    let pods = [pod("a").ready_no_ltt().build()];
    let refs: Vec<&Pod> = pods.iter().collect();
    assert_eq!(
        requeue_after(&status(1, 0), &refs, 10, now()),
        Some(Duration::from_seconds(10))
    );
}

/// A28 (TestReplicaSetAvailabilityCheck): replicas 4, minReadySeconds 5; pods Pending,
/// ready since now, now−2 s, now−4.3 s ⇒ ready 3, available 0, requeue after 0.7 s (the
/// key is queued once the clock has advanced 0.9 s, not immediately).
#[test]
fn a28_availability_requeue_through_a_sync() {
    let owner = rs("web").replicas(4).min_ready(5);
    let pods = [
        pod("pending").owned_by(&owner),
        pod("r0").owned_by(&owner).ready_since(NOW),
        pod("r2").owned_by(&owner).ready_since(&ago(2.0)),
        pod("r43").owned_by(&owner).ready_since(&ago(4.3)),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let pl = plan(&inp, &config).expect("plan");
    let done = finish(&pl, &SyncOutcome::default());
    let s = done.status.expect("status written");
    assert_eq!(
        (s.replicas, s.ready_replicas, s.available_replicas),
        (4, 3, 0)
    );
    let Requeue::After { after } = done.requeue else {
        panic!("expected an availability requeue, got {:?}", done.requeue);
    };
    assert_eq!(after, secs(0.7));
    assert!(after > Duration::ZERO && after < secs(0.9));
}

/// S-13: a manage error means a rate-limited requeue and no availability requeue.
#[test]
fn s13_manage_error_suppresses_the_availability_requeue() {
    let owner = rs("web").replicas(3).min_ready(5);
    let pods = [pod("r0").owned_by(&owner).ready_since(NOW)];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let pl = plan(&inp, &config).expect("plan");
    let outcome = SyncOutcome {
        creates: vec![CallResult::error("Forbidden", "quota")],
        ..SyncOutcome::default()
    };
    let done = finish(&pl, &outcome);
    assert_eq!(
        done.requeue,
        Requeue::RateLimited {
            error: "quota".into()
        }
    );
    let s = done.status.expect("status");
    assert_eq!((s.ready_replicas, s.available_replicas), (1, 0));
}

/// S-14 through a sync: every pod available ⇒ done, no requeue.
#[test]
fn s14_all_available_means_no_requeue() {
    let owner = rs("web").replicas(1).min_ready(5);
    let pods = [pod("r").owned_by(&owner).ready_since(&ago(5.0))];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let pl = plan(&inp, &config).expect("plan");
    let done = finish(&pl, &SyncOutcome::default());
    assert_eq!(done.status.expect("status").available_replicas, 1);
    assert_eq!(done.requeue, Requeue::Done);
}
