//! Property tests of the simulated cluster (proptest, at least 256 seeds each;
//! `PROPTEST_CASES` may ask for more). Each case is a small random scenario: 1–4 nodes,
//! up to 60 replicas, a burst of 1–20, faults (dropped watch events, refused creates,
//! crash loops, readiness flaps, a quota) for the first ≤ 30 virtual seconds along with
//! scale changes and node losses, then no faults.
//!
//! 1. Once the faults stop, the controller converges to `spec.replicas` active pods.
//! 2. No sync issues more creates or deletes than the burst.
//! 3. No sync creates while the expectations of an earlier sync are unobserved and
//!    unexpired — judged from the trace's watch deliveries, not the engine's bookkeeping.
//! 4. A scale-down never deletes a pod that ranks after one it keeps (rules 1–5 of the
//!    ranking, computed here from the pods), and deletes exactly the head of the
//!    engine's order.
//! 5. Replaying a seed gives the identical trace.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::json;

use replicore::model::Pod;
use replicore::replicaset::{owner, rank};
use replicore::{pods, ExpectationsChange, FeatureGates};
use replicore_sim::trace::{ObjectKind, SyncTrace, WatchEventKind, What, TRACE_CAPACITY};
use replicore_sim::{Scenario, Simulator};

/// Virtual ms of faults; everything after is fault-free.
const FAULT_WINDOW: u64 = 30_000;
/// Expectations TTL (5 min) + relist + backoff headroom.
const SETTLE: u64 = 420_000;

#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    replicas: i32,
    nodes: u32,
    burst: usize,
    drop: f64,
    create_failure: f64,
    crash_loop: f64,
    flap: f64,
    quota: Option<u32>,
    min_ready: i32,
    log_scale_down: bool,
    pod_deletion_cost: bool,
    /// (at, replicas) scale changes within the fault window.
    scales: Vec<(u64, i32)>,
    /// Lose node-1 at this time (and add a node back right after).
    lose_node: Option<u64>,
}

fn prob(max: f64) -> impl Strategy<Value = f64> {
    prop_oneof![2 => Just(0.0), 3 => 0.0..max]
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        0i32..=40,
        1u32..=4,
        prop_oneof![1 => Just(500usize), 3 => 1usize..=20],
        (prob(0.3), prob(0.4), prob(0.3), prob(0.3)),
        prop::option::weighted(0.3, 0u32..=50),
        prop_oneof![3 => Just(0i32), 1 => 1i32..=5],
        (any::<bool>(), any::<bool>()),
        prop::collection::vec((0u64..FAULT_WINDOW, 0i32..=60), 0..=3),
        prop::option::weighted(0.25, 0u64..FAULT_WINDOW),
    )
        .prop_map(
            |(
                seed,
                replicas,
                nodes,
                burst,
                (drop, cf, cl, fl),
                quota,
                min_ready,
                (log, cost),
                mut scales,
                lose_node,
            )| {
                scales.sort();
                Case {
                    seed,
                    replicas,
                    nodes,
                    burst,
                    drop,
                    create_failure: cf,
                    crash_loop: cl,
                    flap: fl,
                    quota,
                    min_ready,
                    log_scale_down: log,
                    pod_deletion_cost: cost,
                    scales,
                    lose_node,
                }
            },
        )
}

fn scenario(c: &Case) -> Scenario {
    let mut edits = Vec::new();
    for (at, r) in &c.scales {
        edits.push(json!({"at": at, "op": "setReplicas", "replicas": r}));
    }
    if let Some(at) = c.lose_node {
        edits.push(json!({"at": at, "op": "removeNode", "node": "node-1"}));
        edits.push(json!({"at": at + 1000, "op": "addNode", "node": "node-9"}));
    }
    edits.push(json!({"at": FAULT_WINDOW, "op": "setFaults", "faults": {}}));
    edits.push(json!({"at": FAULT_WINDOW, "op": "setQuota", "quota": null}));
    edits.sort_by_key(|e| e["at"].as_u64());
    let mut config =
        json!({"burstReplicas": c.burst, "featureGates": {"PodDeletionCost": c.pod_deletion_cost}});
    if !c.log_scale_down {
        config["emulationVersion"] = json!("1.30");
        config["featureGates"]["LogarithmicScaleDown"] = json!(false);
    }
    let s = json!({
        "seed": c.seed,
        "owners": [{"replicas": c.replicas, "minReadySeconds": c.min_ready}],
        "nodes": c.nodes,
        "faults": {"watchDrop": c.drop, "createFailure": c.create_failure, "crashLoop": c.crash_loop, "readinessFlap": c.flap},
        "quota": c.quota,
        "config": config,
        // Owners resync every minute (12 h upstream) so a key whose expectations expired
        // is looked at again within the bounded run.
        "delays": {"resync": 60_000},
        "edits": edits,
    });
    Scenario::from_json(s.to_string().as_bytes()).expect("generated scenarios are valid")
}

