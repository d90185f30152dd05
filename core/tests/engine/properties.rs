//! Property tests of the engine's invariants (proptest, at least 256 cases each;
//! `PROPTEST_CASES` may ask for more):
//!
//! 1. burst bound;
//! 2. idle when expectations are pending or the owner is terminating, and `complete`
//!    refuses calls that were not planned;
//! 3. input-order independence of the plan;
//! 4. no panics on arbitrary JSON; a simulated host runs every valid input to completion;
//! 5. ranking; 6. expectations; 7. slow start.
//!
//! Minimal counterexamples of the engine bugs the properties found (since fixed) are at
//! the end, as regression tests.

use crate::prop_support;

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use serde_json::{json, Value};

use prop_support::*;
use replicore::claim::ClaimKind;
use replicore::model::{Pod, ReplicaSet};
use replicore::replicaset::slowstart;
use replicore::replicaset::{create_event, delete_event, rank};
use replicore::{
    complete, input, plan, pods, CallResult, Completion, Config, Expectations, ExpectationsRecord,
    FeatureGates, Idle, LiveOwner, Manage, RankRule, SyncInput, SyncOutcome, SyncPlan, Time,
    EXPECTATIONS_TTL,
};

/// The create/delete calls a manage step issues at most.
fn manage_size(m: &Manage) -> (usize, usize, usize) {
    match m {
        Manage::Nothing { .. } => (0, 0, 0),
        Manage::Create(c) => (c.count, c.batches.iter().sum(), 0),
        Manage::Delete(d) => (0, 0, d.victims.len()),
    }
}

/// The outcome a host reports when every call succeeds.
fn all_ok_outcome(p: &SyncPlan, input: &SyncInput) -> SyncOutcome {
    let mut out = SyncOutcome::default();
    if p.needs_owner_recheck {
        out.claims.live_owner = Some(LiveOwner::Found(Box::new(input.owner.clone())));
    }
    out.claims.results = p.claims.iter().map(|_| CallResult::ok()).collect();
    match p.manage_after(&out.claims).expect("well-shaped claims") {
        Manage::Nothing { .. } => {}
        Manage::Create(c) => {
            let mut k = 0;
            while let Some(n) = c.next_batch(&out.creates) {
                for _ in 0..n {
                    k += 1;
                    out.creates.push(CallResult::created(format!("web-{k:05}")));
                }
            }
        }
        Manage::Delete(d) => out.deletes = d.victims.iter().map(|_| CallResult::ok()).collect(),
    }
    out
}

fn permuted(input: &SyncInput, perm: &[usize]) -> SyncInput {
    SyncInput {
        pods: perm.iter().map(|&i| input.pods[i].clone()).collect(),
        ..input.clone()
    }
}

/// The decisions of a plan as JSON. Its basis (facts of the input for the later steps,
/// listed as the input lists them) is left out: the completions compare its effect.
fn plan_json(p: &SyncPlan, pods: &[Pod]) -> Value {
    let mut v = serde_json::to_value(p).expect("a plan serializes");
    if let Some(o) = v.as_object_mut() {
        o.remove("basis");
    }
    normalise_pod_indices(&mut v, pods);
    v
}

fn completion_json(c: &Completion, pods: &[Pod]) -> Value {
    let mut v = serde_json::to_value(c).expect("a completion serializes");
    normalise_pod_indices(&mut v, pods);
    v
}

fn is_ok_or_ns_terminating(r: &CallResult) -> bool {
    match r {
        CallResult::Ok { .. } => true,
        CallResult::Error(e) => e.is_namespace_terminating(),
        CallResult::Skipped => false,
    }
}

/// Runs every entry point on an input that parsed, for the no-panic property.
fn smoke(input: &SyncInput, seed: u64) {
    for config in [Config::default(), Config::for_version(21)] {
        let Ok(p) = plan(input, &config) else {
            continue;
        };
        let _ = serde_json::to_value(&p);
        let mut rng = HostRng::new(seed);
        let host = run_host(&p, input, &mut rng, HostProfile { failure_pct: 30 });
        let _ = complete(&p, &host.outcome);
        let _ = complete(&p, &SyncOutcome::default());
    }
}

fn pod_key(p: &Pod) -> (String, String) {
    (p.namespace().to_owned(), p.name().to_owned())
}

fn gates(log: bool, cost: bool) -> FeatureGates {
    FeatureGates {
        pod_deletion_cost: cost,
        logarithmic_scale_down: log,
        ..FeatureGates::default()
    }
}

/// Candidates (unique namespace/name), extra related pods (named `r*`), which candidates
/// count as related, and the gates (LogarithmicScaleDown, PodDeletionCost).
fn rank_case() -> impl Strategy<Value = (Vec<Pod>, Vec<Pod>, Vec<bool>, FeatureGates)> {
    (
        prop_oneof![2 => pods(16), 1 => tie_heavy_pods(12)],
        pods(8),
        prop::collection::vec(prop::bool::weighted(0.7), 16),
        prop_oneof![3 => Just(true), 1 => Just(false)],
        prop_oneof![3 => Just(true), 1 => Just(false)],
    )
        .prop_map(|(cands, mut extra, mask, log, cost)| {
            for p in &mut extra {
                p.metadata.name = format!("r{}", p.metadata.name);
            }
            (cands, extra, mask, gates(log, cost))
        })
}

