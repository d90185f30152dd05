//! Status (§12, §13): counters (R-80), terminatingReplicas (R-81), the ReplicaFailure
//! condition (R-82, C-8), the write decision (R-85) and what is written (R-86); edge cases
//! E-06, E-17, E-20; suggested vectors E4, E5. Upstream B1 (TestCalculateStatus), B2
//! (TestCalculateStatusConditions), A23 (TestSetCondition), A24 (TestRemoveCondition),
//! A29 (terminating), A10 (status write failure ⇒ requeue).

use crate::common;

use common::*;
use replicore::model::{ReplicaSetCondition, ReplicaSetStatus};
use replicore::outcome::{CallResult, SyncOutcome};
use replicore::replicaset::status::{
    calculate, needs_write, remove_condition, set_condition, to_write, StatusContext,
    REPLICA_FAILURE,
};
use replicore::Requeue;
use replicore::{plan, Config, FeatureGates, OwnerKind, Pod, ReplicaSet};
use serde_json::json;

fn ctx<'a>(
    gates: &'a FeatureGates,
    kind: &'a OwnerKind,
    manage_error: Option<&'a str>,
) -> StatusContext<'a> {
    StatusContext {
        gates,
        owner_kind: kind,
        manage_error,
        now: now(),
        wall_clock: time("2030-01-01T00:00:00Z"),
    }
}

fn gate(on: bool) -> FeatureGates {
    FeatureGates {
        deployment_replica_set_terminating_replicas: on,
        ..FeatureGates::default()
    }
}

fn cond(type_: &str, reason: &str) -> ReplicaSetCondition {
    ReplicaSetCondition {
        type_: type_.into(),
        status: "True".into(),
        last_transition_time: Some(now()),
        reason: reason.into(),
        message: String::new(),
    }
}

// ---------------------------------------------------------------------------------------
// B1: calculateStatus counters

const FULL: &str = r#"{"name": "foo", "type": "production"}"#;

fn b1_rs(kind: &str) -> ReplicaSet {
    let full: serde_json::Value = serde_json::from_str(FULL).expect("labels");
    let r = rs(kind).template_labels(full.clone());
    match kind {
        "notFully" => r.replicas(1).match_labels(json!({"name": "foo"})),
        "fully" => r.replicas(2).match_labels(full),
        "longMin" => r.replicas(1).match_labels(full).min_ready(3600),
        other => panic!("{other}"),
    }
    .build()
}

fn b1_pod(name: &str, fully: bool, ready: Option<f64>) -> Pod {
    let labels = if fully {
        serde_json::from_str(FULL).expect("labels")
    } else {
        json!({"name": "foo"})
    };
    let p = pod(name).labels(labels);
    match ready {
        Some(s) => p.ready_since(&ago(s)),
        None => p,
    }
    .build()
}

