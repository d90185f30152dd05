//! One sync of an owner, sans I/O (S-1..S-15): [`plan`] says what to do, the host does it,
//! [`complete`] says what it means. The plan is a value: it owns its data, serializes, and
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

use serde::{Deserialize, Serialize};

use crate::claim::{self, ClaimAction, ClaimKind, Verdict};
use crate::config::{Config, OwnerKind};
use crate::error::{Error, Result};
use crate::expectations::ExpectationsChange;
use crate::input::{SyncInput, SyncView};
use crate::model::{Pod, ReplicaSet, ReplicaSetStatus};
use crate::outcome::{CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
use crate::replicaset::availability;
use crate::replicaset::digest::{same_bytes, Digested, PodDigest, PodStrings, Pods};
use crate::replicaset::owner;

use crate::replicaset::rank::{self, RankFacts, RankRule};
use crate::replicaset::slowstart::{self, SLOW_START_INITIAL_BATCH_SIZE};
use crate::replicaset::status::{self, StatusContext};
use crate::replicaset::template;
use crate::selector::Selector;
use crate::time::{Duration, Time};

/// Why a sync does nothing at all: no claims, no creates or deletes, no status write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum Halt {
    /// R-14: the selector does not compile; the sync succeeds doing nothing.
    InvalidSelector { message: String },
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeletePlan {
    pub victims: Vec<Victim>,
    /// R-58: record before the first call.
    pub expectations: ExpectationsChange,
}

/// What manageReplicas does (§9).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Manage {
    Nothing { why: Idle },
    Create(CreatePlan),
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
/// It serializes (JSON and back, `structuredClone` in JS) and [`complete`] needs nothing
/// besides it and the host's results: what the later steps need is in [`PlanBasis`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncPlan {
    /// `namespace/name` of the owner: its expectations key.
    pub key: String,
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

/// What [`complete`] (and [`SyncPlan::manage_after`], [`SyncPlan::adoption_allowed`])
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
    pub count: usize,
    pub fully_labeled: i64,
    pub ready: i64,
    pub available: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub available_at: Option<Time>,
}

/// [`PodTally`]'s facts for one pod the plan adopts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AdoptionFacts {
    /// Index into the sync input's `pods`.
    pub pod_index: usize,
    pub fully_labeled: bool,
    pub ready: bool,
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
    pub candidates: Pods,
    pub candidate_indices: Vec<usize>,
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::KubeObject>"))]
    pub related: Pods,
}

impl PodTally {
    fn add(&mut self, f: &AdoptionFacts) {
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
/// or the [`crate::replicaset::store::Store`]).
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
fn victims<P: PodSource>(
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
trait PodSource {
    fn digested_at(&self, index: usize) -> Option<Digested<'_>>;
}

impl PodSource for SyncView<'_> {
    fn digested_at(&self, index: usize) -> Option<Digested<'_>> {
        self.digested(index)
    }
}

/// A reserve's candidates by their sync-input index.
struct ReserveSource<'r>(&'r Reserve);

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
/// selector does not compile.
pub fn claimed_pods<'a>(input: &'a SyncInput, config: &Config) -> Vec<&'a Pod> {
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

