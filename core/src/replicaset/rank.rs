//! Scale-down ranking (R-70..R-74): which pods go first.
//!
//! Upstream sorts `ActivePodsWithRanks` with Go's unstable `sort.Sort`, whose `Less` is:
//!
//! 1. unassigned before assigned;
//! 2. Pending (or an unknown phase) < Unknown < Running;
//! 3. not ready before ready;
//! 4. lower pod-deletion-cost first (gate PodDeletionCost);
//! 5. more active related pods on the same node first;
//! 6. both ready with different ready times: zero first, else the more recent first —
//!    with LogarithmicScaleDown by log2 age bucket, and within one bucket by UID;
//! 7. more container restarts first, then more sidecar restarts;
//! 8. creation time as rule 6;
//! 9. otherwise equal.
//!
//! Rules 6 and 8 make the comparator intransitive when equal timestamps meet different
//! ones inside a bucket, so no total order agrees with every comparison. Replicore orders
//! pods by a linear extension of upstream's "rank groups" (the strongly connected
//! components of the comparison graph, where ties count both ways): inside each block of
//! pods that rules 1–5 and the ready-time bucket cannot separate, every pod is scored by
//! its strict wins minus strict losses against the block, and pods are sorted by that
//! score. The score strictly decreases from one component to the next, so the result
//! never contradicts upstream across components; ties are broken by UID, namespace and
//! name, so the same pods in any input order give the same order. Most blocks need no
//! scores: where every strict comparison inside a block agrees with UID order (ready
//! pods, rule 6 in play) or with (later key, UID) order (otherwise), that order is used
//! as is — it is a linear extension and the block has no intransitive group. Sort keys
//! come from each pod's [`crate::PodDigest`], computed once when the pod entered:
//! O(n log n) with integer comparisons.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::digest::{Digested, PodDigest};
use crate::config::FeatureGates;
use crate::fxhash::FxHashMap;
use crate::model::Pod;
use crate::pods;
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

/// What the ranking knew about a pod, for explanations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RankFacts {
    pub node: String,
    pub phase: String,
    pub ready: bool,
    pub deletion_cost: i32,
    /// active related pods on the same node.
    pub colocated: usize,
    /// R-73 bucket of the ready time (`None` when not ready or zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ready_bucket: Option<i32>,
    pub restarts: i32,
    pub sidecar_restarts: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub creation_bucket: Option<i32>,
}

/// A ranking as a host asks for it (`rankPods`, `upstreamLess` in the wasm binding).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RankOptions {
    /// The controller clock (ready-time buckets).
    pub now: Time,
    /// Pods whose active members count toward co-location; default: the pods
    /// ranked.
    #[serde(default, deserialize_with = "crate::objects::opt_objects")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<Vec<crate::ts::KubeObject>>", optional)
    )]
    pub related: Option<Vec<Pod>>,
    /// Each gate defaults on its own.
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "crate::ts::Partial<FeatureGates>", optional = nullable)
    )]
    pub feature_gates: FeatureGates,
}

/// A ranked pod as a host shows it: its name, its index among the pods ranked, the rule
/// that placed it before the next pod and that rule's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RankedPod"))]
#[serde(rename_all = "camelCase")]
pub struct NamedRankedPod {
    pub namespace: String,
    pub name: String,
    /// Index into the pods ranked.
    pub index: usize,
    /// The rule that placed it before the next pod; `None` for the last pod.
    pub rule: Option<RankRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rule_text: Option<&'static str>,
    pub facts: RankFacts,
}

impl NamedRankedPod {
    /// `ranked` with the name of `pod` (the candidate at `ranked.index`).
    pub fn new(pod: &Pod, ranked: RankedPod) -> Self {
        NamedRankedPod {
            namespace: pod.namespace().to_owned(),
            name: pod.name().to_owned(),
            index: ranked.index,
            rule: ranked.rule,
            rule_text: ranked.rule.map(RankRule::describe),
            facts: ranked.facts,
        }
    }
}

/// One pod in deletion order: `index` into the candidates given to [`rank`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedPod {
    pub index: usize,
    /// The rule that placed it before the next pod; `None` for the last pod.
    pub rule: Option<RankRule>,
    pub facts: RankFacts,
}

