//! One sync end to end (§8, §9): stale cache (S-2), expectations gate and dormancy (S-4,
//! S-9, E-10), scale down, completion (S-10..S-15), and the edge cases
//! E-06, E-07, E-12, E-18. Upstream A1 (TestSyncReplicaSetDoesNothing), A4
//! (TestSyncReplicaSetDormancy) and A12 (TestControllerBurstReplicas), played as several
//! syncs with the expectations a host would keep.

use crate::common;

use std::collections::BTreeSet;

use common::*;
use replicore::outcome::{ApiError, CallResult, SyncOutcome};
use replicore::{
    complete, on_pod_event, plan, Config, Expectations, ExpectationsChange, OwnerKind, PodEvent,
};
use replicore::{Event, Halt, Idle, Manage, Requeue};
use serde_json::json;

// ---------------------------------------------------------------------------------------
// A1, S-15

/// A1 (TestSyncReplicaSetDoesNothing): replicas 2, two running owned pods ⇒ nothing.
#[test]
fn a1_sync_does_nothing_when_in_sync() {
    let owner = rs("foobar")
        .replicas(2)
        .match_labels(json!({"foo": "bar"}))
        .template_labels(json!({"foo": "bar"}))
        .status(
            json!({"replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 2,
                       "availableReplicas": 2, "terminatingReplicas": 0, "observedGeneration": 1}),
        );
    let pods = [
        healthy("a", &owner).labels(json!({"foo": "bar"})),
        healthy("b", &owner).labels(json!({"foo": "bar"})),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.key, "default/foobar");
    assert_eq!(p.halt, None);
    assert_eq!((p.owned, p.desired), (2, 2));
    assert!(p.claims.is_empty());
    assert_eq!(idle(&p.manage), Idle::InSync);
    assert_eq!(p.manage.expectations(), None);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!((done.created, done.deleted), (0, 0));
    assert_eq!(done.status, None, "R-85: nothing changed");
    assert_eq!(done.requeue, Requeue::Done);
    assert!(done.events.is_empty() && done.expectations.is_empty());
}

/// E-18: `spec.replicas` absent means 1.
#[test]
fn e18_absent_replicas_means_one() {
    let owner = rs("web").no_replicas();
    let inp = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.desired, 1);
    assert_eq!(create_plan(&p.manage).count, 1);
}

// ---------------------------------------------------------------------------------------
// S-2

#[test]
fn s2_stale_cache_halts_and_retries_with_backoff() {
    let owner = rs("web").replicas(3).status(json!({"replicas": 9}));
    let inp = input(&owner, &[pod("orphan")]).stale().build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.halt, Some(Halt::StaleCache));
    assert!(p.claims.is_empty());
    assert_eq!(idle(&p.manage), Idle::Halted);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!(done.status, None);
    assert!(done.expectations.is_empty());
    match &done.requeue {
        Requeue::RateLimited { error } => assert!(error.starts_with("default/web: "), "{error}"),
        other => panic!("expected a rate-limited retry, got {other:?}"),
    }
    assert_eq!(
        p.adoption_allowed(&replicore::LiveOwner::Found(Box::new(owner.build()))),
        Err("the sync halted".into())
    );
}

/// S-2: without the gate (before 1.36) the freshness flag is not consulted.
#[test]
fn s2_gate_off_ignores_the_freshness_flag() {
    let owner = rs("web").replicas(1);
    let inp = input(&owner, &[]).stale().build();
    let config = Config::for_version(35);
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.halt, None);
    assert_eq!(create_plan(&p.manage).count, 1);
}

// ---------------------------------------------------------------------------------------
// S-9, E-10, A4: dormancy

