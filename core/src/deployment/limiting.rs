//! Which rule decided — or limited — one step of a rollout (D-34, D-51..D-54,
//! D-60..D-62), read from the calls a Deployment sync made and the state they left.
//!
//! Shared by every host that plays a rollout and shows it step by step: the rollout
//! [`forecast`](super::forecast) and the seeded simulator (`replicore-sim`). Both run the
//! engine's sync ([`run_sync`](super::run_sync)); this module only names what
//! the sync did, it decides nothing itself.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::lookup::{equal_ignore_hash, rs_template};
use super::machine::ApiCall;
use super::model::{Deployment, Rs, RECREATE};
use super::strategy::{max_replicas, min_available};

/// What the calls of one or more syncs did to the ReplicaSets.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepCalls {
    /// The new ReplicaSet created (D-34), by name.
    pub created: Option<String>,
    /// The new ReplicaSet scaled up: (from, to).
    pub new_up: Option<(i32, i32)>,
    /// The new ReplicaSet scaled down: (from, to).
    pub new_down: Option<(i32, i32)>,
    /// Replicas taken off the old ReplicaSets.
    pub old_down: i32,
    /// Every old ReplicaSet is at 0 replicas after the calls.
    pub old_to_zero: bool,
    /// ReplicaSet writes (create, update, delete).
    pub writes: usize,
    /// API calls of any kind.
    pub calls: usize,
}

/// The replica counts a step shows: `spec.replicas` of the new ReplicaSet and of the
/// old ones, and the pods and available pods their statuses report.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepCounts {
    /// `spec.replicas` of the new ReplicaSet.
    pub new: i32,
    /// `spec.replicas` of the old ReplicaSets, summed.
    pub old: i32,
    /// Pods their statuses report.
    pub pods: i32,
    /// Available pods their statuses report.
    pub available: i32,
}

/// The bounds in force (D-08): at most `max_pods` pods, at least `min_available`
/// available. Recreate has no surge and no availability floor (D-60..D-62).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepBounds {
    /// At most this many pods.
    pub max_pods: i32,
    /// At least this many available.
    pub min_available: i32,
}

/// The rule that decided or limited a step (`D-51`, or several joined by `, `), and what
/// it did in words.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRule {
    /// The rule id(s).
    pub rule: String,
    /// What it did, in words.
    pub why: String,
}

/// Is `rs` of the pod template `template` (the deployment's current one)?
pub fn is_new(rs: &Rs, template: &Value) -> bool {
    equal_ignore_hash(rs_template(rs), template)
}

/// D-08 bounds of `d` (Recreate: `R` pods, no floor).
pub fn bounds(d: &Deployment) -> StepBounds {
    if d.spec.strategy.type_ == RECREATE {
        StepBounds {
            max_pods: d.replicas(),
            min_available: 0,
        }
    } else {
        StepBounds {
            max_pods: max_replicas(d),
            min_available: min_available(d),
        }
    }
}

/// The counts of `replica_sets` against the deployment's `template`.
pub fn counts(replica_sets: &[Rs], template: &Value) -> StepCounts {
    let mut c = StepCounts::default();
    for rs in replica_sets {
        if is_new(rs, template) {
            c.new = c.new.saturating_add(rs.spec.desired());
        } else {
            c.old = c.old.saturating_add(rs.spec.desired());
        }
        c.pods = c.pods.saturating_add(rs.status.replicas);
        c.available = c.available.saturating_add(rs.status.available_replicas);
    }
    c
}

