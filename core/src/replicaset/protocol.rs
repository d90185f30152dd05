//! The values of one ReplicaSet sync's sans-I/O protocol (S-1..S-15): what [`plan`]
//! returns ([`SyncPlan`], its [`Manage`] step and the [`PlanBasis`] the later steps
//! need), and what [`complete`] returns ([`Completion`]: the [`Event`]s, the
//! [`Requeue`]). Plain data that serializes, so a host may keep a plan anywhere between
//! the steps. No rule lives here.
//!
//! [`plan`]: super::plan()
//! [`complete`]: super::complete()

use serde::{Deserialize, Serialize};

use super::digest::Pods;
use super::rank::{RankFacts, RankRule};
use crate::claim::ClaimAction;
use crate::config::Config;
use crate::expectations::ExpectationsChange;
use crate::model::{ReplicaSet, ReplicaSetStatus};
use crate::time::{Duration, Time};

/// Why a sync does nothing at all: no claims, no creates or deletes, no status write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum Halt {
    /// R-14: the selector does not compile; the sync succeeds doing nothing.
    InvalidSelector {
        /// Why the selector does not compile.
        message: String,
    },
    /// S-2: the cache has not seen this owner's own writes yet; retry with backoff.
    StaleCache,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum HaltReason {
    InvalidSelector,
    StaleCache,
}

/// The wire form of [`Halt`], read as one flat object (an internally tagged enum would
/// buffer every value first, and put a second deserializer in the wasm binary).
#[derive(Deserialize)]
struct HaltWire {
    reason: HaltReason,
    message: Option<String>,
}

impl<'de> Deserialize<'de> for Halt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        crate::objects::converted::<_, HaltWire, _, String>(d, |w| match w.reason {
            HaltReason::InvalidSelector => Ok(Halt::InvalidSelector {
                message: crate::objects::required(
                    w.message,
                    r#"reason "invalidSelector""#,
                    "message",
                )?,
            }),
            HaltReason::StaleCache => Ok(Halt::StaleCache),
        })
    }
}

/// Why manage issues no create or delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Idle {
    /// The owner has exactly `spec.replicas` pods.
    InSync,
    /// E-10: earlier creates or deletes are not yet observed (and not expired).
    ExpectationsPending,
    /// E-09: the owner is being deleted.
    OwnerTerminating,
    /// R-33: a claim failed; the sync returns its error before managing.
    ClaimFailed,
    /// The sync halted (see [`Halt`]).
    Halted,
}

/// The create step: `count` pods in slow-start `batches`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CreatePlan {
    /// How many pods to create (the diff, capped by the burst, R-50).
    pub count: usize,
    /// R-52: the full schedule if every call succeeds.
    pub batches: Vec<usize>,
    /// The pod to POST for every call.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub pod: serde_json::Value,
    /// R-51: record before the first call.
    pub expectations: ExpectationsChange,
    /// Upstream refuses creates from a template without labels before any API call;
    /// the host then makes no call and `complete` counts one failed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub refused: Option<String>,
}

/// A pod chosen for deletion, with the rule that ranked it before the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// The pod's UID (the precondition of the delete call).
    pub uid: String,
    /// Index into the sync input's `pods`.
    pub pod_index: usize,
    /// The rule that placed it before the next victim; `None` for the last one.
    pub rule: Option<RankRule>,
    /// What the ranking knew about the pod.
    pub facts: RankFacts,
}

/// The delete step: every victim deleted concurrently (R-59).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeletePlan {
    /// The pods to delete, first-ranked first.
    pub victims: Vec<Victim>,
    /// R-58: record before the first call.
    pub expectations: ExpectationsChange,
}

/// What manageReplicas does (§9).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Manage {
    /// No create and no delete.
    Nothing {
        /// Why not.
        why: Idle,
    },
    /// Create pods.
    Create(CreatePlan),
    /// Delete pods.
    Delete(DeletePlan),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum ManageAction {
    Nothing,
    Create,
    Delete,
}

