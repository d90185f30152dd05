//! HorizontalPodAutoscalers in the simulator (issue 26 point 3): the engine's HPA sync
//! scales the scenario's Deployment over a load curve; the same seed replays the same
//! run; a step in load scales up, a drop scales down once the stabilization window has
//! passed, never outside min/max; and where the simulator's kubelet plays the forecast's
//! pod model, the run is the engine's HPA forecast, step for step.

use replicore::hpa::forecast::{forecast, HpaForecastInput};
use replicore::hpa::HpaForecastStep;
use replicore_sim::trace::What;
use replicore_sim::{Edit, Scenario, Simulator};
use serde_json::{json, Value};

/// An HPA on `web`: CPU at 50 % of the request, 2..10 replicas.
fn hpa_object() -> Value {
    json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 50}}}]
        }
    })
}

/// Load 2 pods at target, 14 from 60 s (above max), 1 from 900 s.
fn step_load() -> Value {
    json!({"kind": "points", "points": [
        {"atSeconds": 0, "load": 2}, {"atSeconds": 60, "load": 2}, {"atSeconds": 60, "load": 14},
        {"atSeconds": 900, "load": 14}, {"atSeconds": 900, "load": 1}]})
}

/// A settled Deployment of 2 with the HPA; the kubelet and the watch as the forecast's
/// pod model: no latency, Running at 5 s, Ready at 30 s, gone at once when deleted.
fn scenario(seed: u64, noise: f64, hpa: Value, load: Value) -> Scenario {
    Scenario::from_json(
        json!({
            "seed": seed,
            "deployment": {"replicas": 2, "settled": true},
            "delays": {"watch": 0, "schedule": 0, "start": 5000, "ready": 25000, "terminate": 0},
            "hpa": {"hpa": hpa, "load": load, "pods": {"noise": noise}},
        })
        .to_string()
        .as_bytes(),
    )
    .unwrap()
}

/// The forecast of the same input.
fn forecast_of(
    seed: u64,
    noise: f64,
    hpa: Value,
    load: Value,
    seconds: i64,
) -> Vec<HpaForecastStep> {
    let input = HpaForecastInput::from_value(json!({
        "hpa": hpa, "load": load, "seed": seed, "initialReplicas": 2, "durationSeconds": seconds,
        "pods": {"createDelaySeconds": 0, "runningSeconds": 5, "readySeconds": 30, "noise": noise},
    }))
    .unwrap();
    forecast(&input).unwrap().steps
}

fn run(scenario: Scenario, seconds: u64) -> Simulator {
    let mut sim = Simulator::new(scenario).unwrap();
    sim.advance(seconds * 1000);
    sim
}

fn steps(sim: &Simulator) -> Vec<HpaForecastStep> {
    sim.hpa_syncs().map(|s| s.step.clone()).collect()
}

#[test]
fn the_run_is_the_forecast_when_the_kubelet_plays_the_forecasts_pod_model() {
    for noise in [0.0, 0.05] {
        for seed in [1, 7, 42] {
            let sim = run(scenario(seed, noise, hpa_object(), step_load()), 1800);
            let run = steps(&sim);
            let want = forecast_of(seed, noise, hpa_object(), step_load(), 1800);
            assert_eq!(run.len(), 121, "a sync every 15 s from 0 to 1800 s");
            for (i, (r, f)) in run.iter().zip(&want).enumerate() {
                assert_eq!(r, f, "noise {noise}, seed {seed}, sync {i}");
            }
            assert_eq!(run, want);
            // It did something: up to 10 (limited by max), then down.
            assert!(run.iter().any(|s| s.rescaled_to.is_some_and(|r| r > 2)));
            assert!(run
                .iter()
                .any(|s| s.desired_replicas == 2 && s.seconds > 900));
        }
    }
}

#[test]
fn the_same_seed_replays_the_same_trace_and_another_differs() {
    let trace = |seed| {
        let mut s = scenario(seed, 0.05, hpa_object(), step_load());
        s.delays = None; // the default ranges: every delay drawn from the seed
        let sim = run(s, 1200);
        serde_json::to_string(&sim.trace(0).collect::<Vec<_>>()).unwrap()
    };
    assert_eq!(trace(5), trace(5));
    assert_ne!(trace(5), trace(6));
}

