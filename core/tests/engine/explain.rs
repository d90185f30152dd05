//! `explain` on the example cluster (examples/cluster.json) at 2026-11-21T05:00:00Z: what
//! each ReplicaSet's sync would do, the scale-down preview, and the errors bad input gets.

use replicore::explain::{
    explain, explain_json, ExplainOptions, Explanation, OwnerExplanation, SyncAction,
};
use replicore::model::{Pod, ReplicaSet};
use replicore::replicaset::{owner, rank};
use replicore::{pods, Config, Error, FeatureGates, RankRule, Time};
use serde_json::{json, Value};

const CLUSTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cluster.json");
const WEB: &str = "web-7d9f8b6c5d";
const WEB_OLD: &str = "web-5c4b9d8f7a";
const API: &str = "api-6f7c9d";

fn cluster() -> Value {
    let text = std::fs::read(CLUSTER).expect("examples/cluster.json is readable");
    serde_json::from_slice(&text).expect("examples/cluster.json is JSON")
}

fn items() -> Vec<Value> {
    cluster()["items"].as_array().cloned().expect("a List")
}

fn now() -> Time {
    Time::parse("2026-11-21T05:00:00Z").unwrap().unwrap()
}

fn options() -> ExplainOptions {
    ExplainOptions::at(now())
}

fn with_replicas(n: i32) -> ExplainOptions {
    ExplainOptions {
        replicas: Some(n),
        ..options()
    }
}

fn explain_cluster(options: &ExplainOptions) -> Explanation {
    explain_json(&serde_json::to_vec(&cluster()).unwrap(), options).expect("the example explains")
}

fn owner_named<'a>(x: &'a Explanation, name: &str) -> &'a OwnerExplanation {
    x.owners
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("{name} is explained"))
}

fn err(bytes: &[u8], options: &ExplainOptions) -> Error {
    explain_json(bytes, options).expect_err("bad input is refused")
}

/// The engine's own deletion order for `rs_name`, by pod name: rank::rank over the active
/// pods it controls and selects, with its siblings' pods as related (R-45, R-70..R-74).
fn engine_ranking(rs_name: &str) -> Vec<(String, Option<RankRule>)> {
    let (mut owners, mut all) = (Vec::<ReplicaSet>::new(), Vec::<Pod>::new());
    for item in items() {
        match item["kind"].as_str() {
            Some("ReplicaSet") => owners.push(serde_json::from_value(item).unwrap()),
            Some("Pod") => all.push(serde_json::from_value(item).unwrap()),
            _ => {}
        }
    }
    let (mine, others): (Vec<ReplicaSet>, Vec<ReplicaSet>) = owners
        .into_iter()
        .partition(|rs| rs.metadata.name == rs_name);
    let rs = &mine[0];
    let candidates: Vec<&Pod> = all
        .iter()
        .filter(|p| {
            pods::is_active(p)
                && p.metadata
                    .controller_ref()
                    .is_some_and(|r| r.uid == rs.metadata.uid)
        })
        .collect();
    let related = owner::related_pods(rs, &others, &all);
    rank::rank(&candidates, &related, now(), &FeatureGates::default())
        .into_iter()
        .map(|r| (candidates[r.index].name().to_owned(), r.rule))
        .collect()
}

fn names_and_rules(
    victims: &[replicore::explain::VictimExplanation],
) -> Vec<(String, Option<RankRule>)> {
    victims.iter().map(|v| (v.name.clone(), v.rule)).collect()
}

// ---------------------------------------------------------------------------------------
// What a sync would do now

