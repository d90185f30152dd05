//! One sync of an owner, sans I/O (S-1..S-15): [`plan`] says what to do, the host does it,
//! [`complete`] says what it means.
//!
//! ```text
//! let plan = plan(&input, &config)?;
//! // 1. claims: if plan.needs_owner_recheck, GET the owner live and ask
//! //    plan.adoption_allowed(..); send plan.claims' patches (adoptions only if allowed).
//! // 2. manage: plan.manage_after(&claims)? — equal to plan.manage when every claim went
//! //    as planned. Record its expectations, then create in batches
//! //    (CreatePlan::next_batch) or delete every victim concurrently.
//! // 3. let done = complete(&plan, &outcome)?; apply done.expectations, write
//! //    done.status (one retry on conflict), requeue as done.requeue says.
//! ```

use serde::{Deserialize, Serialize};

use crate::availability;
use crate::claim::{self, ClaimAction, ClaimKind, Verdict};
use crate::config::{Config, OwnerKind};
use crate::digest::{same_bytes, Digested, PodDigest, PodStrings};
use crate::error::{Error, Result};
use crate::expectations::ExpectationsChange;
use crate::input::{SyncInput, SyncView};
use crate::model::{Pod, ReplicaSet, ReplicaSetStatus};
use crate::outcome::{CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
use crate::owner;

use crate::rank::{self, RankFacts, RankRule};
use crate::selector::Selector;
use crate::slowstart::{self, SLOW_START_INITIAL_BATCH_SIZE};
use crate::status::{self, StatusContext};
use crate::template;
use crate::time::{Duration, Time};

/// Why a sync does nothing at all: no claims, no creates or deletes, no status write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum Halt {
    /// R-14: the selector does not compile; the sync succeeds doing nothing.
    InvalidSelector { message: String },
    /// S-2: the cache has not seen this owner's own writes yet; retry with backoff.
    StaleCache,
}

/// Why manage issues no create or delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(rename_all = "camelCase")]
pub struct CreatePlan {
    pub count: usize,
    /// R-52: the full schedule if every call succeeds.
    pub batches: Vec<usize>,
    /// The pod to POST for every call.
    pub pod: serde_json::Value,
    /// R-51: record before the first call.
    pub expectations: ExpectationsChange,
    /// Upstream refuses creates from a template without labels before any API call;
    /// the host then makes no call and `complete` counts one failed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// A pod chosen for deletion, with the rule that ranked it before the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// Index into the sync input's `pods`.
    pub pod_index: usize,
    pub rule: Option<RankRule>,
    pub facts: RankFacts,
}

/// The delete step: every victim deleted concurrently (R-59).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletePlan {
    pub victims: Vec<Victim>,
    /// R-58: record before the first call.
    pub expectations: ExpectationsChange,
}

/// What manageReplicas does (§9).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Manage {
    Nothing { why: Idle },
    Create(CreatePlan),
    Delete(DeletePlan),
}

/// The decision of one sync, before any call is made. Borrows the input it was made from.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncPlan<'a> {
    /// `namespace/name` of the owner.
    pub key: String,
    pub now: Time,
    #[serde(skip_serializing_if = "Option::is_none")]
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
    #[serde(skip)]
    ctx: Option<Context<'a>>,
}

