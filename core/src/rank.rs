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
//! name, so the same pods in any input order give the same order. Sort keys are computed
//! once per pod: O(n log n) with integer comparisons.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::config::FeatureGates;
use crate::fxhash::FxHashMap;
use crate::model::Pod;
use crate::pods;
use crate::time::{log2_bucket, Time};

/// The rule that placed a pod before the next one in the deletion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    pub ready_bucket: Option<i32>,
    pub restarts: i32,
    pub sidecar_restarts: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_bucket: Option<i32>,
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

/// A pod's sort key, computed once (R-71..R-74).
#[derive(Clone, Copy, Debug)]
struct Key {
    index: u32,
    unassigned: bool,
    phase: u8,
    ready: bool,
    cost: i32,
    colocated: u32,
    /// Rule 6's order among ready pods: (non-zero, bucket or −time); (false, 0) if not ready.
    ready_slot: (bool, i64),
    /// The exact ready time of a ready pod (`None`: not ready, or zero).
    ready_time: Option<i64>,
    restarts: i32,
    sidecar: i32,
    /// Rule 8's order: (non-zero, bucket or −time).
    created_slot: (bool, i64),
    created: Option<i64>,
    /// Dense rank of the UID (byte-wise order; equal UIDs share a rank).
    uid: u32,
    /// Packed sort keys, computed once: see [`Key::block`], [`Key::later`].
    block: (u128, u128),
    later: u128,
    ready_bits: u128,
    created_bits: u128,
}

fn slot(t: Option<Time>, now: Time, log: bool) -> (bool, i64) {
    match t {
        None => (false, 0),
        Some(t) if log => (true, i64::from(log2_bucket(now, t))),
        Some(t) => (true, t.unix_nanos().saturating_neg()),
    }
}

/// An ordered `(bool, i64)` as one integer.
fn slot_bits((nonzero, v): (bool, i64)) -> u128 {
    (u128::from(nonzero) << 64) | u128::from((v as u64) ^ (1 << 63))
}

/// An ordered `Option<i64>` as one integer.
fn time_bits(t: Option<i64>) -> u128 {
    match t {
        None => 0,
        Some(v) => (1 << 64) | u128::from((v as u64) ^ (1 << 63)),
    }
}

impl Key {
    fn new(index: u32, pod: &Pod, colocated: u32, now: Time, gates: &FeatureGates) -> Key {
        let log = gates.logarithmic_scale_down;
        let (ready, ready_time) = match pods::ready_state(pod) {
            Some(t) => (true, t),
            None => (false, None),
        };
        let created = pod.metadata.creation_timestamp;
        let mut key = Key {
            index,
            unassigned: pod.node_name().is_empty(),
            phase: pods::phase_ordinal(pod),
            ready,
            cost: if gates.pod_deletion_cost {
                pods::deletion_cost(pod)
            } else {
                0
            },
            colocated,
            ready_slot: if ready {
                slot(ready_time, now, log)
            } else {
                (false, 0)
            },
            ready_time: ready_time.map(Time::unix_nanos),
            restarts: pods::max_container_restarts(pod),
            sidecar: pods::max_sidecar_restarts(pod),
            created_slot: slot(created, now, log),
            created: created.map(Time::unix_nanos),
            uid: 0,
            block: (0, 0),
            later: 0,
            ready_bits: 0,
            created_bits: 0,
        };
        key.block = key.block_key();
        key.later = key.later_key();
        key.ready_bits = time_bits(key.ready_time);
        key.created_bits = time_bits(key.created);
        key
    }

    /// Rules 1–5 and rule 6's slot, packed, smaller first: a strict weak order whose ties
    /// are the blocks.
    fn block_key(&self) -> (u128, u128) {
        let rules = (u128::from(!self.unassigned) << 67)
            | (u128::from(self.phase & 3) << 65)
            | (u128::from(self.ready) << 64)
            | (u128::from((self.cost as u32) ^ (1 << 31)) << 32)
            | u128::from(u32::MAX - self.colocated);
        (rules, slot_bits(self.ready_slot))
    }

    /// Rule 7 and rule 8's slot, packed, smaller first.
    fn later_key(&self) -> u128 {
        let desc = |n: i32| u128::from(i32::MAX.saturating_sub(n.max(0)) as u32);
        (desc(self.restarts) << 96) | (desc(self.sidecar) << 65) | slot_bits(self.created_slot)
    }
}