#[test]
fn web_deletes_the_two_pods_the_ranking_puts_first() {
    // 8 active pods, spec.replicas 6: R-55 deletes 2, the first two of R-72's order.
    let x = explain_cluster(&options());
    let web = owner_named(&x, WEB);
    assert_eq!((web.desired, web.pods.active), (6, 8));
    let SyncAction::Delete { victims } = &web.sync else {
        panic!("expected deletions, got {:?}", web.sync)
    };
    let ranking = engine_ranking(WEB);
    assert_eq!(names_and_rules(victims), ranking[..2].to_vec());
    assert_eq!(
        victims.iter().map(|v| v.position).collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert!(web.adopt.is_empty() && web.release.is_empty());
}

#[test]
fn the_unscheduled_pending_pod_goes_first_for_rule_unassigned() {
    // R-72.1, then R-72.2: the pod on the unreachable node (phase Unknown) is next.
    let x = explain_cluster(&options());
    let SyncAction::Delete { victims } = &owner_named(&x, WEB).sync else {
        panic!("expected deletions")
    };
    let first = &victims[0];
    assert_eq!(first.name, "web-7d9f8b6c5d-p8x2k");
    assert_eq!(first.rule, Some(RankRule::Unassigned));
    assert_eq!(first.rule_text, Some(RankRule::Unassigned.describe()));
    assert_eq!(
        (first.facts.node.as_str(), first.facts.phase.as_str()),
        ("", "Pending")
    );
    assert!(!first.facts.ready);
    let second = &victims[1];
    assert_eq!(second.name, "web-7d9f8b6c5d-4jzq9");
    assert_eq!(second.rule, Some(RankRule::Phase));
    assert_eq!(second.facts.phase, "Unknown");
}

#[test]
fn web_counts_ready_and_available_with_min_ready_seconds() {
    // R-03: h2k7d has been ready for 5 s, under minReadySeconds 10: ready, not available.
    let x = explain_cluster(&options());
    let web = owner_named(&x, WEB);
    assert_eq!(web.min_ready_seconds, 10);
    assert_eq!(
        (web.pods.ready, web.pods.available, web.pods.terminating),
        (5, 4, 0)
    );
    assert_eq!(web.controller.as_deref(), Some("Deployment/web"));
    assert_eq!(web.selector, "app=web,pod-template-hash=7d9f8b6c5d");
}

#[test]
fn api_adopts_the_orphan_and_creates_the_missing_pods_in_batches() {
    // One pod Failed (evicted), one terminating: neither active (R-04). The orphan matching
    // the selector is adopted (R-31), leaving 1 of 3: 2 creates, slow start 1 then 1 (R-52).
    let x = explain_cluster(&options());
    let api = owner_named(&x, API);
    assert_eq!(api.adopt, vec!["api-5d8c7b-8kq2p".to_owned()]);
    assert!(api.release.is_empty());
    assert_eq!(
        (api.pods.active, api.pods.ready, api.pods.terminating),
        (1, 1, 1)
    );
    assert_eq!(
        api.sync,
        SyncAction::Create {
            count: 2,
            batches: vec![1, 1],
            refused: None
        }
    );
    assert_eq!(api.controller, None);
}

#[test]
fn the_old_revision_has_nothing_to_do_while_its_last_pod_terminates() {
    let x = explain_cluster(&options());
    let old = owner_named(&x, WEB_OLD);
    assert_eq!(
        (old.desired, old.pods.active, old.pods.terminating),
        (0, 0, 1)
    );
    assert_eq!(
        old.sync,
        SyncAction::Nothing {
            why: replicore::Idle::InSync
        }
    );
}

#[test]
fn replicasets_are_explained_by_namespace_and_name() {
    let x = explain_cluster(&options());
    let names: Vec<&str> = x.owners.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, vec![API, WEB_OLD, WEB]);
    assert_eq!((x.replica_sets, x.pods, x.ignored), (3, 13, 0));
    assert!(x.owners.iter().all(|o| o.scale_down.is_none()));
}

// ---------------------------------------------------------------------------------------
// The scale-down preview

