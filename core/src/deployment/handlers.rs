//! Which watch event enqueues which deployment (D-110..D-114), and what the work queue
//! does with a sync's result (D-115). Pure functions over the host's caches; each
//! returns the keys (`namespace/name`) to add to the queue.

use crate::config::DeploymentKinds;
use crate::model::{OwnerReference, Pod, ReplicaSet};
use crate::selector::Selector;

use super::machine::SyncDone;
use super::model::{Deployment, RECREATE};

/// D-115: after this many requeues an erroring key is dropped.
pub const MAX_RETRIES: u32 = 15;

/// The work-queue key of a deployment.
pub(crate) fn key_of(d: &Deployment) -> String {
    d.metadata.key()
}

/// D-110: a deployment added, updated or deleted enqueues itself.
pub fn on_deployment_event(d: &Deployment) -> Vec<String> {
    vec![key_of(d)]
}

/// `resolveControllerRef`: the deployment of `namespace` named by a controller reference
/// of the Deployment kind, if the cache holds it with that UID.
fn resolve<'a>(
    namespace: &str,
    r: &OwnerReference,
    deployments: &'a [Deployment],
    kinds: &DeploymentKinds,
) -> Option<&'a Deployment> {
    if r.kind != kinds.deployment.kind {
        return None;
    }
    deployments.iter().find(|d| {
        d.metadata.namespace == namespace && d.metadata.name == r.name && d.metadata.uid == r.uid
    })
}

/// `GetDeploymentsForReplicaSet`: the deployments of the RS's namespace whose valid,
/// non-empty selector matches its labels (none when it has no labels).
fn matching(rs: &ReplicaSet, deployments: &[Deployment]) -> Vec<String> {
    if rs.metadata.labels.as_ref().is_none_or(|l| l.is_empty()) {
        return Vec::new();
    }
    deployments
        .iter()
        .filter(|d| d.metadata.namespace == rs.metadata.namespace)
        .filter(|d| match Selector::compile(d.spec.selector.as_ref()) {
            Ok(s) => {
                !s.is_everything() && !s.is_nothing() && s.matches(rs.metadata.labels.as_ref())
            }
            Err(_) => false,
        })
        .map(key_of)
        .collect()
}

/// D-111: a ReplicaSet was added.
pub fn on_replica_set_added(
    rs: &ReplicaSet,
    deployments: &[Deployment],
    kinds: &DeploymentKinds,
) -> Vec<String> {
    if rs.metadata.deletion_timestamp.is_some() {
        return on_replica_set_deleted(rs, deployments, kinds);
    }
    match rs.metadata.controller_ref() {
        Some(r) => resolve(&rs.metadata.namespace, r, deployments, kinds)
            .map(key_of)
            .into_iter()
            .collect(),
        None => matching(rs, deployments),
    }
}

/// D-112: a ReplicaSet was updated from `old` to `cur`.
pub fn on_replica_set_updated(
    old: &ReplicaSet,
    cur: &ReplicaSet,
    deployments: &[Deployment],
    kinds: &DeploymentKinds,
) -> Vec<String> {
    if cur.metadata.resource_version == old.metadata.resource_version {
        return Vec::new();
    }
    let (cur_ref, old_ref) = (cur.metadata.controller_ref(), old.metadata.controller_ref());
    let ref_changed = cur_ref != old_ref;
    let mut keys = Vec::new();
    if ref_changed {
        if let Some(r) = old_ref {
            keys.extend(resolve(&old.metadata.namespace, r, deployments, kinds).map(key_of));
        }
    }
    if let Some(r) = cur_ref {
        keys.extend(resolve(&cur.metadata.namespace, r, deployments, kinds).map(key_of));
        return keys;
    }
    if ref_changed || cur.metadata.labels != old.metadata.labels {
        keys.extend(matching(cur, deployments));
    }
    keys
}

/// D-113: a ReplicaSet was deleted (or its tombstone seen): its controller, if any.
pub fn on_replica_set_deleted(
    rs: &ReplicaSet,
    deployments: &[Deployment],
    kinds: &DeploymentKinds,
) -> Vec<String> {
    rs.metadata
        .controller_ref()
        .and_then(|r| resolve(&rs.metadata.namespace, r, deployments, kinds))
        .map(key_of)
        .into_iter()
        .collect()
}

/// D-114: a pod was deleted. Only a Recreate deployment is enqueued, and only once none
/// of its ReplicaSets (`replica_sets`: the RSs the host lists for it; those selected and
/// controlled by it count) has a pod left in `pods`.
pub fn on_pod_deleted(
    pod: &Pod,
    replica_sets: &[ReplicaSet],
    deployments: &[Deployment],
    pods: &[Pod],
    kinds: &DeploymentKinds,
) -> Vec<String> {
    let Some(r) = pod.metadata.controller_ref() else {
        return Vec::new();
    };
    if r.kind != kinds.replica_set.kind {
        return Vec::new();
    }
    let Some(rs) = replica_sets.iter().find(|rs| {
        rs.metadata.namespace == pod.metadata.namespace
            && rs.metadata.name == r.name
            && rs.metadata.uid == r.uid
    }) else {
        return Vec::new();
    };
    let Some(d) = rs
        .metadata
        .controller_ref()
        .and_then(|r| resolve(&rs.metadata.namespace, r, deployments, kinds))
    else {
        return Vec::new();
    };
    if d.spec.strategy.type_ != RECREATE {
        return Vec::new();
    }
    let Ok(selector) = Selector::compile(d.spec.selector.as_ref()) else {
        return Vec::new();
    };
    let owned = replica_sets.iter().filter(|rs| {
        rs.metadata.namespace == d.metadata.namespace
            && selector.matches(rs.metadata.labels.as_ref())
            && rs
                .metadata
                .controller_ref()
                .is_some_and(|r| r.uid == d.metadata.uid)
    });
    let mut any_pod = false;
    for rs in owned {
        any_pod |= pods.iter().any(|p| {
            p.metadata.namespace == rs.metadata.namespace
                && p.metadata.controller_ref().is_some_and(|r| {
                    r.kind == kinds.replica_set.kind
                        && r.name == rs.metadata.name
                        && r.uid == rs.metadata.uid
                })
        });
    }
    if any_pod {
        Vec::new()
    } else {
        vec![key_of(d)]
    }
}

/// D-115: what the work queue does with a key after a sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum QueueAction {
    /// Success or a NamespaceTerminating error: forget the key's backoff.
    Forget,
    /// Another error: re-add rate-limited.
    RequeueRateLimited,
    /// Another error after [`MAX_RETRIES`] requeues: drop the key (and forget it).
    Drop,
}

/// D-115 `handleErr`, given how many times the key was requeued so far.
pub fn after_sync(done: &SyncDone, requeues: u32) -> QueueAction {
    if done.forget() {
        QueueAction::Forget
    } else if requeues < MAX_RETRIES {
        QueueAction::RequeueRateLimited
    } else {
        QueueAction::Drop
    }
}
