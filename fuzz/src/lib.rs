//! What the fuzz targets run and check. Each function takes what a target was given and
//! panics (which libFuzzer reports as a crash) only when the engine breaks one of its
//! invariants or panics itself; bad input the engine refuses with an error is fine.
//!
//! Invariants checked:
//! - plans and completions are deterministic (the same input twice gives the same JSON);
//! - every victim is one of the input pods, named and indexed as in the input, once;
//! - a create plan asks for at most the burst, in batches that add up to its count;
//! - status counts are at most the pods the engine was given, and ready ≤ replicas,
//!   available ≤ ready;
//! - a completion survives a JSON round trip (durations to an `f64`'s precision);
//! - a plan from the [`Store`] equals the plan from a [`SyncInput`] holding the same objects;
//! - the Deployment step machine is deterministic, survives a JSON round trip at every
//!   step (the restored machine names the same next step), makes a bounded number of
//!   calls, and reports as many calls as it named;
//! - the HorizontalPodAutoscaler's step machine (module [`hpa`]) never panics on any
//!   input or answer, refuses with a path, and resumes from its plain state.

pub mod hpa;

use std::collections::BTreeSet;

use arbitrary::Arbitrary;
use replicore::deployment::{ApiCall, ApiResult, DeploymentSync, DeploymentSyncInput, Step};
use replicore::explain::{explain_json, ExplainOptions};
use replicore::time::Time;
use replicore::ApiError;
use replicore::{complete, Completion, Manage, SyncPlan};
use replicore::{
    CallResult, ClaimOutcome, Config, LiveOwner, Pod, ReplicaSet, SyncInput, SyncOutcome,
};
use replicore::{Store, SyncContext};
use serde_json::{json, Value};

/// bytes → `SyncInput` → `plan` → `complete` with outcomes derived from the plan: all
/// calls succeed, or (chosen by the bytes) some fail. Returns how many completions were
/// checked.
pub fn sync_bytes(data: &[u8]) -> usize {
    let Ok(input) = SyncInput::from_json(data) else {
        return 0;
    };
    let config = Config::default();
    let Ok(plan) = replicore::plan(&input, &config) else {
        return 0;
    };
    let again = replicore::plan(&input, &config).expect("a plan made once is made again");
    assert_eq!(text(&plan), text(&again), "plans are deterministic");
    let pods: Vec<&Pod> = input.pods.iter().collect();
    check_plan(&plan, &pods, &config);
    let seed = data
        .iter()
        .fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(b.into()));
    let mut checked = 0;
    for pattern in [Pattern::AllSucceed, Pattern::SomeFail(seed)] {
        let outcome = outcome_for(&plan, pattern, &input.owner);
        let Ok(done) = complete(&plan, &outcome) else {
            continue;
        };
        let twice = complete(&plan, &outcome).expect("a completion made once is made again");
        assert_eq!(text(&done), text(&twice), "completions are deterministic");
        check_completion(&done, pods.len());
        checked += 1;
    }
    checked
}

/// bytes → `explain`: never a panic, and the same answer twice.
pub fn explain_bytes(data: &[u8]) {
    let options = ExplainOptions::at(Time::from_unix_seconds(1_790_000_000));
    let first = explain_json(data, &options);
    let second = explain_json(data, &options);
    match (first, second) {
        (Ok(a), Ok(b)) => assert_eq!(text(&a), text(&b), "explanations are deterministic"),
        (Err(a), Err(b)) => assert_eq!(a, b, "refusals are deterministic"),
        _ => panic!("explain answered the same bytes once with a result, once with an error"),
    }
}

/// How the simulated API answers a plan's calls.
#[derive(Clone, Copy, Debug)]
pub enum Pattern {
    AllSucceed,
    /// Calls fail where the seed's bits say so.
    SomeFail(u32),
}

impl Pattern {
    fn fails(self, call: usize) -> bool {
        match self {
            Pattern::AllSucceed => false,
            Pattern::SomeFail(seed) => (seed.rotate_left((call % 32) as u32) & 3) == 0,
        }
    }
}

fn failure(call: usize) -> CallResult {
    match call % 3 {
        0 => CallResult::error("InternalError", "Internal error occurred: fuzz"),
        1 => CallResult::error("NotFound", "pods \"x\" not found"),
        _ => CallResult::error("Conflict", "the object has been modified"),
    }
}

