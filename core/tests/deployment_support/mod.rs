//! Builders of Deployment-controller inputs for the rule tests.
#![allow(dead_code)]

use replicore::deployment::model::Rs;
use replicore::deployment::{ApiCall, ApiResult, Deployment, DeploymentSyncInput, SyncDone, Wire};
use serde_json::{json, Value};

pub const NOW: &str = "2026-11-24T01:00:00Z";
pub const DUID: &str = "d-uid";

pub fn template(image: &str) -> Value {
    json!({"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "web", "image": image}]}})
}

/// A RollingUpdate deployment `default/web` with `replicas`, surge and unavailable.
pub fn deployment(replicas: i32, surge: Value, unavailable: Value) -> Value {
    json!({
        "metadata": {"name": "web", "namespace": "default", "uid": DUID, "generation": 1,
                     "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": template("v2"),
                 "strategy": {"type": "RollingUpdate",
                              "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}},
                 "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 1}
    })
}

/// A ReplicaSet of `default/web` (owned by it) with a template of `image`.
pub fn rs(
    name: &str,
    image: &str,
    spec: i32,
    available: i32,
    revision: &str,
    created: &str,
) -> Value {
    let mut t = template(image);
    t["metadata"]["labels"]["pod-template-hash"] = json!(name.trim_start_matches("web-"));
    json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                     "generation": 1, "creationTimestamp": created,
                     "labels": {"app": "web", "pod-template-hash": name.trim_start_matches("web-")},
                     "annotations": {"deployment.kubernetes.io/revision": revision},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                          "uid": DUID, "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": spec, "selector": {"matchLabels": {"app": "web"}}, "template": t},
        "status": {"replicas": spec, "readyReplicas": available, "availableReplicas": available,
                   "observedGeneration": 1, "terminatingReplicas": 0}
    })
}

pub fn typed_deployment(v: Value) -> Wire<Deployment> {
    Wire::from_value(v).expect("a deployment")
}

pub fn typed_rs(v: Value) -> Rs {
    Wire::from_value(v).expect("a replica set")
}

pub fn input(d: Value, rss: Vec<Value>) -> DeploymentSyncInput {
    DeploymentSyncInput::from_value(json!({
        "now": NOW, "key": "default/web", "deployment": d, "replicaSets": rss, "pods": []
    }))
    .expect("an input")
}

/// Runs a sync answering every call ok; the calls made and the result.
pub fn run_ok(input: DeploymentSyncInput) -> (Vec<ApiCall>, SyncDone) {
    let mut calls = Vec::new();
    let done = replicore::deployment::run_sync(input, |c| {
        calls.push(c.clone());
        ApiResult::ok()
    })
    .expect("a sync");
    (calls, done)
}

/// The first call of `verb` on `resource` (no subresource).
pub fn first<'a>(calls: &'a [ApiCall], verb: &str, resource: &str) -> &'a ApiCall {
    calls
        .iter()
        .find(|c| c.verb() == verb && c.resource() == resource && c.subresource().is_empty())
        .expect("such a call")
}

/// `(verb name replicas)` of each call.
pub fn summary(calls: &[ApiCall]) -> Vec<String> {
    calls
        .iter()
        .map(|c| {
            let replicas = c
                .object()
                .and_then(|o| o["spec"]["replicas"].as_i64())
                .map(|r| format!(" {r}"))
                .unwrap_or_default();
            let sub = if c.subresource().is_empty() {
                String::new()
            } else {
                format!("/{}", c.subresource())
            };
            format!("{} {}{sub} {}{replicas}", c.verb(), c.resource(), c.name())
        })
        .collect()
}
