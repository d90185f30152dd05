//! The Deployment controller's machinery tested next to it: cleanup (D-70), the
//! revision order of `lookup` (D-26), templates compared without the hash label (D-25),
//! and the status, its conditions and the progress deadline (D-73..D-78). The rules a
//! sync applies through the public step machine are tested in
//! `core/tests/engine/deployment_rules.rs`.

use crate::deployment_support;

use super::{cleanup, lookup, status, ProgressRequeue};
use deployment_support::*;
use replicore::deployment::model::Rs;
use replicore::time::{Duration, Time};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A test's instant (a fixture text that must parse).
fn at(s: &str) -> Result<Time, Box<dyn std::error::Error>> {
    Ok(Time::parse(s)?.ok_or("an empty time")?)
}

#[test]
fn cleanup_deletes_the_oldest_empty_revisions_beyond_the_limit() {
    let mut dv = deployment(3, json!(1), json!(0));
    dv["spec"]["revisionHistoryLimit"] = json!(1);
    let d = typed_deployment(dv);
    let mut busy = rs("web-b", "v1", 1, 1, "2", "2026-11-23T09:00:00Z");
    busy["status"]["replicas"] = json!(1);
    let old: Vec<Rs> = vec![
        typed_rs(rs("web-c", "v1", 0, 0, "3", "2026-11-23T08:00:00Z")),
        typed_rs(busy),
        typed_rs(rs("web-a", "v1", 0, 0, "1", "2026-11-23T10:00:00Z")),
    ];
    // 3 candidates, limit 1 ⇒ the first 2 by revision (1, 2); 2 is busy and skipped,
    // and not replaced by 3.
    let names: Vec<&str> = cleanup::to_delete(&old, &d)
        .iter()
        .map(|r| r.metadata.name.as_str())
        .collect();
    assert_eq!(names, ["web-a"]);
}

#[test]
fn revision_order_with_unparseable_revisions_is_an_insertion_sort() {
    // "x" compares by creation time with everything; 5 and 1 by revision. Insertion
    // sort of [5 (t1), x (t0), 1 (t2)]: x < 5 ⇒ [x, 5, 1]; 1 < 5 ⇒ [x, 1, 5]; 1 vs x by
    // time: t2 > t0 ⇒ stays.
    let mut v: Vec<Rs> = vec![
        typed_rs(rs("web-a", "v1", 0, 0, "5", "2026-11-23T10:00:00Z")),
        typed_rs(rs("web-b", "v1", 0, 0, "x", "2026-11-23T09:00:00Z")),
        typed_rs(rs("web-c", "v1", 0, 0, "1", "2026-11-23T11:00:00Z")),
    ];
    lookup::go_sort(&mut v, lookup::revision_less);
    let names: Vec<&str> = v.iter().map(|r| r.metadata.name.as_str()).collect();
    assert_eq!(names, ["web-b", "web-c", "web-a"]);
}

#[test]
fn progress_deadline_is_strictly_before_now_and_requeue_adds_a_second() -> TestResult {
    let mut dv = deployment(3, json!(1), json!(0));
    dv["spec"]["progressDeadlineSeconds"] = json!(60);
    dv["status"]["conditions"] = json!([{"type": "Progressing", "status": "True",
        "lastUpdateTime": "2026-11-24T00:59:00Z", "lastTransitionTime": "2026-11-24T00:50:00Z",
        "reason": "ReplicaSetUpdated", "message": "m"}]);
    let d = typed_deployment(dv);
    let s = d.status.clone();
    // lastUpdate + 60 s = now exactly: not timed out (strictly before).
    assert!(!status::is_timed_out(&d, &s, at(NOW)?));
    assert!(status::is_timed_out(&d, &s, at("2026-11-24T01:00:01Z")?));
    assert_eq!(
        status::requeue_stuck(&d, &s, at("2026-11-24T00:59:30Z")?),
        ProgressRequeue::After {
            after: Duration::from_seconds(31)
        }
    );
    // Less than a second left ⇒ rate limited.
    assert_eq!(
        status::requeue_stuck(&d, &s, at("2026-11-24T00:59:59.5Z")?),
        ProgressRequeue::RateLimited
    );
    // Complete ⇒ no requeue.
    let mut complete = s.clone();
    (
        complete.replicas,
        complete.updated_replicas,
        complete.available_replicas,
    ) = (3, 3, 3);
    assert_eq!(
        status::requeue_stuck(&d, &complete, at(NOW)?),
        ProgressRequeue::None
    );
    Ok(())
}

