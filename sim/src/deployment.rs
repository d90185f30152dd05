//! The Deployment controller loop beside the ReplicaSet one: its own rate-limited work
//! queue; the engine's handlers (D-110..D-114, in `watch.rs`) decide which watch event
//! enqueues which deployment; one worker runs the engine's whole sync ([`run_sync`])
//! against the simulated API server (GET the deployment, create/update/patch/delete
//! ReplicaSets, update the deployment and its status, each write checked against its
//! resourceVersion), records the events, requeues as the progress check (D-78) and
//! `handleErr` (D-115) say. The ReplicaSet controller then runs the ReplicaSets the
//! Deployment makes. For each sync the engine's [`limiting`] names the rule that decided
//! or limited the step.
//!
//! Also here: the Deployment edits (`kubectl set image`, `scale`, `rollout pause`,
//! `resume`, `undo`), the failing-template model of the kubelet, and the Deployment's
//! view for `state()` (its ReplicaSets as lanes).

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use serde_json::{json, Value};

use replicore::deployment::forecast::FailureModel;
use replicore::deployment::handlers::{after_sync, QueueAction};
use replicore::deployment::hash::pod_template_hash;
use replicore::deployment::limiting::{self, StepBounds, StepCalls, StepCounts};
use replicore::deployment::model::{
    reason, Deployment, DeploymentStatus, Rs, Wire, HASH_LABEL, RECREATE, REVISION_ANNOTATION,
};
use replicore::deployment::newrs::replica_set_name;
use replicore::deployment::revision::{revision, set_deployment_annotations_to};
use replicore::deployment::rollback::without_hash_label;
use replicore::deployment::strategy::{max_surge, max_unavailable};
use replicore::deployment::{run_sync, ApiCall, ApiResult, DeploymentSyncInput, ProgressRequeue};
use replicore::error::{Error, Result};
use replicore::model::{Pod, ReplicaSet};
use replicore::outcome::ApiError;
use replicore::time::Time;
use replicore::Event;

use super::apiserver::{self, set_field, Change};
use super::clock::{ms_of, Ms};
use super::kubelet::PodLife;
use super::queue::WorkQueue;
use super::scenario::{ScenarioDeployment, TemplateFailure, DEFAULT_IMAGE};
use super::trace::{DeploymentCallTrace, DeploymentSyncTrace, QueueOp, What};
use super::{Ev, SimEvent, Simulator, EVENTS_CAPACITY, HISTORY_CAPACITY};
use replicore::pods::PodCounts;

/// The Deployment controller's own state.
#[derive(Clone, Debug, Default)]
pub struct DeploymentController {
    /// The simulation's Deployment (`namespace/name`), when it has one.
    pub key: Option<String>,
    pub queue: WorkQueue,
    pub worker_pending: bool,
    /// Images whose pods fail, and how.
    pub failing: BTreeMap<String, TemplateFailure>,
    /// The first template's image (the scenario's failure model spares it).
    pub first_image: String,
    /// The scenario's failure model for templates other than the first.
    pub failure: Option<FailureModel>,
    /// The last sync's step (rule, counts, bounds).
    pub last_step: Option<DeploymentStep>,
    /// The Deployment's lanes over virtual time.
    pub history: VecDeque<DeploymentSample>,
}

/// The rule that decided or limited one sync's step, with what it saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStep {
    pub t: Ms,
    pub rule: String,
    pub why: String,
    pub counts: StepCounts,
    pub bounds: StepBounds,
}

/// One ReplicaSet of the Deployment: a lane.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimLane {
    pub name: String,
    pub key: String,
    /// `deployment.kubernetes.io/revision`.
    pub revision: Option<i64>,
    /// Of the Deployment's current template.
    pub new: bool,
    pub image: String,
    /// `spec.replicas`.
    pub desired: i32,
    /// The ReplicaSet's status as its controller wrote it.
    pub status_replicas: i32,
    pub status_ready: i32,
    pub status_available: i32,
    /// The store's pods of the ReplicaSet (the truth).
    pub counts: PodCounts,
}

