//! `replicore explain` for Deployments (issue point 5): per Deployment of a
//! `kubectl get deploy,rs,pods -o json` List, its revision, its new and old ReplicaSets,
//! the resolved maxSurge / maxUnavailable, the conditions with the time left before the
//! progress deadline, and what the next sync would do and why.
//!
//! Explain decides nothing itself: the next sync is the engine's step machine
//! ([`run_sync`]) with every call answered ok; each call is then put in words with the
//! D-rule that made it. [`explain_deployments`] returns the data and its text
//! ([`render_deployments`]), so every front end prints the same.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Pod;
use crate::time::{Duration, Time};

use super::lookup::{equal_ignore_hash, find_old, rs_template};
use super::machine::{run_sync, ApiCall, ApiResult, DeploymentSyncInput, ProgressRequeue};
use super::model::{reason, Deployment, Rs, Wire, RECREATE};
use super::revision::revision;
use super::strategy::{max_replicas, max_surge, max_unavailable, min_available};

/// The explanation of every Deployment of a snapshot, and its text.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentsExplanation {
    /// The controller clock of the explanation.
    pub now: Time,
    /// Each Deployment of the snapshot.
    pub deployments: Vec<DeploymentExplanation>,
    /// [`render_deployments`] of the above.
    pub text: String,
}

/// One Deployment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentExplanation {
    /// The Deployment's namespace.
    pub namespace: String,
    /// The Deployment's name.
    pub name: String,
    /// The `deployment.kubernetes.io/revision` annotation (D-28).
    pub revision: Option<i64>,
    /// `spec.strategy.type`.
    pub strategy: String,
    /// `spec.paused` (D-80).
    pub paused: bool,
    /// `spec.replicas`.
    pub replicas: i32,
    /// D-05..D-07, resolved against `spec.replicas`.
    pub max_surge: i32,
    /// D-05..D-07, resolved against `spec.replicas`.
    pub max_unavailable: i32,
    /// D-08: `R + maxSurge` and `R − maxUnavailable`.
    pub max_pods: i32,
    /// D-08: `R − maxUnavailable`.
    pub min_available: i32,
    /// D-25: the ReplicaSet whose template is the deployment's (hash label aside).
    pub new_replica_set: Option<ReplicaSetSummary>,
    /// D-26: every other ReplicaSet the deployment controls, oldest first.
    pub old_replica_sets: Vec<ReplicaSetSummary>,
    /// The Deployment's conditions.
    pub conditions: Vec<ConditionSummary>,
    /// The next sync's calls, in order, each in words.
    pub next_sync: Vec<NextCall>,
    /// The error the next sync would return.
    pub error: Option<String>,
    /// The progress check's requeue, in words (D-78).
    pub requeue: String,
}

/// A ReplicaSet of the deployment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetSummary {
    /// The ReplicaSet's name.
    pub name: String,
    /// Its `deployment.kubernetes.io/revision` annotation (D-28).
    pub revision: Option<i64>,
    /// `spec.replicas`.
    pub replicas: i32,
    /// `status.replicas`.
    pub current: i32,
    /// `status.readyReplicas`.
    pub ready: i32,
    /// `status.availableReplicas`.
    pub available: i32,
}

/// A condition of the deployment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionSummary {
    #[serde(rename = "type")]
    /// The condition type.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// Why, in one word.
    pub reason: String,
    /// Why, in words.
    pub message: String,
    /// For a Progressing condition still in progress: seconds left before the progress
    /// deadline (negative once past it; D-76, D-77).
    pub deadline_left_seconds: Option<f64>,
}

/// One call of the next sync.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextCall {
    /// `create`, `update`, `patch`, `delete`, `get`.
    pub verb: String,
    /// `replicasets/web-5d8f`, `deployments/web/status`, ….
    pub target: String,
    /// The rule id, e.g. `D-51`.
    pub rule: String,
    /// The call and its reason in words.
    pub description: String,
}

