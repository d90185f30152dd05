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
#[derive(Clone, Debug)]
struct Key<'a> {
    index: usize,
    pod: &'a Pod,
    assigned: bool,
    phase: u8,
    ready: bool,
    cost: i32,
    colocated: usize,
    ready_time: Option<Time>,
    /// (non-zero?, bucket or −time): rule 6's order among ready pods.
    ready_slot: (bool, i64),
    restarts: i32,
    sidecar: i32,
    created: Option<Time>,
    created_slot: (bool, i64),
    uid_rank: u32,
}

/// Counts active related pods per node name (R-71; unassigned pods share "").
pub fn colocation_counts<'a>(
    related: impl IntoIterator<Item = &'a Pod>,
) -> HashMap<&'a str, usize> {
    let mut on_node: HashMap<&str, usize> = HashMap::new();
    for p in related {
        if pods::is_active(p) {
            *on_node.entry(p.node_name()).or_default() += 1;
        }
    }
    on_node
}

fn slot(t: Option<Time>, now: Time, log: bool) -> (bool, i64) {
    match t {
        None => (false, 0),
        Some(t) if log => (true, i64::from(log2_bucket(now, t))),
        Some(t) => (true, t.unix_nanos().saturating_neg()),
    }
}

fn make_key<'a>(
    index: usize,
    pod: &'a Pod,
    counts: &HashMap<&str, usize>,
    now: Time,
    gates: &FeatureGates,
) -> Key<'a> {
    let log = gates.logarithmic_scale_down;
    let ready = pods::is_ready(pod);
    let ready_time = if ready { pods::ready_time(pod) } else { None };
    Key {
        index,
        pod,
        assigned: !pod.node_name().is_empty(),
        phase: pods::phase_ordinal(pod),
        ready,
        cost: if gates.pod_deletion_cost {
            pods::deletion_cost(pod)
        } else {
            0
        },
        colocated: counts.get(pod.node_name()).copied().unwrap_or(0),
        ready_time,
        ready_slot: if ready {
            slot(ready_time, now, log)
        } else {
            (false, 0)
        },
        restarts: pods::max_container_restarts(pod),
        sidecar: pods::max_sidecar_restarts(pod),
        created: pod.metadata.creation_timestamp,
        created_slot: slot(pod.metadata.creation_timestamp, now, log),
        uid_rank: 0,
    }
}

/// Rules 1–5 and the ready-time slot: a strict weak order whose ties are the blocks.
fn block_order(a: &Key, b: &Key) -> Ordering {
    a.assigned
        .cmp(&b.assigned)
        .then(a.phase.cmp(&b.phase))
        .then(a.ready.cmp(&b.ready))
        .then(a.cost.cmp(&b.cost))
        .then(b.colocated.cmp(&a.colocated))
        .then(a.ready_slot.cmp(&b.ready_slot))
}

/// Upstream's `Less` on two keys: `Some((Less, rule))` when `a` goes before `b`,
/// `Some((Greater, rule))` when after, `None` when upstream sees them as equal.
fn decide(a: &Key, b: &Key) -> Option<(Ordering, RankRule)> {
    let by = |o: Ordering, rule| (o != Ordering::Equal).then_some((o, rule));
    by(a.assigned.cmp(&b.assigned), RankRule::Unassigned)
        .or_else(|| by(a.phase.cmp(&b.phase), RankRule::Phase))
        .or_else(|| by(a.ready.cmp(&b.ready), RankRule::Readiness))
        .or_else(|| by(a.cost.cmp(&b.cost), RankRule::DeletionCost))
        .or_else(|| by(b.colocated.cmp(&a.colocated), RankRule::CoLocation))
        .or_else(|| {
            if !(a.ready && b.ready) || a.ready_time == b.ready_time {
                return None;
            }
            by(a.ready_slot.cmp(&b.ready_slot), RankRule::ReadyTime).or_else(|| {
                // Same non-zero bucket, different times: UID decides, whatever follows.
                Some((a.pod.uid().cmp(b.pod.uid()), RankRule::ReadyTimeUid))
            })
        })
        .or_else(|| by(b.restarts.cmp(&a.restarts), RankRule::Restarts))
        .or_else(|| by(b.sidecar.cmp(&a.sidecar), RankRule::SidecarRestarts))
        .or_else(|| {
            if a.created == b.created {
                return None;
            }
            by(a.created_slot.cmp(&b.created_slot), RankRule::CreationTime).or_else(|| {
                // Same non-zero bucket, different times: UID decides.
                Some((a.pod.uid().cmp(b.pod.uid()), RankRule::CreationTimeUid))
            })
        })
        .filter(|(o, _)| *o != Ordering::Equal)
}

