//! Unit tests of the simulator's parts through their public API: the API server, the
//! scenario format, the edits, the kubelet model, the watch and the controller loop.

use replicore::Time;
use replicore_sim::apiserver::{Admission, ApiServer, ChangeKind};
use replicore_sim::rng::Rng;
use replicore_sim::trace::{QueueOp, What};
use replicore_sim::{Edit, Scenario, Simulator};
use serde_json::json;

// ---------------------------------------------------------------------------------------
// API server

fn body() -> serde_json::Value {
    json!({"metadata": {"namespace": "default", "generateName": "web-", "labels": {"app": "web"},
           "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u1", "controller": true}]}})
}

#[test]
fn create_names_the_pod_and_bumps_the_resource_version() {
    let mut api = ApiServer::default();
    let mut rng = Rng::new(1);
    let now = Time::from_unix_seconds(100);
    let (pod, change) = api
        .create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap();
    assert!(pod.name().starts_with("web-") && pod.name().len() == 9);
    assert_eq!(pod.phase(), "Pending");
    assert_eq!(pod.metadata.creation_timestamp, Some(now));
    assert_eq!(change.rv, 1);
    assert_eq!(change.kind, ChangeKind::Added);
    assert_eq!(pod.metadata.resource_version.as_deref(), Some("1"));
    let (pod2, _) = api
        .create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap();
    assert_ne!(pod.uid(), pod2.uid());
    assert_eq!(api.resource_version(), 2);
}

#[test]
fn quota_and_admission_refuse_creates() {
    let mut api = ApiServer::default();
    api.quota = Some(1);
    let mut rng = Rng::new(1);
    let now = Time::from_unix_seconds(100);
    assert!(api
        .create_pod(&body(), now, &mut rng, Admission::Reject)
        .is_err_and(|e| e.reason == "InternalError"));
    api.create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap();
    let e = api
        .create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap_err();
    assert_eq!((e.reason.as_str(), e.code), ("Forbidden", Some(403)));
    assert!(e.message.contains("exceeded quota"), "{}", e.message);
}

#[test]
fn graceful_deletion_only_for_scheduled_running_pods() {
    let mut api = ApiServer::default();
    let mut rng = Rng::new(3);
    let now = Time::from_unix_seconds(100);
    let (a, _) = api
        .create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap();
    let (b, _) = api
        .create_pod(&body(), now, &mut rng, Admission::Allow)
        .unwrap();
    // Unscheduled: gone at once.
    let (c, gone) = api.delete_pod(&a.key(), Some(a.uid()), now).unwrap();
    assert!(gone && c.kind == ChangeKind::Deleted);
    assert!(api
        .delete_pod(&a.key(), None, now)
        .is_err_and(|e| e.is_not_found()));
    // Scheduled: terminating until removed.
    api.update_pod(&b.key(), |p| p.spec.node_name = Some("n1".into()))
        .unwrap();
    assert!(api
        .delete_pod(&b.key(), Some("other"), now)
        .is_err_and(|e| e.reason == "Conflict"));
    let (c, gone) = api.delete_pod(&b.key(), Some(b.uid()), now).unwrap();
    assert!(!gone && c.kind == ChangeKind::Updated);
    assert!(api
        .pods
        .get(&b.key())
        .unwrap()
        .metadata
        .deletion_timestamp
        .is_some());
    // Terminating within its 30 s grace period: still charged (QuotaV1Pod); after it, not.
    assert_eq!(api.quota_used("default", now), 1);
    let later = now.plus(replicore::time::Duration::from_seconds(31));
    assert_eq!(api.quota_used("default", later), 0);
    assert_eq!(api.remove_pod(&b.key()).unwrap().kind, ChangeKind::Deleted);
    assert!(api.pods.is_empty());
}

// ---------------------------------------------------------------------------------------
// Scenario format

