//! Unit tests of the Deployment controller's rule families (spec/deployment-semantics.md):
//! strategy rounding and fenceposts (D-05..D-08), revisions (D-28..D-33), proportional
//! scaling (D-44..D-46), rolling-update bounds (D-51..D-54), cleanup (D-70), status,
//! progress deadline and requeue (D-73..D-78), rollback (D-90..D-93), the step machine,
//! the event handlers (D-110..D-115) and bad input.

use crate::deployment_support;

use deployment_support::*;
use replicore::deployment::model::{IntOrString, Rs};
use replicore::deployment::DeploymentSyncInput;
use replicore::deployment::{
    handlers, newrs, revision, scale, strategy, ApiCall, ApiResult, DeploymentSync, Step,
};
use replicore::outcome::ApiError;
use replicore::DeploymentKinds;
use serde_json::json;

fn pct(s: &str) -> IntOrString {
    IntOrString::Str(s.into())
}

// ---------------------------------------------------------------------------------------
// D-05..D-08

#[test]
fn percents_round_surge_up_and_unavailable_down() {
    assert_eq!(strategy::scaled_value(&pct("25%"), 10, true), Ok(3));
    assert_eq!(strategy::scaled_value(&pct("25%"), 10, false), Ok(2));
    assert_eq!(strategy::scaled_value(&pct("33%"), 3, true), Ok(1));
    assert_eq!(strategy::scaled_value(&pct("33%"), 3, false), Ok(0));
    assert_eq!(
        strategy::scaled_value(&IntOrString::Int(4), 10, true),
        Ok(4)
    );
}

#[test]
fn both_zero_make_unavailable_one() {
    assert_eq!(
        strategy::resolve_fenceposts(Some(&IntOrString::Int(0)), Some(&IntOrString::Int(0)), 5),
        Ok((0, 1))
    );
    // "1%" of 10 floors to 0 with a surge of "0%".
    assert_eq!(
        strategy::resolve_fenceposts(Some(&pct("0%")), Some(&pct("1%")), 10),
        Ok((0, 1))
    );
    // Missing values count as 0.
    assert_eq!(strategy::resolve_fenceposts(None, None, 10), Ok((0, 1)));
    assert_eq!(
        strategy::resolve_fenceposts(Some(&pct("1%")), None, 10),
        Ok((1, 0))
    );
}

#[test]
fn unavailable_is_capped_at_replicas_and_surge_is_not() {
    let d = typed_deployment(deployment(4, json!("150%"), json!(10)));
    assert_eq!(strategy::max_surge(&d), 6);
    assert_eq!(strategy::max_unavailable(&d), 4);
    assert_eq!(strategy::max_replicas(&d), 10);
    assert_eq!(strategy::min_available(&d), 0);
    let mut zero = deployment(0, json!(2), json!(2));
    let d0 = typed_deployment(zero.clone());
    assert_eq!(strategy::max_unavailable(&d0), 0);
    zero["spec"]["strategy"] = json!({"type": "Recreate"});
    let recreate = typed_deployment(zero);
    assert_eq!(
        (
            strategy::max_surge(&recreate),
            strategy::max_unavailable(&recreate)
        ),
        (0, 0)
    );
}

#[test]
fn invalid_int_or_string_gives_upstreams_error_and_resolves_to_zero() {
    let e = strategy::scaled_value(&pct("150"), 10, true).unwrap_err();
    assert!(e.contains("string is not a percentage"), "{e}");
    let e = strategy::scaled_value(&pct("abc%"), 10, true).unwrap_err();
    assert!(e.contains("invalid value \"abc%\""), "{e}");
    let d = typed_deployment(deployment(10, json!("abc%"), json!(2)));
    assert_eq!(
        (strategy::max_surge(&d), strategy::max_unavailable(&d)),
        (0, 0)
    );
}

// ---------------------------------------------------------------------------------------
// D-28..D-33

fn meta_with(annotations: serde_json::Value) -> replicore::model::ObjectMeta {
    serde_json::from_value(json!({"name": "x", "annotations": annotations})).unwrap()
}

