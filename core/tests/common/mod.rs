//! Builders shared by the per-rule tests: pods, ReplicaSets and sync inputs written as the
//! JSON the API prints (`serde_json::json!`) and read through `replicore::input::from_value`,
//! so every fixture also goes through the engine's own parser.
#![allow(dead_code)]

use replicore::expectations::ExpectationsRecord;
use replicore::outcome::{CallResult, SyncOutcome};
use replicore::{Completion, CreatePlan, DeletePlan, Idle, Manage, SyncPlan};
use replicore::{Config, Duration, Expectations, Pod, ReplicaSet, SyncInput, Time};
use serde_json::{json, Value};

/// The controller clock of every fixture unless a test says otherwise.
pub const NOW: &str = "2026-11-21T04:40:12Z";

pub fn now() -> Time {
    time(NOW)
}

/// Parses an RFC 3339 instant (panics on the zero time or garbage: fixtures only).
pub fn time(text: &str) -> Time {
    Time::parse(text)
        .expect("fixture timestamp parses")
        .expect("fixture timestamp is not the zero time")
}

/// `NOW - seconds`, as RFC 3339 (fractions allowed).
pub fn ago(seconds: f64) -> String {
    at(now(), -seconds)
}

/// `base + seconds`, as RFC 3339.
pub fn at(base: Time, seconds: f64) -> String {
    base.plus(secs(seconds)).to_rfc3339()
}

/// A duration of (possibly fractional) seconds.
pub fn secs(seconds: f64) -> Duration {
    Duration::from_nanos((seconds * 1e9).round() as i64)
}

pub const HOUR: f64 = 3600.0;
pub const MONTH: f64 = 30.0 * 24.0 * 3600.0;

// ---------------------------------------------------------------------------------------
// ReplicaSets

/// A ReplicaSet in JSON. Defaults: namespace `default`, uid `uid-<name>`, generation 1
/// (already observed), replicas 3, selector and template labels `{app: web}`.
#[derive(Clone, Debug)]
pub struct Rs {
    pub v: Value,
}

pub fn rs(name: &str) -> Rs {
    Rs {
        v: json!({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": format!("uid-{name}"),
                "generation": 1,
                "resourceVersion": "18",
            },
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                },
            },
            "status": {"replicas": 0, "observedGeneration": 1},
        }),
    }
}

