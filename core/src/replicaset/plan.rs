//! One sync of an owner, sans I/O (S-1..S-15): [`plan`] says what to do, the host does it,
//! [`complete`](super::complete()) says what it means. The plan is a value: it owns its data, serializes, and
//! carries what the later steps need ([`PlanBasis`]), so a host may keep it anywhere
//! (another process, a JSON file) and nothing is planned twice.
//!
//! ```text
//! let plan = plan(&input, &config)?;
//! // 1. claims: if plan.needs_owner_recheck, GET the owner live and ask
//! //    plan.adoption_allowed(..); send plan.claims' patches (adoptions only if allowed).
//! // 2. manage: plan.manage_after(&claims)? — equal to plan.manage when every claim went
//! //    as planned. Record its expectations, then create in batches
//! //    (CreatePlan::next_batch) or delete every victim concurrently.
//! //    Stopping partway (e.g. a lost leader lease)? take manage.abandoned(&results)
//! //    off the expectations instead.
//! // 3. let done = complete(&plan, &outcome)?; apply done.expectations, write
//! //    done.status (one retry on conflict), requeue as done.requeue says.
//! ```

use super::digest::{same_bytes, Digested, PodDigest, PodStrings, Pods};
use super::owner;
use super::protocol::{
    AdoptionFacts, Halt, Idle, Manage, PlanBasis, PodTally, Reserve, SyncPlan, Victim,
};
use super::rank::{self};
use crate::claim::{self, ClaimAction, ClaimKind, Verdict};
use crate::config::{Config, OwnerKind};
use crate::error::{Error, Result};
use crate::input::{SyncInput, SyncView};
use crate::model::{Pod, ReplicaSet};
use crate::outcome::{CallResult, ClaimOutcome, LiveOwner};
use crate::selector::Selector;
use crate::time::{Duration, Time};

/// R-80 and R-83 facts of one claimed pod, from its digest. `last_labels`: the last label
/// set matched against the template and the verdict; pods of one template share their
/// label bytes, so most pods are judged without reading their labels.
fn facts_of<'d>(
    template: &Selector,
    min_ready: i32,
    now: Time,
    pod_index: usize,
    p: &Digested<'d>,
    last_labels: &mut Option<(&'d [u8], bool)>,
) -> AdoptionFacts {
    let d: &'d PodDigest = p.digest;
    let labels = d.strings.labels();
    let fully_labeled = match *last_labels {
        Some((seen, verdict)) if same_bytes(seen, labels.encoded()) => verdict,
        _ => {
            let verdict = template.matches_digest(labels.clone());
            *last_labels = Some((labels.encoded(), verdict));
            verdict
        }
    };
    let min = Duration::from_seconds(i64::from(min_ready));
    let ready = d.is_ready();
    let ready_time = if ready { d.ready_time() } else { None };
    // R-03, as pods::is_available.
    let available =
        ready && (min == Duration::ZERO || ready_time.is_some_and(|t| t.plus(min) <= now));
    // R-83, as availability::next_check: a ready pod with a ready time still short of
    // minReadySeconds becomes available at a known instant.
    let available_at = ready_time
        .filter(|_| min_ready > 0)
        .map(|t| t.plus(min))
        .filter(|&at| at.since(now) > Duration::ZERO);
    AdoptionFacts {
        pod_index,
        fully_labeled,
        ready,
        available,
        available_at,
    }
}

/// S-1..S-9: what this sync will do, given the host's snapshot.
pub fn plan(input: &SyncInput, config: &Config) -> Result<SyncPlan> {
    input.validate()?;
    plan_view(input.view(), config)
}

/// How many plans this thread has made ([`plan_view`] calls), for tests that check a
/// host makes exactly one plan per sync.
#[cfg(any(test, feature = "plan-counter"))]
pub fn plans_made() -> usize {
    PLANS_MADE.with(|c| c.get())
}

