//! The autoscaling forecast (`replicore::hpa::forecast`): the engine's HPA sync played
//! over a load curve, its scale target a Deployment carried by the engine's Deployment
//! and ReplicaSet controllers. Same seed, same forecast; a step up scales within the
//! scale-up policy per period and never above max; a drop scales down only once the
//! stabilization window has passed; every preset plays; a rollout partway takes the
//! HPA's writes on both ReplicaSets; of two metrics the higher proposal wins; a sync asked
//! for is explained as the forecast ran it; bad input is refused with its path.

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
fn a_sync_explained_is_the_forecast_s_own_sync() {
    let plain = play(step_up(3));
    assert!(plain.explanation.is_none());
    // 135 s: the second sync after the step, held back by the 4-pods-per-60-s policy.
    let mut input = step_up(3);
    input["explainAtSeconds"] = json!(135);
    let f = play(input);
    assert_eq!(f.steps, plain.steps, "explaining a sync changes nothing");
    assert_eq!(f.memory, plain.memory);
    let e = f.explanation.expect("the sync at 135 s explained");
    let step = plain
        .steps
        .iter()
        .find(|s| s.seconds == 135)
        .expect("a sync at 135 s");
    assert_eq!(e.desired_replicas, step.desired_replicas);
    assert_eq!(e.rescale_to, step.rescaled_to);
    assert_eq!(e.events, step.events);
    assert!(e.memory.given, "the forecast knows the memory it carried");
    assert!(e.memory.range.is_none());
    let limit = e.limit.as_ref().expect("a limit");
    assert_eq!(step.limited_by.as_deref(), Some("ScaleUpLimit"), "{step:?}");
    assert_eq!(limit.reason, "ScaleUpLimit");
    assert!(limit.limiting_policy.is_some(), "{limit:?}");
    assert!(e.text.contains("ScaleUpLimit"), "{}", e.text);
    // A second that is no sync explains nothing.
    let mut input = step_up(3);
    input["explainAtSeconds"] = json!(7);
    assert!(play(input).explanation.is_none());
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

/// The HPA of [`hpa`] (min 2, max 20, 4 pods per 60 s up) over a step from 10 to 16 pods
/// at target at 60 s, the Deployment at 10 replicas with a rollout partway (old 6, new 4,
/// maxSurge 2, maxUnavailable 0), the new template's pods Ready 60 s after creation.
fn rollout_partway(seed: u64) -> Value {
    json!({
        "hpa": hpa(json!({"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}})),
        "load": {"kind": "step", "from": 10, "to": 16, "atSeconds": 60},
        "initialReplicas": 10,
        "rollout": {"maxSurge": 2, "maxUnavailable": 0, "partway": {"old": 6, "new": 4},
                    "pods": {"readySeconds": 60}},
        "durationSeconds": 900,
        "seed": seed
    })
}

#[test]
fn a_rollout_partway_takes_the_hpas_scale_up_on_both_replica_sets_and_completes() {
    let f = play(rollout_partway(2));
    // At 0 s the Deployment controller already used the surge: the new ReplicaSet at
    // 4 + 2, the old one kept at 6 (maxUnavailable 0).
    let first = f.steps.first().expect("steps");
    assert_eq!((first.new_replicas, first.old_replicas), (6, 6));
    // At the step (60 s) two new pods have just become Ready (inside the CPU
    // initialization period their first sample is not trusted) and two are Pending: they
    // count at 0 % for a scale-up, and the ratio falls within the tolerance. The HPA
    // writes one sync later.
    let at60 = f.steps.iter().find(|s| s.seconds == 60).expect("60 s");
    assert_eq!(at60.rescaled_to, None, "{at60:?}");
    assert_eq!(at60.scaling_limited, "DesiredWithinRange", "{at60:?}");
    let write = f
        .steps
        .iter()
        .find(|s| s.rescaled_to.is_some())
        .expect("the HPA scales up");
    assert_eq!(write.seconds, 75);
    let to = write.rescaled_to.expect("rescaled");
    assert_eq!(to, 14, "{write:?}");
    // The sync after: the Deployment controller has split the new count between both
    // ReplicaSets (proportional scaling): the old one grew too, though it is being
    // replaced.
    let next = f
        .steps
        .iter()
        .find(|s| s.seconds == write.seconds + 15)
        .expect("next sync");
    assert!(
        next.old_replicas > write.old_replicas,
        "{write:?} then {next:?}"
    );
    assert!(
        next.new_replicas > write.new_replicas,
        "{write:?} then {next:?}"
    );
    assert!(next.new_replicas + next.old_replicas <= to + 2, "{next:?}");
    // Never more pods than spec.replicas + maxSurge (the rollout's bound, D-08) once the
    // controllers acted on each write; no old replica left at the end.
    for s in &f.steps {
        assert!(s.pods <= s.replicas.max(s.current_replicas) + 2, "{s:?}");
    }
    let last = f.steps.last().expect("steps");
    assert_eq!(last.old_replicas, 0, "{last:?}");
    assert_eq!(last.new_replicas, last.replicas, "{last:?}");
    assert_eq!(last.ready_pods, last.replicas, "{last:?}");
    let done = f.totals.rollout_seconds.expect("the rollout completes");
    assert!(done > 60 && done < 900, "{done}");
    assert!(f.steps.iter().all(|s| s.error.is_none()));
    // Same seed, same forecast, rollout included.
    assert_eq!(f, play(rollout_partway(2)));
}

#[test]
fn a_rollout_during_a_scale_up_holds_the_hpa_back_while_new_pods_start() {
    // A rollout at 180 s whose pods take 60 s to be Ready, during a step up: the
    // surge pods not yet Ready count at 0 % for a scale-up (H-rules of the calculator),
    // so the HPA waits; without the rollout it reaches its count sooner.
    let base = |rollout: Value| {
        json!({
            "hpa": hpa(json!({"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}})),
            "load": {"kind": "step", "from": 4, "to": 16, "atSeconds": 120},
            "initialReplicas": 4,
            "rollout": rollout,
            "durationSeconds": 600,
            "seed": 1
        })
    };
    let calm = play(base(Value::Null));
    let rolled = play(base(
        json!({"atSeconds": 180, "maxSurge": "25%", "maxUnavailable": 0,
                                  "pods": {"readySeconds": 60}}),
    ));
    let reach = |f: &HpaForecast| {
        f.steps
            .iter()
            .find(|s| s.replicas >= 16)
            .map(|s| s.seconds)
            .expect("reaches 16")
    };
    assert!(
        reach(&rolled) > reach(&calm),
        "{} vs {}",
        reach(&rolled),
        reach(&calm)
    );
    assert!(calm.totals.rollout_seconds.is_none());
    let done = rolled
        .totals
        .rollout_seconds
        .expect("the rollout completes");
    assert!(done >= 60, "{done}");
    // While the rollout runs, there are old and new replicas at once.
    assert!(rolled
        .steps
        .iter()
        .any(|s| s.new_replicas > 0 && s.old_replicas > 0));
    assert!(calm.steps.iter().all(|s| s.old_replicas == 0));
}

#[test]
fn of_two_metrics_the_one_reading_more_load_drives_the_count() {
    let two = |factor: f64| {
        let mut h = hpa(Value::Null);
        h["spec"]["metrics"] = json!([
            {"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 50}}},
            {"type": "Pods", "pods": {"metric": {"name": "requests_per_second"},
                "target": {"type": "AverageValue", "averageValue": "10"}}}
        ]);
        play(json!({
            "hpa": h,
            "load": {"kind": "step", "from": 4, "to": 8, "atSeconds": 60},
            "metrics": [{}, {"factor": factor}],
            "pods": {"noise": 0},
            "initialReplicas": 4,
            "durationSeconds": 600,
            "seed": 4
        }))
    };
    let even = two(1.0);
    let pods_heavy = two(1.5);
    let last = |f: &HpaForecast| f.steps.last().expect("steps").clone();
    // Load 8: cpu alone asks for 8 replicas; the Pods metric at 1.5 × asks for 12.
    assert_eq!(last(&even).replicas, 8);
    assert_eq!(last(&pods_heavy).replicas, 12);
    let row = last(&pods_heavy);
    assert_eq!(row.metrics.len(), 2);
    assert_eq!(row.metrics[0].name, "cpu");
    assert_eq!(row.metrics[1].name, "requests_per_second");
    assert_eq!((row.metrics[0].load, row.metrics[1].load), (8.0, 12.0));
    // At 12 replicas the cpu sits below its target, the Pods metric at it.
    assert!(
        row.metrics[0].utilization.is_some_and(|u| u < 40),
        "{row:?}"
    );
    assert_eq!(row.metrics[1].average_value.as_deref(), Some("10"));
    // The event names the dominating metric.
    assert!(pods_heavy.steps.iter().flat_map(|s| &s.events).any(|e| e
        .message
        .contains("pods metric requests_per_second above target")));
    // Capacity is judged against the highest load of any metric.
    assert!(pods_heavy.totals.seconds_under_capacity > 0);
}

#[test]
fn object_and_external_metrics_play_too() {
    let mut h = hpa(Value::Null);
    h["spec"]["metrics"] = json!([
        {"type": "External", "external": {"metric": {"name": "queue_depth"},
            "target": {"type": "AverageValue", "averageValue": "30"}}},
        {"type": "Object", "object": {"metric": {"name": "latency_ms"},
            "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "web"},
            "target": {"type": "Value", "value": "200"}}},
        {"type": "Resource", "resource": {"name": "memory",
            "target": {"type": "Utilization", "averageUtilization": 70}}}
    ]);
    let f = play(json!({
        "hpa": h,
        "load": {"kind": "step", "from": 3, "to": 9, "atSeconds": 60},
        "metrics": [{"factor": 1}, {"load": {"kind": "step", "from": 3, "to": 5, "atSeconds": 0}}, {"factor": 0.5}],
        "pods": {"noise": 0},
        "initialReplicas": 3,
        "durationSeconds": 600,
        "seed": 9
    }));
    let last = f.steps.last().expect("steps");
    assert_eq!(last.replicas, 9, "{last:?}");
    assert_eq!(last.metrics.len(), 3);
    assert_eq!(last.metrics[0].average_value.as_deref(), Some("30"));
    assert!(last.metrics[1].value.is_some(), "{last:?}");
    assert!(last.metrics[2].utilization.is_some(), "{last:?}");
    assert!(f.steps.iter().all(|s| s.error.is_none()));
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
            "metrics": [{"type": "Resource", "resource": {"name": "ephemeral-storage",
                "target": {"type": "AverageValue", "averageValue": "1Gi"}}}]}}}),
        "hpa.spec.metrics[0]",
    );
    refused(json!({"metrics": [{"factor": -1}]}), "metrics[0].factor");
    refused(json!({"metrics": [{}, {}]}), "metrics");
    refused(
        json!({"rollout": {"partway": {"old": -1, "new": 2}}}),
        "rollout.partway.old",
    );
    refused(
        json!({"rollout": {"pods": {"noise": 3}}}),
        "rollout.pods.noise",
    );
    refused(
        json!({"hpa": {"metadata": {"name": "w", "namespace": "d"}, "spec": {"maxReplicas": 5,
            "scaleTargetRef": {"kind": "Deployment", "name": "w"},
            "metrics": [{"type": "Pods"}]}}}),
        "hpa.spec.metrics[0].pods",
    );
}
