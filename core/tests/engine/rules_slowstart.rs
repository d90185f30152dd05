//! Scale up (§9a): burst (C-1, R-50), expectations before creating, slow start
//! (C-2, R-52), NamespaceTerminating (R-53, E-11), skipped creations, the created
//! pod (`GetPodFromTemplate`, upstream C3), the event each create and delete call records
//! . Upstream A3, A25; suggested vector E6.
//! Moved here from the in-module tests of `slowstart.rs`.

use crate::common;

use common::*;
use replicore::outcome::{ApiError, CallResult, SyncOutcome};
use replicore::replicaset::slowstart::{
    batch_sizes, run, SlowStartResult, SLOW_START_INITIAL_BATCH_SIZE,
};
use replicore::replicaset::{create_event, delete_event, template, Event};
use replicore::{plan, Config, Expectations, ExpectationsChange, OwnerKind};
use replicore::{CreatePlan, Idle, Requeue};
use serde_json::json;

/// Plays the host's slow start: asks `next_batch`, answers every call of the batch with
/// `answer(call index)`, until the engine says stop.
fn drive(c: &CreatePlan, answer: impl Fn(usize) -> CallResult) -> Vec<CallResult> {
    let mut results = Vec::new();
    while let Some(n) = c.next_batch(&results) {
        let start = results.len();
        results.extend((start..start + n).map(&answer));
    }
    results
}

fn quota_exceeded() -> CallResult {
    CallResult::error("Forbidden", "pods \"x\" is forbidden: exceeded quota")
}

fn namespace_terminating() -> CallResult {
    CallResult::Error(ApiError {
        reason: "Forbidden".into(),
        message: "unable to create new content in namespace default because it is being terminated"
            .into(),
        code: Some(403),
        causes: vec!["NamespaceTerminating".into()],
    })
}

// ---------------------------------------------------------------------------------------
// The schedule (C-2, R-52)

#[test]
fn c2_the_first_batch_has_one_call() {
    assert_eq!(SLOW_START_INITIAL_BATCH_SIZE, 1);
}

#[test]
fn r52_batches_double_and_the_last_is_cut() {
    assert_eq!(batch_sizes(10, 1), vec![1, 2, 4, 3]);
    assert_eq!(batch_sizes(0, 1), Vec::<usize>::new());
    assert_eq!(batch_sizes(1, 1), vec![1]);
    assert_eq!(batch_sizes(2, 1), vec![1, 1]);
    assert_eq!(batch_sizes(3, 1), vec![1, 2]);
    assert_eq!(batch_sizes(7, 1), vec![1, 2, 4]);
    assert_eq!(batch_sizes(8, 1), vec![1, 2, 4, 1]);
    assert_eq!(batch_sizes(500, 1), vec![1, 2, 4, 8, 16, 32, 64, 128, 245]);
}

#[test]
fn r52_first_batch_is_min_of_initial_and_count() {
    assert_eq!(batch_sizes(3, 8), vec![3]);
    assert_eq!(batch_sizes(20, 4), vec![4, 8, 8]);
    // An initial size of 0 would never progress; it is treated as 1.
    assert_eq!(batch_sizes(3, 0), vec![1, 2]);
}

/// Upstream TestSlowStartBatch (A25): count 10, initial 1, calls beyond `limit` fail.
#[test]
fn a25_upstream_slow_start_table() {
    let table = [
        // (limit, successes, calls, first failure, batches)
        (0, 0, 1, Some(0), vec![1]),
        (10, 10, 10, None, vec![1, 2, 4, 3]),
        (5, 5, 7, Some(5), vec![1, 2, 4]),
    ];
    for (limit, successes, calls, first_failure, batches) in table {
        let r = run(10, 1, |i| i >= limit);
        assert_eq!(
            r,
            SlowStartResult {
                successes,
                calls,
                batches,
                first_failure
            },
            "limit {limit}"
        );
    }
}

