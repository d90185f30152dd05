//! The Deployment controller (`replicore::deployment`) for JS: the sync's step machine
//! over its plain state (`deploymentSyncStart`, `deploymentSyncNext`,
//! `deploymentSyncReport`), the same machine kept in wasm memory for hosts that loop fast
//! (`DeploymentSyncRun`), and the event handlers (D-110..D-115). Conversion and error
//! mapping only.
//!
//! Inputs are JSON text (see `convert`); the state, which carries every object of the
//! input, goes out as JSON text; steps, keys and queue actions as plain objects. The
//! TypeScript types are generated from the Rust types (`node/src/generated/`, ts-rs).

use replicore::deployment::handlers::{
    after_sync, on_pod_deleted, on_replica_set_added, on_replica_set_deleted,
    on_replica_set_updated,
};
use replicore::deployment::{ApiResult, Deployment, DeploymentSync, DeploymentSyncInput, SyncDone};
use replicore::{DeploymentKinds, Pod, ReplicaSet};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::convert::{
    count, error, json_bytes, object, objects, optional, to_js, to_json_text, JsResult,
};
use crate::{EventType, WatchEvent};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { ApiResult, DeploymentSync, DeploymentSyncInput, QueueAction, Step, SyncDone } from "../generated/index.js";
/** JSON text of a `T`, as the engine writes it (the package's wrapper parses it). */
export type JsonText<T> = string & { readonly __jsonOf?: T };
/** JSON text of a `T`, or its UTF-8 bytes, as the package's wrapper writes it. */
export type JsonInput<T> = (string | Uint8Array) & { readonly __jsonOf?: T };
"#;

/// The sync input from JSON text, validated (`DeploymentSync::new`); errors under `root`.
fn start(input: &JsValue, root: &str) -> Result<DeploymentSync, JsValue> {
    let bytes = json_bytes(input, root)?;
    DeploymentSyncInput::from_json(&bytes)
        .and_then(DeploymentSync::new)
        .map_err(|e| error(&e.under(root)))
}

/// The wire form of a state: the input read with its own paths, then the results.
#[derive(Deserialize)]
struct StateWire {
    input: serde_json::Value,
    #[serde(default)]
    results: Vec<ApiResult>,
}

/// A state (`{input, results}`) from JSON text, its input validated as at the start.
fn state_from(state: &JsValue) -> Result<DeploymentSync, JsValue> {
    let wire: StateWire = object(state, "sync")?;
    let mut sync = DeploymentSyncInput::from_value(wire.input)
        .and_then(DeploymentSync::new)
        .map_err(|e| error(&e.under("sync.input")))?;
    sync.results = wire.results;
    Ok(sync)
}

/// The next step of `sync`; a mismatch of results and calls names `sync.results`.
fn next_step(sync: &DeploymentSync) -> JsResult {
    let step = sync.next().map_err(|e| error(&e.under("sync")))?;
    to_js(&step)
}

/// `deploymentSyncStart(inputJson)`: the machine's state at its first step, as JSON text.
#[wasm_bindgen(
    js_name = deploymentSyncStart,
    unchecked_return_type = "JsonText<DeploymentSync>"
)]
pub fn deployment_sync_start(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<DeploymentSyncInput>")] input: JsValue,
) -> JsResult {
    to_json_text(&start(&input, "")?)
}

/// `deploymentSyncNext(syncJson)`: the next step (a call to make, or done).
#[wasm_bindgen(js_name = deploymentSyncNext, unchecked_return_type = "Step")]
pub fn deployment_sync_next(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<DeploymentSync>")] sync: JsValue,
) -> JsResult {
    next_step(&state_from(&sync)?)
}

/// `deploymentSyncReport(syncJson, resultJson)`: the state with the result of the call
/// the last step named, as JSON text.
#[wasm_bindgen(
    js_name = deploymentSyncReport,
    unchecked_return_type = "JsonText<DeploymentSync>"
)]
pub fn deployment_sync_report(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<DeploymentSync>")] sync: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ApiResult>")] result: JsValue,
) -> JsResult {
    let mut sync = state_from(&sync)?;
    let result: ApiResult = object(&result, "result")?;
    sync.report(result).map_err(|e| error(&e))?;
    to_json_text(&sync)
}

/// One sync's machine in wasm memory: the input is parsed once, each step replays the
/// sync over the results reported so far. A refused argument changes nothing.
#[wasm_bindgen(js_name = DeploymentSyncRun)]
pub struct JsDeploymentSyncRun {
    sync: DeploymentSync,
}

#[wasm_bindgen(js_class = DeploymentSyncRun)]
impl JsDeploymentSyncRun {
    /// `new DeploymentSyncRun(inputJson)`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<DeploymentSyncInput>")] input: JsValue,
    ) -> Result<JsDeploymentSyncRun, JsValue> {
        Ok(JsDeploymentSyncRun {
            sync: start(&input, "")?,
        })
    }

    /// `DeploymentSyncRun.fromState(syncJson)`: a machine at a state `state()` gave.
    #[wasm_bindgen(js_name = fromState)]
    pub fn from_state(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<DeploymentSync>")] sync: JsValue,
    ) -> Result<JsDeploymentSyncRun, JsValue> {
        Ok(JsDeploymentSyncRun {
            sync: state_from(&sync)?,
        })
    }

    /// `next()`: the next step (a call to make, or done).
    #[wasm_bindgen(unchecked_return_type = "Step")]
    pub fn next(&self) -> JsResult {
        next_step(&self.sync)
    }

    /// `report(resultJson)`: the result of the call the last step named.
    pub fn report(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<ApiResult>")] result: JsValue,
    ) -> Result<(), JsValue> {
        let result: ApiResult = object(&result, "result")?;
        self.sync.report(result).map_err(|e| error(&e))
    }

    /// `state()`: the plain state (`{input, results}`), as JSON text.
    #[wasm_bindgen(unchecked_return_type = "JsonText<DeploymentSync>")]
    pub fn state(&self) -> JsResult {
        to_json_text(&self.sync)
    }
}

