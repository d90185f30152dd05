//! The engine-side store (`replicore::Store`) as a JS class: owners and pods kept in wasm
//! memory, so a sync sends no pod across. Conversion and error mapping only.
//!
//! A plan made by `planFor` keeps its snapshot here, under its owner key and a ticket,
//! until `complete` judges the calls made for it (a newer `planFor` of the same owner
//! replaces it): the store may change meanwhile, the plan's snapshot does not.

use std::collections::BTreeMap;

use replicore::outcome::{ClaimOutcome, LiveOwner};
use replicore::{
    complete as complete_sync, Error, Expectations, OwnerChange, Pod, PodChange, ReplicaSet,
    Snapshot, Store, SyncContext, SyncOutcome, SyncPlan, Time,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::convert::{any, error, message_error, object, string, to_js, to_json_text, JsResult};
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

/// `planFor`'s options.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanOptions {
    now: Time,
    #[serde(default)]
    expectations: Expectations,
    #[serde(default = "yes")]
    cache_is_fresh: bool,
}

fn yes() -> bool {
    true
}

#[derive(Serialize)]
struct Ticketed<'a, 'p> {
    ticket: u32,
    plan: &'a SyncPlan<'p>,
}

#[derive(Serialize)]
struct Size {
    owners: usize,
    pods: usize,
}

/// Owners and pods in wasm memory, indexed by namespace; plans without re-sending pods.
#[wasm_bindgen(js_name = Store)]
pub struct JsStore {
    store: Store,
    /// Owner key → (ticket, snapshot) of its plan awaiting `complete`.
    pending: BTreeMap<String, (u32, Snapshot)>,
    next_ticket: u32,
}

