//! Deployments in the simulator, driven by the engine's Deployment sync (issue 17 point 3).

use replicore_sim::{Edit, Scenario, ScenarioDeployment, Simulator};
use serde_json::json;

fn dep(replicas: i32) -> ScenarioDeployment {
    ScenarioDeployment::new(replicas)
}

fn scenario(seed: u64, d: ScenarioDeployment) -> Scenario {
    Scenario::with_deployment(seed, d)
}

fn lanes(sim: &Simulator) -> Vec<(Option<i64>, i32, usize, usize)> {
    sim.state()
        .deployment
        .unwrap()
        .lanes
        .iter()
        .map(|l| (l.revision, l.desired, l.counts.active, l.counts.available))
        .collect()
}

#[test]
fn smoke() {
    let mut sim = Simulator::new(scenario(1, dep(10))).unwrap();
    sim.advance(60_000);
    let st = sim.state();
    let d = st.deployment.unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&d).unwrap());
    sim.apply(Edit::SetImage {
        image: "web:v2".into(),
        fail: None,
    })
    .unwrap();
    sim.advance(120_000);
    eprintln!("{:?}", lanes(&sim));
    for s in sim.deployment_syncs().take(12) {
        eprintln!(
            "{} {} | {:?} {:?} {:?}",
            s.rule,
            s.why,
            s.calls
                .iter()
                .map(|c| (
                    c.verb,
                    c.resource,
                    c.subresource,
                    c.name.clone(),
                    c.replicas,
                    c.ok,
                    c.error.clone()
                ))
                .collect::<Vec<_>>(),
            s.error,
            s.invalid
        );
    }
    let _ = json!({});
}

#[test]
fn debug_status() {
    use replicore::deployment::{run_sync, ApiResult, DeploymentSyncInput};
    let mut sim = Simulator::new(scenario(1, dep(2))).unwrap();
    sim.advance(5_000);
    let d = sim.deployment().unwrap().clone();
    eprintln!("STORED {}", serde_json::to_string(&*d.wire).unwrap());
    let rss: Vec<_> = sim
        .state()
        .owners
        .iter()
        .map(|o| sim.owner(&o.key).unwrap().clone())
        .collect();
    let input = DeploymentSyncInput {
        now: sim.now_instant(),
        feature_gates: Default::default(),
        key: "default/web".into(),
        deployment: Some(d),
        replica_sets: rss
            .iter()
            .map(|r| {
                replicore::deployment::Rs::from_value(serde_json::to_value(r).unwrap()).unwrap()
            })
            .collect(),
        pods: vec![],
    };
    run_sync(input, |c| {
        eprintln!("CALL {}", serde_json::to_string(c).unwrap());
        ApiResult::ok()
    })
    .unwrap();
}
