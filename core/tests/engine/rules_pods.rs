//! Pod predicates (§3): ready (R-01, E-14), ready time, available (R-03, E-19),
//! active / terminal / terminating (R-04..R-07, E-06, E-07, E-15), phase ordinals (C-9),
//! deletion cost (C-5, R-60, E-17, suggested vector E1), restarts.
//! Upstream C6 (TestCountTerminatingPods) and C7 (TestActivePodFiltering).

use crate::common;

use common::*;
use replicore::pods::{
    deletion_cost, is_active, is_available, is_ready, is_terminal, is_terminating,
    max_container_restarts, max_sidecar_restarts, parse_deletion_cost, phase_ordinal, ready_time,
    DELETION_COST_ANNOTATION,
};
use replicore::replicaset::owner;
use replicore::Pod;
use serde_json::json;

// ---------------------------------------------------------------------------------------
// E-14

#[test]
fn r01_ready_iff_first_ready_condition_is_true() {
    assert!(is_ready(&pod("a").ready_since(NOW).build()));
    assert!(!is_ready(&pod("a").not_ready().build()));
    assert!(!is_ready(&pod("a").build()), "no conditions");
    let unknown = pod("a").conditions(json!([{"type": "Ready", "status": "Unknown"}]));
    assert!(!is_ready(&unknown.build()));
    // Only the exact string "True" counts.
    let lower = pod("a").conditions(json!([{"type": "Ready", "status": "true"}]));
    assert!(!is_ready(&lower.build()));
    // Other condition types do not count.
    let other = pod("a").conditions(json!([{"type": "ContainersReady", "status": "True"}]));
    assert!(!is_ready(&other.build()));
}

#[test]
fn r01_phase_is_not_consulted() {
    let pending_ready = pod("a")
        .phase("Pending")
        .conditions(json!([{"type": "Ready", "status": "True", "lastTransitionTime": NOW}]));
    assert!(is_ready(&pending_ready.build()));
    let failed_ready = pending_ready.phase("Failed");
    assert!(is_ready(&failed_ready.build()));
}