#[test]
fn b1_calculate_status_table() {
    let rc = OwnerKind::replication_controller();
    let rsk = OwnerKind::replica_set();
    type Row<'a> = (
        &'a str,
        &'a str,
        Vec<Pod>,
        usize,
        bool,
        &'a OwnerKind,
        (i32, i32, i32, i32, Option<i32>),
    );
    let table: Vec<Row> = vec![
        (
            "1 fully labelled pod",
            "fully",
            vec![b1_pod("a", true, Some(0.0))],
            0,
            false,
            &rsk,
            (1, 1, 1, 1, None),
        ),
        (
            "1 not fully labelled pod",
            "notFully",
            vec![b1_pod("a", false, Some(0.0))],
            0,
            false,
            &rsk,
            (1, 0, 1, 1, None),
        ),
        (
            "2 fully labelled pods",
            "fully",
            vec![b1_pod("a", true, Some(0.0)), b1_pod("b", true, Some(0.0))],
            0,
            false,
            &rsk,
            (2, 2, 2, 2, None),
        ),
        (
            "2 fully labelled pods (gate)",
            "fully",
            vec![b1_pod("a", true, Some(0.0)), b1_pod("b", true, Some(0.0))],
            0,
            true,
            &rsk,
            (2, 2, 2, 2, Some(0)),
        ),
        (
            "2 not fully labelled pods",
            "notFully",
            vec![b1_pod("a", false, Some(0.0)), b1_pod("b", false, Some(0.0))],
            0,
            false,
            &rsk,
            (2, 0, 2, 2, None),
        ),
        (
            "1 fully + 1 not fully",
            "notFully",
            vec![b1_pod("a", true, Some(0.0)), b1_pod("b", false, Some(0.0))],
            0,
            false,
            &rsk,
            (2, 1, 2, 2, None),
        ),
        (
            "1 non-ready pod",
            "fully",
            vec![b1_pod("a", true, None)],
            0,
            false,
            &rsk,
            (1, 1, 0, 0, None),
        ),
        (
            "1 ready but non-available",
            "longMin",
            vec![b1_pod("a", true, Some(0.0))],
            0,
            false,
            &rsk,
            (1, 1, 1, 0, None),
        ),
        (
            "1 available pod with minReadySeconds (R-03 inclusive)",
            "longMin",
            vec![b1_pod("a", true, Some(3600.0))],
            0,
            false,
            &rsk,
            (1, 1, 1, 1, None),
        ),
        (
            "1 available pod for a long time",
            "longMin",
            vec![b1_pod("a", true, Some(7200.0))],
            0,
            false,
            &rsk,
            (1, 1, 1, 1, None),
        ),
        (
            "1 fully + 1 terminating, gate off",
            "fully",
            vec![b1_pod("a", true, Some(0.0))],
            1,
            false,
            &rsk,
            (1, 1, 1, 1, None),
        ),
        (
            "1 fully + 2 terminating, gate on",
            "fully",
            vec![b1_pod("a", true, Some(0.0))],
            2,
            true,
            &rsk,
            (1, 1, 1, 1, Some(2)),
        ),
        (
            "same as RC",
            "fully",
            vec![b1_pod("a", true, Some(0.0))],
            2,
            true,
            &rc,
            (1, 1, 1, 1, None),
        ),
    ];
    for (name, kind, pods, terminating, gate_on, owner_kind, want) in table {
        let owner = b1_rs(kind);
        let refs: Vec<&Pod> = pods.iter().collect();
        let g = gate(gate_on);
        let s = calculate(&owner, &refs, terminating, ctx(&g, owner_kind, None));
        assert_eq!(
            (
                s.replicas,
                s.fully_labeled_replicas,
                s.ready_replicas,
                s.available_replicas,
                s.terminating_replicas
            ),
            want,
            "{name}"
        );
        assert_eq!(s.conditions, None, "{name}");
    }
}

/// B1, older upstream variant; R-03, E-19: zero ready time with minReadySeconds ⇒ not
/// available.
#[test]
fn b1_zero_ready_time_is_not_available() {
    let owner = b1_rs("longMin");
    let p = pod("a")
        .labels(serde_json::from_str(FULL).expect("labels"))
        .ready_no_ltt()
        .build();
    let g = gate(false);
    let s = calculate(&owner, &[&p], 0, ctx(&g, &OwnerKind::replica_set(), None));
    assert_eq!((s.ready_replicas, s.available_replicas), (1, 0));
}

/// R-80: the stored status is the starting point: observedGeneration and foreign
/// conditions are carried over.
#[test]
fn r80_starts_from_the_stored_status() {
    let owner = rs("web")
        .status(json!({
            "replicas": 9, "readyReplicas": 9, "observedGeneration": 4,
            "conditions": [{"type": "Custom", "status": "False", "lastTransitionTime": NOW}]
        }))
        .build();
    let g = gate(true);
    let s = calculate(&owner, &[], 0, ctx(&g, &OwnerKind::replica_set(), None));
    assert_eq!(s.replicas, 0);
    assert_eq!(s.ready_replicas, 0);
    assert_eq!(s.observed_generation, 4);
    assert_eq!(
        s.conditions.as_ref().map(|c| c[0].type_.as_str()),
        Some("Custom")
    );
}

