//! The incremental store: plans from it equal plans from the same objects sent whole;
//! events are decided against the stored previous state; bad objects are refused alone.

use crate::common;

use common::*;
use replicore::expectations::ExpectationsChange;
use replicore::outcome::{CallResult, SyncOutcome};
use replicore::Manage;
use replicore::{complete, plan, Config, PodChange, Store, SyncContext, SyncInput};
use serde_json::json;

fn store_with(owners: &[&Rs], pods: &[P]) -> Store {
    let mut store = Store::new(Config::default()).expect("default config");
    for o in owners {
        store.upsert_owner(o.build()).expect("owner");
    }
    for p in pods {
        store.upsert_pod(p.build()).expect("pod");
    }
    store
}

fn json_of<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("serializable")
}

/// A namespace with two owners under one Deployment, orphans, foreign pods and pods of
/// another namespace: scale-down of `web` ranks with co-location from its sibling.
fn cluster() -> (Rs, Rs, Vec<P>) {
    let web = rs("web")
        .replicas(2)
        .controlled_by("deploy-1")
        .match_labels(json!({"app": "web", "v": "1"}))
        .template_labels(json!({"app": "web", "v": "1"}));
    let web2 = rs("web2")
        .replicas(1)
        .controlled_by("deploy-1")
        .match_labels(json!({"app": "web", "v": "2"}))
        .template_labels(json!({"app": "web", "v": "2"}));
    let mut pods = Vec::new();
    for (i, node) in ["n1", "n1", "n2", "n3", "n3"].iter().enumerate() {
        pods.push(
            healthy(&format!("web-{i}"), &web)
                .labels(json!({"app": "web", "v": "1"}))
                .node(node)
                .ready_since(&ago(100.0 * (i as f64 + 1.0))),
        );
    }
    pods.push(
        healthy("web2-0", &web2)
            .labels(json!({"app": "web", "v": "2"}))
            .node("n2"),
    );
    pods.push(
        pod("orphan")
            .orphan()
            .labels(json!({"app": "web", "v": "1"})),
    );
    pods.push(
        pod("elsewhere")
            .ns("other")
            .labels(json!({"app": "web", "v": "1"})),
    );
    (web, web2, pods)
}