#[test]
fn revisions_parse_skip_invalid_and_find_the_second_highest() {
    let rss: Vec<Rs> = [
        ("web-a", "3"),
        ("web-b", "abc"),
        ("web-c", "7"),
        ("web-d", "7"),
    ]
    .iter()
    .map(|(n, r)| typed_rs(rs(n, "v1", 0, 0, r, "2026-11-23T10:00:00Z")))
    .collect();
    assert_eq!(revision::max_revision(&rss), 7);
    // Equal maxima make the second highest the max itself (D-92).
    assert_eq!(revision::last_revision(&rss), 7);
    assert_eq!(revision::last_revision(rss.iter().take(3)), 3);
    assert_eq!(revision::revision(&meta_with(json!({}))), Some(0));
    assert_eq!(
        revision::revision(&meta_with(
            json!({"deployment.kubernetes.io/revision": "x"})
        )),
        None
    );
    assert_eq!(
        revision::revision(&meta_with(
            json!({"deployment.kubernetes.io/revision": "-3"})
        )),
        Some(-3)
    );
}

#[test]
fn revision_bump_appends_history_within_the_limit() {
    let d = typed_deployment(deployment(3, json!(1), json!(0)));
    let mut m = meta_with(json!({"deployment.kubernetes.io/revision": "2",
                                "deployment.kubernetes.io/revision-history": "1"}));
    assert!(revision::set_new_rs_annotations(
        &d, &mut m, 5, true, 4, 2000
    ));
    let a = m.annotations.as_ref().unwrap();
    assert_eq!(a["deployment.kubernetes.io/revision"], "5");
    assert_eq!(a["deployment.kubernetes.io/revision-history"], "1,2");
    // A lower new revision changes nothing; an unparseable one stops the bump.
    let mut m = meta_with(json!({"deployment.kubernetes.io/revision": "9"}));
    assert!(!revision::set_new_rs_annotations(
        &d, &mut m, 5, true, 4, 2000
    ));
    let mut m = meta_with(json!({"deployment.kubernetes.io/revision": "abc"}));
    assert!(!revision::set_new_rs_annotations(
        &d, &mut m, 5, true, 4, 2000
    ));
    // The oldest entries go first when the history would exceed the limit.
    let mut m = meta_with(json!({"deployment.kubernetes.io/revision": "40",
                                "deployment.kubernetes.io/revision-history": "10,20,30"}));
    revision::set_new_rs_annotations(&d, &mut m, 41, true, 4, 9);
    assert_eq!(
        m.annotations.unwrap()["deployment.kubernetes.io/revision-history"],
        "20,30,40"
    );
}

// ---------------------------------------------------------------------------------------
// D-44..D-47