/// For each item: how many items of `set` have a greater key minus how many a smaller one.
fn add_scores<K: Ord + Copy>(set: &[usize], key: impl Fn(usize) -> K, sign: i64, w: &mut [i64]) {
    if set.len() < 2 {
        return;
    }
    let mut keys: Vec<K> = set.iter().map(|&i| key(i)).collect();
    keys.sort_unstable();
    let n = keys.len();
    for &i in set {
        let k = key(i);
        let less = keys.partition_point(|x| *x < k);
        let not_greater = keys.partition_point(|x| *x <= k);
        let score = (n - not_greater) as i64 - less as i64;
        if let Some(slot) = w.get_mut(i) {
            *slot += sign * score;
        }
    }
}

/// Splits `set` (sorted by `class`) into runs of equal class.
fn runs<K: PartialEq>(set: &[usize], class: impl Fn(usize) -> K) -> Vec<&[usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=set.len() {
        let boundary = match (set.get(i), set.get(start)) {
            (Some(&x), Some(&s)) => class(x) != class(s),
            _ => true,
        };
        if boundary {
            if let Some(run) = set.get(start..i) {
                if !run.is_empty() {
                    out.push(run);
                }
            }
            start = i;
        }
    }
    out
}

/// Orders one block (pods rules 1–5 and the ready slot cannot separate) as a linear
/// extension of upstream's rank groups, by wins minus losses within the block.
fn order_block(keys: &[Key], block: &mut [usize], w: &mut [i64]) {
    if block.len() < 2 {
        return;
    }
    let k = |i: usize| keys.get(i);
    // Rule 6 within a bucket: different exact ready times are ordered by UID.
    add_scores(block, |i| k(i).map(|x| x.uid_rank), 1, w);
    block.sort_unstable_by_key(|&i| k(i).map(|x| x.ready_time));
    for class in runs(block, |i| k(i).map(|x| x.ready_time)) {
        add_scores(class, |i| k(i).map(|x| x.uid_rank), -1, w);
        // Same exact ready time: rules 7 and 8.
        let lkey =
            |i: usize| k(i).map(|x| (-(x.restarts as i64), -(x.sidecar as i64), x.created_slot));
        add_scores(class, lkey, 1, w);
        let mut class = class.to_vec();
        class.sort_unstable_by_key(|&i| (lkey(i), k(i).map(|x| x.created)));
        for group in runs(&class, lkey) {
            // Same creation bucket: different exact creation times are ordered by UID.
            add_scores(group, |i| k(i).map(|x| x.uid_rank), 1, w);
            for cclass in runs(group, |i| k(i).map(|x| x.created)) {
                add_scores(cclass, |i| k(i).map(|x| x.uid_rank), -1, w);
            }
        }
    }
    block.sort_unstable_by(|&a, &b| {
        let wa = w.get(a).copied().unwrap_or(0);
        let wb = w.get(b).copied().unwrap_or(0);
        wb.cmp(&wa).then_with(|| final_tie_break(k(a), k(b)))
    });
}