#[test]
fn conditions_keep_their_times_when_status_and_reason_are_unchanged() -> TestResult {
    let mut st = replicore::deployment::DeploymentStatus::default();
    let t0 = at("2026-11-24T00:00:00Z")?;
    let t1 = at(NOW)?;
    status::set_condition(
        &mut st,
        status::new_condition("Available", "True", "A", "m".into(), t0),
    );
    status::set_condition(
        &mut st,
        status::new_condition("Progressing", "True", "P", "m".into(), t0),
    );
    status::set_condition(
        &mut st,
        status::new_condition("Available", "True", "A", "other".into(), t1),
    );
    assert_eq!(st.conditions[0].last_update_time, Some(t0));
    assert_eq!(st.conditions[0].message, "m");
    // Same status, new reason: replaced, moved last, transition time kept.
    status::set_condition(
        &mut st,
        status::new_condition("Available", "True", "B", "m".into(), t1),
    );
    assert_eq!(st.conditions[1].type_, "Available");
    assert_eq!(st.conditions[1].last_transition_time, Some(t0));
    assert_eq!(st.conditions[1].last_update_time, Some(t1));
    Ok(())
}

#[test]
fn status_sums_replica_sets_and_terminating_needs_every_synced_rs() -> TestResult {
    let d = typed_deployment(deployment(4, json!(1), json!(1)));
    let a = typed_rs(rs("web-a", "v2", 3, 2, "2", "2026-11-23T10:00:00Z"));
    let mut bv = rs("web-b", "v1", 2, 2, "1", "2026-11-23T09:00:00Z");
    bv["status"]["terminatingReplicas"] = json!(1);
    let b = typed_rs(bv.clone());
    let gates = replicore::FeatureGates::default();
    let s = status::calculate_status(&[&b, &a], Some(&a), &d, &gates, at(NOW)?);
    assert_eq!(
        (s.replicas, s.updated_replicas, s.available_replicas),
        (5, 3, 4)
    );
    assert_eq!(s.unavailable_replicas, 1);
    assert_eq!(s.terminating_replicas, Some(1));
    assert_eq!(s.conditions[0].reason, "MinimumReplicasAvailable");
    bv["status"]
        .as_object_mut()
        .ok_or("status is an object")?
        .remove("terminatingReplicas");
    let b = typed_rs(bv);
    let s = status::calculate_status(&[&b, &a], Some(&a), &d, &gates, at(NOW)?);
    assert_eq!(s.terminating_replicas, None);
    Ok(())
}

#[test]
fn templates_compare_semantically() {
    let a = json!({"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}},
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}},
                                 "env": [{"name": "X", "value": "1.0"}]}], "volumes": []}});
    let b = json!({"metadata": {"labels": {"app": "web"}, "annotations": {}},
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "0.5", "memory": "1024Mi"}},
                                 "env": [{"name": "X", "value": "1.0"}]}]}});
    assert!(lookup::equal_ignore_hash(&a, &b));
    // Quantities only compare by value where they are quantities.
    let mut c = b.clone();
    c["spec"]["containers"][0]["env"][0]["value"] = json!("1");
    assert!(!lookup::equal_ignore_hash(&a, &c));
    let mut d = b.clone();
    d["spec"]["containers"][0]["resources"]["limits"]["cpu"] = json!("501m");
    assert!(!lookup::equal_ignore_hash(&a, &d));
    // Other labels still count.
    let mut e = b;
    e["metadata"]["labels"]["tier"] = json!("x");
    assert!(!lookup::equal_ignore_hash(&a, &e));
}
