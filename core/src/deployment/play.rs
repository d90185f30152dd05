//! The cluster the forecasts play on: a Deployment, its ReplicaSets and their pods in
//! memory, moved by the engine's own controllers and a seeded pod start-up model.
//!
//! - The **Deployment controller** is the engine's sync ([`run_sync`], every rule D-xx);
//!   its calls are applied to the model (ReplicaSets created, scaled, deleted; the
//!   Deployment and its status written).
//! - The **ReplicaSet controller** is the engine's too, driven as a host drives it
//!   (the seeded simulator's loop, in core): the ReplicaSets and pods sit in a
//!   [`Store`] (the informer cache); the watch-event rules ([`Store::observe_pod`],
//!   [`Store::observe_owner`]) say which ReplicaSet to sync and which expectations a
//!   pod event observes; a sync is [`crate::plan()`] over the store's snapshot, the
//!   creates (in slow-start batches) and deletes it names carried out on the model,
//!   then [`crate::complete()`], whose status is written and whose requeue is kept.
//!   Which pods a scale-down deletes is the ranking's choice (`rank.rs`), what the
//!   status counts is the status rules' (`status.rs`): nothing of either is restated
//!   here.
//! - **Pods** follow their [`PodLife`], given by the forecast when a pod is created:
//!   Pending until `running`, Running and not Ready until `ready` (never, when `None`),
//!   then Ready; `restarts` is their containers' restart count. Each pod is scheduled
//!   (`spec.nodeName`) from its creation; deletions are immediate (no grace period).
//!   Every change of a pod's stage is a pod update event at that instant.
//!
//! Times are milliseconds since the play's start. There is no clock and no randomness
//! here: the forecasts' [`PodLife`] carries their seeded choices.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::expectations::{Expectations, ExpectationsChange};
use crate::model::{ContainerStatus, Pod, PodCondition};
use crate::outcome::{CallResult, SyncOutcome};
use crate::replicaset::{
    self, EventDecision, Manage, OwnerChange, PodChange, Requeue, Store, SyncContext,
};
use crate::time::{Duration, Time};

use super::limiting::{self, StepCalls, StepCounts};
use super::machine::{run_sync, ApiCall, ApiResult, DeploymentSyncInput, ProgressRequeue};
use super::model::{Deployment, Rs, Wire};

/// ReplicaSet syncs of one instant at most (a bound on the work of a pass).
const RS_SYNCS_PER_INSTANT: usize = 64;
/// The node every pod of the model is scheduled to.
const NODE: &str = "forecast-node";
/// The earliest instant shown in a pod's times (a day before the start): pods "long
/// available" show this.
const SHOWN_FROM: i64 = -86_400_000;

/// When a pod of the model runs and becomes ready (milliseconds since the start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PodLife {
    pub running: i64,
    pub ready: Option<i64>,
    pub restarts: i32,
}

/// A pod's stage at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Created, not yet running (phase `Pending`).
    Pending,
    /// Running, not yet ready.
    Starting,
    /// Running and ready.
    Ready,
}

impl PodLife {
    pub(crate) fn stage(&self, t: i64) -> Stage {
        if self.ready.is_some_and(|r| r <= t) {
            Stage::Ready
        } else if self.running <= t {
            Stage::Starting
        } else {
            Stage::Pending
        }
    }

    /// The next instant after `t` at which the stage changes.
    fn next_change(&self, t: i64) -> Option<i64> {
        [Some(self.running), self.ready]
            .into_iter()
            .flatten()
            .filter(|&e| e > t)
            .min()
    }
}

/// A pod of the model.
#[derive(Clone, Debug)]
pub(crate) struct PlayPod {
    /// Its ReplicaSet's name.
    pub replica_set: String,
    pub created: i64,
    pub life: PodLife,
    /// The stage its object shows.
    shown: Stage,
    /// A tag of the forecast's own (what it assumed of the pod).
    pub tag: u8,
}

