//! Watch-event rules (R-90..R-95): which owner keys to enqueue, now or after a delay, and
//! which expectation observations to make, for pod and owner events.

use std::borrow::Borrow;

use serde::{Deserialize, Serialize};

use crate::config::OwnerKind;
use crate::expectations::ExpectationsChange;
use crate::model::{OwnerReference, Pod, ReplicaSet};
use crate::pods;
use crate::selector::Selector;
use crate::time::Duration;

/// A pod watch event.
#[derive(Clone, Copy, Debug)]
pub enum PodEvent<'a> {
    /// A pod was added (or listed).
    Added(&'a Pod),
    /// A pod changed.
    Updated {
        /// The pod before the change.
        old: &'a Pod,
        /// The pod after it.
        new: &'a Pod,
    },
    /// A pod was deleted: its last known state.
    Deleted(&'a Pod),
}

/// An owner watch event.
#[derive(Clone, Copy, Debug)]
pub enum OwnerEvent<'a> {
    /// An owner was added (or listed).
    Added(&'a ReplicaSet),
    /// An owner changed.
    Updated {
        /// The owner before the change.
        old: &'a ReplicaSet,
        /// The owner after it.
        new: &'a ReplicaSet,
    },
    /// An owner was deleted: its last known state.
    Deleted(&'a ReplicaSet),
}

/// An expectation change for one owner key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    /// `namespace/name` of the owner whose expectations change.
    pub owner_key: String,
    /// The change to apply to that owner's expectations.
    pub change: ExpectationsChange,
}

/// A key to add to the work queue after a delay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DelayedKey {
    /// `namespace/name` of the owner.
    pub key: String,
    /// How long to wait before adding it.
    pub after: Duration,
}

/// What a watch event asks of the host.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventDecision {
    /// Owner keys to add to the queue now (deduplicated, in order).
    pub enqueue: Vec<String>,
    /// Owner keys to add after a delay (R-93's minReadySeconds requeue).
    pub enqueue_after: Vec<DelayedKey>,
    /// Expectation observations, to apply before the keys are processed.
    pub observations: Vec<Observation>,
}

impl EventDecision {
    fn enqueue(&mut self, key: String) {
        if !self.enqueue.contains(&key) {
            self.enqueue.push(key);
        }
    }
}

/// `resolveControllerRef`: the owner in the pod's namespace named by the reference, if its
/// kind and UID agree.
fn resolve<'a, R: Borrow<ReplicaSet>>(
    r: &OwnerReference,
    namespace: &str,
    owners: &'a [R],
    kind: &OwnerKind,
) -> Option<&'a ReplicaSet> {
    if r.kind != kind.kind {
        return None;
    }
    owners.iter().map(Borrow::borrow).find(|rs| {
        rs.metadata.namespace == namespace && rs.metadata.name == r.name && rs.metadata.uid == r.uid
    })
}

/// R-15 (`GetPodReplicaSets`): the owners whose selector matches an orphan's labels. A pod
/// without labels matches none; empty ("everything") and invalid selectors are skipped.
/// `owners` may hold owners or shared references to them (`&[ReplicaSet]`, `&[Arc<_>]`).
pub(crate) fn owners_selecting<'a, R: Borrow<ReplicaSet>>(
    pod: &Pod,
    owners: &'a [R],
) -> Vec<&'a ReplicaSet> {
    let labels = pod.metadata.labels.as_ref();
    if labels.is_none_or(|l| l.is_empty()) {
        return Vec::new();
    }
    owners
        .iter()
        .map(Borrow::borrow)
        .filter(|rs| rs.metadata.namespace == pod.metadata.namespace)
        .filter(|rs| match Selector::compile(rs.spec.selector.as_ref()) {
            Ok(sel) => !sel.is_everything() && sel.matches(labels),
            Err(_) => false,
        })
        .collect()
}