/// What a host would report after executing `plan` against an API answering `pattern`.
pub fn outcome_for(plan: &SyncPlan, pattern: Pattern, owner: &ReplicaSet) -> SyncOutcome {
    let mut call = 0;
    let mut answer = |ok: CallResult| {
        call += 1;
        if pattern.fails(call) {
            failure(call)
        } else {
            ok
        }
    };
    let live_owner = plan
        .needs_owner_recheck
        .then(|| match answer(CallResult::ok()) {
            CallResult::Error(e) => LiveOwner::Failed(e),
            _ => LiveOwner::Found(Box::new(owner.clone())),
        });
    let claims = ClaimOutcome {
        live_owner,
        results: plan
            .claims
            .iter()
            .map(|_| answer(CallResult::ok()))
            .collect(),
    };
    let mut outcome = SyncOutcome {
        claims,
        ..SyncOutcome::default()
    };
    let Ok(manage) = plan.manage_after(&outcome.claims) else {
        return outcome;
    };
    match &manage {
        Manage::Create(create) => {
            while let Some(size) = create.next_batch(&outcome.creates) {
                for _ in 0..size {
                    let name = format!("fuzz-{}", outcome.creates.len());
                    outcome.creates.push(answer(CallResult::created(name)));
                }
            }
        }
        Manage::Delete(delete) => {
            outcome.deletes = delete
                .victims
                .iter()
                .map(|_| answer(CallResult::ok()))
                .collect();
        }
        Manage::Nothing { .. } => {}
    }
    outcome
}

/// The plan's invariants, given the pods the engine planned over.
pub fn check_plan(plan: &SyncPlan, pods: &[&Pod], config: &Config) {
    for claim in &plan.claims {
        let pod = pods
            .get(claim.pod_index)
            .expect("a claim names an input pod");
        assert_eq!(
            pod.metadata.name, claim.name,
            "a claim's index and name agree"
        );
    }
    match &plan.manage {
        Manage::Create(create) => {
            assert!(
                create.count <= config.burst_replicas,
                "creates are at most the burst"
            );
            assert_eq!(
                create.batches.iter().sum::<usize>(),
                create.count,
                "slow-start batches add up to the count"
            );
        }
        Manage::Delete(delete) => {
            let mut seen = BTreeSet::new();
            for v in &delete.victims {
                let pod = pods.get(v.pod_index).expect("a victim is an input pod");
                assert_eq!(
                    (&pod.metadata.namespace, &pod.metadata.name),
                    (&v.namespace, &v.name),
                    "a victim's index and name agree"
                );
                assert!(seen.insert(v.pod_index), "a pod is chosen once");
            }
            assert!(
                delete.victims.len() <= config.burst_replicas,
                "deletes are at most the burst"
            );
        }
        Manage::Nothing { .. } => {}
    }
}

/// The completion's invariants, given how many pods the engine was given.
pub fn check_completion(done: &Completion, pods: usize) {
    if let Some(status) = &done.status {
        let replicas = usize::try_from(status.replicas).expect("replicas is not negative");
        assert!(replicas <= pods, "status.replicas ≤ the pods given");
        assert!(
            status.fully_labeled_replicas <= status.replicas,
            "fullyLabeled ≤ replicas"
        );
        assert!(status.ready_replicas <= status.replicas, "ready ≤ replicas");
        assert!(
            status.available_replicas <= status.ready_replicas,
            "available ≤ ready"
        );
    }
    assert!(done.created <= done.create_calls, "created ≤ create calls");
    let back: Completion =
        serde_json::from_str(&text(done)).expect("a completion reads back from its JSON");
    assert!(
        same_on_the_wire(&to_value(&back), &to_value(done)),
        "a completion survives a JSON round trip: {back:?} read back from {done:?}"
    );
}

/// Equal as JSON, fractional numbers to an `f64`'s precision: a duration crosses the wire
/// as an `f64` of seconds, exact to the nanosecond only up to about 13 days.
fn same_on_the_wire(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => (x - y).abs() <= x.abs().max(y.abs()) * 4.0 * f64::EPSILON,
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_on_the_wire(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_on_the_wire(v, w)))
        }
        _ => a == b,
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("engine values serialize")
}

fn text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("engine values serialize")
}