/// A pod's sort key, computed once (R-71..R-74), compact so the sorts stay in cache.
#[derive(Clone, Copy, Debug)]
struct Key {
    /// The UID's first 16 bytes, big-endian and zero-padded: a smaller prefix is a smaller
    /// UID; equal prefixes fall back to the strings.
    uid: u128,
    /// Rule 6's slot of a ready pod with a non-zero ready time: the log2 age bucket, or
    /// the negated time.
    ready_slot: i64,
    /// The exact ready time (valid with [`HAS_READY_TIME`]).
    ready_time: i64,
    /// Rule 8's slot and the exact creation time (valid with [`HAS_CREATED`]).
    created_slot: i64,
    created: i64,
    cost: i32,
    colocated: u32,
    restarts: i32,
    sidecar: i32,
    index: u32,
    phase: u8,
    flags: u8,
}

const UNASSIGNED: u8 = 1;
const READY: u8 = 2;
/// Ready with a non-zero ready time.
const HAS_READY_TIME: u8 = 4;
const HAS_CREATED: u8 = 8;

fn slot(t: Time, now: Time, log: bool) -> i64 {
    if log {
        i64::from(log2_bucket(now, t))
    } else {
        t.unix_nanos().saturating_neg()
    }
}

/// An ordered `(bool, i64)` as one integer.
fn slot_bits((nonzero, v): (bool, i64)) -> u128 {
    (u128::from(nonzero) << 64) | u128::from((v as u64) ^ (1 << 63))
}

/// An exact time as an ordered `u64`. `None` and `i64::MIN` share 0, which never
/// matters: the times compared inside a block (ready times of one ready slot, creation
/// times of one later key) are either all present or all absent, since those keys hold
/// whether the time is non-zero.
fn time_bits(t: Option<i64>) -> u64 {
    t.map_or(0, |v| (v as u64) ^ (1 << 63))
}

