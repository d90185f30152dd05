//! The WebAssembly binding of replicore: conversion and error mapping only.
//!
//! Every function takes its object arguments as JSON text (see `convert`) and returns
//! plain objects (JSON text parsed by `JSON.parse`), except the large results (`plan`,
//! `Store.planFor`, `rankPods`), which come back as JSON text for the wrapper to parse
//! (`convert::to_json_text`). Every failure becomes a JS `Error` with `code` and `path` properties;
//! no input can trap the module, so an instance stays usable after any error. The typed
//! API users call is the package's TypeScript wrapper (`node/src/api.ts`).
//!
//! The engine surface is every module declared here without a `cfg`: each build of the
//! crate carries it. The features add to it (see Cargo.toml): `full` (`explain` and `sim`)
//! is the module the playground and the CLI load, `judge` the conformance judge's; a new
//! controller's calls, declared without a `cfg`, land in every module.

mod convert;
pub mod deployment;
pub mod event_correlation;
#[cfg(feature = "explain")]
pub mod facts;
#[cfg(target_arch = "wasm32")]
mod heap;
pub mod hpa;
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
#[cfg(feature = "explain")]
use replicore::explain::{explain_json, ExplainOptions};
use replicore::model::LabelSelector;
use replicore::outcome::{ClaimOutcome, LiveOwner};
use replicore::replicaset::handlers::{on_owner_event, on_pod_event, OwnerEvent, PodEvent};
use replicore::replicaset::rank::{NamedRankedPod, RankOptions};
use replicore::replicaset::status::StatusInput;
use replicore::{
    complete as complete_sync, plan as plan_sync, CallResult, Config, CreatePlan, Expectations,
    ExpectationsChange, Manage, Pod, ReplicaSet, Selector, SyncInput, SyncOutcome, SyncPlan, Time,
};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

// The TypeScript types of this module's exports and of `store`, `event_correlation` and
// `quota`'s: generated from the Rust types by ts-rs (`node/src/generated/`). `JsonText`
// and `JsonInput` are declared in `deployment`'s section.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { ClaimOutcome, Completion, Config, Correlated, Correlation, EventCorrelatorSize, EventCorrelatorState, EventDecision, EventToRecord, Expectations, ExpectationsChange, CreatePlan, CallResult, KubeEvent, KubeObject, QueueLimits, LabelSelector, LiveOwner, Manage, RankedPod, RankOptions, RecordedEvent, ReplicaSetStatus, SlowStartResult, StatusInput, StorePlanOptions, StoreSize, SyncInput, SyncOutcome, SyncPlan, Time } from "../generated/index.js";
import type { FieldTree } from "../pod-json.js";
import type { DefaultConfig, StoreEvent, WatchEvent } from "../types.js";
"#;

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

/// `generatedNameAlphabet()`: the characters of generated names (`utilrand.String`), for
/// hosts that generate names (the dev server's `generateName`), so none restates them.
#[wasm_bindgen(js_name = generatedNameAlphabet)]
pub fn generated_name_alphabet() -> String {
    String::from_utf8_lossy(replicore::rng::NAME_ALPHABET).into_owned()
}

/// `generatedNameSuffixLength()`: how many characters of the alphabet a `generateName`
/// prefix gets (upstream's name generator), for the same hosts.
#[wasm_bindgen(js_name = generatedNameSuffixLength)]
pub fn generated_name_suffix_length() -> u32 {
    u32::try_from(replicore::rng::NAME_SUFFIX_LEN).unwrap_or(u32::MAX)
}

/// `controllerQueueLimits()`: client-go's default controller rate limiter (backoff base
/// and cap, bucket qps and burst), for hosts that run a work queue.
#[wasm_bindgen(js_name = controllerQueueLimits, unchecked_return_type = "QueueLimits")]
pub fn controller_queue_limits() -> convert::JsResult {
    convert::to_js(&replicore::workqueue::CONTROLLER_QUEUE_LIMITS)
}

/// `maxQuotedChars()`: at most this many characters of a value are quoted in a message
/// (the engine's cap), for the package's own messages about values that never reach the
/// engine (a getter that throws, a value without JSON), so none restates the number.
#[wasm_bindgen(js_name = maxQuotedChars)]
pub fn max_quoted_chars() -> u32 {
    u32::try_from(replicore::error::MAX_QUOTED_CHARS).unwrap_or(u32::MAX)
}