impl Rs {
    pub fn name(&self) -> String {
        self.v["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
    pub fn ns_name(&self) -> String {
        self.v["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
    pub fn uid_str(&self) -> String {
        self.v["metadata"]["uid"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
    /// `namespace/name`, the queue and expectations key.
    pub fn key(&self) -> String {
        format!("{}/{}", self.ns_name(), self.name())
    }
    pub fn ns(mut self, ns: &str) -> Self {
        self.v["metadata"]["namespace"] = json!(ns);
        self
    }
    pub fn uid(mut self, uid: &str) -> Self {
        self.v["metadata"]["uid"] = json!(uid);
        self
    }
    pub fn replicas(mut self, n: i64) -> Self {
        self.v["spec"]["replicas"] = json!(n);
        self
    }
    /// E-18: `spec.replicas` absent.
    pub fn no_replicas(mut self) -> Self {
        remove(&mut self.v["spec"], "replicas");
        self
    }
    pub fn min_ready(mut self, seconds: i64) -> Self {
        self.v["spec"]["minReadySeconds"] = json!(seconds);
        self
    }
    /// `spec.selector` = the given JSON (`{"matchLabels": ...}` etc.).
    pub fn selector(mut self, sel: Value) -> Self {
        self.v["spec"]["selector"] = sel;
        self
    }
    pub fn match_labels(self, labels: Value) -> Self {
        self.selector(json!({ "matchLabels": labels }))
    }
    /// a nil selector.
    pub fn no_selector(mut self) -> Self {
        remove(&mut self.v["spec"], "selector");
        self
    }
    pub fn template_labels(mut self, labels: Value) -> Self {
        self.v["spec"]["template"]["metadata"]["labels"] = labels;
        self
    }
    pub fn no_template_labels(mut self) -> Self {
        remove(&mut self.v["spec"]["template"]["metadata"], "labels");
        self
    }
    pub fn generation(mut self, g: i64) -> Self {
        self.v["metadata"]["generation"] = json!(g);
        self
    }
    pub fn deleting(mut self) -> Self {
        self.v["metadata"]["deletionTimestamp"] = json!(ago(10.0));
        self
    }
    /// A controller reference to an owner (e.g. a Deployment) with this UID.
    pub fn controlled_by(mut self, uid: &str) -> Self {
        self.v["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": "Deployment", "name": format!("deploy-{uid}"),
            "uid": uid, "controller": true, "blockOwnerDeletion": true,
        }]);
        self
    }
    /// The stored status (replaces it whole).
    pub fn status(mut self, status: Value) -> Self {
        self.v["status"] = status;
        self
    }
    pub fn build(&self) -> ReplicaSet {
        replicore::input::from_value(self.v.clone()).expect("fixture ReplicaSet parses")
    }
}

fn remove(v: &mut Value, field: &str) {
    if let Some(m) = v.as_object_mut() {
        m.remove(field);
    }
}

// ---------------------------------------------------------------------------------------
// Pods

/// A pod in JSON. Defaults: namespace `default`, uid `uid-<name>`, labels `{app: web}`,
/// phase Pending, no node, no owner, resourceVersion "1".
#[derive(Clone, Debug)]
pub struct P {
    pub v: Value,
}

pub fn pod(name: &str) -> P {
    P {
        v: json!({
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": format!("uid-{name}"),
                "resourceVersion": "1",
                "labels": {"app": "web"},
            },
            "spec": {},
            "status": {"phase": "Pending"},
        }),
    }
}

impl P {
    pub fn name(&self) -> String {
        self.v["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
    pub fn key(&self) -> String {
        format!(
            "{}/{}",
            self.v["metadata"]["namespace"].as_str().unwrap_or_default(),
            self.name()
        )
    }
    pub fn ns(mut self, ns: &str) -> Self {
        self.v["metadata"]["namespace"] = json!(ns);
        self
    }
    pub fn uid(mut self, uid: &str) -> Self {
        self.v["metadata"]["uid"] = json!(uid);
        self
    }
    pub fn rv(mut self, rv: &str) -> Self {
        self.v["metadata"]["resourceVersion"] = json!(rv);
        self
    }
    pub fn labels(mut self, labels: Value) -> Self {
        self.v["metadata"]["labels"] = labels;
        self
    }
    pub fn no_labels(mut self) -> Self {
        remove(&mut self.v["metadata"], "labels");
        self
    }
    /// Controlled by `owner` (kind ReplicaSet, its name and UID).
    pub fn owned_by(self, owner: &Rs) -> Self {
        self.controller_ref("ReplicaSet", &owner.name(), &owner.uid_str())
    }
    pub fn controller_ref(mut self, kind: &str, name: &str, uid: &str) -> Self {
        self.v["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
            "controller": true, "blockOwnerDeletion": true,
        }]);
        self
    }
    /// An owner reference without `controller: true`: the pod is still an orphan.
    pub fn non_controller_ref(mut self, owner: &Rs) -> Self {
        self.v["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner.name(),
            "uid": owner.uid_str(),
        }]);
        self
    }
    pub fn orphan(mut self) -> Self {
        remove(&mut self.v["metadata"], "ownerReferences");
        self
    }
    pub fn phase(mut self, phase: &str) -> Self {
        self.v["status"]["phase"] = json!(phase);
        self
    }
    pub fn no_phase(mut self) -> Self {
        remove(&mut self.v["status"], "phase");
        self
    }
    pub fn node(mut self, node: &str) -> Self {
        self.v["spec"]["nodeName"] = json!(node);
        self
    }
    /// Replaces the conditions list.
    pub fn conditions(mut self, conditions: Value) -> Self {
        self.v["status"]["conditions"] = conditions;
        self
    }
    /// Running with Ready=True since `since` (RFC 3339).
    pub fn ready_since(self, since: &str) -> Self {
        self.phase("Running").conditions(json!([
            {"type": "Ready", "status": "True", "lastTransitionTime": since}
        ]))
    }
    /// Running with Ready=True and no lastTransitionTime (zero ready time).
    pub fn ready_no_ltt(self) -> Self {
        self.phase("Running")
            .conditions(json!([{"type": "Ready", "status": "True"}]))
    }
    /// Running with Ready=False.
    pub fn not_ready(self) -> Self {
        self.phase("Running").conditions(json!([
            {"type": "Ready", "status": "False", "lastTransitionTime": NOW}
        ]))
    }
    pub fn created(mut self, at: &str) -> Self {
        self.v["metadata"]["creationTimestamp"] = json!(at);
        self
    }
    pub fn deleting(mut self) -> Self {
        self.v["metadata"]["deletionTimestamp"] = json!(ago(1.0));
        self
    }
    pub fn cost(mut self, cost: &str) -> Self {
        self.v["metadata"]["annotations"] =
            json!({"controller.kubernetes.io/pod-deletion-cost": cost});
        self
    }
    /// Regular container restart counts.
    pub fn restarts(mut self, counts: &[i32]) -> Self {
        let statuses: Vec<Value> = counts
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"name": format!("c{i}"), "restartCount": n}))
            .collect();
        self.v["status"]["containerStatuses"] = json!(statuses);
        self
    }
    /// A sidecar (init container with restartPolicy Always) named "sidecar".
    pub fn sidecar_restarts(mut self, n: i32) -> Self {
        self.v["spec"]["initContainers"] = json!([{"name": "sidecar", "restartPolicy": "Always"}]);
        self.v["status"]["initContainerStatuses"] = json!([{"name": "sidecar", "restartCount": n}]);
        self
    }
    pub fn build(&self) -> Pod {
        replicore::input::from_value(self.v.clone()).expect("fixture pod parses")
    }
}