/// Upstream's `Less` on two keys: `Some((Less, rule))` when `a` goes before `b`,
/// `Some((Greater, rule))` when after, `None` when upstream sees them as equal.
fn decide(a: &Key, b: &Key) -> Option<(Ordering, RankRule)> {
    let by = |o: Ordering, rule| (o != Ordering::Equal).then_some((o, rule));
    by(b.unassigned.cmp(&a.unassigned), RankRule::Unassigned)
        .or_else(|| by(a.phase.cmp(&b.phase), RankRule::Phase))
        .or_else(|| by(a.ready.cmp(&b.ready), RankRule::Readiness))
        .or_else(|| by(a.cost.cmp(&b.cost), RankRule::DeletionCost))
        .or_else(|| by(b.colocated.cmp(&a.colocated), RankRule::CoLocation))
        .or_else(|| {
            if !(a.ready && b.ready) || a.ready_time == b.ready_time {
                return None;
            }
            by(a.ready_slot.cmp(&b.ready_slot), RankRule::ReadyTime)
                // Same non-zero bucket, different times: UID decides, whatever follows.
                .or(Some((a.uid.cmp(&b.uid), RankRule::ReadyTimeUid)))
        })
        .or_else(|| by(b.restarts.cmp(&a.restarts), RankRule::Restarts))
        .or_else(|| by(b.sidecar.cmp(&a.sidecar), RankRule::SidecarRestarts))
        .or_else(|| {
            if a.created == b.created {
                return None;
            }
            by(a.created_slot.cmp(&b.created_slot), RankRule::CreationTime)
                // Same non-zero bucket, different times: UID decides.
                .or(Some((a.uid.cmp(&b.uid), RankRule::CreationTimeUid)))
        })
        .filter(|(o, _)| *o != Ordering::Equal)
}

/// Reusable buffers for scoring blocks.
#[derive(Default)]
struct Scratch {
    pairs: Vec<(u128, u32)>,
}

impl Scratch {
    /// For each pod of `set`: `sign ×` (how many pods of `set` have a greater key − how
    /// many a smaller one), added to `w`. One sort and one pass.
    fn score(&mut self, set: &[u32], key: impl Fn(u32) -> u128, sign: i64, w: &mut [i64]) {
        if set.len() < 2 {
            return;
        }
        self.pairs.clear();
        self.pairs.extend(set.iter().map(|&i| (key(i), i)));
        self.pairs.sort_unstable_by_key(|p| p.0);
        let n = self.pairs.len();
        let mut start = 0;
        while start < n {
            let k = self.pairs.get(start).map_or(0, |p| p.0);
            let mut end = start + 1;
            while self.pairs.get(end).is_some_and(|p| p.0 == k) {
                end += 1;
            }
            let score = sign * ((n - end) as i64 - start as i64);
            for p in self.pairs.get(start..end).unwrap_or(&[]) {
                if let Some(x) = w.get_mut(p.1 as usize) {
                    *x += score;
                }
            }
            start = end;
        }
    }
}

/// Runs of equal `class` in `set` (already sorted by it).
fn for_runs(set: &[u32], class: impl Fn(u32) -> u128, mut f: impl FnMut(&[u32])) {
    let mut start = 0;
    while start < set.len() {
        let c = set.get(start).map(|&i| class(i));
        let mut end = start + 1;
        while end < set.len() && set.get(end).map(|&i| class(i)) == c {
            end += 1;
        }
        if let Some(run) = set.get(start..end) {
            f(run);
        }
        start = end;
    }
}

/// Orders one block (pods that rules 1–5 and the ready slot cannot separate) as a linear
/// extension of upstream's rank groups: by wins minus losses within the block. Blocks
/// whose relation is a plain total order on one key take a shortcut to the same result.
fn order_block(
    keys: &mut [Key],
    pods: &[&Pod],
    block: &mut [u32],
    w: &mut [i64],
    scratch: &mut Scratch,
    log: bool,
) {
    if block.len() < 2 {
        return;
    }
    assign_uid_ranks(keys, pods, block);
    let keys: &[Key] = keys;
    let key = |i: u32| keys.get(i as usize);
    let uid = |i: u32| key(i).map_or(0, |k| u128::from(k.uid));
    let ready_class = |i: u32| key(i).map_or(0, |k| k.ready_bits);
    let later = |i: u32| key(i).map_or(0, |k| k.later);
    let created = |i: u32| key(i).map_or(0, |k| k.created_bits);
    let ready = key(block.first().copied().unwrap_or(0)).is_some_and(|k| k.ready);
    let distinct = |block: &mut [u32], f: &dyn Fn(u32) -> u128| {
        block.sort_unstable_by_key(|&i| f(i));
        block.windows(2).all(|p| match p {
            [a, b] => f(*a) != f(*b),
            _ => true,
        })
    };

    // Rule 6 inside a bucket: different exact ready times are ordered by UID.
    let by_ready_time = ready && log;
    if by_ready_time {
        if distinct(block, &ready_class) {
            // Every pair differs in ready time: UID alone decides (ties: equal UIDs).
            block
                .sort_unstable_by(|&a, &b| uid(a).cmp(&uid(b)).then_with(|| tie_break(pods, a, b)));
            return;
        }
        scratch.score(block, uid, 1, w);
    } else if distinct(block, &later) {
        // One ready class and every pair differs in restarts or creation slot.
        return;
    }
    let mut classes: Vec<(usize, usize)> = Vec::new();
    if by_ready_time {
        let mut at = 0;
        for_runs(block, ready_class, |run| {
            classes.push((at, at + run.len()));
            at += run.len();
        });
    } else {
        classes.push((0, block.len()));
    }
    for (s, e) in classes {
        let Some(class) = block.get_mut(s..e) else {
            continue;
        };
        if by_ready_time {
            scratch.score(class, uid, -1, w);
        }
        // Same exact ready time: rules 7 and 8.
        scratch.score(class, later, 1, w);
        if log {
            class.sort_unstable_by_key(|&i| (later(i), created(i)));
            for_runs(class, later, |group| {
                // Same creation bucket: different exact creation times are ordered by UID.
                scratch.score(group, uid, 1, w);
                for_runs(group, created, |cclass| scratch.score(cclass, uid, -1, w));
            });
        }
    }
    let weight = |i: u32| w.get(i as usize).copied().unwrap_or(0);
    block.sort_unstable_by(|&a, &b| {
        weight(b)
            .cmp(&weight(a))
            .then_with(|| uid(a).cmp(&uid(b)))
            .then_with(|| tie_break(pods, a, b))
    });
}