fn related<'a>(cands: &'a [Pod], extra: &'a [Pod], mask: &[bool]) -> Vec<&'a Pod> {
    cands
        .iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(p, _)| p)
        .chain(extra.iter())
        .collect()
}

proptest! {
    #![proptest_config(cfg(256))]

    /// 1. The plan never creates or deletes more than `burst_replicas` pods, and neither
    /// does the manage step that runs after the claims.
    #[test]
    fn p1_plan_respects_burst((input, config) in scenario(), seed in any::<u64>()) {
        let p = plan(&input, &config).expect("a valid input plans");
        let burst = config.burst_replicas;
        let (count, batch_sum, victims) = manage_size(&p.manage);
        prop_assert!(count <= burst, "create count {count} > burst {burst}");
        prop_assert_eq!(count, batch_sum, "batches must add up to the count");
        prop_assert!(victims <= burst, "{victims} victims > burst {burst}");
        if let Manage::Create(c) = &p.manage {
            prop_assert!(c.count > 0 && c.batches.iter().all(|b| *b > 0));
        }
        let host = run_host(&p, &input, &mut HostRng::new(seed), HostProfile { failure_pct: 25 });
        let (count, batch_sum, victims) = manage_size(&host.manage);
        prop_assert!(count <= burst && batch_sum <= burst && victims <= burst);
        prop_assert!(host.outcome.creates.len() <= burst);
        prop_assert!(host.outcome.deletes.len() <= burst);
    }

    /// 2. Nothing is created or deleted while expectations are pending (and not expired)
    /// or the owner is being deleted; expired expectations do not hold the sync back.
    #[test]
    fn p2_idle_when_pending_or_terminating(
        (mut input, config) in scenario(),
        mode in 0u8..4,
        pending in pending_expectations(),
        expired in expired_expectations(),
        seed in any::<u64>(),
    ) {
        match mode {
            0 => input.expectations = pending,
            1 => input.owner.metadata.deletion_timestamp = Some(now()),
            2 => {
                input.expectations = pending;
                input.owner.metadata.deletion_timestamp = Some(now());
            }
            _ => input.expectations = expired,
        }
        let p = plan(&input, &config).expect("a valid input plans");
        let pending_now = !input.expectations.satisfied(input.now);
        let deleting = input.owner.metadata.deletion_timestamp.is_some();
        match mode {
            0 | 2 => prop_assert!(pending_now, "a pending record must be unsatisfied"),
            3 => prop_assert!(!pending_now, "an expired record must be satisfied"),
            _ => {}
        }
        let want = if p.halt.is_some() {
            Some(Idle::Halted)
        } else if pending_now {
            Some(Idle::ExpectationsPending)
        } else if deleting {
            Some(Idle::OwnerTerminating)
        } else {
            None
        };
        match want {
            Some(why) => {
                prop_assert_eq!(&p.manage, &Manage::Nothing { why });
                if deleting {
                    // E-09: no adoption and no release while the owner is being deleted.
                    prop_assert!(p.claims.is_empty(), "claims while terminating: {:?}", p.claims);
                }
                let host = run_host(&p, &input, &mut HostRng::new(seed), HostProfile { failure_pct: 20 });
                prop_assert!(host.outcome.creates.is_empty() && host.outcome.deletes.is_empty());
                let done = complete(&p, &host.outcome).expect("complete");
                prop_assert!(matches!(done.manage, Manage::Nothing { .. }), "{:?}", done.manage);
                prop_assert_eq!((done.created, done.deleted, done.create_calls), (0, 0, 0));
            }
            None => prop_assert!(
                !matches!(p.manage, Manage::Nothing { why: Idle::ExpectationsPending | Idle::OwnerTerminating }),
                "expired expectations must not hold the sync: {:?}", p.manage
            ),
        }
    }

    /// 2b. `complete` refuses results of calls the manage step that ran does not make:
    /// creates or deletes when it is idle (whatever the reason, a failed claim included),
    /// deletes when it creates, creates when it deletes.
    #[test]
    fn p2b_complete_refuses_unplanned_calls(
        (input, config) in scenario(),
        seed in any::<u64>(),
        failure_pct in 0u64..60,
        add_delete in any::<bool>(),
    ) {
        let p = plan(&input, &config).expect("a valid input plans");
        prop_assume!(p.halt.is_none());
        let host = run_host(&p, &input, &mut HostRng::new(seed), HostProfile { failure_pct });
        let mut extra = host.outcome.clone();
        let add_delete = match &host.manage {
            Manage::Nothing { .. } => add_delete,
            Manage::Create(_) => true,
            Manage::Delete(_) => false,
        };
        if add_delete {
            extra.deletes.push(CallResult::ok());
        } else {
            extra.creates.push(CallResult::created("web-unplanned"));
        }
        let done = complete(&p, &extra);
        prop_assert!(done.is_err(),
            "manage {:?}: an unplanned {} was accepted: {:?}",
            host.manage, if add_delete { "delete" } else { "create" }, done);
    }

    /// 3. The plan (and the completion of an all-success outcome) is the same for any
    /// order of the input pods, `podIndex` mapped back to the pod.
    #[test]
    fn p3_plan_independent_of_pod_order(
        ((input, config), perm) in scenario().prop_flat_map(|(input, config)| {
            let n = input.pods.len();
            (Just((input, config)), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
    ) {
        let shuffled = permuted(&input, &perm);
        let a = plan(&input, &config).expect("plans");
        let b = plan(&shuffled, &config).expect("plans");
        let (ja, jb) = (plan_json(&a, &input.pods), plan_json(&b, &shuffled.pods));
        prop_assert!(ja == jb, "plans differ: {:#?}", json_diff(&ja, &jb));
        let da = complete(&a, &all_ok_outcome(&a, &input)).expect("completes");
        let db = complete(&b, &all_ok_outcome(&b, &shuffled)).expect("completes");
        let (ja, jb) = (completion_json(&da, &input.pods), completion_json(&db, &shuffled.pods));
        prop_assert!(ja == jb, "completions differ: {:#?}", json_diff(&ja, &jb));
    }

    /// 3b. As 3, with every pod's UID unique (as in a real cluster), so that order
    /// dependence other than the duplicate-UID one of 3 is not masked.
    #[test]
    fn p3b_plan_independent_of_pod_order_unique_uids(
        ((input, config), perm) in scenario().prop_flat_map(|(mut input, config)| {
            input.pods.update_each(|p| {
                p.metadata.uid = format!("uid-{}-{}", p.namespace(), p.name());
            });
            let n = input.pods.len();
            (Just((input, config)), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
    ) {
        let shuffled = permuted(&input, &perm);
        let a = plan(&input, &config).expect("plans");
        let b = plan(&shuffled, &config).expect("plans");
        let (ja, jb) = (plan_json(&a, &input.pods), plan_json(&b, &shuffled.pods));
        prop_assert!(ja == jb, "plans differ: {:#?}", json_diff(&ja, &jb));
        let da = complete(&a, &all_ok_outcome(&a, &input)).expect("completes");
        let db = complete(&b, &all_ok_outcome(&b, &shuffled)).expect("completes");
        let (ja, jb) = (completion_json(&da, &input.pods), completion_json(&db, &shuffled.pods));
        prop_assert!(ja == jb, "completions differ: {:#?}", json_diff(&ja, &jb));
    }

    /// 3c. A plan from the store (pods upserted one by one; equal pods share one buffer
    /// of strings, whose verdicts the plan reuses) equals the plan from the same objects
    /// sent whole. The store plans over the owner's namespace: the input is cut to it.
    #[test]
    fn p3c_plan_from_the_store_equals_the_plan_from_the_input((input, config) in scenario()) {
        let ns = input.owner.metadata.namespace.clone();
        let others: Vec<ReplicaSet> = input
            .other_owners
            .iter()
            .filter(|o| o.metadata.namespace == ns && o.metadata.name != input.owner.metadata.name)
            .cloned()
            .collect();
        let pods: Vec<Pod> = input.pods.iter().filter(|p| p.namespace() == ns).cloned().collect();
        let mut store = replicore::Store::new(config.clone()).expect("a valid config");
        store.upsert_owner(input.owner.clone()).expect("a valid owner");
        for o in &others {
            store.upsert_owner(o.clone()).expect("a valid owner");
        }
        for p in &pods {
            store.upsert_pod(p.clone()).expect("a valid pod");
        }
        let whole = SyncInput {
            other_owners: others,
            pods: pods.clone().into(),
            ..input.clone()
        };
        let context = replicore::SyncContext {
            now: input.now,
            expectations: input.expectations.clone(),
            cache_is_fresh: input.cache_is_fresh,
        };
        let snapshot = store
            .snapshot(&ns, &input.owner.metadata.name, context)
            .expect("the owner is stored");
        let stored: Vec<Pod> = snapshot.pods().iter().map(|p| (**p).clone()).collect();
        let a = plan(&whole, &config).expect("plans");
        let b = snapshot.plan(&config).expect("plans");
        let (ja, jb) = (plan_json(&a, &pods), plan_json(&b, &stored));
        prop_assert!(ja == jb, "plans differ: {:#?}", json_diff(&ja, &jb));
    }

    /// 4a. Arbitrary JSON never makes parsing (or the engine, when it parses) panic.
    #[test]
    fn p4a_arbitrary_json_never_panics(v in arb_json(), raw in raw_token(), seed in any::<u64>()) {
        let text = to_text(&v, raw);
        if let Ok(input) = SyncInput::from_json(text.as_bytes()) {
            smoke(&input, seed);
        }
        let _ = input::from_json::<Pod>(text.as_bytes());
        let _ = input::from_value::<Pod>(v.clone());
        let _ = input::from_value::<ReplicaSet>(v.clone());
        let _ = input::from_value::<Config>(v.clone());
        if let Ok(input) = input::from_value::<SyncInput>(v) {
            smoke(&input, seed);
        }
    }

    /// 4a. "Almost valid" inputs: valid ones with fields replaced by wrong types, huge
    /// numbers, odd timestamps, unicode, or removed; and truncated or corrupted text.
    #[test]
    fn p4a_almost_valid_json_never_panics(
        (input, _config) in scenario(),
        muts in prop::collection::vec(mutation(), 1..4),
        raw in raw_token(),
        cut in any::<prop::sample::Index>(),
        flip in any::<(prop::sample::Index, u8)>(),
        seed in any::<u64>(),
    ) {
        let valid = serde_json::to_value(&input).expect("serializes");
        let v = mutate(valid, &muts);
        let text = to_text(&v, raw);
        if let Ok(parsed) = SyncInput::from_json(text.as_bytes()) {
            smoke(&parsed, seed);
        }
        if let Some(pods) = v.get("pods").and_then(Value::as_array) {
            for p in pods {
                let _ = input::from_value::<Pod>(p.clone());
                let _ = input::from_json::<Pod>(to_text(p, raw).as_bytes());
            }
        }
        if let Some(owner) = v.get("owner") {
            let _ = input::from_value::<ReplicaSet>(owner.clone());
        }
        if let Ok(parsed) = input::from_value::<SyncInput>(v) {
            smoke(&parsed, seed);
        }
        // Truncated and byte-corrupted text.
        let bytes = text.into_bytes();
        let _ = SyncInput::from_json(&bytes[..cut.index(bytes.len() + 1)]);
        let mut corrupt = bytes;
        if !corrupt.is_empty() {
            let i = flip.0.index(corrupt.len());
            corrupt[i] = flip.1;
            if let Ok(parsed) = SyncInput::from_json(&corrupt) {
                smoke(&parsed, seed);
            }
        }
    }

    /// 4a'. Valid inputs survive a JSON round trip unchanged.
    #[test]
    fn p4a_valid_inputs_round_trip((input, _config) in scenario()) {
        let text = serde_json::to_vec(&input).expect("serializes");
        let back = SyncInput::from_json(&text).expect("a serialized valid input parses");
        prop_assert_eq!(back, input);
    }

    /// 4b. Every valid input runs through plan → simulated host → complete without a
    /// panic; a well-shaped outcome is always accepted and its accounting adds up; a
    /// misshapen one may be refused but never panics.
    #[test]
    fn p4b_simulated_host_completes(
        (input, config) in scenario(),
        seed in any::<u64>(),
        failure_pct in prop_oneof![2 => Just(0u64), 4 => 1u64..60, 1 => Just(100u64)],
        broken in prop::option::weighted(0.2, any::<u8>()),
    ) {
        let p = plan(&input, &config).expect("a valid input plans");
        // Indices designate the pods they name.
        for c in &p.claims {
            let pod = &input.pods[c.pod_index];
            prop_assert_eq!((pod.namespace(), pod.name(), pod.uid()), (c.namespace.as_str(), c.name.as_str(), c.uid.as_str()));
        }
        if let Manage::Delete(d) = &p.manage {
            for v in &d.victims {
                let pod = &input.pods[v.pod_index];
                prop_assert_eq!((pod.namespace(), pod.name(), pod.uid()), (v.namespace.as_str(), v.name.as_str(), v.uid.as_str()));
            }
        }
        let host = run_host(&p, &input, &mut HostRng::new(seed), HostProfile { failure_pct });
        if let Some(how) = broken {
            let mut out = host.outcome.clone();
            break_shape(&mut out, how);
            let _ = complete(&p, &out);
            return Ok(());
        }
        let done = complete(&p, &host.outcome);
        prop_assert!(done.is_ok(), "a well-shaped outcome was refused: {:?}\noutcome: {:?}", done, host.outcome);
        let done = done.unwrap();
        prop_assert_eq!(&done.manage, &host.manage, "complete and manage_after disagree");
        // The plan is a value: through JSON and back, it completes identically.
        let text = serde_json::to_string(&p).expect("a plan serializes");
        let back: SyncPlan = serde_json::from_str(&text).expect("a serialized plan parses");
        prop_assert_eq!(&back, &p);
        prop_assert_eq!(complete(&back, &host.outcome).expect("the same outcome fits"), done.clone());
        prop_assert_eq!(back.manage_after(&host.outcome.claims).expect("fits"), host.manage.clone());
        let _ = done.requeue_after_status_write(Ok(()));
        let out = &host.outcome;
        let mut e = input.expectations.clone();
        if let Some(change) = host.manage.expectations() {
            e = change.apply(e, input.now);
        }
        let e = apply_changes(e, &done.expectations, input.now);
        match &host.manage {
            Manage::Nothing { .. } => {
                prop_assert_eq!((done.created, done.deleted, done.create_calls), (0, 0, 0));
                prop_assert!(done.expectations.is_empty());
                prop_assert_eq!(&e, &input.expectations);
            }
            Manage::Create(c) => {
                let oks = out.creates.iter().filter(|r| matches!(r, CallResult::Ok { .. })).count();
                let successes = out.creates.iter().filter(|r| is_ok_or_ns_terminating(r)).count();
                prop_assert_eq!(done.created, oks);
                prop_assert!(done.created <= c.count && c.count <= config.burst_replicas);
                if c.refused.is_some() {
                    prop_assert!(out.creates.is_empty());
                    prop_assert_eq!(done.create_calls, 0);
                    prop_assert!(done.error.is_some());
                } else {
                    prop_assert_eq!(done.create_calls, out.creates.len());
                    prop_assert_eq!(done.create_batches.iter().sum::<usize>(), done.create_calls);
                    prop_assert!(c.batches.starts_with(&done.create_batches));
                    prop_assert_eq!(done.error.is_some(), successes < out.creates.len());
                }
                // what stays expected is exactly what was (or counts as) created.
                let r = e.record().expect("a record after ExpectCreations");
                prop_assert_eq!(r.add, if c.refused.is_some() { 0 } else { successes as i64 });
                prop_assert_eq!(r.del, 0);
            }
            Manage::Delete(d) => {
                let oks: BTreeSet<String> = d.victims.iter().zip(&out.deletes)
                    .filter(|(_, r)| matches!(r, CallResult::Ok { .. }))
                    .map(|(v, _)| format!("{}/{}", v.namespace, v.name))
                    .collect();
                prop_assert_eq!(done.deleted, oks.len());
                prop_assert!(d.victims.len() <= config.burst_replicas);
                // what stays expected is exactly the deletions that went through.
                let r = e.record().expect("a record after ExpectDeletions");
                prop_assert_eq!(r.del, oks.len() as i64);
                prop_assert_eq!(&r.deletion_keys, &oks);
                let hard_failure = out.deletes.iter().any(|r| matches!(r, CallResult::Error(e) if !e.is_not_found()));
                prop_assert_eq!(done.error.is_some(), hard_failure);
            }
        }
        // the completion's events are the calls' own events, in call order.
        let each: Vec<_> = match &host.manage {
            Manage::Nothing { .. } => Vec::new(),
            Manage::Create(_) => out.creates.iter().filter_map(create_event).collect(),
            Manage::Delete(d) => d.victims.iter().zip(&out.deletes).filter_map(|(v, r)| delete_event(&v.name, r)).collect(),
        };
        prop_assert_eq!(&done.events, &each);
        if done.error.is_some() {
            prop_assert!(matches!(done.requeue, replicore::Requeue::RateLimited { .. }), "an error must requeue rate-limited: {:?}", done.requeue);
        }
        if host.adoption_allowed == Some(false) && p.claims.iter().any(|c| c.kind == ClaimKind::Adopt) {
            prop_assert_eq!(&done.manage, &Manage::Nothing { why: Idle::ClaimFailed });
        }
    }

    /// 5a. `rank` returns a permutation of the candidates, in the same order (by name)
    /// whatever the order of the candidates and of the related pods.
    #[test]
    fn p5_rank_is_a_deterministic_permutation(
        ((cands, extra, mask, gates), perm, rperm) in rank_case().prop_flat_map(|case| {
            let n = case.0.len();
            let m = n + case.1.len();
            (
                Just(case),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                Just((0..m).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
    ) {
        let c: Vec<&Pod> = cands.iter().collect();
        let rel = related(&cands, &extra, &mask);
        let ranked = rank::rank(&c, &rel, now(), &gates);
        let mut idx: Vec<usize> = ranked.iter().map(|r| r.index).collect();
        idx.sort_unstable();
        prop_assert_eq!(idx, (0..cands.len()).collect::<Vec<_>>());
        prop_assert!(ranked.last().is_none_or(|r| r.rule.is_none()));
        prop_assert!(ranked.iter().rev().skip(1).all(|r| r.rule.is_some()));

        let c2: Vec<&Pod> = perm.iter().map(|&i| &cands[i]).collect();
        let rel2: Vec<&Pod> = rperm.iter().filter_map(|&i| rel.get(i).copied()).collect();
        let ranked2 = rank::rank(&c2, &rel2, now(), &gates);
        let names = |r: &[replicore::RankedPod], c: &[&Pod]| -> Vec<(String, String)> {
            r.iter().map(|x| pod_key(c[x.index])).collect()
        };
        prop_assert_eq!(names(&ranked, &c), names(&ranked2, &c2));
        let rules = |r: &[replicore::RankedPod]| r.iter().map(|x| x.rule).collect::<Vec<_>>();
        prop_assert_eq!(rules(&ranked), rules(&ranked2));

        // the `n` to delete are the first `n` of the ranking, with the same rules,
        // for every `n` (the engine orders only the blocks those positions reach).
        for n in 0..=c.len() {
            let chosen = rank::pods_to_delete(&c, &rel, n, now(), &gates);
            prop_assert_eq!(&chosen[..], &ranked[..n], "n = {}", n);
        }
    }

    /// 5b. Where upstream strictly prefers `a` to `b` and they differ in rules 1–5, the
    /// engine deletes `a` first; more generally, every strict upstream preference between
    /// pods of different rank groups (strongly connected components of the comparison
    /// graph, ties counting both ways) is respected.
    #[test]
    fn p5_rank_agrees_with_upstream((cands, extra, mask, gates) in rank_case()) {
        let c: Vec<&Pod> = cands.iter().collect();
        let rel = related(&cands, &extra, &mask);
        let ranked = rank::rank(&c, &rel, now(), &gates);
        let n = c.len();
        let mut pos = vec![0usize; n];
        for (i, r) in ranked.iter().enumerate() {
            pos[r.index] = i;
        }
        let counts = rank::colocation_counts(rel.iter().copied());
        let co = |p: &Pod| counts.get(p.node_name()).copied().unwrap_or(0);
        let less = |a: usize, b: usize| {
            rank::upstream_less((c[a], co(c[a])), (c[b], co(c[b])), now(), &gates)
        };
        let cost = |p: &Pod| if gates.pod_deletion_cost { pods::deletion_cost(p) } else { 0 };
        let differ_1_5 = |a: &Pod, b: &Pod| {
            a.node_name().is_empty() != b.node_name().is_empty()
                || pods::phase_ordinal(a) != pods::phase_ordinal(b)
                || pods::is_ready(a) != pods::is_ready(b)
                || cost(a) != cost(b)
                || co(a) != co(b)
        };
        let mut lt = vec![vec![false; n]; n];
        for (a, row) in lt.iter_mut().enumerate() {
            for (b, cell) in row.iter_mut().enumerate() {
                *cell = a != b && less(a, b);
            }
        }
        for a in 0..n {
            for b in 0..n {
                if lt[a][b] && !lt[b][a] && differ_1_5(c[a], c[b]) {
                    prop_assert!(pos[a] < pos[b],
                        "upstream puts {} before {} by rules 1-5, engine after", c[a].name(), c[b].name());
                }
            }
        }
        // Reachability where a tie counts both ways.
        let mut reach: Vec<Vec<bool>> = (0..n)
            .map(|a| (0..n).map(|b| a == b || lt[a][b] || !lt[b][a]).collect())
            .collect();
        for k in 0..n {
            let via = reach[k].clone();
            for row in reach.iter_mut().filter(|row| row[k]) {
                for (cell, v) in row.iter_mut().zip(&via) {
                    *cell |= *v;
                }
            }
        }
        for a in 0..n {
            for b in 0..n {
                if lt[a][b] && !reach[b][a] {
                    prop_assert!(pos[a] < pos[b],
                        "upstream strictly puts {}/{} before {}/{} (different rank groups); engine after",
                        c[a].namespace(), c[a].name(), c[b].namespace(), c[b].name());
                }
            }
        }
        // Facts describe the pod they are about.
        for r in &ranked {
            let p = c[r.index];
            prop_assert_eq!(r.facts.colocated, co(p));
            prop_assert_eq!(r.facts.ready, pods::is_ready(p));
            prop_assert_eq!(r.facts.deletion_cost, cost(p));
        }
        // A rule from 1-5 between neighbours means upstream agrees.
        for w in ranked.windows(2) {
            if matches!(w[0].rule, Some(RankRule::Unassigned | RankRule::Phase | RankRule::Readiness | RankRule::DeletionCost | RankRule::CoLocation)) {
                prop_assert!(less(w[0].index, w[1].index));
            }
        }
    }

    /// 6a. `expect_creations(n)` then n `creation_observed()` is satisfied; fewer are not
    /// (within the TTL).
    #[test]
    fn p6_creations_observed(
        n in 0i64..60,
        prior in prop_oneof![Just(Expectations(None)), pending_expectations(), satisfied_expectations()],
        age in 0i64..=300,
        later in 0i64..100_000,
    ) {
        let t = now();
        let at = Time::from_unix_seconds(1_795_236_012 + age);
        let mut e = prior.expect_creations(n, t);
        for k in 0..n {
            prop_assert!(!e.satisfied(at), "satisfied after {k} of {n} observations");
            e = e.creation_observed();
        }
        prop_assert!(e.satisfied(at));
        prop_assert!(e.satisfied(Time::from_unix_seconds(1_795_236_012 + later)));
        prop_assert_eq!(e.record().map(|r| r.timestamp), Some(t));
    }

    /// 6b. `expect_deletions(keys)` then each distinct key observed once is satisfied,
    /// whatever duplicates and unknown keys are observed too; one missing is not.
    #[test]
    fn p6_deletions_observed(
        keys in prop::collection::vec((0u8..2, 0u8..8).prop_map(|(ns, n)| format!("ns-{ns}/p{n}")), 0..12),
        noise in prop::collection::vec((0u8..3, 0u8..10).prop_map(|(ns, n)| format!("ns-{ns}/p{n}")), 0..8),
        order in any::<u64>(),
        prior in prop_oneof![Just(Expectations(None)), pending_expectations()],
        age in 0i64..=300,
    ) {
        let t = now();
        let at = Time::from_unix_seconds(1_795_236_012 + age);
        let distinct: BTreeSet<String> = keys.iter().cloned().collect();
        let mut e = prior.expect_deletions(keys.iter().cloned(), t);
        prop_assert_eq!(e.record().map(|r| r.del), Some(distinct.len() as i64));
        // Observe the distinct keys in a scrambled order, with duplicates and noise.
        let mut obs: Vec<String> = distinct.iter().cloned().collect();
        let mut rng = HostRng::new(order);
        for i in (1..obs.len()).rev() {
            obs.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut seen = BTreeSet::new();
        for (i, k) in obs.iter().enumerate() {
            prop_assert_eq!(e.satisfied(at), seen.len() == distinct.len());
            let before = e.clone();
            e = e.deletion_observed(k);
            if seen.contains(k) {
                prop_assert_eq!(&e, &before);
            }
            seen.insert(k.clone());
            // A repeated observation and unknown keys change nothing.
            let before = e.clone();
            e = e.deletion_observed(k);
            prop_assert_eq!(&e, &before);
            if let Some(x) = noise.get(i) {
                let before = e.clone();
                e = e.deletion_observed(x);
                if distinct.contains(x) {
                    seen.insert(x.clone());
                } else {
                    prop_assert_eq!(&e, &before);
                }
            }
        }
        prop_assert!(e.satisfied(at));
    }

    /// 6c. An unsatisfied record becomes satisfied exactly when now − timestamp > 300 s.
    #[test]
    fn p6_ttl_is_strict(
        (add, del) in prop_oneof![(1i64..50, -5i64..50), (-5i64..50, 1i64..50)],
        ts in -1_000_000_000_000i64..1_000_000_000_000,
        d in prop_oneof![
            Just(300 * 1_000_000_000i64),
            Just(300 * 1_000_000_000i64 + 1),
            Just(300 * 1_000_000_000i64 - 1),
            Just(0i64),
            -1_000_000_000_000i64..1_000_000_000_000,
        ],
    ) {
        let timestamp = Time::from_unix_nanos(1_795_236_012_000_000_000 + ts);
        let e = Expectations(Some(ExpectationsRecord { add, del, timestamp, deletion_keys: BTreeSet::new() }));
        let at = Time::from_unix_nanos(timestamp.unix_nanos() + d);
        prop_assert_eq!(e.satisfied(at), at.since(timestamp) > EXPECTATIONS_TTL);
        prop_assert_eq!(e.satisfied(at), d > 300 * 1_000_000_000);
    }

    /// 7. Slow start: calls = sum of batches; batches are 1, 2, 4, … truncated; the run
    /// stops right after the first batch with a failure; each call is asked once, in order.
    #[test]
    fn p7_slow_start(
        count in prop_oneof![0usize..20, 0usize..2000],
        failures in prop_oneof![
            Just(Vec::new()),
            prop::collection::vec(0usize..2100, 1..6),
            (0usize..2100).prop_map(|from| (from..from + 3000).collect::<Vec<_>>()),
        ],
    ) {
        let fails: BTreeSet<usize> = failures.into_iter().collect();
        let mut asked = Vec::new();
        let r = slowstart::run(count, slowstart::SLOW_START_INITIAL_BATCH_SIZE, |i| {
            asked.push(i);
            fails.contains(&i)
        });
        prop_assert_eq!(r.calls, r.batches.iter().sum::<usize>());
        prop_assert_eq!(&asked, &(0..r.calls).collect::<Vec<_>>());
        let mut issued = 0usize;
        for (k, b) in r.batches.iter().enumerate() {
            prop_assert_eq!(*b, (1usize << k).min(count - issued), "batch {}", k);
            issued += b;
        }
        let first = fails.iter().copied().find(|&i| i < count);
        prop_assert_eq!(r.first_failure, first);
        match first {
            None => prop_assert_eq!(r.calls, count),
            Some(f) => {
                // The last batch holds the first failure; no earlier batch has one.
                let last = *r.batches.last().expect("a batch was started");
                prop_assert!(r.calls - last <= f && f < r.calls);
            }
        }
        let failed_calls = fails.iter().filter(|&&i| i < r.calls).count();
        prop_assert_eq!(r.successes, r.calls - failed_calls);
        prop_assert_eq!(slowstart::batch_sizes(count, 1).starts_with(&r.batches), true);
    }
}

/// Guards the strategies themselves: they produce the situations the properties are about.
#[test]
fn strategies_cover_the_interesting_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = scenario();
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    for _ in 0..2000 {
        let (input, config) = strat.new_tree(&mut runner).expect("tree").current();
        let p = plan(&input, &config).expect("plans");
        let kind = match &p.manage {
            Manage::Create(_) => "create",
            Manage::Delete(d) if d.victims.len() > 1 => "delete-many",
            Manage::Delete(_) => "delete",
            Manage::Nothing { why } => match why {
                Idle::InSync => "in-sync",
                Idle::ExpectationsPending => "pending",
                Idle::OwnerTerminating => "terminating",
                Idle::ClaimFailed => "claim-failed",
                Idle::Halted => "halted",
            },
        };
        *seen.entry(kind).or_default() += 1;
        if p.claims.iter().any(|c| c.kind == ClaimKind::Adopt) {
            *seen.entry("adopt").or_default() += 1;
        }
        if p.claims.iter().any(|c| c.kind == ClaimKind::Release) {
            *seen.entry("release").or_default() += 1;
        }
    }
    for k in [
        "create",
        "delete",
        "delete-many",
        "in-sync",
        "pending",
        "terminating",
        "halted",
        "adopt",
        "release",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 10,
            "too few {k}: {seen:?}"
        );
    }
}

/// Guards the ranking strategy: every rule of R-72 decides some neighbours, and upstream's
/// intransitive groups occur.
#[test]
fn rank_strategy_covers_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = rank_case();
    let mut seen: HashMap<RankRule, usize> = HashMap::new();
    for _ in 0..3000 {
        let (cands, extra, mask, gates) = strat.new_tree(&mut runner).expect("tree").current();
        let c: Vec<&Pod> = cands.iter().collect();
        let rel = related(&cands, &extra, &mask);
        for r in rank::rank(&c, &rel, now(), &gates) {
            if let Some(rule) = r.rule {
                *seen.entry(rule).or_default() += 1;
            }
        }
    }
    eprintln!("rules deciding neighbours: {seen:?}");
    for rule in RankRule::ALL {
        assert!(
            seen.get(&rule).copied().unwrap_or(0) >= 5,
            "too few {rule:?}: {seen:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Minimal counterexamples of engine bugs found by the properties above.

fn bug_owner(replicas: i32, deployment: bool) -> ReplicaSet {
    serde_json::from_value(json!({
        "metadata": {
            "name": "web", "namespace": "ns-a", "uid": "rs-web-uid",
            "ownerReferences": if deployment {
                json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                        "uid": "dep-web-uid", "controller": true}])
            } else { json!([]) }
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}}
        }
    }))
    .expect("owner")
}

fn bug_pod(
    name: &str,
    uid: &str,
    owner: Option<(&str, &str)>,
    node: &str,
    created_ago: i64,
) -> Pod {
    let refs = match owner {
        Some((name, uid)) => json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                     "name": name, "uid": uid, "controller": true}]),
        None => json!([]),
    };
    let created = Time::from_unix_seconds(1_795_236_012 - created_ago);
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "ns-a", "uid": uid,
                     "labels": {"app": "web"}, "ownerReferences": refs,
                     "creationTimestamp": created},
        "spec": {"nodeName": node},
        "status": {"phase": "Running"}
    }))
    .expect("pod")
}