/// How a forecast starts the pods the ReplicaSet controller creates: `(t, whether the
/// ReplicaSet is of the Deployment's current template)` → the pod's life and tag.
pub(crate) type Startup<'a> = dyn FnMut(i64, bool) -> (PodLife, u8) + 'a;

/// The in-memory cluster.
pub(crate) struct Play {
    pub start: Time,
    pub deployment: Wire<Deployment>,
    /// The ReplicaSets as the Deployment controller reads them.
    pub replica_sets: Vec<Rs>,
    /// The ReplicaSet controller's cache.
    store: Store,
    config: Config,
    /// The pods by name.
    pub pods: BTreeMap<String, PlayPod>,
    expectations: BTreeMap<String, Expectations>,
    /// ReplicaSet keys to sync, at the instant each is due.
    due: BTreeMap<String, i64>,
    /// `spec.replicas` of each ReplicaSet before the current Deployment sync's first
    /// update of it.
    before: BTreeMap<String, i32>,
    /// Objects made so far (names and uids).
    made: u64,
    /// Resource versions given so far.
    version: u64,
    /// The pod each starting ReplicaSet's pods are made from (read once).
    templates: BTreeMap<String, Pod>,
    /// Counts every change to the pods (a host caching a pod list compares it).
    pub pods_version: u64,
    /// ReplicaSet syncs played.
    pub rs_syncs: usize,
}

fn instant(start: Time, ms: i64) -> Time {
    start.plus(Duration::from_nanos(ms.saturating_mul(1_000_000)))
}

impl Play {
    pub(crate) fn new(start: Time, deployment: Wire<Deployment>) -> Self {
        Play {
            start,
            deployment,
            replica_sets: Vec::new(),
            store: Store::default(),
            config: Config::default(),
            pods: BTreeMap::new(),
            expectations: BTreeMap::new(),
            due: BTreeMap::new(),
            before: BTreeMap::new(),
            made: 0,
            templates: BTreeMap::new(),
            version: 0,
            pods_version: 0,
            rs_syncs: 0,
        }
    }

    pub(crate) fn at(&self, t: i64) -> Time {
        instant(self.start, t)
    }

    fn next_version(&mut self) -> String {
        self.version += 1;
        self.version.to_string()
    }

    /// Is `rs` of the Deployment's current template?
    pub(crate) fn is_new(&self, rs: &Rs) -> bool {
        limiting::is_new(rs, &self.deployment.spec.template)
    }

    /// (new replicas, old replicas, pods, available) as the ReplicaSets' status shows.
    pub(crate) fn counts(&self) -> StepCounts {
        limiting::counts(&self.replica_sets, &self.deployment.spec.template)
    }

    /// A ReplicaSet the cluster holds at the start.
    pub(crate) fn add_replica_set(&mut self, rs: Rs) -> Result<()> {
        let mut typed = (*rs.typed).clone();
        typed.metadata.resource_version = Some(self.next_version());
        self.store.upsert_owner(typed)?;
        self.replica_sets.push(rs);
        Ok(())
    }

    /// A pod of `rs` the cluster holds at the start (`name` empty: one is made).
    pub(crate) fn add_pod(&mut self, rs: &Rs, name: &str, created: i64, life: PodLife, tag: u8) {
        if !self.templates.contains_key(&rs.metadata.name) {
            let template =
                crate::replicaset::template::pod_from_template(&rs.typed, &self.config.owner_kind);
            let Ok(pod) = crate::input::from_value::<Pod>(template) else {
                return;
            };
            self.templates.insert(rs.metadata.name.clone(), pod);
        }
        let Some(pod) = self.templates.get(&rs.metadata.name).cloned() else {
            return;
        };
        let name = if name.is_empty() {
            self.made += 1;
            format!("{}-{:05}", rs.metadata.name, self.made)
        } else {
            name.to_owned()
        };
        let pod = self.pod_object(pod, name, created, life, 0);
        let _ = self.observe_pod(0, PodChange::Upsert(pod.clone()));
        let shown = life.stage(0);
        self.pods.insert(
            pod.metadata.name,
            PlayPod {
                replica_set: rs.metadata.name.clone(),
                created,
                life,
                shown,
                tag,
            },
        );
    }