/// every call of a started batch is issued even after a failure inside it.
#[test]
fn r52_a_failing_batch_is_finished_then_the_run_stops() {
    let r = run(10, 1, |i| i == 3);
    assert_eq!(r.calls, 7);
    assert_eq!(r.successes, 6);
    assert_eq!(r.first_failure, Some(3));
    assert_eq!(r.batches, vec![1, 2, 4]);
}

#[test]
fn r52_zero_count_issues_nothing() {
    let r = run(0, 1, |_| true);
    assert_eq!((r.calls, r.successes, r.first_failure), (0, 0, None));
    assert!(r.batches.is_empty());
}

// ---------------------------------------------------------------------------------------
// The create step of a sync (R-50, R-51, C-1)

#[test]
fn r50_r51_create_plan_for_missing_pods() {
    let owner = rs("web").replicas(5);
    let pods = [healthy("a", &owner), healthy("b", &owner)];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(c.count, 3);
    assert_eq!(c.batches, vec![1, 2]);
    assert_eq!(
        c.expectations,
        ExpectationsChange::ExpectCreations { count: 3 }
    );
    assert_eq!(p.manage.expectations(), Some(&c.expectations));
    assert_eq!(c.refused, None);
    // recorded before the first call.
    let e = c.expectations.apply(Expectations::none(), now());
    assert_eq!(counts(&e), (3, 0));
    assert!(!e.satisfied(now()));
}

#[test]
fn c1_r50_creates_are_capped_by_the_burst() {
    let owner = rs("web").replicas(600);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(c.count, 500);
    assert_eq!(c.batches, vec![1, 2, 4, 8, 16, 32, 64, 128, 245]);

    let small = Config {
        burst_replicas: 3,
        ..Config::default()
    };
    let p = plan(&input, &small).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 3);
    assert_eq!(create_plan(&p.manage).batches, vec![1, 2]);
}

/// A3 (TestSyncReplicaSetCreateFailures): replicas 100, calls 11+ fail (quota) ⇒ 10 pods
/// created in 15 calls (1, 2, 4 succeed; the batch of 8 has 3 successes and 5 failures).
#[test]
fn a3_slow_start_under_quota() {
    let owner = rs("web").replicas(100);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(c.count, 100);
    let results = drive(c, |i| {
        if i < 10 {
            CallResult::created(format!("web-{i}"))
        } else {
            quota_exceeded()
        }
    });
    assert_eq!(results.len(), 15);
    let outcome = SyncOutcome {
        creates: results,
        ..SyncOutcome::default()
    };
    let done = finish(&p, &outcome);
    assert_eq!(done.created, 10);
    assert_eq!(done.create_calls, 15);
    assert_eq!(done.create_batches, vec![1, 2, 4, 8]);
    // 100 − 10 successes are skipped (failed or never attempted).
    assert_eq!(
        done.expectations,
        vec![ExpectationsChange::LowerCreations { count: 90 }]
    );
    let e = apply_all(
        Expectations::none().expect_creations(100, now()),
        &done.expectations,
        now(),
    );
    assert_eq!(counts(&e), (10, 0));
    let error = "pods \"x\" is forbidden: exceeded quota";
    assert_eq!(done.error.as_deref(), Some(error));
    assert_eq!(
        done.requeue,
        Requeue::RateLimited {
            error: error.into()
        }
    );
    let created = done
        .events
        .iter()
        .filter(|e| e.reason == "SuccessfulCreate")
        .count();
    let failed: Vec<_> = done
        .events
        .iter()
        .filter(|e| e.reason == "FailedCreate")
        .collect();
    assert_eq!(created, 10);
    assert_eq!(failed.len(), 5);
    assert_eq!(failed[0].type_, "Warning");
    assert_eq!(failed[0].message, format!("Error creating: {error}"));
    assert_eq!(done.events[0].message, "Created pod: web-0");
    // the failure shows in the status.
    let status = done.status.expect("status written");
    let conds = status.conditions.expect("condition");
    assert_eq!(conds[0].type_, "ReplicaFailure");
    assert_eq!(conds[0].reason, "FailedCreate");
    assert_eq!(conds[0].message, error);
}