#[test]
fn preview_to_three_lists_the_engine_ranking_head_in_order() {
    let x = explain_cluster(&with_replicas(3));
    let down = owner_named(&x, WEB).scale_down.as_ref().expect("a preview");
    assert_eq!((down.replicas, down.active, down.burst), (3, 8, 5));
    let ranking = engine_ranking(WEB);
    assert_eq!(names_and_rules(&down.victims), ranking[..5].to_vec());
    let rules: Vec<Option<RankRule>> = down.victims.iter().map(|v| v.rule).collect();
    assert_eq!(
        rules,
        vec![
            Some(RankRule::Unassigned),
            Some(RankRule::Phase),
            Some(RankRule::Readiness),
            Some(RankRule::DeletionCost),
            Some(RankRule::ReadyTime),
        ]
    );
    // The pod with cost -100 goes before cost 0; the one with cost 500 is kept.
    assert_eq!(down.victims[3].name, "web-7d9f8b6c5d-c9w4t");
    assert_eq!(down.victims[3].facts.deletion_cost, -100);
    assert!(down
        .victims
        .iter()
        .all(|v| v.name != "web-7d9f8b6c5d-r5t8q"));
}

#[test]
fn preview_to_zero_is_the_whole_ranking_and_the_last_pod_has_no_rule() {
    let x = explain_cluster(&with_replicas(0));
    let down = owner_named(&x, WEB).scale_down.as_ref().expect("a preview");
    assert_eq!(names_and_rules(&down.victims), engine_ranking(WEB));
    let last = down.victims.last().unwrap();
    assert_eq!(
        (last.name.as_str(), last.rule, last.rule_text),
        ("web-7d9f8b6c5d-r5t8q", None, None)
    );
    assert_eq!(last.facts.deletion_cost, 500);
}

#[test]
fn preview_at_or_above_the_active_count_deletes_nothing() {
    for n in [8, 9, 100] {
        let x = explain_cluster(&with_replicas(n));
        let down = owner_named(&x, WEB).scale_down.as_ref().expect("a preview");
        assert!(down.victims.is_empty(), "replicas {n}");
        assert_eq!((down.active, down.burst), (8, 0));
    }
}

#[test]
fn preview_burst_is_capped_by_burst_replicas() {
    // R-55: one sync deletes at most burstReplicas; the preview still lists every victim.
    let options = ExplainOptions {
        config: Config {
            burst_replicas: 2,
            ..Config::default()
        },
        ..with_replicas(3)
    };
    let x = explain_cluster(&options);
    let web = owner_named(&x, WEB);
    let down = web.scale_down.as_ref().unwrap();
    assert_eq!((down.victims.len(), down.burst), (5, 2));
    let SyncAction::Delete { victims } = &web.sync else {
        panic!("expected deletions")
    };
    assert_eq!(victims.len(), 2);
}

#[test]
fn the_owner_option_explains_one_replicaset_by_name_or_key() {
    for wanted in [WEB, "shop/web-7d9f8b6c5d"] {
        let x = explain_cluster(&ExplainOptions {
            owner: Some(wanted.into()),
            ..options()
        });
        let names: Vec<&str> = x.owners.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec![WEB], "owner {wanted}");
    }
    // The sibling still counts for co-location (R-45): the same deletions as before.
    let alone = explain_cluster(&ExplainOptions {
        owner: Some(WEB.into()),
        ..options()
    });
    assert_eq!(
        alone.owners[0],
        *owner_named(&explain_cluster(&options()), WEB)
    );
}

// ---------------------------------------------------------------------------------------
// Input forms

#[test]
fn items_separate_lists_and_any_order_give_the_same_explanation() {
    let whole = explain_cluster(&with_replicas(3));
    assert_eq!(explain(&items(), &with_replicas(3)).unwrap(), whole);

    let (rs, pods): (Vec<Value>, Vec<Value>) =
        items().into_iter().partition(|i| i["kind"] == "ReplicaSet");
    let separate = json!([
        {"apiVersion": "v1", "kind": "List", "items": rs},
        {"apiVersion": "v1", "kind": "PodList", "items": pods},
    ]);
    let x = explain_json(&serde_json::to_vec(&separate).unwrap(), &with_replicas(3)).unwrap();
    assert_eq!(x, whole);

    let mut reversed = items();
    reversed.reverse();
    assert_eq!(explain(&reversed, &with_replicas(3)).unwrap(), whole);
}