/// The Deployment controller's kinds (JSON text; absent: apps/v1's), checked.
fn kinds_of(kinds: &JsValue) -> Result<DeploymentKinds, JsValue> {
    let kinds: DeploymentKinds = optional(kinds, "kinds")?;
    kinds.validate().map_err(|e| error(&e))?;
    Ok(kinds)
}

/// `deploymentKeysForReplicaSetEvent(eventJson, deploymentsJson, kindsJson?)`:
/// D-111..D-113, the deployment keys (`namespace/name`) a ReplicaSet watch event enqueues.
#[wasm_bindgen(
    js_name = deploymentKeysForReplicaSetEvent,
    unchecked_return_type = "string[]"
)]
pub fn deployment_keys_for_replica_set_event(
    event: JsValue,
    deployments: JsValue,
    kinds: JsValue,
) -> JsResult {
    let event: WatchEvent<ReplicaSet> = object(&event, "event")?;
    let deployments = objects::<Deployment>(&deployments, "deployments")?;
    let kinds = kinds_of(&kinds)?;
    let rs = &event.object;
    let keys = match (&event.type_, &event.old) {
        (EventType::Added, _) => on_replica_set_added(rs, &deployments, &kinds),
        (EventType::Updated, Some(old)) => on_replica_set_updated(old, rs, &deployments, &kinds),
        (EventType::Updated, None) => return Err(crate::missing_old()),
        (EventType::Deleted, _) => on_replica_set_deleted(rs, &deployments, &kinds),
    };
    to_js(&keys)
}

/// `deploymentKeysForPodDeleted(podJson, replicaSetsJson, deploymentsJson, podsJson, kindsJson?)`:
/// D-114, the Recreate deployment a deleted pod enqueues once none of its ReplicaSets
/// has a pod left (`pods`: the pods the cache still holds).
#[wasm_bindgen(js_name = deploymentKeysForPodDeleted, unchecked_return_type = "string[]")]
pub fn deployment_keys_for_pod_deleted(
    pod: JsValue,
    replica_sets: JsValue,
    deployments: JsValue,
    pods: JsValue,
    kinds: JsValue,
) -> JsResult {
    let pod: Pod = object(&pod, "pod")?;
    let replica_sets = objects::<ReplicaSet>(&replica_sets, "replicaSets")?;
    let deployments = objects::<Deployment>(&deployments, "deployments")?;
    let pods = objects::<Pod>(&pods, "pods")?;
    let kinds = kinds_of(&kinds)?;
    to_js(&on_pod_deleted(
        &pod,
        &replica_sets,
        &deployments,
        &pods,
        &kinds,
    ))
}

/// `deploymentObjectKeys()`: the annotation keys and the label the Deployment controller
/// writes on its objects (for a host that shows or builds such objects: the playground's
/// forecast snapshot), so no host restates them.
#[wasm_bindgen(
    js_name = deploymentObjectKeys,
    unchecked_return_type = "{ revisionAnnotation: string; desiredReplicasAnnotation: string; maxReplicasAnnotation: string; podTemplateHashLabel: string }"
)]
pub fn deployment_object_keys() -> JsResult {
    use replicore::deployment::model::{
        DESIRED_REPLICAS_ANNOTATION, HASH_LABEL, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION,
    };
    to_js(&serde_json::json!({
        "revisionAnnotation": REVISION_ANNOTATION,
        "desiredReplicasAnnotation": DESIRED_REPLICAS_ANNOTATION,
        "maxReplicasAnnotation": MAX_REPLICAS_ANNOTATION,
        "podTemplateHashLabel": HASH_LABEL,
    }))
}

/// `deploymentReadsPods(deploymentJson)`: do the sync and the pod-deletion handler of
/// this deployment read pods? Only a Recreate one's do (D-61, D-114); for any other a
/// host may pass no pods and the decisions are the same.
#[wasm_bindgen(js_name = deploymentReadsPods)]
pub fn deployment_reads_pods(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject>")] deployment: JsValue,
) -> Result<bool, JsValue> {
    let d: Deployment = object(&deployment, "deployment")?;
    Ok(replicore::deployment::recreate::is_recreate(&d))
}

/// `deploymentQueueAction(doneJson, requeues)`: D-115, what the work queue does with the
/// key after a sync that ended with `done`, given how often the key was requeued.
#[wasm_bindgen(js_name = deploymentQueueAction, unchecked_return_type = "QueueAction")]
pub fn deployment_queue_action(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<SyncDone>")] done: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] requeues: JsValue,
) -> JsResult {
    let done: SyncDone = object(&done, "done")?;
    let requeues = count(&requeues, "requeues", u32::MAX as usize)?;
    let requeues = u32::try_from(requeues).unwrap_or(u32::MAX);
    to_js(&after_sync(&done, requeues))
}