/// R-81: with the gate off the field is cleared, not left as it was.
#[test]
fn r81_gate_off_clears_terminating_replicas() {
    let owner = rs("web")
        .status(json!({"replicas": 0, "terminatingReplicas": 3}))
        .build();
    let g = gate(false);
    let s = calculate(&owner, &[], 5, ctx(&g, &OwnerKind::replica_set(), None));
    assert_eq!(s.terminating_replicas, None);
}

// ---------------------------------------------------------------------------------------
// B2, R-82: the ReplicaFailure condition

#[test]
fn b2_r82_condition_table() {
    let g = gate(false);
    let k = OwnerKind::replica_set();
    let rs2 = rs("rs")
        .replicas(2)
        .match_labels(json!({"name": "foo"}))
        .build();
    let fail_rs = rs("fail")
        .replicas(10)
        .match_labels(json!({"name": "foo"}))
        .status(json!({"replicas": 0, "conditions": [
            {"type": "ReplicaFailure", "status": "True", "lastTransitionTime": NOW}
        ]}))
        .build();
    let pods: Vec<Pod> = (0..3)
        .map(|i| pod(&format!("p{i}")).labels(json!({"name": "foo"})).build())
        .collect();
    let one: Vec<&Pod> = pods.iter().take(1).collect();
    let three: Vec<&Pod> = pods.iter().collect();
    let two: Vec<&Pod> = pods.iter().take(2).collect();
    let err = "fake manageReplicasErr";
    let wall = time("2030-01-01T00:00:00Z");
    let failure = |reason: &str| ReplicaSetCondition {
        type_: REPLICA_FAILURE.into(),
        status: "True".into(),
        last_transition_time: Some(wall),
        reason: reason.into(),
        message: err.into(),
    };

    let s = calculate(&rs2, &one, 0, ctx(&g, &k, Some(err)));
    assert_eq!(
        s.conditions,
        Some(vec![failure("FailedCreate")]),
        "diff < 0"
    );
    let s = calculate(&rs2, &three, 0, ctx(&g, &k, Some(err)));
    assert_eq!(
        s.conditions,
        Some(vec![failure("FailedDelete")]),
        "diff > 0"
    );
    let s = calculate(&rs2, &two, 0, ctx(&g, &k, Some(err)));
    assert_eq!(
        s.conditions,
        Some(vec![failure("")]),
        "diff == 0 ⇒ empty reason"
    );
    let s = calculate(&fail_rs, &one, 0, ctx(&g, &k, None));
    assert_eq!(
        s.conditions, None,
        "no error, condition removed, list absent (E5)"
    );
    let s = calculate(&fail_rs, &one, 0, ctx(&g, &k, Some(err)));
    assert_eq!(
        s.conditions, fail_rs.status.conditions,
        "error, condition left untouched"
    );
    let s = calculate(&rs2, &one, 0, ctx(&g, &k, None));
    assert_eq!(s.conditions, None, "no error, no condition");
}

/// C-8: the managed condition type.
#[test]
fn c8_condition_type() {
    assert_eq!(REPLICA_FAILURE, "ReplicaFailure");
}

/// A23 (TestSetCondition).
#[test]
fn a23_set_condition() {
    let mut s = ReplicaSetStatus::default();
    set_condition(&mut s, cond("ReplicaFailure", "OtherFailure"));
    assert_eq!(
        s.conditions,
        Some(vec![cond("ReplicaFailure", "OtherFailure")])
    );

    let mut s = ReplicaSetStatus {
        conditions: Some(vec![cond("ImagePullBackOff", "")]),
        ..ReplicaSetStatus::default()
    };
    set_condition(&mut s, cond("ReplicaFailure", "OtherFailure"));
    assert_eq!(
        s.conditions,
        Some(vec![
            cond("ImagePullBackOff", ""),
            cond("ReplicaFailure", "OtherFailure")
        ])
    );

    let mut s = ReplicaSetStatus {
        conditions: Some(vec![cond("ReplicaFailure", "OtherFailure")]),
        ..ReplicaSetStatus::default()
    };
    set_condition(&mut s, cond("ReplicaFailure", "AnotherFailure"));
    assert_eq!(
        s.conditions,
        Some(vec![cond("ReplicaFailure", "AnotherFailure")])
    );
}

