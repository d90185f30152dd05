//! The ranking rule (R-71..R-74): each pod's sort key, computed once from its digest,
//! and upstream's `Less` on two keys; the co-location counts of R-71.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::config::FeatureGates;
use crate::fxhash::FxHashMap;
use crate::model::Pod;
use crate::pods;
use crate::replicaset::digest::{Digested, PodDigest};
use crate::time::{log2_bucket, Time};

/// The rule that placed a pod before the next one in the deletion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RankRule {
    /// not scheduled to a node.
    Unassigned,
    /// Pending (or unknown phase) < Unknown < Running.
    Phase,
    /// not ready.
    Readiness,
    /// lower pod-deletion-cost.
    DeletionCost,
    /// more active related pods on its node.
    CoLocation,
    /// ready more recently (zero first; log2 buckets when LogarithmicScaleDown).
    ReadyTime,
    /// same ready-time bucket, lower UID.
    ReadyTimeUid,
    /// more container restarts.
    Restarts,
    /// more sidecar restarts.
    SidecarRestarts,
    /// created more recently (zero first; log2 buckets when LogarithmicScaleDown).
    CreationTime,
    /// same creation-time bucket, lower UID.
    CreationTimeUid,
    /// Upstream sees the two as equal; Replicore's final tie-break (UID, namespace, name).
    TieBreak,
    /// Upstream's comparator is intransitive here (both in one rank group); placed by its
    /// wins minus losses against the group.
    Intransitive,
}

impl RankRule {
    /// Every rule, in the order the comparator tries them.
    pub const ALL: [RankRule; 13] = [
        RankRule::Unassigned,
        RankRule::Phase,
        RankRule::Readiness,
        RankRule::DeletionCost,
        RankRule::CoLocation,
        RankRule::ReadyTime,
        RankRule::ReadyTimeUid,
        RankRule::Restarts,
        RankRule::SidecarRestarts,
        RankRule::CreationTime,
        RankRule::CreationTimeUid,
        RankRule::TieBreak,
        RankRule::Intransitive,
    ];

    /// A short human explanation.
    pub fn describe(self) -> &'static str {
        match self {
            RankRule::Unassigned => "not scheduled to a node",
            RankRule::Phase => "earlier phase (Pending < Unknown < Running)",
            RankRule::Readiness => "not ready",
            RankRule::DeletionCost => "lower pod-deletion-cost",
            RankRule::CoLocation => "more sibling pods on its node",
            RankRule::ReadyTime => "ready more recently",
            RankRule::ReadyTimeUid => "same ready-age bucket, lower UID",
            RankRule::Restarts => "more container restarts",
            RankRule::SidecarRestarts => "more sidecar restarts",
            RankRule::CreationTime => "created more recently",
            RankRule::CreationTimeUid => "same age bucket, lower UID",
            RankRule::TieBreak => "equal to the next; tie-break by UID",
            RankRule::Intransitive => "in a group upstream cannot order; by wins over the group",
        }
    }
}

/// A pod's sort key, computed once (R-71..R-74), compact so the sorts stay in cache.
#[derive(Clone, Copy, Debug)]
pub(super) struct Key {
    /// The UID's first 16 bytes, big-endian and zero-padded: a smaller prefix is a smaller
    /// UID; equal prefixes fall back to the strings.
    pub(super) uid: u128,
    /// Rule 6's slot of a ready pod with a non-zero ready time: the log2 age bucket, or
    /// the negated time.
    pub(super) ready_slot: i64,
    /// The exact ready time (valid with [`HAS_READY_TIME`]).
    pub(super) ready_time: i64,
    /// Rule 8's slot and the exact creation time (valid with [`HAS_CREATED`]).
    pub(super) created_slot: i64,
    pub(super) created: i64,
    pub(super) cost: i32,
    pub(super) colocated: u32,
    pub(super) restarts: i32,
    pub(super) sidecar: i32,
    pub(super) index: u32,
    pub(super) phase: u8,
    pub(super) flags: u8,
}

pub(super) const UNASSIGNED: u8 = 1;
pub(super) const READY: u8 = 2;
/// Ready with a non-zero ready time.
pub(super) const HAS_READY_TIME: u8 = 4;
pub(super) const HAS_CREATED: u8 = 8;

pub(super) fn slot(t: Time, now: Time, log: bool) -> i64 {
    if log {
        i64::from(log2_bucket(now, t))
    } else {
        t.unix_nanos().saturating_neg()
    }
}

/// An ordered `(bool, i64)` as one integer.
pub(super) fn slot_bits((nonzero, v): (bool, i64)) -> u128 {
    (u128::from(nonzero) << 64) | u128::from((v as u64) ^ (1 << 63))
}

/// An exact time as an ordered `u64`. `None` and `i64::MIN` share 0, which never
/// matters: the times compared inside a block (ready times of one ready slot, creation
/// times of one later key) are either all present or all absent, since those keys hold
/// whether the time is non-zero.
pub(super) fn time_bits(t: Option<i64>) -> u64 {
    t.map_or(0, |v| (v as u64) ^ (1 << 63))
}

impl Key {
    pub(super) fn new(
        index: u32,
        d: &PodDigest,
        colocated: u32,
        now: Time,
        gates: &FeatureGates,
    ) -> Key {
        let log = gates.logarithmic_scale_down;
        let mut flags = 0;
        let mut ready_slot = 0;
        let mut ready_time = 0;
        if d.is_ready() {
            flags |= READY;
            if let Some(t) = d.ready_time() {
                flags |= HAS_READY_TIME;
                ready_slot = slot(t, now, log);
                ready_time = t.unix_nanos();
            }
        }
        let (mut created_slot, mut created) = (0, 0);
        if let Some(t) = d.creation_time() {
            flags |= HAS_CREATED;
            created_slot = slot(t, now, log);
            created = t.unix_nanos();
        }
        if d.is_unassigned() {
            flags |= UNASSIGNED;
        }
        Key {
            uid: d.uid_prefix,
            ready_slot,
            ready_time,
            created_slot,
            created,
            cost: if gates.pod_deletion_cost {
                d.deletion_cost
            } else {
                0
            },
            colocated,
            restarts: d.restarts,
            sidecar: d.sidecar_restarts,
            index,
            phase: d.phase,
            flags,
        }
    }