/// Explains every Deployment of the items of a List (`kubectl get deploy,rs,pods -o
/// json`); items of other kinds are ignored.
pub fn explain_deployments(items: &[Value], now: Time) -> Result<DeploymentsExplanation> {
    let mut deployments = Vec::new();
    let mut replica_sets = Vec::new();
    let mut pods = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("items[{i}]");
        match item.get("kind").and_then(Value::as_str) {
            Some("Deployment") => deployments
                .push(Wire::<Deployment>::from_value(item.clone()).map_err(|e| e.under(&path))?),
            Some("ReplicaSet") => {
                replica_sets.push(Rs::from_value(item.clone()).map_err(|e| e.under(&path))?)
            }
            Some("Pod") => pods
                .push(crate::input::from_value::<Pod>(item.clone()).map_err(|e| e.under(&path))?),
            _ => {}
        }
    }
    let deployments = deployments
        .iter()
        .map(|d| explain_one(d, &replica_sets, &pods, now))
        .collect::<Result<Vec<_>>>()?;
    let mut out = DeploymentsExplanation {
        now,
        deployments,
        text: String::new(),
    };
    out.text = render_deployments(&out);
    Ok(out)
}

/// [`explain_deployments`] of a List's JSON text.
pub fn explain_deployments_json(bytes: &[u8], now: Time) -> Result<DeploymentsExplanation> {
    let list: Value = crate::input::from_json_any(bytes)?;
    match list_items(&list)? {
        Some(items) => explain_deployments(items, now),
        None => explain_deployments(std::slice::from_ref(&list), now),
    }
}

/// The items of a v1 List (`None`: the value is one object, not a List).
pub(crate) fn list_items(list: &Value) -> Result<Option<&[Value]>> {
    match list {
        Value::Object(o) if o.contains_key("items") => o
            .get("items")
            .and_then(Value::as_array)
            .map(|items| Some(items.as_slice()))
            .ok_or(Error::Malformed {
                path: "items".into(),
                message: "must be an array of objects".into(),
            }),
        _ => Ok(None),
    }
}

fn summary(rs: &Rs) -> ReplicaSetSummary {
    ReplicaSetSummary {
        name: rs.metadata.name.clone(),
        revision: revision(&rs.metadata),
        replicas: rs.spec.desired(),
        current: rs.status.replicas,
        ready: rs.status.ready_replicas,
        available: rs.status.available_replicas,
    }
}

fn explain_one(
    d: &Wire<Deployment>,
    all_rs: &[Rs],
    pods: &[Pod],
    now: Time,
) -> Result<DeploymentExplanation> {
    // The ReplicaSets the deployment controls (orphans it would adopt are left out).
    let mut owned: Vec<Rs> = all_rs
        .iter()
        .filter(|rs| {
            rs.metadata.namespace == d.metadata.namespace
                && rs
                    .metadata
                    .controller_ref()
                    .is_some_and(|o| o.uid == d.metadata.uid)
        })
        .cloned()
        .collect();
    let (new_rs, old) = find_old(d, &mut owned);
    let conditions = d
        .status
        .conditions
        .iter()
        .map(|c| ConditionSummary {
            type_: c.type_.clone(),
            status: c.status.clone(),
            reason: c.reason.clone(),
            message: c.message.clone(),
            deadline_left_seconds: deadline_left(d, c, now),
        })
        .collect();
    let input = DeploymentSyncInput {
        now,
        feature_gates: Default::default(),
        kinds: Default::default(),
        key: format!("{}/{}", d.metadata.namespace, d.metadata.name),
        deployment: Some(d.clone()),
        replica_sets: all_rs.to_vec(),
        pods: pods.to_vec(),
    };
    let mut calls = Vec::new();
    let done = run_sync(input, |call| {
        calls.push(call.clone());
        ApiResult::ok()
    })?;
    let next_sync = calls
        .iter()
        .map(|c| describe(c, d, &owned, new_rs.as_ref()))
        .collect();
    let requeue = match done.requeue {
        ProgressRequeue::None => "none".to_string(),
        ProgressRequeue::After { after } => format!("after {after} (progress deadline check)"),
        ProgressRequeue::RateLimited => "rate-limited (the progress deadline is due)".into(),
    };
    Ok(DeploymentExplanation {
        namespace: d.metadata.namespace.clone(),
        name: d.metadata.name.clone(),
        revision: revision(&d.metadata),
        strategy: d.spec.strategy.type_.clone(),
        paused: d.spec.paused,
        replicas: d.replicas(),
        max_surge: max_surge(d),
        max_unavailable: max_unavailable(d),
        max_pods: max_replicas(d),
        min_available: min_available(d),
        new_replica_set: new_rs.as_ref().map(summary),
        old_replica_sets: old.iter().map(summary).collect(),
        conditions,
        next_sync,
        error: done.error.map(|e| e.message),
        requeue,
    })
}