impl Key {
    fn new(index: u32, d: &PodDigest, colocated: u32, now: Time, gates: &FeatureGates) -> Key {
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

    fn unassigned(&self) -> bool {
        self.flags & UNASSIGNED != 0
    }

    fn ready(&self) -> bool {
        self.flags & READY != 0
    }

    /// The exact ready time of a ready pod (`None`: not ready, or zero).
    fn ready_time(&self) -> Option<i64> {
        (self.flags & HAS_READY_TIME != 0).then_some(self.ready_time)
    }

    /// Rule 6's order among ready pods: (non-zero, bucket or −time); (false, 0) otherwise.
    fn ready_slot(&self) -> (bool, i64) {
        match self.ready_time() {
            Some(_) => (true, self.ready_slot),
            None => (false, 0),
        }
    }

    fn created(&self) -> Option<i64> {
        (self.flags & HAS_CREATED != 0).then_some(self.created)
    }

    /// Rule 8's order: (non-zero, bucket or −time).
    fn created_slot(&self) -> (bool, i64) {
        match self.created() {
            Some(_) => (true, self.created_slot),
            None => (false, 0),
        }
    }

    /// Rules 1–5 and rule 6's slot, packed, smaller first: a strict weak order whose ties
    /// are the blocks.
    fn block_key(&self) -> (u128, u128) {
        let rules = (u128::from(!self.unassigned()) << 67)
            | (u128::from(self.phase & 3) << 65)
            | (u128::from(self.ready()) << 64)
            | (u128::from((self.cost as u32) ^ (1 << 31)) << 32)
            | u128::from(u32::MAX - self.colocated);
        (rules, slot_bits(self.ready_slot()))
    }

    /// Rule 7 and rule 8's slot, packed, smaller first.
    fn later_key(&self) -> u128 {
        let desc = |n: i32| u128::from(i32::MAX.saturating_sub(n.max(0)) as u32);
        (desc(self.restarts) << 96) | (desc(self.sidecar) << 65) | slot_bits(self.created_slot())
    }
}

/// Upstream's `Less` on two keys: `Some((Less, rule))` when `a` goes before `b`,
/// `Some((Greater, rule))` when after, `None` when upstream sees them as equal.
fn decide(a: &Key, b: &Key, uid_a: &str, uid_b: &str) -> Option<(Ordering, RankRule)> {
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

/// A block member's keys, copied together so the block's sorts touch one small array.
#[derive(Clone, Copy, Debug)]
struct Member {
    index: u32,
    /// Dense UID rank within the block (see [`uid_order`]).
    uid: u32,
    ready: u64,
    created: u64,
    later: u128,
    w: i64,
}

/// Whether UID order is a linear extension of upstream's order in a ready block with
/// LogarithmicScaleDown (rule 6 in play) and distinct UIDs, so that no scores are needed:
/// pods of different exact ready times go by UID; pods of one ready time go by the later
/// key (rules 7, 8) and, between different creation times of one bucket, by UID. So UID
/// order agrees with every strict comparison, and the block has no intransitive group,
/// when within each ready time the later key never decreases along UID order.
/// `members` are in UID order; `by_time` holds (ready time, position) sorted.
fn uid_order_agrees(members: &[Member], by_time: &[(u64, u32)]) -> bool {
    let later = |pos: u32| members.get(pos as usize).map_or(0, |m| m.later);
    by_time.windows(2).all(|pair| match pair {
        [a, b] => a.0 != b.0 || later(a.1) <= later(b.1),
        _ => true,
    })
}

/// For members sorted (grouped ascending) by `key`: `sign ×` (how many have a greater key
/// − how many a smaller one), added to each member's `w`. One linear pass.
fn add_sorted_scores<K: PartialEq>(members: &mut [Member], key: impl Fn(&Member) -> K, sign: i64) {
    let n = members.len();
    if n < 2 {
        return;
    }
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n {
            match (members.get(start), members.get(end)) {
                (Some(a), Some(b)) if key(a) == key(b) => end += 1,
                _ => break,
            }
        }
        let score = sign * ((n - end) as i64 - start as i64);
        for m in members.get_mut(start..end).unwrap_or_default() {
            m.w += score;
        }
        start = end;
    }
}

/// Calls `f` on each run of equal `key` (members sorted by it).
fn for_runs_mut(
    members: &mut [Member],
    key: impl Fn(&Member) -> u128,
    mut f: impl FnMut(&mut [Member]),
) {
    let mut start = 0;
    while start < members.len() {
        let k = members.get(start).map(&key);
        let mut end = start + 1;
        while end < members.len() && members.get(end).map(&key) == k {
            end += 1;
        }
        if let Some(run) = members.get_mut(start..end) {
            f(run);
        }
        start = end;
    }
}

/// Buffers reused from one block to the next.
#[derive(Default)]
struct Scratch {
    members: Vec<Member>,
    /// (UID prefix, index) of the block's pods, in UID order.
    by_uid: Vec<(u128, u32)>,
    /// (exact ready time, position in UID order), sorted.
    by_time: Vec<(u64, u32)>,
    /// Buffers of [`score_ready_class`].
    class: ClassScratch,
}

/// Buffers of [`score_ready_class`] ((later key, position) and (creation time, position))
/// and of [`order_block`]'s sorts.
#[derive(Default)]
struct ClassScratch {
    by_later: Vec<(u128, u32)>,
    by_created: Vec<(u64, u32)>,
    /// (score, UID rank) packed, for ordering a scored block.
    packed: Vec<u64>,
}

/// Orders one block (pods that rules 1–5 and the ready slot cannot separate) as a linear
/// extension of upstream's rank groups. Within the block, upstream's `Less(a, b)` is:
/// different exact ready times (both ready, with LogarithmicScaleDown) ⇒ by UID;
/// otherwise by the later key (restarts, sidecar restarts, creation slot), and within one
/// creation bucket, different exact creation times ⇒ by UID.
///
/// With distinct UIDs, most blocks need no scores: without rule 6 in play, (later key,
/// UID) order agrees with every strict comparison; with it, UID order does when
/// [`uid_order_agrees`]. Such an order is a linear extension and the block has no
/// intransitive group, so it is used as is. Otherwise each pod is scored by its strict
/// wins minus strict losses against the block, and the block is sorted by that score;
/// every score part is a count over a sorted run.
fn order_block(
    keys: &[Key],
    pods: &[Digested],
    block: &mut [u32],
    scratch: &mut Scratch,
    log: bool,
) {
    if block.len() < 2 {
        return;
    }
    let Scratch {
        members,
        by_uid,
        by_time,
        class,
    } = scratch;
    uid_order(keys, pods, block, by_uid);
    members.clear();
    let uid_of = |i: u32| pods.get(i as usize).map_or("", |p| p.uid());
    let mut rank = 0u32;
    let mut prev: Option<(u128, u32)> = None;
    for &(prefix, i) in by_uid.iter() {
        if let Some((p, j)) = prev {
            if p != prefix || uid_of(i) != uid_of(j) {
                rank += 1;
            }
        }
        prev = Some((prefix, i));
        if let Some(k) = keys.get(i as usize) {
            members.push(Member {
                index: i,
                uid: rank,
                ready: time_bits(k.ready_time()),
                created: time_bits(k.created()),
                later: k.later_key(),
                w: 0,
            });
        }
    }
    let ready = block
        .first()
        .and_then(|&i| keys.get(i as usize))
        .is_some_and(Key::ready);
    let by_ready_time = ready && log;
    let distinct_uids = members
        .last()
        .is_some_and(|m| m.uid as usize + 1 == members.len());
    // With distinct UIDs, a member's UID rank is its position in `members`.
    match (distinct_uids, by_ready_time) {
        (true, false) => {
            // (later key, UID) order, sorting small (key, position) pairs.
            let by_later = &mut class.by_later;
            by_later.clear();
            by_later.extend(members.iter().map(|m| (m.later, m.uid)));
            by_later.sort_unstable();
            write_positions(block, members, by_later.iter().map(|&(_, pos)| pos));
        }
        (true, true) => {
            by_time.clear();
            by_time.extend(members.iter().map(|m| m.ready).zip(0u32..));
            by_time.sort_unstable();
            if uid_order_agrees(members, by_time) {
                write_positions(block, members, 0..members.len() as u32);
            } else {
                score_ready_block(members, by_time, class);
                // Score, then UID (= position): one packed integer per member.
                let packed = &mut class.packed;
                packed.clear();
                packed.extend(members.iter().map(|m| {
                    let w = m.w.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
                    // Highest score first: order by the biased score's complement.
                    let score = !((w as u32) ^ (1 << 31));
                    (u64::from(score) << 32) | u64::from(m.uid)
                }));
                packed.sort_unstable();
                write_positions(block, members, packed.iter().map(|&p| p as u32));
            }
        }
        (false, _) => {
            score_block(members, by_ready_time, log);
            by_score(members, pods, block);
        }
    }
}

/// Writes into `block` the pods of the members at `positions`, in that order.
fn write_positions(block: &mut [u32], members: &[Member], positions: impl Iterator<Item = u32>) {
    for (slot, pos) in block.iter_mut().zip(positions) {
        if let Some(m) = members.get(pos as usize) {
            *slot = m.index;
        }
    }
}

/// Each member's strict wins minus strict losses against the block (`w`). `members`
/// arrive sorted by UID rank; they leave in no particular order.
fn score_block(members: &mut [Member], by_ready_time: bool, log: bool) {
    if by_ready_time {
        // Rule 6 inside a bucket: pods of different exact ready times go by UID.
        // `members` is sorted by UID here.
        add_sorted_scores(members, |m| m.uid, 1);
        members.sort_unstable_by_key(|m| (m.ready, m.uid));
    }
    let classes = |m: &Member| {
        if by_ready_time {
            u128::from(m.ready)
        } else {
            0
        }
    };
    for_runs_mut(members, classes, |class| {
        if by_ready_time {
            // Within one exact ready time the UID part above does not apply.
            add_sorted_scores(class, |m| m.uid, -1);
        }
        // Rules 7 and 8: the later key, then (same creation bucket) UID between
        // different exact creation times.
        class.sort_unstable_by_key(|m| (m.later, m.uid));
        add_sorted_scores(class, |m| m.later, 1);
        if log {
            for_runs_mut(
                class,
                |m| m.later,
                |group| {
                    add_sorted_scores(group, |m| m.uid, 1);
                    group.sort_unstable_by_key(|m| (m.created, m.uid));
                    for_runs_mut(
                        group,
                        |m| u128::from(m.created),
                        |cclass| add_sorted_scores(cclass, |m| m.uid, -1),
                    );
                },
            );
        }
    });
}

/// The scores of [`order_block`] for a ready block with LogarithmicScaleDown (rule 6 in
/// play) and distinct UIDs, computed the same way as [`score_block`] but touching only
/// the pods that share an exact ready time with another: the UID part is
/// `n − 1 − 2·rank` for every pod; within each ready time of several pods, that time's
/// own UID part is taken back and the later key (rules 7, 8) and the creation-time UID
/// rule are added. `members` arrive sorted by UID; `by_time` holds (ready time,
/// position) sorted.
fn score_ready_block(members: &mut [Member], by_time: &[(u64, u32)], buf: &mut ClassScratch) {
    let n = members.len() as i64;
    for (rank, m) in (0i64..).zip(members.iter_mut()) {
        m.w = n - 1 - 2 * rank;
    }
    for class in runs(by_time).filter(|c| c.len() > 1) {
        score_ready_class(members, class, buf);
    }
}

/// Adds `sign ×` the UID rank part over `positions` (in UID order, ascending) to their
/// members' scores.
fn add_uid_part<K>(members: &mut [Member], positions: &[(K, u32)], sign: i64) {
    let len = positions.len() as i64;
    for (rank, (_, pos)) in (0i64..).zip(positions) {
        if let Some(m) = members.get_mut(*pos as usize) {
            m.w += sign * (len - 1 - 2 * rank);
        }
    }
}

/// One exact ready time's pods (positions in UID order, ascending) in a ready block.
fn score_ready_class(members: &mut [Member], class: &[(u64, u32)], buf: &mut ClassScratch) {
    let ClassScratch {
        by_later,
        by_created,
        ..
    } = buf;
    // Within one ready time the UID rule does not apply.
    add_uid_part(members, class, -1);
    // Rules 7 and 8: the later key; within one later key (one creation bucket), UID
    // between different exact creation times.
    by_later.clear();
    by_later.extend(
        class
            .iter()
            .map(|&(_, pos)| (members.get(pos as usize).map_or(0, |m| m.later), pos)),
    );
    by_later.sort_unstable();
    let c = by_later.len() as i64;
    let mut start = 0i64;
    for group in runs(by_later) {
        let end = start + group.len() as i64;
        for &(_, pos) in group {
            if let Some(m) = members.get_mut(pos as usize) {
                m.w += (c - end) - start;
            }
        }
        start = end;
        if group.len() > 1 {
            add_uid_part(members, group, 1);
            by_created.clear();
            by_created.extend(
                group
                    .iter()
                    .map(|&(_, pos)| (members.get(pos as usize).map_or(0, |m| m.created), pos)),
            );
            by_created.sort_unstable();
            for same in runs(by_created).filter(|r| r.len() > 1) {
                add_uid_part(members, same, -1);
            }
        }
    }
}

/// The runs of equal first elements of a sorted slice.
fn runs<K: PartialEq, V>(sorted: &[(K, V)]) -> impl Iterator<Item = &[(K, V)]> {
    sorted.chunk_by(|a, b| a.0 == b.0)
}

/// Writes the members into `block` by score (highest first), then UID rank, then
/// [`tie_break`]: score and UID rank are packed into one integer per member, sorted as
/// such, and only runs of equal packed keys (equal UIDs) are compared by name.
fn by_score(members: &[Member], pods: &[Digested], block: &mut [u32]) {
    let mut packed: Vec<(u128, u32)> = members
        .iter()
        .map(|m| {
            // Highest score first: order by the score's complement.
            let score = u128::from(!(m.w as u64 ^ (1 << 63)));
            ((score << 32) | u128::from(m.uid), m.index)
        })
        .collect();
    packed.sort_unstable_by_key(|e| e.0);
    let mut start = 0;
    while start < packed.len() {
        let key = packed.get(start).map(|e| e.0);
        let mut end = start + 1;
        while end < packed.len() && packed.get(end).map(|e| e.0) == key {
            end += 1;
        }
        if end - start > 1 {
            if let Some(run) = packed.get_mut(start..end) {
                run.sort_unstable_by(|a, b| tie_break(pods, a.1, b.1));
            }
        }
        start = end;
    }
    for (slot, (_, index)) in block.iter_mut().zip(packed) {
        *slot = index;
    }
}

/// The last tie-break: namespace, name, then input position.
fn tie_break(pods: &[Digested], a: u32, b: u32) -> Ordering {
    match (pods.get(a as usize), pods.get(b as usize)) {
        (Some(x), Some(y)) => (x.namespace(), x.name())
            .cmp(&(y.namespace(), y.name()))
            .then(a.cmp(&b)),
        _ => a.cmp(&b),
    }
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

fn node_counts<'a>(related: impl IntoIterator<Item = &'a Pod>) -> FxHashMap<&'a str, u32> {
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
fn colocation(candidates: &[Digested], related: &[Digested]) -> Vec<u32> {
    let mut counts: FxHashMap<u128, u32> = FxHashMap::default();
    for p in related.iter().filter(|p| p.digest.is_active()) {
        *counts.entry(p.digest.node).or_default() += 1;
    }
    candidates
        .iter()
        .map(|p| counts.get(&p.digest.node).copied().unwrap_or(0))
        .collect()
}

/// The block's pods as (UID prefix, index), in byte-wise UID order (R-72.6/8 compare
/// UIDs as Go strings): sorted by the keys' 16-byte prefixes, full strings compared only
/// where prefixes tie.
fn uid_order(keys: &[Key], pods: &[Digested], block: &[u32], by_uid: &mut Vec<(u128, u32)>) {
    let uid_of = |i: u32| pods.get(i as usize).map_or("", |p| p.uid());
    by_uid.clear();
    by_uid.extend(
        block
            .iter()
            .map(|&i| (keys.get(i as usize).map_or(0, |k| k.uid), i)),
    );
    by_uid.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| uid_of(a.1).cmp(uid_of(b.1))));
}

