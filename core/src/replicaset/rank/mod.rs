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
//!
//! `rule.rs` holds the rule itself (each pod's key and upstream's `Less` on two keys, with
//! the co-location counts); `order.rs` the machinery that orders by it (blocks, scores,
//! radix sorts); this file the entry points and the explanations.

mod order;
mod rule;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::config::FeatureGates;
use crate::model::Pod;
use crate::replicaset::digest::{Digested, PodDigest};
use crate::time::{log2_bucket, Time};

use order::order;
pub use rule::colocation_counts;
pub use rule::RankRule;
use rule::{decide, Key};

/// What the ranking knew about a pod, for explanations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RankFacts {
    /// The node the pod is bound to (empty when unscheduled).
    pub node: String,
    /// `status.phase`.
    pub phase: String,
    /// Whether the pod is ready.
    pub ready: bool,
    /// the pod-deletion-cost the ranking compared (0 without the feature gate).
    pub deletion_cost: i32,
    /// active related pods on the same node.
    pub colocated: usize,
    /// R-73 bucket of the ready time (`None` when not ready or zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ready_bucket: Option<i32>,
    /// the container restarts the ranking compared.
    pub restarts: i32,
    /// the sidecar restarts the ranking compared.
    pub sidecar_restarts: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// R-73 bucket of the creation time (`None` when unset or when buckets are off).
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
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// Index into the pods ranked.
    pub index: usize,
    /// The rule that placed it before the next pod; `None` for the last pod.
    pub rule: Option<RankRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// The text of `rule` ([`RankRule::describe`]).
    pub rule_text: Option<&'static str>,
    /// What the ranking knew about the pod.
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
    /// Index into the candidates.
    pub index: usize,
    /// The rule that placed it before the next pod; `None` for the last pod.
    pub rule: Option<RankRule>,
    /// What the ranking knew about the pod.
    pub facts: RankFacts,
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