/// a deleted pod (or one whose deletion timestamp appeared).
fn pod_gone<R: Borrow<ReplicaSet>>(
    pod: &Pod,
    owners: &[R],
    kind: &OwnerKind,
    out: &mut EventDecision,
) {
    let Some(r) = pod.metadata.controller_ref() else {
        return;
    };
    let Some(rs) = resolve(r, pod.namespace(), owners, kind) else {
        return;
    };
    let owner_key = rs.metadata.key();
    out.observations.push(Observation {
        owner_key: owner_key.clone(),
        change: ExpectationsChange::DeletionObserved { key: pod.key() },
    });
    out.enqueue(owner_key);
}

/// what a pod event asks for. `owners` are the owners in the host's
/// cache (any namespace), as values or shared references.
pub fn on_pod_event<R: Borrow<ReplicaSet>>(
    event: PodEvent<'_>,
    owners: &[R],
    kind: &OwnerKind,
) -> EventDecision {
    let mut out = EventDecision::default();
    match event {
        PodEvent::Added(pod) => {
            if pod.metadata.deletion_timestamp.is_some() {
                pod_gone(pod, owners, kind, &mut out);
                return out;
            }
            if let Some(r) = pod.metadata.controller_ref() {
                if let Some(rs) = resolve(r, pod.namespace(), owners, kind) {
                    let owner_key = rs.metadata.key();
                    out.observations.push(Observation {
                        owner_key: owner_key.clone(),
                        change: ExpectationsChange::CreationObserved,
                    });
                    out.enqueue(owner_key);
                }
                return out;
            }
            for rs in owners_selecting(pod, owners) {
                out.enqueue(rs.metadata.key());
            }
        }
        PodEvent::Updated { old, new } => {
            // A resync delivers the same object (same resourceVersion): nothing changed.
            if old.metadata.resource_version == new.metadata.resource_version {
                return out;
            }
            let labels_changed = old.metadata.labels != new.metadata.labels;
            if new.metadata.deletion_timestamp.is_some() {
                pod_gone(new, owners, kind, &mut out);
                if labels_changed {
                    pod_gone(old, owners, kind, &mut out);
                }
                return out;
            }
            let new_ref = new.metadata.controller_ref();
            let old_ref = old.metadata.controller_ref();
            let ref_changed = new_ref != old_ref;
            if ref_changed {
                if let Some(r) = old_ref {
                    if let Some(rs) = resolve(r, old.namespace(), owners, kind) {
                        out.enqueue(rs.metadata.key());
                    }
                }
            }
            if let Some(r) = new_ref {
                let Some(rs) = resolve(r, new.namespace(), owners, kind) else {
                    return out;
                };
                out.enqueue(rs.metadata.key());
                let min_ready = rs.spec.min_ready_seconds;
                if !pods::is_ready(old) && pods::is_ready(new) && min_ready > 0 {
                    out.enqueue_after.push(DelayedKey {
                        key: rs.metadata.key(),
                        after: Duration::from_seconds(i64::from(min_ready)),
                    });
                }
                return out;
            }
            if labels_changed || ref_changed {
                for rs in owners_selecting(new, owners) {
                    out.enqueue(rs.metadata.key());
                }
            }
        }
        PodEvent::Deleted(pod) => pod_gone(pod, owners, kind, &mut out),
    }
    out
}

/// R-91b: what an owner event asks for.
pub fn on_owner_event(event: OwnerEvent<'_>) -> EventDecision {
    let mut out = EventDecision::default();
    let gone = |rs: &ReplicaSet, out: &mut EventDecision| {
        out.observations.push(Observation {
            owner_key: rs.metadata.key(),
            change: ExpectationsChange::Delete,
        });
        out.enqueue(rs.metadata.key());
    };
    match event {
        OwnerEvent::Added(rs) => out.enqueue(rs.metadata.key()),
        OwnerEvent::Updated { old, new } => {
            if old.metadata.uid != new.metadata.uid {
                gone(old, &mut out);
            }
            out.enqueue(new.metadata.key());
        }
        OwnerEvent::Deleted(rs) => gone(rs, &mut out),
    }
    out
}

#[cfg(test)]
mod tests;