/// The Deployment as `state().deployment` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimDeployment {
    pub namespace: String,
    pub name: String,
    pub key: String,
    pub uid: String,
    pub generation: i64,
    pub replicas: i32,
    pub strategy: String,
    /// The resolved bounds (D-05..D-08): maxSurge and maxUnavailable as numbers, at most
    /// `maxPods` pods, at least `minAvailable` available (Recreate: `R` and 0).
    pub max_surge: i32,
    pub max_unavailable: i32,
    pub max_pods: i32,
    pub min_available: i32,
    pub min_ready_seconds: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub progress_deadline_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub revision_history_limit: Option<i32>,
    pub paused: bool,
    pub image: String,
    /// The Deployment's revision annotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub revision: Option<String>,
    pub status: DeploymentStatus,
    /// The ReplicaSets it controls, oldest first.
    pub lanes: Vec<SimLane>,
    /// Pods of all lanes (store truth): existing (not terminating) and available.
    pub pods: usize,
    pub available: usize,
    /// The new ReplicaSet has every replica available, no old pod is left, and the
    /// controller observed the current generation.
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub last_step: Option<DeploymentStep>,
    pub failing_images: BTreeMap<String, TemplateFailure>,
}

/// One lane in a [`DeploymentSample`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LaneSample {
    pub name: String,
    pub revision: Option<i64>,
    pub new: bool,
    pub desired: i32,
    pub current: usize,
    pub ready: usize,
    pub available: usize,
}

/// One point of the Deployment timeline (store truth).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSample {
    pub t: Ms,
    pub replicas: i32,
    pub pods: usize,
    pub available: usize,
    pub terminating: usize,
    pub max_pods: i32,
    pub min_available: i32,
    pub lanes: Vec<LaneSample>,
}

/// The wire object of a scenario's Deployment.
pub(crate) fn deployment_wire(d: &ScenarioDeployment, uid: String, start: Time) -> Value {
    let name = d.name.clone().unwrap_or_else(|| "web".into());
    let namespace = d.namespace.clone().unwrap_or_else(|| "default".into());
    let image = d.image.clone().unwrap_or_else(|| DEFAULT_IMAGE.into());
    let strategy = match d.strategy.as_deref() {
        Some(RECREATE) => json!({"type": RECREATE}),
        _ => json!({
            "type": "RollingUpdate",
            "rollingUpdate": {
                "maxSurge": d.max_surge.clone().map_or_else(|| json!("25%"), |v| json!(v)),
                "maxUnavailable": d.max_unavailable.clone().map_or_else(|| json!("25%"), |v| json!(v)),
            }
        }),
    };
    let mut spec = json!({
        "replicas": d.replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "app", "image": image}]}
        },
        "strategy": strategy,
        "revisionHistoryLimit": d.revision_history_limit.unwrap_or(10),
        "progressDeadlineSeconds": d.progress_deadline_seconds.unwrap_or(600),
    });
    if let Some(m) = d.min_ready_seconds.filter(|m| *m > 0) {
        set_field(&mut spec, &["minReadySeconds"], m.into());
    }
    if d.paused == Some(true) {
        set_field(&mut spec, &["paused"], true.into());
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "generation": 1,
            "creationTimestamp": start.to_rfc3339(),
            "labels": {"app": name},
        },
        "spec": spec,
    })
}