#[derive(Clone, Debug)]
struct Context<'a> {
    input: SyncView<'a>,
    config: &'a Config,
    needs_sync: bool,
    /// Active pods already claimed, and the pods to adopt (input order each).
    claimed: Vec<(usize, &'a Pod)>,
    adopt: Vec<(usize, &'a Pod)>,
    terminating: usize,
    /// Per input pod: does the owner's selector match it (false outside its namespace)?
    matched: Vec<bool>,
}

/// S-1..S-9: what this sync will do, given the host's snapshot.
pub fn plan<'a>(input: &'a SyncInput, config: &'a Config) -> Result<SyncPlan<'a>> {
    input.validate()?;
    plan_view(input.view(), config)
}

/// [`plan`] over a view whose pods were validated when they entered (a [`SyncInput`]
/// or the [`crate::store::Store`]).
pub(crate) fn plan_view<'a>(input: SyncView<'a>, config: &'a Config) -> Result<SyncPlan<'a>> {
    config.validate()?;
    let owner_rs = input.owner;
    let key = owner_rs.metadata.key();
    let mut plan = SyncPlan {
        key,
        now: input.now,
        halt: None,
        owned: 0,
        desired: owner_rs.spec.desired(),
        claims: Vec::new(),
        needs_owner_recheck: false,
        manage: Manage::Nothing { why: Idle::Halted },
        ctx: None,
    };
    // S-2
    if config
        .feature_gates
        .stale_controller_consistency_replica_set
        && !input.cache_is_fresh
    {
        plan.halt = Some(Halt::StaleCache);
        return Ok(plan);
    }
    // S-4 (expectations are read before the pods, R-46)
    let needs_sync = input.expectations.satisfied(input.now);
    // S-5
    let selector = match Selector::compile(owner_rs.spec.selector.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            plan.halt = Some(Halt::InvalidSelector {
                message: e.to_string(),
            });
            return Ok(plan);
        }
    };
    // S-6, S-7: one pass over the pods: the owner's own and the orphans of its namespace
    // (R-20, R-21, as `owner::pods_of_owner`), and whether its selector matches each pod
    // of its namespace, for the claims (R-30, R-34) and its share of the related pods
    // (R-45), so that no pod's labels are read twice.
    let (candidates, owned, matched) =
        owner_pods_matched(owner_rs, &config.owner_kind, &selector, &input);
    let matches = |i: usize| matched.get(i).copied().unwrap_or(false);
    let digest = |i: usize| input.digests.get(i);
    let mut claimed = Vec::new();
    let mut adopt = Vec::new();
    for (at, &(i, p)) in candidates.iter().enumerate() {
        if !digest(i).is_some_and(PodDigest::is_active) {
            continue;
        }
        // The owner's own pods come first, then the orphans (no controller reference).
        let controlled = (at < owned).then_some(true);
        match claim::verdict(p, owner_rs, matches(i), controlled) {
            Verdict::Claimed => claimed.push((i, p)),
            Verdict::Ignored => {}
            Verdict::Adopt => {
                adopt.push((i, p));
                plan.claims.push(claim::action(
                    ClaimKind::Adopt,
                    owner_rs,
                    &config.owner_kind,
                    p,
                    i,
                ));
            }
            Verdict::Release => plan.claims.push(claim::action(
                ClaimKind::Release,
                owner_rs,
                &config.owner_kind,
                p,
                i,
            )),
        }
    }
    plan.claims
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    plan.needs_owner_recheck = !adopt.is_empty();
    plan.owned = claimed.len();
    // S-8
    let terminating = if config.feature_gates.counts_terminating(&config.owner_kind) {
        // The owner's own pods: their controller reference carries its UID.
        candidates
            .iter()
            .take(owned)
            .filter(|&&(i, _)| digest(i).is_some_and(PodDigest::is_terminating) && matches(i))
            .count()
    } else {
        0
    };
    let ctx = Context {
        input,
        config,
        needs_sync,
        claimed,
        adopt,
        terminating,
        matched,
    };
    let all_adopted: Vec<bool> = vec![true; ctx.adopt.len()];
    plan.manage = ctx.manage(&ctx.claimed_with(&all_adopted));
    plan.ctx = Some(ctx);
    Ok(plan)
}