/// D-76/D-77: seconds left before a Progressing condition times out, when one applies.
fn deadline_left(d: &Deployment, c: &super::model::DeploymentCondition, now: Time) -> Option<f64> {
    if c.type_ != reason::PROGRESSING
        || !d.has_progress_deadline()
        || c.reason == reason::NEW_RS_AVAILABLE
        || c.reason == reason::TIMED_OUT
    {
        return None;
    }
    let deadline = Duration::from_seconds(i64::from(d.spec.progress_deadline_seconds?));
    let at = c.last_update_time?.plus(deadline);
    Some(at.since(now).as_seconds_f64())
}

/// A call of the next sync in words, with its rule.
fn describe(call: &ApiCall, d: &Deployment, owned: &[Rs], new_rs: Option<&Rs>) -> NextCall {
    let target = match call.subresource() {
        "" => format!("{}/{}", call.resource(), call.name()),
        sub => format!("{}/{}/{sub}", call.resource(), call.name()),
    };
    let replicas_of = |v: &Value| {
        v.get("spec")
            .and_then(|s| s.get("replicas"))
            .and_then(Value::as_i64)
    };
    let r = i64::from(d.replicas());
    let (max_pods, min_avail) = (i64::from(max_replicas(d)), i64::from(min_available(d)));
    let total: i64 = owned.iter().map(|rs| i64::from(rs.spec.desired())).sum();
    let available: i64 = owned
        .iter()
        .map(|rs| i64::from(rs.status.available_replicas))
        .sum();
    let recreate = d.spec.strategy.type_ == RECREATE;
    let (rule, description) = match call {
        ApiCall::GetDeployment { name, .. } => (
            "D-21",
            format!("re-read deployment {name} before adopting a ReplicaSet"),
        ),
        ApiCall::PatchReplicaSet { name, .. } => (
            "D-21",
            format!("adopt or release {name} (its labels and ControllerRef)"),
        ),
        ApiCall::CreateReplicaSet { name, object, .. } => {
            let n = replicas_of(object).unwrap_or(0);
            if recreate {
                (
                    "D-62",
                    format!("create {name} with {n} replicas (Recreate: old pods are gone)"),
                )
            } else {
                (
                    "D-34",
                    format!(
                        "create {name} with {n} replicas (D-51: new RS may start at min(R, R+maxSurge − total) = min({r}, {max_pods} − {total}))"
                    ),
                )
            }
        }
        ApiCall::UpdateReplicaSet { name, object, .. } => {
            let current = owned.iter().find(|rs| &rs.metadata.name == name);
            let from = current.map_or(0, |rs| i64::from(rs.spec.desired()));
            let to = replicas_of(object).unwrap_or(from);
            let is_new = current.is_some_and(|rs| {
                new_rs.is_some_and(|n| n.metadata.uid == rs.metadata.uid)
                    || equal_ignore_hash(rs_template(rs), &d.spec.template)
            });
            match (to.cmp(&from), is_new, recreate) {
                (std::cmp::Ordering::Equal, _, _) => (
                    "D-30",
                    format!("update {name}: revision, replicas annotations or minReadySeconds"),
                ),
                (std::cmp::Ordering::Greater, true, false) => (
                    "D-51",
                    format!(
                        "scale up {name} from {from} to {to} (D-51: new RS may grow by R+maxSurge − total = {max_pods} − {total} = {}, up to R = {r})",
                        max_pods - total
                    ),
                ),
                (std::cmp::Ordering::Less, true, false) => (
                    "D-51",
                    format!("scale down {name} from {from} to {to} (D-51: new RS above R = {r})"),
                ),
                (std::cmp::Ordering::Less, false, false) => (
                    "D-54",
                    format!(
                        "scale down {name} from {from} to {to} (D-53/D-54: old RSs may shrink by available − (R − maxUnavailable) = {available} − {min_avail} = {})",
                        available - min_avail
                    ),
                ),
                (std::cmp::Ordering::Less, false, true) => (
                    "D-60",
                    format!("scale down {name} from {from} to {to} (Recreate: every old RS to 0 first)"),
                ),
                (std::cmp::Ordering::Greater, _, true) => (
                    "D-62",
                    format!("scale up {name} from {from} to {to} (Recreate: old pods are gone)"),
                ),
                _ => (
                    "D-45",
                    format!("scale {name} from {from} to {to} (proportional scaling: spec.replicas changed)"),
                ),
            }
        }
        ApiCall::DeleteReplicaSet { name, .. } => (
            "D-70",
            format!("delete {name} (older than revisionHistoryLimit allows)"),
        ),
        ApiCall::UpdateDeployment { name, .. } => (
            "D-93",
            format!("update deployment {name}: roll back the template"),
        ),
        ApiCall::UpdateDeploymentStatus { name, .. } => (
            "D-71",
            format!("write the status of deployment {name} (replicas, conditions)"),
        ),
    };
    NextCall {
        verb: call.verb().to_string(),
        target,
        rule: rule.to_string(),
        description,
    }
}

