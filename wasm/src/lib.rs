//! The WebAssembly binding of replicore: conversion and error mapping only.
//!
//! Every function takes its object arguments as JSON text (see `convert`) and returns
//! plain objects, except the large results (`plan`, `Store.planFor`, `rankPods`), which
//! come back as JSON text for the wrapper to parse (`convert::to_json_text`). Every failure becomes a JS `Error` with `code` and `path` properties;
//! no input can trap the module, so an instance stays usable after any error. The typed
//! API users call is the package's TypeScript wrapper (`node/src/api.ts`).

mod convert;
pub mod deployment;
pub mod event_correlation;
#[cfg(feature = "explain")]
pub mod facts;
#[cfg(target_arch = "wasm32")]
mod heap;
#[cfg(feature = "judge")]
pub mod judge;
pub mod quota;
#[cfg(feature = "explain")]
pub mod report;
#[cfg(feature = "sim")]
pub mod sim;
pub mod store;

#[cfg(feature = "sim")]
pub use sim::Simulator;

use std::collections::{BTreeMap, BTreeSet};

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: heap::GrowAhead = heap::GrowAhead;

use convert::{any, count, error, object, objects, optional, to_js, to_json_text, JsResult};
use replicore::events::{on_owner_event, on_pod_event, OwnerEvent, PodEvent};
#[cfg(feature = "explain")]
use replicore::explain::{explain_json, ExplainOptions};
use replicore::model::LabelSelector;
use replicore::outcome::{ClaimOutcome, LiveOwner};
use replicore::{
    complete as complete_sync, plan as plan_sync, CallResult, Config, CreatePlan, Expectations,
    ExpectationsChange, FeatureGates, Manage, Pod, ReplicaSet, Selector, SyncInput, SyncOutcome,
    SyncPlan, Time,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// Upper bound for `slowStart`'s count: far above any burst, low enough to return fast.
const MAX_SLOW_START: usize = 1_000_000;

pub(crate) fn config_from(value: &JsValue) -> Result<Config, JsValue> {
    let config: Config = optional(value, "config")?;
    config.validate().map_err(|e| error(&e))?;
    Ok(config)
}

fn plan_from(input: &JsValue, config: &JsValue) -> Result<SyncPlan, JsValue> {
    let input: SyncInput = object(input, "")?;
    let config = config_from(config)?;
    plan_sync(&input, &config).map_err(|e| error(&e))
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// `plan(inputJson, configJson?)`: what one sync will do, as JSON text. The plan is a
/// value: the calls below take it back (as JSON text) and need nothing else.
#[wasm_bindgen]
pub fn plan(input: JsValue, config: JsValue) -> JsResult {
    to_json_text(&plan_from(&input, &config)?)
}

/// `adoptionAllowed(planJson, liveOwnerJson)`: R-32, `null` when the planned adoptions
/// may go ahead, else why not.
#[wasm_bindgen(js_name = adoptionAllowed)]
pub fn adoption_allowed(plan: JsValue, live_owner: JsValue) -> Result<Option<String>, JsValue> {
    let plan: SyncPlan = object(&plan, "plan")?;
    let live: LiveOwner = any(&live_owner, "liveOwner")?;
    Ok(plan.adoption_allowed(&live).err())
}

/// `manageAfterClaims(planJson, claimsJson)`: the manage step once the claims are done.
#[wasm_bindgen(js_name = manageAfterClaims)]
pub fn manage_after_claims(plan: JsValue, claims: JsValue) -> JsResult {
    let plan: SyncPlan = object(&plan, "plan")?;
    let claims: ClaimOutcome = object(&claims, "claims")?;
    plan.manage_after(&claims)
        .map(|m| to_js(&m))
        .map_err(|e| error(&e))?
}

/// `complete(planJson, outcomeJson)`: what the host's calls mean. The plan carries
/// everything this needs: nothing is planned again and no state is kept here.
#[wasm_bindgen]
pub fn complete(plan: JsValue, outcome: JsValue) -> JsResult {
    let plan: SyncPlan = object(&plan, "plan")?;
    let outcome: SyncOutcome = object(&outcome, "outcome")?;
    complete_sync(&plan, &outcome)
        .map(|d| to_js(&d))
        // A mismatch is about the outcome document: say so in the path.
        .map_err(|e| match e {
            replicore::Error::Outcome { .. } => error(&e.under("outcome")),
            other => error(&other),
        })?
}

/// `completeInput(inputJson, outcomeJson, configJson?)`: `complete` for the plan of an
/// input made elsewhere (plans are deterministic).
#[wasm_bindgen(js_name = completeInput)]
pub fn complete_input(input: JsValue, outcome: JsValue, config: JsValue) -> JsResult {
    let plan = plan_from(&input, &config)?;
    let outcome: SyncOutcome = object(&outcome, "outcome")?;
    complete_sync(&plan, &outcome)
        .map(|d| to_js(&d))
        .map_err(|e| match e {
            replicore::Error::Outcome { .. } => error(&e.under("outcome")),
            other => error(&other),
        })?
}

/// `abandonedExpectations(manageJson, resultsJson)`: what to take off the expectations
/// when the host stops a manage step partway, given the results so far.
#[wasm_bindgen(js_name = abandonedExpectations)]
pub fn abandoned_expectations(manage: JsValue, results: JsValue) -> JsResult {
    let manage: Manage = object(&manage, "manage")?;
    let results: Vec<CallResult> = any(&results, "results")?;
    to_js(&manage.abandoned(&results))
}

/// `nextBatch(createJson, resultsJson)`: the size of the next slow-start batch, or
/// `undefined` when slow start is over.
#[wasm_bindgen(js_name = nextBatch)]
pub fn next_batch(create: JsValue, results: JsValue) -> Result<Option<usize>, JsValue> {
    let create: CreatePlan = object(&create, "create")?;
    let results: Vec<CallResult> = any(&results, "results")?;
    Ok(create.next_batch(&results))
}

/// `selectorMatches(selectorJson, labelsJson)`: R-10..R-12. A nil selector matches
/// nothing, `{}` everything; an invalid selector throws (code `INVALID_SELECTOR`).
#[wasm_bindgen(js_name = selectorMatches)]
pub fn selector_matches(selector: JsValue, labels: JsValue) -> Result<bool, JsValue> {
    let selector: Option<LabelSelector> = any(&selector, "selector")?;
    let labels: Option<BTreeMap<String, String>> = any(&labels, "labels")?;
    let compiled = Selector::compile(selector.as_ref()).map_err(|e| {
        convert::message_error("INVALID_SELECTOR", "selector", &format!("selector: {e}"))
    })?;
    Ok(compiled.matches(labels.as_ref()))
}

/// Input of `calculateStatus`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusInput {
    now: Time,
    #[serde(alias = "replicaSet", deserialize_with = "replicore::objects::object")]
    owner: ReplicaSet,
    #[serde(default, deserialize_with = "replicore::objects::objects")]
    active_pods: Vec<Pod>,
    #[serde(default)]
    terminating_pods: usize,
    #[serde(default)]
    manage_error: Option<String>,
}

/// `calculateStatus(inputJson, configJson?)`: upstream's calculateStatus over the given
/// active pods (R-80..R-82); `terminatingPods` is a count.
#[wasm_bindgen(js_name = calculateStatus)]
pub fn calculate_status(input: JsValue, config: JsValue) -> JsResult {
    let input: StatusInput = object(&input, "")?;
    let config = config_from(&config)?;
    let pods: Vec<&Pod> = input.active_pods.iter().collect();
    let status = replicore::status::calculate(
        &input.owner,
        &pods,
        input.terminating_pods,
        replicore::status::StatusContext {
            gates: &config.feature_gates,
            owner_kind: &config.owner_kind,
            manage_error: input.manage_error.as_deref(),
            now: input.now,
            wall_clock: input.now,
        },
    );
    to_js(&status)
}

/// `slowStart(count, initialBatchSize, failedCallsJson)`: how a slow start of `count`
/// calls goes when the calls at the given 0-based indices fail.
#[wasm_bindgen(js_name = slowStart)]
pub fn slow_start(count_: JsValue, initial_batch_size: JsValue, failed_calls: JsValue) -> JsResult {
    let n = count(&count_, "count", MAX_SLOW_START)?;
    let initial = count(&initial_batch_size, "initialBatchSize", MAX_SLOW_START)?;
    let failed: BTreeSet<usize> = any(&failed_calls, "failedCalls")?;
    let r = replicore::slowstart::run(n, initial, |i| failed.contains(&i));
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out {
        successes: usize,
        calls: usize,
        batches: Vec<usize>,
        first_failure: Option<usize>,
    }
    to_js(&Out {
        successes: r.successes,
        calls: r.calls,
        batches: r.batches,
        first_failure: r.first_failure,
    })
}

/// Options of `rankPods` and `upstreamLess`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RankOptions {
    now: Time,
    /// Pods whose active members count toward co-location; default: the pods themselves.
    #[serde(default, deserialize_with = "replicore::objects::opt_objects")]
    related: Option<Vec<Pod>>,
    #[serde(default)]
    feature_gates: FeatureGates,
}