    /// The pod object for `life` at `t`, from `base` (the template's pod).
    fn pod_object(
        &mut self,
        mut pod: Pod,
        name: String,
        created: i64,
        life: PodLife,
        t: i64,
    ) -> Pod {
        self.made += 1;
        pod.metadata.uid = format!("forecast-pod-{}", self.made);
        pod.metadata.name = name;
        pod.metadata.creation_timestamp = Some(self.at(created.max(SHOWN_FROM)));
        pod.spec.node_name = Some(NODE.to_owned());
        pod.status.container_statuses = vec![ContainerStatus {
            name: "app".to_owned(),
            restart_count: life.restarts,
        }];
        self.show(&mut pod, created, &life, t);
        pod
    }

    /// Writes the stage of `life` at `t` into `pod`: phase, Ready condition and its
    /// transition time, a new resource version.
    fn show(&mut self, pod: &mut Pod, created: i64, life: &PodLife, t: i64) {
        let stage = life.stage(t);
        let (phase, ready, since) = match stage {
            Stage::Pending => ("Pending", "False", created),
            Stage::Starting => ("Running", "False", created),
            Stage::Ready => ("Running", "True", life.ready.unwrap_or(created)),
        };
        pod.status.phase = Some(phase.to_owned());
        pod.status.conditions = vec![PodCondition {
            type_: "Ready".to_owned(),
            status: ready.to_owned(),
            last_transition_time: Some(self.at(since.max(SHOWN_FROM))),
        }];
        pod.metadata.resource_version = Some(self.next_version());
    }

    /// Applies what a watch event asks: its expectation observations, its keys due now
    /// (or after its delay).
    fn decide(&mut self, t: i64, decision: EventDecision) {
        let now = self.at(t);
        for o in decision.observations {
            let e = self.expectations.remove(&o.owner_key).unwrap_or_default();
            let e = o.change.apply(e, now);
            if e.record().is_some() {
                self.expectations.insert(o.owner_key, e);
            }
        }
        for key in decision.enqueue {
            self.enqueue(key, t);
        }
        for d in decision.enqueue_after {
            let at = t.saturating_add(d.after.as_nanos() / 1_000_000);
            self.enqueue(d.key, at);
        }
    }

    fn enqueue(&mut self, key: String, at: i64) {
        let slot = self.due.entry(key).or_insert(at);
        *slot = (*slot).min(at);
    }

    fn observe_pod(&mut self, t: i64, change: PodChange) -> Result<()> {
        let decision = self.store.observe_pod(change)?;
        self.pods_version += 1;
        self.decide(t, decision);
        Ok(())
    }

    fn observe_owner(&mut self, t: i64, change: OwnerChange) -> Result<()> {
        let decision = self.store.observe_owner(change)?;
        self.decide(t, decision);
        Ok(())
    }

    /// Every pod whose stage changed by `t` shows it (a pod update event each).
    pub(crate) fn advance_pods(&mut self, t: i64) -> Result<()> {
        let changed: Vec<String> = self
            .pods
            .iter()
            .filter(|(_, p)| p.life.stage(t) != p.shown)
            .map(|(n, _)| n.clone())
            .collect();
        for name in changed {
            let Some(p) = self.pods.get_mut(&name) else {
                continue;
            };
            p.shown = p.life.stage(t);
            let (created, life) = (p.created, p.life);
            let namespace = self.deployment.metadata.namespace.clone();
            let Some(old) = self.store.pod(&namespace, &name) else {
                continue;
            };
            let mut pod = Pod::clone(&**old);
            self.show(&mut pod, created, &life, t);
            self.observe_pod(t, PodChange::Upsert(pod))?;
        }
        Ok(())
    }