/// R-20, R-21 (`FilterPodsByOwner`, orphans included) in one pass over `all`: the pods of
/// the owner's namespace whose controller reference names it exactly (kind, name, UID),
/// then that namespace's orphans, each with its index in `all` (the same list as
/// [`owner::pods_of_owner`]), and how many of them are the owner's own; and, per pod of
/// `all`, whether the owner's selector matches it (false outside the namespace).
#[allow(clippy::type_complexity)]
fn owner_pods_matched<'a>(
    owner: &ReplicaSet,
    kind: &OwnerKind,
    selector: &Selector,
    input: &SyncView<'a>,
) -> (Vec<(usize, &'a Pod)>, usize, Vec<bool>) {
    let all = &input.pods;
    let mut matched = vec![false; all.len()];
    let mut owned = Vec::new();
    let mut orphans = Vec::new();
    // The verdict on the last buffer of strings read, and on the last label set matched:
    // the pods of one template share both (see `SharedStrings`), so most pods are judged
    // without reading their strings.
    let mut last: Option<(&PodStrings, Option<Belongs>)> = None;
    let mut last_labels: Option<(&[u8], bool)> = None;
    for (((i, p), d), m) in all
        .iter()
        .enumerate()
        .zip(input.digests)
        .zip(matched.iter_mut())
    {
        let strings = &d.strings;
        let verdict = match last {
            Some((seen, verdict)) if seen.same_buffer(strings) => verdict,
            _ => {
                let verdict = belongs(owner, kind, selector, strings, &mut last_labels);
                last = Some((strings, verdict));
                verdict
            }
        };
        let Some(Belongs {
            matched: selected,
            controlled,
        }) = verdict
        else {
            continue;
        };
        *m = selected;
        match controlled {
            None => orphans.push((i, *p)),
            Some(true) => owned.push((i, *p)),
            Some(false) => {}
        }
    }
    let count = owned.len();
    owned.append(&mut orphans);
    (owned, count, matched)
}

/// Where a pod of the owner's namespace stands: does the owner's selector match it, and
/// does its controller reference name the owner (`None`: it has none)?
#[derive(Clone, Copy)]
struct Belongs {
    matched: bool,
    controlled: Option<bool>,
}

/// [`Belongs`] from a pod's strings; `None` outside the owner's namespace. `last_labels`:
/// the last label set matched and the verdict, reused for equal bytes.
fn belongs<'s>(
    owner: &ReplicaSet,
    kind: &OwnerKind,
    selector: &Selector,
    strings: &'s PodStrings,
    last_labels: &mut Option<(&'s [u8], bool)>,
) -> Option<Belongs> {
    let meta = &owner.metadata;
    if !same_bytes(strings.namespace(), meta.namespace.as_bytes()) {
        return None;
    }
    let labels = strings.labels();
    let matched = match *last_labels {
        Some((seen, verdict)) if same_bytes(seen, labels.encoded()) => verdict,
        _ => {
            let verdict = selector.matches_digest(labels.clone());
            *last_labels = Some((labels.encoded(), verdict));
            verdict
        }
    };
    let controlled = strings.controller().map(|r| {
        same_bytes(r.uid, meta.uid.as_bytes())
            && same_bytes(r.name, meta.name.as_bytes())
            && same_bytes(r.kind, kind.kind.as_bytes())
    });
    Some(Belongs {
        matched,
        controlled,
    })
}

impl<'a> Context<'a> {
    /// The claimed pods when the adoptions marked `true` succeeded, input order.
    fn claimed_with(&self, adopted: &[bool]) -> Vec<(usize, &'a Pod)> {
        let mut out = self.claimed.clone();
        out.extend(
            self.adopt
                .iter()
                .zip(adopted)
                .filter(|(_, ok)| **ok)
                .map(|(p, _)| *p),
        );
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// §9: manageReplicas over the claimed pods.
    fn manage(&self, claimed: &[(usize, &'a Pod)]) -> Manage {
        let input = &self.input;
        if !self.needs_sync {
            return Manage::Nothing {
                why: Idle::ExpectationsPending,
            };
        }
        if input.owner.metadata.deletion_timestamp.is_some() {
            return Manage::Nothing {
                why: Idle::OwnerTerminating,
            };
        }
        let burst = self.config.burst_replicas;
        let diff = claimed.len() as i64 - i64::from(input.owner.spec.desired());
        if diff < 0 {
            // R-50, R-51, R-52
            let count = usize::try_from(-diff).unwrap_or(usize::MAX).min(burst);
            return Manage::Create(CreatePlan {
                count,
                batches: slowstart::batch_sizes(count, SLOW_START_INITIAL_BATCH_SIZE),
                pod: template::pod_from_template(input.owner, &self.config.owner_kind),
                expectations: ExpectationsChange::ExpectCreations {
                    count: count as i64,
                },
                refused: (!template::has_labels(input.owner))
                    .then(|| "unable to create pods, no labels".to_owned()),
            });
        }
        if diff > 0 {
            // R-55..R-58
            let n = usize::try_from(diff).unwrap_or(usize::MAX).min(burst);
            let related: Vec<Digested> = owner::related_pods_matched(
                input.owner,
                &input.other_owners,
                &input.pods,
                input.digests,
                &self.matched,
            )
            .into_iter()
            .filter_map(|i| input.digested(i))
            .collect();
            let candidates: Vec<Digested> = claimed
                .iter()
                .filter_map(|&(i, _)| input.digested(i))
                .collect();
            let ranked = rank::pods_to_delete_of(
                &candidates,
                &related,
                n,
                input.now,
                &self.config.feature_gates,
            );
            let victims: Vec<Victim> = ranked
                .into_iter()
                .filter_map(|r| {
                    let (pod_index, pod) = claimed.get(r.index)?;
                    Some(Victim {
                        namespace: pod.metadata.namespace.clone(),
                        name: pod.metadata.name.clone(),
                        uid: pod.metadata.uid.clone(),
                        pod_index: *pod_index,
                        rule: r.rule,
                        facts: r.facts,
                    })
                })
                .collect();
            let keys = victims
                .iter()
                .map(|v| format!("{}/{}", v.namespace, v.name))
                .collect();
            return Manage::Delete(DeletePlan {
                victims,
                expectations: ExpectationsChange::ExpectDeletions { keys },
            });
        }
        Manage::Nothing { why: Idle::InSync }
    }
}

/// What the claim results mean (R-30..R-33).
struct ClaimVerdict {
    adopted: Vec<bool>,
    errors: Vec<String>,
}

impl<'a> SyncPlan<'a> {
    /// The active pods the owner holds once every planned claim goes through (those it
    /// controls and selects, and the orphans it adopts), in input order. Empty when the
    /// sync halted.
    pub fn claimed_pods(&self) -> Vec<&'a Pod> {
        let Some(ctx) = &self.ctx else {
            return Vec::new();
        };
        let all = vec![true; ctx.adopt.len()];
        ctx.claimed_with(&all).into_iter().map(|(_, p)| p).collect()
    }

    /// S-8: terminating pods the owner controls and selects (counted only behind the
    /// DeploymentReplicaSetTerminatingReplicas gate; 0 otherwise).
    pub fn terminating(&self) -> usize {
        self.ctx.as_ref().map_or(0, |c| c.terminating)
    }

    /// R-32: may the planned adoptions go ahead, given the live read of the owner?
    pub fn adoption_allowed(&self, live: &LiveOwner) -> std::result::Result<(), String> {
        let Some(ctx) = &self.ctx else {
            return Err("the sync halted".into());
        };
        match live {
            LiveOwner::Found(rs) => claim::can_adopt(ctx.input.owner, rs),
            LiveOwner::Failed(e) => Err(e.message.clone()),
        }
    }

    fn judge_claims(&self, ctx: &Context<'a>, out: &ClaimOutcome) -> Result<ClaimVerdict> {
        if out.results.len() != self.claims.len() {
            return Err(Error::Outcome {
                path: "claims.results".into(),
                message: format!(
                    "{} results for {} planned claims",
                    out.results.len(),
                    self.claims.len()
                ),
            });
        }
        let recheck = if self.needs_owner_recheck {
            match &out.live_owner {
                Some(live) => self.adoption_allowed(live),
                None => {
                    return Err(Error::Outcome {
                        path: "claims.liveOwner".into(),
                        message: "the plan has adoptions: the live read of the owner is required"
                            .into(),
                    })
                }
            }
        } else {
            Ok(())
        };
        let mut errors = Vec::new();
        let mut adopted_by_index = std::collections::HashMap::new();
        for (action, result) in self.claims.iter().zip(&out.results) {
            match action.kind {
                ClaimKind::Adopt => {
                    let ok = match (&recheck, result) {
                        (Err(why), _) => {
                            errors.push(format!(
                                "can't adopt Pod {}/{} ({}): {why}",
                                action.namespace, action.name, action.uid
                            ));
                            false
                        }
                        (Ok(()), CallResult::Ok { .. }) => true,
                        (Ok(()), CallResult::Error(e)) if e.is_not_found() => false,
                        (Ok(()), CallResult::Error(e)) => {
                            errors.push(e.message.clone());
                            false
                        }
                        (Ok(()), CallResult::Skipped) => {
                            return Err(Error::Outcome {
                                path: "claims.results".into(),
                                message: format!(
                                    "adoption of {}/{} was skipped although it is allowed",
                                    action.namespace, action.name
                                ),
                            })
                        }
                    };
                    adopted_by_index.insert(action.pod_index, ok);
                }
                ClaimKind::Release => match result {
                    CallResult::Error(e) if !(e.is_not_found() || e.is_invalid()) => {
                        errors.push(e.message.clone());
                    }
                    _ => {}
                },
            }
        }
        let adopted = ctx
            .adopt
            .iter()
            .map(|(i, _)| adopted_by_index.get(i).copied().unwrap_or(false))
            .collect();
        Ok(ClaimVerdict { adopted, errors })
    }

    /// The manage step to run once the claims are done: equal to `self.manage` when
    /// every claim went as planned; nothing when a claim failed (R-33).
    pub fn manage_after(&self, claims: &ClaimOutcome) -> Result<Manage> {
        let Some(ctx) = &self.ctx else {
            return Ok(self.manage.clone());
        };
        Ok(match self.after_claims(ctx, claims)? {
            AfterClaims::Failed(_) => Manage::Nothing {
                why: Idle::ClaimFailed,
            },
            AfterClaims::Proceed { manage, .. } => manage,
        })
    }

    /// R-30..R-33 on the claim results, once for both `manage_after` and `complete`:
    /// the claim errors, or the pods claimed and the manage step over them (the planned
    /// step itself when every adoption went through, so nothing is ranked twice).
    fn after_claims(&self, ctx: &Context<'a>, claims: &ClaimOutcome) -> Result<AfterClaims<'a>> {
        if self.claims.is_empty() {
            return Ok(AfterClaims::Proceed {
                claimed: ctx.claimed_with(&[]),
                manage: self.manage.clone(),
            });
        }
        let verdict = self.judge_claims(ctx, claims)?;
        if !verdict.errors.is_empty() {
            return Ok(AfterClaims::Failed(verdict.errors));
        }
        let claimed = ctx.claimed_with(&verdict.adopted);
        let manage = if verdict.adopted.iter().all(|a| *a) {
            self.manage.clone()
        } else {
            ctx.manage(&claimed)
        };
        Ok(AfterClaims::Proceed { claimed, manage })
    }
}

/// What the claim results leave for the rest of the sync.
enum AfterClaims<'a> {
    /// R-33: the claim errors; the sync returns them before managing.
    Failed(Vec<String>),
    Proceed {
        claimed: Vec<(usize, &'a Pod)>,
        manage: Manage,
    },
}

impl CreatePlan {
    /// How many calls the next batch has, given the results so far (in call order);
    /// `None` when slow start is over (R-52, R-53).
    pub fn next_batch(&self, results_so_far: &[CallResult]) -> Option<usize> {
        if self.refused.is_some() {
            return None;
        }
        let mut issued = 0;
        for size in &self.batches {
            if issued >= results_so_far.len() {
                return (issued == results_so_far.len()).then_some(*size);
            }
            let batch = results_so_far.get(issued..issued + size)?;
            if batch.iter().any(create_failed) {
                return None;
            }
            issued += size;
        }
        None
    }
}

/// R-53: a NamespaceTerminating rejection counts as success.
fn create_failed(r: &CallResult) -> bool {
    match r {
        CallResult::Error(e) => !e.is_namespace_terminating(),
        CallResult::Ok { .. } => false,
        CallResult::Skipped => true,
    }
}

/// An event to record on the owner (C-8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
}

impl Event {
    fn normal(reason: &str, message: String) -> Self {
        Event {
            type_: "Normal".into(),
            reason: reason.into(),
            message,
        }
    }

    fn warning(reason: &str, message: String) -> Self {
        Event {
            type_: "Warning".into(),
            reason: reason.into(),
            message,
        }
    }
}

/// What to do with the owner's key after the sync.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Requeue {
    /// Success: forget the key's backoff.
    Done,
    /// Success, and look again after this long (S-14).
    After { after: Duration },
    /// The sync failed: re-add with the rate limiter's backoff (R-96).
    RateLimited { error: String },
}

/// What the sync amounts to, once the host's calls are done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The manage step that ran.
    pub manage: Manage,
    /// Create calls issued (API calls), and those that succeeded.
    pub created: usize,
    pub create_calls: usize,
    /// Slow-start batches issued.
    pub create_batches: Vec<usize>,
    pub deleted: usize,
    /// Corrections to the expectations recorded before acting (R-54, R-59).
    pub expectations: Vec<ExpectationsChange>,
    /// The status to write through the status subresource (`None`: no write, R-85).
    /// Retry once on conflict with the same status (R-86).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ReplicaSetStatus>,
    /// The error the sync returns (a claim or manage error), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What to do with the key when the status write (if any) succeeds.
    pub requeue: Requeue,
    pub events: Vec<Event>,
}

impl Completion {
    /// S-11..S-15: the requeue once the status write's result is known (`Err` = the
    /// final write error after the retry).
    pub fn requeue_after_status_write(&self, write: std::result::Result<(), String>) -> Requeue {
        match write {
            Err(e) => Requeue::RateLimited { error: e },
            Ok(()) => self.requeue.clone(),
        }
    }
}

fn outcome_len(path: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::Outcome {
            path: path.into(),
            message: format!("{got} results for {want} planned calls"),
        })
    }
}

