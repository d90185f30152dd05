//! Deployments in the simulator, driven by the engine's Deployment sync (issue 17
//! point 3): rollouts keep their bounds, a failing template stalls at the progress
//! deadline, scaling mid-rollout is proportional, pause/resume and undo act as kubectl
//! makes them act, the same seed replays the same run, and the engine's rollout forecast
//! agrees with the simulated run where the two models coincide.

use std::collections::BTreeMap;

use replicore::deployment::forecast::{forecast, ForecastEnd, ForecastOptions};
use replicore::deployment::model::IntOrString;
use replicore::deployment::scale::proportional_sizes;
use replicore::deployment::Rs;
use replicore_sim::trace::What;
use replicore_sim::{Edit, Scenario, ScenarioDeployment, Simulator, TemplateFailure};
use serde_json::json;

fn dep(replicas: i32) -> ScenarioDeployment {
    ScenarioDeployment::new(replicas)
}

fn sim_of(seed: u64, d: ScenarioDeployment) -> Simulator {
    Simulator::new(Scenario::with_deployment(seed, d)).unwrap()
}

fn complete(sim: &Simulator) -> bool {
    sim.state().deployment.is_some_and(|d| d.complete)
}

/// Advances second by second until `done` (at most `limit_s` seconds); true if it held.
fn advance_until(sim: &mut Simulator, limit_s: u64, done: impl Fn(&Simulator) -> bool) -> bool {
    for _ in 0..limit_s {
        if done(sim) {
            return true;
        }
        sim.advance(1000);
    }
    done(sim)
}

/// (revision, spec.replicas, active pods, available pods) per lane, oldest first.
fn lanes(sim: &Simulator) -> Vec<(Option<i64>, i32, usize, usize)> {
    sim.state()
        .deployment
        .unwrap()
        .lanes
        .iter()
        .map(|l| (l.revision, l.desired, l.counts.active, l.counts.available))
        .collect()
}

fn set_image(image: &str) -> Edit {
    Edit::SetImage {
        image: image.into(),
        fail: None,
    }
}

#[test]
fn a_25_25_rollout_of_10_never_exceeds_13_pods_nor_drops_below_8_available() {
    let mut sim = sim_of(11, dep(10));
    assert!(advance_until(&mut sim, 120, complete), "{:?}", lanes(&sim));
    let d = sim.state().deployment.unwrap();
    assert_eq!((d.max_surge, d.max_unavailable), (3, 2));
    assert_eq!((d.max_pods, d.min_available), (13, 8));
    let from = sim.now();
    sim.apply(set_image("web:v2")).unwrap();
    assert!(advance_until(&mut sim, 300, complete), "{:?}", lanes(&sim));
    // Every change of the store (sampled after every event): pods that exist and are
    // not terminating stay within maxSurge, available pods within maxUnavailable.
    let rollout: Vec<_> = sim.deployment_history().filter(|s| s.t >= from).collect();
    assert!(rollout.len() > 10, "{rollout:?}");
    let peak = rollout.iter().map(|s| s.pods).max().unwrap();
    let low = rollout.iter().map(|s| s.available).min().unwrap();
    assert_eq!(peak, 13, "the surge is used");
    assert_eq!(low, 8, "the unavailability budget is used");
    for s in &rollout {
        assert!(s.pods <= 13 && s.available >= 8, "{s:?}");
    }
    // Two lanes: revision 1 emptied, revision 2 with every replica available.
    assert_eq!(lanes(&sim), [(Some(1), 0, 0, 0), (Some(2), 10, 10, 10)]);
    // Each sync names the rule that decided or limited its step.
    let rules: Vec<String> = sim
        .deployment_syncs()
        .filter(|s| s.step.writes > 0)
        .map(|s| s.rule.clone())
        .collect();
    assert!(rules.iter().any(|r| r.contains("D-34")), "{rules:?}");
    assert!(rules.iter().any(|r| r.contains("D-51")), "{rules:?}");
    assert!(rules.iter().any(|r| r.contains("D-54")), "{rules:?}");
    let st = sim.state();
    let dep = st.deployment.unwrap();
    let progressing = dep.status.condition("Progressing").unwrap();
    assert_eq!(progressing.reason, "NewReplicaSetAvailable");
    assert!(st
        .events
        .iter()
        .any(|e| e.owner == "default/web" && e.event.reason == "ScalingReplicaSet"));
}