    /// The next instant after `t` at which a pod changes stage or a ReplicaSet key is
    /// due.
    pub(crate) fn next_event(&self, t: i64) -> Option<i64> {
        let pods = self.pods.values().filter_map(|p| p.life.next_change(t));
        let keys = self.due.values().copied().filter(|&d| d > t);
        pods.chain(keys).min()
    }

    /// The ReplicaSet controller at `t`: every key due by then synced (a key its own
    /// sync makes due again now is synced again, up to a bound). Returns whether any
    /// ReplicaSet's status or pods changed.
    pub(crate) fn run_replica_sets(&mut self, t: i64, startup: &mut Startup<'_>) -> Result<bool> {
        let mut changed = false;
        for _ in 0..RS_SYNCS_PER_INSTANT {
            let Some(key) = self
                .due
                .iter()
                .filter(|(_, &d)| d <= t)
                .map(|(k, _)| k.clone())
                .next()
            else {
                break;
            };
            self.due.remove(&key);
            changed |= self.sync_replica_set(&key, t, startup)?;
        }
        Ok(changed)
    }

    /// One ReplicaSet sync (`syncReplicaSet(key)`), the engine deciding.
    fn sync_replica_set(&mut self, key: &str, t: i64, startup: &mut Startup<'_>) -> Result<bool> {
        let Some((namespace, name)) = key.split_once('/') else {
            return Ok(false);
        };
        let Some(rs) = self
            .replica_sets
            .iter()
            .find(|r| r.metadata.name == name)
            .cloned()
        else {
            self.expectations.remove(key);
            return Ok(false);
        };
        let now = self.at(t);
        self.rs_syncs += 1;
        let context = SyncContext {
            now,
            expectations: self.expectations.get(key).cloned().unwrap_or_default(),
            cache_is_fresh: true,
        };
        let snapshot = self.store.snapshot(namespace, name, context)?;
        let plan = snapshot.plan(&self.config)?;
        // The model's pods are all owned and labelled: no claim is planned.
        let manage = plan.manage_after(&Default::default())?;
        let mut outcome = SyncOutcome::default();
        if let Some(change) = manage.expectations() {
            self.record_expectations(key, change, now);
        }
        let mut changed = false;
        match &manage {
            Manage::Nothing { .. } => {}
            Manage::Create(create) => {
                let base = crate::input::from_value::<Pod>(create.pod.clone())?;
                let new = self.is_new(&rs);
                while let Some(n) = create.next_batch(&outcome.creates) {
                    for _ in 0..n {
                        let (life, tag) = startup(t, new);
                        self.made += 1;
                        let pod_name = format!("{name}-{:05}", self.made);
                        let pod = self.pod_object(base.clone(), pod_name.clone(), t, life, t);
                        self.pods.insert(
                            pod_name.clone(),
                            PlayPod {
                                replica_set: name.to_owned(),
                                created: t,
                                life,
                                shown: life.stage(t),
                                tag,
                            },
                        );
                        self.observe_pod(t, PodChange::Upsert(pod))?;
                        outcome.creates.push(CallResult::created(pod_name));
                        changed = true;
                    }
                }
            }
            Manage::Delete(delete) => {
                for v in &delete.victims {
                    let gone = self
                        .store
                        .pod(&v.namespace, &v.name)
                        .map(|p| Pod::clone(&**p));
                    match gone {
                        Some(pod) => {
                            self.pods.remove(&v.name);
                            self.observe_pod(t, PodChange::Delete(pod))?;
                            outcome.deletes.push(CallResult::ok());
                            changed = true;
                        }
                        None => outcome.deletes.push(CallResult::error(
                            "NotFound",
                            format!("pods \"{}\" not found", v.name),
                        )),
                    }
                }
            }
        }
        let done = replicaset::complete(&plan, &outcome)?;
        for change in &done.expectations {
            self.record_expectations(key, change, now);
        }
        let requeue = done.requeue_after_status_write(Ok(()));
        if let Some(status) = done.status {
            changed = true;
            self.write_status(name, status, t)?;
        }
        match requeue {
            Requeue::Done => {}
            Requeue::After { after } => {
                self.enqueue(
                    key.to_owned(),
                    t.saturating_add((after.as_nanos() / 1_000_000).max(1)),
                );
            }
            // The rate limiter's first retry (5 ms).
            Requeue::RateLimited { .. } => self.enqueue(key.to_owned(), t.saturating_add(5)),
        }
        Ok(changed)
    }

