//! The rollout forecast (issue point 6): bounds kept, stalls reported, determinism.

use replicore::deployment::forecast::{
    forecast, FailureModel, Forecast, ForecastEnd, ForecastOptions, PodAssumption, PodGroup,
};
use replicore::Time;
use serde_json::{json, Value};

fn now() -> Time {
    Time::parse("2026-11-24T01:00:00Z").unwrap().unwrap()
}

fn template(image: &str) -> Value {
    json!({"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "web", "image": image}]}})
}

/// A deployment of `r` replicas on image v2 and its old ReplicaSet (v1, revision 1),
/// `r` replicas all available.
fn rollout(r: i32, strategy: Value) -> (Value, Vec<Value>) {
    let d = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": r, "selector": {"matchLabels": {"app": "web"}},
            "template": template("example/web:v2"), "strategy": strategy,
            "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 1, "replicas": r, "updatedReplicas": r,
            "availableReplicas": r, "readyReplicas": r}
    });
    let old = replica_set(
        ("old1", "1", "example/web:v1", "2026-11-20T00:00:00Z"),
        r,
        json!({"replicas": r, "readyReplicas": r, "availableReplicas": r, "observedGeneration": 1}),
    );
    (d, vec![old])
}

/// ReplicaSet `web-HASH` of the Deployment `web` (its revision, image and creation time),
/// `replicas` wanted, with `status`.
fn replica_set(
    (hash, revision, image, created): (&str, &str, &str, &str),
    replicas: i32,
    status: Value,
) -> Value {
    let mut t = template(image);
    t["metadata"]["labels"]["pod-template-hash"] = json!(hash);
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("web-{hash}"), "namespace": "default",
            "uid": format!("rs-{hash}"), "generation": 1, "creationTimestamp": created,
            "labels": t["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": revision},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": t["metadata"]["labels"]}, "template": t},
        "status": status
    })
}

fn rolling(surge: Value, unavailable: Value) -> Value {
    json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})
}

#[test]
fn ten_replicas_25_25_stay_within_13_pods_and_8_available() {
    let (d, rss) = rollout(10, rolling(json!("25%"), json!("25%")));
    let f = forecast(&d, &rss, &[], &ForecastOptions::at(now())).unwrap();
    assert!(matches!(f.end, ForecastEnd::Complete { .. }), "{f:#?}");
    assert_eq!((f.max_surge, f.max_unavailable), (3, 2));
    assert_eq!(f.peak_pods, 13, "{f:#?}");
    assert_eq!(f.min_available, 8, "{f:#?}");
    for s in &f.steps {
        assert!(s.pods <= 13 && s.available >= 8, "{s:?}");
    }
    let last = f.steps.last().unwrap();
    assert_eq!(
        (last.new_replicas, last.old_replicas, last.available),
        (10, 0, 10)
    );
    // The first step creates the new RS and scales it up to the surge bound.
    let first = f.steps.first().unwrap();
    assert!(
        first.rule.contains("D-34") && first.rule.contains("D-51"),
        "{first:?}"
    );
}

#[test]
fn max_unavailable_0_with_a_failing_template_stalls_at_the_deadline() {
    let (d, rss) = rollout(4, rolling(json!(1), json!(0)));
    let mut options = ForecastOptions::at(now());
    options.failure = FailureModel::NewTemplateFails;
    let f = forecast(&d, &rss, &[], &options).unwrap();
    match &f.end {
        ForecastEnd::Stalled {
            seconds, reason, ..
        } => {
            assert_eq!(reason, "ProgressDeadlineExceeded");
            assert!(*seconds >= 600.0 && *seconds <= 602.0, "{seconds}");
        }
        other => panic!("{other:?}"),
    }
    // The old pods are never touched: 4 available throughout, 5 pods at most.
    assert_eq!((f.min_available, f.peak_pods), (4, 5));
}

#[test]
fn same_seed_same_forecast_and_the_seed_matters() {
    let (d, rss) = rollout(20, rolling(json!("25%"), json!("25%")));
    let mut options = ForecastOptions::at(now());
    options.startup_jitter_seconds = 20.0;
    options.failure = FailureModel::NeverReadyFraction { fraction: 0.1 };
    options.seed = 7;
    let a = forecast(&d, &rss, &[], &options).unwrap();
    let b = forecast(&d, &rss, &[], &options).unwrap();
    assert_eq!(a, b);
    let differs = (8..16).any(|seed| {
        options.seed = seed;
        forecast(&d, &rss, &[], &options).unwrap() != a
    });
    assert!(differs);
}

