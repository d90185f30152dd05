//! The status the controller writes (R-80..R-82) and whether it writes it.

use super::digest::Digested;
use crate::config::{FeatureGates, OwnerKind};
use crate::model::{Pod, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus};
use crate::pods;
use crate::selector::Selector;
use crate::time::{Duration, Time};

/// The input of a status calculation alone (`calculateStatus` in the wasm binding): the
/// owner, its claimed active pods, how many terminating pods it controls and the error
/// `manageReplicas` returned, if any.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StatusInput {
    /// The controller clock (also the wall clock of a new condition).
    pub now: Time,
    #[serde(alias = "replicaSet", deserialize_with = "crate::objects::object")]
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    /// The owner whose status is computed.
    pub owner: ReplicaSet,
    /// The owner's claimed active pods.
    #[serde(default, deserialize_with = "crate::objects::objects")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Vec<crate::ts::KubeObject>", optional = nullable)
    )]
    pub active_pods: Vec<Pod>,
    /// How many terminating pods it controls.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub terminating_pods: usize,
    /// The error manageReplicas returned, if any.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub manage_error: Option<String>,
}

impl StatusInput {
    /// [`calculate`] over this input, as a host asks for it (`now` is also the wall clock).
    pub fn calculate(&self, config: &crate::config::Config) -> ReplicaSetStatus {
        let pods: Vec<&Pod> = self.active_pods.iter().collect();
        calculate(
            &self.owner,
            &pods,
            self.terminating_pods,
            StatusContext {
                gates: &config.feature_gates,
                owner_kind: &config.owner_kind,
                manage_error: self.manage_error.as_deref(),
                now: self.now,
                wall_clock: self.now,
            },
        )
    }
}

/// C-8: the only condition type the controller manages.
pub const REPLICA_FAILURE: &str = "ReplicaFailure";

/// What `calculateStatus` needs besides the pods.
#[derive(Clone, Copy, Debug)]
pub struct StatusContext<'a> {
    /// The feature gates (R-81's terminating count).
    pub gates: &'a FeatureGates,
    /// The owner's kind (the condition's messages name it).
    pub owner_kind: &'a OwnerKind,
    /// The error `manageReplicas` returned, if any (its text becomes the message).
    pub manage_error: Option<&'a str>,
    /// The controller clock (R-83's availability).
    pub now: Time,
    /// The wall clock for a newly added condition's `lastTransitionTime` (upstream uses
    /// `metav1.Now()`); hosts pass `now`.
    pub wall_clock: Time,
}

/// R-80..R-82 (`calculateStatus`): counters over the claimed active pods, the optional
/// terminating count, and the ReplicaFailure condition. `observedGeneration` is copied.
pub fn calculate(
    rs: &ReplicaSet,
    active: &[&Pod],
    terminating: usize,
    ctx: StatusContext<'_>,
) -> ReplicaSetStatus {
    let template = Selector::from_labels(rs.spec.template.labels());
    let min_ready = rs.spec.min_ready_seconds;
    let counts = active.iter().fold(Counts::default(), |c, p| {
        c.add(
            template.matches(p.metadata.labels.as_ref()),
            pods::is_ready(p),
            pods::is_available(p, min_ready, ctx.now),
        )
    });
    finish(rs, active.len(), counts, terminating, ctx)
}

/// R-80 per digested pod: (fully labeled by `template`, ready, available).
pub(crate) fn facts_of(
    template: &Selector,
    min_ready: Duration,
    now: Time,
    p: &Digested,
) -> (bool, bool, bool) {
    let d = p.digest;
    // R-03, as pods::is_available.
    let available = d.is_ready()
        && (min_ready == Duration::ZERO
            || d.ready_time().is_some_and(|t| t.plus(min_ready) <= now));
    (
        template.matches_digest(d.strings.labels()),
        d.is_ready(),
        available,
    )
}

/// [`calculate`] over digested pods: the same counts from the digests alone.
pub fn calculate_of(
    rs: &ReplicaSet,
    active: &[Digested],
    terminating: usize,
    ctx: StatusContext<'_>,
) -> ReplicaSetStatus {
    let template = Selector::from_labels(rs.spec.template.labels());
    let min_ready = Duration::from_seconds(i64::from(rs.spec.min_ready_seconds));
    let counts = active.iter().fold(Counts::default(), |c, p| {
        let (fully, ready, available) = facts_of(&template, min_ready, ctx.now, p);
        c.add(fully, ready, available)
    });
    finish(rs, active.len(), counts, terminating, ctx)
}