/// The last tie-break: namespace, name, then input position.
fn tie_break(pods: &[&Pod], a: u32, b: u32) -> Ordering {
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

/// Dense UID ranks within a block, in byte-wise order (R-72.6/8 compare UIDs as Go
/// strings): sorted by a 16-byte prefix, full strings compared only where prefixes tie.
fn assign_uid_ranks(keys: &mut [Key], pods: &[&Pod], block: &mut [u32]) {
    let uid_of = |i: u32| pods.get(i as usize).map_or("", |p| p.uid());
    let prefix = |i: u32| {
        let mut b = [0u8; 16];
        for (d, s) in b.iter_mut().zip(uid_of(i).as_bytes()) {
            *d = *s;
        }
        u128::from_be_bytes(b)
    };
    let mut by_uid: Vec<(u128, u32)> = block.iter().map(|&i| (prefix(i), i)).collect();
    by_uid.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| uid_of(a.1).cmp(uid_of(b.1))));
    let mut rank = 0u32;
    let mut prev: Option<(u128, u32)> = None;
    for &(p, i) in &by_uid {
        if let Some((pp, pi)) = prev {
            if pp != p || uid_of(pi) != uid_of(i) {
                rank += 1;
            }
        }
        prev = Some((p, i));
        if let Some(k) = keys.get_mut(i as usize) {
            k.uid = rank;
        }
    }
}

/// The deletion order: indices into `candidates`, first to go first, with the keys.
fn order(
    candidates: &[&Pod],
    related: &[&Pod],
    now: Time,
    gates: &FeatureGates,
) -> (Vec<Key>, Vec<u32>) {
    let counts = node_counts(related.iter().copied());
    let mut keys: Vec<Key> = candidates
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let colocated = counts.get(p.node_name()).copied().unwrap_or(0);
            Key::new(i as u32, p, colocated, now, gates)
        })
        .collect();
    let mut sorted: Vec<((u128, u128), u32)> = keys.iter().map(|k| (k.block, k.index)).collect();
    sorted.sort_unstable_by_key(|e| e.0);
    let mut order: Vec<u32> = sorted.iter().map(|e| e.1).collect();
    let mut w = vec![0i64; keys.len()];
    let mut scratch = Scratch::default();
    let mut start = 0;
    while start < sorted.len() {
        let block_key = sorted.get(start).map(|e| e.0);
        let mut end = start + 1;
        while sorted.get(end).map(|e| e.0) == block_key {
            end += 1;
        }
        if end - start > 1 {
            if let Some(block) = order.get_mut(start..end) {
                order_block(
                    &mut keys,
                    candidates,
                    block,
                    &mut w,
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
        ready: k.ready,
        deletion_cost: k.cost,
        colocated: k.colocated as usize,
        ready_bucket: bucket(k.ready_time),
        restarts: k.restarts,
        sidecar_restarts: k.sidecar,
        creation_bucket: bucket(k.created),
    }
}

/// The first `n` of the order, explained: each pod with the rule that placed it before
/// the next pod of the whole order.
fn explain(
    keys: &[Key],
    order: &[u32],
    candidates: &[&Pod],
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
                .and_then(|&j| key(j))
                .map(|next| match decide(k, next) {
                    Some((Ordering::Less, rule)) => rule,
                    Some(_) => RankRule::Intransitive,
                    None => RankRule::TieBreak,
                });
            Some(RankedPod {
                index: i as usize,
                rule,
                facts: facts(k, pod, now, log),
            })
        })
        .collect()
}

/// The deletion order alone: indices into `candidates`, first to go first (R-70..R-74).
/// The same order as [`rank`], without the explanations.
pub fn deletion_order(
    candidates: &[&Pod],
    related: &[&Pod],
    now: Time,
    gates: &FeatureGates,
) -> Vec<usize> {
    let (_, order) = order(candidates, related, now, gates);
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
    let (keys, order) = order(candidates, related, now, gates);
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
    let mut ka = Key::new(0, a.0, clamp(a.1), now, gates);
    let mut kb = Key::new(1, b.0, clamp(b.1), now, gates);
    let (ua, ub) = (a.0.uid(), b.0.uid());
    ka.uid = u32::from(ua > ub);
    kb.uid = u32::from(ub > ua);
    matches!(decide(&ka, &kb), Some((Ordering::Less, _)))
}