#[test]
fn recreate_goes_to_zero_then_up() {
    let (d, rss) = rollout(5, json!({"type": "Recreate"}));
    let f = forecast(&d, &rss, &[], &ForecastOptions::at(now())).unwrap();
    assert!(
        matches!(f.end, ForecastEnd::Complete { seconds } if seconds == 10.0),
        "{f:#?}"
    );
    assert_eq!(f.min_available, 0);
    assert_eq!(f.peak_pods, 5);
    let zero = f
        .steps
        .iter()
        .position(|s| s.pods == 0)
        .expect("a step with no pods");
    assert!(
        f.steps.iter().take(zero).all(|s| s.new_replicas == 0),
        "{f:#?}"
    );
    assert!(
        f.steps.iter().skip(zero).all(|s| s.old_replicas == 0),
        "{f:#?}"
    );
    let text = replicore::deployment::forecast::render_forecast(&f);
    assert!(text.contains("D-60") && text.contains("D-62"), "{text}");
}

// -- Starting from the cluster as it is (issue 27 point 4) ---------------------------------

/// The rollout of [`rollout`] underway: the new ReplicaSet (v2, revision 2) at 3 replicas
/// with none available, the old one still at 10, and the Deployment's Progressing
/// condition as given.
fn underway(progressing: Value) -> (Value, Vec<Value>) {
    let (mut d, mut rss) = rollout(10, rolling(json!("25%"), json!("25%")));
    d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = json!("2");
    d["status"] = json!({"observedGeneration": 2, "replicas": 13, "updatedReplicas": 3,
        "availableReplicas": 10, "readyReplicas": 10, "unavailableReplicas": 3,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "lastUpdateTime": "2026-11-24T00:00:00Z", "lastTransitionTime": "2026-11-24T00:00:00Z"},
            progressing]});
    rss.push(replica_set(
        ("new2", "2", "example/web:v2", "2026-11-24T00:30:00Z"),
        3,
        json!({"replicas": 3, "observedGeneration": 1}),
    ));
    (d, rss)
}

fn deadline_exceeded() -> Value {
    json!({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
        "message": "ReplicaSet \"web-new2\" has timed out progressing.",
        "lastUpdateTime": "2026-11-24T00:40:00Z", "lastTransitionTime": "2026-11-24T00:40:00Z"})
}

/// A pod of ReplicaSet `rs`: created `age` seconds before [`now`], ready (since its
/// creation) or not (Ready=False since its creation), its container restarted `restarts`
/// times.
fn pod(name: &str, rs: &str, age: i64, ready: bool, restarts: i32) -> Value {
    let created = now()
        .plus(replicore::Duration::from_seconds(-age))
        .to_rfc3339();
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("{name}-uid"),
            "creationTimestamp": created,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                "uid": format!("rs-{}", rs.trim_start_matches("web-")), "controller": true}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" },
                "lastTransitionTime": created}],
            "containerStatuses": [{"name": "web", "restartCount": restarts}]}})
}

/// The old ReplicaSet's 10 pods, ready for a day.
fn old_pods() -> Vec<Value> {
    (0..10)
        .map(|i| pod(&format!("web-old1-{i}"), "web-old1", 86_400, true, 0))
        .collect()
}

fn new_pods(age: i64, restarts: i32) -> Vec<Value> {
    (0..3)
        .map(|i| pod(&format!("web-new2-{i}"), "web-new2", age, false, restarts))
        .collect()
}

/// What `f` assumed of the pods of `group` of ReplicaSet `rs`.
fn group<'f>(f: &'f Forecast, rs: &str, group: PodGroup) -> &'f PodAssumption {
    f.assumptions
        .iter()
        .find(|a| a.replica_set == rs && a.group == group)
        .unwrap_or_else(|| panic!("no {group:?} group of {rs}: {:#?}", f.assumptions))
}

/// Asserts `f` stalls at the progress deadline 600 s after the start (the scale-up at the
/// start is progress: Progressing goes back to ReplicaSetUpdated, as upstream), saying
/// `why` first; returns the forecast's text.
fn stalled_at_the_deadline(f: &Forecast, why: &str) -> String {
    let text = replicore::deployment::forecast::render_forecast(f);
    match &f.end {
        ForecastEnd::Stalled {
            seconds,
            reason,
            why: said,
        } => {
            assert_eq!(reason, "ProgressDeadlineExceeded", "{text}");
            assert!((600.0..=602.0).contains(seconds), "{seconds}\n{text}");
            assert!(said.starts_with(why), "{said}");
        }
        other => panic!("{other:?}\n{text}"),
    }
    text
}