fn final_tie_break(a: Option<&Key>, b: Option<&Key>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a
            .uid_rank
            .cmp(&b.uid_rank)
            .then_with(|| a.pod.namespace().cmp(b.pod.namespace()))
            .then_with(|| a.pod.name().cmp(b.pod.name()))
            .then(a.index.cmp(&b.index)),
        _ => Ordering::Equal,
    }
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
    let counts = colocation_counts(related.iter().copied());
    let mut keys: Vec<Key> = candidates
        .iter()
        .enumerate()
        .map(|(i, p)| make_key(i, p, &counts, now, gates))
        .collect();
    assign_uid_ranks(&mut keys);

    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_unstable_by(|&a, &b| match (keys.get(a), keys.get(b)) {
        (Some(x), Some(y)) => block_order(x, y),
        _ => Ordering::Equal,
    });
    let mut w = vec![0i64; keys.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() {
            let same = match (order.get(start), order.get(end)) {
                (Some(&a), Some(&b)) => match (keys.get(a), keys.get(b)) {
                    (Some(x), Some(y)) => block_order(x, y) == Ordering::Equal,
                    _ => false,
                },
                _ => false,
            };
            if !same {
                break;
            }
            end += 1;
        }
        if let Some(block) = order.get_mut(start..end) {
            order_block(&keys, block, &mut w);
        }
        start = end;
    }

    let log = gates.logarithmic_scale_down;
    let mut out = Vec::with_capacity(order.len());
    for (pos, &i) in order.iter().enumerate() {
        let Some(key) = keys.get(i) else { continue };
        let rule =
            order
                .get(pos + 1)
                .and_then(|&j| keys.get(j))
                .map(|next| match decide(key, next) {
                    Some((Ordering::Less, rule)) => rule,
                    Some(_) => RankRule::Intransitive,
                    None => RankRule::TieBreak,
                });
        out.push(RankedPod {
            index: key.index,
            rule,
            facts: facts(key, now, log),
        });
    }
    out
}

fn facts(k: &Key, now: Time, log: bool) -> RankFacts {
    let bucket = |t: Option<Time>| t.filter(|_| log).map(|t| log2_bucket(now, t));
    RankFacts {
        node: k.pod.node_name().to_owned(),
        phase: k.pod.phase().to_owned(),
        ready: k.ready,
        deletion_cost: k.cost,
        colocated: k.colocated,
        ready_bucket: bucket(k.ready_time),
        restarts: k.restarts,
        sidecar_restarts: k.sidecar,
        creation_bucket: bucket(k.created),
    }
}

fn assign_uid_ranks(keys: &mut [Key]) {
    let mut by_uid: Vec<usize> = (0..keys.len()).collect();
    by_uid.sort_unstable_by(|&a, &b| match (keys.get(a), keys.get(b)) {
        (Some(x), Some(y)) => x.pod.uid().cmp(y.pod.uid()),
        _ => Ordering::Equal,
    });
    let mut rank = 0u32;
    let mut prev: Option<&str> = None;
    let mut ranks = vec![0u32; keys.len()];
    for &i in &by_uid {
        let Some(k) = keys.get(i) else { continue };
        if prev.is_some_and(|p| p != k.pod.uid()) {
            rank += 1;
        }
        prev = Some(k.pod.uid());
        if let Some(r) = ranks.get_mut(i) {
            *r = rank;
        }
    }
    for (k, r) in keys.iter_mut().zip(ranks) {
        k.uid_rank = r;
    }
}

/// Upstream's `ActivePodsWithRanks.Less(a, b)` with the given co-location ranks: does
/// upstream place `a` before `b`? (For cross-checking; the engine never sorts with it.)
pub fn upstream_less(a: (&Pod, usize), b: (&Pod, usize), now: Time, gates: &FeatureGates) -> bool {
    let mut counts = HashMap::new();
    let ka = {
        counts.insert(a.0.node_name(), a.1);
        make_key(0, a.0, &counts, now, gates)
    };
    counts.clear();
    counts.insert(b.0.node_name(), b.1);
    let kb = make_key(1, b.0, &counts, now, gates);
    matches!(decide(&ka, &kb), Some((Ordering::Less, _)))
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
    let mut ranked = rank(candidates, related, now, gates);
    ranked.truncate(n);
    ranked
}