/// The block keys packed into a `u64` (offsets from each part's minimum, in the same
/// order as [`Key::block`]); `None` when they do not fit, e.g. exact times without
/// LogarithmicScaleDown.
fn packed_block_keys(keys: &[Key]) -> Option<(Vec<u64>, u32)> {
    let bits = |range: u64| u64::BITS - range.leading_zeros();
    // One pass for the ranges of the co-location count and the ready slot.
    let (max_col, min_slot, max_slot) =
        keys.iter()
            .fold((0u32, i64::MAX, i64::MIN), |(col, slo, shi), k| {
                let slot = k.ready_slot().1;
                (col.max(k.colocated), slo.min(slot), shi.max(slot))
            });
    // Deletion costs span the whole int32 range (`2147483647` is a common annotation)
    // but take few distinct values: packed as their rank among those values.
    let mut costs: Vec<i32> = keys.iter().map(|k| k.cost).filter(|&c| c != 0).collect();
    costs.push(0);
    costs.sort_unstable();
    costs.dedup();
    let zero_rank = costs.partition_point(|&c| c < 0) as u64;
    let cost_rank = |cost: i32| match cost {
        0 => zero_rank,
        _ => costs.partition_point(|&c| c < cost) as u64,
    };
    let cost_bits = bits(costs.len().saturating_sub(1) as u64);
    let col_bits = bits(u64::from(max_col));
    let slot_range = i128::from(max_slot) - i128::from(min_slot);
    let slot_bits = bits(u64::try_from(slot_range.max(0)).ok()?) + 1;
    let key_bits = 4 + cost_bits + col_bits + slot_bits;
    if key_bits > 64 {
        return None;
    }
    let packed = keys
        .iter()
        .map(|k| {
            let head = (u64::from(!k.unassigned()) << 3)
                | (u64::from(k.phase & 3) << 1)
                | u64::from(k.ready());
            let cost = cost_rank(k.cost);
            // More co-located first: descending.
            let col = u64::from(max_col - k.colocated);
            let (nonzero, value) = k.ready_slot();
            let slot =
                (u64::from(nonzero) << (slot_bits - 1)) | (value.wrapping_sub(min_slot) as u64);
            (((head << cost_bits | cost) << col_bits | col) << slot_bits) | slot
        })
        .collect();
    Some((packed, key_bits))
}