#[test]
fn scenario_errors_name_the_field() {
    let err = |text: &str| {
        Simulator::from_json(text.as_bytes())
            .map(|_| ())
            .unwrap_err()
    };
    let e = err(r#"{"seed": 1, "faults": {"watchDrop": 2}}"#);
    assert_eq!(e.path(), "faults.watchDrop", "{e}");
    let e = err(r#"{"seed": 1, "replicas": -2}"#);
    assert_eq!((e.code(), e.path()), ("NEGATIVE", "replicas"));
    let e = err(r#"{"seed": 1, "delays": {"ready": [5, 1]}}"#);
    assert_eq!(e.path(), "delays.ready");
    let e = err(r#"{"seed": 1, "nodes": ["a", "a"]}"#);
    assert_eq!(e.path(), "nodes[1]");
    let e = err(r#"{"seed": 1, "bogus": true}"#);
    assert!(e.to_string().contains("bogus"), "{e}");
    let e = err(
        r#"{"seed": 1, "edits": [{"at": 5, "op": "editPod", "pod": "x", "phase": "Dancing"}]}"#,
    );
    assert_eq!(e.path(), "edits[0].phase");
    let e = err(r#"{"seed": 1, "config": {"featureGates": {"LogarithmicScaleDown": false}}}"#);
    assert_eq!(e.code(), "INVALID_CONFIG");
    let e = err(r#"{"seed": 1, "start": "yesterday"}"#);
    assert_eq!(e.path(), "start");
    let e = err(r#"{"seed": 1, "cluster": {"kind": "List", "items": []}}"#);
    assert!(e.path().starts_with("cluster"), "{e}");
    // A missing field in the last item of a list keeps the item's index.
    let e = err(r#"{"seed": 1, "owners": [{"name": "a", "replicas": 1}, {"name": "b"}]}"#);
    assert_eq!(
        (e.code(), e.path()),
        ("MISSING", "owners[1].replicas"),
        "{e}"
    );
    let e = err(r#"{"seed": 1, "owners": [{"name": "b"}]}"#);
    assert_eq!(
        (e.code(), e.path()),
        ("MISSING", "owners[0].replicas"),
        "{e}"
    );
}

#[test]
fn scenario_round_trips_through_json() {
    let text = r#"{"seed": 9, "start": "2026-03-01T00:00:00Z", "owners": [{"name": "api", "replicas": 4, "minReadySeconds": 5}],
        "nodes": ["a", "b"], "delays": {"watch": 10, "ready": [100, 200], "relist": 5000},
        "faults": {"createFailure": 0.25}, "quota": 7, "config": {"burstReplicas": 3},
        "edits": [{"at": 1000, "op": "setReplicas", "replicas": 2}, {"at": 2000, "op": "editPod", "pod": "p", "deletionCost": null}]}"#;
    let s = Scenario::from_json(text.as_bytes()).unwrap();
    let back: Scenario = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    // `deletionCost: null` (remove the annotation) survives the round trip.
    let edit = serde_json::to_value(&s.edits[1]).unwrap();
    assert_eq!(
        edit,
        json!({"at": 2000, "op": "editPod", "pod": "p", "deletionCost": null})
    );
}

/// Edits, delays and node lists are read by readers of their own (no serde buffer for
/// internally tagged or untagged enums): each edit reads back with `op` first (as
/// written) and last (as a host may write it), and refusals name what is missing.
#[test]
fn edits_delays_and_nodes_read_without_buffering() {
    let text = r#"{"seed": 3, "deployment": {"replicas": 2}, "nodes": 2, "delays": {"watch": [1, 9], "ready": 4},
        "edits": [
          {"at": 1, "op": "setReplicas", "replicas": 2, "owner": "web"}, {"at": 2, "op": "setQuota", "quota": 3},
          {"at": 3, "op": "setQuota"}, {"at": 4, "op": "setFeatureGates", "featureGates": {"PodDeletionCost": false}},
          {"at": 5, "op": "setConfig", "config": {"burstReplicas": 2}}, {"at": 6, "op": "setFaults", "faults": {"createFailure": 0.5}},
          {"at": 7, "op": "setDelays", "delays": {"ready": [1, 2]}},
          {"at": 8, "op": "editPod", "pod": "p", "namespace": "default", "phase": "Running", "ready": true, "restarts": 2, "deletionCost": 5},
          {"at": 9, "op": "addNode", "node": "n"}, {"at": 10, "op": "removeNode", "node": "n"},
          {"at": 11, "op": "killPod", "pod": "p"}, {"at": 12, "op": "setImage", "image": "web:2", "fail": "crashLoop"},
          {"at": 13, "op": "failTemplate"}, {"at": 14, "op": "scaleDeployment", "replicas": 4},
          {"at": 15, "op": "pauseDeployment"}, {"at": 16, "op": "resumeDeployment"}, {"at": 17, "op": "undoDeployment", "revision": 1}]}"#;
    let s = Scenario::from_json(text.as_bytes()).unwrap();
    assert_eq!(s.edits.len(), 17);
    for timed in &s.edits {
        let mut v = serde_json::to_value(timed).unwrap();
        let back: replicore_sim::scenario::TimedEdit = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&back, timed);
        // The same object with `op` written last.
        let op = v.as_object_mut().unwrap().remove("op").unwrap();
        let rest = serde_json::to_string(&v).unwrap();
        let last = format!("{},\"op\":{op}}}", rest.strip_suffix('}').unwrap());
        let back: replicore_sim::scenario::TimedEdit = serde_json::from_str(&last).unwrap();
        assert_eq!(&back, timed, "{last}");
        let edit: Edit = serde_json::from_str(&last).unwrap();
        assert_eq!(edit, timed.edit);
    }
    let back: Scenario = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
    assert_eq!(back, s);

    let err = |text: &str| {
        Simulator::from_json(text.as_bytes())
            .map(|_| ())
            .unwrap_err()
    };
    let e = err(r#"{"seed": 1, "edits": [{"at": 5, "op": "setReplicas"}]}"#);
    assert_eq!(e.path(), "edits[0]", "{e}");
    assert!(
        e.to_string().contains("requires the field `replicas`"),
        "{e}"
    );
    let e = err(r#"{"seed": 1, "edits": [{"op": "pauseDeployment"}]}"#);
    assert_eq!((e.code(), e.path()), ("MISSING", "edits[0].at"), "{e}");
    let e = err(r#"{"seed": 1, "edits": [{"at": 1, "op": "dance"}]}"#);
    assert!(e.to_string().contains("unknown variant `dance`"), "{e}");
    let e = err(r#"{"seed": 1, "edits": [{"at": 1, "op": "setReplicas", "replicas": "two"}]}"#);
    assert_eq!(e.path(), "edits[0].replicas", "{e}");
    for bad in [r#""x""#, "[1]", "1.5", "-1"] {
        let e = err(&format!(r#"{{"seed": 1, "delays": {{"watch": {bad}}}}}"#));
        assert_eq!(e.path(), "delays.watch", "{bad}: {e}");
    }
    for bad in ["-1", "4294967296", "true", r#"[1]"#] {
        let e = err(&format!(r#"{{"seed": 1, "nodes": {bad}}}"#));
        assert!(e.path().starts_with("nodes"), "{bad}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Kubelet model, watch, queue, controller

fn exact(seed: u64, replicas: i32) -> Scenario {
    let mut s = Scenario::new(seed, replicas);
    s.delays = Some(
        serde_json::from_value(json!({"watch": 10, "schedule": 100, "start": 1000, "ready": 2000, "terminate": 500, "crash": 3000, "flap": 4000}))
            .unwrap(),
    );
    s
}

fn pod_phases(sim: &Simulator) -> Vec<(String, bool)> {
    sim.state()
        .pods
        .iter()
        .map(|p| (p.phase.clone(), p.ready))
        .collect()
}

#[test]
fn pods_go_pending_running_ready_after_their_delays() {
    let mut sim = Simulator::new(exact(1, 1)).unwrap();
    sim.advance(50);
    assert_eq!(pod_phases(&sim), [("Pending".to_owned(), false)]);
    assert_eq!(sim.state().pods[0].node, None);
    sim.advance(100); // t=150: scheduled at 100
    assert!(sim.state().pods[0].node.is_some());
    sim.advance(1000); // t=1150: running at 1100
    assert_eq!(pod_phases(&sim), [("Running".to_owned(), false)]);
    sim.advance(2000); // t=3150: ready at 3100
    assert_eq!(pod_phases(&sim), [("Running".to_owned(), true)]);
    let st = sim.state();
    assert_eq!(st.owner.counts.ready, 1);
    assert_eq!(
        st.owner.status.ready_replicas, 1,
        "the controller wrote the status"
    );
}

#[test]
fn crash_loops_raise_restarts_and_flaps_toggle_readiness() {
    let mut s = exact(2, 2);
    s.faults = Some(serde_json::from_value(json!({"crashLoop": 1.0})).unwrap());
    let mut sim = Simulator::new(s).unwrap();
    sim.advance(1100 + 3 * 3000 + 50);
    for p in sim.state().pods {
        assert!(p.crash_looping && !p.ready && p.active);
        assert_eq!(p.restarts, 3, "{p:?}");
    }
    let mut s = exact(3, 1);
    s.faults = Some(serde_json::from_value(json!({"readinessFlap": 1.0})).unwrap());
    let mut sim = Simulator::new(s).unwrap();
    sim.advance(3150);
    assert!(sim.state().pods[0].ready);
    sim.advance(4000);
    assert!(!sim.state().pods[0].ready);
    sim.advance(4000);
    assert!(sim.state().pods[0].ready);
}

#[test]
fn the_watch_delays_what_the_controller_sees() {
    let mut sim = Simulator::new(exact(4, 1)).unwrap();
    sim.advance(0);
    let p = &sim.state().pods[0];
    assert!(!p.in_cache, "just created: the watch event is in flight");
    assert!(!sim.state().owner.expectations_satisfied);
    sim.advance(10);
    assert!(sim.state().pods[0].in_cache);
    assert!(sim.state().owner.expectations_satisfied);
}

#[test]
fn dropped_events_are_repaired_by_the_relist() {
    let mut s = exact(5, 3);
    s.faults = Some(serde_json::from_value(json!({"watchDrop": 1.0})).unwrap());
    s.delays = Some(serde_json::from_value(json!({"relist": 10000})).unwrap());
    let mut sim = Simulator::new(s).unwrap();
    sim.advance(5000);
    let st = sim.state();
    assert_eq!(st.pods.len(), 3);
    assert!(st.pods.iter().all(|p| !p.in_cache));
    assert!(!st.owner.expectations_satisfied, "creations unobserved");
    sim.apply(Edit::SetFaults {
        faults: Default::default(),
    })
    .unwrap();
    sim.advance(6000); // the relist at 10 s
    let st = sim.state();
    assert!(st.pods.iter().all(|p| p.in_cache));
    assert!(st.owner.expectations_satisfied);
    assert!(sim
        .trace(0)
        .any(|e| serde_json::to_value(e).unwrap()["kind"] == "relist"));
    assert_eq!(st.pods.len(), 3, "no pod created twice");
}

#[test]
fn quota_stops_slow_start_and_sets_replica_failure() {
    let mut s = exact(6, 10);
    s.quota = Some(5);
    let mut sim = Simulator::new(s).unwrap();
    sim.advance(0);
    let first = sim.syncs().find(|s| s.action == "create").unwrap();
    let sizes: Vec<(usize, usize, usize)> = first
        .batches
        .iter()
        .flatten()
        .map(|b| (b.size, b.ok, b.failed))
        .collect();
    assert_eq!(
        sizes,
        [(1, 1, 0), (2, 2, 0), (4, 2, 2)],
        "slow start stops at the failing batch"
    );
    assert!(first.batches.as_ref().unwrap()[2].errors[0].contains("exceeded quota"));
    let st = sim.state();
    let cond = st.owner.replica_failure.as_ref().expect("ReplicaFailure");
    assert_eq!(cond.status, "True");
    assert_eq!(cond.reason, "FailedCreate");
    assert!(st.events.iter().any(|e| e.event.reason == "FailedCreate"));
    // Lifting the quota: the controller retries (rate limited) and converges.
    sim.apply(Edit::SetQuota { quota: None }).unwrap();
    sim.advance(30_000);
    let st = sim.state();
    assert_eq!(st.owner.counts.active, 10);
    assert!(st.owner.replica_failure.is_none());
    // The failed syncs were requeued with backoff, the first good one reset it.
    let ops: Vec<QueueOp> = sim
        .trace(0)
        .filter_map(|e| match &e.what {
            What::Queue { op, .. } if *op != QueueOp::Add => Some(*op),
            _ => None,
        })
        .collect();
    let first_forget = ops
        .iter()
        .position(|o| *o == QueueOp::Forget)
        .expect("a forget");
    assert!(
        ops[..first_forget].contains(&QueueOp::AddRateLimited),
        "{ops:?}"
    );
}

#[test]
fn scaling_0_to_10_creates_in_batches_1_2_4_3() {
    let mut sim = Simulator::new(exact(7, 0)).unwrap();
    sim.advance(1000);
    assert_eq!(sim.state().pods.len(), 0);
    sim.apply(Edit::SetReplicas {
        replicas: 10,
        owner: None,
    })
    .unwrap();
    sim.advance(1000);
    let creates: Vec<Vec<usize>> = sim
        .syncs()
        .filter(|s| s.action == "create")
        .map(|s| s.batches.iter().flatten().map(|b| b.size).collect())
        .collect();
    assert_eq!(creates, [vec![1, 2, 4, 3]]);
}

#[test]
fn burst_limits_each_sync() {
    let mut s = exact(8, 7);
    s.config = Some(serde_json::from_value(json!({"burstReplicas": 3})).unwrap());
    let mut sim = Simulator::new(s).unwrap();
    sim.advance(60_000);
    let counts: Vec<usize> = sim
        .syncs()
        .filter(|s| s.action == "create")
        .map(|s| s.create_calls())
        .collect();
    assert_eq!(counts, [3, 3, 1]);
    assert_eq!(sim.state().owner.counts.active, 7);
}

#[test]
fn scale_down_deletes_the_engines_ranking_prefix() {
    let mut sim = Simulator::new(exact(9, 6)).unwrap();
    sim.advance(10_000);
    let name = sim.state().pods[2].name.clone();
    sim.apply(Edit::EditPod {
        pod: name.clone(),
        namespace: None,
        phase: None,
        ready: None,
        restarts: None,
        deletion_cost: Some(Some(-5)),
    })
    .unwrap();
    sim.advance(100);
    let preview = sim.preview(4, None);
    assert_eq!(preview.victims.len(), 2);
    assert_eq!(
        preview.victims[0].name, name,
        "lowest deletion cost goes first"
    );
    assert_eq!(
        preview.victims[0].rule_text,
        Some("lower pod-deletion-cost")
    );
    let expected: Vec<String> = preview.victims.iter().map(|v| v.name.clone()).collect();
    sim.apply(Edit::SetReplicas {
        replicas: 4,
        owner: None,
    })
    .unwrap();
    sim.advance(100);
    let deleted: Vec<String> = sim
        .syncs()
        .filter(|s| s.action == "delete")
        .flat_map(|s| s.deleted().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert_eq!(deleted, expected);
    // Without PodDeletionCost the annotation no longer decides.
    let off = sim.ranking(Some(
        &serde_json::from_value(json!({"PodDeletionCost": false})).unwrap(),
    ));
    assert!(off
        .pods
        .iter()
        .all(|p| p.rule_text != Some("lower pod-deletion-cost")));
    assert!(!off.feature_gates.pod_deletion_cost);
}

#[test]
fn edits_kill_pods_and_nodes_come_and_go() {
    let mut sim = Simulator::new(exact(10, 4)).unwrap();
    sim.advance(10_000);
    let victim = sim.state().pods[0].name.clone();
    sim.apply(Edit::KillPod {
        pod: victim.clone(),
        namespace: None,
    })
    .unwrap();
    assert!(sim
        .state()
        .pods
        .iter()
        .any(|p| p.name == victim && p.terminating));
    sim.advance(10_000);
    let st = sim.state();
    assert!(st.pods.iter().all(|p| p.name != victim));
    assert_eq!(st.owner.counts.active, 4, "replaced");
    // Removing a node fails its pods; the controller replaces them on the others.
    let node = st.nodes[0].name.clone();
    sim.apply(Edit::RemoveNode { node: node.clone() }).unwrap();
    sim.advance(20_000);
    let st = sim.state();
    assert_eq!(st.nodes.len(), 2);
    assert_eq!(st.owner.counts.active, 4);
    assert!(st
        .pods
        .iter()
        .all(|p| p.node.as_deref() != Some(node.as_str())));
    sim.apply(Edit::AddNode {
        node: "fresh".into(),
    })
    .unwrap();
    assert_eq!(sim.state().nodes.len(), 3);
    // Bad edits are refused with the field named, and change nothing.
    let before = sim.scenario();
    let e = sim
        .apply(Edit::KillPod {
            pod: "nope".into(),
            namespace: None,
        })
        .unwrap_err();
    assert_eq!(e.path(), "edit.pod");
    let e = sim
        .apply(Edit::AddNode {
            node: "fresh".into(),
        })
        .unwrap_err();
    assert_eq!(e.path(), "edit.node");
    let e = sim
        .apply(Edit::SetReplicas {
            replicas: -1,
            owner: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "NEGATIVE");
    assert_eq!(sim.scenario(), before);
}

#[test]
fn turning_logarithmic_scale_down_off_emulates_1_30() {
    let mut sim = Simulator::new(exact(11, 2)).unwrap();
    sim.apply(Edit::SetFeatureGates {
        feature_gates: serde_json::from_value(json!({"LogarithmicScaleDown": false})).unwrap(),
    })
    .unwrap();
    let st = sim.state();
    assert!(!st.config.feature_gates.logarithmic_scale_down);
    assert_eq!(st.config.emulation_version.as_deref(), Some("1.30"));
}

#[test]
fn the_shipped_cluster_imports_with_its_replicasets_and_pods() {
    let list: serde_json::Value =
        serde_json::from_str(include_str!("../../examples/cluster.json")).unwrap();
    let mut s = Scenario::new(12, 0);
    s.replicas = None;
    s.cluster = Some(list.clone());
    let mut sim = Simulator::new(s).unwrap();
    let st = sim.state();
    let items = list["items"].as_array().unwrap();
    let n_rs = items.iter().filter(|i| i["kind"] == "ReplicaSet").count();
    let n_pods = items.iter().filter(|i| i["kind"] == "Pod").count();
    assert_eq!((st.owners.len(), st.pods.len()), (n_rs, n_pods));
    // Nothing is in the future at t = 0, and the first sync of each owner is the engine's.
    assert!(st.pods.iter().all(|p| p.age_ms >= 0));
    sim.advance(0);
    let synced: std::collections::BTreeSet<&str> = sim.syncs().map(|s| s.key.as_str()).collect();
    assert_eq!(synced.len(), n_rs);
}

#[test]
fn a_scenario_with_its_edits_replays_to_the_same_state() {
    let mut a = Simulator::new(Scenario::new(13, 5)).unwrap();
    a.advance(4_000);
    a.apply(Edit::SetReplicas {
        replicas: 9,
        owner: None,
    })
    .unwrap();
    a.step();
    a.step();
    a.apply(Edit::SetQuota { quota: Some(8) }).unwrap();
    a.advance(20_000);
    a.apply(Edit::SetReplicas {
        replicas: 2,
        owner: None,
    })
    .unwrap();
    a.advance(5_000);
    let text = serde_json::to_string(&a.scenario()).unwrap();
    let mut b = Simulator::from_json(text.as_bytes()).unwrap();
    b.advance(a.now());
    assert_eq!(
        serde_json::to_value(a.state()).unwrap(),
        serde_json::to_value(b.state()).unwrap()
    );
    let ta: Vec<_> = a
        .trace(0)
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let tb: Vec<_> = b
        .trace(0)
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(ta, tb);
}

#[test]
fn a_quiet_cluster_has_nothing_scheduled_unless_resyncs_are_on() {
    let mut sim = Simulator::new(exact(14, 2)).unwrap();
    sim.advance(60_000);
    assert!(sim.is_idle(), "converged, no faults: nothing left to do");
    assert!(!sim.step());
    let t = sim.now();
    sim.apply(Edit::SetDelays {
        delays: serde_json::from_value(json!({"resync": 10_000})).unwrap(),
    })
    .unwrap();
    assert_eq!(sim.next_event_time(), Some(t + 10_000));
    let before = sim.syncs().count();
    sim.advance(25_000);
    assert_eq!(sim.syncs().count(), before + 2, "one sync per resync");
}

// ---------------------------------------------------------------------------------------
// The horizon: no call leaves the simulator with a time JS cannot hold

/// Every virtual time the simulator reports stays within 2^53 − 1 ms and its engine
/// instants within range: `try_advance` past the horizon is refused and changes nothing;
/// events beyond it never run.
#[test]
fn advancing_past_the_horizon_is_refused_and_changes_nothing() {
    const MAX: u64 = (1 << 53) - 1;
    let mut sim = Simulator::new(exact(4, 3)).unwrap();
    sim.advance(10_000);
    let horizon = sim.horizon();
    assert!(
        horizon <= MAX && horizon > 100 * 365 * 86_400_000,
        "{horizon}"
    );
    let before = (sim.now(), sim.trace(0).count());
    let e = sim.try_advance(MAX).unwrap_err();
    assert_eq!((e.code(), e.path()), ("MALFORMED", "ms"));
    assert_eq!((sim.now(), sim.trace(0).count()), before);
    // Up to the horizon is fine, and the simulator goes on answering.
    let left = horizon - sim.now();
    assert!(sim.try_advance(left).is_ok());
    assert_eq!(sim.now(), horizon);
    assert!(sim.try_advance(1).is_err());
    // Whatever is still scheduled lies beyond: stepping runs nothing.
    while sim.step() {}
    assert_eq!(sim.now(), horizon);
    assert!(sim.next_event_time().is_none_or(|t| t <= horizon));
    assert!(sim.trace(0).all(|e| e.t <= horizon));
    let state = serde_json::to_value(sim.state()).unwrap();
    assert!(state.is_object());
    // advance (infallible) stops at the horizon too.
    sim.advance(u64::MAX);
    assert_eq!(sim.now(), horizon);
}

#[test]
fn scenario_times_beyond_2_pow_53_are_refused() {
    let err = |text: &str| {
        Simulator::from_json(text.as_bytes())
            .map(|_| ())
            .unwrap_err()
    };
    let big = 1u64 << 53;
    let e = err(&format!(
        r#"{{"seed": 1, "delays": {{"ready": [1, {big}]}}}}"#
    ));
    assert_eq!(e.path(), "delays.ready[1]");
    let e = err(&format!(r#"{{"seed": 1, "delays": {{"resync": {big}}}}}"#));
    assert_eq!(e.path(), "delays.resync");
    let e = err(&format!(
        r#"{{"seed": 1, "edits": [{{"at": {big}, "op": "setReplicas", "replicas": 2}}]}}"#
    ));
    assert_eq!(e.path(), "edits[0].at");
}