fn victims(p: &SyncPlan) -> Vec<String> {
    match &p.manage {
        Manage::Delete(d) => d.victims.iter().map(|v| v.name.clone()).collect(),
        other => panic!("expected a scale-down, got {other:?}"),
    }
}

/// Found by `p3_plan_independent_of_pod_order` (shrunk by hand to three pods): R-45's
/// related pods are de-duplicated by UID "first wins" in input order, so when two
/// distinct pods share a UID the co-location counts (rule 5), and with them the victim,
/// depend on the order of `pods`.
#[test]
fn regression_related_pods_uid_dedupe_is_independent_of_input_order() {
    let owner = bug_owner(1, true);
    // p0 and p2 are the owner's; p1 belongs to another ReplicaSet but shares p0's UID.
    let p0 = bug_pod("p0", "uid-dup", Some(("web", "rs-web-uid")), "node-1", 10);
    let p1 = bug_pod("p1", "uid-dup", Some(("api", "rs-api-uid")), "node-2", 10);
    let p2 = bug_pod(
        "p2",
        "uid-p2",
        Some(("web", "rs-web-uid")),
        "node-2",
        3 * 86400,
    );
    let input = |pods: Vec<Pod>| SyncInput {
        now: now(),
        owner: owner.clone(),
        other_owners: Vec::new(),
        pods: pods.into(),
        expectations: Expectations(None),
        cache_is_fresh: true,
    };
    let config = Config::default();
    let a = input(vec![p0.clone(), p1.clone(), p2.clone()]);
    let b = input(vec![p1, p0, p2]);
    let (pa, pb) = (plan(&a, &config).unwrap(), plan(&b, &config).unwrap());
    // Order a: related = {p0 (node-1), p2 (node-2)}: a tie on rule 5, the newer p0 goes.
    // Order b: related = {p1 (node-2), p2 (node-2)}: p2 has 2 co-located, p2 goes.
    assert_eq!(
        victims(&pa),
        victims(&pb),
        "the victim depends on the order of the pods"
    );
}

