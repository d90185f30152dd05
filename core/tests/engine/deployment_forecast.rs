//! The rollout forecast (issue point 6): bounds kept, stalls reported, determinism.

use replicore::deployment::forecast::{forecast, FailureModel, ForecastEnd, ForecastOptions};
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
    let mut t = template("example/web:v1");
    t["metadata"]["labels"]["pod-template-hash"] = json!("old1");
    let old = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-old1", "namespace": "default", "uid": "rs-old1", "generation": 1,
            "creationTimestamp": "2026-11-20T00:00:00Z",
            "labels": t["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": r, "selector": {"matchLabels": t["metadata"]["labels"]}, "template": t},
        "status": {"replicas": r, "readyReplicas": r, "availableReplicas": r, "observedGeneration": 1}
    });
    (d, vec![old])
}

fn rolling(surge: Value, unavailable: Value) -> Value {
    json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})
}

#[test]
fn ten_replicas_25_25_stay_within_13_pods_and_8_available() {
    let (d, rss) = rollout(10, rolling(json!("25%"), json!("25%")));
    let f = forecast(&d, &rss, &ForecastOptions::at(now())).unwrap();
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
    let f = forecast(&d, &rss, &options).unwrap();
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
    let a = forecast(&d, &rss, &options).unwrap();
    let b = forecast(&d, &rss, &options).unwrap();
    assert_eq!(a, b);
    let differs = (8..16).any(|seed| {
        options.seed = seed;
        forecast(&d, &rss, &options).unwrap() != a
    });
    assert!(differs);
}

#[test]
fn recreate_goes_to_zero_then_up() {
    let (d, rss) = rollout(5, json!({"type": "Recreate"}));
    let f = forecast(&d, &rss, &ForecastOptions::at(now())).unwrap();
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