/// `upstreamLess(aJson, rankA, bJson, rankB, optionsJson)`: upstream's comparator on two
/// pods with their co-location ranks, for cross-checking (the order is `rankPods`').
#[wasm_bindgen(js_name = upstreamLess)]
pub fn upstream_less(
    a: JsValue,
    rank_a: JsValue,
    b: JsValue,
    rank_b: JsValue,
    options: JsValue,
) -> Result<bool, JsValue> {
    let a: Pod = object(&a, "a")?;
    let b: Pod = object(&b, "b")?;
    let options: RankOptions = object(&options, "options")?;
    let rank_a = count(&rank_a, "rankA", u32::MAX as usize)?;
    let rank_b = count(&rank_b, "rankB", u32::MAX as usize)?;
    Ok(replicore::rank::upstream_less(
        (&a, rank_a),
        (&b, rank_b),
        options.now,
        &options.feature_gates,
    ))
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

/// `rankPods(podsJson, optionsJson)`: the scale-down order, first to go first, each pod
/// with the rule that placed it before the next (as JSON text).
#[wasm_bindgen(js_name = rankPods)]
pub fn rank_pods(pods: JsValue, options: JsValue) -> JsResult {
    let pods = objects::<Pod>(&pods, "pods")?;
    let options: RankOptions = object(&options, "options")?;
    replicore::input::validate_pods(&pods, "pods").map_err(|e| error(&e))?;
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
    to_json_text(&out)
}

/// `explain(listJson, optionsJson)`: what the CLI prints, as data. The text is a v1 List
/// (or an array of lists/objects) as `kubectl get rs,pods -o json` prints it. Only in
/// modules built with the `explain` feature (the CLI's and the playground's).
#[cfg(feature = "explain")]
#[wasm_bindgen]
pub fn explain(list: JsValue, options: JsValue) -> JsResult {
    let options: ExplainOptions = object(&options, "options")?;
    let bytes = convert::json_bytes(&list, "")?;
    let explanation = explain_json(&bytes, &options).map_err(|e| error(&e))?;
    to_js(&explanation)
}

/// The kind of a watch event.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum EventType {
    Added,
    Updated,
    Deleted,
}

