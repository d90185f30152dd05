//! Which pods a sync looks at (R-20..R-22, R-34) and which pods count as related for
//! co-location on scale-down.

use std::borrow::Borrow;
use std::collections::HashSet;

use crate::fxhash::FxHashMap;

use crate::config::OwnerKind;
use crate::model::{Pod, ReplicaSet};
use crate::pods;
use crate::selector::Selector;

/// R-20/R-21 (`FilterPodsByOwner`, orphans included): pods in the owner's namespace whose
/// controller reference names this owner exactly (kind, name and UID), then the orphans
/// of that namespace. Input order is kept within each part.
/// Each pod comes with its index in `all`.
/// `all` is any re-iterable sequence of pods (`pods.iter()` of a `Vec<Pod>`, …).
pub fn pods_of_owner<'a, I>(owner: &ReplicaSet, kind: &OwnerKind, all: I) -> Vec<(usize, &'a Pod)>
where
    I: IntoIterator<Item = &'a Pod>,
    I::IntoIter: Clone,
{
    let meta = &owner.metadata;
    let all = all.into_iter();
    let in_ns = || {
        all.clone()
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
/// its selector matches, active or not; de-duplicated by pod UID. Without a controller
/// owner there are no related pods. The result is a set, in no particular order (it only
/// feeds co-location counts).
pub fn related_pods<'a, R: Borrow<ReplicaSet>>(
    owner: &ReplicaSet,
    others: &[R],
    all: impl IntoIterator<Item = &'a Pod>,
) -> Vec<&'a Pod> {
    related(owner, others, all.into_iter().map(|p| (p, None)))
}

/// [`related_pods`] over `all` when whether the owner's own (valid) selector matches
/// each pod is already known (`own[i]` for `all[i]`, false outside its namespace).
pub(crate) fn related_pods_matched<'a, R: Borrow<ReplicaSet>>(
    owner: &ReplicaSet,
    others: &[R],
    all: &[&'a Pod],
    own: &[bool],
) -> Vec<&'a Pod> {
    related(
        owner,
        others,
        all.iter()
            .enumerate()
            .map(|(i, p)| (*p, Some(own.get(i).copied().unwrap_or(false)))),
    )
}

/// The pods with, for each, whether the owner's selector is known to match it.
fn related<'a, R: Borrow<ReplicaSet>>(
    owner: &ReplicaSet,
    others: &[R],
    all: impl Iterator<Item = (&'a Pod, Option<bool>)>,
) -> Vec<&'a Pod> {
    let Some(controller) = owner.metadata.controller_ref() else {
        return Vec::new();
    };
    let mut sibling_uids: HashSet<&str> = HashSet::new();
    // (namespace, selector, is the owner itself)
    let selectors: Vec<(&str, Selector, bool)> = std::iter::once(owner)
        .chain(others.iter().map(Borrow::borrow))
        .filter(|rs| {
            rs.metadata
                .controller_ref()
                .is_some_and(|r| r.uid == controller.uid)
                && sibling_uids.insert(rs.metadata.uid.as_str())
        })
        .filter_map(|rs| {
            let s = Selector::compile(rs.spec.selector.as_ref()).ok()?;
            let is_owner = std::ptr::eq(rs, owner);
            Some((rs.metadata.namespace.as_str(), s, is_owner))
        })
        .collect();
    // De-duplicate by UID as upstream does. Which of two different pods sharing a UID
    // survives is unspecified upstream; keeping the first by namespace/name makes the
    // answer independent of input order. Pods without a UID (hand-written input) are
    // told apart by namespace/name instead of all collapsing into one.
    let mut by_identity: FxHashMap<Identity, &Pod> = FxHashMap::default();
    for p in all
        .filter(|(p, own)| {
            selectors.iter().any(|(ns, s, is_owner)| match own {
                Some(known) if *is_owner => *known,
                _ => p.namespace() == *ns && s.matches(p.metadata.labels.as_ref()),
            })
        })
        .map(|(p, _)| p)
    {
        let id = if p.uid().is_empty() {
            Identity::Key(p.namespace(), p.name())
        } else {
            Identity::Uid(p.uid())
        };
        by_identity
            .entry(id)
            .and_modify(|kept| {
                if (p.namespace(), p.name()) < (kept.namespace(), kept.name()) {
                    *kept = p;
                }
            })
            .or_insert(p);
    }
    by_identity.into_values().collect()
}

#[derive(PartialEq, Eq, Hash)]
enum Identity<'a> {
    Uid(&'a str),
    Key(&'a str, &'a str),
}

/// R-04 over a list, order kept.
pub fn active<'a>(pods: &[&'a Pod]) -> Vec<&'a Pod> {
    pods.iter()
        .copied()
        .filter(|p| pods::is_active(p))
        .collect()
}