/// R-82 SetCondition: same type, status and reason ⇒ no-op (time and message kept);
/// otherwise every condition of the type is replaced by one at the end.
#[test]
fn r82_set_condition_noop_and_replacement() {
    let old = ReplicaSetCondition {
        message: "old".into(),
        ..cond("ReplicaFailure", "R")
    };
    let mut s = ReplicaSetStatus {
        conditions: Some(vec![
            old.clone(),
            cond("Other", ""),
            cond("ReplicaFailure", "dup"),
        ]),
        ..ReplicaSetStatus::default()
    };
    let newer = ReplicaSetCondition {
        message: "new".into(),
        last_transition_time: Some(time("2030-01-01T00:00:00Z")),
        ..cond("ReplicaFailure", "R")
    };
    set_condition(&mut s, newer.clone());
    assert_eq!(
        s.conditions.as_ref().map(|c| c[0].message.as_str()),
        Some("old")
    );
    let mut changed = newer.clone();
    changed.status = "False".into();
    set_condition(&mut s, changed.clone());
    assert_eq!(s.conditions, Some(vec![cond("Other", ""), changed]));
}

/// A24 (TestRemoveCondition), E5.
#[test]
fn a24_e5_remove_condition() {
    let mut s = ReplicaSetStatus::default();
    remove_condition(&mut s, "ReplicaFailure");
    assert_eq!(s.conditions, None);

    let mut s = ReplicaSetStatus {
        conditions: Some(vec![cond("ReplicaFailure", "")]),
        ..ReplicaSetStatus::default()
    };
    remove_condition(&mut s, "ReplicaFailure");
    assert_eq!(s.conditions, None, "absent, not an empty list");

    let mut s = ReplicaSetStatus {
        conditions: Some(vec![cond("ReplicaFailure", "")]),
        ..ReplicaSetStatus::default()
    };
    remove_condition(&mut s, "ImagePullBackOff");
    assert_eq!(s.conditions, Some(vec![cond("ReplicaFailure", "")]));

    let mut s = ReplicaSetStatus {
        conditions: Some(vec![
            cond("ReplicaFailure", "a"),
            cond("Keep", ""),
            cond("ReplicaFailure", "b"),
        ]),
        ..ReplicaSetStatus::default()
    };
    remove_condition(&mut s, "ReplicaFailure");
    assert_eq!(s.conditions, Some(vec![cond("Keep", "")]));
}

// ---------------------------------------------------------------------------------------
// R-85, R-86

fn stored(status: serde_json::Value, generation: i64) -> ReplicaSet {
    rs("web").generation(generation).status(status).build()
}

#[test]
fn r85_no_write_iff_everything_equal() {
    let base = json!({
        "replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 2, "availableReplicas": 1,
        "terminatingReplicas": 0, "observedGeneration": 5,
    });
    let owner = stored(base.clone(), 5);
    let same = owner.status.clone();
    assert!(!needs_write(&owner, &same));

    let mut changes: Vec<(&str, ReplicaSetStatus)> = Vec::new();
    let mut s = same.clone();
    s.replicas = 4;
    changes.push(("replicas", s));
    let mut s = same.clone();
    s.fully_labeled_replicas = 2;
    changes.push(("fullyLabeledReplicas", s));
    let mut s = same.clone();
    s.ready_replicas = 3;
    changes.push(("readyReplicas", s));
    let mut s = same.clone();
    s.available_replicas = 2;
    changes.push(("availableReplicas", s));
    let mut s = same.clone();
    s.terminating_replicas = None;
    changes.push(("terminatingReplicas Some(0) → None", s));
    let mut s = same.clone();
    s.terminating_replicas = Some(1);
    changes.push(("terminatingReplicas 0 → 1", s));
    let mut s = same.clone();
    s.conditions = Some(Vec::new());
    changes.push(("conditions null → []", s));
    let mut s = same.clone();
    s.conditions = Some(vec![cond("ReplicaFailure", "")]);
    changes.push(("a condition", s));
    for (what, s) in changes {
        assert!(needs_write(&owner, &s), "{what}");
    }
    // E-20: a generation not yet observed forces a write even with equal counters.
    let bumped = stored(base, 6);
    assert!(needs_write(&bumped, &bumped.status.clone()));
}