/// the engine's batch protocol stops after a failing batch.
#[test]
fn r52_next_batch_protocol() {
    let owner = rs("web").replicas(10);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let c = create_plan(&p.manage);
    let ok = || CallResult::created("p");
    assert_eq!(c.next_batch(&[]), Some(1));
    assert_eq!(c.next_batch(&[ok()]), Some(2));
    assert_eq!(c.next_batch(&[ok(), ok(), ok()]), Some(4));
    assert_eq!(c.next_batch(&vec![ok(); 7]), Some(3));
    assert_eq!(c.next_batch(&vec![ok(); 10]), None);
    assert_eq!(c.next_batch(&[quota_exceeded()]), None);
    assert_eq!(c.next_batch(&[ok(), ok(), quota_exceeded()]), None);
    // a NamespaceTerminating rejection does not stop slow start.
    assert_eq!(c.next_batch(&[namespace_terminating()]), Some(2));
}

/// R-52 + R-54, every call failing: exactly one call, all n creations lowered.
#[test]
fn r52_r54_every_call_failing_makes_one_call() {
    let owner = rs("web").replicas(10);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let results = drive(create_plan(&p.manage), |_| quota_exceeded());
    assert_eq!(results.len(), 1);
    let done = finish(
        &p,
        &SyncOutcome {
            creates: results,
            ..SyncOutcome::default()
        },
    );
    assert_eq!((done.created, done.create_calls), (0, 1));
    assert_eq!(
        done.expectations,
        vec![ExpectationsChange::LowerCreations { count: 10 }]
    );
}

/// every create succeeding leaves the expectations alone (the watch lowers them).
#[test]
fn r54_all_successes_lower_nothing() {
    let owner = rs("web").replicas(4);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let done = finish(&p, &all_ok(&p, &owner));
    assert_eq!(done.created, 4);
    assert_eq!(done.create_batches, vec![1, 2, 1]);
    assert!(done.expectations.is_empty());
    assert_eq!(done.error, None);
    assert_eq!(done.requeue, Requeue::Done);
}

/// R-53, E-11, suggested vector E6: NamespaceTerminating counts as success; expectations
/// stay raised; the owner is dormant until the TTL (C-3) expires.
#[test]
fn r53_e11_namespace_terminating_is_treated_as_success() {
    let owner = rs("web").replicas(3);
    let input1 = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input1, &config).expect("plan");
    let c = create_plan(&p.manage);
    let e = c.expectations.apply(Expectations::none(), now());
    let results = drive(c, |_| namespace_terminating());
    assert_eq!(results.len(), 3, "slow start goes on: 1 + 2 calls");
    let done = finish(
        &p,
        &SyncOutcome {
            creates: results,
            ..SyncOutcome::default()
        },
    );
    assert_eq!(done.created, 0, "no pod was created");
    assert!(done.expectations.is_empty(), "nothing lowered");
    assert_eq!(done.error, None);
    assert_eq!(done.requeue, Requeue::Done);
    assert!(done.events.is_empty());
    let e = apply_all(e, &done.expectations, now());
    assert_eq!(counts(&e), (3, 0));

    // A minute later: dormant.
    let later = input(&owner, &[])
        .expectations(&e)
        .now(&at(now(), 60.0))
        .build();
    let p = plan(&later, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);
    // Exactly 5 minutes later: still dormant (C-3 is strict).
    let later = input(&owner, &[])
        .expectations(&e)
        .now(&at(now(), 300.0))
        .build();
    let p = plan(&later, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);
    // Past the TTL: the creates are planned again.
    let later = input(&owner, &[])
        .expectations(&e)
        .now(&at(now(), 300.001))
        .build();
    let p = plan(&later, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 3);
}

// ---------------------------------------------------------------------------------------
// The created pod (§9a, upstream C3)