#[test]
fn max_unavailable_0_with_a_failing_template_stalls_at_progress_deadline_exceeded() {
    let mut d = dep(10);
    d.max_unavailable = Some(IntOrString::Int(0));
    d.progress_deadline_seconds = Some(60);
    let mut sim = sim_of(12, d);
    assert!(advance_until(&mut sim, 120, complete));
    sim.apply(Edit::SetImage {
        image: "web:broken".into(),
        fail: Some(TemplateFailure::NeverReady),
    })
    .unwrap();
    assert!(
        advance_until(&mut sim, 300, |s| s.progressing_reason()
            == Some("ProgressDeadlineExceeded")),
        "{:?}",
        sim.state().deployment
    );
    let stalled_at = sim.now();
    sim.advance(120_000);
    // Stalled: the old ReplicaSet keeps all 10 available, the new one its 3 surge pods,
    // none ready; nothing moved after the deadline.
    assert_eq!(lanes(&sim), [(Some(1), 10, 10, 10), (Some(2), 3, 3, 0)]);
    let st = sim.state();
    assert!(st.pods.iter().filter(|p| p.never_ready).count() == 3);
    let after: Vec<_> = sim
        .deployment_syncs()
        .filter(|s| s.step.writes > 0)
        .map(|s| s.rule.clone())
        .collect();
    assert!(!after.is_empty());
    assert!(
        sim.deployment_history()
            .filter(|s| s.t > stalled_at)
            .all(|s| s.available == 10 && s.pods == 13),
        "stalled"
    );
    let c = st.deployment.unwrap().status;
    let c = c.condition("Progressing").unwrap();
    assert_eq!(
        (c.status.as_str(), c.reason.as_str()),
        ("False", "ProgressDeadlineExceeded")
    );
}

#[test]
fn a_crash_looping_template_stalls_too() {
    let mut d = dep(4);
    d.max_unavailable = Some(IntOrString::Int(0));
    d.max_surge = Some(IntOrString::Int(1));
    d.progress_deadline_seconds = Some(30);
    let mut sim = sim_of(13, d);
    assert!(advance_until(&mut sim, 120, complete));
    sim.apply(set_image("web:v2")).unwrap();
    sim.apply(Edit::FailTemplate {
        failure: TemplateFailure::CrashLoop,
    })
    .unwrap();
    assert!(advance_until(&mut sim, 300, |s| s.progressing_reason()
        == Some("ProgressDeadlineExceeded")));
    let st = sim.state();
    assert!(st.pods.iter().any(|p| p.crash_looping && p.restarts > 0));
    assert_eq!(lanes(&sim), [(Some(1), 4, 4, 4), (Some(2), 1, 1, 0)]);
}

#[test]
fn scaling_mid_rollout_splits_proportionally_as_the_engine_expects() {
    let mut d = dep(10);
    d.max_surge = Some(IntOrString::Int(3));
    d.max_unavailable = Some(IntOrString::Int(2));
    let mut sim = sim_of(14, d);
    assert!(advance_until(&mut sim, 120, complete));
    // A template that never becomes ready holds the rollout mid-way: old 8, new 5.
    sim.apply(Edit::SetImage {
        image: "web:v2".into(),
        fail: Some(TemplateFailure::NeverReady),
    })
    .unwrap();
    sim.advance(60_000);
    assert_eq!(lanes(&sim), [(Some(1), 8, 8, 8), (Some(2), 5, 5, 0)]);
    sim.apply(Edit::ScaleDeployment { replicas: 20 }).unwrap();
    // The engine's expectation from the store at the edit: D-44..D-46.
    let deployment = sim.deployment().unwrap().clone();
    let mut active: Vec<Rs> = sim
        .state()
        .deployment
        .unwrap()
        .lanes
        .iter()
        .map(|l| Rs::from_value(serde_json::to_value(sim.owner(&l.key).unwrap()).unwrap()).unwrap())
        .collect();
    let sizes = proportional_sizes(&deployment, &mut active);
    let expected: BTreeMap<String, i32> = active
        .iter()
        .map(|rs| rs.metadata.name.clone())
        .zip(sizes)
        .collect();
    sim.advance(30_000);
    let got: BTreeMap<String, i32> = sim
        .state()
        .deployment
        .unwrap()
        .lanes
        .iter()
        .map(|l| (l.name.clone(), l.desired))
        .collect();
    assert_eq!(got, expected);
    // 23 = 20 + maxSurge 3, split 8:5 → 14:9 (8·23/13 = 14.15, the rest to the newest).
    assert_eq!(lanes(&sim).iter().map(|l| l.1).collect::<Vec<_>>(), [14, 9]);
    assert!(sim.deployment_syncs().any(|s| s
        .calls
        .iter()
        .filter(|c| c.replicas.is_some())
        .count()
        == 2));
}