    pub(super) fn unassigned(&self) -> bool {
        self.flags & UNASSIGNED != 0
    }

    pub(super) fn ready(&self) -> bool {
        self.flags & READY != 0
    }

    /// The exact ready time of a ready pod (`None`: not ready, or zero).
    pub(super) fn ready_time(&self) -> Option<i64> {
        (self.flags & HAS_READY_TIME != 0).then_some(self.ready_time)
    }

    /// Rule 6's order among ready pods: (non-zero, bucket or −time); (false, 0) otherwise.
    pub(super) fn ready_slot(&self) -> (bool, i64) {
        match self.ready_time() {
            Some(_) => (true, self.ready_slot),
            None => (false, 0),
        }
    }

    pub(super) fn created(&self) -> Option<i64> {
        (self.flags & HAS_CREATED != 0).then_some(self.created)
    }

    /// Rule 8's order: (non-zero, bucket or −time).
    pub(super) fn created_slot(&self) -> (bool, i64) {
        match self.created() {
            Some(_) => (true, self.created_slot),
            None => (false, 0),
        }
    }

    /// Rules 1–5 and rule 6's slot, packed, smaller first: a strict weak order whose ties
    /// are the blocks.
    pub(super) fn block_key(&self) -> (u128, u128) {
        let rules = (u128::from(!self.unassigned()) << 67)
            | (u128::from(self.phase & 3) << 65)
            | (u128::from(self.ready()) << 64)
            | (u128::from((self.cost as u32) ^ (1 << 31)) << 32)
            | u128::from(u32::MAX - self.colocated);
        (rules, slot_bits(self.ready_slot()))
    }

    /// Rule 7 and rule 8's slot, packed, smaller first.
    pub(super) fn later_key(&self) -> u128 {
        let desc = |n: i32| u128::from(i32::MAX.saturating_sub(n.max(0)) as u32);
        (desc(self.restarts) << 96) | (desc(self.sidecar) << 65) | slot_bits(self.created_slot())
    }
}

/// Upstream's `Less` on two keys: `Some((Less, rule))` when `a` goes before `b`,
/// `Some((Greater, rule))` when after, `None` when upstream sees them as equal.
pub(super) fn decide(a: &Key, b: &Key, uid_a: &str, uid_b: &str) -> Option<(Ordering, RankRule)> {
    let by = |o: Ordering, rule| (o != Ordering::Equal).then_some((o, rule));
    by(b.unassigned().cmp(&a.unassigned()), RankRule::Unassigned)
        .or_else(|| by(a.phase.cmp(&b.phase), RankRule::Phase))
        .or_else(|| by(a.ready().cmp(&b.ready()), RankRule::Readiness))
        .or_else(|| by(a.cost.cmp(&b.cost), RankRule::DeletionCost))
        .or_else(|| by(b.colocated.cmp(&a.colocated), RankRule::CoLocation))
        .or_else(|| {
            if !(a.ready() && b.ready()) || a.ready_time() == b.ready_time() {
                return None;
            }
            by(a.ready_slot().cmp(&b.ready_slot()), RankRule::ReadyTime)
                // Same non-zero bucket, different times: UID decides, whatever follows.
                .or(Some((uid_a.cmp(uid_b), RankRule::ReadyTimeUid)))
        })
        .or_else(|| by(b.restarts.cmp(&a.restarts), RankRule::Restarts))
        .or_else(|| by(b.sidecar.cmp(&a.sidecar), RankRule::SidecarRestarts))
        .or_else(|| {
            if a.created() == b.created() {
                return None;
            }
            by(
                a.created_slot().cmp(&b.created_slot()),
                RankRule::CreationTime,
            )
            // Same non-zero bucket, different times: UID decides.
            .or(Some((uid_a.cmp(uid_b), RankRule::CreationTimeUid)))
        })
        .filter(|(o, _)| *o != Ordering::Equal)
}

/// Counts active related pods per node name (R-71; unassigned pods share "").
pub fn colocation_counts<'a>(
    related: impl IntoIterator<Item = &'a Pod>,
) -> HashMap<&'a str, usize> {
    let mut on_node: HashMap<&str, usize> = HashMap::new();
    for (node, n) in node_counts(related) {
        on_node.insert(node, n as usize);
    }
    on_node
}

pub(super) fn node_counts<'a>(
    related: impl IntoIterator<Item = &'a Pod>,
) -> FxHashMap<&'a str, u32> {
    let mut on_node: FxHashMap<&str, u32> = FxHashMap::default();
    for p in related {
        if pods::is_active(p) {
            *on_node.entry(p.node_name()).or_default() += 1;
        }
    }
    on_node
}

/// R-71 per candidate: the active `related` pods on its node, grouped by the digests'
/// node-name fingerprints (no name is read).
pub(super) fn colocation(candidates: &[Digested], related: &[Digested]) -> Vec<u32> {
    let mut counts: FxHashMap<u128, u32> = FxHashMap::default();
    for p in related.iter().filter(|p| p.digest.is_active()) {
        *counts.entry(p.digest.node).or_default() += 1;
    }
    candidates
        .iter()
        .map(|p| counts.get(&p.digest.node).copied().unwrap_or(0))
        .collect()
}
