//! Prints the forecast of a rollout: a Deployment's step table to completion (or stall).
//!
//! ```text
//! cargo run --release -p replicore --example forecast -- [--replicas N] [--surge V] [--unavailable V]
//!     [--startup SECONDS] [--jitter SECONDS] [--fail-fraction F | --failing] [--recreate] [--seed N] [--json]
//! ```
//!
//! The rollout is of a deployment `web` from image v1 (its old ReplicaSet, every replica
//! available) to image v2 (no new ReplicaSet yet).

use std::process::ExitCode;

use replicore::deployment::forecast::{forecast, render_forecast, FailureModel, ForecastOptions};
use replicore::Time;
use serde_json::{json, Value};

const USAGE: &str =
    "usage: forecast [--replicas N] [--surge V] [--unavailable V] [--startup S] [--jitter S]
                [--fail-fraction F | --failing] [--recreate] [--seed N] [--deadline S] [--json]";

fn template(image: &str) -> Value {
    json!({"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "web", "image": image}]}})
}

fn rollout(r: i64, strategy: Value, deadline: i64) -> (Value, Vec<Value>) {
    let d = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": r, "selector": {"matchLabels": {"app": "web"}},
            "template": template("example/web:v2"), "strategy": strategy,
            "progressDeadlineSeconds": deadline},
        "status": {"observedGeneration": 1, "replicas": r, "updatedReplicas": r,
            "availableReplicas": r, "readyReplicas": r}
    });
    let mut t = template("example/web:v1");
    t["metadata"]["labels"]["pod-template-hash"] = json!("5d8f7c6b9");
    let old = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-5d8f7c6b9", "namespace": "default", "uid": "rs-old", "generation": 1,
            "creationTimestamp": "2026-11-20T00:00:00Z", "labels": t["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": r, "selector": {"matchLabels": t["metadata"]["labels"]}, "template": t},
        "status": {"replicas": r, "readyReplicas": r, "availableReplicas": r, "observedGeneration": 1}
    });
    (d, vec![old])
}

/// `25%` stays a string, `3` becomes a number.
fn int_or_percent(v: &str) -> Value {
    v.parse::<i64>().map_or_else(|_| json!(v), |n| json!(n))
}

fn run() -> Result<(), String> {
    let now = Time::parse("2026-11-24T01:00:00Z")
        .map_err(|e| e.to_string())?
        .ok_or("zero time")?;
    let mut options = ForecastOptions::at(now);
    let (mut replicas, mut surge, mut unavailable) = (10i64, json!("25%"), json!("25%"));
    let (mut recreate, mut json_out, mut deadline) = (false, false, 600i64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| v.parse::<f64>().map_err(|e| format!("{v}: {e}"));
        match flag.as_str() {
            "--replicas" => replicas = value()?.parse().map_err(|e| format!("--replicas: {e}"))?,
            "--surge" => surge = int_or_percent(&value()?),
            "--unavailable" => unavailable = int_or_percent(&value()?),
            "--startup" => options.startup_seconds = number(value()?)?,
            "--jitter" => options.startup_jitter_seconds = number(value()?)?,
            "--deadline" => deadline = value()?.parse().map_err(|e| format!("--deadline: {e}"))?,
            "--fail-fraction" => {
                options.failure = FailureModel::NeverReadyFraction {
                    fraction: number(value()?)?,
                }
            }
            "--failing" => options.failure = FailureModel::NewTemplateFails,
            "--recreate" => recreate = true,
            "--seed" => options.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--json" => json_out = true,
            _ => return Err(USAGE.into()),
        }
    }
    let strategy = if recreate {
        json!({"type": "Recreate"})
    } else {
        json!({"type": "RollingUpdate",
               "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})
    };
    let (d, rss) = rollout(replicas, strategy, deadline);
    let f = forecast(&d, &rss, &[], &options).map_err(|e| e.to_string())?;
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(&f).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", render_forecast(&f));
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