/// One step of a Store sequence. Small index spaces so that operations collide.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    UpsertOwner {
        ns: u8,
        name: u8,
        replicas: i8,
        app: u8,
        deleting: bool,
    },
    DeleteOwner {
        ns: u8,
        name: u8,
    },
    UpsertPod(PodSpec),
    DeletePod {
        ns: u8,
        name: u8,
    },
    Plan {
        ns: u8,
        name: u8,
        fail: u32,
    },
}

/// The parts of a pod that change decisions.
#[derive(Arbitrary, Debug, Clone)]
pub struct PodSpec {
    ns: u8,
    name: u8,
    app: u8,
    owner: Option<u8>,
    phase: u8,
    ready: bool,
    deleting: bool,
    node: u8,
    cost: Option<i8>,
    age: u16,
}

const NOW: i64 = 1_790_000_000;

fn ns(i: u8) -> String {
    format!("ns{}", i % 2)
}

fn owner_uid(ns: &str, name: u8) -> String {
    format!("{ns}-rs{}", name % 4)
}

fn owner_json(ns_: u8, name: u8, replicas: i8, app: u8, deleting: bool) -> Value {
    let ns = ns(ns_);
    let mut meta = json!({
        "name": format!("rs{}", name % 4), "namespace": ns, "uid": owner_uid(&ns, name),
        "generation": 1
    });
    if deleting {
        meta["deletionTimestamp"] = json!("2026-09-21T10:00:00Z");
    }
    json!({
        "metadata": meta,
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": format!("a{}", app % 3)}},
                 "template": {"metadata": {"labels": {"app": format!("a{}", app % 3)}}}}
    })
}

fn pod_json(p: &PodSpec) -> Value {
    let ns = ns(p.ns);
    let phase = ["Pending", "Running", "Succeeded", "Failed", "Unknown"][usize::from(p.phase % 5)];
    let created = chrono_like(NOW - i64::from(p.age));
    let mut meta = json!({
        "name": format!("p{}", p.name % 16), "namespace": ns, "uid": format!("{ns}-p{}-{}", p.name % 16, p.age),
        "creationTimestamp": created, "labels": {"app": format!("a{}", p.app % 3)}
    });
    if let Some(o) = p.owner {
        meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "name": format!("rs{}", o % 4), "uid": owner_uid(&ns, o), "controller": true}]);
    }
    if p.deleting {
        meta["deletionTimestamp"] = json!(created);
    }
    if let Some(c) = p.cost {
        meta["annotations"] = json!({"controller.kubernetes.io/pod-deletion-cost": c.to_string()});
    }
    json!({
        "metadata": meta,
        "spec": {"nodeName": format!("n{}", p.node % 3)},
        "status": {"phase": phase, "conditions": [{"type": "Ready",
            "status": if p.ready { "True" } else { "False" }, "lastTransitionTime": created}]}
    })
}

/// RFC 3339 for a Unix time (the fuzz inputs only need whole seconds).
fn chrono_like(unix: i64) -> String {
    Time::from_unix_seconds(unix).to_string()
}

/// A structured sequence of Store operations; every plan is checked, and compared with
/// the plan of a `SyncInput` holding the same objects. Returns how many plans were
/// checked.
pub fn store_ops(ops: &[Op]) -> usize {
    let config = Config::default();
    let Ok(mut store) = Store::new(config.clone()) else {
        panic!("the default config is valid");
    };
    let mut checked = 0;
    for op in ops.iter().take(256) {
        match op {
            Op::UpsertOwner {
                ns,
                name,
                replicas,
                app,
                deleting,
            } => {
                let owner: ReplicaSet = replicore::input::from_value(owner_json(
                    *ns, *name, *replicas, *app, *deleting,
                ))
                .expect("generated owners read");
                let _ = store.upsert_owner(owner);
            }
            Op::DeleteOwner { ns: n, name } => {
                store.delete_owner(&ns(*n), &format!("rs{}", name % 4));
            }
            Op::UpsertPod(p) => {
                let pod: Pod =
                    replicore::input::from_value(pod_json(p)).expect("generated pods read");
                let _ = store.upsert_pod(pod);
            }
            Op::DeletePod { ns: n, name } => {
                store.delete_pod(&ns(*n), &format!("p{}", name % 16));
            }
            Op::Plan { ns: n, name, fail } => {
                checked += plan_from_store(&store, &ns(*n), *name, *fail, &config);
            }
        }
    }
    checked
}