/// Sorts integers whose set bits all lie below `bits`: least-significant-digit radix sort,
/// 11 bits a pass (linear in the count, where a comparison sort is n log n); small
/// inputs go to the standard sort.
fn radix_sort(v: &mut Vec<u64>, bits: u32) {
    const DIGIT: u32 = 11;
    if v.len() < 512 {
        v.sort_unstable();
        return;
    }
    let mask = (1u64 << DIGIT) - 1;
    let mut out = vec![0u64; v.len()];
    let mut shift = 0;
    while shift < bits {
        let mut starts = [0usize; 1 << DIGIT];
        for &x in v.iter() {
            if let Some(c) = starts.get_mut(((x >> shift) & mask) as usize) {
                *c += 1;
            }
        }
        let mut sum = 0;
        for c in starts.iter_mut() {
            let count = *c;
            *c = sum;
            sum += count;
        }
        for &x in v.iter() {
            if let Some(c) = starts.get_mut(((x >> shift) & mask) as usize) {
                if let Some(slot) = out.get_mut(*c) {
                    *slot = x;
                }
                *c += 1;
            }
        }
        std::mem::swap(v, &mut out);
        shift += DIGIT;
    }
}

/// Sorts `(block key, index)` pairs by key then index. When both fit in 64 bits they are
/// packed into one integer each and radix-sorted.
fn sort_packed(packed: Vec<u64>, key_bits: u32) -> Vec<(u64, u32)> {
    let n = packed.len() as u64;
    let index_bits = u64::BITS - n.leading_zeros();
    if key_bits + index_bits <= 64 {
        let mut v: Vec<u64> = packed
            .into_iter()
            .zip(0u64..)
            .map(|(k, i)| (k << index_bits) | i)
            .collect();
        radix_sort(&mut v, key_bits + index_bits);
        let mask = (1u64 << index_bits) - 1;
        return v
            .into_iter()
            .map(|e| (e >> index_bits, (e & mask) as u32))
            .collect();
    }
    let mut v: Vec<(u64, u32)> = packed.into_iter().zip(0u32..).collect();
    v.sort_unstable();
    v
}

