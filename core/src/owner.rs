//! Which pods a sync looks at (R-20..R-22, R-34) and which pods count as related for
//! co-location on scale-down.

use std::collections::HashSet;

use crate::config::OwnerKind;
use crate::model::{Pod, ReplicaSet};
use crate::pods;
use crate::selector::Selector;

/// R-20/R-21 (`FilterPodsByOwner`, orphans included): pods in the owner's namespace whose
/// controller reference names this owner exactly (kind, name and UID), then the orphans
/// of that namespace. Input order is kept within each part.
/// Each pod comes with its index in `all`.
pub fn pods_of_owner<'a>(
    owner: &ReplicaSet,
    kind: &OwnerKind,
    all: &'a [Pod],
) -> Vec<(usize, &'a Pod)> {
    let meta = &owner.metadata;
    let in_ns = || {
        all.iter()
            .enumerate()
            .filter(|(_, p)| p.namespace() == meta.namespace)
    };
    let owned = in_ns().filter(|(_, p)| {
        p.metadata
            .controller_ref()
            .is_some_and(|r| r.kind == kind.kind && r.name == meta.name && r.uid == meta.uid)
    });
    let orphans = in_ns().filter(|(_, p)| p.metadata.controller_ref().is_none());
    owned.chain(orphans).collect()
}

/// R-34 (`FilterClaimedPods`): controlled by this owner (UID) and matched by its selector.
pub fn is_claimed_by(pod: &Pod, owner: &ReplicaSet, selector: &Selector) -> bool {
    pod.metadata
        .controller_ref()
        .is_some_and(|r| r.uid == owner.metadata.uid)
        && selector.matches(pod.metadata.labels.as_ref())
}

/// R-45 (`getIndirectlyRelatedPods`): with a controller owner (e.g. a Deployment), every
/// ReplicaSet sharing that controller's UID (this one and pending-deletion ones
/// included), each with its own valid selector in its own namespace, contributes the pods
/// its selector matches, active or not; de-duplicated by pod UID, first wins. Without a
/// controller owner there are no related pods.
pub fn related_pods<'a>(owner: &ReplicaSet, others: &[ReplicaSet], all: &'a [Pod]) -> Vec<&'a Pod> {
    let Some(controller) = owner.metadata.controller_ref() else {
        return Vec::new();
    };
    let mut seen: HashSet<&str> = HashSet::new();
    let mut related = Vec::new();
    let siblings = std::iter::once(owner).chain(others.iter()).filter(|rs| {
        rs.metadata
            .controller_ref()
            .is_some_and(|r| r.uid == controller.uid)
    });
    let mut done_uids: HashSet<&str> = HashSet::new();
    for rs in siblings {
        if !done_uids.insert(rs.metadata.uid.as_str()) {
            continue;
        }
        let Ok(selector) = Selector::compile(rs.spec.selector.as_ref()) else {
            continue;
        };
        for pod in all
            .iter()
            .filter(|p| p.namespace() == rs.metadata.namespace)
        {
            if selector.matches(pod.metadata.labels.as_ref()) && seen.insert(pod.uid()) {
                related.push(pod);
            }
        }
    }
    related
}

/// R-04 over a list, order kept.
pub fn active<'a>(pods: &[&'a Pod]) -> Vec<&'a Pod> {
    pods.iter()
        .copied()
        .filter(|p| pods::is_active(p))
        .collect()
}
