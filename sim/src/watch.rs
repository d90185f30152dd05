//! The watch and the controller's informer cache: writes reach the cache after a delay
//! (in order: a later write is never delivered before an earlier one), some may be lost
//! (a fault), and a relist reconciles the cache with the store. Each delivery runs the
//! engine's event rules (`on_pod_event` / `on_owner_event`): expectation observations
//! first, then the keys to enqueue.

use std::collections::BTreeMap;

use replicore::config::{DeploymentKinds, OwnerKind};
use replicore::deployment::handlers as dhandlers;
use replicore::deployment::model::{Deployment, Wire};
use replicore::model::{Pod, ReplicaSet};
use replicore::replicaset::handlers::{
    on_owner_event, on_pod_event, EventDecision, OwnerEvent, PodEvent,
};
use replicore::Pods;

use super::apiserver::{Change, ChangeKind, Object};
use super::clock::Ms;
use super::trace::{ObjectKind, QueueOp, WatchEventKind, What};
use super::{Ev, Simulator};

/// The pod informer's cache: pods sorted by `namespace/name`, kept as one vector so a
/// sync can lend it to the engine's input without copying a pod.
#[derive(Clone, Debug, Default)]
pub struct PodCache {
    pods: Pods,
}

impl PodCache {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.pods.binary_search_by(|p| {
            (p.namespace(), p.name()).cmp(&key.split_once('/').unwrap_or(("", key)))
        })
    }

    pub fn get(&self, key: &str) -> Option<&Pod> {
        self.find(key).ok().and_then(|i| self.pods.get(i))
    }

    /// Stores the pod; returns the one it replaced.
    pub fn insert(&mut self, pod: Pod) -> Option<Pod> {
        match self.find(&pod.key()) {
            Ok(i) => self.pods.replace(i, pod),
            Err(i) => {
                self.pods.insert(i, pod);
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Pod> {
        self.find(key).ok().and_then(|i| self.pods.remove(i))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Pod> {
        self.pods.iter()
    }

    pub fn len(&self) -> usize {
        self.pods.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pods.is_empty()
    }

    /// Lends every pod out (the cache is empty until [`PodCache::restore`]).
    pub fn take(&mut self) -> Pods {
        std::mem::take(&mut self.pods)
    }

    /// Takes back what [`PodCache::take`] lent, unchanged.
    pub fn restore(&mut self, pods: Pods) {
        self.pods = pods;
    }
}

/// What the controller's informers hold.
#[derive(Clone, Debug, Default)]
pub struct Informer {
    pub pods: PodCache,
    pub owners: BTreeMap<String, ReplicaSet>,
    /// The Deployment informer's cache (empty unless the scenario has a Deployment).
    pub deployments: BTreeMap<String, Wire<Deployment>>,
    /// The newest resourceVersion each informer has synced (S-2).
    pub pod_rv: u64,
    pub owner_rv: u64,
    /// The last scheduled delivery: deliveries never overtake each other.
    pub last_delivery: Ms,
    pub relist_pending: bool,
    /// The store's resourceVersion at the last relist: older deliveries still in flight
    /// are obsolete (the relist already gave their effect or a newer one).
    pub relisted_rv: u64,
}

fn kinds(change: &Change) -> (ObjectKind, WatchEventKind) {
    let object = match change.object {
        Object::Pod(_) => ObjectKind::Pod,
        Object::Owner(_) => ObjectKind::Owner,
        Object::Deployment(_) => ObjectKind::Deployment,
    };
    let event = match change.kind {
        ChangeKind::Added => WatchEventKind::Added,
        ChangeKind::Updated => WatchEventKind::Updated,
        ChangeKind::Deleted => WatchEventKind::Deleted,
    };
    (object, event)
}

fn short_name(key: &str) -> String {
    key.rsplit('/').next().unwrap_or(key).to_owned()
}

impl Simulator {
    /// A write happened: the watch will deliver it after its delay, unless it is lost.
    pub(super) fn publish(&mut self, change: Change) {
        let now = self.clock.now();
        if self.rng.chance(self.faults.watch_drop) {
            let (object, event) = kinds(&change);
            self.record(What::WatchDropped {
                object,
                event,
                name: short_name(&change.object.key()),
            });
            if !self.informer.relist_pending {
                self.informer.relist_pending = true;
                self.agenda
                    .at(now.saturating_add(self.delays.relist), Ev::Relist);
            }
            return;
        }
        let delay = self.delays.watch.draw(&mut self.rng);
        let t = now.saturating_add(delay).max(self.informer.last_delivery);
        self.informer.last_delivery = t;
        self.agenda.at(t, Ev::Deliver(Box::new(change)));
    }

    /// The informer receives one event: cache update, then the event rules.
    pub(super) fn deliver(&mut self, change: Change) {
        if change.rv <= self.informer.relisted_rv {
            return;
        }
        let kind = OwnerKind::replica_set();
        let (object, _) = kinds(&change);
        let key = change.object.key();
        // The Deployment controller's handlers run only when there are deployments (a
        // ReplicaSet-only simulation runs exactly as before).
        let deployments: Vec<Deployment> = self
            .informer
            .deployments
            .values()
            .map(|d| (*d.typed).clone())
            .collect();
        let mut dkeys: Vec<String> = Vec::new();
        let (event, decision) = match change.object {
            Object::Pod(pod) => {
                self.informer.pod_rv = self.informer.pod_rv.max(change.rv);
                let owners: Vec<ReplicaSet> = self.informer.owners.values().cloned().collect();
                match change.kind {
                    ChangeKind::Added | ChangeKind::Updated => {
                        let old = self.informer.pods.insert((*pod).clone());
                        match old {
                            Some(old) => (
                                WatchEventKind::Updated,
                                on_pod_event(
                                    PodEvent::Updated {
                                        old: &old,
                                        new: &pod,
                                    },
                                    &owners,
                                    &kind,
                                ),
                            ),
                            None => (
                                WatchEventKind::Added,
                                on_pod_event(PodEvent::Added(&pod), &owners, &kind),
                            ),
                        }
                    }
                    ChangeKind::Deleted => match self.informer.pods.remove(&key) {
                        Some(_) => {
                            if !deployments.is_empty() {
                                let pods = self.informer.pods.take();
                                dkeys = dhandlers::on_pod_deleted(
                                    &pod,
                                    &owners,
                                    &deployments,
                                    &pods,
                                    &DeploymentKinds::default(),
                                );
                                self.informer.pods.restore(pods);
                            }
                            (
                                WatchEventKind::Deleted,
                                on_pod_event(PodEvent::Deleted(&pod), &owners, &kind),
                            )
                        }
                        None => (WatchEventKind::Deleted, EventDecision::default()),
                    },
                }
            }
            Object::Owner(rs) => {
                self.informer.owner_rv = self.informer.owner_rv.max(change.rv);
                match change.kind {
                    ChangeKind::Added | ChangeKind::Updated => {
                        let old = self.informer.owners.insert(key.clone(), (*rs).clone());
                        if !deployments.is_empty() {
                            dkeys = match &old {
                                Some(old) => dhandlers::on_replica_set_updated(
                                    old,
                                    &rs,
                                    &deployments,
                                    &DeploymentKinds::default(),
                                ),
                                None => dhandlers::on_replica_set_added(
                                    &rs,
                                    &deployments,
                                    &DeploymentKinds::default(),
                                ),
                            };
                        }
                        match old {
                            Some(old) => (
                                WatchEventKind::Updated,
                                on_owner_event(OwnerEvent::Updated {
                                    old: &old,
                                    new: &rs,
                                }),
                            ),
                            None => (
                                WatchEventKind::Added,
                                on_owner_event(OwnerEvent::Added(&rs)),
                            ),
                        }
                    }
                    ChangeKind::Deleted => match self.informer.owners.remove(&key) {
                        Some(_) => {
                            dkeys = dhandlers::on_replica_set_deleted(
                                &rs,
                                &deployments,
                                &DeploymentKinds::default(),
                            );
                            (
                                WatchEventKind::Deleted,
                                on_owner_event(OwnerEvent::Deleted(&rs)),
                            )
                        }
                        None => (WatchEventKind::Deleted, EventDecision::default()),
                    },
                }
            }
            Object::Deployment(d) => {
                // (The Deployment informer is its own: the ReplicaSet controller's
                // consistency record, S-2, reads only the pod and owner informers.)
                // D-110: added, updated or deleted, the deployment enqueues itself.
                dkeys = dhandlers::on_deployment_event(&d);
                let event = match change.kind {
                    ChangeKind::Added | ChangeKind::Updated => {
                        match self.informer.deployments.insert(key.clone(), *d) {
                            Some(_) => WatchEventKind::Updated,
                            None => WatchEventKind::Added,
                        }
                    }
                    ChangeKind::Deleted => {
                        self.informer.deployments.remove(&key);
                        WatchEventKind::Deleted
                    }
                };
                (event, EventDecision::default())
            }
        };
        self.record(What::Watch {
            object,
            event,
            name: short_name(&key),
            decision: decision.clone(),
        });
        self.handle_decision(decision);
        for k in dkeys {
            self.deployment_queue_add(&k);
        }
    }

    /// Observations first (they must be in place before a queued sync runs), then keys.
    pub(super) fn handle_decision(&mut self, decision: EventDecision) {
        let now = self.clock.now_instant();
        for obs in decision.observations {
            let e = self
                .ctrl
                .expectations
                .remove(&obs.owner_key)
                .unwrap_or_default();
            let e = obs.change.apply(e, now);
            if e.record().is_some() {
                self.ctrl.expectations.insert(obs.owner_key, e);
            }
        }
        for key in decision.enqueue {
            self.queue_add(&key);
        }
        for d in decision.enqueue_after {
            self.queue_add_after(&d.key, super::clock::ms_of(d.after), QueueOp::AddAfter);
        }
    }

    /// The owner informer's periodic resync: every cached owner is handed to the event
    /// rules again as an update to itself (which enqueues it).
    pub(super) fn resync(&mut self) {
        let owners: Vec<ReplicaSet> = self.informer.owners.values().cloned().collect();
        for rs in owners {
            let decision = on_owner_event(OwnerEvent::Updated { old: &rs, new: &rs });
            self.record(What::Watch {
                object: ObjectKind::Owner,
                event: WatchEventKind::Updated,
                name: rs.metadata.name.clone(),
                decision: decision.clone(),
            });
            self.handle_decision(decision);
        }
    }

    /// The informer relists: every difference between the store and the cache is
    /// delivered as an event, in key order (owners first), and the cache is synced.
    pub(super) fn relist(&mut self) {
        self.informer.relist_pending = false;
        let rv = self.api.resource_version();
        let mut changes = Vec::new();
        for (key, d) in &self.api.deployments {
            match self.informer.deployments.get(key) {
                Some(c) if c.metadata.resource_version == d.metadata.resource_version => {}
                Some(_) => changes.push(change(
                    ChangeKind::Updated,
                    Object::Deployment(Box::new(d.clone())),
                    rv,
                )),
                None => changes.push(change(
                    ChangeKind::Added,
                    Object::Deployment(Box::new(d.clone())),
                    rv,
                )),
            }
        }
        for (key, d) in &self.informer.deployments {
            if !self.api.deployments.contains_key(key) {
                changes.push(change(
                    ChangeKind::Deleted,
                    Object::Deployment(Box::new(d.clone())),
                    rv,
                ));
            }
        }
        for (key, rs) in &self.api.owners {
            match self.informer.owners.get(key) {
                Some(c) if c.metadata.resource_version == rs.metadata.resource_version => {}
                Some(_) => changes.push(change(
                    ChangeKind::Updated,
                    Object::Owner(Box::new(rs.clone())),
                    rv,
                )),
                None => changes.push(change(
                    ChangeKind::Added,
                    Object::Owner(Box::new(rs.clone())),
                    rv,
                )),
            }
        }
        for (key, rs) in &self.informer.owners {
            if !self.api.owners.contains_key(key) {
                changes.push(change(
                    ChangeKind::Deleted,
                    Object::Owner(Box::new(rs.clone())),
                    rv,
                ));
            }
        }
        for (key, pod) in &self.api.pods {
            match self.informer.pods.get(key) {
                Some(c) if c.metadata.resource_version == pod.metadata.resource_version => {}
                Some(_) => changes.push(change(
                    ChangeKind::Updated,
                    Object::Pod(Box::new(pod.clone())),
                    rv,
                )),
                None => changes.push(change(
                    ChangeKind::Added,
                    Object::Pod(Box::new(pod.clone())),
                    rv,
                )),
            }
        }
        for pod in self.informer.pods.iter() {
            if !self.api.pods.contains_key(&pod.key()) {
                changes.push(change(
                    ChangeKind::Deleted,
                    Object::Pod(Box::new(pod.clone())),
                    rv,
                ));
            }
        }
        self.record(What::Relist {
            changes: changes.len(),
        });
        for c in changes {
            self.deliver(c);
        }
        self.informer.relisted_rv = rv;
        self.informer.pod_rv = self.informer.pod_rv.max(rv);
        self.informer.owner_rv = self.informer.owner_rv.max(rv);
    }
}

fn change(kind: ChangeKind, object: Object, rv: u64) -> Change {
    Change { kind, object, rv }
}