/// The deletion order: indices into `candidates`, first to go first, with the keys. Only
/// the blocks that reach into positions `0..limit` are ordered inside; the others keep
/// their pods in block-key order. The explanation of the pod at `limit − 1` still holds:
/// when the next position starts a block, every pod of that block differs from it by the
/// same rule (rules 1–5 and the ready slot are the block's).
fn order(
    candidates: &[Digested],
    related: &[Digested],
    now: Time,
    gates: &FeatureGates,
    limit: usize,
) -> (Vec<Key>, Vec<u32>) {
    let colocated = colocation(candidates, related);
    let keys: Vec<Key> = candidates
        .iter()
        .zip(colocated)
        .zip(0u32..)
        .map(|((p, n), i)| Key::new(i, p.digest, n, now, gates))
        .collect();
    // Sort by the block key; with LogarithmicScaleDown its parts span few bits and pack
    // into one u64, which sorts much faster than the general (u128, u128) key.
    let sorted: Vec<(u64, u32)> = match packed_block_keys(&keys) {
        Some((packed, key_bits)) => sort_packed(packed, key_bits),
        None => {
            let mut v: Vec<((u128, u128), u32)> =
                keys.iter().map(|k| (k.block_key(), k.index)).collect();
            v.sort_unstable();
            // Dense block numbers in place of the wide keys.
            let mut dense = 0u64;
            let mut prev = None;
            v.into_iter()
                .map(|(k, i)| {
                    if prev.is_some_and(|p| p != k) {
                        dense += 1;
                    }
                    prev = Some(k);
                    (dense, i)
                })
                .collect()
        }
    };
    let mut order: Vec<u32> = sorted.iter().map(|e| e.1).collect();
    let mut scratch = Scratch::default();
    let mut start = 0;
    // Blocks starting at `limit` or later are not needed.
    while start < sorted.len() && start < limit {
        let block_key = sorted.get(start).map(|e| e.0);
        let mut end = start + 1;
        while sorted.get(end).map(|e| e.0) == block_key {
            end += 1;
        }
        if end - start > 1 {
            if let Some(block) = order.get_mut(start..end) {
                order_block(
                    &keys,
                    candidates,
                    block,
                    &mut scratch,
                    gates.logarithmic_scale_down,
                );
            }
        }
        start = end;
    }
    (keys, order)
}