/// A watch event for `onPodEvent` / `onOwnerEvent`: `{type, object, old?}` (`old` is
/// required for `updated`). A flat struct, not a tagged enum: a tagged enum would buffer
/// the objects and put a second deserializer of every model type in the binary.
#[derive(Deserialize)]
#[serde(bound = "T: serde::de::DeserializeOwned")]
pub(crate) struct WatchEvent<T> {
    #[serde(rename = "type")]
    pub(crate) type_: EventType,
    #[serde(deserialize_with = "replicore::objects::object")]
    pub(crate) object: T,
    #[serde(default, deserialize_with = "replicore::objects::opt_object")]
    pub(crate) old: Option<T>,
}

fn missing_old() -> JsValue {
    convert::message_error("MISSING", "event.old", "event.old: is required")
}

/// `onPodEvent(eventJson, ownersJson, configJson?)`: which owner keys to enqueue (now or
/// after a delay) and which expectation observations to make.
#[wasm_bindgen(js_name = onPodEvent)]
pub fn on_pod_event_js(event: JsValue, owners: JsValue, config: JsValue) -> JsResult {
    let event: WatchEvent<Pod> = object(&event, "event")?;
    let owners = objects::<ReplicaSet>(&owners, "owners")?;
    let config = config_from(&config)?;
    let kind = &config.owner_kind;
    let object = &event.object;
    let decision = match (&event.type_, &event.old) {
        (EventType::Added, _) => on_pod_event(PodEvent::Added(object), &owners, kind),
        (EventType::Updated, Some(old)) => {
            on_pod_event(PodEvent::Updated { old, new: object }, &owners, kind)
        }
        (EventType::Updated, None) => return Err(missing_old()),
        (EventType::Deleted, _) => on_pod_event(PodEvent::Deleted(object), &owners, kind),
    };
    to_js(&decision)
}

/// `onOwnerEvent(eventJson)`: the owner-event rules.
#[wasm_bindgen(js_name = onOwnerEvent)]
pub fn on_owner_event_js(event: JsValue) -> JsResult {
    let event: WatchEvent<ReplicaSet> = object(&event, "event")?;
    let object = &event.object;
    let decision = match (&event.type_, &event.old) {
        (EventType::Added, _) => on_owner_event(OwnerEvent::Added(object)),
        (EventType::Updated, Some(old)) => on_owner_event(OwnerEvent::Updated { old, new: object }),
        (EventType::Updated, None) => return Err(missing_old()),
        (EventType::Deleted, _) => on_owner_event(OwnerEvent::Deleted(object)),
    };
    to_js(&decision)
}

/// `applyExpectations(currentJson, changesJson, nowJson)`: the expectations after the
/// changes (`null` = no record).
#[wasm_bindgen(js_name = applyExpectations)]
pub fn apply_expectations(current: JsValue, changes: JsValue, now: JsValue) -> JsResult {
    let mut e: Expectations = any(&current, "current")?;
    let changes: Vec<ExpectationsChange> = any(&changes, "changes")?;
    let now: Time = any(&now, "now")?;
    for c in &changes {
        e = c.apply(e, now);
    }
    to_js(&e)
}

/// `expectationsSatisfied(currentJson, nowJson)`: R-40.
#[wasm_bindgen(js_name = expectationsSatisfied)]
pub fn expectations_satisfied(current: JsValue, now: JsValue) -> Result<bool, JsValue> {
    let e: Expectations = any(&current, "current")?;
    let now: Time = any(&now, "now")?;
    Ok(e.satisfied(now))
}

/// `podFields()`: the fields of a pod the engine reads (`replicore::pod_fields`), as a
/// tree: `true` for a value read whole, an object of fields, or a one-item array of the
/// item shape. The package writes only these when it turns pods into JSON.
#[wasm_bindgen(js_name = podFields)]
pub fn pod_fields() -> JsResult {
    to_js(&replicore::pod_fields::POD_FIELDS)
}