#[wasm_bindgen(js_class = Store)]
impl JsStore {
    /// `new Store(configJson?)`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<JsStore, JsValue> {
        let config = config_from(&config)?;
        Ok(JsStore {
            store: Store::new(config).map_err(|e| error(&e))?,
            pending: BTreeMap::new(),
            next_ticket: 0,
        })
    }

    /// `upsertOwner(ownerJson)`: adds or replaces an owner; a bad one changes nothing.
    #[wasm_bindgen(js_name = upsertOwner)]
    pub fn upsert_owner(&mut self, owner: JsValue) -> Result<(), JsValue> {
        let owner: ReplicaSet = object(&owner, "owner")?;
        self.store.upsert_owner(owner).map_err(|e| error(&e))
    }

    /// `deleteOwner(namespace, name)`: whether it was there.
    #[wasm_bindgen(js_name = deleteOwner)]
    pub fn delete_owner(&mut self, namespace: JsValue, name: JsValue) -> Result<bool, JsValue> {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        Ok(self.store.delete_owner(&namespace, &name).is_some())
    }

    /// `upsertPod(podJson)`: adds or replaces a pod; a bad one changes nothing.
    #[wasm_bindgen(js_name = upsertPod)]
    pub fn upsert_pod(&mut self, pod: JsValue) -> Result<(), JsValue> {
        let pod: Pod = object(&pod, "pod")?;
        self.store
            .upsert_pod(pod)
            .map(|_| ())
            .map_err(|e| error(&e))
    }

    /// `deletePod(namespace, name)`: whether it was there.
    #[wasm_bindgen(js_name = deletePod)]
    pub fn delete_pod(&mut self, namespace: JsValue, name: JsValue) -> Result<bool, JsValue> {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        Ok(self.store.delete_pod(&namespace, &name).is_some())
    }

    /// `onPodEvent(eventJson)`: what the event asks for, decided against the stored
    /// owners and previous pod; then the event is applied to the store.
    #[wasm_bindgen(js_name = onPodEvent)]
    pub fn on_pod_event(&mut self, event: JsValue) -> JsResult {
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
    #[wasm_bindgen(js_name = onOwnerEvent)]
    pub fn on_owner_event(&mut self, event: JsValue) -> JsResult {
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

    /// `planFor(namespace, name, optionsJson)`: `{ticket, plan}` for the stored owner, as
    /// JSON text.
    #[wasm_bindgen(js_name = planFor)]
    pub fn plan_for(&mut self, namespace: JsValue, name: JsValue, options: JsValue) -> JsResult {
        let namespace = string(&namespace, "namespace")?;
        let name = string(&name, "name")?;
        let options: PlanOptions = object(&options, "options")?;
        let snapshot = self
            .store
            .snapshot(
                &namespace,
                &name,
                SyncContext {
                    now: options.now,
                    expectations: options.expectations,
                    cache_is_fresh: options.cache_is_fresh,
                },
            )
            .map_err(|e| error(&e))?;
        let ticket = self.next_ticket;
        let out = {
            let plan = snapshot.plan(self.store.config()).map_err(|e| error(&e))?;
            to_json_text(&Ticketed {
                ticket,
                plan: &plan,
            })?
        };
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.pending
            .insert(format!("{namespace}/{name}"), (ticket, snapshot));
        Ok(out)
    }

    /// `adoptionAllowed(key, ticket, liveOwnerJson)`: R-32 for a pending plan.
    #[wasm_bindgen(js_name = adoptionAllowed)]
    pub fn adoption_allowed(
        &self,
        key: &str,
        ticket: u32,
        live_owner: JsValue,
    ) -> Result<Option<String>, JsValue> {
        let live: LiveOwner = any(&live_owner, "liveOwner")?;
        self.with_pending(key, ticket, |p| Ok(p.adoption_allowed(&live).err()))
    }

    /// `manageAfterClaims(key, ticket, claimsJson)`: the manage step once the claims
    /// are done, for a pending plan.
    #[wasm_bindgen(js_name = manageAfterClaims)]
    pub fn manage_after_claims(&self, key: &str, ticket: u32, claims: JsValue) -> JsResult {
        let claims: ClaimOutcome = object(&claims, "claims")?;
        self.with_pending(key, ticket, |p| p.manage_after(&claims).map(|m| to_js(&m)))?
    }

    /// `complete(key, ticket, outcomeJson)`: what the calls made for a pending plan mean.
    /// The plan is then done (its snapshot released), unless the outcome was refused.
    pub fn complete(&mut self, key: &str, ticket: u32, outcome: JsValue) -> JsResult {
        let outcome: SyncOutcome = object(&outcome, "outcome")?;
        let done = self.with_pending(key, ticket, |p| {
            complete_sync(p, &outcome)
                .map(|d| to_js(&d))
                .map_err(|e| match e {
                    Error::Outcome { .. } => e.under("outcome"),
                    other => other,
                })
        })??;
        self.pending.remove(key);
        Ok(done)
    }

    /// `release(key)`: drops a pending plan without completing it.
    pub fn release(&mut self, key: &str) -> bool {
        self.pending.remove(key).is_some()
    }

    /// `size()`: `{owners, pods}`.
    pub fn size(&self) -> JsResult {
        let (owners, pods) = self.store.len();
        to_js(&Size { owners, pods })
    }

    fn with_pending<T>(
        &self,
        key: &str,
        ticket: u32,
        f: impl FnOnce(&SyncPlan<'_>) -> Result<T, Error>,
    ) -> Result<T, JsValue> {
        let snapshot = match self.pending.get(key) {
            Some((t, s)) if *t == ticket => s,
            _ => {
                return Err(message_error(
                    "UNKNOWN_PLAN",
                    "plan",
                    &format!(
                        "plan: no pending plan of {} with this ticket (completed, released, or replaced by a newer planFor)",
                        replicore::error::capped(key)
                    ),
                ))
            }
        };
        // Plans are deterministic: the same snapshot gives the same plan.
        let plan = snapshot.plan(self.store.config()).map_err(|e| error(&e))?;
        f(&plan).map_err(|e| error(&e))
    }
}