/// Found by `p2b_complete_refuses_unplanned_calls`: after a failed claim the sync
/// must not create or delete, yet `complete` accepts create and delete results for it
/// without complaint (while it refuses them for every other idle sync).
#[test]
fn regression_complete_refuses_calls_after_failed_claim() {
    // An orphan to adopt; nothing to create or delete once it is adopted.
    let input = SyncInput {
        now: now(),
        owner: bug_owner(1, false),
        other_owners: Vec::new(),
        pods: vec![bug_pod("p0", "uid-p0", None, "node-1", 10)].into(),
        expectations: Expectations(None),
        cache_is_fresh: true,
    };
    let config = Config::default();
    let p = plan(&input, &config).unwrap();
    assert_eq!(p.manage, Manage::Nothing { why: Idle::InSync });
    let mut outcome = SyncOutcome::default();
    outcome.claims.live_owner = Some(LiveOwner::Found(Box::new(input.owner.clone())));
    outcome.claims.results = vec![CallResult::error(
        "Conflict",
        "the object has been modified",
    )];
    assert_eq!(
        p.manage_after(&outcome.claims).unwrap(),
        Manage::Nothing {
            why: Idle::ClaimFailed
        }
    );
    // Control: with the adoption done, a create result is refused.
    let mut ok = outcome.clone();
    ok.claims.results = vec![CallResult::ok()];
    ok.creates = vec![CallResult::created("web-x")];
    assert!(complete(&p, &ok).is_err());
    // With the adoption failed, the same create result is silently accepted.
    outcome.creates = vec![CallResult::created("web-x")];
    assert!(
        complete(&p, &outcome).is_err(),
        "a create reported for a sync whose claim failed was accepted: {:?}",
        complete(&p, &outcome)
    );
}