/// S-9..S-15: what the host's results mean: expectation corrections, the status to
/// write, events, the error and the requeue.
pub fn complete(plan: &SyncPlan<'_>, outcome: &SyncOutcome) -> Result<Completion> {
    let mut done = Completion {
        manage: Manage::Nothing { why: Idle::Halted },
        created: 0,
        create_calls: 0,
        create_batches: Vec::new(),
        deleted: 0,
        expectations: Vec::new(),
        status: None,
        error: None,
        requeue: Requeue::Done,
        events: Vec::new(),
    };
    let Some(ctx) = &plan.ctx else {
        // A halted sync makes no call at all.
        outcome_len("claims.results", outcome.claims.results.len(), 0)?;
        outcome_len("creates", outcome.creates.len(), 0)?;
        outcome_len("deletes", outcome.deletes.len(), 0)?;
        if plan.halt == Some(Halt::StaleCache) {
            done.requeue = Requeue::RateLimited {
                error: format!(
                    "{}: the cache has not yet observed this controller's writes",
                    plan.key
                ),
            };
        }
        return Ok(done);
    };
    // S-7, R-33
    let (claimed, manage) = match plan.after_claims(ctx, &outcome.claims)? {
        AfterClaims::Failed(errors) => {
            // R-33: no manage step runs after a failed claim.
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), 0)?;
            let error = aggregate(&errors);
            done.manage = Manage::Nothing {
                why: Idle::ClaimFailed,
            };
            done.requeue = Requeue::RateLimited {
                error: error.clone(),
            };
            done.error = Some(error);
            return Ok(done);
        }
        AfterClaims::Proceed { claimed, manage } => (claimed, manage),
    };

    // S-9: the manage outcome.
    let mut manage_error: Option<String> = None;
    match &manage {
        Manage::Nothing { .. } => {
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), 0)?;
        }
        Manage::Create(c) => {
            outcome_len("deletes", outcome.deletes.len(), 0)?;
            let (successes, error) = judge_creates(c, &outcome.creates, &mut done)?;
            let skipped = c.count.saturating_sub(successes);
            if skipped > 0 {
                done.expectations.push(ExpectationsChange::LowerCreations {
                    count: skipped as i64,
                });
            }
            manage_error = error;
        }
        Manage::Delete(d) => {
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), d.victims.len())?;
            for (v, r) in d.victims.iter().zip(&outcome.deletes) {
                let key = format!("{}/{}", v.namespace, v.name);
                match r {
                    CallResult::Ok { .. } => {
                        done.deleted += 1;
                        done.events.push(Event::normal(
                            "SuccessfulDelete",
                            format!("Deleted pod: {}", v.name),
                        ));
                    }
                    CallResult::Error(e) => {
                        done.expectations
                            .push(ExpectationsChange::DeletionObserved { key });
                        if !e.is_not_found() {
                            done.events.push(Event::warning(
                                "FailedDelete",
                                format!("Error deleting: {}", e.message),
                            ));
                            manage_error.get_or_insert_with(|| {
                                format!("unable to delete pods: {}", e.message)
                            });
                        }
                    }
                    CallResult::Skipped => {
                        return Err(Error::Outcome {
                            path: "deletes".into(),
                            message: format!(
                            "the deletion of {} was skipped; every planned delete must be issued",
                            crate::error::capped(&key)
                        ),
                        })
                    }
                }
            }
        }
    }
    done.manage = manage;

    // S-10: status over the claimed pods.
    let owner_rs = &ctx.input.owner;
    let claimed_pods: Vec<Digested> = claimed
        .iter()
        .filter_map(|&(i, _)| ctx.input.digested(i))
        .collect();
    let new_status = status::calculate_of(
        owner_rs,
        &claimed_pods,
        ctx.terminating,
        StatusContext {
            gates: &ctx.config.feature_gates,
            owner_kind: &ctx.config.owner_kind,
            manage_error: manage_error.as_deref(),
            now: ctx.input.now,
            wall_clock: ctx.input.now,
        },
    );
    // S-11, R-85, R-86
    if status::needs_write(owner_rs, &new_status) {
        done.status = Some(status::to_write(owner_rs, new_status.clone()));
    }
    // S-13, S-14
    done.requeue = match &manage_error {
        Some(e) => Requeue::RateLimited { error: e.clone() },
        None => match availability::requeue_after(
            &new_status,
            &claimed.iter().map(|(_, p)| *p).collect::<Vec<&Pod>>(),
            owner_rs.spec.min_ready_seconds,
            ctx.input.now,
        ) {
            Some(after) => Requeue::After { after },
            None => Requeue::Done,
        },
    };
    done.error = manage_error;
    Ok(done)
}