#[cfg(any(test, feature = "plan-counter"))]
thread_local! {
    static PLANS_MADE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// [`plan`] over a view whose pods were validated when they entered (a [`SyncInput`]
/// or the [`crate::Store`]).
pub(crate) fn plan_view(input: SyncView<'_>, config: &Config) -> Result<SyncPlan> {
    #[cfg(any(test, feature = "plan-counter"))]
    PLANS_MADE.with(|c| c.set(c.get() + 1));
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
        basis: PlanBasis::default(),
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
    let ClaimPass {
        candidates,
        owned,
        matched,
        claimed,
        adopt,
        actions,
    } = claim_pass(&input, config, &selector);
    let matches = |i: usize| matched.get(i).copied().unwrap_or(false);
    let digest = |i: usize| input.digests.get(i);
    plan.claims = actions;
    crate::sort::sort_by(&mut plan.claims, |a, b| {
        (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name))
    });
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
    // R-80, R-83: the status facts of the claimed pods, counted now so that `complete`
    // reads no pod. Pods of one template share their label bytes: match them once.
    let template = Selector::from_labels(owner_rs.spec.template.labels());
    let min_ready = owner_rs.spec.min_ready_seconds;
    let mut last_labels = None;
    let mut fact = |i: usize| {
        input
            .digested(i)
            .map(|d| facts_of(&template, min_ready, input.now, i, &d, &mut last_labels))
    };
    let mut tally = PodTally::default();
    for &i in &claimed {
        if let Some(f) = fact(i) {
            tally.add(&f);
        }
    }
    let adoptions: Vec<AdoptionFacts> = adopt.iter().filter_map(|&i| fact(i)).collect();
    let mut basis = PlanBasis {
        owner: owner_rs.clone(),
        config: config.clone(),
        needs_sync,
        terminating,
        claimed: tally,
        adoptions,
        reserve: None,
    };
    // Every pod claimed if every adoption goes through, input order.
    let mut all_claimed = claimed;
    all_claimed.extend(adopt.iter().copied());
    all_claimed.sort_unstable();
    let related = |input: &SyncView<'_>| {
        owner::related_pods_matched(
            input.owner,
            &input.other_owners,
            &input.pods,
            input.digests,
            &matched,
        )
    };
    plan.manage = basis.manage(all_claimed.len(), |n| {
        let related: Vec<Digested> = related(&input)
            .into_iter()
            .filter_map(|i| input.digested(i))
            .collect();
        victims(&input.now, &basis.config, &all_claimed, &input, &related, n)
    });
    // A failed adoption can leave the owner over its count: keep what ranking needs.
    if !adopt.is_empty()
        && needs_sync
        && owner_rs.metadata.deletion_timestamp.is_none()
        && all_claimed.len().saturating_sub(1) as i64 > i64::from(owner_rs.spec.desired())
    {
        let mut candidates = Pods::new();
        for &i in &all_claimed {
            if let Some(p) = input.pods.get(i) {
                candidates.push((*p).clone());
            }
        }
        let mut related_pods = Pods::new();
        for i in related(&input) {
            if let Some(p) = input.pods.get(i) {
                related_pods.push((*p).clone());
            }
        }
        basis.reserve = Some(Reserve {
            candidates,
            candidate_indices: all_claimed,
            related: related_pods,
        });
    }
    plan.basis = basis;
    Ok(plan)
}

/// R-55..R-57: the `n` victims among the pods at `claimed` (indices into the pods of
/// `pods`), ranked against `related`.
pub(super) fn victims<P: PodSource>(
    now: &Time,
    config: &Config,
    claimed: &[usize],
    pods: &P,
    related: &[Digested],
    n: usize,
) -> Vec<Victim> {
    let candidates: Vec<Digested> = claimed
        .iter()
        .filter_map(|&i| pods.digested_at(i))
        .collect();
    rank::pods_to_delete_of(&candidates, related, n, *now, &config.feature_gates)
        .into_iter()
        .filter_map(|r| {
            let pod_index = *claimed.get(r.index)?;
            let pod = candidates.get(r.index)?.pod;
            Some(Victim {
                namespace: pod.metadata.namespace.clone(),
                name: pod.metadata.name.clone(),
                uid: pod.metadata.uid.clone(),
                pod_index,
                rule: r.rule,
                facts: r.facts,
            })
        })
        .collect()
}

/// Digested pods by index: the sync input, or a plan's [`Reserve`].
pub(super) trait PodSource {
    fn digested_at(&self, index: usize) -> Option<Digested<'_>>;
}

impl PodSource for SyncView<'_> {
    fn digested_at(&self, index: usize) -> Option<Digested<'_>> {
        self.digested(index)
    }
}

/// A reserve's candidates by their sync-input index.
pub(super) struct ReserveSource<'r>(pub(super) &'r Reserve);

impl PodSource for ReserveSource<'_> {
    fn digested_at(&self, index: usize) -> Option<Digested<'_>> {
        let at = self.0.candidate_indices.binary_search(&index).ok()?;
        let pods = &self.0.candidates;
        Some(Digested {
            pod: pods.get(at)?,
            digest: pods.digests().get(at)?,
        })
    }
}

/// The pods of one sync by their claim verdict (R-20..R-34), indices into the input.
struct ClaimPass<'a> {
    /// The owner's own pods of its namespace, then the orphans (R-20, R-21).
    candidates: Vec<(usize, &'a Pod)>,
    /// How many of `candidates` are the owner's own.
    owned: usize,
    /// Per input pod: does the owner's selector match it?
    matched: Vec<bool>,
    /// Active pods already claimed, and the active orphans to adopt (input order).
    claimed: Vec<usize>,
    adopt: Vec<usize>,
    actions: Vec<ClaimAction>,
}