#[test]
fn a_step_scales_up_within_max_and_a_drop_scales_down_after_the_window() {
    let mut s = scenario(3, 0.05, hpa_object(), step_load());
    s.delays = None;
    let sim = run(s, 1800);
    let syncs: Vec<_> = sim.hpa_syncs().collect();
    // Never outside min/max: what the HPA wants and the Deployment it writes.
    for s in &syncs {
        assert!((2..=10).contains(&s.step.desired_replicas), "{s:?}");
        assert!((2..=10).contains(&s.step.replicas), "{s:?}");
    }
    // Up after the step at 60 s: 14 pods wanted, held at max 10.
    let up = syncs
        .iter()
        .find(|s| s.step.rescaled_to.is_some_and(|r| r > 2))
        .unwrap();
    assert!(up.t >= 60_000 && up.t <= 75_000, "{}", up.t);
    assert!(syncs.iter().any(|s| s.step.replicas == 10
        && s.conditions.iter().any(|c| c.type_ == "ScalingLimited"
            && c.status == "True"
            && c.reason == "TooManyReplicas")));
    // Down only after the drop at 900 s plus the 300 s window.
    let down = syncs
        .iter()
        .find(|s| s.t > 900_000 && s.step.rescaled_to.is_some())
        .unwrap();
    assert!(down.t >= 1_200_000, "scaled down at {} ms", down.t);
    assert!(syncs
        .iter()
        .filter(|s| s.t > 900_000 && s.t < 1_200_000)
        .all(|s| s.step.replicas == 10 && s.step.able_to_scale == "ScaleDownStabilized"));
    // The Deployment and its ReplicaSet follow.
    let d = sim.state().deployment.unwrap();
    assert_eq!(d.replicas, down.step.rescaled_to.unwrap());
    // Each sync is in the trace and in the state.
    let traced = sim
        .trace(0)
        .filter(|e| matches!(e.what, What::HpaSync { .. }))
        .count();
    assert_eq!(traced, syncs.len());
    let h = sim.state().hpa.unwrap();
    assert_eq!((h.min_replicas, h.max_replicas), (2, 10));
    assert!(h
        .events
        .iter()
        .any(|e| e.event.reason == "SuccessfulRescale"));
}

#[test]
fn set_load_changes_the_load_from_now_on() {
    let flat = json!({"kind": "step", "from": 2, "to": 2, "atSeconds": 0});
    let mut sim = Simulator::new(scenario(9, 0.0, hpa_object(), flat)).unwrap();
    sim.advance(120_000);
    assert!(sim.hpa_syncs().all(|s| s.step.rescaled_to.is_none()));
    sim.apply(
        serde_json::from_value::<Edit>(json!({"op": "setLoad",
            "load": {"kind": "step", "from": 2, "to": 4, "atSeconds": 0}}))
        .unwrap(),
    )
    .unwrap();
    sim.advance(60_000);
    assert_eq!(sim.state().hpa.unwrap().load, 4.0);
    let up = sim.hpa_syncs().find_map(|s| s.step.rescaled_to).unwrap();
    assert_eq!(up, 4);
    // The edit is in the scenario: a replay gives the same run.
    let mut again = Simulator::new(sim.scenario()).unwrap();
    again.advance(180_000);
    assert_eq!(steps(&again), steps(&sim));
}

#[test]
fn an_hpa_needs_a_deployment_and_a_valid_object() {
    let e = Scenario::from_json(
        json!({"seed": 1, "replicas": 2, "hpa": {"hpa": hpa_object(), "load": step_load()}})
            .to_string()
            .as_bytes(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("hpa"), "{e}");
    let mut bad = hpa_object();
    bad["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = json!(0);
    let e = Simulator::new(scenario(1, 0.0, bad, step_load())).unwrap_err();
    assert!(e.to_string().contains("hpa.spec.metrics[0]"), "{e}");
}