#[test]
fn s9a_created_pod_copies_the_template() {
    let owner = rs("web")
        .replicas(1)
        .template_labels(json!({"app": "web", "tier": "fe"}));
    let mut owner = owner;
    owner.v["spec"]["template"]["metadata"]["annotations"] = json!({"note": "x"});
    owner.v["spec"]["template"]["metadata"]["finalizers"] = json!(["example.com/keep"]);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let c = create_plan(&p.manage);
    assert_eq!(
        c.pod,
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "namespace": "default",
                "generateName": "web-",
                "labels": {"app": "web", "tier": "fe"},
                "annotations": {"note": "x"},
                "finalizers": ["example.com/keep"],
                "ownerReferences": [{
                    "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                    "uid": "uid-web", "controller": true, "blockOwnerDeletion": true,
                }],
            },
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        })
    );
}

#[test]
fn s9a_replication_controller_pods_name_their_kind() {
    let owner = rs("legacy").replicas(1);
    let rsv = owner.build();
    let pod = template::pod_from_template(&rsv, &OwnerKind::replication_controller());
    assert_eq!(
        pod["metadata"]["ownerReferences"][0]["kind"],
        "ReplicationController"
    );
    assert_eq!(pod["metadata"]["ownerReferences"][0]["apiVersion"], "v1");
}

#[test]
fn s9a_generate_name_is_dashed_unless_invalid() {
    assert_eq!(template::generate_name("web"), "web-");
    assert_eq!(template::generate_name("web.v2"), "web.v2-");
    // Not a valid pod-name prefix with the dash: upper case, or too long.
    assert_eq!(template::generate_name("Web"), "Web");
    let long = "a".repeat(253);
    assert_eq!(template::generate_name(&long), long);
    let fits = "a".repeat(252);
    assert_eq!(template::generate_name(&fits), format!("{fits}-"));
}

/// §9a: a template without labels makes every create fail before any API call.
#[test]
fn s9a_template_without_labels_refuses_creates() {
    for owner in [
        rs("web").replicas(4).no_template_labels(),
        rs("web").replicas(4).template_labels(json!({})),
    ] {
        assert!(!template::has_labels(&owner.build()));
        let input = input(&owner, &[]).build();
        let config = Config::default();
        let p = plan(&input, &config).expect("plan");
        let c = create_plan(&p.manage);
        assert_eq!(
            c.refused.as_deref(),
            Some("unable to create pods, no labels")
        );
        assert_eq!(c.next_batch(&[]), None, "no call is made");
        let done = finish(&p, &SyncOutcome::default());
        assert_eq!((done.created, done.create_calls), (0, 0));
        assert_eq!(done.create_batches, vec![1]);
        assert_eq!(
            done.expectations,
            vec![ExpectationsChange::LowerCreations { count: 4 }]
        );
        assert_eq!(
            done.error.as_deref(),
            Some("unable to create pods, no labels")
        );
        assert!(matches!(done.requeue, Requeue::RateLimited { .. }));
    }
    assert!(template::has_labels(&rs("web").build()));
}

/// a host that stops a create step partway (a lost leader lease) takes off
/// the expectations what `complete` would for the calls it made: the creations never
/// attempted and the failed ones, a timeout included (upstream exempts only
/// NamespaceTerminating), and nothing when every creation was made.
#[test]
fn r54_abandoned_create_step_lowers_what_was_not_made() {
    let owner = rs("web").replicas(7);
    let input = input(&owner, &[]).build();
    let p = plan(&input, &Config::default()).expect("plan");
    let timeout = CallResult::error("Timeout", "the server was unable to return a response");
    let lower = |count| vec![ExpectationsChange::LowerCreations { count }];
    // Before any call: all 7.
    assert_eq!(p.manage.abandoned(&[]), lower(7));
    // The first batch (1) made; a timeout and a NamespaceTerminating in the second (2).
    let results = vec![CallResult::created("a"), timeout, namespace_terminating()];
    assert_eq!(p.manage.abandoned(&results), lower(5));
    // Every creation made: nothing to take off.
    let made: Vec<CallResult> = (0..7)
        .map(|i| CallResult::created(format!("p{i}")))
        .collect();
    assert!(p.manage.abandoned(&made).is_empty());
    // The same count as complete's correction for the calls a full run makes.
    let full = drive(create_plan(&p.manage), |i| {
        if i == 1 {
            CallResult::error("Timeout", "t")
        } else {
            CallResult::created(format!("p{i}"))
        }
    });
    let done = finish(
        &p,
        &SyncOutcome {
            creates: full.clone(),
            ..SyncOutcome::default()
        },
    );
    assert_eq!(p.manage.abandoned(&full), done.expectations);
}

