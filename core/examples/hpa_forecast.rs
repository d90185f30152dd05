//! Prints an autoscaling forecast: an HPA (cpu at 50 %, min 2, max 20, a scale-up policy of
//! 4 pods per 60 s) over a step load from 4 to 16 pods at target at 2 min and back to 3 at
//! 10 min, pods Ready 30 s after creation; the syncs where something happened, then the
//! totals. The scale target is a Deployment: `new` and `old` are its ReplicaSets'
//! replicas.
//!
//! `--rollout`: a new template rolls out at 3 min (maxSurge 25 %, maxUnavailable 0), its
//! pods Ready 60 s after creation, while the HPA scales up. `--two-metrics`: a second
//! metric (a Pods metric, `requests_per_second` at 10 per pod) reads 1.5 × the load and
//! drives the count.
//!
//! ```text
//! cargo run --release -p replicore --example hpa_forecast -- [--seed N] [--rollout] [--two-metrics] [--json]
//! ```

use std::process::ExitCode;

use replicore::hpa::{forecast, HpaForecastInput};
use serde_json::json;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(1);
    let mut metrics = vec![json!({"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": 50}}})];
    let mut loads = Vec::new();
    if args.iter().any(|a| a == "--two-metrics") {
        metrics.push(
            json!({"type": "Pods", "pods": {"metric": {"name": "requests_per_second"},
            "target": {"type": "AverageValue", "averageValue": "10"}}}),
        );
        loads = vec![json!({}), json!({"factor": 1.5})];
    }
    let rollout = args.iter().any(|a| a == "--rollout").then(|| {
        json!({"atSeconds": 180, "maxSurge": "25%", "maxUnavailable": 0,
               "pods": {"readySeconds": 60}})
    });
    let input = HpaForecastInput::from_value(json!({
        "hpa": {
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 20,
                "metrics": metrics,
                "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}}
            }
        },
        "load": {"kind": "points", "points": [
            {"atSeconds": 0, "load": 4}, {"atSeconds": 120, "load": 4}, {"atSeconds": 120, "load": 16},
            {"atSeconds": 600, "load": 16}, {"atSeconds": 600, "load": 3}]},
        "pods": {"readySeconds": 30},
        "metrics": loads,
        "rollout": rollout,
        "initialReplicas": 4,
        "durationSeconds": 1200,
        "seed": seed
    }));
    let result = input.and_then(|i| forecast(&i));
    let f = match result {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if args.iter().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&f).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    println!(
        "{:>6} {:>5} {:>5} {:>4} {:>4} {:>5} {:>5} {:>5} {:>7}  limited by / event",
        "t(s)", "load", "util", "new", "old", "pods", "ready", "want", "written"
    );
    let mut last: Option<(i32, i32, i32, i32, Option<String>)> = None;
    for s in &f.steps {
        let now = (
            s.new_replicas,
            s.old_replicas,
            s.pods,
            s.ready_pods,
            s.limited_by.clone(),
        );
        if s.rescaled_to.is_none() && last.as_ref() == Some(&now) {
            continue;
        }
        last = Some(now);
        let what = s
            .events
            .iter()
            .map(|e| e.message.as_str())
            .chain(s.limited_by.as_deref())
            .collect::<Vec<_>>()
            .join("; ");
        println!(
            "{:>6} {:>5.1} {:>4}% {:>4} {:>4} {:>5} {:>5} {:>5} {:>7}  {}",
            s.seconds,
            s.load,
            s.utilization.map_or("-".into(), |u| u.to_string()),
            s.new_replicas,
            s.old_replicas,
            s.pods,
            s.ready_pods,
            s.desired_replicas,
            s.rescaled_to.map_or(String::new(), |r| r.to_string()),
            what
        );
    }
    let t = &f.totals;
    println!(
        "syncs {}, rescales {} ({} up, {} down), direction changes {}",
        t.syncs, t.rescales, t.scale_ups, t.scale_downs, t.direction_changes
    );
    for s in &f.shortfalls {
        println!(
            "under capacity from {} s (load {:.1}): {}",
            s.start_seconds,
            s.load,
            s.seconds_to_capacity
                .map_or("not reached".into(), |d| format!("capacity after {d} s"))
        );
    }
    println!(
        "seconds under capacity {}, over-provisioned pod-seconds {:.0}, peak pods {}",
        t.seconds_under_capacity, t.over_provisioned_pod_seconds, t.peak_pods
    );
    if let Some(r) = t.rollout_seconds {
        println!("rollout done {r} s after it started");
    }
    ExitCode::SUCCESS
}