/// The wire form of [`Manage`]: the fields of every action in one flat object, read
/// without serde's buffer for internally tagged enums.
#[derive(Deserialize)]
struct ManageWire {
    action: ManageAction,
    why: Option<Idle>,
    count: Option<usize>,
    batches: Option<Vec<usize>>,
    /// Any JSON value, `null` included (as `CreatePlan::pod` reads it).
    #[serde(default, deserialize_with = "crate::objects::present")]
    pod: Option<serde_json::Value>,
    expectations: Option<ExpectationsChange>,
    refused: Option<String>,
    victims: Option<Vec<Victim>>,
}

impl TryFrom<ManageWire> for Manage {
    type Error = String;

    fn try_from(w: ManageWire) -> std::result::Result<Self, String> {
        use crate::objects::required;
        Ok(match w.action {
            ManageAction::Nothing => Manage::Nothing {
                why: required(w.why, r#"action "nothing""#, "why")?,
            },
            ManageAction::Create => Manage::Create(CreatePlan {
                count: required(w.count, r#"action "create""#, "count")?,
                batches: required(w.batches, r#"action "create""#, "batches")?,
                pod: required(w.pod, r#"action "create""#, "pod")?,
                expectations: required(w.expectations, r#"action "create""#, "expectations")?,
                refused: w.refused,
            }),
            ManageAction::Delete => Manage::Delete(DeletePlan {
                victims: required(w.victims, r#"action "delete""#, "victims")?,
                expectations: required(w.expectations, r#"action "delete""#, "expectations")?,
            }),
        })
    }
}

impl<'de> Deserialize<'de> for Manage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        crate::objects::converted::<_, ManageWire, _, String>(d, Manage::try_from)
    }
}

/// The decision of one sync, before any call is made: a plain value that owns its data.
/// It serializes (JSON and back, `structuredClone` in JS) and [`complete`](super::complete()) needs nothing
/// besides it and the host's results: what the later steps need is in [`PlanBasis`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncPlan {
    /// `namespace/name` of the owner: its expectations key.
    pub key: String,
    /// The controller clock of the sync.
    pub now: Time,
    /// Why the sync does nothing at all; the one record of a halt (the manage step of a
    /// halted plan says [`Idle::Halted`], and its basis is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub halt: Option<Halt>,
    /// Pods already controlled by the owner and selected by it.
    pub owned: usize,
    /// `spec.replicas`.
    pub desired: i32,
    /// Adoptions and releases (R-30, R-31), by namespace/name: the patches are
    /// independent, so the plan lists them in an order that does not depend on the input.
    pub claims: Vec<ClaimAction>,
    /// R-32: GET the owner live before the first adoption.
    pub needs_owner_recheck: bool,
    /// The manage step if every claim goes as planned.
    pub manage: Manage,
    /// What the steps after the plan need from the input, as plain data.
    #[serde(default)]
    pub basis: PlanBasis,
}

/// What [`complete`](super::complete()) (and [`SyncPlan::manage_after`], [`SyncPlan::adoption_allowed`])
/// need from the sync input: the owner, the configuration, and facts about the claimed
/// pods, so that no pod list is kept or read again (only pod indices and counts; the
/// pods themselves only in the rare case of [`Reserve`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PlanBasis {
    /// The owner as the host's cache held it (R-32's recheck, the status, the pod to
    /// create when a failed adoption turns the step into creates).
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub owner: ReplicaSet,
    /// The configuration the plan was made with.
    pub config: Config,
    /// S-4: the expectations were satisfied (or expired) when the plan was made.
    pub needs_sync: bool,
    /// S-8: terminating pods the owner controls and selects (0 without the gate).
    pub terminating: usize,
    /// R-80, R-83 over the active pods already claimed.
    pub claimed: PodTally,
    /// The same facts for each pod the plan adopts, in input order.
    pub adoptions: Vec<AdoptionFacts>,
    /// The pods to rank again should an adoption fail while the owner has too many
    /// pods; present only then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reserve: Option<Reserve>,
}

/// R-80, R-83 over a set of claimed active pods: how many, fully labeled, ready and
/// available, and the nearest instant one of them becomes available (S-14; an instant,
/// not a wait, so that it crosses JSON exactly).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PodTally {
    /// How many pods.
    pub count: usize,
    /// How many carry every label of the owner's template (R-80).
    pub fully_labeled: i64,
    /// How many are ready (R-02).
    pub ready: i64,
    /// How many are available: ready for `minReadySeconds` (R-83).
    pub available: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// The nearest instant a ready pod not yet available becomes available.
    pub available_at: Option<Time>,
}

/// [`PodTally`]'s facts for one pod the plan adopts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AdoptionFacts {
    /// Index into the sync input's `pods`.
    pub pod_index: usize,
    /// It carries every label of the owner's template (R-80).
    pub fully_labeled: bool,
    /// It is ready (R-02).
    pub ready: bool,
    /// It is available (R-83).
    pub available: bool,
    /// R-83: when it becomes available, if it is ready and that is still ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub available_at: Option<Time>,
}

/// The pods a scale-down ranks (R-55..R-57) when an adoption fails with NotFound and
/// the owner still has more pods than it wants: the claimed and adopted pods and the
/// related pods of co-location (R-45), each with its index in the sync input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Reserve {
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::KubeObject>"))]
    /// The pods that may be deleted: the claimed and adopted active pods.
    pub candidates: Pods,
    /// Each candidate's index in the sync input's `pods`.
    pub candidate_indices: Vec<usize>,
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::KubeObject>"))]
    /// The related pods whose nodes ranking counts (R-45, R-71).
    pub related: Pods,
}