/// E-14: a duplicated Ready condition: only the first counts.
#[test]
fn e14_only_the_first_ready_condition_counts() {
    let first_false = pod("a").conditions(json!([
        {"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "False", "lastTransitionTime": ago(60.0)},
        {"type": "Ready", "status": "True", "lastTransitionTime": ago(30.0)},
    ]));
    assert!(!is_ready(&first_false.build()));
    assert_eq!(ready_time(&first_false.build()), None);

    let first_true = pod("a").conditions(json!([
        {"type": "Ready", "status": "True", "lastTransitionTime": ago(60.0)},
        {"type": "Ready", "status": "False", "lastTransitionTime": ago(30.0)},
    ]));
    assert!(is_ready(&first_true.build()));
    assert_eq!(ready_time(&first_true.build()), Some(time(&ago(60.0))));
}

#[test]
fn r02_ready_time_is_the_transition_time_or_zero() {
    assert_eq!(
        ready_time(&pod("a").ready_since(&ago(5.0)).build()),
        Some(time(&ago(5.0)))
    );
    assert_eq!(ready_time(&pod("a").ready_no_ltt().build()), None);
    assert_eq!(ready_time(&pod("a").not_ready().build()), None);
    // Go's zero time written out is the zero time.
    let zero = pod("a").conditions(json!([
        {"type": "Ready", "status": "True", "lastTransitionTime": "0001-01-01T00:00:00Z"}
    ]));
    assert_eq!(ready_time(&zero.build()), None);
    assert!(is_ready(&zero.build()));
}

// ---------------------------------------------------------------------------------------
// R-03, E-19

#[test]
fn r03_available_with_zero_min_ready_seconds_means_ready() {
    let n = now();
    assert!(is_available(&pod("a").ready_since(NOW).build(), 0, n));
    assert!(is_available(&pod("a").ready_no_ltt().build(), 0, n));
    assert!(!is_available(&pod("a").not_ready().build(), 0, n));
}

/// the boundary is inclusive (`LTT + minReadySeconds <= now`).
#[test]
fn r03_available_boundary_is_inclusive() {
    let n = now();
    let p = |s: f64| pod("a").ready_since(&ago(s)).build();
    assert!(!is_available(&p(9.999), 10, n));
    assert!(is_available(&p(10.0), 10, n), "exactly minReadySeconds");
    assert!(is_available(&p(11.0), 10, n));
    // Ready in the future (clock skew): not available.
    assert!(!is_available(&p(-5.0), 1, n));
}

/// R-03, E-19: a zero ready time with minReadySeconds > 0 is never available.
#[test]
fn r03_e19_zero_ready_time_is_never_available() {
    let p = pod("a").ready_no_ltt().build();
    assert!(!is_available(&p, 1, now()));
    assert!(!is_available(&p, 1, time("2200-01-01T00:00:00Z")));
}

// ---------------------------------------------------------------------------------------
// R-04..R-07, E-06, E-07, E-15, C6, C7

#[test]
fn r04_r05_r06_phase_and_deletion_table() {
    // (phase, deleting) ⇒ (terminal, active, terminating)
    let table = [
        ("Pending", false, (false, true, false)),
        ("Running", false, (false, true, false)),
        ("Unknown", false, (false, true, false)),
        ("Succeeded", false, (true, false, false)),
        ("Failed", false, (true, false, false)),
        ("Pending", true, (false, false, true)),
        ("Running", true, (false, false, true)),
        // terminal with a deletion timestamp: neither active nor terminating.
        ("Succeeded", true, (true, false, false)),
        ("Failed", true, (true, false, false)),
        // E-15: unknown phase strings are active.
        ("Evicted", false, (false, true, false)),
    ];
    for (phase, deleting, want) in table {
        let mut b = pod("a").phase(phase);
        if deleting {
            b = b.deleting();
        }
        let p = b.build();
        assert_eq!(
            (is_terminal(&p), is_active(&p), is_terminating(&p)),
            want,
            "{phase} deleting={deleting}"
        );
    }
}

/// E-15: an unset phase is active with ordinal 0.
#[test]
fn e15_unset_phase_is_active() {
    let p = pod("a").no_phase().build();
    assert_eq!(p.phase(), "");
    assert!(is_active(&p));
    assert!(!is_terminal(&p));
    assert_eq!(phase_ordinal(&p), 0);
}

/// C-9: Pending → 0, Unknown → 1, Running → 2, anything else → 0.
#[test]
fn c9_phase_ordinals() {
    for (phase, ord) in [
        ("Pending", 0),
        ("Unknown", 1),
        ("Running", 2),
        ("Succeeded", 0),
        ("Failed", 0),
        ("running", 0),
        ("", 0),
    ] {
        assert_eq!(
            phase_ordinal(&pod("a").phase(phase).build()),
            ord,
            "{phase:?}"
        );
    }
}

/// C6 (TestCountTerminatingPods): Succeeded; Failed; Pending+deleting; Running+deleting;
/// 3 Running ⇒ 2 terminating, in input order.
#[test]
fn c6_count_terminating_pods() {
    let pods: Vec<Pod> = vec![
        pod("succeeded").phase("Succeeded").build(),
        pod("failed").phase("Failed").build(),
        pod("pending-deleting").phase("Pending").deleting().build(),
        pod("running-deleting").phase("Running").deleting().build(),
        pod("r1").phase("Running").build(),
        pod("r2").phase("Running").build(),
        pod("r3").phase("Running").build(),
    ];
    let terminating: Vec<&str> = pods
        .iter()
        .filter(|p| is_terminating(p))
        .map(|p| p.name())
        .collect();
    assert_eq!(terminating, vec!["pending-deleting", "running-deleting"]);
}

/// C7 (TestActivePodFiltering) and R-07: the active filter keeps input order.
#[test]
fn c7_r07_active_pod_filtering_keeps_order() {
    let pods: Vec<Pod> = ["Succeeded", "Failed", "Running", "Running", "Running"]
        .iter()
        .enumerate()
        .map(|(i, ph)| pod(&format!("pod{i}")).phase(ph).build())
        .collect();
    let refs: Vec<&Pod> = pods.iter().rev().collect();
    let active: Vec<&str> = owner::active(&refs).iter().map(|p| p.name()).collect();
    assert_eq!(active, vec!["pod4", "pod3", "pod2"]);
}

// ---------------------------------------------------------------------------------------
// C-5, R-60, E-17, suggested vector E1

#[test]
fn c5_the_annotation_key() {
    assert_eq!(
        DELETION_COST_ANNOTATION,
        "controller.kubernetes.io/pod-deletion-cost"
    );
}

/// R-60 and suggested vector E1 (plus the spec's own examples).
#[test]
fn r60_e1_deletion_cost_parsing() {
    let table = [
        ("+10", 0),
        ("008", 0),
        ("0", 0),
        ("-0", 0),
        ("-007", -7),
        ("5", 5),
        ("-5", -5),
        ("2147483647", 2_147_483_647),
        ("2147483648", 0),
        ("-2147483648", -2_147_483_648),
        ("-2147483649", 0),
        ("", 0),
        ("abc", 0),
        ("1_000", 0),
        (" 5", 0),
        ("5 ", 0),
        ("-", 0),
        ("1e3", 0),
        ("0x10", 0),
        ("00", 0),
    ];
    for (text, want) in table {
        assert_eq!(parse_deletion_cost(text), want, "{text:?}");
        assert_eq!(
            deletion_cost(&pod("a").cost(text).build()),
            want,
            "{text:?}"
        );
    }
}

#[test]
fn r60_absent_annotation_is_zero() {
    assert_eq!(deletion_cost(&pod("a").build()), 0);
    let mut other = pod("a");
    other.v["metadata"]["annotations"] = json!({"something": "100"});
    assert_eq!(deletion_cost(&other.build()), 0);
}

// ---------------------------------------------------------------------------------------
//

#[test]
fn r74_regular_restarts_are_the_maximum() {
    assert_eq!(max_container_restarts(&pod("a").build()), 0);
    assert_eq!(
        max_container_restarts(&pod("a").restarts(&[3, 0]).build()),
        3
    );
    assert_eq!(
        max_container_restarts(&pod("a").restarts(&[2, 7, 1]).build()),
        7
    );
}

#[test]
fn r74_sidecar_restarts_count_only_restart_policy_always() {
    assert_eq!(
        max_sidecar_restarts(&pod("a").sidecar_restarts(9).build()),
        9
    );
    // An init container without restartPolicy Always is not a sidecar.
    let mut plain = pod("a");
    plain.v["spec"]["initContainers"] =
        json!([{"name": "init"}, {"name": "side", "restartPolicy": "Always"}]);
    plain.v["status"]["initContainerStatuses"] = json!([
        {"name": "init", "restartCount": 50},
        {"name": "side", "restartCount": 4},
        {"name": "unknown", "restartCount": 80},
    ]);
    let p = plain.build();
    assert_eq!(max_sidecar_restarts(&p), 4);
    // Init container restarts never count as regular restarts.
    assert_eq!(max_container_restarts(&p), 0);
}
