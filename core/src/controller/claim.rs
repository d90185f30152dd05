//! Claiming (R-30..R-33): which active pods the owner keeps, adopts or releases, the
//! exact patches, and what the API's answers mean.

use serde::{Deserialize, Serialize};

use crate::config::OwnerKind;
use crate::model::{ObjectMeta, Pod, ReplicaSet};

/// The content type of every claim patch: upstream's `PatchPod` sends
/// `types.StrategicMergePatchType` whatever the body.
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";

/// What claiming does with one pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ClaimKind {
    /// set this owner as the pod's controller.
    Adopt,
    /// remove this owner's reference from a pod it no longer selects.
    Release,
}

/// A patch the host sends to a pod (`PATCH /api/v1/namespaces/{ns}/pods/{name}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClaimAction {
    /// Adopt or release.
    pub kind: ClaimKind,
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// The pod's UID (the patch's precondition).
    pub uid: String,
    /// Always `application/strategic-merge-patch+json` ([`STRATEGIC_MERGE_PATCH`]):
    /// upstream's `PodControl.PatchPod` sends every claim patch, adoption and release,
    /// as a strategic merge patch. `metadata.ownerReferences` merges by `uid` (its patch
    /// merge key), so an adoption adds the controller reference beside the pod's other
    /// owner references; a JSON merge patch would replace the list and drop them.
    pub patch_type: String,
    /// The body, with the pod-UID precondition (`metadata.uid`).
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub patch: serde_json::Value,
    /// Index of the pod in the sync input's `pods`.
    pub pod_index: usize,
}

/// The verdict on one active pod.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Already controlled by this owner and selected.
    Claimed,
    /// Not this owner's business.
    Ignored,
    Adopt,
    Release,
}

/// for one active pod; `matches`: does the owner's selector match it?
/// `controlled`: does its controller reference carry the owner's UID (`None`: it has no
/// controller reference)?
pub(crate) fn verdict(
    pod: &Pod,
    owner: &ReplicaSet,
    matches: bool,
    controlled: Option<bool>,
) -> Verdict {
    verdict_of(&pod.metadata, &owner.metadata, matches, controlled)
}

/// `ClaimObject` for any owned object and any owner, from their metadata: shared by the
/// ReplicaSet controller (pods) and the Deployment controller (ReplicaSets, D-21).
pub(crate) fn verdict_of(
    object: &ObjectMeta,
    owner: &ObjectMeta,
    matches: bool,
    controlled: Option<bool>,
) -> Verdict {
    let owner_deleting = owner.deletion_timestamp.is_some();
    match controlled {
        Some(false) => Verdict::Ignored,
        Some(true) if matches => Verdict::Claimed,
        Some(true) if owner_deleting => Verdict::Ignored,
        Some(true) => Verdict::Release,
        None if owner_deleting || !matches => Verdict::Ignored,
        None if object.deletion_timestamp.is_some() => Verdict::Ignored,
        None if !owner.namespace.is_empty() && owner.namespace != object.namespace => {
            Verdict::Ignored
        }
        None => Verdict::Adopt,
    }
}

/// The controller reference of `object` judged against `owner`: `None` without one,
/// else whether it carries the owner's UID.
pub(crate) fn controlled_by(object: &ObjectMeta, owner: &ObjectMeta) -> Option<bool> {
    object.controller_ref().map(|r| r.uid == owner.uid)
}

/// the adoption patch (`ownerRefControllerPatch`), sent as a strategic merge patch:
/// the one reference merges into the pod's `ownerReferences` by `uid`, keeping any
/// non-controller references the pod already carries.
pub(crate) fn adopt_patch(owner: &ReplicaSet, kind: &OwnerKind, pod: &Pod) -> serde_json::Value {
    adopt_patch_of(&owner.metadata, kind, &pod.metadata.uid)
}

/// `ownerRefControllerPatch` for any owner and owned object (by UID).
pub(crate) fn adopt_patch_of(owner: &ObjectMeta, kind: &OwnerKind, uid: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {
            "ownerReferences": [{
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "name": owner.name,
                "uid": owner.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }],
            "uid": uid,
        }
    })
}

/// the release patch (`GenerateDeleteOwnerRefStrategicMergeBytes`).
pub(crate) fn release_patch(owner: &ReplicaSet, pod: &Pod) -> serde_json::Value {
    release_patch_of(&owner.metadata.uid, &pod.metadata.uid)
}

/// `GenerateDeleteOwnerRefStrategicMergeBytes` for any owner and owned object (by UID).
pub(crate) fn release_patch_of(owner_uid: &str, uid: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {
            "ownerReferences": [{"$patch": "delete", "uid": owner_uid}],
            "uid": uid,
        }
    })
}

pub(crate) fn action(
    kind: ClaimKind,
    owner: &ReplicaSet,
    owner_kind: &OwnerKind,
    pod: &Pod,
    pod_index: usize,
) -> ClaimAction {
    let patch = match kind {
        ClaimKind::Adopt => adopt_patch(owner, owner_kind, pod),
        ClaimKind::Release => release_patch(owner, pod),
    };
    ClaimAction {
        kind,
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
        uid: pod.metadata.uid.clone(),
        patch_type: STRATEGIC_MERGE_PATCH.into(),
        patch,
        pod_index,
    }
}

/// may this owner adopt, judged from a live (uncached) read of it? `Err` carries
/// upstream's message.
pub(crate) fn can_adopt(cached: &ReplicaSet, live: &ReplicaSet) -> Result<(), String> {
    let m = &cached.metadata;
    if live.metadata.uid != m.uid {
        return Err(format!(
            "original {}/{} is gone: got uid {}, wanted {}",
            m.namespace, m.name, live.metadata.uid, m.uid
        ));
    }
    if let Some(t) = live.metadata.deletion_timestamp {
        return Err(format!(
            "{}/{} has just been deleted at {}",
            m.namespace, m.name, t
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
