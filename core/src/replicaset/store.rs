//! An incremental store of owners and pods for hosts that stream watch events.
//!
//! A host that keeps its informer cache in the [`Store`] sends each pod once, when it
//! changes ([`Store::upsert_pod`], [`Store::observe_pod`]), instead of re-sending every
//! pod on every sync: a sync takes a [`Snapshot`] of one owner's namespace (shared
//! references, no pod copied) and plans over it. The snapshot stays valid while the
//! store moves on, as upstream's sync works on the pods it listed when it started: keep
//! it until [`crate::complete`] has judged the calls made for its plan.
//!
//! Pods are validated when they enter (a name is required; a namespace/name is one pod),
//! so a bad pod is refused alone and never spoils a later plan.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::digest::{PodDigest, SharedStrings};
use super::handlers::{self, EventDecision, OwnerEvent, PodEvent};
use super::plan;
use super::SyncPlan;
use crate::error::{Error, Result};
use crate::expectations::Expectations;
use crate::fxhash::FxHashMap;
use crate::input::{validate_owner, validate_pod, SyncView};
use crate::model::{Pod, ReplicaSet};
use crate::time::Time;
use crate::Config;

/// Owners and pods indexed by namespace (and pods by name within it).
#[derive(Clone, Debug, Default)]
pub struct Store {
    config: Config,
    namespaces: BTreeMap<String, Namespace>,
}

#[derive(Clone, Debug, Default)]
struct Namespace {
    owners: Vec<Arc<ReplicaSet>>,
    /// Shared with the snapshots taken since it last changed: a snapshot costs one
    /// reference count, and the first change after it copies the table (copy on write).
    pods: Arc<PodTable>,
    /// Pod name → position in `pods`.
    by_name: FxHashMap<String, usize>,
    /// The digests' string buffers, one per distinct value.
    shared: SharedStrings,
}

/// A namespace's pods and, per pod, its digest (computed when it was upserted).
#[derive(Clone, Debug, Default)]
struct PodTable {
    pods: Vec<Arc<Pod>>,
    digests: Vec<PodDigest>,
}

/// A pod watch event as a host receives it (the informer's add/update/delete).
#[derive(Clone, Debug, PartialEq)]
pub enum PodChange {
    /// Added or modified: the pod's current state.
    Upsert(Pod),
    /// Deleted: the pod's last known state.
    Delete(Pod),
}

/// An owner watch event as a host receives it.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnerChange {
    /// Added or modified: the owner's current state.
    Upsert(ReplicaSet),
    /// Deleted: the owner's last known state.
    Delete(ReplicaSet),
}

/// What a sync plans over: one owner, its namespace's other owners and pods, as they
/// were when the snapshot was taken.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The controller clock of the sync.
    pub now: Time,
    /// The owner to sync.
    pub owner: Arc<ReplicaSet>,
    /// The other owners of its namespace (related pods, R-45).
    pub other_owners: Vec<Arc<ReplicaSet>>,
    pods: Arc<PodTable>,
    /// The owner's expectations (S-4).
    pub expectations: Expectations,
    /// S-2: false when the informers have not yet seen the owner's latest writes.
    pub cache_is_fresh: bool,
}

/// Everything a sync needs besides the stored objects (the options of `Store.planFor`
/// in the wasm binding).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "StorePlanOptions"))]
#[serde(rename_all = "camelCase")]
pub struct SyncContext {
    /// The controller clock of the sync.
    pub now: Time,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The owner's expectations (S-4).
    pub expectations: Expectations,
    /// S-2: false when the informers have not yet seen the owner's latest writes.
    #[serde(default = "fresh")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub cache_is_fresh: bool,
}

/// A cache is fresh unless the host says otherwise.
fn fresh() -> bool {
    true
}

/// How many owners and pods a [`Store`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StoreSize {
    /// Owners held.
    pub owners: usize,
    /// Pods held.
    pub pods: usize,
}

impl SyncContext {
    /// A sync at `now` with no expectations and a fresh cache.
    pub fn at(now: Time) -> SyncContext {
        SyncContext {
            now,
            expectations: Expectations::default(),
            cache_is_fresh: true,
        }
    }
}

impl Store {
    /// An empty store deciding with `config` (validated).
    pub fn new(config: Config) -> Result<Store> {
        config.validate()?;
        Ok(Store {
            config,
            namespaces: BTreeMap::new(),
        })
    }

    /// The configuration the store plans with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Adds or replaces (by namespace/name) an owner. An invalid owner is refused and
    /// the store keeps what it had.
    pub fn upsert_owner(&mut self, owner: ReplicaSet) -> Result<()> {
        validate_owner(&owner, "owner")?;
        let ns = self
            .namespaces
            .entry(owner.metadata.namespace.clone())
            .or_default();
        let owner = Arc::new(owner);
        match ns
            .owners
            .iter_mut()
            .find(|o| o.metadata.name == owner.metadata.name)
        {
            Some(slot) => *slot = owner,
            None => ns.owners.push(owner),
        }
        Ok(())
    }