/// A4 (TestSyncReplicaSetDormancy): replicas 2, one running owned pod; the created pod is
/// never observed by the cache.
#[test]
fn a4_dormancy_across_syncs() {
    let owner = rs("web").replicas(2);
    let pods = [healthy("a", &owner)];
    let config = Config::default();
    let mut status_writes = Vec::new();

    // 1. One create; expectations add = 1.
    let inp = input(&owner, &pods).build();
    let p = plan(&inp, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(c.count, 1);
    let e = c.expectations.apply(Expectations::none(), now());
    let done = finish(&p, &all_ok(&p, &owner));
    assert_eq!(done.created, 1);
    let e = apply_all(e, &done.expectations, now());
    assert_eq!(counts(&e), (1, 0));

    // 2. The pod is not observed yet: dormant, but the status is still written.
    let inp = input(&owner, &pods).expectations(&e).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!(done.created, 0);
    status_writes.push(done.status.clone().expect("E-10: status still written"));
    assert_eq!(done.requeue, Requeue::Done);

    // 3. One creation observed (add = 0); the create now fails: one attempt, lowered back.
    let e = ExpectationsChange::CreationObserved.apply(e, now());
    assert_eq!(counts(&e), (0, 0));
    let inp = input(&owner, &pods).expectations(&e).build();
    let p = plan(&inp, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(c.count, 1);
    let e = c.expectations.apply(e, now());
    let outcome = SyncOutcome {
        creates: vec![CallResult::error("InternalError", "fake create error")],
        ..SyncOutcome::default()
    };
    let done = finish(&p, &outcome);
    assert_eq!((done.created, done.create_calls), (0, 1));
    let e = apply_all(e, &done.expectations, now());
    assert_eq!(
        counts(&e),
        (0, 0),
        "the skipped pod lowers expectations back to 0"
    );
    status_writes.push(done.status.clone().expect("status with the failure"));
    assert!(matches!(done.requeue, Requeue::RateLimited { .. }));

    // 4. Creates succeed again: one create.
    let inp = input(&owner, &pods).expectations(&e).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 1);
    let done = finish(&p, &all_ok(&p, &owner));
    assert_eq!(done.created, 1);

    assert_eq!(
        status_writes.len(),
        2,
        "two status writes in the dormancy window"
    );
    assert_eq!(status_writes[0].replicas, 1);
    assert_eq!(status_writes[0].conditions, None);
    let failure = status_writes[1].conditions.as_ref().expect("condition");
    assert_eq!(failure[0].reason, "FailedCreate");
}

/// S-9: an owner being deleted still writes status but never creates or deletes.
#[test]
fn s9_e09_owner_being_deleted_writes_status_only() {
    let owner = rs("web").replicas(0).deleting();
    let pods = [healthy("a", &owner), healthy("b", &owner)];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::OwnerTerminating);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!(done.status.expect("status").replicas, 2);
    assert_eq!(done.deleted, 0);
}

// ---------------------------------------------------------------------------------------
// A12: burst across syncs, with the watch in between

/// Runs one sync where every call succeeds; returns (creates, victims' keys).
fn sync_once(
    owner: &Rs,
    cache: &[P],
    e: &mut Expectations,
    config: &Config,
) -> (usize, Vec<String>) {
    let inp = input(owner, cache).expectations(e).build();
    let p = plan(&inp, config).expect("plan");
    if let Some(change) = p.manage.expectations() {
        *e = change.apply(e.clone(), now());
    }
    let done = complete(&p, &all_ok(&p, owner)).expect("complete");
    *e = apply_all(e.clone(), &done.expectations, now());
    let keys = match &p.manage {
        Manage::Delete(d) => d
            .victims
            .iter()
            .map(|v| format!("{}/{}", v.namespace, v.name))
            .collect(),
        _ => Vec::new(),
    };
    (done.created, keys)
}

/// A12 (TestControllerBurstReplicas) for (burst, replicas) ∈ {(5, 30), (5, 12), (3, 2)}.
#[test]
fn a12_burst_replicas() {
    for (burst, replicas) in [(5usize, 30usize), (5, 12), (3, 2)] {
        let config = Config {
            burst_replicas: burst,
            ..Config::default()
        };
        let owners = vec![rs("web").replicas(replicas as i64).build()];
        let kind = OwnerKind::replica_set();

        // Scale 0 → N.
        let mut owner = rs("web").replicas(replicas as i64);
        let mut cache: Vec<P> = Vec::new();
        let mut e = Expectations::none();
        let mut per_sync = Vec::new();
        let mut serial = 0;
        while cache.len() < replicas {
            let (created, _) = sync_once(&owner, &cache, &mut e, &config);
            assert_eq!(
                created,
                burst.min(replicas - cache.len()),
                "({burst}, {replicas})"
            );
            per_sync.push(created);
            let new: Vec<P> = (0..created)
                .map(|_| {
                    serial += 1;
                    healthy(&format!("web-{serial}"), &owner)
                })
                .collect();
            // Observe all but one: still dormant with add = 1.
            for p in &new[..created - 1] {
                let d = on_pod_event(PodEvent::Added(&p.build()), &owners, &kind);
                e = d
                    .observations
                    .iter()
                    .fold(e, |e, o| o.change.apply(e, now()));
                cache.push(p.clone());
            }
            assert_eq!(counts(&e), (1, 0));
            let inp = input(&owner, &cache).expectations(&e).build();
            assert_eq!(
                idle(&plan(&inp, &config).expect("plan").manage),
                Idle::ExpectationsPending
            );
            let last = &new[created - 1];
            let d = on_pod_event(PodEvent::Added(&last.build()), &owners, &kind);
            e = d
                .observations
                .iter()
                .fold(e, |e, o| o.change.apply(e, now()));
            cache.push(last.clone());
        }
        let want: Vec<usize> = (0..replicas.div_ceil(burst))
            .map(|i| burst.min(replicas - i * burst))
            .collect();
        assert_eq!(per_sync, want, "creates per sync ({burst}, {replicas})");

        // Scale N → 0.
        owner = owner.replicas(0);
        let mut per_sync = Vec::new();
        while !cache.is_empty() {
            let before = cache.len();
            let (_, keys) = sync_once(&owner, &cache, &mut e, &config);
            assert_eq!(keys.len(), burst.min(before), "({burst}, {replicas})");
            per_sync.push(keys.len());
            let expected: BTreeSet<String> = keys.iter().cloned().collect();
            assert_eq!(e.record().map(|r| r.deletion_keys.clone()), Some(expected));
            assert_eq!(counts(&e), (0, keys.len() as i64));
            let gone: Vec<P> = cache
                .iter()
                .filter(|p| keys.contains(&p.key()))
                .cloned()
                .collect();
            cache.retain(|p| !keys.contains(&p.key()));
            for p in &gone[..gone.len() - 1] {
                let d = on_pod_event(PodEvent::Deleted(&p.build()), &owners, &kind);
                e = d
                    .observations
                    .iter()
                    .fold(e, |e, o| o.change.apply(e, now()));
            }
            assert_eq!(counts(&e), (0, 1));
            let inp = input(&owner, &cache).expectations(&e).build();
            assert_eq!(
                idle(&plan(&inp, &config).expect("plan").manage),
                Idle::ExpectationsPending
            );
            let d = on_pod_event(
                PodEvent::Deleted(&gone[gone.len() - 1].build()),
                &owners,
                &kind,
            );
            e = d
                .observations
                .iter()
                .fold(e, |e, o| o.change.apply(e, now()));
        }
        assert_eq!(per_sync, want, "deletes per sync ({burst}, {replicas})");
        assert!(e.satisfied(now()));
        assert_eq!(cache.len(), 0, "the final pod count equals spec.replicas");
    }
}