/// Adds what `calls` did to `decided`. `before` holds `spec.replicas` of each ReplicaSet
/// before the sync (a ReplicaSet missing there counts as unchanged); `after` is the
/// ReplicaSets once the calls are applied; `template` the deployment's pod template.
pub fn note_calls(
    decided: &mut StepCalls,
    calls: &[ApiCall],
    before: &BTreeMap<String, i32>,
    after: &[Rs],
    template: &Value,
) {
    let replicas = |v: &Value| {
        v.get("spec")
            .and_then(|s| s.get("replicas"))
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok())
    };
    decided.calls = decided.calls.saturating_add(calls.len());
    for call in calls {
        match call {
            ApiCall::CreateReplicaSet { name, object, .. } => {
                decided.created = Some(name.clone());
                decided.writes = decided.writes.saturating_add(1);
                if let Some(to) = replicas(object).filter(|&n| n > 0) {
                    decided.new_up = Some((0, to));
                }
            }
            ApiCall::DeleteReplicaSet { .. } => decided.writes = decided.writes.saturating_add(1),
            ApiCall::UpdateReplicaSet { name, object, .. } => {
                decided.writes = decided.writes.saturating_add(1);
                let Some(rs) = after.iter().find(|r| &r.metadata.name == name) else {
                    continue;
                };
                let Some(to) = replicas(object) else { continue };
                let from = before.get(name).copied().unwrap_or(to);
                if is_new(rs, template) {
                    if to > from {
                        decided.new_up = Some((from, to));
                    } else if to < from {
                        decided.new_down = Some((from, to));
                    }
                } else if to < from {
                    decided.old_down = decided.old_down.saturating_add(from.saturating_sub(to));
                }
            }
            _ => {}
        }
    }
    decided.old_to_zero = after
        .iter()
        .filter(|rs| !is_new(rs, template))
        .all(|rs| rs.spec.desired() == 0);
}

/// Which rule decided (or limited) the step of a deployment of `replicas` replicas, and
/// what it did, in words.
pub fn limiting_rule(
    replicas: i32,
    decided: &StepCalls,
    counts: StepCounts,
    bounds: StepBounds,
    recreate: bool,
) -> StepRule {
    let r = replicas;
    let StepCounts {
        new,
        old,
        pods,
        available,
    } = counts;
    let StepBounds {
        max_pods,
        min_available: min_avail,
    } = bounds;
    let mut parts: Vec<(String, String)> = Vec::new();
    if let Some(name) = &decided.created {
        parts.push(("D-34".into(), format!("create the new ReplicaSet {name}")));
    }
    if recreate {
        if decided.old_down > 0 {
            parts.push(("D-60".into(), "scale every old ReplicaSet to 0".into()));
        }
        if let Some((from, to)) = decided.new_up {
            parts.push((
                "D-62".into(),
                format!("old pods gone: new ReplicaSet {from} → {to}"),
            ));
        } else if old == 0 && pods > new {
            parts.push(("D-61".into(), "wait for the old pods to stop".into()));
        }
    } else {
        if let Some((from, to)) = decided.new_up {
            let why = if to == r {
                format!("new RS {from} → {to}: reaches R = {r}")
            } else {
                format!("new RS {from} → {to}: capped by maxSurge (R + surge = {max_pods} pods)")
            };
            parts.push(("D-51".into(), why));
        }
        if let Some((from, to)) = decided.new_down {
            parts.push((
                "D-51".into(),
                format!("new RS {from} → {to}: above R = {r}"),
            ));
        }
        if decided.old_down > 0 {
            let why = if decided.old_to_zero {
                format!("old RSs −{}: all old replicas gone", decided.old_down)
            } else {
                format!(
                    "old RSs −{}: capped by maxUnavailable (keep ≥ {min_avail} available)",
                    decided.old_down
                )
            };
            parts.push(("D-54".into(), why));
        }
    }
    if parts.is_empty() && recreate {
        let what = if available == pods { "all" } else { "wait:" };
        parts.push((
            "D-62".into(),
            format!("{what} {available} of {pods} pods available"),
        ));
    }
    if parts.is_empty() {
        let why = if available < r && old > 0 && !recreate {
            format!("wait: {available} available, old RSs may shrink only above {min_avail}")
        } else if available < pods {
            format!("wait: {available} of {pods} pods available")
        } else {
            format!("{available} of {pods} pods available")
        };
        parts.push(("D-52".into(), why));
    }
    StepRule {
        rule: parts
            .iter()
            .map(|(r, _)| r.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        why: parts
            .iter()
            .map(|(_, w)| w.as_str())
            .collect::<Vec<_>>()
            .join("; "),
    }
}