    /// Removes an owner; returns it if it was there.
    pub fn delete_owner(&mut self, namespace: &str, name: &str) -> Option<Arc<ReplicaSet>> {
        let ns = self.namespaces.get_mut(namespace)?;
        let at = ns.owners.iter().position(|o| o.metadata.name == name)?;
        Some(ns.owners.swap_remove(at))
    }

    /// Adds or replaces (by namespace/name) a pod; returns the pod it replaced. A pod
    /// without a name is refused and the store keeps what it had.
    pub fn upsert_pod(&mut self, pod: Pod) -> Result<Option<Arc<Pod>>> {
        validate_pod(&pod, "pod")?;
        let ns = self
            .namespaces
            .entry(pod.metadata.namespace.clone())
            .or_default();
        let mut digest = PodDigest::of(&pod);
        ns.shared.share(&mut digest);
        let pod = Arc::new(pod);
        if let Some(&i) = ns.by_name.get(pod.name()) {
            let table = Arc::make_mut(&mut ns.pods);
            if let (Some(slot), Some(d)) = (table.pods.get_mut(i), table.digests.get_mut(i)) {
                *d = digest;
                ns.shared.sweep(table.digests.len());
                return Ok(Some(std::mem::replace(slot, pod)));
            }
        }
        ns.by_name.insert(pod.name().to_owned(), ns.pods.pods.len());
        let table = Arc::make_mut(&mut ns.pods);
        table.pods.push(pod);
        table.digests.push(digest);
        Ok(None)
    }

    /// Removes a pod; returns it if it was there.
    pub fn delete_pod(&mut self, namespace: &str, name: &str) -> Option<Arc<Pod>> {
        let ns = self.namespaces.get_mut(namespace)?;
        let at = ns.by_name.remove(name)?;
        if at >= ns.pods.pods.len() {
            return None;
        }
        let table = Arc::make_mut(&mut ns.pods);
        let removed = table.pods.swap_remove(at);
        table.digests.swap_remove(at);
        ns.shared.sweep(table.digests.len());
        if let Some(moved) = table.pods.get(at) {
            ns.by_name.insert(moved.name().to_owned(), at);
        }
        Some(removed)
    }

    /// The owner `namespace/name`, if held.
    pub fn owner(&self, namespace: &str, name: &str) -> Option<&Arc<ReplicaSet>> {
        self.namespaces
            .get(namespace)?
            .owners
            .iter()
            .find(|o| o.metadata.name == name)
    }

    /// The pod `namespace/name`, if held.
    pub fn pod(&self, namespace: &str, name: &str) -> Option<&Arc<Pod>> {
        let ns = self.namespaces.get(namespace)?;
        ns.by_name.get(name).and_then(|&i| ns.pods.pods.get(i))
    }

    /// The owners of one namespace.
    pub fn owners_in(&self, namespace: &str) -> &[Arc<ReplicaSet>] {
        self.namespaces
            .get(namespace)
            .map_or(&[], |ns| ns.owners.as_slice())
    }

    /// The pods of one namespace, in no particular order.
    pub fn pods_in(&self, namespace: &str) -> &[Arc<Pod>] {
        self.namespaces
            .get(namespace)
            .map_or(&[], |ns| ns.pods.pods.as_slice())
    }

    /// How many owners and pods the store holds.
    pub fn size(&self) -> StoreSize {
        let (owners, pods) = self.len();
        StoreSize { owners, pods }
    }

    /// How many owners and pods the store holds, as a pair.
    pub fn len(&self) -> (usize, usize) {
        self.namespaces.values().fold((0, 0), |(o, p), ns| {
            (o + ns.owners.len(), p + ns.pods.pods.len())
        })
    }

    /// Whether the store holds no owner and no pod.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }

    /// A pod watch event: what it asks for, decided against the stored
    /// owners and the stored previous state of the pod, then applied to the store. An
    /// upsert of a pod the store holds is an update (as an informer's re-list delivers
    /// it); one it does not hold is an add.
    pub fn observe_pod(&mut self, change: PodChange) -> Result<EventDecision> {
        match change {
            PodChange::Upsert(pod) => {
                validate_pod(&pod, "pod")?;
                let namespace = pod.metadata.namespace.clone();
                let old = self.pod(&namespace, pod.name()).cloned();
                let decision = {
                    let owners = self.owners_in(&namespace);
                    let event = match &old {
                        Some(old) => PodEvent::Updated { old, new: &pod },
                        None => PodEvent::Added(&pod),
                    };
                    handlers::on_pod_event(event, owners, &self.config.owner_kind)
                };
                self.upsert_pod(pod)?;
                Ok(decision)
            }
            PodChange::Delete(pod) => {
                validate_pod(&pod, "pod")?;
                let decision = handlers::on_pod_event(
                    PodEvent::Deleted(&pod),
                    self.owners_in(pod.namespace()),
                    &self.config.owner_kind,
                );
                self.delete_pod(pod.namespace(), pod.name());
                Ok(decision)
            }
        }
    }