fn facts(k: &Key, pod: &Pod, now: Time, log: bool) -> RankFacts {
    let bucket = |t: Option<i64>| {
        t.filter(|_| log)
            .map(|t| log2_bucket(now, Time::from_unix_nanos(t)))
    };
    RankFacts {
        node: pod.node_name().to_owned(),
        phase: pod.phase().to_owned(),
        ready: k.ready(),
        deletion_cost: k.cost,
        colocated: k.colocated as usize,
        ready_bucket: bucket(k.ready_time()),
        restarts: k.restarts,
        sidecar_restarts: k.sidecar,
        creation_bucket: bucket(k.created()),
    }
}

/// The first `n` of the order, explained: each pod with the rule that placed it before
/// the next pod of the whole order.
fn explain(
    keys: &[Key],
    order: &[u32],
    candidates: &[Digested],
    n: usize,
    now: Time,
    log: bool,
) -> Vec<RankedPod> {
    let key = |i: u32| keys.get(i as usize);
    order
        .iter()
        .enumerate()
        .take(n)
        .filter_map(|(pos, &i)| {
            let k = key(i)?;
            let pod = candidates.get(i as usize)?;
            let rule = order
                .get(pos + 1)
                .and_then(|&j| Some((key(j)?, candidates.get(j as usize)?)))
                .map(
                    |(next, next_pod)| match decide(k, next, pod.uid(), next_pod.uid()) {
                        Some((Ordering::Less, rule)) => rule,
                        Some(_) => RankRule::Intransitive,
                        None => RankRule::TieBreak,
                    },
                );
            Some(RankedPod {
                index: i as usize,
                rule,
                facts: facts(k, pod, now, log),
            })
        })
        .collect()
}

/// Each pod with its digest, computed here.
fn digest_all(pods: &[&Pod]) -> Vec<PodDigest> {
    pods.iter().map(|p| PodDigest::of(p)).collect()
}

fn digested<'a>(pods: &[&'a Pod], digests: &'a [PodDigest]) -> Vec<Digested<'a>> {
    pods.iter()
        .zip(digests)
        .map(|(pod, digest)| Digested { pod, digest })
        .collect()
}

/// `f` over `candidates` and `related` digested here (the `&Pod` entry points).
fn with_digests<T>(
    candidates: &[&Pod],
    related: &[&Pod],
    f: impl FnOnce(&[Digested], &[Digested]) -> T,
) -> T {
    let (cd, rd) = (digest_all(candidates), digest_all(related));
    f(&digested(candidates, &cd), &digested(related, &rd))
}

