//! The autoscaling forecast (`replicore::hpa::forecast`): the engine's sync played over
//! a load curve. Same seed, same forecast; a step up scales within the scale-up policy per
//! period and never above max; a drop scales down only once the stabilization window has
//! passed; every preset plays; bad input is refused with its path.

use replicore::hpa::{forecast, HpaForecast, HpaForecastInput};
use serde_json::{json, Value};

/// min 2, max 20, cpu at 50 %, the given behavior.
fn hpa(behavior: Value) -> Value {
    let cpu = json!({"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}});
    let target = json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"});
    json!({
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": target, "minReplicas": 2, "maxReplicas": 20,
                 "metrics": [{"type": "Resource", "resource": cpu}], "behavior": behavior}
    })
}

fn play(input: Value) -> HpaForecast {
    let input = HpaForecastInput::from_value(input).expect("input");
    forecast(&input).expect("forecast")
}

fn step_up(seed: u64) -> Value {
    json!({
        "hpa": hpa(json!({"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}})),
        "load": {"kind": "step", "from": 4, "to": 40, "atSeconds": 120},
        "initialReplicas": 4,
        "durationSeconds": 900,
        "seed": seed
    })
}

#[test]
fn same_seed_same_forecast_other_seed_other_samples() {
    let a = play(step_up(7));
    let b = play(step_up(7));
    assert_eq!(a, b);
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        serde_json::to_string(&b).expect("json")
    );
    let c = play(step_up(8));
    let util = |f: &HpaForecast| f.steps.iter().map(|s| s.utilization).collect::<Vec<_>>();
    assert_ne!(util(&a), util(&c), "the noise follows the seed");
    assert_eq!(a.steps.len(), 61, "0..=900 s every 15 s");
}

#[test]
fn a_step_up_scales_within_the_policy_per_period_and_never_above_max() {
    let f = play(step_up(1));
    let ups: Vec<(i64, i32)> = {
        let mut before = 4;
        f.steps
            .iter()
            .filter_map(|s| {
                let r = s.rescaled_to?;
                let change = r - before;
                before = r;
                Some((s.seconds, change))
            })
            .collect()
    };
    assert!(!ups.is_empty());
    // The first sync after the step scales up.
    assert_eq!(ups.first().map(|u| u.0), Some(120));
    for (t, _) in &ups {
        // Pods 4 per 60 s: the changes inside any 60 s ending at a rescale add to ≤ 4.
        let within: i32 = ups
            .iter()
            .filter(|(u, c)| *u > t - 60 && u <= t && *c > 0)
            .map(|(_, c)| c)
            .sum();
        assert!(within <= 4, "{within} pods added in the 60 s to {t}");
    }
    for s in &f.steps {
        assert!(
            s.replicas <= 20 && s.pods <= 20 && s.desired_replicas <= 20,
            "{s:?}"
        );
    }
    // Load 40 pods at target is above max: the forecast ends at max, limited by it, and
    // stays under capacity.
    let last = f.steps.last().expect("steps");
    assert_eq!(last.replicas, 20);
    assert_eq!(last.limited_by.as_deref(), Some("TooManyReplicas"));
    assert!(f
        .steps
        .iter()
        .any(|s| s.limited_by.as_deref() == Some("ScaleUpLimit")));
    assert_eq!(f.shortfalls.len(), 1);
    assert_eq!(f.shortfalls[0].seconds_to_capacity, None);
    assert_eq!(f.totals.scale_downs, 0);
    assert_eq!(f.totals.direction_changes, 0);
}

#[test]
fn a_drop_scales_down_only_after_the_stabilization_window() {
    for window in [60, 300] {
        let f = play(json!({
            "hpa": hpa(json!({"scaleDown": {"stabilizationWindowSeconds": window}})),
            "load": {"kind": "step", "from": 16, "to": 3, "atSeconds": 300},
            "initialReplicas": 16,
            "durationSeconds": 1200,
            "seed": 3
        }));
        let downs: Vec<i64> = f
            .steps
            .iter()
            .filter(|s| s.rescaled_to.is_some_and(|r| r < s.current_replicas))
            .map(|s| s.seconds)
            .collect();
        let first = *downs.first().expect("it scales down");
        // The last high recommendation is the sync before the drop (285 s); it leaves
        // the window `window` seconds later.
        assert!(
            first >= 300 + window - 15,
            "window {window}: down at {first}"
        );
        assert!(
            first <= 300 + window + 15,
            "window {window}: down at {first}"
        );
        assert!(f
            .steps
            .iter()
            .filter(|s| s.seconds >= 300 && s.seconds < first)
            .all(|s| s.limited_by.as_deref() == Some("ScaleDownStabilized")));
        let last = f.steps.last().expect("steps");
        assert!(last.replicas >= 2 && last.replicas <= 4, "{last:?}");
        assert!(f.totals.over_provisioned_pod_seconds > 0.0);
        assert_eq!(f.totals.seconds_under_capacity, 0);
    }
}

#[test]
fn every_preset_plays_and_a_short_window_flaps() {
    let base = |load: Value, behavior: Value| json!({"hpa": hpa(behavior), "load": load, "initialReplicas": 4, "durationSeconds": 3600, "seed": 5});
    for load in [
        json!({"kind": "spike", "base": 4, "peak": 30, "atSeconds": 600, "durationSeconds": 120}),
        json!({"kind": "ramp", "from": 2, "to": 18, "startSeconds": 60, "endSeconds": 1800}),
        json!({"kind": "dailyCycle", "min": 3, "max": 15, "periodSeconds": 3600}),
        json!({"kind": "points", "points": [{"atSeconds": 0, "load": 5}, {"atSeconds": 900, "load": 12}]}),
    ] {
        let f = play(base(load.clone(), Value::Null));
        assert_eq!(f.steps.len(), 241, "{load}");
        assert!(f.totals.rescales > 0, "{load}");
        assert!(f.steps.iter().all(|s| s.error.is_none()), "{load}");
    }
    let flapping = json!({"kind": "flapping", "low": 3, "high": 12, "periodSeconds": 240});
    let calm = play(base(flapping.clone(), Value::Null));
    let nervous = play(base(
        flapping,
        json!({"scaleDown": {"stabilizationWindowSeconds": 0}}),
    ));
    assert!(
        nervous.totals.direction_changes > calm.totals.direction_changes,
        "{:?} vs {:?}",
        nervous.totals,
        calm.totals
    );
    assert!(nervous.totals.direction_changes >= 10);
}

#[test]
fn a_pod_starting_up_is_pending_then_running_then_ready() {
    let f = play(json!({
        "hpa": hpa(json!({"scaleUp": {"policies": [{"type": "Pods", "value": 10, "periodSeconds": 15}]}})),
        "load": {"kind": "step", "from": 2, "to": 8, "atSeconds": 30},
        "pods": {"runningSeconds": 20, "readySeconds": 50, "noise": 0},
        "initialReplicas": 2,
        "durationSeconds": 180
    }));
    let at = |t: i64| f.steps.iter().find(|s| s.seconds == t).expect("step");
    assert_eq!(at(30).rescaled_to, Some(8));
    // Created at 31 s: not Ready at 45 or 75 s, Ready at 90 s.
    assert_eq!((at(45).pods, at(45).ready_pods), (8, 2));
    assert_eq!((at(75).pods, at(75).ready_pods), (8, 2));
    assert_eq!((at(90).pods, at(90).ready_pods), (8, 8));
    assert_eq!(at(90).utilization, Some(50));
    assert_eq!(f.shortfalls.len(), 1);
    assert_eq!(f.shortfalls[0].seconds_to_capacity, Some(60));
}

#[test]
fn bad_input_is_refused_with_its_path() {
    let refused = |patch: Value, path: &str| {
        let mut input = step_up(1);
        if let (Some(o), Some(p)) = (input.as_object_mut(), patch.as_object()) {
            for (k, v) in p {
                o.insert(k.clone(), v.clone());
            }
        }
        let e = HpaForecastInput::from_value(input)
            .and_then(|i| forecast(&i))
            .expect_err("refused");
        assert!(e.to_string().starts_with(path), "{e}");
    };
    refused(
        json!({"load": {"kind": "step", "from": -1, "to": 2, "atSeconds": 0}}),
        "load.from",
    );
    refused(
        json!({"load": {"kind": "points", "points": []}}),
        "load.points",
    );
    refused(
        json!({"load": {"kind": "points", "points": [{"atSeconds": 9, "load": 1}, {"atSeconds": 3, "load": 1}]}}),
        "load.points[1].atSeconds",
    );
    refused(json!({"load": {"kind": "sine"}}), "load");
    refused(json!({"pods": {"noise": 2}}), "pods.noise");
    refused(json!({"initialReplicas": -1}), "initialReplicas");
    refused(json!({"durationSeconds": -5}), "durationSeconds");
    refused(
        json!({"hpa": {"metadata": {"name": "w", "namespace": "d"}, "spec": {"maxReplicas": 5,
            "scaleTargetRef": {"kind": "Deployment", "name": "w"},
            "metrics": [{"type": "External", "external": {"metric": {"name": "q"},
                "target": {"type": "Value", "value": "1"}}}]}}}),
        "hpa.spec.metrics[0].type",
    );
    refused(
        json!({"hpa": {"metadata": {"name": "w", "namespace": "d"}, "spec": {"maxReplicas": 5,
            "scaleTargetRef": {"kind": "Deployment", "name": "w"},
            "metrics": [{"type": "Pods"}]}}}),
        "hpa.spec.metrics[0].pods",
    );
}