    /// An owner watch event: what it asks for (R-90, R-91, R-91b), decided against the
    /// stored previous state of the owner, then applied to the store.
    pub fn observe_owner(&mut self, change: OwnerChange) -> Result<EventDecision> {
        match change {
            OwnerChange::Upsert(owner) => {
                validate_owner(&owner, "owner")?;
                let old = self
                    .owner(&owner.metadata.namespace, &owner.metadata.name)
                    .cloned();
                let decision = match &old {
                    Some(old) => handlers::on_owner_event(OwnerEvent::Updated { old, new: &owner }),
                    None => handlers::on_owner_event(OwnerEvent::Added(&owner)),
                };
                self.upsert_owner(owner)?;
                Ok(decision)
            }
            OwnerChange::Delete(owner) => {
                validate_owner(&owner, "owner")?;
                let decision = handlers::on_owner_event(OwnerEvent::Deleted(&owner));
                self.delete_owner(&owner.metadata.namespace, &owner.metadata.name);
                Ok(decision)
            }
        }
    }

    /// What a sync of `namespace/name` plans over now: the owner, its namespace's other
    /// owners and pods (shared, not copied).
    pub fn snapshot(&self, namespace: &str, name: &str, context: SyncContext) -> Result<Snapshot> {
        let ns = self.namespaces.get(namespace);
        let owner = ns
            .and_then(|ns| ns.owners.iter().find(|o| o.metadata.name == name))
            .ok_or_else(|| Error::NotFound {
                path: "owner".into(),
                what: "owner",
                key: format!("{namespace}/{name}"),
            })?;
        Ok(Snapshot {
            now: context.now,
            owner: Arc::clone(owner),
            other_owners: ns
                .map(|ns| {
                    ns.owners
                        .iter()
                        .filter(|o| !Arc::ptr_eq(o, owner))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
            pods: ns.map(|ns| Arc::clone(&ns.pods)).unwrap_or_default(),
            expectations: context.expectations,
            cache_is_fresh: context.cache_is_fresh,
        })
    }
}

impl Snapshot {
    /// The pods of the owner's namespace, as they were when the snapshot was taken.
    pub fn pods(&self) -> &[Arc<Pod>] {
        &self.pods.pods
    }

    /// The snapshot as the engine reads it.
    pub fn view(&self) -> SyncView<'_> {
        SyncView {
            now: self.now,
            owner: &self.owner,
            other_owners: self.other_owners.iter().map(|o| &**o).collect(),
            pods: self.pods.pods.iter().map(|p| &**p).collect(),
            digests: &self.pods.digests,
            expectations: &self.expectations,
            cache_is_fresh: self.cache_is_fresh,
        }
    }

    /// [`crate::plan`] over the snapshot (its pods were validated by the store).
    pub fn plan(&self, config: &Config) -> Result<SyncPlan> {
        plan::plan_view(self.view(), config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, labels: serde_json::Value) -> Pod {
        crate::input::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "ns", "uid": format!("u-{name}"),
                         "labels": labels,
                         "ownerReferences": [{"kind": "ReplicaSet", "name": "web",
                                              "uid": "rs", "controller": true}]}
        }))
        .unwrap_or_default()
    }

    fn shared(store: &Store) -> (usize, usize) {
        let ns = store.namespaces.get("ns");
        let set = ns.map_or(0, |ns| ns.shared.len());
        let distinct = ns.map_or(0, |ns| {
            let d = &ns.pods.digests;
            d.iter()
                .enumerate()
                .filter(|(i, x)| !d[..*i].iter().any(|y| y.strings.same_buffer(&x.strings)))
                .count()
        });
        (set, distinct)
    }

    #[test]
    fn pods_with_equal_strings_share_one_buffer_and_unheld_buffers_are_dropped() {
        let mut store = Store::default();
        let template = serde_json::json!({"app": "web", "v": "1"});
        for i in 0..100 {
            assert!(store
                .upsert_pod(pod(&format!("p{i}"), template.clone()))
                .is_ok());
        }
        assert_eq!(shared(&store), (1, 1));
        // Every pod relabelled uniquely, three times over: the set stays bounded by the
        // pods that hold its buffers.
        for round in 0..3 {
            for i in 0..100 {
                let labels = serde_json::json!({"app": "web", "pod": format!("{round}-{i}")});
                assert!(store.upsert_pod(pod(&format!("p{i}"), labels)).is_ok());
            }
            let (set, distinct) = shared(&store);
            assert_eq!(distinct, 100);
            assert!(set <= 2 * 100 + 64, "{set} buffers held for 100 pods");
        }
        for i in 0..100 {
            assert!(store.delete_pod("ns", &format!("p{i}")).is_some());
        }
        assert!(shared(&store).0 <= 64);
    }
}
