//! What the simulation shows: the state snapshot, the timeline samples, the engine's
//! ranking of the primary owner's pods and a scale preview. Serialised as `SimState`,
//! `Sample`, `SimRanking` and `ScalePreview` in node/src/sim-types.ts.

use std::collections::BTreeMap;

use serde::Serialize;

use replicore::config::FeatureGates;
use replicore::expectations::ExpectationsRecord;
use replicore::model::{Pod, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus};
use replicore::pods::{self, PodCounts};
use replicore::replicaset::owner;
use replicore::replicaset::rank::{self, NamedRankedPod};
use replicore::time::Time;

use super::clock::Ms;
use super::queue::QueueState;
use super::scenario::{EffectiveDelays, Faults, GatesPatch};
use super::{SimEvent, Simulator, HISTORY_CAPACITY};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimNode {
    pub name: String,
    pub pods: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimPod {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub node: Option<String>,
    pub phase: String,
    pub ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ready_since: Option<Time>,
    pub available: bool,
    pub created: Option<Time>,
    pub age_ms: i64,
    pub restarts: i32,
    pub deletion_cost: i32,
    pub owner: Option<String>,
    pub terminating: bool,
    pub active: bool,
    pub crash_looping: bool,
    pub flapping: bool,
    /// A failing template's pod: running, never Ready.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub never_ready: bool,
    pub resource_version: String,
    pub in_cache: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimOwner {
    pub namespace: String,
    pub name: String,
    pub key: String,
    pub uid: String,
    pub desired: i32,
    pub min_ready_seconds: i32,
    pub status: ReplicaSetStatus,
    pub replica_failure: Option<ReplicaSetCondition>,
    pub expectations: Option<ExpectationsRecord>,
    pub expectations_satisfied: bool,
    pub counts: PodCounts,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EffectiveConfig {
    pub burst_replicas: usize,
    pub feature_gates: FeatureGates,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub emulation_version: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimState {
    pub t: Ms,
    pub now: Time,
    pub owner: SimOwner,
    pub owners: Vec<SimOwner>,
    pub pods: Vec<SimPod>,
    pub nodes: Vec<SimNode>,
    pub queue: QueueState,
    pub events: Vec<SimEvent>,
    pub quota: Option<u32>,
    pub config: EffectiveConfig,
    pub faults: Faults,
    pub delays: EffectiveDelays,
    pub next_event_t: Option<Ms>,
    pub trace_length: u64,
    /// The Deployment with its ReplicaSets as lanes (Deployment scenarios only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub deployment: Option<super::deployment::SimDeployment>,
    /// The HorizontalPodAutoscaler (scenarios with `hpa` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hpa: Option<super::hpa::SimHpa>,
}

/// One point of the timeline (store truth for the primary owner).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub t: Ms,
    pub desired: i32,
    pub current: usize,
    pub ready: usize,
    pub available: usize,
    pub terminating: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimRanking {
    /// In deletion order; each `index` is the pod's position in `state().pods`.
    pub pods: Vec<NamedRankedPod>,
    pub feature_gates: FeatureGates,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScalePreview {
    pub replicas: i32,
    pub active: usize,
    pub burst: usize,
    /// As [`SimRanking::pods`].
    pub victims: Vec<NamedRankedPod>,
    pub first_sync: usize,
}

fn controlled_by(pod: &Pod, rs: &ReplicaSet) -> bool {
    pod.metadata
        .controller_ref()
        .is_some_and(|r| r.uid == rs.metadata.uid)
}

impl Simulator {
    /// Store counts of an owner's pods.
    pub fn counts(&self, rs: &ReplicaSet) -> PodCounts {
        let now = self.clock.now_instant();
        let mut c = PodCounts::default();
        for p in self.api.pods.values().filter(|p| controlled_by(p, rs)) {
            if pods::is_terminating(p) {
                c.terminating += 1;
            }
            if !pods::is_active(p) {
                continue;
            }
            c.add_active(p, rs.spec.min_ready_seconds, now);
        }
        c
    }

    pub(super) fn sample(&mut self) {
        let Some(rs) = self.api.owners.get(self.primary_key()) else {
            return;
        };
        let c = self.counts(rs);
        let s = Sample {
            t: self.clock.now(),
            desired: rs.spec.desired(),
            current: c.active,
            ready: c.ready,
            available: c.available,
            terminating: c.terminating,
        };
        let same = self.history.back().is_some_and(|l| {
            (l.desired, l.current, l.ready, l.available, l.terminating)
                == (s.desired, s.current, s.ready, s.available, s.terminating)
        });
        if !same {
            if self.history.len() >= HISTORY_CAPACITY {
                self.history.pop_front();
            }
            self.history.push_back(s);
        }
    }

    fn sim_owner(&self, rs: &ReplicaSet) -> SimOwner {
        let key = rs.metadata.key();
        let now = self.clock.now_instant();
        let e = self.ctrl.expectations_of(&key);
        SimOwner {
            namespace: rs.metadata.namespace.clone(),
            name: rs.metadata.name.clone(),
            uid: rs.metadata.uid.clone(),
            desired: rs.spec.desired(),
            min_ready_seconds: rs.spec.min_ready_seconds,
            status: rs.status.clone(),
            replica_failure: rs
                .status
                .conditions
                .iter()
                .flatten()
                .find(|c| c.type_ == "ReplicaFailure")
                .cloned(),
            expectations: e.record().cloned(),
            expectations_satisfied: e.satisfied(now),
            counts: self.counts(rs),
            key,
        }
    }

    fn sim_pod(&self, p: &Pod) -> SimPod {
        let now = self.clock.now_instant();
        let owner_rs = p.metadata.controller_ref().and_then(|r| {
            self.api
                .owners
                .values()
                .find(|o| o.metadata.uid == r.uid && o.metadata.namespace == p.metadata.namespace)
        });
        let min_ready = owner_rs.map_or(0, |o| o.spec.min_ready_seconds);
        let life = self.lives.get(p.uid()).copied().unwrap_or_default();
        SimPod {
            namespace: p.metadata.namespace.clone(),
            name: p.metadata.name.clone(),
            uid: p.metadata.uid.clone(),
            node: p.spec.node_name.clone().filter(|n| !n.is_empty()),
            phase: p.phase().to_owned(),
            ready: pods::is_ready(p),
            ready_since: pods::ready_time(p).filter(|_| pods::is_ready(p)),
            available: pods::is_available(p, min_ready, now),
            created: p.metadata.creation_timestamp,
            age_ms: p
                .metadata
                .creation_timestamp
                .map_or(0, |c| now.since(c).as_nanos() / 1_000_000),
            restarts: p
                .status
                .container_statuses
                .iter()
                .map(|c| c.restart_count.max(0))
                .sum(),
            deletion_cost: pods::deletion_cost(p),
            owner: owner_rs.map(|o| o.metadata.name.clone()),
            terminating: p.metadata.deletion_timestamp.is_some(),
            active: pods::is_active(p),
            crash_looping: life.crash_loop,
            flapping: life.flapping,
            never_ready: life.never_ready,
            resource_version: p.metadata.resource_version.clone().unwrap_or_default(),
            in_cache: self
                .informer
                .pods
                .get(&p.key())
                .is_some_and(|c| c.metadata.resource_version == p.metadata.resource_version),
        }
    }

    /// Pods oldest first (then by name).
    fn ordered_pods(&self) -> Vec<&Pod> {
        let mut v: Vec<&Pod> = self.api.pods.values().collect();
        replicore::sort::sort_by(&mut v, |a, b| {
            (
                a.metadata.creation_timestamp,
                &a.metadata.namespace,
                &a.metadata.name,
            )
                .cmp(&(
                    b.metadata.creation_timestamp,
                    &b.metadata.namespace,
                    &b.metadata.name,
                ))
        });
        v
    }

    /// A snapshot of everything.
    pub fn state(&self) -> SimState {
        let owners: Vec<SimOwner> = self
            .owner_keys
            .iter()
            .filter_map(|k| self.api.owners.get(k))
            .map(|rs| self.sim_owner(rs))
            .collect();
        let pods = self.ordered_pods();
        let nodes = self
            .nodes
            .iter()
            .map(|n| SimNode {
                name: n.clone(),
                pods: pods
                    .iter()
                    .filter(|p| p.node_name() == n && !pods::is_terminal(p))
                    .map(|p| p.metadata.name.clone())
                    .collect(),
            })
            .collect();
        let c = &self.ctrl.config;
        SimState {
            t: self.clock.now(),
            now: self.clock.now_instant(),
            owner: owners.first().cloned().unwrap_or_else(|| SimOwner {
                namespace: String::new(),
                name: String::new(),
                key: String::new(),
                uid: String::new(),
                desired: 0,
                min_ready_seconds: 0,
                status: ReplicaSetStatus::default(),
                replica_failure: None,
                expectations: None,
                expectations_satisfied: true,
                counts: PodCounts::default(),
            }),
            owners,
            pods: pods.iter().map(|p| self.sim_pod(p)).collect(),
            nodes,
            queue: self.ctrl.queue.state(self.clock.now()),
            events: self.events.iter().cloned().collect(),
            quota: self.api.quota,
            config: EffectiveConfig {
                burst_replicas: c.burst_replicas,
                feature_gates: c.feature_gates,
                emulation_version: c.emulation_version.clone(),
            },
            faults: self.faults.clone(),
            delays: self.delays,
            next_event_t: self.next_event_time(),
            trace_length: self.trace.len(),
            deployment: self.sim_deployment(),
            hpa: self.sim_hpa(),
        }
    }

    /// The engine's scale-down order of the primary owner's active pods (in the store),
    /// under the current feature gates with `gates` laid over them.
    pub fn ranking(&self, gates: Option<&GatesPatch>) -> SimRanking {
        self.ranking_of(self.primary_key(), gates)
    }

    /// [`Simulator::ranking`] for the owner `owner` (`name` or `namespace/name`).
    pub fn ranking_for(
        &self,
        owner: &str,
        gates: Option<&GatesPatch>,
    ) -> replicore::Result<SimRanking> {
        let key = self.owner_key_at(Some(owner), "owner")?;
        Ok(self.ranking_of(&key, gates))
    }

    fn ranking_of(&self, key: &str, gates: Option<&GatesPatch>) -> SimRanking {
        let mut feature_gates = self.ctrl.config.feature_gates;
        if let Some(g) = gates {
            g.apply(&mut feature_gates);
        }
        let ordered = self.ordered_pods();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        index.extend(ordered.iter().enumerate().map(|(i, p)| (p.key(), i)));
        let Some(rs) = self.api.owners.get(key) else {
            return SimRanking {
                pods: Vec::new(),
                feature_gates,
            };
        };
        let candidates: Vec<&Pod> = ordered
            .iter()
            .copied()
            .filter(|p| controlled_by(p, rs) && pods::is_active(p))
            .collect();
        let others: Vec<ReplicaSet> = self
            .api
            .owners
            .values()
            .filter(|o| o.metadata.uid != rs.metadata.uid)
            .cloned()
            .collect();
        let all: Vec<Pod> = ordered.iter().map(|p| (*p).clone()).collect();
        let related = owner::related_pods(rs, &others, &all);
        let ranked = rank::rank(
            &candidates,
            &related,
            self.clock.now_instant(),
            &feature_gates,
        );
        let pods = ranked
            .into_iter()
            .filter_map(|r| {
                let p = candidates.get(r.index)?;
                let mut named = NamedRankedPod::new(p, r);
                named.index = index.get(&p.key()).copied().unwrap_or(0);
                Some(named)
            })
            .collect();
        SimRanking {
            pods,
            feature_gates,
        }
    }

    /// Which of the primary owner's pods a scale to `replicas` would delete now.
    pub fn preview(&self, replicas: i32, gates: Option<&GatesPatch>) -> ScalePreview {
        self.preview_of(self.ranking(gates), replicas)
    }

    /// [`Simulator::preview`] for the owner `owner` (`name` or `namespace/name`).
    pub fn preview_for(
        &self,
        owner: &str,
        replicas: i32,
        gates: Option<&GatesPatch>,
    ) -> replicore::Result<ScalePreview> {
        Ok(self.preview_of(self.ranking_for(owner, gates)?, replicas))
    }

    fn preview_of(&self, ranking: SimRanking, replicas: i32) -> ScalePreview {
        let active = ranking.pods.len();
        let n = active.saturating_sub(usize::try_from(replicas.max(0)).unwrap_or(0));
        let burst = self.ctrl.config.burst_replicas;
        ScalePreview {
            replicas,
            active,
            burst,
            victims: ranking.pods.into_iter().take(n).collect(),
            first_sync: n.min(burst),
        }
    }
}