fn claim_pass<'a>(input: &SyncView<'a>, config: &Config, selector: &Selector) -> ClaimPass<'a> {
    let owner_rs = input.owner;
    let (candidates, owned, matched) =
        owner_pods_matched(owner_rs, &config.owner_kind, selector, input);
    let matches = |i: usize| matched.get(i).copied().unwrap_or(false);
    let mut claimed = Vec::new();
    let mut adopt = Vec::new();
    let mut actions = Vec::new();
    for (at, &(i, p)) in candidates.iter().enumerate() {
        if !input.digests.get(i).is_some_and(PodDigest::is_active) {
            continue;
        }
        // The owner's own pods come first, then the orphans (no controller reference).
        let controlled = (at < owned).then_some(true);
        match claim::verdict(p, owner_rs, matches(i), controlled) {
            Verdict::Claimed => claimed.push(i),
            Verdict::Ignored => {}
            Verdict::Adopt => {
                adopt.push(i);
                actions.push(claim::action(
                    ClaimKind::Adopt,
                    owner_rs,
                    &config.owner_kind,
                    p,
                    i,
                ));
            }
            Verdict::Release => actions.push(claim::action(
                ClaimKind::Release,
                owner_rs,
                &config.owner_kind,
                p,
                i,
            )),
        }
    }
    ClaimPass {
        candidates,
        owned,
        matched,
        claimed,
        adopt,
        actions,
    }
}

/// The active pods `input`'s owner holds once every planned claim goes through (those it
/// controls and selects, and the orphans it adopts), in input order; none when the
/// selector does not compile (for the explanations).
#[cfg(feature = "explain")]
pub(crate) fn claimed_pods<'a>(input: &'a SyncInput, config: &Config) -> Vec<&'a Pod> {
    let view = input.view();
    let Ok(selector) = Selector::compile(input.owner.spec.selector.as_ref()) else {
        return Vec::new();
    };
    let pass = claim_pass(&view, config, &selector);
    let mut all: Vec<usize> = pass.claimed;
    all.extend(pass.adopt);
    all.sort_unstable();
    all.into_iter().filter_map(|i| input.pods.get(i)).collect()
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

/// What the claim results mean (R-30..R-33).
struct ClaimVerdict {
    /// Per [`PlanBasis::adoptions`] entry: did it go through?
    adopted: Vec<bool>,
    errors: Vec<String>,
}

impl SyncPlan {
    /// The active pods the owner holds once every planned claim goes through (those it
    /// controls and selects, and the orphans it adopts), with the status facts of
    /// R-80. Zero when the sync halted.
    pub fn claimed_tally(&self) -> PodTally {
        self.basis
            .tally_with(&vec![true; self.basis.adoptions.len()])
    }

    /// S-8: terminating pods the owner controls and selects (counted only behind the
    /// DeploymentReplicaSetTerminatingReplicas gate; 0 otherwise).
    pub fn terminating(&self) -> usize {
        self.basis.terminating
    }

    /// R-32: may the planned adoptions go ahead, given the live read of the owner?
    pub fn adoption_allowed(&self, live: &LiveOwner) -> std::result::Result<(), String> {
        if self.halt.is_some() {
            return Err("the sync halted".into());
        }
        match live {
            LiveOwner::Found(rs) => claim::can_adopt(&self.basis.owner, rs),
            LiveOwner::Failed(e) => Err(e.message.clone()),
        }
    }

    fn judge_claims(&self, out: &ClaimOutcome) -> Result<ClaimVerdict> {
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
        let adopted = self
            .basis
            .adoptions
            .iter()
            .map(|f| adopted_by_index.get(&f.pod_index).copied().unwrap_or(false))
            .collect();
        Ok(ClaimVerdict { adopted, errors })
    }

    /// The manage step to run once the claims are done: equal to `self.manage` when
    /// every claim went as planned; nothing when a claim failed (R-33).
    pub fn manage_after(&self, claims: &ClaimOutcome) -> Result<Manage> {
        if self.halt.is_some() {
            return Ok(self.manage.clone());
        }
        Ok(match self.after_claims(claims)? {
            AfterClaims::Failed(_) => Manage::Nothing {
                why: Idle::ClaimFailed,
            },
            AfterClaims::Proceed { manage, .. } => manage,
        })
    }

    /// R-30..R-33 on the claim results, once for both `manage_after` and `complete`:
    /// the claim errors, or the claimed pods' tally and the manage step over them (the
    /// planned step itself when every adoption went through, so nothing is ranked twice).
    pub(super) fn after_claims(&self, claims: &ClaimOutcome) -> Result<AfterClaims> {
        if self.claims.is_empty() {
            return Ok(AfterClaims::Proceed {
                tally: self.basis.claimed.clone(),
                manage: self.manage.clone(),
            });
        }
        let verdict = self.judge_claims(claims)?;
        if !verdict.errors.is_empty() {
            return Ok(AfterClaims::Failed(verdict.errors));
        }
        let tally = self.basis.tally_with(&verdict.adopted);
        let manage = if verdict.adopted.iter().all(|a| *a) {
            self.manage.clone()
        } else {
            self.basis.manage_with(&verdict.adopted, self.now)
        };
        Ok(AfterClaims::Proceed { tally, manage })
    }
}

/// What the claim results leave for the rest of the sync.
pub(super) enum AfterClaims {
    /// R-33: the claim errors; the sync returns them before managing.
    Failed(Vec<String>),
    Proceed {
        tally: PodTally,
        manage: Manage,
    },
}