fn annotated(name: &str, spec: i32, max: &str, created: &str) -> Rs {
    let mut v = rs(name, "v1", spec, spec, "1", created);
    v["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] = json!(max);
    typed_rs(v)
}

#[test]
fn proportional_scaling_splits_by_size_then_gives_the_leftover_to_the_first() {
    let d = typed_deployment(deployment(20, json!(0), json!(1)));
    let mut active = vec![
        annotated("web-old", 4, "10", "2026-11-23T10:00:00Z"),
        annotated("web-new", 6, "10", "2026-11-23T11:00:00Z"),
    ];
    assert_eq!(scale::proportional_sizes(&d, &mut active), vec![12, 8]);
    assert_eq!(active[0].metadata.name, "web-new");

    // Three equal RSs, 3 → 5: newest first gets the rounding, the last gets nothing.
    let d = typed_deployment(deployment(5, json!(0), json!(1)));
    let mut active = vec![
        annotated("web-a", 1, "3", "2026-11-23T10:00:00Z"),
        annotated("web-b", 1, "3", "2026-11-23T11:00:00Z"),
        annotated("web-c", 1, "3", "2026-11-23T12:00:00Z"),
    ];
    assert_eq!(scale::proportional_sizes(&d, &mut active), vec![2, 2, 1]);
    let names: Vec<&str> = active.iter().map(|r| r.metadata.name.as_str()).collect();
    assert_eq!(names, ["web-c", "web-b", "web-a"]);

    // Scaling down to 0 removes everything; ties go older first.
    let d = typed_deployment(deployment(0, json!(0), json!(1)));
    let mut active = vec![
        annotated("web-a", 2, "4", "2026-11-23T10:00:00Z"),
        annotated("web-b", 2, "4", "2026-11-23T11:00:00Z"),
    ];
    assert_eq!(scale::proportional_sizes(&d, &mut active), vec![0, 0]);
    assert_eq!(active[0].metadata.name, "web-a");
}

#[test]
fn fraction_falls_back_to_status_replicas_without_max_replicas() {
    let mut dv = deployment(10, json!(0), json!(1));
    dv["status"]["replicas"] = json!(5);
    let d = typed_deployment(dv);
    // 2 × 10 / 5 = 4 → +2.
    assert_eq!(
        scale::fraction(&annotated("web-a", 2, "0", "2026-11-23T10:00:00Z"), &d),
        2
    );
    assert_eq!(
        scale::fraction(&annotated("web-a", 2, "x", "2026-11-23T10:00:00Z"), &d),
        2
    );
    // 3 × 10 / 4 = 7.5 rounds half away from zero → 8 → +5.
    assert_eq!(
        scale::fraction(&annotated("web-a", 3, "4", "2026-11-23T10:00:00Z"), &d),
        5
    );
}

#[test]
fn scaling_event_and_saturation() {
    let d = typed_deployment(deployment(10, json!(3), json!(0)));
    let mut v = rs("web-a", "v2", 10, 10, "2", "2026-11-23T10:00:00Z");
    v["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = json!("10");
    let new = typed_rs(v.clone());
    assert!(!scale::is_scaling_event(&d, Some(&new), &[]));
    assert!(scale::is_saturated(&d, Some(&new)));
    v["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = json!("8");
    let new = typed_rs(v.clone());
    assert!(scale::is_scaling_event(&d, Some(&new), &[]));
    assert!(!scale::is_saturated(&d, Some(&new)));
    // An invalid or negative annotation is no scaling event.
    v["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = json!("-1");
    assert!(!scale::is_scaling_event(&d, Some(&typed_rs(v)), &[]));
}

// ---------------------------------------------------------------------------------------
// D-50..D-54: one rollout step

#[test]
fn rolling_update_surges_the_new_rs_within_max_surge() {
    // R = 10, surge 25% = 3: a new RS of 3 next to the old 10.
    let d = deployment(10, json!("25%"), json!("25%"));
    let old = rs("web-old", "v1", 10, 10, "1", "2026-11-23T10:00:00Z");
    let (calls, done) = run_ok(input(d, vec![old]));
    let s = summary(&calls);
    assert!(s[0].starts_with("create replicasets web-"), "{s:?}");
    assert!(s[0].ends_with(" 3"), "{s:?}");
    assert!(done.error.is_none());
    assert_eq!(done.events[0].message.split(' ').next_back(), Some("3"));
}

#[test]
fn rolling_update_scales_old_down_by_the_available_budget() {
    // R = 10, maxUnavailable 2; new RS at 3 with 1 available: old 10 (all available).
    // maxScaledDown = 13 − 8 − 2 = 3; no unhealthy; budget = 11 − 8 = 3 ⇒ old → 7.
    let d = deployment(10, json!(3), json!(2));
    let mut new = rs("web-new", "v2", 3, 1, "2", "2026-11-23T11:00:00Z");
    new["spec"]["template"] = template("v2");
    let old = rs("web-old", "v1", 10, 10, "1", "2026-11-23T10:00:00Z");
    let (calls, _) = run_ok(input(d, vec![old, new]));
    let s = summary(&calls);
    assert!(
        s.contains(&"update replicasets web-old 7".to_owned()),
        "{s:?}"
    );
}

#[test]
fn unhealthy_old_replicas_are_removed_first() {
    // Old RS 10 with 6 available; new 0 → new can surge 3 first; then next sync.
    let d = deployment(10, json!(0), json!(2));
    let mut new = rs("web-new", "v2", 0, 0, "2", "2026-11-23T11:00:00Z");
    new["spec"]["template"] = template("v2");
    let old = rs("web-old", "v1", 10, 6, "1", "2026-11-23T10:00:00Z");
    let (calls, _) = run_ok(input(d, vec![old, new]));
    // maxScaledDown = 10 − 8 − 0 = 2: the 4 unhealthy ones are cut to 2 ⇒ 8.
    let s = summary(&calls);
    assert!(
        s.contains(&"update replicasets web-old 8".to_owned()),
        "{s:?}"
    );
}

// ---------------------------------------------------------------------------------------
// D-27, D-32

#[test]
fn rs_names_are_cut_to_fit() {
    let long = "d".repeat(260);
    let name = newrs::replica_set_name(&long, "5d8f9c7b6");
    assert_eq!(name.len(), 253);
    assert!(name.ends_with("-5d8f9c7b6"));
    assert_eq!(newrs::replica_set_name("web", "abc"), "web-abc");
}

// ---------------------------------------------------------------------------------------
// D-90..D-93

#[test]
fn rollback_copies_the_old_template_and_clears_the_request() {
    let mut d = deployment(3, json!(1), json!(0));
    d["metadata"]["annotations"]["deprecated.deployment.rollback.to"] = json!("1");
    let mut cur = rs("web-cur", "v2", 3, 3, "2", "2026-11-23T11:00:00Z");
    cur["spec"]["template"] = template("v2");
    let old = rs("web-old", "v1", 0, 0, "1", "2026-11-23T10:00:00Z");
    let (calls, done) = run_ok(input(d, vec![old, cur]));
    let object = first(&calls, "update", "deployments").object().unwrap();
    assert_eq!(
        object["spec"]["template"]["spec"]["containers"][0]["image"],
        "v1"
    );
    assert!(object["spec"]["template"]["metadata"]["labels"]
        .get("pod-template-hash")
        .is_none());
    assert!(object["metadata"]["annotations"]
        .get("deprecated.deployment.rollback.to")
        .is_none());
    assert_eq!(
        done.events[0].message,
        "Rolled back deployment \"web\" to revision 1"
    );
}

// ---------------------------------------------------------------------------------------
// The step machine

#[test]
fn the_machine_survives_serialization_between_steps() {
    let d = deployment(10, json!("25%"), json!("25%"));
    let old = rs("web-old", "v1", 10, 10, "1", "2026-11-23T10:00:00Z");
    let mut m = DeploymentSync::new(input(d, vec![old])).unwrap();
    let mut steps = 0;
    loop {
        let text = serde_json::to_string(&m).unwrap();
        let back: DeploymentSync = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m);
        let (a, b) = (m.next().unwrap(), back.next().unwrap());
        assert_eq!(a, b);
        match a {
            Step::Call { .. } => m.report(ApiResult::ok()).unwrap(),
            Step::Done { .. } => break,
        }
        steps += 1;
    }
    assert!(steps >= 2);
}

/// Answers every call ok except the first `UpdateReplicaSet`, which fails.
fn with_first_rs_update_failing(m: &mut DeploymentSync) -> replicore::deployment::SyncDone {
    let mut failed = false;
    loop {
        match m.next().unwrap() {
            Step::Call { call } => {
                let fail = !failed && matches!(call, ApiCall::UpdateReplicaSet { .. });
                failed |= fail;
                m.report(if fail {
                    ApiResult::Error(ApiError::new("InternalError", "boom"))
                } else {
                    ApiResult::ok()
                })
                .unwrap();
            }
            Step::Done { done } => return done,
        }
    }
}

#[test]
fn a_failed_scale_up_ends_the_sync_and_a_failed_scale_down_is_swallowed() {
    // D-51: the new RS's scale-up fails ⇒ the sync returns the error.
    let d = deployment(10, json!(3), json!(2));
    let mut new = rs("web-new", "v2", 0, 0, "2", "2026-11-23T11:00:00Z");
    new["spec"]["template"] = template("v2");
    let old = rs("web-old", "v1", 10, 10, "1", "2026-11-23T10:00:00Z");
    let mut m = DeploymentSync::new(input(d.clone(), vec![old.clone(), new])).unwrap();
    let done = with_first_rs_update_failing(&mut m);
    assert_eq!(
        done.error.as_ref().map(|e| e.message.as_str()),
        Some("boom")
    );
    assert_eq!(
        handlers::after_sync(&done, 3),
        handlers::QueueAction::RequeueRateLimited
    );
    assert_eq!(handlers::after_sync(&done, 15), handlers::QueueAction::Drop);
    // D-52: the old RS's scale-down fails ⇒ swallowed, the status is still synced.
    let mut new = rs("web-new", "v2", 3, 3, "2", "2026-11-23T11:00:00Z");
    new["spec"]["template"] = template("v2");
    let mut m = DeploymentSync::new(input(d, vec![old, new])).unwrap();
    let done = with_first_rs_update_failing(&mut m);
    assert!(done.error.is_none());
    assert_eq!(
        handlers::after_sync(&done, 3),
        handlers::QueueAction::Forget
    );
}

#[test]
fn more_results_than_calls_are_refused() {
    let d = deployment(0, json!(1), json!(0));
    let mut m = DeploymentSync::new(input(d, vec![])).unwrap();
    for _ in 0..20 {
        m.report(ApiResult::ok()).unwrap();
    }
    assert!(m.next().is_err());
}

// ---------------------------------------------------------------------------------------
// D-110..D-114

#[test]
fn handlers_enqueue_the_controller_or_the_matching_deployments() {
    let k = &replicore::DeploymentKinds::default();
    let d = (*typed_deployment(deployment(3, json!(1), json!(0))).typed).clone();
    let owned = (*typed_rs(rs("web-a", "v1", 1, 1, "1", "2026-11-23T10:00:00Z")).typed).clone();
    assert_eq!(
        handlers::on_replica_set_added(&owned, std::slice::from_ref(&d), k),
        ["default/web"]
    );
    let mut orphan = owned.clone();
    orphan.metadata.owner_references.clear();
    assert_eq!(
        handlers::on_replica_set_added(&orphan, std::slice::from_ref(&d), k),
        ["default/web"]
    );
    assert!(handlers::on_replica_set_deleted(&orphan, std::slice::from_ref(&d), k).is_empty());
    // Same resourceVersion: a resync, ignored.
    assert!(
        handlers::on_replica_set_updated(&owned, &owned, std::slice::from_ref(&d), k).is_empty()
    );
    // Pods are only watched for Recreate deployments.
    let pod: replicore::Pod = serde_json::from_value(json!({"metadata": {"name": "p", "namespace": "default",
        "ownerReferences": [{"kind": "ReplicaSet", "name": "web-a", "uid": "uid-web-a", "controller": true}]}})).unwrap();
    assert!(handlers::on_pod_deleted(
        &pod,
        std::slice::from_ref(&owned),
        std::slice::from_ref(&d),
        &[],
        k
    )
    .is_empty());
    let mut recreate = d.clone();
    recreate.spec.strategy.type_ = "Recreate".into();
    assert_eq!(
        handlers::on_pod_deleted(
            &pod,
            std::slice::from_ref(&owned),
            std::slice::from_ref(&recreate),
            &[],
            k
        ),
        ["default/web"]
    );
    assert!(handlers::on_pod_deleted(
        &pod,
        std::slice::from_ref(&owned),
        std::slice::from_ref(&recreate),
        std::slice::from_ref(&pod),
        k
    )
    .is_empty());
}

// ---------------------------------------------------------------------------------------
// Bad input (issue point 8): upstream's error, or a field-path error where it would panic

fn sync_error(d: serde_json::Value, rss: Vec<serde_json::Value>) -> Option<String> {
    run_ok(input(d, rss)).1.error.map(|e| e.message)
}

#[test]
fn invalid_max_surge_fails_the_rollout_with_upstreams_error() {
    let old = rs("web-old", "v1", 3, 3, "1", "2026-11-23T10:00:00Z");
    let e = sync_error(deployment(3, json!("abc%"), json!(1)), vec![old.clone()]).unwrap();
    assert!(e.starts_with("invalid value for IntOrString"), "{e}");
    let e = sync_error(deployment(3, json!("150"), json!(1)), vec![old.clone()]).unwrap();
    assert!(e.contains("string is not a percentage"), "{e}");
    // A negative surge is used as given: no panic, no error.
    assert_eq!(
        sync_error(deployment(3, json!(-1), json!(1)), vec![old]),
        None
    );
}

#[test]
fn an_invalid_selector_fails_the_claim() {
    let mut d = deployment(3, json!(1), json!(0));
    d["spec"]["selector"] =
        json!({"matchExpressions": [{"key": "app", "operator": "Like", "values": ["x"]}]});
    let e = sync_error(d, vec![]).unwrap();
    assert!(
        e.starts_with("deployment default/web has invalid label selector"),
        "{e}"
    );
}

#[test]
fn unknown_strategy_and_negative_revisions() {
    let mut d = deployment(3, json!(1), json!(0));
    d["spec"]["strategy"] = json!({"type": "BlueGreen"});
    assert_eq!(
        sync_error(d, vec![]).as_deref(),
        Some("unexpected deployment strategy type: BlueGreen")
    );
    let old = rs("web-old", "v1", 3, 3, "-4", "2026-11-23T10:00:00Z");
    let (calls, done) = run_ok(input(deployment(3, json!(1), json!(0)), vec![old]));
    assert!(done.error.is_none());
    // maxOld = max(0, −4) = 0 ⇒ the new RS is revision 1.
    let create = first(&calls, "create", "replicasets");
    assert_eq!(
        create.object().unwrap()["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
}

#[test]
fn where_upstream_would_panic_the_engine_names_the_field() {
    let mut d = deployment(3, json!(1), json!(0));
    d["spec"]["strategy"] = json!({"type": "RollingUpdate"});
    let e = DeploymentSync::new(input(d, vec![])).unwrap_err();
    assert_eq!(e.path(), "deployment.spec.strategy.rollingUpdate");
    let mut d = deployment(3, json!(1), json!(0));
    d["spec"].as_object_mut().unwrap().remove("selector");
    let e = replicore::deployment::run_sync(input(d, vec![]), |_| ApiResult::ok()).unwrap_err();
    assert_eq!(e.path(), "deployment.spec.selector");
    // Malformed input names its path.
    let e = replicore::deployment::DeploymentSyncInput::from_value(json!({
        "now": NOW, "key": "default/web", "replicaSets": [{"metadata": {"creationTimestamp": "yesterday"}}]
    })).unwrap_err();
    assert!(e.to_string().contains("replicaSets[0]"), "{e}");
}

// ---------------------------------------------------------------------------------------
// The kinds as configuration (D-20..D-24, D-32, D-110..D-114 on custom resources)

/// A sync with custom kinds: the ReplicaSet it creates is of the ReplicaSet kind and
/// names the Deployment kind as its controller; an orphan it adopts gets a controller
/// reference of the Deployment kind; its pods are found by the ReplicaSet kind; and the
/// watch handlers resolve references of those kinds (and no longer apps/v1's).
#[test]
fn custom_kinds_are_written_and_resolved() {
    let kinds = json!({
        "deployment": {"apiVersion": "replicore.dev/v1alpha1", "kind": "ReplicaDeployment"},
        "replicaSet": {"apiVersion": "replicore.dev/v1alpha1", "kind": "ReplicaPool"}
    });
    let with_kinds = |rss: Vec<serde_json::Value>| {
        DeploymentSyncInput::from_value(json!({
            "now": NOW, "key": "default/web", "deployment": deployment(3, json!(1), json!(0)),
            "replicaSets": rss, "pods": [], "kinds": kinds
        }))
        .expect("an input")
    };

    // A new ReplicaSet (D-32).
    let (calls, done) = run_ok(with_kinds(vec![]));
    assert!(done.error.is_none());
    let created = first(&calls, "create", "replicasets")
        .object()
        .expect("the new ReplicaSet");
    assert_eq!(created["apiVersion"], "replicore.dev/v1alpha1");
    assert_eq!(created["kind"], "ReplicaPool");
    let owner = &created["metadata"]["ownerReferences"][0];
    assert_eq!(owner["apiVersion"], "replicore.dev/v1alpha1");
    assert_eq!(owner["kind"], "ReplicaDeployment");
    assert_eq!(owner["uid"], DUID);

    // An orphan adopted (D-21): the patch's controller reference has the custom kind.
    let mut orphan = rs("web-a", "v2", 3, 3, "1", "2026-11-23T10:00:00Z");
    orphan["metadata"]["ownerReferences"] = json!([]);
    let (calls, _) = run_ok(with_kinds(vec![orphan]));
    let patch = calls
        .iter()
        .find_map(|c| match c {
            ApiCall::PatchReplicaSet { patch, .. } => Some(patch.clone()),
            _ => None,
        })
        .expect("an adoption patch");
    let owner = &patch["metadata"]["ownerReferences"][0];
    assert_eq!(owner["apiVersion"], "replicore.dev/v1alpha1");
    assert_eq!(owner["kind"], "ReplicaDeployment");

    // The handlers follow the same kinds.
    let k: DeploymentKinds = serde_json::from_value(kinds.clone()).unwrap();
    let d = (*typed_deployment(deployment(3, json!(1), json!(0))).typed).clone();
    let mut owned_json = rs("web-a", "v1", 1, 1, "1", "2026-11-23T10:00:00Z");
    owned_json["metadata"]["ownerReferences"][0]["kind"] = json!("ReplicaDeployment");
    let owned = (*typed_rs(owned_json).typed).clone();
    let ds = std::slice::from_ref(&d);
    assert_eq!(
        handlers::on_replica_set_deleted(&owned, ds, &k),
        ["default/web"]
    );
    assert!(handlers::on_replica_set_deleted(&owned, ds, &DeploymentKinds::default()).is_empty());
    let mut recreate = d.clone();
    recreate.spec.strategy.type_ = "Recreate".into();
    let pod: replicore::Pod = serde_json::from_value(json!({"metadata": {"name": "p", "namespace": "default",
        "ownerReferences": [{"kind": "ReplicaPool", "name": "web-a", "uid": "uid-web-a", "controller": true}]}})).unwrap();
    let rss = std::slice::from_ref(&owned);
    let recreates = std::slice::from_ref(&recreate);
    assert_eq!(
        handlers::on_pod_deleted(&pod, rss, recreates, &[], &k),
        ["default/web"]
    );
    // A pod of that ReplicaPool still there: not yet.
    assert!(
        handlers::on_pod_deleted(&pod, rss, recreates, std::slice::from_ref(&pod), &k).is_empty()
    );
    // The same pod read with apps/v1's kinds belongs to no ReplicaSet.
    assert!(
        handlers::on_pod_deleted(&pod, rss, recreates, &[], &DeploymentKinds::default()).is_empty()
    );
}

#[test]
fn empty_kinds_are_refused_with_their_path() {
    let err = DeploymentSyncInput::from_value(json!({
        "now": NOW, "key": "default/web", "deployment": deployment(3, json!(1), json!(0)),
        "replicaSets": [], "pods": [],
        "kinds": {"replicaSet": {"apiVersion": "v1", "kind": ""}}
    }))
    .expect_err("an empty kind");
    assert!(err.to_string().contains("kinds.replicaSet"), "{err}");
}