#[test]
fn pause_stops_the_rollout_and_resume_continues_it() {
    let mut sim = sim_of(15, dep(6));
    assert!(advance_until(&mut sim, 120, complete));
    sim.apply(Edit::PauseDeployment).unwrap();
    sim.apply(set_image("web:v2")).unwrap();
    sim.advance(120_000);
    // Paused: no new ReplicaSet, the old one untouched.
    assert_eq!(lanes(&sim), [(Some(1), 6, 6, 6)]);
    let st = sim.state().deployment.unwrap();
    assert!(st.paused);
    assert_eq!(
        st.status.condition("Progressing").unwrap().reason,
        "DeploymentPaused"
    );
    sim.apply(Edit::ResumeDeployment).unwrap();
    assert!(advance_until(&mut sim, 300, complete), "{:?}", lanes(&sim));
    assert_eq!(lanes(&sim), [(Some(1), 0, 0, 0), (Some(2), 6, 6, 6)]);
}

#[test]
fn undo_returns_to_the_previous_replica_set() {
    let mut sim = sim_of(16, dep(5));
    assert!(advance_until(&mut sim, 120, complete));
    let first = sim.state().deployment.unwrap().lanes[0].name.clone();
    sim.apply(set_image("web:v2")).unwrap();
    assert!(advance_until(&mut sim, 300, complete));
    let second = sim.state().deployment.unwrap().lanes[1].name.clone();
    assert_eq!(lanes(&sim), [(Some(1), 0, 0, 0), (Some(2), 5, 5, 5)]);
    sim.apply(Edit::UndoDeployment { revision: None }).unwrap();
    assert!(advance_until(&mut sim, 300, complete));
    let d = sim.state().deployment.unwrap();
    // The first ReplicaSet is the new one again, as revision 3; the template carries no
    // pod-template-hash label.
    let by_name: BTreeMap<_, _> = d
        .lanes
        .iter()
        .map(|l| (l.name.clone(), (l.revision, l.desired, l.counts.available)))
        .collect();
    assert_eq!(by_name[&first], (Some(3), 5, 5));
    assert_eq!(by_name[&second], (Some(2), 0, 0));
    assert_eq!(d.image, replicore_sim::scenario::DEFAULT_IMAGE);
    let template = &sim.deployment().unwrap().wire["spec"]["template"];
    assert!(template["metadata"]["labels"]
        .get("pod-template-hash")
        .is_none());
    // Undo to a named revision: back to v2.
    sim.apply(Edit::UndoDeployment { revision: Some(2) })
        .unwrap();
    assert!(advance_until(&mut sim, 300, complete));
    assert_eq!(sim.state().deployment.unwrap().image, "web:v2");
    // A revision that does not exist is refused and changes nothing.
    assert!(sim
        .apply(Edit::UndoDeployment { revision: Some(9) })
        .is_err());
}