fn run(c: &Case, until: u64) -> Simulator {
    run_with(c, until, false)
}

fn run_with(c: &Case, until: u64, keep_inputs: bool) -> Simulator {
    let mut sim = Simulator::new(scenario(c)).expect("starts");
    sim.keep_sync_inputs(keep_inputs);
    sim.advance(until);
    assert!(
        sim.trace(0).next().is_some_and(|e| e.seq == 0),
        "the trace must be complete for the checks (capacity {TRACE_CAPACITY})"
    );
    sim
}

/// The desired replicas of the primary owner at the end.
fn desired(sim: &Simulator) -> i32 {
    sim.owner(sim.primary_key()).map_or(0, |o| o.spec.desired())
}

/// Rules 1–5 of the ranking, computed from the pods alone: (assigned, phase, ready, cost,
/// −co-located); a smaller key goes first.
fn head_key(p: &Pod, colocated: usize, gates: &FeatureGates) -> (bool, u8, bool, i32, i64) {
    let phase = match p.phase() {
        "Pending" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 3,
    };
    let cost = if gates.pod_deletion_cost {
        pods::deletion_cost(p)
    } else {
        0
    };
    (
        !p.node_name().is_empty(),
        phase,
        pods::is_ready(p),
        cost,
        -(colocated as i64),
    )
}

fn check_scale_down(s: &SyncTrace, gates: &FeatureGates) -> Result<(), TestCaseError> {
    let Some(victims) = &s.victims else {
        return Ok(());
    };
    let input = s.full_input.as_ref().expect("the trace keeps the input");
    let rs = &input.owner;
    let claimed: Vec<&Pod> = input
        .pods
        .iter()
        .filter(|p| {
            p.metadata
                .controller_ref()
                .is_some_and(|r| r.uid == rs.metadata.uid)
                && pods::is_active(p)
        })
        .collect();
    let related = owner::related_pods(rs, &input.other_owners, &input.pods);
    let mut on_node: BTreeMap<&str, usize> = BTreeMap::new();
    for p in related.iter().filter(|p| pods::is_active(p)) {
        *on_node.entry(p.node_name()).or_default() += 1;
    }
    let key = |p: &Pod| head_key(p, on_node.get(p.node_name()).copied().unwrap_or(0), gates);
    let gone: BTreeSet<&str> = victims.iter().map(|v| v.name.as_str()).collect();
    prop_assert_eq!(gone.len(), victims.len());
    for v in claimed.iter().filter(|p| gone.contains(p.name())) {
        for k in claimed.iter().filter(|p| !gone.contains(p.name())) {
            prop_assert!(
                key(k) >= key(v),
                "kept {} {:?} ranks before deleted {} {:?}",
                k.name(),
                key(k),
                v.name(),
                key(v)
            );
        }
    }
    // Exactly the head of the engine's order over the same pods.
    let order = rank::deletion_order(&claimed, &related, input.now, gates);
    let head: Vec<&str> = order
        .iter()
        .take(victims.len())
        .filter_map(|i| claimed.get(*i).map(|p| p.name()))
        .collect();
    let names: Vec<&str> = victims.iter().map(|v| v.name.as_str()).collect();
    prop_assert_eq!(head, names);
    Ok(())
}