/// The first container's image of a pod template (wire) or pod spec.
fn image_of_spec(spec: Option<&Value>) -> String {
    spec.and_then(|s| s.get("containers"))
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("image"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn template_image(template: &Value) -> String {
    image_of_spec(template.get("spec"))
}

/// A ReplicaSet as the Deployment controller reads it (its wire form).
fn rs_wire(rs: &ReplicaSet) -> Option<Rs> {
    let v = serde_json::to_value(rs).ok()?;
    Wire::from_value(v).ok()
}

fn replicas_sent(call: &ApiCall) -> Option<i32> {
    match call {
        ApiCall::CreateReplicaSet { object, .. } | ApiCall::UpdateReplicaSet { object, .. } => {
            object
                .get("spec")
                .and_then(|s| s.get("replicas"))
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
        }
        _ => None,
    }
}

fn controlled_by(rs: &ReplicaSet, d: &Deployment) -> bool {
    rs.metadata.namespace == d.metadata.namespace
        && rs
            .metadata
            .controller_ref()
            .is_some_and(|r| r.uid == d.metadata.uid)
}

impl Simulator {
    /// Creates the scenario's Deployment in the store (at the start); with an HPA, its
    /// container requests what the HPA's pod model says.
    pub(crate) fn create_deployment(&mut self, d: &ScenarioDeployment) -> Result<Change> {
        let uid = apiserver::new_uid(&mut self.rng);
        let mut wire = deployment_wire(d, uid, self.clock.now_instant());
        if let Some(h) = &self.hpa {
            let container = h.container(d.image.as_deref());
            set_field(
                &mut wire,
                &["spec", "template", "spec", "containers"],
                json!([container]),
            );
        }
        self.dctrl.first_image = image_of_spec(
            wire.get("spec")
                .and_then(|s| s.get("template"))
                .and_then(|t| t.get("spec")),
        );
        self.dctrl.failure = d.failure.clone();
        let change = self
            .api
            .put_deployment(wire)
            .map_err(|e| e.under("deployment"))?;
        self.dctrl.key = Some(change.object.key());
        Ok(change)
    }

    /// A settled start (`settled`): the first template's ReplicaSet, as the Deployment
    /// controller names it (D-27), and its pods, Running and Ready since an hour before
    /// the start. Returns the changes for the informers' initial list.
    pub(crate) fn settle_deployment(&mut self) -> Result<Vec<Change>> {
        let refused = |e: ApiError| Error::Malformed {
            path: "deployment.settled".into(),
            message: e.message,
        };
        let Some(d) = self.deployment().cloned() else {
            return Ok(Vec::new());
        };
        let mut template = d
            .wire
            .get("spec")
            .and_then(|s| s.get("template"))
            .cloned()
            .unwrap_or(Value::Null);
        let hash = pod_template_hash(&template, None).map_err(|e| e.under("deployment"))?;
        set_field(
            &mut template,
            &["metadata", "labels", HASH_LABEL],
            hash.clone().into(),
        );
        let labels = template
            .pointer("/metadata/labels")
            .cloned()
            .unwrap_or(Value::Null);
        let replicas = d.replicas();
        let mut spec = json!({"replicas": replicas, "selector": {"matchLabels": labels},
            "template": template});
        if d.spec.min_ready_seconds > 0 {
            set_field(
                &mut spec,
                &["minReadySeconds"],
                d.spec.min_ready_seconds.into(),
            );
        }
        let body = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": replica_set_name(&d.metadata.name, &hash),
                "namespace": d.metadata.namespace, "labels": labels,
                "annotations": {REVISION_ANNOTATION: "1"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                    "name": d.metadata.name, "uid": d.metadata.uid, "controller": true,
                    "blockOwnerDeletion": true}]},
            "spec": spec});
        let now = self.clock.now_instant();
        let (rs, change) = self
            .api
            .create_owner(&body, now, &mut self.rng)
            .map_err(refused)?;
        self.owner_keys.push(rs.metadata.key());
        let mut changes = vec![change];
        let pod =
            replicore::replicaset::template::pod_from_template(&rs, &self.ctrl.config.owner_kind);
        let since = now.plus(replicore::time::Duration::from_seconds(-3600));
        for _ in 0..replicas {
            let (mut p, _) = self
                .api
                .create_pod(&pod, since, &mut self.rng, apiserver::Admission::Allow)
                .map_err(refused)?;
            let node = self.nodes.iter().min_by_key(|n| self.node_load(n)).cloned();
            p.spec.node_name = node;
            p.status.phase = Some("Running".into());
            super::kubelet::set_restarts(&mut p, 0);
            super::kubelet::set_ready(&mut p, true, since);
            self.lives.insert(p.uid().to_owned(), PodLife::default());
            let mut c = self.api.put_pod(p);
            c.kind = apiserver::ChangeKind::Added;
            changes.push(c);
        }
        Ok(changes)
    }

    pub(crate) fn deployment_queue_add(&mut self, key: &str) {
        self.dctrl.queue.add(key);
        self.record(What::DeploymentQueue {
            op: QueueOp::Add,
            key: key.to_owned(),
            delay_ms: None,
        });
    }

    fn deployment_queue_add_after(&mut self, key: &str, delay: Ms, op: QueueOp) {
        let now = self.clock.now();
        if let Some(t) = self.dctrl.queue.add_after(key, delay, now) {
            self.agenda.at(t, Ev::DeploymentQueueFire(key.to_owned()));
        }
        self.record(What::DeploymentQueue {
            op,
            key: key.to_owned(),
            delay_ms: Some(delay),
        });
    }

    fn deployment_queue_rate_limited(&mut self, key: &str) {
        let now = self.clock.now();
        let delay = self.dctrl.queue.when(key, now);
        self.deployment_queue_add_after(key, delay, QueueOp::AddRateLimited);
    }

    fn deployment_queue_forget(&mut self, key: &str, op: QueueOp) {
        if self.dctrl.queue.failures(key) > 0 || op == QueueOp::Drop {
            self.record(What::DeploymentQueue {
                op,
                key: key.to_owned(),
                delay_ms: None,
            });
        }
        self.dctrl.queue.forget(key);
    }

    /// Schedules the Deployment worker when keys are waiting.
    pub(crate) fn deployment_kick(&mut self) {
        if self.dctrl.queue.ready_len() > 0 && !self.dctrl.worker_pending {
            self.dctrl.worker_pending = true;
            let now = self.clock.now();
            self.agenda.at(now, Ev::DeploymentWork);
        }
    }

    pub(crate) fn deployment_fire(&mut self, key: &str) {
        let t = self.clock.now();
        self.dctrl.queue.fire(key, t);
    }

    /// `processNextWorkItem` of the Deployment controller: one key, one sync, then
    /// `handleErr` (D-115).
    pub(crate) fn deployment_work(&mut self) {
        self.dctrl.worker_pending = false;
        let Some(key) = self.dctrl.queue.get() else {
            return;
        };
        self.deployment_sync(&key);
        self.dctrl.queue.done(&key);
    }

    /// `syncDeployment(key)`, the engine deciding every call.
    fn deployment_sync(&mut self, key: &str) {
        let now = self.clock.now_instant();
        let deployment = self.informer.deployments.get(key).cloned();
        let recreate = deployment
            .as_ref()
            .is_some_and(|d| d.spec.strategy.type_ == RECREATE);
        let replica_sets: Vec<Rs> = self.informer.owners.values().filter_map(rs_wire).collect();
        let mut before: BTreeMap<String, i32> = BTreeMap::new();
        before.extend(
            replica_sets
                .iter()
                .map(|rs| (rs.metadata.name.clone(), rs.spec.desired())),
        );
        // Only Recreate reads pods (D-61).
        let pods: Vec<Pod> = if recreate {
            self.informer.pods.iter().cloned().collect()
        } else {
            Vec::new()
        };
        let input = DeploymentSyncInput {
            now,
            feature_gates: self.ctrl.config.feature_gates,
            kinds: Default::default(),
            key: key.to_owned(),
            deployment,
            replica_sets,
            pods,
        };
        let mut calls: Vec<ApiCall> = Vec::new();
        let mut traced: Vec<DeploymentCallTrace> = Vec::new();
        let result = run_sync(input, |call| {
            let r = self.deployment_call(call, now);
            let error = match &r {
                ApiResult::Error(e) => Some(e.message.clone()),
                ApiResult::Ok { .. } => None,
            };
            traced.push(DeploymentCallTrace {
                verb: call.verb(),
                resource: call.resource(),
                subresource: call.subresource(),
                name: call.name().to_owned(),
                replicas: replicas_sent(call),
                ok: error.is_none(),
                error,
            });
            calls.push(call.clone());
            r
        });
        let mut trace = DeploymentSyncTrace {
            key: key.to_owned(),
            calls: traced,
            events: Vec::new(),
            error: None,
            invalid: None,
            progress: ProgressRequeue::None,
            queue: QueueAction::Forget,
            step: StepCalls::default(),
            counts: StepCounts::default(),
            bounds: StepBounds::default(),
            rule: String::new(),
            why: String::new(),
        };
        match result {
            Ok(done) => {
                // The progress check requeues from inside the sync (D-78) …
                match &done.requeue {
                    ProgressRequeue::None => {}
                    ProgressRequeue::After { after } => {
                        self.deployment_queue_add_after(key, ms_of(*after), QueueOp::AddAfter);
                    }
                    ProgressRequeue::RateLimited => self.deployment_queue_rate_limited(key),
                }
                // … then `handleErr` (D-115).
                let action = after_sync(&done, self.dctrl.queue.failures(key));
                match action {
                    QueueAction::Forget => self.deployment_queue_forget(key, QueueOp::Forget),
                    QueueAction::RequeueRateLimited => self.deployment_queue_rate_limited(key),
                    QueueAction::Drop => self.deployment_queue_forget(key, QueueOp::Drop),
                }
                trace.queue = action;
                trace.progress = done.requeue.clone();
                trace.error = done.error.clone();
                trace.events = done.events.clone();
            }
            Err(e) => {
                // Input the engine refuses (where upstream would fail the same way every
                // time): the key is dropped, not retried.
                trace.invalid = Some(e.to_string());
                trace.queue = QueueAction::Drop;
                self.deployment_queue_forget(key, QueueOp::Drop);
            }
        }
        let t = self.clock.now();
        for ev in &trace.events {
            if self.events.len() >= EVENTS_CAPACITY {
                self.events.pop_front();
            }
            self.events.push_back(SimEvent {
                t,
                at: now,
                owner: key.to_owned(),
                event: Event {
                    type_: ev.type_.clone(),
                    reason: ev.reason.clone(),
                    message: ev.message.clone(),
                },
            });
        }
        // Which rule decided or limited the step: the engine's reading of the calls.
        if let Some(d) = self.api.deployments.get(key).cloned() {
            let after: Vec<Rs> = self
                .api
                .owners
                .values()
                .filter(|rs| controlled_by(rs, &d))
                .filter_map(rs_wire)
                .collect();
            let template = &d.spec.template;
            limiting::note_calls(&mut trace.step, &calls, &before, &after, template);
            trace.counts = limiting::counts(&after, template);
            trace.bounds = limiting::bounds(&d);
            let rule = limiting::limiting_rule(
                d.replicas(),
                &trace.step,
                trace.counts,
                trace.bounds,
                d.spec.strategy.type_ == RECREATE,
            );
            trace.rule = rule.rule;
            trace.why = rule.why;
            self.dctrl.last_step = Some(DeploymentStep {
                t,
                rule: trace.rule.clone(),
                why: trace.why.clone(),
                counts: trace.counts,
                bounds: trace.bounds,
            });
        }
        self.record(What::DeploymentSync {
            sync: Box::new(trace),
        });
    }

    /// The simulated API server answers one call of the Deployment controller.
    fn deployment_call(&mut self, call: &ApiCall, now: Time) -> ApiResult {
        let key = format!("{}/{}", call.namespace(), call.name());
        let result: std::result::Result<Option<Value>, ApiError> = match call {
            ApiCall::GetDeployment { .. } => match self.api.deployments.get(&key) {
                Some(d) => Ok(Some(d.wire.as_ref().clone())),
                None => Err(ApiError {
                    reason: "NotFound".into(),
                    message: format!("deployments.apps \"{}\" not found", call.name()),
                    code: Some(404),
                    causes: Vec::new(),
                }),
            },
            ApiCall::PatchReplicaSet { patch, .. } => {
                self.api.patch_owner(&key, patch).map(|c| self.written(c))
            }
            ApiCall::CreateReplicaSet { object, .. } => {
                match self.api.create_owner(object, now, &mut self.rng) {
                    Ok((rs, change)) => {
                        let k = rs.metadata.key();
                        if !self.owner_keys.contains(&k) {
                            self.owner_keys.push(k);
                        }
                        Ok(self.written(change))
                    }
                    Err(e) => Err(e),
                }
            }
            ApiCall::UpdateReplicaSet { object, .. } => self
                .api
                .replace_owner(&key, object)
                .map(|c| self.written(c)),
            ApiCall::DeleteReplicaSet { .. } => match self.api.remove_owner(&key) {
                Some(c) => {
                    self.owner_keys.retain(|k| k != &key);
                    self.publish(c);
                    Ok(None)
                }
                None => Err(ApiError {
                    reason: "NotFound".into(),
                    message: format!("replicasets.apps \"{}\" not found", call.name()),
                    code: Some(404),
                    causes: Vec::new(),
                }),
            },
            ApiCall::UpdateDeployment { object, .. } => self
                .api
                .replace_deployment(&key, object, false)
                .map(|c| self.written(c)),
            ApiCall::UpdateDeploymentStatus { object, .. } => self
                .api
                .replace_deployment(&key, object, true)
                .map(|c| self.written(c)),
        };
        match result {
            Ok(object) => ApiResult::Ok { object },
            Err(e) => ApiResult::Error(e),
        }
    }

    /// A write the watch will carry; the object as the server returned it.
    fn written(&mut self, change: Change) -> Option<Value> {
        let object = match &change.object {
            apiserver::Object::Owner(rs) => serde_json::to_value(rs).ok(),
            apiserver::Object::Deployment(d) => Some(d.wire.as_ref().clone()),
            apiserver::Object::Pod(p) => serde_json::to_value(p).ok(),
        };
        self.publish(change);
        object
    }

    /// How a pod created now fails, if it does: its image is failing, or the
    /// scenario's failure model takes it (templates other than the first).
    pub(crate) fn failure_of(&mut self, pod: &Pod) -> Option<TemplateFailure> {
        self.dctrl.key.as_ref()?;
        let image = self.pod_image(pod);
        if let Some(f) = self.dctrl.failing.get(&image) {
            return Some(*f);
        }
        if image == self.dctrl.first_image {
            return None;
        }
        match &self.dctrl.failure {
            // The simulator's pods are its own: "as observed" is no failure here.
            None | Some(FailureModel::None | FailureModel::Observed) => None,
            Some(FailureModel::NewTemplateFails) => Some(TemplateFailure::NeverReady),
            Some(FailureModel::NeverReadyFraction { fraction }) => self
                .rng
                .chance(*fraction)
                .then_some(TemplateFailure::NeverReady),
        }
    }

    /// The image of a pod: its ReplicaSet's template's (the pod model keeps no
    /// containers).
    pub fn pod_image(&self, pod: &Pod) -> String {
        let Some(r) = pod.metadata.controller_ref() else {
            return String::new();
        };
        self.api
            .owners
            .values()
            .find(|rs| rs.metadata.uid == r.uid)
            .map(|rs| image_of_spec(Some(&rs.spec.template.spec)))
            .unwrap_or_default()
    }

    /// A failure laid onto a pod's life.
    pub(crate) fn apply_failure(life: &mut PodLife, f: Option<TemplateFailure>) {
        match f {
            Some(TemplateFailure::NeverReady) => life.never_ready = true,
            Some(TemplateFailure::CrashLoop) => life.crash_loop = true,
            None => {}
        }
    }

    fn deployment_key(&self) -> Result<String> {
        self.dctrl.key.clone().ok_or_else(|| Error::Malformed {
            path: "edit.op".into(),
            message: "no Deployment in the simulation".into(),
        })
    }

    /// A user's write to the Deployment's wire object, published.
    fn edit_deployment(&mut self, f: impl FnOnce(&mut Value)) -> Result<()> {
        let key = self.deployment_key()?;
        if let Some(c) = self
            .api
            .edit_deployment(&key, f)
            .map_err(|e| e.under("edit"))?
        {
            self.publish(c);
        }
        Ok(())
    }

    /// `kubectl set image`.
    pub(crate) fn set_image(&mut self, image: &str, fail: Option<TemplateFailure>) -> Result<()> {
        self.deployment_key()?;
        if let Some(f) = fail {
            self.dctrl.failing.insert(image.to_owned(), f);
        }
        let image = image.to_owned();
        self.edit_deployment(move |w| {
            let container = w
                .get_mut("spec")
                .and_then(|s| s.get_mut("template"))
                .and_then(|t| t.get_mut("spec"))
                .and_then(|s| s.get_mut("containers"))
                .and_then(Value::as_array_mut)
                .and_then(|c| c.first_mut());
            if let Some(c) = container {
                set_field(c, &["image"], image.into());
            }
        })
    }

    /// The current template's image fails from now on.
    pub(crate) fn fail_template(&mut self, failure: TemplateFailure) -> Result<()> {
        let key = self.deployment_key()?;
        let image = self
            .api
            .deployments
            .get(&key)
            .map(|d| template_image(&d.spec.template))
            .unwrap_or_default();
        self.dctrl.failing.insert(image, failure);
        Ok(())
    }

    /// `kubectl scale deploy --replicas`.
    pub(crate) fn scale_deployment(&mut self, replicas: i32) -> Result<()> {
        self.edit_deployment(move |w| set_field(w, &["spec", "replicas"], replicas.into()))
    }

    /// `kubectl rollout pause` / `resume`.
    pub(crate) fn pause_deployment(&mut self, paused: bool) -> Result<()> {
        self.edit_deployment(move |w| {
            if paused {
                set_field(w, &["spec", "paused"], true.into());
            } else if let Some(spec) = w.get_mut("spec").and_then(Value::as_object_mut) {
                spec.remove("paused");
            }
        })
    }

    /// `kubectl rollout undo [--to-revision=N]`, client-side: the revision's ReplicaSet
    /// template without its pod-template-hash label, and its annotations (but the
    /// Deployment's own revision bookkeeping, D-91), copied into the Deployment. No
    /// revision (or 0): the one before the latest. A template already current changes
    /// nothing (kubectl's "skipped rollback").
    pub(crate) fn undo_deployment(&mut self, to: Option<i64>) -> Result<()> {
        let key = self.deployment_key()?;
        let Some(d) = self.api.deployments.get(&key).cloned() else {
            return Err(Error::Malformed {
                path: "edit.op".into(),
                message: "no Deployment in the simulation".into(),
            });
        };
        let mut owned: Vec<(i64, Rs)> = self
            .api
            .owners
            .values()
            .filter(|rs| controlled_by(rs, &d))
            .filter_map(|rs| Some((revision(&rs.metadata)?, rs_wire(rs)?)))
            .collect();
        replicore::sort::sort_by_key(&mut owned, |(r, _)| *r);
        let target = match to.filter(|r| *r > 0) {
            Some(r) => r,
            None => {
                let n = owned.len();
                match n.checked_sub(2).and_then(|i| owned.get(i)) {
                    Some((r, _)) => *r,
                    None => {
                        return Err(Error::Malformed {
                            path: "edit.revision".into(),
                            message: "no rollout history found for the Deployment".into(),
                        })
                    }
                }
            }
        };
        let Some((_, rs)) = owned.iter().find(|(r, _)| *r == target) else {
            return Err(Error::Malformed {
                path: "edit.revision".into(),
                message: format!("unable to find the specified revision {target}"),
            });
        };
        let template = rs
            .wire
            .get("spec")
            .and_then(|s| s.get("template"))
            .cloned()
            .unwrap_or(Value::Null);
        if limiting::is_new(rs, &d.spec.template) {
            return Ok(());
        }
        let mut typed = (*d.typed).clone();
        set_deployment_annotations_to(&mut typed, &rs.metadata);
        let annotations = serde_json::to_value(&typed.metadata.annotations).unwrap_or(Value::Null);
        let template = without_hash_label(&template);
        self.edit_deployment(move |w| {
            set_field(w, &["spec", "template"], template);
            set_field(w, &["metadata", "annotations"], annotations);
        })
    }

    /// The Deployment's view, when the simulation has one.
    pub(crate) fn sim_deployment(&self) -> Option<SimDeployment> {
        let key = self.dctrl.key.as_ref()?;
        let d = self.api.deployments.get(key)?;
        let lanes = self.lanes(d);
        let bounds = limiting::bounds(d);
        let (mut pods, mut available) = (0, 0);
        for l in &lanes {
            pods += l.counts.active;
            available += l.counts.available;
        }
        let r = d.replicas();
        let r_usize = usize::try_from(r.max(0)).unwrap_or(0);
        let complete = d.status.observed_generation >= d.metadata.generation.unwrap_or(0)
            && lanes.iter().all(|l| {
                if l.new {
                    l.desired == r && l.counts.available == r_usize
                } else {
                    l.desired == 0 && l.counts.active == 0
                }
            })
            && lanes.iter().any(|l| l.new);
        Some(SimDeployment {
            namespace: d.metadata.namespace.clone(),
            name: d.metadata.name.clone(),
            key: key.clone(),
            uid: d.metadata.uid.clone(),
            generation: d.metadata.generation.unwrap_or(0),
            replicas: r,
            strategy: d.spec.strategy.type_.clone(),
            max_surge: max_surge(d),
            max_unavailable: max_unavailable(d),
            max_pods: bounds.max_pods,
            min_available: bounds.min_available,
            min_ready_seconds: d.spec.min_ready_seconds,
            progress_deadline_seconds: d.spec.progress_deadline_seconds,
            revision_history_limit: d.spec.revision_history_limit,
            paused: d.spec.paused,
            image: template_image(&d.spec.template),
            revision: d
                .annotation(replicore::deployment::model::REVISION_ANNOTATION)
                .map(str::to_owned),
            status: d.status.clone(),
            lanes,
            pods,
            available,
            complete,
            last_step: self.dctrl.last_step.clone(),
            failing_images: self.dctrl.failing.clone(),
        })
    }

    pub(crate) fn lanes(&self, d: &Wire<Deployment>) -> Vec<SimLane> {
        let mut rss: Vec<&ReplicaSet> = self
            .api
            .owners
            .values()
            .filter(|rs| controlled_by(rs, d))
            .collect();
        replicore::sort::sort_by(&mut rss, |a, b| {
            (a.metadata.creation_timestamp, &a.metadata.name)
                .cmp(&(b.metadata.creation_timestamp, &b.metadata.name))
        });
        rss.into_iter()
            .map(|rs| {
                let wire = rs_wire(rs);
                SimLane {
                    name: rs.metadata.name.clone(),
                    key: rs.metadata.key(),
                    revision: revision(&rs.metadata),
                    new: wire
                        .as_ref()
                        .is_some_and(|w| limiting::is_new(w, &d.spec.template)),
                    image: image_of_spec(Some(&rs.spec.template.spec)),
                    desired: rs.spec.desired(),
                    status_replicas: rs.status.replicas,
                    status_ready: rs.status.ready_replicas,
                    status_available: rs.status.available_replicas,
                    counts: self.counts(rs),
                }
            })
            .collect()
    }

    /// A Deployment timeline point when anything changed.
    pub(crate) fn deployment_sample(&mut self) {
        let Some(view) = self.sim_deployment() else {
            return;
        };
        let s = DeploymentSample {
            t: self.clock.now(),
            replicas: view.replicas,
            pods: view.pods,
            available: view.available,
            terminating: view.lanes.iter().map(|l| l.counts.terminating).sum(),
            max_pods: view.max_pods,
            min_available: view.min_available,
            lanes: view
                .lanes
                .iter()
                .map(|l| LaneSample {
                    name: l.name.clone(),
                    revision: l.revision,
                    new: l.new,
                    desired: l.desired,
                    current: l.counts.active,
                    ready: l.counts.ready,
                    available: l.counts.available,
                })
                .collect(),
        };
        let same = self.dctrl.history.back().is_some_and(|l| {
            let mut l = l.clone();
            l.t = s.t;
            l == s
        });
        if !same {
            if self.dctrl.history.len() >= HISTORY_CAPACITY {
                self.dctrl.history.pop_front();
            }
            self.dctrl.history.push_back(s);
        }
    }

    /// The Deployment's lanes over virtual time (empty without a Deployment).
    pub fn deployment_history(&self) -> impl Iterator<Item = &DeploymentSample> {
        self.dctrl.history.iter()
    }

    /// The Deployment syncs in the trace, in order.
    pub fn deployment_syncs(&self) -> impl Iterator<Item = &DeploymentSyncTrace> {
        self.trace.since(0).filter_map(|e| match &e.what {
            What::DeploymentSync { sync } => Some(&**sync),
            _ => None,
        })
    }

    /// The store's Deployment (wire), when the simulation has one.
    pub fn deployment(&self) -> Option<&Wire<Deployment>> {
        self.api.deployments.get(self.dctrl.key.as_ref()?)
    }

    /// The Progressing condition's reason, when there is one.
    pub fn progressing_reason(&self) -> Option<&str> {
        self.deployment()?
            .status
            .condition(reason::PROGRESSING)
            .map(|c| c.reason.as_str())
    }
}