/// Owned, Running and Ready for an hour: the typical healthy pod of `owner`.
pub fn healthy(name: &str, owner: &Rs) -> P {
    pod(name)
        .owned_by(owner)
        .node("node-1")
        .ready_since(&ago(HOUR))
}

/// R-30's pods: `kept` and `relabelled`, both healthy and owned by `owner`, the second
/// labelled out of its selector (`app: other`).
pub fn kept_and_relabelled(owner: &Rs) -> [P; 2] {
    [
        healthy("kept", owner),
        healthy("relabelled", owner).labels(json!({"app": "other"})),
    ]
}

/// the patch body with which `rs("web")` adopts `pod("orphan")`: only the new
/// controller reference (the server merges it by uid) and the pod-UID precondition.
pub fn web_adopts_orphan_patch() -> Value {
    json!({"metadata": {
        "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "uid-web",
            "controller": true, "blockOwnerDeletion": true,
        }],
        "uid": "uid-orphan",
    }})
}

pub fn build_pods(pods: &[P]) -> Vec<Pod> {
    pods.iter().map(P::build).collect()
}

// ---------------------------------------------------------------------------------------
// Sync inputs

/// A sync input under construction.
#[derive(Clone, Debug)]
pub struct In {
    pub owner: Rs,
    pub pods: Vec<P>,
    pub others: Vec<Rs>,
    pub expectations: Value,
    pub now: String,
    pub fresh: bool,
}

pub fn input(owner: &Rs, pods: &[P]) -> In {
    In {
        owner: owner.clone(),
        pods: pods.to_vec(),
        others: Vec::new(),
        expectations: Value::Null,
        now: NOW.to_owned(),
        fresh: true,
    }
}