/// `defaultConfig()`: the engine configuration a host gets when it sets nothing
/// (kube-controller-manager's defaults: `burstReplicas`, the owner kind, the feature gates),
/// for hosts that show or document them, so none restates them.
#[wasm_bindgen(js_name = defaultConfig, unchecked_return_type = "DefaultConfig")]
pub fn default_config() -> convert::JsResult {
    convert::to_js(&Config::default())
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// `plan(inputJson, configJson?)`: what one sync will do, as JSON text. The plan is a
/// value: the calls below take it back (as JSON text) and need nothing else.
#[wasm_bindgen(unchecked_return_type = "JsonText<SyncPlan>")]
pub fn plan(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncInput>")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
) -> JsResult {
    to_json_text(&plan_from(&input, &config)?)
}

/// `adoptionAllowed(planJson, liveOwnerJson)`: R-32, `null` when the planned adoptions
/// may go ahead, else why not.
#[wasm_bindgen(js_name = adoptionAllowed)]
pub fn adoption_allowed(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncPlan>")] plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<LiveOwner>")] live_owner: JsValue,
) -> Result<Option<String>, JsValue> {
    let plan: SyncPlan = object(&plan, "plan")?;
    let live: LiveOwner = any(&live_owner, "liveOwner")?;
    Ok(plan.adoption_allowed(&live).err())
}

/// `manageAfterClaims(planJson, claimsJson)`: the manage step once the claims are done.
#[wasm_bindgen(js_name = manageAfterClaims, unchecked_return_type = "Manage")]
pub fn manage_after_claims(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncPlan>")] plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ClaimOutcome>")] claims: JsValue,
) -> JsResult {
    let plan: SyncPlan = object(&plan, "plan")?;
    let claims: ClaimOutcome = object(&claims, "claims")?;
    plan.manage_after(&claims)
        .map(|m| to_js(&m))
        .map_err(|e| error(&e))?
}

/// `complete(planJson, outcomeJson)`: what the host's calls mean. The plan carries
/// everything this needs: nothing is planned again and no state is kept here.
#[wasm_bindgen(unchecked_return_type = "Completion")]
pub fn complete(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncPlan>")] plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncOutcome>")] outcome: JsValue,
) -> JsResult {
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
#[wasm_bindgen(js_name = completeInput, unchecked_return_type = "Completion")]
pub fn complete_input(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncInput>")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncOutcome>")] outcome: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
) -> JsResult {
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
/// when the host stops a manage step partway (R-54, R-59), given the results so far.
#[wasm_bindgen(
    js_name = abandonedExpectations,
    unchecked_return_type = "ExpectationsChange[]"
)]
pub fn abandoned_expectations(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Manage>")] manage: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<CallResult[]>")] results: JsValue,
) -> JsResult {
    let manage: Manage = object(&manage, "manage")?;
    let results: Vec<CallResult> = any(&results, "results")?;
    to_js(&manage.abandoned(&results))
}

/// `nextBatch(createJson, resultsJson)`: the size of the next slow-start batch, or
/// `undefined` when slow start is over (R-52, R-53).
#[wasm_bindgen(js_name = nextBatch)]
pub fn next_batch(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<CreatePlan>")] create: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<CallResult[]>")] results: JsValue,
) -> Result<Option<usize>, JsValue> {
    let create: CreatePlan = object(&create, "create")?;
    let results: Vec<CallResult> = any(&results, "results")?;
    Ok(create.next_batch(&results))
}

/// `createEvent(resultJson)`: the event a create call records on its owner when it
/// returns, or `undefined` (R-61, R-53).
#[wasm_bindgen(js_name = createEvent, unchecked_return_type = "KubeEvent | undefined")]
pub fn create_event(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<CallResult>")] result: JsValue,
) -> JsResult {
    let result: CallResult = object(&result, "result")?;
    event_or_undefined(replicore::replicaset::create_event(&result))
}

/// `deleteEvent(pod, resultJson)`: the event the delete of pod `pod` (a victim's name)
/// records on its owner when it returns, or `undefined` (R-61).
#[wasm_bindgen(js_name = deleteEvent, unchecked_return_type = "KubeEvent | undefined")]
pub fn delete_event(
    #[wasm_bindgen(unchecked_param_type = "string")] pod: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<CallResult>")] result: JsValue,
) -> JsResult {
    let pod = convert::string(&pod, "pod")?;
    let result: CallResult = object(&result, "result")?;
    event_or_undefined(replicore::replicaset::delete_event(&pod, &result))
}

fn event_or_undefined(event: Option<replicore::replicaset::Event>) -> JsResult {
    event.map_or(Ok(JsValue::UNDEFINED), |e| to_js(&e))
}

/// `selectorMatches(selectorJson, labelsJson)`: R-10..R-12. A nil selector matches
/// nothing, `{}` everything; an invalid selector throws (code `INVALID_SELECTOR`).
#[wasm_bindgen(js_name = selectorMatches)]
pub fn selector_matches(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<LabelSelector | null>")] selector: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Record<string, string> | null>")]
    labels: JsValue,
) -> Result<bool, JsValue> {
    let selector: Option<LabelSelector> = any(&selector, "selector")?;
    let labels: Option<BTreeMap<String, String>> = any(&labels, "labels")?;
    let compiled = Selector::compile(selector.as_ref()).map_err(|e| {
        convert::message_error("INVALID_SELECTOR", "selector", &format!("selector: {e}"))
    })?;
    Ok(compiled.matches(labels.as_ref()))
}