// ---------------------------------------------------------------------------------------
// Scale down, E-07, E-12

#[test]
fn r55_r58_scale_down_plan() {
    let owner = rs("web").replicas(1);
    let pods = [
        healthy("old", &owner).ready_since(&ago(10.0 * HOUR)),
        healthy("young", &owner).ready_since(&ago(60.0)),
        pod("pending").owned_by(&owner).node("node-1"),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    let d = delete_plan(&p.manage);
    assert_eq!(victim_names(&p.manage), vec!["pending", "young"]);
    assert_eq!(d.victims[0].pod_index, 2);
    assert_eq!(d.victims[0].uid, "uid-pending");
    assert_eq!(d.victims[0].namespace, "default");
    assert_eq!(d.victims[0].rule, Some(replicore::RankRule::Phase));
    assert_eq!(d.victims[1].rule, Some(replicore::RankRule::ReadyTime));
    assert_eq!(
        d.expectations,
        ExpectationsChange::ExpectDeletions {
            keys: vec!["default/pending".into(), "default/young".into()]
        }
    );
    let done = finish(&p, &all_ok(&p, &owner));
    assert_eq!(done.deleted, 2);
    assert_eq!(
        done.events,
        vec![
            Event {
                type_: "Normal".into(),
                reason: "SuccessfulDelete".into(),
                message: "Deleted pod: pending".into()
            },
            Event {
                type_: "Normal".into(),
                reason: "SuccessfulDelete".into(),
                message: "Deleted pod: young".into()
            },
        ]
    );
    assert!(done.expectations.is_empty());
    assert_eq!(done.error, None);
    // The status still counts the three pods: deletions are observed by the watch.
    assert_eq!(done.status.expect("status").replicas, 3);
}

#[test]
fn c1_r55_deletes_are_capped_by_the_burst() {
    let owner = rs("web").replicas(0);
    let pods: Vec<P> = (0..5).map(|i| healthy(&format!("p{i}"), &owner)).collect();
    let inp = input(&owner, &pods).build();
    let config = Config {
        burst_replicas: 3,
        ..Config::default()
    };
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(delete_plan(&p.manage).victims.len(), 3);
}

/// R-59, E-12: a failed delete is observed (always); NotFound is otherwise benign, other
/// errors are the sync's error with a FailedDelete event.
#[test]
fn r59_e12_failed_deletes() {
    let owner = rs("web").replicas(0);
    let pods = [
        healthy("a", &owner),
        healthy("b", &owner).node("node-2"),
        healthy("c", &owner).node("node-3"),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    let names = victim_names(&p.manage);
    assert_eq!(names.len(), 3);
    let e = apply_all(Expectations::none(), p.manage.expectations(), now());
    let outcome = SyncOutcome {
        deletes: vec![
            CallResult::ok(),
            CallResult::error("NotFound", "pods \"x\" not found"),
            CallResult::Error(ApiError {
                reason: "Forbidden".into(),
                message: "denied".into(),
                code: Some(403),
                causes: Vec::new(),
            }),
        ],
        ..SyncOutcome::default()
    };
    let done = finish(&p, &outcome);
    assert_eq!(done.deleted, 1);
    assert_eq!(
        done.expectations,
        vec![
            ExpectationsChange::DeletionObserved {
                key: format!("default/{}", names[1])
            },
            ExpectationsChange::DeletionObserved {
                key: format!("default/{}", names[2])
            },
        ]
    );
    let e = apply_all(e, &done.expectations, now());
    assert_eq!(
        counts(&e),
        (0, 1),
        "only the successful delete is left to observe"
    );
    assert_eq!(done.error.as_deref(), Some("unable to delete pods: denied"));
    assert_eq!(
        done.requeue,
        Requeue::RateLimited {
            error: "unable to delete pods: denied".into()
        }
    );
    let reasons: Vec<&str> = done.events.iter().map(|e| e.reason.as_str()).collect();
    assert_eq!(reasons, vec!["SuccessfulDelete", "FailedDelete"]);
    assert_eq!(done.events[1].message, "Error deleting: denied");
    assert_eq!(done.events[1].type_, "Warning");

    // Only NotFound: no error at all.
    let outcome = SyncOutcome {
        deletes: vec![CallResult::error("NotFound", "gone"); 3],
        ..SyncOutcome::default()
    };
    let done = finish(&p, &outcome);
    assert_eq!(done.error, None);
    assert_eq!(done.expectations.len(), 3);
    assert!(done.events.is_empty());
    assert_eq!(done.requeue, Requeue::Done);
}

/// E-07: terminal pods are ignored entirely, even when deleting.
#[test]
fn e07_terminal_pods_are_never_victims_or_counted() {
    let owner = rs("web").replicas(1);
    let pods = [
        healthy("a", &owner),
        healthy("b", &owner),
        pod("failed").owned_by(&owner).phase("Failed"),
        pod("succeeded")
            .owned_by(&owner)
            .phase("Succeeded")
            .deleting(),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.owned, 2);
    let victims = victim_names(&p.manage);
    assert_eq!(victims.len(), 1);
    assert!(victims[0] == "a" || victims[0] == "b");
    let s = finish(&p, &all_ok(&p, &owner)).status.expect("status");
    assert_eq!((s.replicas, s.terminating_replicas), (2, Some(0)));
}

/// E-06: terminating pods are not active: replacements are created at once.
#[test]
fn e06_terminating_pods_are_replaced_immediately() {
    let owner = rs("web").replicas(2);
    let pods = [
        healthy("a", &owner).deleting(),
        healthy("b", &owner).deleting(),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(p.owned, 0);
    assert_eq!(create_plan(&p.manage).count, 2);
    let done = finish(&p, &all_ok(&p, &owner));
    let s = done.status.expect("status");
    assert_eq!((s.replicas, s.terminating_replicas), (0, Some(2)));
}

// ---------------------------------------------------------------------------------------
// complete(): S-9 shapes

#[test]
fn s9_completion_reports_the_manage_step_that_ran() {
    let owner = rs("web").replicas(3);
    let inp = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    let done = finish(&p, &all_ok(&p, &owner));
    assert_eq!(done.manage, p.manage);
    assert_eq!(done.create_batches, vec![1, 2]);
    let names: Vec<&str> = done.events.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "Created pod: new-0",
            "Created pod: new-1",
            "Created pod: new-2"
        ]
    );
}

#[test]
fn s9_nothing_planned_means_no_calls_may_be_reported() {
    let owner = rs("web").replicas(1);
    let inp = input(&owner, &[healthy("a", &owner)]).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    let outcome = SyncOutcome {
        creates: vec![CallResult::ok()],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("no creates were planned");
    assert_eq!(err.path(), "creates");
}

/// The plan's JSON form is what a host reads: tagged, camelCase.
#[test]
fn plan_serializes_for_hosts() {
    let owner = rs("web").replicas(2);
    let inp = input(&owner, &[pod("orphan")]).build();
    let config = Config::default();
    let p = plan(&inp, &config).expect("plan");
    let v = serde_json::to_value(&p).expect("ser");
    assert_eq!(v["key"], "default/web");
    assert_eq!(v["needsOwnerRecheck"], true);
    assert_eq!(v["claims"][0]["kind"], "adopt");
    assert_eq!(v["manage"]["action"], "create");
    assert_eq!(v["manage"]["count"], 1);
    assert_eq!(
        v["manage"]["expectations"],
        json!({"op": "expectCreations", "count": 1})
    );
    assert!(v.get("halt").is_none());
}
