//! What a host shows about each pod of a snapshot, as the engine's rules read it: ready
//! active and terminating, the deletion cost, restarts
//! and the controlling owner (R-21: kind, name and UID). Hosts (the playground's
//! import tab) call this instead of reading pods themselves, so a pod looks the same in
//! every view as in the engine's decisions.

use serde::Serialize;

use crate::config::OwnerKind;
use crate::error::Result;
use crate::model::Pod;
use crate::pods;
use crate::replicaset::rank::RankRule;
use crate::time::Time;

/// One pod's facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PodFacts {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// `spec.nodeName`; `None` when not scheduled.
    pub node: Option<String>,
    /// `status.phase`.
    pub phase: String,
    ///
    pub ready: bool,
    /// when it became ready (`None` when not ready or zero).
    pub ready_since: Option<Time>,
    /// the highest restart count over regular containers, then over sidecars.
    pub restarts: i32,
    /// the highest restart count over sidecars.
    pub sidecar_restarts: i32,
    /// the pod-deletion-cost annotation as upstream parses it (invalid ⇒ 0).
    pub deletion_cost: i32,
    ///
    pub active: bool,
    /// It has a deletion timestamp.
    pub terminating: bool,
    /// The controller reference as `Kind/name`; `None` for an orphan.
    pub controller: Option<String>,
    /// the key (`namespace/name`) of the snapshot's owner that controls it (kind,
    /// name and UID match); `None` when no owner in the snapshot does.
    pub owner: Option<String>,
}

/// Facts of every pod of a snapshot (the input forms of [`crate::explain::explain_json`]),
/// in input order. `owner_kind` names the owners' kind (`ReplicaSet` by default).
pub fn pod_facts_json(bytes: &[u8], owner_kind: &OwnerKind) -> Result<Vec<PodFacts>> {
    let (owners, all) = crate::explain::snapshot_json(bytes, &owner_kind.kind)?;
    Ok(all
        .iter()
        .map(|pod| {
            let owner = owners.iter().find(|rs| {
                crate::replicaset::owner::pods_of_owner(rs, owner_kind, std::iter::once(pod))
                    .first()
                    .is_some_and(|_| pod.metadata.controller_ref().is_some())
            });
            facts(pod, owner.map(|rs| rs.metadata.key()))
        })
        .collect())
}

fn facts(pod: &Pod, owner: Option<String>) -> PodFacts {
    let node = pod.spec.node_name.clone().filter(|n| !n.is_empty());
    PodFacts {
        namespace: pod.namespace().to_owned(),
        name: pod.name().to_owned(),
        node,
        phase: pod.phase().to_owned(),
        ready: pods::is_ready(pod),
        ready_since: pods::ready_time(pod),
        restarts: pods::max_container_restarts(pod),
        sidecar_restarts: pods::max_sidecar_restarts(pod),
        deletion_cost: pods::deletion_cost(pod),
        active: pods::is_active(pod),
        terminating: pods::is_terminating(pod),
        controller: pod
            .metadata
            .controller_ref()
            .map(|r| format!("{}/{}", r.kind, r.name)),
        owner,
    }
}

/// Every rank rule with its text ([`RankRule::describe`]), in the comparator's order.
pub fn rank_rule_texts() -> Vec<(RankRule, &'static str)> {
    RankRule::ALL.iter().map(|r| (*r, r.describe())).collect()
}
