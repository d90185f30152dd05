//! The WebAssembly binding of replicore: conversion and error mapping only.
//!
//! Every function takes plain JavaScript values (Kubernetes objects as
//! @kubernetes/client-node returns them, after the JS wrapper has turned `Date` fields
//! into RFC 3339 strings) or JSON text, calls the core, and returns plain objects
//! (`json_compatible`). Every failure becomes a JS `Error` with `code` and `path`
//! properties; nothing here can trap, so an instance stays usable after any error.

mod convert;

use convert::{from_js, from_json, to_js, JsResult};
use replicore::events::{on_owner_event, on_pod_event, OwnerEvent, PodEvent};
use replicore::explain::{explain_json, ExplainOptions};
use replicore::{
    complete as complete_sync, plan as plan_sync, CallResult, Config, CreatePlan, Expectations,
    ExpectationsChange, FeatureGates, Pod, ReplicaSet, SyncInput, SyncOutcome, Time,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

fn config_from(value: JsValue) -> Result<Config, JsValue> {
    let config: Config = if value.is_undefined() || value.is_null() {
        Config::default()
    } else {
        from_js(value, "config")?
    };
    config.validate().map_err(|e| convert::error(&e))?;
    Ok(config)
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// `plan(input, config?)`: what one sync will do (see `SyncPlan`).
#[wasm_bindgen]
pub fn plan(input: JsValue, config: JsValue) -> JsResult {
    let input: SyncInput = from_js(input, "input")?;
    let config = config_from(config)?;
    let plan = plan_sync(&input, &config).map_err(|e| convert::error(&e))?;
    to_js(&plan)
}

/// `planJson(text, config?)`: the same from JSON text.
#[wasm_bindgen(js_name = planJson)]
pub fn plan_json(text: &str, config: JsValue) -> JsResult {
    let input: SyncInput = from_json(text)?;
    let config = config_from(config)?;
    let plan = plan_sync(&input, &config).map_err(|e| convert::error(&e))?;
    to_js(&plan)
}

/// `manageAfterClaims(input, claims, config?)`: the manage step once the claims are done.
#[wasm_bindgen(js_name = manageAfterClaims)]
pub fn manage_after_claims(input: JsValue, claims: JsValue, config: JsValue) -> JsResult {
    let input: SyncInput = from_js(input, "input")?;
    let claims = from_js(claims, "claims")?;
    let config = config_from(config)?;
    let plan = plan_sync(&input, &config).map_err(|e| convert::error(&e))?;
    let manage = plan.manage_after(&claims).map_err(|e| convert::error(&e))?;
    to_js(&manage)
}

/// `complete(input, outcome, config?)`: what the host's calls mean. The plan is made
/// again from the same input (plans are deterministic), so no state is kept here.
#[wasm_bindgen]
pub fn complete(input: JsValue, outcome: JsValue, config: JsValue) -> JsResult {
    let input: SyncInput = from_js(input, "input")?;
    let outcome: SyncOutcome = from_js(outcome, "outcome")?;
    let config = config_from(config)?;
    let plan = plan_sync(&input, &config).map_err(|e| convert::error(&e))?;
    let done = complete_sync(&plan, &outcome).map_err(|e| convert::error(&e))?;
    to_js(&done)
}

/// `nextBatch(create, resultsSoFar)`: the size of the next slow-start batch, or
/// `undefined` when slow start is over.
#[wasm_bindgen(js_name = nextBatch)]
pub fn next_batch(create: JsValue, results: JsValue) -> Result<Option<usize>, JsValue> {
    let create: CreatePlan = from_js(create, "create")?;
    let results: Vec<CallResult> = from_js(results, "results")?;
    Ok(create.next_batch(&results))
}

/// Options of `rankPods`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RankOptions {
    now: Time,
    /// Pods whose active members count toward co-location; default: the pods themselves.
    #[serde(default)]
    related: Option<Vec<Pod>>,
    #[serde(default)]
    feature_gates: FeatureGates,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RankedPodOut<'a> {
    namespace: &'a str,
    name: &'a str,
    #[serde(flatten)]
    ranked: replicore::RankedPod,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_text: Option<&'static str>,
}

/// `rankPods(pods, {now, related?, featureGates?})`: the scale-down order, first to go
/// first, each pod with the rule that placed it before the next.
#[wasm_bindgen(js_name = rankPods)]
pub fn rank_pods(pods: JsValue, options: JsValue) -> JsResult {
    let pods: Vec<Pod> = from_js(pods, "pods")?;
    let options: RankOptions = from_js(options, "options")?;
    replicore::input::validate_pods(&pods, "pods").map_err(|e| convert::error(&e))?;
    let candidates: Vec<&Pod> = pods.iter().collect();
    let related: Vec<&Pod> = match &options.related {
        Some(r) => r.iter().collect(),
        None => candidates.clone(),
    };
    let ranked = replicore::rank::rank(&candidates, &related, options.now, &options.feature_gates);
    let out: Vec<RankedPodOut> = ranked
        .into_iter()
        .filter_map(|r| {
            let pod = candidates.get(r.index)?;
            Some(RankedPodOut {
                namespace: pod.namespace(),
                name: pod.name(),
                rule_text: r.rule.map(|rule| rule.describe()),
                ranked: r,
            })
        })
        .collect();
    to_js(&out)
}

/// `explain(list, options)`: what the CLI prints, as data. `list` is a v1 List (or an
/// array of objects/lists) as `kubectl get rs,pods -o json` prints it.
#[wasm_bindgen]
pub fn explain(list: JsValue, options: JsValue) -> JsResult {
    let options: ExplainOptions = from_js(options, "options")?;
    let value: serde_json::Value = from_js(list, "list")?;
    let text = serde_json::to_vec(&value)
        .map_err(|e| convert::message_error("MALFORMED", "list", &e.to_string()))?;
    let explanation = explain_json(&text, &options).map_err(|e| convert::error(&e))?;
    to_js(&explanation)
}

/// `explainJson(text, options)`: the same from JSON text.
#[wasm_bindgen(js_name = explainJson)]
pub fn explain_json_text(text: &str, options: JsValue) -> JsResult {
    let options: ExplainOptions = from_js(options, "options")?;
    let explanation = explain_json(text.as_bytes(), &options).map_err(|e| convert::error(&e))?;
    to_js(&explanation)
}

/// A watch event for `onPodEvent` / `onOwnerEvent`.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum WatchEvent<T> {
    Added { object: T },
    Updated { old: T, object: T },
    Deleted { object: T },
}