/// Property 3 over the whole trace.
fn check_expectations(sim: &Simulator) -> Result<(), TestCaseError> {
    // Per pod name: when the controller first observed it (an added delivery), and when
    // its deletion was observed (a DeletionObserved observation).
    let mut added: BTreeMap<String, u64> = BTreeMap::new();
    let mut deletion_seen: BTreeMap<String, u64> = BTreeMap::new();
    // The latest sync that recorded expectations: (t, created, deleted).
    let mut last: Option<(u64, Vec<String>, Vec<String>)> = None;
    for e in sim.trace(0) {
        match &e.what {
            What::Watch {
                object: ObjectKind::Pod,
                event,
                name,
                decision,
            } => {
                if *event == WatchEventKind::Added {
                    added.entry(name.clone()).or_insert(e.seq);
                }
                for o in &decision.observations {
                    if let ExpectationsChange::DeletionObserved { key } = &o.change {
                        let n = key.rsplit('/').next().unwrap_or(key).to_owned();
                        deletion_seen.entry(n).or_insert(e.seq);
                    }
                }
            }
            What::Sync { sync } => {
                if sync.action == "create" && sync.create_calls() > 0 {
                    if let Some((t, created, deleted)) = &last {
                        let expired = e.t - t > 300_000;
                        if !expired {
                            for n in created {
                                prop_assert!(
                                    added.contains_key(n),
                                    "t={}: created again before observing {} (created at t={})",
                                    e.t,
                                    n,
                                    t
                                );
                            }
                            for n in deleted {
                                prop_assert!(
                                    deletion_seen.contains_key(n),
                                    "t={}: created before observing the deletion of {}",
                                    e.t,
                                    n
                                );
                            }
                        }
                    }
                    prop_assert!(
                        sync.input
                            .expectations
                            .as_ref()
                            .is_none_or(|r| (r.add <= 0 && r.del <= 0)
                                || e.at.since(r.timestamp) > replicore::EXPECTATIONS_TTL),
                        "created with pending expectations {:?}",
                        sync.input.expectations
                    );
                }
                if sync.expectations_recorded.is_some() {
                    last = Some((
                        e.t,
                        sync.created().map(str::to_owned).collect(),
                        sync.deleted().map(str::to_owned).collect(),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// At least `cases` cases (`PROPTEST_CASES` may ask for more); failures reproducible
/// from the printed input, no regression files.
fn cfg(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(cases, |n| n.max(cases));
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

proptest! {
    #![proptest_config(cfg(256))]

    /// 1. Convergence once the faults stop.
    #[test]
    fn s1_converges_once_faults_stop(c in case()) {
        let sim = run(&c, FAULT_WINDOW + SETTLE);
        let st = sim.state();
        prop_assert_eq!(st.owner.counts.active as i32, desired(&sim), "active pods vs spec.replicas at t={}", st.t);
        prop_assert!(st.owner.replica_failure.is_none(), "ReplicaFailure still set: {:?}", st.owner.replica_failure);
        prop_assert_eq!(st.owner.status.replicas, desired(&sim), "status.replicas");
    }

    /// 2. No sync issues more creates or deletes than the burst.
    #[test]
    fn s2_never_exceeds_the_burst(c in case()) {
        let sim = run(&c, FAULT_WINDOW + 60_000);
        for s in sim.syncs() {
            prop_assert!(s.create_calls() <= c.burst, "{} creates with burst {}", s.create_calls(), c.burst);
            prop_assert!(s.victims.as_ref().map_or(0, Vec::len) <= c.burst);
            for b in s.batches.iter().flatten() {
                prop_assert!(b.size >= 1 && b.ok + b.failed == b.size);
            }
        }
    }

    /// 3. No create while earlier creations or deletions are unobserved and unexpired.
    #[test]
    fn s3_never_creates_with_unsatisfied_expectations(c in case()) {
        let sim = run(&c, FAULT_WINDOW + 60_000);
        check_expectations(&sim)?;
    }

    /// 4. Scale-down deletes the head of the ranking, never a pod ranked after a kept one.
    #[test]
    fn s4_scale_down_respects_the_ranking(c in case()) {
        let sim = run_with(&c, FAULT_WINDOW + 60_000, true);
        let gates = sim.config().feature_gates;
        for s in sim.syncs() {
            check_scale_down(s, &gates)?;
        }
    }

    /// 5. A seed replays to the identical trace and history.
    #[test]
    fn s5_a_seed_replays_identically(c in case()) {
        let a = run(&c, FAULT_WINDOW + 10_000);
        let b = run(&c, FAULT_WINDOW + 10_000);
        let ta: Vec<String> = a.trace(0).map(|e| serde_json::to_string(e).expect("json")).collect();
        let tb: Vec<String> = b.trace(0).map(|e| serde_json::to_string(e).expect("json")).collect();
        prop_assert_eq!(ta, tb);
        prop_assert_eq!(a.history().collect::<Vec<_>>(), b.history().collect::<Vec<_>>());
    }
}

/// The strategy produces the interesting cases: scale-downs, creates refused by quota or
/// admission, dropped events, expired expectations are all reached by some seeds.
#[test]
fn the_cases_reach_the_interesting_paths() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut deletes, mut refused, mut dropped, mut stale) = (0, 0, 0, 0);
    for _ in 0..64 {
        let c = case().new_tree(&mut runner).expect("case").current();
        let sim = run(&c, FAULT_WINDOW + 60_000);
        deletes += sim.syncs().filter(|s| s.action == "delete").count();
        refused += sim
            .syncs()
            .flat_map(|s| s.batches.iter().flatten())
            .filter(|b| b.failed > 0)
            .count();
        dropped += sim
            .trace(0)
            .filter(|e| matches!(e.what, What::WatchDropped { .. }))
            .count();
        stale += sim
            .syncs()
            .filter(|s| s.why.as_deref() == Some("staleCache"))
            .count();
    }
    assert!(
        deletes > 0 && refused > 0 && dropped > 0 && stale > 0,
        "{deletes} {refused} {dropped} {stale}"
    );
}

/// A different seed gives a different run (the seed is really used).
#[test]
fn seeds_matter() {
    let pods_after_10s = |seed| {
        Simulator::new(Scenario::new(seed, 8)).map(|mut s| {
            s.advance(10_000);
            s.state()
                .pods
                .iter()
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        })
    };
    assert_ne!(pods_after_10s(1).expect("a"), pods_after_10s(2).expect("b"));
}