#[test]
fn a_stale_progress_deadline_does_not_stop_a_rollout_whose_pods_become_ready() {
    let (d, rss) = underway(deadline_exceeded());
    // The case: no pods in the input, the new ReplicaSet's 3 starting by the model;
    // then the same with the 3 pods seen starting (created 2 s ago, unready).
    for pods in [Vec::new(), [old_pods(), new_pods(2, 0)].concat()] {
        let f = forecast(&d, &rss, &pods, &ForecastOptions::at(now())).unwrap();
        assert!(
            matches!(f.end, ForecastEnd::Complete { .. }),
            "{}",
            replicore::deployment::forecast::render_forecast(&f)
        );
        let last = f.steps.last().unwrap();
        assert_eq!(
            (last.new_replicas, last.old_replicas, last.available),
            (10, 0, 10)
        );
        // As the controllers: at once the old ReplicaSet goes 10 → 8, the new one 3 → 5.
        let at_once: Vec<(i32, i32)> = f
            .steps
            .iter()
            .filter(|s| s.seconds == 0.0)
            .map(|s| (s.new_replicas, s.old_replicas))
            .collect();
        assert_eq!(at_once, [(3, 8), (5, 8)], "{f:#?}");
    }
}

#[test]
fn pods_unready_for_long_are_assumed_never_ready_and_the_message_counts_them() {
    let (d, rss) = underway(deadline_exceeded());
    let pods = [old_pods(), new_pods(12 * 60, 0)].concat();
    let f = forecast(&d, &rss, &pods, &ForecastOptions::at(now())).unwrap();
    // 3 observed, 2 more created at the surge bound, failing as the observed ones.
    let text = stalled_at_the_deadline(
        &f,
        "5 of the new ReplicaSet's 5 pods never become ready (3 unready past the start-up time, 2 created in the forecast); 8 of 13 pods available",
    );
    let unready = group(&f, "web-new2", PodGroup::Unready);
    assert_eq!(
        (unready.pods, unready.ready, unready.overridden),
        (3, false, false)
    );
    assert_eq!(unready.unready_seconds, Some(720.0));
    let old = group(&f, "web-old1", PodGroup::Available);
    assert_eq!(
        (old.group, old.pods, old.ready),
        (PodGroup::Available, 10, true)
    );
    assert!(
        text.contains("web-new2 (new): 3 unready past the start-up time (unready for 12m): never ready, as observed"),
        "{text}"
    );
    assert!(
        text.contains(
            "pods created in the forecast: never ready, as the new template's 3 pods observed"
        ),
        "{text}"
    );

    // The model's flag overrides: every pod becomes ready; the controllers then finish.
    let mut options = ForecastOptions::at(now());
    options.failure = FailureModel::None;
    let f = forecast(&d, &rss, &pods, &options).unwrap();
    assert!(matches!(f.end, ForecastEnd::Complete { .. }), "{f:#?}");
    let unready = group(&f, "web-new2", PodGroup::Unready);
    assert!(unready.ready && unready.overridden, "{unready:?}");
    assert!(replicore::deployment::forecast::render_forecast(&f)
        .contains("ready 10s from now, by the failure model, over what the cluster shows"));
}

#[test]
fn a_crash_loop_with_restarts_stalls_at_the_deadline() {
    let progressing = json!({"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
        "message": "ReplicaSet \"web-new2\" is progressing.",
        "lastUpdateTime": "2026-11-24T00:59:30Z", "lastTransitionTime": "2026-11-24T00:30:00Z"});
    let (d, rss) = underway(progressing);
    // Unready for 30 s with 4 restarts each: the restarts make them crash-looping.
    let pods = [old_pods(), new_pods(30, 4)].concat();
    let f = forecast(&d, &rss, &pods, &ForecastOptions::at(now())).unwrap();
    let text = stalled_at_the_deadline(
        &f,
        "5 of the new ReplicaSet's 5 pods never become ready (3 crash-looping, 2 created in the forecast)",
    );
    let crash = group(&f, "web-new2", PodGroup::CrashLooping);
    assert_eq!((crash.pods, crash.restarts, crash.ready), (3, 4, false));
    assert!(
        text.contains("web-new2 (new): 3 crash-looping (unready for 30s, up to 4 restarts): never ready, as observed"),
        "{text}"
    );
    assert_eq!((f.min_available, f.peak_pods), (8, 13));
}

#[test]
fn the_failing_flag_overrides_starting_pods_of_the_new_template() {
    let (d, rss) = underway(deadline_exceeded());
    let pods = [old_pods(), new_pods(2, 0)].concat();
    let mut options = ForecastOptions::at(now());
    options.failure = FailureModel::NewTemplateFails;
    let f = forecast(&d, &rss, &pods, &options).unwrap();
    let starting = group(&f, "web-new2", PodGroup::Starting);
    assert!(!starting.ready && starting.overridden, "{starting:?}");
    // The old pods are as observed, not overridden.
    assert!(!group(&f, "web-old1", PodGroup::Available).overridden);
    let text = stalled_at_the_deadline(
        &f,
        "5 of the new ReplicaSet's 5 pods never become ready (3 starting, 2 created in the forecast)",
    );
    assert!(
        text.contains("web-new2 (new): 3 starting (unready for 2s): never ready, by the failure model, over what the cluster shows"),
        "{text}"
    );
}