fn busy_scenario(seed: u64) -> Scenario {
    let mut d = dep(8);
    d.max_surge = Some(IntOrString::Str("50%".into()));
    d.min_ready_seconds = Some(2);
    let mut s = Scenario::with_deployment(seed, d);
    s.faults =
        Some(serde_json::from_value(json!({"watchDrop": 0.05, "readinessFlap": 0.05})).unwrap());
    s.edits = serde_json::from_value(json!([
        {"at": 30000, "op": "setImage", "image": "web:v2"},
        {"at": 34000, "op": "scaleDeployment", "replicas": 12},
        {"at": 40000, "op": "pauseDeployment"},
        {"at": 50000, "op": "resumeDeployment"},
        {"at": 90000, "op": "undoDeployment"},
        {"at": 130000, "op": "setImage", "image": "web:v3", "fail": "neverReady"}
    ]))
    .unwrap();
    s
}

fn trace_json(sim: &Simulator) -> String {
    serde_json::to_string(&sim.trace(0).collect::<Vec<_>>()).unwrap()
}

#[test]
fn the_same_seed_gives_the_identical_run() {
    let mut a = Simulator::new(busy_scenario(21)).unwrap();
    let mut b = Simulator::new(busy_scenario(21)).unwrap();
    a.advance(200_000);
    b.advance(200_000);
    assert_eq!(trace_json(&a), trace_json(&b));
    assert_eq!(
        serde_json::to_string(&a.state()).unwrap(),
        serde_json::to_string(&b.state()).unwrap()
    );
    assert!(a
        .trace(0)
        .any(|e| matches!(&e.what, What::DeploymentSync { .. })));
    // Another seed, another run.
    let mut c = Simulator::new(busy_scenario(22)).unwrap();
    c.advance(200_000);
    assert_ne!(trace_json(&a), trace_json(&c));
    // Edits applied live replay from `scenario()` to the same run.
    let mut live = sim_of(23, dep(4));
    live.advance(20_000);
    live.apply(set_image("web:v2")).unwrap();
    live.advance(5_000);
    live.apply(Edit::ScaleDeployment { replicas: 7 }).unwrap();
    live.advance(60_000);
    let mut replay = Simulator::new(live.scenario()).unwrap();
    replay.advance(85_000);
    assert_eq!(trace_json(&live), trace_json(&replay));
}

#[test]
fn scenarios_and_edits_round_trip_and_errors_name_the_field() {
    let s = busy_scenario(1);
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(Scenario::from_json(text.as_bytes()).unwrap(), s);
    let bad = |v: serde_json::Value| {
        Scenario::from_json(v.to_string().as_bytes())
            .unwrap_err()
            .to_string()
    };
    let e = bad(json!({"seed": 1, "deployment": {"replicas": 3, "strategy": "Blue"}}));
    assert!(e.contains("deployment.strategy"), "{e}");
    let e = bad(
        json!({"seed": 1, "deployment": {"replicas": 3, "maxSurge": 0, "maxUnavailable": "0%"}}),
    );
    assert!(e.contains("deployment.maxUnavailable"), "{e}");
    let e = bad(json!({"seed": 1, "replicas": 2, "deployment": {"replicas": 3}}));
    assert!(e.contains("deployment"), "{e}");
    let e = bad(json!({"seed": 1, "deployment": {"replicas": -1}}));
    assert!(e.contains("deployment.replicas"), "{e}");
    // A node count that would exhaust memory is refused (found by the JS fuzz test).
    let e = bad(json!({"seed": 7, "replicas": 3, "nodes": 2_147_483_648u64}));
    assert!(e.contains("nodes"), "{e}");
    // Deployment edits need a Deployment.
    let mut rs_only = Simulator::new(Scenario::new(1, 2)).unwrap();
    assert!(rs_only
        .apply(Edit::ScaleDeployment { replicas: 3 })
        .is_err());
    // Recreate: old pods gone before the new ones start.
    let mut d = dep(3);
    d.strategy = Some("Recreate".into());
    let mut sim = sim_of(5, d);
    assert!(advance_until(&mut sim, 120, complete));
    let from = sim.now();
    sim.apply(set_image("web:v2")).unwrap();
    assert!(advance_until(&mut sim, 300, complete));
    for s in sim.deployment_history().filter(|s| s.t >= from) {
        let old = s
            .lanes
            .iter()
            .filter(|l| !l.new)
            .map(|l| l.current)
            .sum::<usize>();
        let new = s
            .lanes
            .iter()
            .filter(|l| l.new)
            .map(|l| l.current)
            .sum::<usize>();
        assert!(old == 0 || new == 0, "Recreate never runs both: {s:?}");
    }
}