/// Suggested vector E4: gate on, stored terminatingReplicas absent, computed Some(0) ⇒ write.
#[test]
fn e4_absent_terminating_replicas_vs_zero_is_a_write() {
    let owner = stored(json!({"replicas": 0, "observedGeneration": 1}), 1);
    let g = gate(true);
    let s = calculate(&owner, &[], 0, ctx(&g, &OwnerKind::replica_set(), None));
    assert_eq!(s.terminating_replicas, Some(0));
    assert!(needs_write(&owner, &s));
    let g = gate(false);
    let s = calculate(&owner, &[], 0, ctx(&g, &OwnerKind::replica_set(), None));
    assert!(!needs_write(&owner, &s));
}

/// R-86: the written status carries the owner's generation (0 when absent).
#[test]
fn r86_written_status_observes_the_generation() {
    let owner = stored(json!({"replicas": 1, "observedGeneration": 1}), 7);
    let w = to_write(&owner, owner.status.clone());
    assert_eq!(w.observed_generation, 7);
    assert_eq!(w.replicas, 1);
    let mut no_gen = owner.clone();
    no_gen.metadata.generation = None;
    assert_eq!(
        to_write(&no_gen, owner.status.clone()).observed_generation,
        0
    );
}

/// §12: statuses serialize with Go's omitempty rules.
#[test]
fn s12_status_serializes_like_go() {
    let s = ReplicaSetStatus::default();
    assert_eq!(
        serde_json::to_value(&s).expect("ser"),
        json!({"replicas": 0})
    );
    let s = ReplicaSetStatus {
        replicas: 2,
        ready_replicas: 1,
        terminating_replicas: Some(0),
        observed_generation: 3,
        conditions: Some(vec![ReplicaSetCondition {
            type_: "ReplicaFailure".into(),
            status: "True".into(),
            last_transition_time: Some(now()),
            reason: String::new(),
            message: "m".into(),
        }]),
        ..ReplicaSetStatus::default()
    };
    assert_eq!(
        serde_json::to_value(&s).expect("ser"),
        json!({
            "replicas": 2, "readyReplicas": 1, "terminatingReplicas": 0, "observedGeneration": 3,
            "conditions": [{"type": "ReplicaFailure", "status": "True",
                            "lastTransitionTime": NOW, "message": "m"}]
        })
    );
}

// ---------------------------------------------------------------------------------------
// Through plan/complete (S-10, S-11)

/// E-20: a spec change that does not alter the counts still causes one status write, to
/// bump observedGeneration; once stored, the next sync writes nothing.
#[test]
fn e20_generation_bump_writes_once() {
    let config = Config::default();
    let base = rs("web").replicas(1);
    let pods = [healthy("a", &base)];
    let current = json!({
        "replicas": 1, "fullyLabeledReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
        "terminatingReplicas": 0, "observedGeneration": 1,
    });
    let bumped = base.clone().generation(2).status(current.clone());
    let inp = input(&bumped, &pods).build();
    let p = plan(&inp, &config).expect("plan");
    let done = finish(&p, &SyncOutcome::default());
    let written = done.status.expect("one write");
    assert_eq!(written.observed_generation, 2);
    assert_eq!(written.replicas, 1);

    let mut after = current;
    after["observedGeneration"] = json!(2);
    let settled = base.generation(2).status(after);
    let inp = input(&settled, &pods).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(finish(&p, &SyncOutcome::default()).status, None);
}

