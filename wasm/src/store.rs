//! The engine-side store (`replicore::Store`) as a JS class: owners and pods kept in wasm
//! memory, so a sync sends no pod across. Conversion and error mapping only.
//!
//! A plan made by `planFor` is a value: it carries what `complete` needs, so the store
//! keeps nothing for it and may change while the plan's calls are in flight. The plan's
//! later steps are the module's free functions (`adoptionAllowed`, `manageAfterClaims`,
//! `complete`).

use replicore::{OwnerChange, Pod, PodChange, ReplicaSet, Store, SyncContext};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::convert::{any, error, object, string, to_js, to_json_text, JsResult};
use crate::{config_from, EventType};

/// `{type, object}` (an `old` field, if present, is ignored: the store has it).
#[derive(Deserialize)]
#[serde(bound = "T: serde::de::DeserializeOwned")]
struct Change<T> {
    #[serde(rename = "type")]
    type_: EventType,
    #[serde(deserialize_with = "replicore::objects::object")]
    object: T,
}

/// Owners and pods in wasm memory, indexed by namespace; plans without re-sending pods.
#[wasm_bindgen(js_name = Store)]
pub struct JsStore {
    store: Store,
}

#[wasm_bindgen(js_class = Store)]
impl JsStore {
    /// `new Store(configJson?)`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
    ) -> Result<JsStore, JsValue> {
        let config = config_from(&config)?;
        Ok(JsStore {
            store: Store::new(config).map_err(|e| error(&e))?,
        })
    }

    /// `upsertOwner(ownerJson)`: adds or replaces an owner; a bad one changes nothing.
    #[wasm_bindgen(js_name = upsertOwner)]
    pub fn upsert_owner(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject>")] owner: JsValue,
    ) -> Result<(), JsValue> {
        let owner: ReplicaSet = object(&owner, "owner")?;
        self.store.upsert_owner(owner).map_err(|e| error(&e))
    }

    /// `deleteOwner(namespace, name)`: whether it was there.
    #[wasm_bindgen(js_name = deleteOwner)]
    pub fn delete_owner(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] namespace: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<bool, JsValue> {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        Ok(self.store.delete_owner(&namespace, &name).is_some())
    }

    /// `upsertPod(podJson)`: adds or replaces a pod; a bad one changes nothing.
    #[wasm_bindgen(js_name = upsertPod)]
    pub fn upsert_pod(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject>")] pod: JsValue,
    ) -> Result<(), JsValue> {
        let pod: Pod = object(&pod, "pod")?;
        self.store
            .upsert_pod(pod)
            .map(|_| ())
            .map_err(|e| error(&e))
    }

    /// `deletePod(namespace, name)`: whether it was there.
    #[wasm_bindgen(js_name = deletePod)]
    pub fn delete_pod(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] namespace: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<bool, JsValue> {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        Ok(self.store.delete_pod(&namespace, &name).is_some())
    }

    /// `onPodEvent(eventJson)`: what the event asks for, decided against the stored
    /// owners and previous pod; then the event is applied to the store.
    #[wasm_bindgen(js_name = onPodEvent, unchecked_return_type = "EventDecision")]
    pub fn on_pod_event(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<StoreEvent<KubeObject>>")] event: JsValue,
    ) -> JsResult {
        let event = object::<Change<Pod>>(&event, "event")?;
        let change = match event.type_ {
            EventType::Added | EventType::Updated => PodChange::Upsert(event.object),
            EventType::Deleted => PodChange::Delete(event.object),
        };
        let decision = self
            .store
            .observe_pod(change)
            .map_err(|e| error(&e.under("event")))?;
        to_js(&decision)
    }

    /// `onOwnerEvent(eventJson)`: as `onPodEvent`, for owners.
    #[wasm_bindgen(js_name = onOwnerEvent, unchecked_return_type = "EventDecision")]
    pub fn on_owner_event(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<StoreEvent<KubeObject>>")] event: JsValue,
    ) -> JsResult {
        let event = object::<Change<ReplicaSet>>(&event, "event")?;
        let change = match event.type_ {
            EventType::Added | EventType::Updated => OwnerChange::Upsert(event.object),
            EventType::Deleted => OwnerChange::Delete(event.object),
        };
        let decision = self
            .store
            .observe_owner(change)
            .map_err(|e| error(&e.under("event")))?;
        to_js(&decision)
    }

    /// `planFor(namespace, name, optionsJson)`: the plan for the stored owner, as JSON
    /// text.
    #[wasm_bindgen(js_name = planFor, unchecked_return_type = "JsonText<SyncPlan>")]
    pub fn plan_for(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] namespace: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<StorePlanOptions>")] options: JsValue,
    ) -> JsResult {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        let context: SyncContext = object(&options, "options")?;
        let snapshot = self
            .store
            .snapshot(&namespace, &name, context)
            .map_err(|e| error(&e))?;
        let plan = snapshot.plan(self.store.config()).map_err(|e| error(&e))?;
        to_json_text(&plan)
    }

    /// `size()`: `{owners, pods}`.
    #[wasm_bindgen(unchecked_return_type = "StoreSize")]
    pub fn size(&self) -> JsResult {
        to_js(&self.store.size())
    }
}

/// Every owner key's expectations in wasm memory (`replicore::ExpectationsTable`): a
/// change crosses by key, the record stays here.
#[wasm_bindgen(js_name = ExpectationsTable)]
pub struct JsExpectationsTable {
    table: replicore::ExpectationsTable,
}

impl Default for JsExpectationsTable {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen(js_class = ExpectationsTable)]
impl JsExpectationsTable {
    /// `new ExpectationsTable()`: empty.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsExpectationsTable {
        JsExpectationsTable {
            table: replicore::ExpectationsTable::new(),
        }
    }

    /// `apply(key, changesJson, nowJson)`: the changes, in order, to owner `key`'s
    /// expectations; a refused argument changes nothing.
    pub fn apply(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<ExpectationsChange[]>")] changes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
    ) -> Result<(), JsValue> {
        let key = string(&key, "key")?;
        let changes: Vec<replicore::ExpectationsChange> = any(&changes, "changes")?;
        let now: replicore::Time = any(&now, "now")?;
        self.table.apply(&key, &changes, now);
        Ok(())
    }

    /// `get(key)`: owner `key`'s expectations (`null` when none are recorded).
    #[wasm_bindgen(unchecked_return_type = "Expectations")]
    pub fn get(&self, #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue) -> JsResult {
        to_js(&self.table.get(&string(&key, "key")?))
    }

    /// `satisfied(key, nowJson)`: R-40 for owner `key`.
    pub fn satisfied(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
    ) -> Result<bool, JsValue> {
        let key = string(&key, "key")?;
        let now: replicore::Time = any(&now, "now")?;
        Ok(self.table.satisfied(&key, now))
    }

    /// `remove(key)`: owner `key`'s record forgotten; whether there was one.
    pub fn remove(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> Result<bool, JsValue> {
        Ok(self.table.remove(&string(&key, "key")?))
    }

    /// `size()`: how many owner keys have a record.
    pub fn size(&self) -> usize {
        self.table.len()
    }
}