#[test]
fn other_kinds_are_ignored() {
    let mut items = items();
    items.push(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}));
    let x = explain(&items, &options()).unwrap();
    assert_eq!(x.ignored, 1);
    assert_eq!(x.owners, explain_cluster(&options()).owners);
}

#[test]
fn a_single_replicaset_object_is_explained() {
    let rs = items()
        .into_iter()
        .find(|i| i["metadata"]["name"] == API)
        .unwrap();
    let x = explain_json(&serde_json::to_vec(&rs).unwrap(), &options()).unwrap();
    assert_eq!(x.owners.len(), 1);
    assert!(matches!(
        x.owners[0].sync,
        SyncAction::Create { count: 3, .. }
    ));
}

#[test]
fn the_json_form_is_camel_case_with_rules_and_facts() {
    let x = explain_cluster(&ExplainOptions {
        owner: Some(WEB.into()),
        ..with_replicas(3)
    });
    let v = serde_json::to_value(&x).unwrap();
    let web = &v["owners"][0];
    assert_eq!(web["sync"]["action"], "delete");
    assert_eq!(web["minReadySeconds"], 10);
    let first = &web["scaleDown"]["victims"][0];
    assert_eq!(first["name"], "web-7d9f8b6c5d-p8x2k");
    assert_eq!(first["rule"], "unassigned");
    assert_eq!(first["ruleText"], "not scheduled to a node");
    assert_eq!(first["phase"], "Pending");
    assert_eq!(web["scaleDown"]["victims"][3]["deletionCost"], -100);
    assert_eq!(web["scaleDown"]["burst"], 5);
    assert_eq!(v["now"], "2026-11-21T05:00:00Z");
}

// ---------------------------------------------------------------------------------------
// Bad input: a typed error that names the place

#[test]
fn text_that_is_not_json_is_a_syntax_error_at_the_root() {
    let e = err(b"NAME READY STATUS", &options());
    assert!(
        matches!(&e, Error::Syntax { path, .. } if path == "."),
        "{e}"
    );
}