#[test]
fn a_plan_from_the_store_equals_the_plan_from_the_objects_sent_whole() {
    let (web, web2, pods) = cluster();
    let store = store_with(&[&web, &web2], &pods);
    let snapshot = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("web is stored");
    let config = Config::default();
    let from_store = snapshot.plan(&config).expect("plan");

    let input = SyncInput {
        now: now(),
        owner: web.build(),
        other_owners: vec![web2.build()],
        pods: build_pods(&pods).into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    let whole = plan(&input, &config).expect("plan");
    assert!(matches!(&from_store.manage, Manage::Delete(d) if d.victims.len() == 4));
    // Victims, claims and the create plan agree; pod indices refer to each input's own
    // pod list, so compare by name.
    let strip = |v: serde_json::Value| {
        let mut v = v;
        if let Some(victims) = v
            .pointer_mut("/manage/victims")
            .and_then(|v| v.as_array_mut())
        {
            for victim in victims {
                victim.as_object_mut().map(|o| o.remove("podIndex"));
            }
        }
        if let Some(claims) = v.pointer_mut("/claims").and_then(|v| v.as_array_mut()) {
            for c in claims {
                c.as_object_mut().map(|o| o.remove("podIndex"));
            }
        }
        // The basis lists facts by input index too; the completions below compare it.
        v.as_object_mut().map(|o| o.remove("basis"));
        v
    };
    assert_eq!(strip(json_of(&from_store)), strip(json_of(&whole)));

    // And so do their completions.
    let outcome = SyncOutcome {
        claims: replicore::ClaimOutcome {
            live_owner: Some(replicore::LiveOwner::Found(Box::new(web.build()))),
            results: vec![CallResult::Ok { name: None }; whole.claims.len()],
        },
        deletes: vec![CallResult::Ok { name: None }; 4],
        ..SyncOutcome::default()
    };
    let a = complete(&from_store, &outcome).expect("complete");
    let b = complete(&whole, &outcome).expect("complete");
    assert_eq!(json_of(&a), json_of(&b));
}

#[test]
fn a_snapshot_keeps_the_state_it_was_taken_in() {
    let (web, web2, pods) = cluster();
    let mut store = store_with(&[&web, &web2], &pods);
    let snapshot = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("stored");
    store.delete_pod("default", "web-0");
    store.delete_pod("default", "web-1");
    store
        .upsert_pod(
            healthy("web-9", &web)
                .labels(json!({"app": "web", "v": "1"}))
                .build(),
        )
        .expect("pod");
    let config = Config::default();
    let p = snapshot.plan(&config).expect("plan");
    assert_eq!(p.owned, 5, "the snapshot still holds the five pods it saw");
    let now_plan = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("stored");
    assert_eq!(now_plan.plan(&config).expect("plan").owned, 4);
}

#[test]
fn upserts_replace_and_deletes_keep_the_index_right() {
    let web = rs("web");
    let pods: Vec<P> = (0..6).map(|i| healthy(&format!("p{i}"), &web)).collect();
    let mut store = store_with(&[&web], &pods);
    assert_eq!(store.len(), (1, 6));
    // Deleting from the middle moves the last pod into the hole: every name still resolves.
    assert!(store.delete_pod("default", "p1").is_some());
    assert!(store.delete_pod("default", "p1").is_none());
    for name in ["p0", "p2", "p3", "p4", "p5"] {
        assert_eq!(store.pod("default", name).map(|p| p.name()), Some(name));
    }
    let old = store
        .upsert_pod(healthy("p5", &web).phase("Running").rv("2").build())
        .expect("valid");
    assert_eq!(
        old.map(|p| p.metadata.resource_version.clone()),
        Some(Some("1".into()))
    );
    assert_eq!(store.len(), (1, 5));
    assert!(store.delete_owner("default", "web").is_some());
    assert_eq!(store.len(), (0, 5));
    assert!(store.delete_owner("default", "web").is_none());
}

#[test]
fn a_bad_object_is_refused_alone() {
    let web = rs("web");
    let mut store = store_with(&[&web], &[healthy("p0", &web)]);
    let mut nameless = healthy("p1", &web).build();
    nameless.metadata.name.clear();
    let e = store.upsert_pod(nameless).expect_err("no name");
    assert_eq!((e.code(), e.path()), ("MISSING", "pod.metadata.name"));
    let e = store
        .upsert_owner(rs("bad").uid("").build())
        .expect_err("owner without uid");
    assert_eq!((e.code(), e.path()), ("MISSING", "owner.metadata.uid"));
    let e = store
        .upsert_owner(rs("neg").replicas(-1).build())
        .expect_err("negative replicas");
    assert_eq!(e.path(), "owner.spec.replicas");
    assert_eq!(store.len(), (1, 1));
    let e = store
        .snapshot("default", "nope", SyncContext::at(now()))
        .expect_err("no such owner");
    assert_eq!((e.code(), e.path()), ("NOT_FOUND", "owner"));
    assert!(e.to_string().contains("default/nope"), "{e}");
    // The store still plans for the owner it has.
    let snap = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("stored");
    assert_eq!(snap.plan(store.config()).expect("plan").owned, 1);
}

#[test]
fn events_are_decided_against_the_stored_previous_state() {
    let web = rs("web").min_ready(30);
    let mut store = store_with(&[&web], &[]);
    // Added, controlled: a creation observed for its owner.
    let pending = pod("p0").owned_by(&web).not_ready();
    let d = store
        .observe_pod(PodChange::Upsert(pending.clone().build()))
        .expect("valid");
    assert_eq!(d.enqueue, vec!["default/web".to_owned()]);
    assert!(matches!(
        d.observations.first().map(|o| &o.change),
        Some(ExpectationsChange::CreationObserved)
    ));
    // The same pod becoming ready: an update against the stored one, so R-93's delayed
    // re-check for minReadySeconds is asked for (an add would not ask for it).
    let ready = pending.rv("2").ready_since(&ago(0.0));
    let d = store
        .observe_pod(PodChange::Upsert(ready.clone().build()))
        .expect("valid");
    assert!(d.observations.is_empty(), "{d:?}");
    assert_eq!(d.enqueue_after.len(), 1, "{d:?}");
    // Deleted: a deletion observed, and the pod leaves the store.
    let d = store
        .observe_pod(PodChange::Delete(ready.build()))
        .expect("valid");
    assert!(matches!(
        d.observations.first().map(|o| &o.change),
        Some(ExpectationsChange::DeletionObserved { key }) if key == "default/p0"
    ));
    assert_eq!(store.len(), (1, 0));
    // A bad event changes nothing.
    let mut nameless = pod("x").build();
    nameless.metadata.name.clear();
    assert!(store.observe_pod(PodChange::Upsert(nameless)).is_err());
    assert_eq!(store.len(), (1, 0));
}

/// The store digests each pod at upsert and keeps the digests in step through
/// replacements and swap-removals, also after a snapshot shares its table (copy on
/// write): the victims from the store stay those of the same objects sent whole.
#[test]
fn digests_follow_replacements_and_deletions_across_snapshots() {
    let (web, web2, mut pods) = cluster();
    let mut store = store_with(&[&web, &web2], &pods);
    let config = Config::default();
    let held = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("snapshot");
    // web-4 (ready longest) becomes not ready; web-0 goes; web-5 arrives on n2.
    let changed = healthy("web-4", &web)
        .labels(json!({"app": "web", "v": "1"}))
        .node("n3")
        .not_ready();
    store.upsert_pod(changed.build()).expect("pod");
    store.delete_pod("default", "web-0");
    let added = healthy("web-5", &web)
        .labels(json!({"app": "web", "v": "1"}))
        .node("n2")
        .ready_since(&ago(50.0));
    store.upsert_pod(added.build()).expect("pod");
    pods.retain(|p| p.name() != "web-0" && p.name() != "web-4");
    pods.push(changed);
    pods.push(added);

    let victims = |plan: &replicore::SyncPlan| match &plan.manage {
        Manage::Delete(d) => d.victims.iter().map(|v| v.name.clone()).collect::<Vec<_>>(),
        other => panic!("expected deletes, got {other:?}"),
    };
    let snapshot = store
        .snapshot("default", "web", SyncContext::at(now()))
        .expect("snapshot");
    let from_store = snapshot.plan(&config).expect("plan");
    let input = SyncInput {
        now: now(),
        owner: web.build(),
        other_owners: vec![web2.build()],
        pods: pods.iter().map(P::build).collect(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    let whole = plan(&input, &config).expect("plan");
    assert_eq!(victims(&from_store), victims(&whole));
    // The adopted orphan (Pending) goes first, then web-4, no longer ready.
    assert_eq!(victims(&from_store)[..2], ["orphan", "web-4"]);
    // The snapshot taken before the changes still ranks what it saw.
    let before = held.plan(&config).expect("plan");
    assert!(victims(&before).contains(&"web-0".to_owned()));
    assert!(!victims(&before).contains(&"web-5".to_owned()));
}