impl PodTally {
    pub(super) fn add(&mut self, f: &AdoptionFacts) {
        self.count += 1;
        self.fully_labeled += i64::from(f.fully_labeled);
        self.ready += i64::from(f.ready);
        self.available += i64::from(f.ready && f.available);
        self.available_at = nearest(self.available_at, f.available_at);
    }
}

fn nearest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// An event to record on the owner (C-8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "KubeEvent"))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The reason (`SuccessfulCreate`, `FailedDelete`, …).
    pub reason: String,
    /// The message.
    pub message: String,
}

/// What to do with the owner's key after the sync.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Requeue {
    /// Success: forget the key's backoff.
    Done,
    /// Success, and look again after this long (S-14).
    After {
        /// How long to wait.
        after: Duration,
    },
    /// The sync failed: re-add with the rate limiter's backoff (R-96).
    RateLimited {
        /// The sync's error.
        error: String,
    },
}

/// What the sync amounts to, once the host's calls are done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The manage step that ran.
    pub manage: Manage,
    /// Pods created: create calls that succeeded.
    pub created: usize,
    /// Create calls issued (API calls).
    pub create_calls: usize,
    /// Slow-start batches issued.
    pub create_batches: Vec<usize>,
    /// Delete calls that succeeded.
    pub deleted: usize,
    /// Corrections to the expectations recorded before acting (R-54, R-59).
    pub expectations: Vec<ExpectationsChange>,
    /// The status to write through the status subresource (`None`: no write, R-85).
    /// Retry once on conflict with the same status (R-86).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub status: Option<ReplicaSetStatus>,
    /// The error the sync returns (a claim or manage error), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
    /// What to do with the key when the status write (if any) succeeds.
    pub requeue: Requeue,
    /// The events to record on the owner (C-8): one per create and delete call, in call
    /// order (R-61). A host that records each call's event when the call returns
    /// ([`create_event`](super::create_event), [`delete_event`](super::delete_event), as
    /// upstream does) has recorded all of them already.
    pub events: Vec<Event>,
}