/// The forecast and the simulated run coincide when the simulator's extra realism is
/// turned off: no watch delay, scheduling and start at once, ready exactly `startup`
/// after creation, termination at once (the forecast's pods go at once).
#[test]
fn the_forecast_and_the_simulated_run_agree() {
    for (surge, unavailable) in [("25%", "25%"), ("1", "0"), ("0", "3")] {
        let iors = |s: &str| match s.parse::<i32>() {
            Ok(n) => IntOrString::Int(n),
            Err(_) => IntOrString::Str(s.into()),
        };
        let mut d = dep(10);
        d.max_surge = Some(iors(surge));
        d.max_unavailable = Some(iors(unavailable));
        let mut s = Scenario::with_deployment(31, d);
        s.delays = Some(
            serde_json::from_value(
                json!({"watch": 0, "schedule": 0, "start": 0, "ready": 10000, "terminate": 0}),
            )
            .unwrap(),
        );
        let mut sim = Simulator::new(s).unwrap();
        assert!(advance_until(&mut sim, 120, complete));
        sim.advance(1000 - sim.now() % 1000);
        let t0 = sim.now();
        sim.apply(set_image("web:v2")).unwrap();
        // The forecast from the store right after the edit.
        let deployment = sim.deployment().unwrap().wire.as_ref().clone();
        let rss: Vec<serde_json::Value> = sim
            .state()
            .deployment
            .unwrap()
            .lanes
            .iter()
            .map(|l| serde_json::to_value(sim.owner(&l.key).unwrap()).unwrap())
            .collect();
        let mut options = ForecastOptions::at(sim.now_instant());
        options.startup_seconds = 10.0;
        let f = forecast(&deployment, &rss, &[], &options).unwrap();
        assert!(advance_until(&mut sim, 600, complete));
        let ForecastEnd::Complete { seconds } = f.end else {
            panic!("{f:?}")
        };
        // The same sequence of ReplicaSet sizes (new, old) at the same seconds …
        let forecast_steps: Vec<(u64, i32, i32)> = dedup(
            f.steps
                .iter()
                .map(|s| ((s.seconds * 1000.0) as u64, s.new_replicas, s.old_replicas)),
        );
        // (The forecast's steps start after its first sync: the state before it, no new
        // ReplicaSet yet, is left out of the run's.)
        let sim_steps: Vec<(u64, i32, i32)> = dedup(
            sim.deployment_history()
                .filter(|s| s.t >= t0 && s.lanes.iter().any(|l| l.new))
                .map(|s| {
                    let new = s.lanes.iter().filter(|l| l.new).map(|l| l.desired).sum();
                    let old = s.lanes.iter().filter(|l| !l.new).map(|l| l.desired).sum();
                    (s.t - t0, new, old)
                }),
        );
        assert_eq!(sim_steps, forecast_steps, "{surge}/{unavailable}");
        // … the same peak and floor, and the same end.
        let rollout: Vec<_> = sim.deployment_history().filter(|s| s.t >= t0).collect();
        assert_eq!(
            rollout.iter().map(|s| s.pods).max().unwrap() as i32,
            f.peak_pods,
            "{surge}/{unavailable}"
        );
        assert_eq!(
            rollout.iter().map(|s| s.available).min().unwrap() as i32,
            f.min_available,
            "{surge}/{unavailable}"
        );
        assert!(complete(&sim));
        let sim_seconds = (sim.deployment_history().last().unwrap().t - t0) as f64 / 1000.0;
        assert_eq!(sim_seconds, seconds, "{surge}/{unavailable}");
    }
}

/// Consecutive duplicates (of the sizes) removed, keeping the first time.
fn dedup(it: impl Iterator<Item = (u64, i32, i32)>) -> Vec<(u64, i32, i32)> {
    let mut out: Vec<(u64, i32, i32)> = Vec::new();
    for x in it {
        if out.last().is_none_or(|l| (l.1, l.2) != (x.1, x.2)) {
            out.push(x);
        }
    }
    out
}