/// `onPodEvent({type, object, old?}, owners, config?)`: which owner keys to enqueue
/// (now or after a delay) and which expectation observations to make.
#[wasm_bindgen(js_name = onPodEvent)]
pub fn on_pod_event_js(event: JsValue, owners: JsValue, config: JsValue) -> JsResult {
    let event: WatchEvent<Pod> = from_js(event, "event")?;
    let owners: Vec<ReplicaSet> = from_js(owners, "owners")?;
    let config = config_from(config)?;
    let kind = &config.owner_kind;
    let decision = match &event {
        WatchEvent::Added { object } => on_pod_event(PodEvent::Added(object), &owners, kind),
        WatchEvent::Updated { old, object } => {
            on_pod_event(PodEvent::Updated { old, new: object }, &owners, kind)
        }
        WatchEvent::Deleted { object } => on_pod_event(PodEvent::Deleted(object), &owners, kind),
    };
    to_js(&decision)
}

/// `onOwnerEvent({type, object, old?})`: the owner-event rules.
#[wasm_bindgen(js_name = onOwnerEvent)]
pub fn on_owner_event_js(event: JsValue) -> JsResult {
    let event: WatchEvent<ReplicaSet> = from_js(event, "event")?;
    let decision = match &event {
        WatchEvent::Added { object } => on_owner_event(OwnerEvent::Added(object)),
        WatchEvent::Updated { old, object } => {
            on_owner_event(OwnerEvent::Updated { old, new: object })
        }
        WatchEvent::Deleted { object } => on_owner_event(OwnerEvent::Deleted(object)),
    };
    to_js(&decision)
}

/// `applyExpectations(current, changes, now)`: the expectations after the changes
/// (`null` = no record).
#[wasm_bindgen(js_name = applyExpectations)]
pub fn apply_expectations(current: JsValue, changes: JsValue, now: JsValue) -> JsResult {
    let mut e: Expectations = from_js(current, "current")?;
    let changes: Vec<ExpectationsChange> = from_js(changes, "changes")?;
    let now: Time = from_js(now, "now")?;
    for c in &changes {
        e = c.apply(e, now);
    }
    to_js(&e)
}

/// `expectationsSatisfied(current, now)`: R-40.
#[wasm_bindgen(js_name = expectationsSatisfied)]
pub fn expectations_satisfied(current: JsValue, now: JsValue) -> Result<bool, JsValue> {
    let e: Expectations = from_js(current, "current")?;
    let now: Time = from_js(now, "now")?;
    Ok(e.satisfied(now))
}