/// The deletion order alone: indices into `candidates`, first to go first (R-70..R-74).
/// The same order as [`rank`], without the explanations.
pub fn deletion_order(
    candidates: &[&Pod],
    related: &[&Pod],
    now: Time,
    gates: &FeatureGates,
) -> Vec<usize> {
    with_digests(candidates, related, |c, r| {
        deletion_order_of(c, r, now, gates)
    })
}

/// [`deletion_order`] over pods whose digests were computed when they entered (a
/// [`crate::replicaset::digest::Pods`] list or the store): no pod field is parsed again.
pub fn deletion_order_of(
    candidates: &[Digested],
    related: &[Digested],
    now: Time,
    gates: &FeatureGates,
) -> Vec<usize> {
    let (_, order) = order(candidates, related, now, gates, usize::MAX);
    order.into_iter().map(|i| i as usize).collect()
}

/// Ranks `candidates` for deletion, first to go first (R-70..R-74). `related` are the
/// pods whose active members count toward co-location; `now` is the instant
/// of the logarithmic buckets.
pub fn rank(
    candidates: &[&Pod],
    related: &[&Pod],
    now: Time,
    gates: &FeatureGates,
) -> Vec<RankedPod> {
    pods_to_delete(candidates, related, candidates.len(), now, gates)
}

/// the `n` pods to delete, in deletion order, each with its explanation.
/// Replicore ranks even when `n` covers every candidate (upstream then returns them
/// unsorted): the set is the same and the order stays independent of input order.
pub fn pods_to_delete(
    candidates: &[&Pod],
    related: &[&Pod],
    n: usize,
    now: Time,
    gates: &FeatureGates,
) -> Vec<RankedPod> {
    with_digests(candidates, related, |c, r| {
        pods_to_delete_of(c, r, n, now, gates)
    })
}

/// [`pods_to_delete`] over digested pods.
pub fn pods_to_delete_of(
    candidates: &[Digested],
    related: &[Digested],
    n: usize,
    now: Time,
    gates: &FeatureGates,
) -> Vec<RankedPod> {
    let (keys, order) = order(candidates, related, now, gates, n);
    explain(
        &keys,
        &order,
        candidates,
        n,
        now,
        gates.logarithmic_scale_down,
    )
}

/// Upstream's `ActivePodsWithRanks.Less(a, b)` with the given co-location ranks: does
/// upstream place `a` before `b`? (For cross-checking; the engine never sorts with it.)
pub fn upstream_less(a: (&Pod, usize), b: (&Pod, usize), now: Time, gates: &FeatureGates) -> bool {
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let ka = Key::new(0, &PodDigest::of(a.0), clamp(a.1), now, gates);
    let kb = Key::new(1, &PodDigest::of(b.0), clamp(b.1), now, gates);
    matches!(
        decide(&ka, &kb, a.0.uid(), b.0.uid()),
        Some((Ordering::Less, _))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `n` ready pods with distinct UID ranks and few distinct ready times,
    /// later keys and creation times, so that ties (and intransitive groups) abound.
    fn block(seed: u64, n: u32) -> Vec<Member> {
        let mut x = seed | 1;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        (0..n)
            .map(|i| Member {
                index: i,
                uid: i,
                ready: next(4),
                later: u128::from(next(3)),
                created: next(3),
                w: 0,
            })
            .collect()
    }

    fn scores(mut members: Vec<Member>) -> Vec<(u32, i64)> {
        members.sort_by_key(|m| m.index);
        members.iter().map(|m| (m.index, m.w)).collect()
    }

    #[test]
    fn radix_sort_sorts() {
        for (n, bits) in [(0usize, 1u32), (100, 20), (5000, 43), (20_000, 64)] {
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x & mask
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            radix_sort(&mut v, bits);
            assert_eq!(v, expected, "{n} values of {bits} bits");
        }
    }

    /// The lean scoring of ready blocks gives every pod the same score as the general
    /// one, on 2,000 random blocks of 2 to 40 pods.
    #[test]
    fn ready_block_scores_equal_the_general_scores() {
        for seed in 1..=2000u64 {
            let n = 2 + (seed % 39) as u32;
            let members = block(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), n);
            let mut general = members.clone();
            score_block(&mut general, true, true);
            let mut lean = members;
            let mut by_time: Vec<(u64, u32)> = lean.iter().map(|m| m.ready).zip(0u32..).collect();
            by_time.sort_unstable();
            score_ready_block(&mut lean, &by_time, &mut ClassScratch::default());
            assert_eq!(scores(general), scores(lean), "seed {seed}, {n} pods");
        }
    }
}