/// a delete step stopped partway observes every victim whose delete did not succeed.
#[test]
fn r59_abandoned_delete_step_observes_the_victims_not_deleted() {
    let owner = rs("web").replicas(1);
    let pods = [
        healthy("a", &owner),
        healthy("b", &owner),
        healthy("c", &owner),
    ];
    let input = input(&owner, &pods).build();
    let p = plan(&input, &Config::default()).expect("plan");
    let victims = &delete_plan(&p.manage).victims;
    assert_eq!(victims.len(), 2);
    let got = p.manage.abandoned(&[CallResult::ok()]);
    let key = format!("{}/{}", victims[1].namespace, victims[1].name);
    assert_eq!(got, vec![ExpectationsChange::DeletionObserved { key }]);
    // A plan that does nothing has nothing to take off.
    let idle = plan(&input_of_idle(), &Config::default()).expect("plan");
    assert!(matches!(
        idle.manage,
        replicore::Manage::Nothing { why: Idle::InSync }
    ));
    assert!(idle.manage.abandoned(&[]).is_empty());
}

fn input_of_idle() -> replicore::SyncInput {
    let owner = rs("web").replicas(1);
    input(&owner, &[healthy("a", &owner)]).build()
}

/// each pod call records its own event when it returns: a created pod, by the name
/// the server gave it; a failed create, with the server's message, except when the
/// namespace is terminating; a deleted pod, by the victim's name; a failed delete,
/// except when the pod was already gone.
#[test]
fn r61_each_pod_call_records_its_event() {
    let ev = |type_: &str, reason: &str, message: &str| Event {
        type_: type_.into(),
        reason: reason.into(),
        message: message.into(),
    };
    assert_eq!(
        create_event(&CallResult::created("web-x7k2p")),
        Some(ev("Normal", "SuccessfulCreate", "Created pod: web-x7k2p"))
    );
    assert_eq!(
        create_event(&quota_exceeded()),
        Some(ev(
            "Warning",
            "FailedCreate",
            "Error creating: pods \"x\" is forbidden: exceeded quota"
        ))
    );
    assert_eq!(create_event(&namespace_terminating()), None);
    assert_eq!(create_event(&CallResult::Skipped), None);
    assert_eq!(
        delete_event("web-a", &CallResult::ok()),
        Some(ev("Normal", "SuccessfulDelete", "Deleted pod: web-a"))
    );
    assert_eq!(
        delete_event("web-a", &CallResult::created("another-name")),
        Some(ev("Normal", "SuccessfulDelete", "Deleted pod: web-a")),
        "a delete names the victim, whatever the answer says"
    );
    let gone = CallResult::Error(ApiError {
        reason: "NotFound".into(),
        message: "pods \"web-b\" not found".into(),
        code: Some(404),
        causes: vec![],
    });
    assert_eq!(delete_event("web-b", &gone), None);
    assert_eq!(
        delete_event("web-c", &CallResult::error("Forbidden", "no")),
        Some(ev("Warning", "FailedDelete", "Error deleting: no"))
    );

    // The completion lists the same events in call order, for a host that records after
    // the sync: here 1 + 2 calls, the second failing.
    let owner = rs("web").replicas(3);
    let p = plan(&input(&owner, &[]).build(), &Config::default()).expect("plan");
    let results = drive(create_plan(&p.manage), |i| {
        if i == 1 {
            quota_exceeded()
        } else {
            CallResult::created(format!("web-{i}"))
        }
    });
    let done = finish(
        &p,
        &SyncOutcome {
            creates: results.clone(),
            ..SyncOutcome::default()
        },
    );
    let each: Vec<Event> = results.iter().filter_map(create_event).collect();
    assert_eq!(each.len(), 3);
    assert_eq!(done.events, each);
}