impl PlanBasis {
    /// §9: manageReplicas when `claimed` active pods are claimed; `rank(n)` gives the
    /// `n` victims of a scale-down.
    fn manage(&self, claimed: usize, rank: impl FnOnce(usize) -> Vec<Victim>) -> Manage {
        let owner = &self.owner;
        if !self.needs_sync {
            return Manage::Nothing {
                why: Idle::ExpectationsPending,
            };
        }
        if owner.metadata.deletion_timestamp.is_some() {
            return Manage::Nothing {
                why: Idle::OwnerTerminating,
            };
        }
        let burst = self.config.burst_replicas;
        let diff = claimed as i64 - i64::from(owner.spec.desired());
        if diff < 0 {
            // R-50, R-51, R-52
            let count = usize::try_from(-diff).unwrap_or(usize::MAX).min(burst);
            return Manage::Create(CreatePlan {
                count,
                batches: slowstart::batch_sizes(count, SLOW_START_INITIAL_BATCH_SIZE),
                pod: template::pod_from_template(owner, &self.config.owner_kind),
                expectations: ExpectationsChange::ExpectCreations {
                    count: count as i64,
                },
                refused: (!template::has_labels(owner))
                    .then(|| "unable to create pods, no labels".to_owned()),
            });
        }
        if diff > 0 {
            // R-55..R-58
            let n = usize::try_from(diff).unwrap_or(usize::MAX).min(burst);
            let victims = rank(n);
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

    /// The tally of the claimed pods when the adoptions marked `true` went through.
    fn tally_with(&self, adopted: &[bool]) -> PodTally {
        let mut t = self.claimed.clone();
        for (f, _) in self.adoptions.iter().zip(adopted).filter(|(_, ok)| **ok) {
            t.add(f);
        }
        t
    }

    /// The manage step when only some adoptions went through: over the reserve's pods
    /// (a scale-down), or from the counts alone.
    fn manage_with(&self, adopted: &[bool], now: Time) -> Manage {
        let failed: Vec<usize> = self
            .adoptions
            .iter()
            .zip(adopted)
            .filter(|(_, ok)| !**ok)
            .map(|(f, _)| f.pod_index)
            .collect();
        let count = self.tally_with(adopted).count;
        self.manage(count, |n| {
            let Some(reserve) = &self.reserve else {
                return Vec::new();
            };
            let claimed: Vec<usize> = reserve
                .candidate_indices
                .iter()
                .copied()
                .filter(|i| !failed.contains(i))
                .collect();
            let related: Vec<Digested> = reserve.related.digested().collect();
            victims(
                &now,
                &self.config,
                &claimed,
                &ReserveSource(reserve),
                &related,
                n,
            )
        })
    }
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
    fn after_claims(&self, claims: &ClaimOutcome) -> Result<AfterClaims> {
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
enum AfterClaims {
    /// R-33: the claim errors; the sync returns them before managing.
    Failed(Vec<String>),
    Proceed {
        tally: PodTally,
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
        let failed: Vec<bool> = results_so_far.iter().map(create_failed).collect();
        crate::replicaset::slowstart::next_batch(&self.batches, &failed)
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "KubeEvent"))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    #[cfg_attr(feature = "ts", ts(optional))]
    pub status: Option<ReplicaSetStatus>,
    /// The error the sync returns (a claim or manage error), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
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
pub fn complete(plan: &SyncPlan, outcome: &SyncOutcome) -> Result<Completion> {
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
    if plan.halt.is_some() {
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
    }
    // S-7, R-33
    let (tally, manage) = match plan.after_claims(&outcome.claims)? {
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
        AfterClaims::Proceed { tally, manage } => (tally, manage),
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

    // S-10: status over the claimed pods, from the plan's tally of them.
    let basis = &plan.basis;
    let owner_rs = &basis.owner;
    let new_status = status::finish(
        owner_rs,
        tally.count,
        status::Counts {
            fully: tally.fully_labeled,
            ready: tally.ready,
            available: tally.available,
        },
        basis.terminating,
        StatusContext {
            gates: &basis.config.feature_gates,
            owner_kind: &basis.config.owner_kind,
            manage_error: manage_error.as_deref(),
            now: plan.now,
            wall_clock: plan.now,
        },
    );
    // S-11, R-85, R-86
    if status::needs_write(owner_rs, &new_status) {
        done.status = Some(status::to_write(owner_rs, new_status.clone()));
    }
    // S-13, S-14
    done.requeue = match &manage_error {
        Some(e) => Requeue::RateLimited { error: e.clone() },
        None => match availability::requeue_after_next_check(
            &new_status,
            tally.available_at.map(|t| t.since(plan.now)),
            owner_rs.spec.min_ready_seconds,
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
    /// R-54, R-59 for a manage step the host stops partway (e.g. it lost leadership):
    /// what to take off the expectations recorded before the first call, given the
    /// results of the calls made (in call order). A create step lowers the creations by
    /// those not attempted and those that failed (a NamespaceTerminating rejection counts
    /// as made, R-53; any other error, a timeout included, is lowered as upstream lowers
    /// it); a delete step observes every victim whose delete did not succeed.
    pub fn abandoned(&self, results: &[CallResult]) -> Vec<ExpectationsChange> {
        match self {
            Manage::Nothing { .. } => Vec::new(),
            Manage::Create(c) => {
                let made = if c.refused.is_some() {
                    0
                } else {
                    results.iter().filter(|r| !create_failed(r)).count()
                };
                let lower = c.count.saturating_sub(made);
                if lower == 0 {
                    Vec::new()
                } else {
                    vec![ExpectationsChange::LowerCreations {
                        count: lower as i64,
                    }]
                }
            }
            Manage::Delete(d) => d
                .victims
                .iter()
                .enumerate()
                .filter(|(i, _)| !matches!(results.get(*i), Some(CallResult::Ok { .. })))
                .map(|(_, v)| ExpectationsChange::DeletionObserved {
                    key: format!("{}/{}", v.namespace, v.name),
                })
                .collect(),
        }
    }

    /// Expectations to record before acting (R-51, R-58).
    pub fn expectations(&self) -> Option<&ExpectationsChange> {
        match self {
            Manage::Nothing { .. } => None,
            Manage::Create(c) => Some(&c.expectations),
            Manage::Delete(d) => Some(&d.expectations),
        }
    }
}