impl In {
    pub fn others(mut self, others: &[Rs]) -> Self {
        self.others = others.to_vec();
        self
    }
    pub fn expectations(mut self, e: &Expectations) -> Self {
        self.expectations = serde_json::to_value(e).expect("expectations serialize");
        self
    }
    pub fn now(mut self, now: &str) -> Self {
        self.now = now.to_owned();
        self
    }
    pub fn stale(mut self) -> Self {
        self.fresh = false;
        self
    }
    pub fn json(&self) -> Value {
        json!({
            "now": self.now,
            "owner": self.owner.v,
            "otherOwners": self.others.iter().map(|r| r.v.clone()).collect::<Vec<_>>(),
            "pods": self.pods.iter().map(|p| p.v.clone()).collect::<Vec<_>>(),
            "expectations": self.expectations,
            "cacheIsFresh": self.fresh,
        })
    }
    pub fn build(&self) -> SyncInput {
        let bytes = serde_json::to_vec(&self.json()).expect("fixture serializes");
        SyncInput::from_json(&bytes).expect("fixture input is valid")
    }
}

// ---------------------------------------------------------------------------------------
// Plans and outcomes

pub fn create_plan(m: &Manage) -> &CreatePlan {
    match m {
        Manage::Create(c) => c,
        other => panic!("expected a create step, got {other:?}"),
    }
}

pub fn delete_plan(m: &Manage) -> &DeletePlan {
    match m {
        Manage::Delete(d) => d,
        other => panic!("expected a delete step, got {other:?}"),
    }
}

pub fn idle(m: &Manage) -> Idle {
    match m {
        Manage::Nothing { why } => *why,
        other => panic!("expected no create or delete, got {other:?}"),
    }
}

/// Names of the victims of a delete step, in deletion order.
pub fn victim_names(m: &Manage) -> Vec<String> {
    delete_plan(m)
        .victims
        .iter()
        .map(|v| v.name.clone())
        .collect()
}

/// Every create of the plan succeeds, pods named `<prefix><i>`.
pub fn all_created(c: &CreatePlan, prefix: &str) -> Vec<CallResult> {
    (0..c.count)
        .map(|i| CallResult::created(format!("{prefix}{i}")))
        .collect()
}

/// The outcome of a plan whose every call (claims, creates, deletes) succeeded; the live
/// read of the owner, when the plan asks for one, returns `owner` unchanged.
pub fn all_ok(plan: &SyncPlan, owner: &Rs) -> SyncOutcome {
    let mut out = SyncOutcome::default();
    out.claims.results = plan.claims.iter().map(|_| CallResult::ok()).collect();
    if plan.needs_owner_recheck {
        out.claims.live_owner = Some(replicore::LiveOwner::Found(Box::new(owner.build())));
    }
    match &plan.manage {
        Manage::Create(c) => out.creates = all_created(c, "new-"),
        Manage::Delete(d) => out.deletes = d.victims.iter().map(|_| CallResult::ok()).collect(),
        Manage::Nothing { .. } => {}
    }
    out
}

/// Applies an engine-issued expectations change sequence.
pub fn apply_all<'a>(
    e: Expectations,
    changes: impl IntoIterator<Item = &'a replicore::ExpectationsChange>,
    at: Time,
) -> Expectations {
    changes.into_iter().fold(e, |e, c| c.apply(e, at))
}

/// The counters of a record (panics without one).
pub fn counts(e: &Expectations) -> (i64, i64) {
    let r: &ExpectationsRecord = e.record().expect("a record exists");
    (r.add, r.del)
}

/// Runs `complete` on `plan` with `outcome` (panics on an engine error).
pub fn finish(plan: &SyncPlan, outcome: &SyncOutcome) -> Completion {
    replicore::complete(plan, outcome).expect("the outcome fits the plan")
}

/// Default config.
pub fn cfg() -> Config {
    Config::default()
}