fn plan_from_store(store: &Store, ns: &str, name: u8, fail: u32, config: &Config) -> usize {
    let context = SyncContext::at(Time::from_unix_seconds(NOW));
    let Ok(snapshot) = store.snapshot(ns, &format!("rs{}", name % 4), context) else {
        return 0;
    };
    let planned = snapshot.plan(config);
    // The same objects as a SyncInput.
    let input_json = json!({
        "now": chrono_like(NOW),
        "owner": snapshot.view().owner,
        "otherOwners": snapshot.view().other_owners,
        "pods": snapshot.pods().iter().map(|p| &**p).collect::<Vec<_>>(),
    });
    let input: SyncInput =
        replicore::input::from_value(input_json).expect("a snapshot reads as an input");
    let direct = replicore::plan(&input, config);
    match (&planned, &direct) {
        (Ok(a), Ok(b)) => assert_eq!(text(a), text(b), "the Store plans as a SyncInput does"),
        (Err(a), Err(b)) => assert_eq!(a, b, "the Store refuses as a SyncInput does"),
        _ => panic!("the Store and a SyncInput disagree on whether to plan"),
    }
    let Ok(plan) = planned else { return 0 };
    let pods: Vec<&Pod> = snapshot.pods().iter().map(|p| &**p).collect();
    check_plan(&plan, &pods, config);
    let owner = (*snapshot.view().owner).clone();
    let outcome = outcome_for(&plan, Pattern::SomeFail(fail), &owner);
    match complete(&plan, &outcome) {
        Ok(done) => {
            check_completion(&done, pods.len());
            1
        }
        Err(_) => 0,
    }
}

/// How many calls one Deployment sync may make: claims (one per ReplicaSet at most, plus
/// the live GET), the new RS, scaling, cleanup and the status write are each bounded by
/// the ReplicaSets given.
fn call_bound(input: &DeploymentSyncInput) -> usize {
    4 * input.replica_sets.len() + 8
}

/// The answer the fuzzed API gives to call number `n`: success (a GET returns the cached
/// deployment), or one of the errors upstream's sync meets.
fn deployment_answer(
    call: &ApiCall,
    input: &DeploymentSyncInput,
    seed: u32,
    n: usize,
) -> ApiResult {
    let pick = seed.rotate_left((n % 32) as u32) % 8;
    let error = |reason: &str| {
        ApiResult::Error(ApiError::new(
            reason,
            format!("{reason} (fuzz) on {}", call.name()),
        ))
    };
    match pick {
        0 => error("Conflict"),
        1 => error("InternalError"),
        2 if call.verb() == "create" => error("AlreadyExists"),
        3 => error("NotFound"),
        _ => match call {
            ApiCall::GetDeployment { .. } => ApiResult::Ok {
                object: input.deployment.as_ref().map(|d| (*d.wire).clone()),
            },
            _ => ApiResult::ok(),
        },
    }
}

/// bytes → `DeploymentSyncInput` → the step machine to its end, with API answers chosen
/// by the bytes. Returns how many calls were made (`None`: the input was refused).
pub fn deployment_bytes(data: &[u8]) -> Option<usize> {
    let input = DeploymentSyncInput::from_json(data).ok()?;
    let seed = data
        .iter()
        .fold(7u32, |h, &b| h.wrapping_mul(31).wrapping_add(b.into()));
    let bound = call_bound(&input);
    let mut machine = DeploymentSync::new(input.clone()).ok()?;
    let mut named = 0;
    loop {
        let step = match machine.next() {
            Ok(step) => step,
            // A field-path error where upstream would panic: refused, not a crash.
            Err(_) => return None,
        };
        let again = machine.next().expect("a step named once is named again");
        assert_eq!(step, again, "the step machine is deterministic");
        let restored: DeploymentSync =
            serde_json::from_str(&text(&machine)).expect("a machine reads back from its JSON");
        let after = restored
            .next()
            .expect("a restored machine names its next step");
        assert_eq!(
            text(&step),
            text(&after),
            "a machine survives a JSON round trip"
        );
        match step {
            Step::Call { call } => {
                named += 1;
                assert!(named <= bound, "a sync makes at most {bound} calls");
                let answer = deployment_answer(&call, &input, seed, named);
                machine.report(answer).expect("a result is taken");
            }
            Step::Done { done } => {
                assert_eq!(done.calls, named, "the sync reports the calls it named");
                return Some(named);
            }
        }
    }
}