    fn record_expectations(&mut self, key: &str, change: &ExpectationsChange, now: Time) {
        let e = self.expectations.remove(key).unwrap_or_default();
        let e = change.apply(e, now);
        if e.record().is_some() {
            self.expectations.insert(key.to_owned(), e);
        }
    }

    /// The status write of a ReplicaSet (through the status subresource).
    fn write_status(
        &mut self,
        name: &str,
        status: crate::model::ReplicaSetStatus,
        t: i64,
    ) -> Result<()> {
        let version = self.next_version();
        let Some(slot) = self
            .replica_sets
            .iter_mut()
            .find(|r| r.metadata.name == name)
        else {
            return Ok(());
        };
        let wire_status = serde_json::to_value(&status).unwrap_or(Value::Null);
        slot.status = status;
        slot.metadata.resource_version = Some(version);
        if let Some(o) = std::sync::Arc::make_mut(&mut slot.wire).as_object_mut() {
            o.insert("status".into(), wire_status);
        }
        let typed = (*slot.typed).clone();
        self.observe_owner(t, OwnerChange::Upsert(typed))
    }

    /// One Deployment sync at `t`, its calls applied to the model; what its calls did
    /// to the ReplicaSets is added to `decided`.
    pub(crate) fn sync_deployment(
        &mut self,
        t: i64,
        decided: &mut StepCalls,
    ) -> Result<ProgressRequeue> {
        let now = self.at(t);
        let d = &self.deployment;
        let input = DeploymentSyncInput {
            now,
            feature_gates: Default::default(),
            kinds: Default::default(),
            key: format!("{}/{}", d.metadata.namespace, d.metadata.name),
            deployment: Some(d.clone()),
            replica_sets: self.replica_sets.clone(),
            pods: Vec::new(),
        };
        let mut calls = Vec::new();
        let mut failure: Option<Error> = None;
        self.before.clear();
        let done = run_sync(input, |call| {
            let (result, err) = self.apply(call, t);
            if let Some(e) = err {
                failure.get_or_insert(e);
            }
            calls.push(call.clone());
            result
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        limiting::note_calls(
            decided,
            &calls,
            &self.before,
            &self.replica_sets,
            &self.deployment.spec.template,
        );
        Ok(done.requeue)
    }

    /// The in-memory API server: applies `call`, answers as the server would.
    fn apply(&mut self, call: &ApiCall, t: i64) -> (ApiResult, Option<Error>) {
        let ok = |object: Option<Value>| ApiResult::Ok { object };
        let now = self.at(t);
        match call {
            ApiCall::GetDeployment { .. } => (ok(Some(Value::clone(&self.deployment.wire))), None),
            ApiCall::PatchReplicaSet { .. } => (ok(None), None),
            ApiCall::CreateReplicaSet { object, .. } => {
                let mut object = object.clone();
                self.made += 1;
                if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.insert("uid".into(), Value::from(format!("forecast-{}", self.made)));
                    meta.insert("creationTimestamp".into(), Value::from(now.to_rfc3339()));
                    meta.insert("generation".into(), Value::from(1));
                }
                match Rs::from_value(object.clone()) {
                    Ok(rs) => match self.add_created(rs, t) {
                        Ok(()) => (ok(Some(object)), None),
                        Err(e) => (ok(None), Some(e.under("forecast.createReplicaSet"))),
                    },
                    Err(e) => (ok(None), Some(e.under("forecast.createReplicaSet"))),
                }
            }
            ApiCall::UpdateReplicaSet { name, object, .. } => {
                match Rs::from_value(object.clone()) {
                    Ok(rs) => match self.update_replica_set(name, rs, t) {
                        Ok(()) => (ok(None), None),
                        Err(e) => (ok(None), Some(e.under("forecast.updateReplicaSet"))),
                    },
                    Err(e) => (ok(None), Some(e.under("forecast.updateReplicaSet"))),
                }
            }
            ApiCall::DeleteReplicaSet { name, .. } => {
                let gone = self
                    .replica_sets
                    .iter()
                    .position(|r| &r.metadata.name == name);
                if let Some(i) = gone {
                    let rs = self.replica_sets.remove(i);
                    let typed = (*rs.typed).clone();
                    if let Err(e) = self.observe_owner(t, OwnerChange::Delete(typed)) {
                        return (ok(None), Some(e.under("forecast.deleteReplicaSet")));
                    }
                }
                (ok(None), None)
            }
            ApiCall::UpdateDeployment { object, .. }
            | ApiCall::UpdateDeploymentStatus { object, .. } => {
                match Wire::from_value(object.clone()) {
                    Ok(d) => {
                        self.deployment = d;
                        (ok(None), None)
                    }
                    Err(e) => (ok(None), Some(e.under("forecast.updateDeployment"))),
                }
            }
        }
    }

    fn add_created(&mut self, rs: Rs, t: i64) -> Result<()> {
        let mut typed = (*rs.typed).clone();
        typed.metadata.resource_version = Some(self.next_version());
        self.observe_owner(t, OwnerChange::Upsert(typed))?;
        self.replica_sets.push(rs);
        Ok(())
    }

    fn update_replica_set(&mut self, name: &str, mut rs: Rs, t: i64) -> Result<()> {
        let version = self.next_version();
        let Some(slot) = self
            .replica_sets
            .iter_mut()
            .find(|r| r.metadata.name == name)
        else {
            return Ok(());
        };
        self.before
            .entry(name.to_owned())
            .or_insert(slot.spec.desired());
        let generation = slot.metadata.generation.unwrap_or(0);
        let bump = slot.spec != rs.spec;
        rs.status = slot.status.clone();
        rs.metadata.generation = Some(if bump { generation + 1 } else { generation });
        rs.metadata.resource_version = Some(version);
        *slot = rs;
        let typed = (*slot.typed).clone();
        self.observe_owner(t, OwnerChange::Upsert(typed))
    }

    /// Sets the Deployment's `spec.replicas` (a write of its scale subresource).
    pub(crate) fn scale_deployment(&mut self, replicas: i32) {
        if self.deployment.spec.replicas == Some(replicas) {
            return;
        }
        let generation = self.deployment.metadata.generation.unwrap_or(0) + 1;
        self.deployment.spec.replicas = Some(replicas);
        self.deployment.metadata.generation = Some(generation);
        let wire = std::sync::Arc::make_mut(&mut self.deployment.wire);
        if let Some(spec) = wire.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("replicas".into(), Value::from(replicas));
        }
        if let Some(meta) = wire.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("generation".into(), Value::from(generation));
        }
    }

    /// A user's edit of the Deployment's pod template (a rollout): the template
    /// replaced, the generation moved on.
    pub(crate) fn set_template(&mut self, template: Value) {
        let generation = self.deployment.metadata.generation.unwrap_or(0) + 1;
        self.deployment.spec.template = template.clone();
        self.deployment.metadata.generation = Some(generation);
        let wire = std::sync::Arc::make_mut(&mut self.deployment.wire);
        if let Some(spec) = wire.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("template".into(), template);
        }
        if let Some(meta) = wire.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("generation".into(), Value::from(generation));
        }
    }
}