#[test]
fn json_that_is_not_a_list_says_so() {
    let e = err(br#"{"apiVersion": "v1", "kind": "Service"}"#, &options());
    assert!(
        matches!(&e, Error::Malformed { path, message } if path == "kind" && message.contains("\"Service\"")),
        "{e}"
    );
    let e = err(br#"{"items": []}"#, &options());
    assert!(
        matches!(&e, Error::Malformed { path, .. } if path == "kind"),
        "{e}"
    );
    let e = err(b"42", &options());
    assert!(
        matches!(&e, Error::Malformed { path, message } if path == "." && message.contains("a number")),
        "{e}"
    );
    let e = err(br#"{"kind": "List", "items": {"a": 1}}"#, &options());
    assert!(
        matches!(&e, Error::Malformed { path, .. } if path == "items"),
        "{e}"
    );
}

#[test]
fn a_list_without_a_replicaset_is_missing_items() {
    let pods: Vec<Value> = items().into_iter().filter(|i| i["kind"] == "Pod").collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": pods});
    let e = err(&serde_json::to_vec(&list).unwrap(), &options());
    assert_eq!(
        e,
        Error::Missing {
            path: "items".into()
        }
    );
    let e = err(
        br#"{"apiVersion": "v1", "kind": "List", "items": []}"#,
        &options(),
    );
    assert_eq!(
        e,
        Error::Missing {
            path: "items".into()
        }
    );
}

#[test]
fn an_unknown_owner_names_the_replicasets_there_are() {
    let e = explain(
        &items(),
        &ExplainOptions {
            owner: Some("web".into()),
            ..options()
        },
    )
    .unwrap_err();
    let Error::Config { path, message } = &e else {
        panic!("expected a Config error, got {e:?}")
    };
    assert_eq!(path, "owner");
    for name in [
        "\"web\"",
        "shop/api-6f7c9d",
        "shop/web-5c4b9d8f7a",
        "shop/web-7d9f8b6c5d",
    ] {
        assert!(message.contains(name), "{message}");
    }
}

#[test]
fn negative_replicas_are_refused() {
    let e = explain(&items(), &with_replicas(-1)).unwrap_err();
    assert_eq!(
        e,
        Error::Negative {
            path: "replicas".into(),
            value: -1
        }
    );
}

#[test]
fn a_malformed_timestamp_inside_an_item_names_its_path() {
    let mut list = cluster();
    let k = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .position(|i| i["metadata"]["name"] == "web-7d9f8b6c5d-c9w4t")
        .unwrap();
    let cond = list["items"][k]["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["type"] == "Ready")
        .unwrap();
    list["items"][k]["status"]["conditions"][cond]["lastTransitionTime"] = json!("yesterday");
    let e = err(&serde_json::to_vec(&list).unwrap(), &options());
    let Error::Malformed { path, message } = &e else {
        panic!("expected Malformed, got {e:?}")
    };
    assert!(path.starts_with("items["), "{path}");
    assert_eq!(
        path,
        &format!("items[{k}].status.conditions[{cond}].lastTransitionTime")
    );
    assert!(message.contains("yesterday"), "{message}");

    // In an array of Lists the path starts with the List's index.
    let e = err(&serde_json::to_vec(&json!([list])).unwrap(), &options());
    assert!(
        e.path().starts_with(&format!("[0].items[{k}].status")),
        "{e}"
    );
}

#[test]
fn objects_the_engine_cannot_use_are_refused_with_their_path() {
    // An item without a kind.
    let mut items = items();
    items[4].as_object_mut().unwrap().remove("kind");
    assert_eq!(
        explain(&items, &options()).unwrap_err(),
        Error::Missing {
            path: "items[4].kind".into()
        }
    );

    // A ReplicaSet without a UID (R-21).
    let mut items = self::items();
    items[0]["metadata"].as_object_mut().unwrap().remove("uid");
    assert_eq!(
        explain(&items, &options()).unwrap_err(),
        Error::Missing {
            path: "items[0].metadata.uid".into()
        }
    );

    // The same pod twice (E-08).
    let mut items = self::items();
    let again = items[5].clone();
    items.push(again);
    let e = explain(&items, &options()).unwrap_err();
    assert!(
        matches!(&e, Error::DuplicatePod { path, first, .. } if path == "items[16].metadata.name" && first == "items[5]"),
        "{e:?}"
    );

    // A negative spec.replicas (E-18 defaults absent ones to 1, never negative ones).
    let mut items = self::items();
    items[0]["spec"]["replicas"] = json!(-2);
    assert_eq!(
        explain(&items, &options()).unwrap_err(),
        Error::Negative {
            path: "items[0].spec.replicas".into(),
            value: -2
        }
    );
}

#[test]
fn options_read_from_camel_case_json_with_defaults() {
    let o: ExplainOptions = serde_json::from_value(json!({
        "now": "2026-11-21T05:00:00Z",
        "replicas": 3,
        "owner": WEB,
        "config": {"burstReplicas": 2}
    }))
    .unwrap();
    assert_eq!(
        (o.now, o.replicas, o.owner.as_deref()),
        (now(), Some(3), Some(WEB))
    );
    assert_eq!(o.config.burst_replicas, 2);
    let o: ExplainOptions = serde_json::from_value(json!({"now": "2026-11-21T05:00:00Z"})).unwrap();
    assert_eq!(o, options());
    assert!(serde_json::from_value::<ExplainOptions>(json!({"replicas": 3})).is_err());
}

#[test]
fn the_owner_kind_of_the_config_picks_the_owners() {
    // The same engine for ReplicationControllers: their items are the owners, the
    // ReplicaSets are then other kinds.
    let mut items = items();
    let api = items
        .iter_mut()
        .find(|i| i["metadata"]["name"] == API)
        .unwrap();
    api["apiVersion"] = json!("v1");
    api["kind"] = json!("ReplicationController");
    let options = ExplainOptions {
        config: Config {
            owner_kind: replicore::OwnerKind::replication_controller(),
            ..Config::default()
        },
        ..options()
    };
    let x = explain(&items, &options).unwrap();
    assert_eq!((x.replica_sets, x.ignored), (1, 2));
    let rc = &x.owners[0];
    assert_eq!(rc.name, API);
    // Its pods' controller references name a ReplicaSet, so only the orphan is its (R-21).
    assert_eq!(rc.adopt, vec!["api-5d8c7b-8kq2p".to_owned()]);
    assert_eq!(rc.pods.terminating, 0);
}

#[test]
fn terminating_pods_are_counted_only_behind_the_gate_as_the_status_counts_them() {
    // R-81: with DeploymentReplicaSetTerminatingReplicas off, the status reports no
    // terminating count and sync counts none, so explain shows 0 too (the cluster's api
    // ReplicaSet has one terminating pod, counted with the gate on).
    let on = explain_cluster(&options());
    assert_eq!(owner_named(&on, API).pods.terminating, 1);
    let off = ExplainOptions {
        config: Config {
            feature_gates: FeatureGates {
                deployment_replica_set_terminating_replicas: false,
                ..FeatureGates::default()
            },
            ..Config::default()
        },
        ..options()
    };
    let x = explain_cluster(&off);
    assert_eq!(owner_named(&x, API).pods.terminating, 0);
}

#[test]
fn pod_facts_read_pods_as_the_rules_do() {
    use replicore::explain::facts::pod_facts_json;
    let rs = |name: &str, uid: &str| {
        json!({"kind": "ReplicaSet", "apiVersion": "apps/v1",
            "metadata": {"name": name, "namespace": "ns", "uid": uid},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "a"}},
                "template": {"metadata": {"labels": {"app": "a"}}}}})
    };
    let pod = |name: &str, owner_uid: &str, extra: Value| {
        let mut p = json!({"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "ns", "uid": format!("uid-{name}"),
                "labels": {"app": "a"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                    "uid": owner_uid, "controller": true}]},
            "spec": {"nodeName": "n1"},
            "status": {"phase": "Running"}});
        if let (Some(p), Value::Object(extra)) = (p.as_object_mut(), extra) {
            for (k, v) in extra {
                p.insert(k, v);
            }
        }
        p
    };
    let list = json!({"kind": "List", "items": [
        rs("web", "uid-web"),
        // Same kind and name, another UID: not web's pod (R-21).
        pod("stale", "uid-old-web", json!({})),
        // Ready is the first Ready condition (R-01); restarts are the highest (R-74).
        pod("first-ready", "uid-web", json!({"status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "a", "restartCount": 2}, {"name": "b", "restartCount": 3}]}})),
        // "007" is not a valid deletion cost (R-60): 0; "-007" is −7.
        pod("cost", "uid-web", json!({"metadata": {"name": "cost", "namespace": "ns", "uid": "u-cost",
            "annotations": {"controller.kubernetes.io/pod-deletion-cost": "007"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                "uid": "uid-web", "controller": true}]}})),
        pod("neg", "uid-web", json!({"metadata": {"name": "neg", "namespace": "ns", "uid": "u-neg",
            "annotations": {"controller.kubernetes.io/pod-deletion-cost": "-007"},
            "deletionTimestamp": "2026-11-21T04:00:00Z"}})),
    ]});
    let facts = pod_facts_json(
        list.to_string().as_bytes(),
        &replicore::OwnerKind::replica_set(),
    )
    .unwrap();
    let by = |name: &str| facts.iter().find(|f| f.name == name).unwrap();
    assert_eq!(by("stale").owner, None);
    assert_eq!(by("stale").controller.as_deref(), Some("ReplicaSet/web"));
    assert_eq!(by("first-ready").owner.as_deref(), Some("ns/web"));
    assert!(!by("first-ready").ready);
    assert_eq!(by("first-ready").restarts, 3);
    assert_eq!(by("cost").deletion_cost, 0);
    assert_eq!(by("neg").deletion_cost, -7);
    assert!(by("neg").terminating && !by("neg").active);
    assert_eq!(by("neg").controller, None);
}