fn rs_line(out: &mut String, label: &str, rs: &ReplicaSetSummary) {
    let revision = rs
        .revision
        .map_or_else(|| "-".to_string(), |r| r.to_string());
    let _ = writeln!(
        out,
        "  {label} {} (revision {revision}): {} desired, {} current, {} ready, {} available",
        rs.name, rs.replicas, rs.current, rs.ready, rs.available
    );
}

/// The text of an explanation (the CLI's and the example's output).
pub fn render_deployments(e: &DeploymentsExplanation) -> String {
    let mut out = String::new();
    if e.deployments.is_empty() {
        out.push_str("No deployments.\n");
    }
    for d in &e.deployments {
        let revision = d
            .revision
            .map_or_else(|| "-".to_string(), |r| r.to_string());
        let _ = writeln!(
            out,
            "Deployment {}/{} (revision {revision}, {}{}, {} replicas)",
            d.namespace,
            d.name,
            d.strategy,
            if d.paused { ", paused" } else { "" },
            d.replicas
        );
        if d.strategy != RECREATE {
            let _ = writeln!(
                out,
                "  maxSurge {} (at most {} pods), maxUnavailable {} (at least {} available)",
                d.max_surge, d.max_pods, d.max_unavailable, d.min_available
            );
        }
        match &d.new_replica_set {
            Some(rs) => rs_line(&mut out, "new", rs),
            None => out.push_str("  new: none yet\n"),
        }
        for rs in &d.old_replica_sets {
            rs_line(&mut out, "old", rs);
        }
        for c in &d.conditions {
            let _ = write!(out, "  {} {}: {}", c.type_, c.status, c.reason);
            if let Some(left) = c.deadline_left_seconds {
                if left >= 0.0 {
                    let _ = write!(out, " ({left:.0}s left before the progress deadline)");
                } else {
                    let _ = write!(out, " (progress deadline passed {:.0}s ago)", -left);
                }
            }
            out.push('\n');
        }
        if d.next_sync.is_empty() {
            out.push_str("  next sync: nothing to do\n");
        } else {
            out.push_str("  next sync:\n");
            for (i, c) in d.next_sync.iter().enumerate() {
                let _ = writeln!(out, "    {}. {} [{}]", i + 1, c.description, c.rule);
            }
        }
        if let Some(err) = &d.error {
            let _ = writeln!(out, "  error: {err}");
        }
        let _ = writeln!(out, "  requeue: {}", d.requeue);
    }
    out
}