/// A29 (terminating), E-06: one active and one terminating owned pod, replicas 1 ⇒
/// status replicas 1, terminatingReplicas 1, no create.
#[test]
fn a29_e06_terminating_pod_is_reported_not_counted() {
    let config = Config::default();
    let owner = rs("web").replicas(1);
    let pods = [healthy("a", &owner), healthy("b", &owner).deleting()];
    let inp = input(&owner, &pods).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(idle(&p.manage), replicore::Idle::InSync);
    let s = finish(&p, &SyncOutcome::default()).status.expect("write");
    assert_eq!((s.replicas, s.terminating_replicas), (1, Some(1)));
}

/// R-81 through a sync: a ReplicationController never reports terminatingReplicas, and
/// the gate off (1.34) neither.
#[test]
fn r81_replication_controller_and_gate_off_report_none() {
    let owner = rs("rc").replicas(1);
    let pods = [
        pod("a")
            .controller_ref("ReplicationController", "rc", "uid-rc")
            .ready_since(NOW),
        pod("b")
            .controller_ref("ReplicationController", "rc", "uid-rc")
            .deleting(),
    ];
    let inp = input(&owner, &pods).build();
    let config = Config {
        owner_kind: OwnerKind::replication_controller(),
        ..Config::default()
    };
    let p = plan(&inp, &config).expect("plan");
    let s = finish(&p, &SyncOutcome::default()).status.expect("write");
    assert_eq!((s.replicas, s.terminating_replicas), (1, None));

    let owner = rs("web").replicas(1);
    let pods = [healthy("a", &owner), healthy("b", &owner).deleting()];
    let inp = input(&owner, &pods).build();
    let config = Config::for_version(34);
    let p = plan(&inp, &config).expect("plan");
    let s = finish(&p, &SyncOutcome::default()).status.expect("write");
    assert_eq!((s.replicas, s.terminating_replicas), (1, None));
}

/// R-82 through a sync: a stored ReplicaFailure is removed by a successful sync; a failed
/// delete adds one with reason FailedDelete.
#[test]
fn r82_condition_lifecycle_through_syncs() {
    let config = Config::default();
    let failing = rs("web").replicas(1).status(json!({
        "replicas": 1, "observedGeneration": 1,
        "conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                        "lastTransitionTime": NOW}]
    }));
    let inp = input(&failing, &[healthy("a", &failing)]).build();
    let p = plan(&inp, &config).expect("plan");
    let s = finish(&p, &SyncOutcome::default()).status.expect("write");
    assert_eq!(s.conditions, None);

    let owner = rs("web").replicas(1);
    let later = "2026-11-21T05:00:00Z";
    let inp = input(&owner, &[healthy("a", &owner), healthy("b", &owner)])
        .now(later)
        .build();
    let p = plan(&inp, &config).expect("plan");
    let outcome = SyncOutcome {
        deletes: vec![CallResult::error("Forbidden", "nope")],
        ..SyncOutcome::default()
    };
    let done = finish(&p, &outcome);
    let s = done.status.expect("write");
    let c = &s.conditions.expect("condition")[0];
    assert_eq!(c.reason, "FailedDelete");
    assert_eq!(c.message, "unable to delete pods: nope");
    assert_eq!(
        c.last_transition_time,
        Some(time(later)),
        "hosts pass `now` as the wall clock"
    );
}

/// A10 (TestControllerUpdateRequeue), S-11: a failed status write fails the sync even
/// when manage succeeded.
#[test]
fn a10_s11_failed_status_write_requeues_with_backoff() {
    let config = Config::default();
    let owner = rs("web").replicas(1).status(json!({"replicas": 2}));
    let inp = input(&owner, &[healthy("a", &owner)]).build();
    let p = plan(&inp, &config).expect("plan");
    let done = finish(&p, &SyncOutcome::default());
    assert!(done.status.is_some());
    assert_eq!(done.requeue, Requeue::Done);
    assert_eq!(
        done.requeue_after_status_write(Err("conflict".into())),
        Requeue::RateLimited {
            error: "conflict".into()
        }
    );
    assert_eq!(done.requeue_after_status_write(Ok(())), Requeue::Done);
}
