//! The trace: every decision of the simulation with its inputs, in order. Serialised as
//! `TraceEntry` in node/src/sim-types.ts.

use std::collections::VecDeque;

use serde::Serialize;

use replicore::deployment::handlers::QueueAction;
use replicore::deployment::limiting::{StepBounds, StepCalls, StepCounts};
use replicore::deployment::{DeploymentEvent, ProgressRequeue, SyncError};
use replicore::expectations::{ExpectationsChange, ExpectationsRecord};
use replicore::input::SyncInput;
use replicore::model::ReplicaSetStatus;
use replicore::replicaset::handlers::EventDecision;
use replicore::replicaset::rank::{RankFacts, RankRule};
use replicore::time::Time;
use replicore::{Event, Requeue};

use super::clock::Ms;
use super::scenario::Edit;

/// At most this many entries are kept (the oldest go first; `seq` keeps counting).
pub const TRACE_CAPACITY: usize = 50_000;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TraceEntry {
    pub seq: u64,
    pub t: Ms,
    pub at: Time,
    #[serde(flatten)]
    pub what: What,
}

/// Which object a watch event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ObjectKind {
    Pod,
    Owner,
    Deployment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum WatchEventKind {
    Added,
    Updated,
    Deleted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum QueueOp {
    Add,
    AddAfter,
    AddRateLimited,
    Forget,
    /// D-115: a key that kept failing is dropped.
    Drop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum KubeletChange {
    Scheduled,
    Running,
    Ready,
    NotReady,
    Restarted,
    Gone,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum What {
    Sync {
        sync: Box<SyncTrace>,
    },
    Watch {
        object: ObjectKind,
        event: WatchEventKind,
        name: String,
        decision: EventDecision,
    },
    WatchDropped {
        object: ObjectKind,
        event: WatchEventKind,
        name: String,
    },
    Relist {
        changes: usize,
    },
    Queue {
        op: QueueOp,
        key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        delay_ms: Option<Ms>,
    },
    Kubelet {
        pod: String,
        change: KubeletChange,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        node: Option<String>,
    },
    Edit {
        edit: Edit,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        error: Option<String>,
    },
    /// The Deployment controller's work queue (the ReplicaSet controller's is `queue`).
    DeploymentQueue {
        op: QueueOp,
        key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        delay_ms: Option<Ms>,
    },
    /// One Deployment sync.
    DeploymentSync {
        sync: Box<DeploymentSyncTrace>,
    },
    /// One HPA sync.
    HpaSync {
        sync: Box<super::hpa::HpaSyncTrace>,
    },
    /// The engine refused the HPA sync's input (no sync ran).
    HpaInvalid {
        key: String,
        error: String,
    },
}

/// One API call of a Deployment sync.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentCallTrace {
    /// `get`, `patch`, `create`, `update`, `delete`.
    pub verb: &'static str,
    /// `deployments` or `replicasets`.
    pub resource: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    pub subresource: &'static str,
    pub name: String,
    /// `spec.replicas` sent (ReplicaSet creates and updates).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub replicas: Option<i32>,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// What one Deployment sync saw, did, and which rule decided or limited the step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSyncTrace {
    pub key: String,
    pub calls: Vec<DeploymentCallTrace>,
    pub events: Vec<DeploymentEvent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<SyncError>,
    /// The engine refused the input (no sync ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub invalid: Option<String>,
    /// The progress check's requeue (D-78).
    pub progress: ProgressRequeue,
    /// What the work queue did with the key (D-115).
    pub queue: QueueAction,
    /// What the calls did to the ReplicaSets.
    pub step: StepCalls,
    /// The ReplicaSets after the sync (the store's).
    pub counts: StepCounts,
    /// The D-08 bounds in force after the sync.
    pub bounds: StepBounds,
    /// The rule that decided or limited the step (`D-51`, `D-54`, …).
    pub rule: String,
    pub why: String,
}

/// The inputs a sync saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncInputSummary {
    pub desired: i32,
    pub cached_pods: usize,
    pub active: usize,
    pub expectations: Option<ExpectationsRecord>,
    pub cache_is_fresh: bool,
}

/// One slow-start batch as issued.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    pub size: usize,
    pub ok: usize,
    pub failed: usize,
    pub errors: Vec<String>,
    pub created: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Planned {
    pub count: usize,
    pub batches: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct VictimTrace {
    pub name: String,
    pub rule: Option<RankRule>,
    pub facts: RankFacts,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClaimTrace {
    pub kind: &'static str,
    pub name: String,
    pub ok: bool,
}

/// What one sync saw and decided.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncTrace {
    pub key: String,
    pub input: SyncInputSummary,
    /// The whole input the engine was given, when [`super::Simulator::keep_sync_inputs`]
    /// is on (Rust only: kept out of the JSON trace).
    #[serde(skip)]
    pub full_input: Option<Box<SyncInput>>,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub planned: Option<Planned>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub batches: Option<Vec<Batch>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub victims: Option<Vec<VictimTrace>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ClaimTrace>>", optional))]
    pub claims: Vec<ClaimTrace>,
    pub expectations_recorded: Option<ExpectationsChange>,
    pub expectations_corrections: Vec<ExpectationsChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub status: Option<ReplicaSetStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
    pub requeue: Requeue,
    pub events: Vec<Event>,
}

impl SyncTrace {
    /// Create calls issued.
    pub fn create_calls(&self) -> usize {
        self.batches.iter().flatten().map(|b| b.size).sum()
    }

    /// Names of the pods created.
    pub fn created(&self) -> impl Iterator<Item = &str> {
        self.batches
            .iter()
            .flatten()
            .flat_map(|b| b.created.iter().map(String::as_str))
    }

    /// Names of the pods whose deletion succeeded.
    pub fn deleted(&self) -> impl Iterator<Item = &str> {
        self.victims
            .iter()
            .flatten()
            .filter(|v| v.ok)
            .map(|v| v.name.as_str())
    }
}

/// The trace ring.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    entries: VecDeque<TraceEntry>,
    next_seq: u64,
}

impl Trace {
    pub fn push(&mut self, t: Ms, at: Time, what: What) {
        if self.entries.len() >= TRACE_CAPACITY {
            self.entries.pop_front();
        }
        self.entries.push_back(TraceEntry {
            seq: self.next_seq,
            t,
            at,
            what,
        });
        self.next_seq += 1;
    }

    /// Entries with `seq >= since`.
    pub fn since(&self, since: u64) -> impl Iterator<Item = &TraceEntry> {
        let first = self.entries.front().map_or(0, |e| e.seq);
        let skip = usize::try_from(since.saturating_sub(first)).unwrap_or(usize::MAX);
        self.entries.iter().skip(skip)
    }

    /// How many entries were ever pushed (the next `seq`).
    pub fn len(&self) -> u64 {
        self.next_seq
    }

    pub fn is_empty(&self) -> bool {
        self.next_seq == 0
    }
}
