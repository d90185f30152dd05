//! Which pods a sync looks at (R-20..R-22, R-34) and which pods count as related for
//! co-location on scale-down.

use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::collections::HashSet;

use super::digest::{same_bytes, Digested, PodDigest};
use crate::config::OwnerKind;
use crate::fxhash::FxHashMap;
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
    let all: Vec<&Pod> = all.into_iter().collect();
    let digests: Vec<PodDigest> = all.iter().map(|p| PodDigest::of(p)).collect();
    let items = all
        .iter()
        .zip(&digests)
        .map(|(pod, digest)| (Digested { pod, digest }, None));
    related(owner, others, items)
        .into_iter()
        .filter_map(|i| all.get(i).copied())
        .collect()
}

/// [`related_pods`] over a sync's digested pods when whether the owner's own (valid)
/// selector matches each pod is already known (`own[i]` for `all[i]`, false outside its
/// namespace): the indices into `all` of the related pods.
pub(crate) fn related_pods_matched<R: Borrow<ReplicaSet>>(
    owner: &ReplicaSet,
    others: &[R],
    all: &[&Pod],
    digests: &[PodDigest],
    own: &[bool],
) -> Vec<usize> {
    let items = all
        .iter()
        .zip(digests)
        .zip(own.iter().copied().chain(std::iter::repeat(false)))
        .map(|((pod, digest), own)| (Digested { pod, digest }, Some(own)));
    related(owner, others, items)
}

/// The pods with, for each, whether the owner's selector is known to match it: the
/// positions of the related ones.
fn related<'a, R: Borrow<ReplicaSet>>(
    owner: &ReplicaSet,
    others: &[R],
    all: impl Iterator<Item = (Digested<'a>, Option<bool>)>,
) -> Vec<usize> {
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
    // told apart by namespace/name instead of all collapsing into one. UIDs are first
    // told apart by their digest's 16-byte prefix, without reading the strings.
    // The first pod seen per prefix, then (rarely) the others that share a prefix.
    let (size, _) = all.size_hint();
    let mut by_prefix: FxHashMap<u128, (usize, &'a Pod)> =
        FxHashMap::with_capacity_and_hasher(size, Default::default());
    let mut shared: FxHashMap<Identity<'a>, (usize, &'a Pod)> = FxHashMap::default();
    let identity = |pod: &'a Pod| {
        if pod.uid().is_empty() {
            Identity::Key(pod.namespace(), pod.name())
        } else {
            Identity::Uid(pod.uid())
        }
    };
    let keep = |shared: &mut FxHashMap<Identity<'a>, (usize, &'a Pod)>, i, pod| {
        shared
            .entry(identity(pod))
            .and_modify(|(at, kept)| keep_first(at, kept, i, pod))
            .or_insert((i, pod));
    };
    for (i, (p, _)) in all.enumerate().filter(|(_, (p, own))| {
        selectors.iter().any(|(ns, s, is_owner)| match own {
            Some(known) if *is_owner => *known,
            _ => {
                same_bytes(p.digest.strings.namespace(), ns.as_bytes())
                    && s.matches_digest(p.digest.strings.labels())
            }
        })
    }) {
        let pod = p.pod;
        // A zero prefix may be an empty UID (told apart by namespace/name): by identity.
        if p.digest.uid_prefix == 0 {
            keep(&mut shared, i, pod);
            continue;
        }
        match by_prefix.entry(p.digest.uid_prefix) {
            Entry::Vacant(v) => {
                v.insert((i, pod));
            }
            Entry::Occupied(mut o) => {
                let (at, kept) = o.get_mut();
                if kept.uid() == pod.uid() {
                    keep_first(at, kept, i, pod);
                } else {
                    keep(&mut shared, i, pod);
                }
            }
        }
    }
    // `shared` never holds the UID kept under a prefix: that UID's pods stay there.
    by_prefix
        .into_values()
        .map(|(i, _)| i)
        .chain(shared.into_values().map(|(i, _)| i))
        .collect()
}

/// Of two pods with one identity, keep the first by namespace/name.
fn keep_first<'a>(at: &mut usize, kept: &mut &'a Pod, i: usize, pod: &'a Pod) {
    if (pod.namespace(), pod.name()) < (kept.namespace(), kept.name()) {
        *at = i;
        *kept = pod;
    }
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