/// `calculateStatus(inputJson, configJson?)`: upstream's calculateStatus over the given
/// active pods (R-80..R-82); `terminatingPods` is a count.
#[wasm_bindgen(js_name = calculateStatus, unchecked_return_type = "ReplicaSetStatus")]
pub fn calculate_status(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<StatusInput>")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
) -> JsResult {
    let input: StatusInput = object(&input, "")?;
    let config = config_from(&config)?;
    to_js(&input.calculate(&config))
}

/// `slowStart(count, initialBatchSize, failedCallsJson)`: how a slow start of `count`
/// calls goes when the calls at the given 0-based indices fail (R-52).
#[wasm_bindgen(js_name = slowStart, unchecked_return_type = "SlowStartResult")]
pub fn slow_start(
    #[wasm_bindgen(unchecked_param_type = "number")] count_: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] initial_batch_size: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<number[]>")] failed_calls: JsValue,
) -> JsResult {
    let n = count(&count_, "count", MAX_SLOW_START)?;
    let initial = count(&initial_batch_size, "initialBatchSize", MAX_SLOW_START)?;
    let failed: BTreeSet<usize> = any(&failed_calls, "failedCalls")?;
    to_js(&replicore::replicaset::slowstart::run(n, initial, |i| {
        failed.contains(&i)
    }))
}

/// `upstreamLess(aJson, rankA, bJson, rankB, optionsJson)`: upstream's comparator on two
/// pods with their co-location ranks, for cross-checking (the order is `rankPods`').
#[wasm_bindgen(js_name = upstreamLess)]
pub fn upstream_less(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject>")] a: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] rank_a: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject>")] b: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] rank_b: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<RankOptions>")] options: JsValue,
) -> Result<bool, JsValue> {
    let a: Pod = object(&a, "a")?;
    let b: Pod = object(&b, "b")?;
    let options: RankOptions = object(&options, "options")?;
    let rank_a = count(&rank_a, "rankA", u32::MAX as usize)?;
    let rank_b = count(&rank_b, "rankB", u32::MAX as usize)?;
    Ok(replicore::replicaset::rank::upstream_less(
        (&a, rank_a),
        (&b, rank_b),
        options.now,
        &options.feature_gates,
    ))
}

/// `rankPods(podsJson, optionsJson)`: the scale-down order, first to go first, each pod
/// with the rule that placed it before the next (as JSON text).
#[wasm_bindgen(js_name = rankPods, unchecked_return_type = "JsonText<RankedPod[]>")]
pub fn rank_pods(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject[]>")] pods: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<RankOptions>")] options: JsValue,
) -> JsResult {
    let pods = objects::<Pod>(&pods, "pods")?;
    let options: RankOptions = object(&options, "options")?;
    replicore::input::validate_pods(&pods, "pods").map_err(|e| error(&e))?;
    let candidates: Vec<&Pod> = pods.iter().collect();
    let related: Vec<&Pod> = match &options.related {
        Some(r) => r.iter().collect(),
        None => candidates.clone(),
    };
    let ranked = replicore::replicaset::rank::rank(
        &candidates,
        &related,
        options.now,
        &options.feature_gates,
    );
    let out: Vec<NamedRankedPod> = ranked
        .into_iter()
        .filter_map(|r| Some(NamedRankedPod::new(candidates.get(r.index)?, r)))
        .collect();
    to_json_text(&out)
}

/// `explain(listJson, optionsJson)`: what the CLI prints, as data. The text is a v1 List
/// (or an array of lists/objects) as `kubectl get rs,pods -o json` prints it. Only in
/// modules built with the `explain` feature (the CLI's and the playground's).
#[cfg(feature = "explain")]
#[wasm_bindgen(unchecked_return_type = "Explanation")]
pub fn explain(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<unknown>")] list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ExplainOptions>")] options: JsValue,
) -> JsResult {
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
#[wasm_bindgen(js_name = onPodEvent, unchecked_return_type = "EventDecision")]
pub fn on_pod_event_js(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<WatchEvent<KubeObject>>")] event: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject[]>")] owners: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
) -> JsResult {
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
#[wasm_bindgen(js_name = onOwnerEvent, unchecked_return_type = "EventDecision")]
pub fn on_owner_event_js(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<WatchEvent<KubeObject>>")] event: JsValue,
) -> JsResult {
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
#[wasm_bindgen(js_name = applyExpectations, unchecked_return_type = "Expectations")]
pub fn apply_expectations(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Expectations>")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ExpectationsChange[]>")] changes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
) -> JsResult {
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
pub fn expectations_satisfied(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Expectations>")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
) -> Result<bool, JsValue> {
    let e: Expectations = any(&current, "current")?;
    let now: Time = any(&now, "now")?;
    Ok(e.satisfied(now))
}

/// `podFields()`: the fields of a pod the engine reads (`replicore::pod_fields`), as a
/// tree: `true` for a value read whole, an object of fields, or a one-item array of the
/// item shape. The package writes only these when it turns pods into JSON.
#[wasm_bindgen(js_name = podFields, unchecked_return_type = "FieldTree")]
pub fn pod_fields() -> JsResult {
    to_js(&replicore::pod_fields::POD_FIELDS)
}