/// R-52..R-54: slow start over the create results. Returns (successes, first error).
fn judge_creates(
    c: &CreatePlan,
    results: &[CallResult],
    done: &mut Completion,
) -> Result<(usize, Option<String>)> {
    if let Some(why) = &c.refused {
        outcome_len("creates", results.len(), 0)?;
        done.create_batches = vec![1.min(c.count)];
        return Ok((0, Some(why.clone())));
    }
    let run = slowstart::run(c.count, SLOW_START_INITIAL_BATCH_SIZE, |i| {
        results.get(i).is_none_or(create_failed)
    });
    outcome_len("creates", results.len(), run.calls)?;
    done.create_batches = run.batches;
    done.create_calls = run.calls;
    let mut first_error = None;
    for r in results {
        match r {
            CallResult::Ok { name } => {
                done.created += 1;
                done.events.push(Event::normal(
                    "SuccessfulCreate",
                    format!("Created pod: {}", name.as_deref().unwrap_or("")),
                ));
            }
            CallResult::Error(e) if e.is_namespace_terminating() => {}
            CallResult::Error(e) => {
                done.events.push(Event::warning(
                    "FailedCreate",
                    format!("Error creating: {}", e.message),
                ));
                first_error.get_or_insert_with(|| e.message.clone());
            }
            CallResult::Skipped => {
                return Err(Error::Outcome {
                    path: "creates".into(),
                    message: "a create call was skipped; report every call of a started batch"
                        .into(),
                })
            }
        }
    }
    Ok((run.successes, first_error))
}

/// `utilerrors.NewAggregate(...).Error()`.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl Manage {
    /// Expectations to record before acting (R-51, R-58).
    pub fn expectations(&self) -> Option<&ExpectationsChange> {
        match self {
            Manage::Nothing { .. } => None,
            Manage::Create(c) => Some(&c.expectations),
            Manage::Delete(d) => Some(&d.expectations),
        }
    }
}