/// Fully labeled, ready and available pods.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) fully: i64,
    pub(crate) ready: i64,
    pub(crate) available: i64,
}

impl Counts {
    pub(crate) fn add(self, fully: bool, ready: bool, available: bool) -> Counts {
        Counts {
            fully: self.fully + i64::from(fully),
            ready: self.ready + i64::from(ready),
            available: self.available + i64::from(ready && available),
        }
    }
}

/// R-80..R-82 from the counts over the `active_len` claimed active pods.
pub(crate) fn finish(
    rs: &ReplicaSet,
    active_len: usize,
    counts: Counts,
    terminating: usize,
    ctx: StatusContext<'_>,
) -> ReplicaSetStatus {
    let mut status = rs.status.clone();
    let Counts {
        fully,
        ready,
        available,
    } = counts;
    // stored as int32 (Go truncates).
    status.replicas = active_len as i32;
    status.fully_labeled_replicas = fully as i32;
    status.ready_replicas = ready as i32;
    status.available_replicas = available as i32;
    //
    status.terminating_replicas = ctx
        .gates
        .counts_terminating(ctx.owner_kind)
        .then_some(terminating as i32);

    //
    let has_failure = status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.type_ == REPLICA_FAILURE);
    match ctx.manage_error {
        Some(message) if !has_failure => {
            let desired = i64::from(rs.spec.desired());
            let have = active_len as i64;
            let reason = match have.cmp(&desired) {
                std::cmp::Ordering::Less => super::events::FAILED_CREATE,
                std::cmp::Ordering::Greater => super::events::FAILED_DELETE,
                std::cmp::Ordering::Equal => "",
            };
            set_condition(
                &mut status,
                ReplicaSetCondition {
                    type_: REPLICA_FAILURE.into(),
                    status: "True".into(),
                    last_transition_time: Some(ctx.wall_clock),
                    reason: reason.into(),
                    message: message.into(),
                },
            );
        }
        Some(_) => {}
        None if has_failure => remove_condition(&mut status, REPLICA_FAILURE),
        None => {}
    }
    status
}

/// `SetCondition`: same type with the same status and reason ⇒ unchanged; otherwise every
/// condition of that type is dropped and the new one appended.
pub fn set_condition(status: &mut ReplicaSetStatus, cond: ReplicaSetCondition) {
    let conds = status.conditions.get_or_insert_with(Vec::new);
    let current = conds.iter().find(|c| c.type_ == cond.type_);
    if current.is_some_and(|c| c.status == cond.status && c.reason == cond.reason) {
        return;
    }
    conds.retain(|c| c.type_ != cond.type_);
    conds.push(cond);
}

/// `RemoveCondition`: drops every condition of the type; an emptied list becomes absent.
pub fn remove_condition(status: &mut ReplicaSetStatus, type_: &str) {
    if let Some(conds) = status.conditions.as_mut() {
        conds.retain(|c| c.type_ != type_);
        if conds.is_empty() {
            status.conditions = None;
        }
    }
}

/// no write iff every counter is unchanged, terminatingReplicas is equal as an
/// optional, the generation is already observed and the conditions are deep-equal.
pub fn needs_write(rs: &ReplicaSet, new: &ReplicaSetStatus) -> bool {
    let old = &rs.status;
    !(old.replicas == new.replicas
        && old.fully_labeled_replicas == new.fully_labeled_replicas
        && old.ready_replicas == new.ready_replicas
        && old.available_replicas == new.available_replicas
        && old.terminating_replicas == new.terminating_replicas
        && rs.metadata.generation.unwrap_or(0) == old.observed_generation
        && old.conditions == new.conditions)
}

/// the status as written: `observedGeneration` set to the owner's generation.
pub fn to_write(rs: &ReplicaSet, mut new: ReplicaSetStatus) -> ReplicaSetStatus {
    new.observed_generation = rs.metadata.generation.unwrap_or(0);
    new
}
