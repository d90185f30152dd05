//! Watch events (§18) through the public handlers: owner add/update/delete (R-90, R-91,
//! R-91b), pod add, pod update, pod delete and E-13 (nil vs empty
//! labels); the orphan → owner lookup (R-15, E-02, A6) is tested next to it in
//! `src/replicaset/handlers/tests.rs`. Upstream A9 (TestUpdatePods), A14/A15
//! (expectations on delete and recreate), A16 (TestOverlappingRSs), A17
//! (TestDeletionTimestamp).

use crate::common;

use common::*;
use replicore::replicaset::handlers::{DelayedKey, Observation};
use replicore::Idle;
use replicore::{
    on_owner_event, on_pod_event, plan, Config, Duration, EventDecision, Expectations,
    ExpectationsChange, OwnerEvent, OwnerKind, PodEvent, ReplicaSet,
};
use serde_json::json;

fn kind() -> OwnerKind {
    OwnerKind::replica_set()
}

fn build_all(owners: &[Rs]) -> Vec<ReplicaSet> {
    owners.iter().map(Rs::build).collect()
}

/// Applies the decision's observations for `key` to `e`, as a host would.
fn observe(e: Expectations, d: &EventDecision, key: &str) -> Expectations {
    d.observations
        .iter()
        .filter(|o| o.owner_key == key)
        .fold(e, |e, o| o.change.apply(e, now()))
}

// ---------------------------------------------------------------------------------------
// R-91b, A14, A15

#[test]
fn r90_owner_added_is_enqueued() {
    let d = on_owner_event(OwnerEvent::Added(&rs("web").build()));
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert!(d.observations.is_empty());
    assert!(d.enqueue_after.is_empty());
}

#[test]
fn r91_owner_updated_is_enqueued_every_time() {
    let old = rs("web").build();
    let new = rs("web").replicas(5).build();
    let d = on_owner_event(OwnerEvent::Updated {
        old: &old,
        new: &new,
    });
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert!(d.observations.is_empty());
    // Resync: same object.
    let d = on_owner_event(OwnerEvent::Updated {
        old: &old,
        new: &old,
    });
    assert_eq!(d.enqueue, vec!["default/web"]);
}

/// a UID change is a delete (DeleteExpectations) followed by an enqueue.
#[test]
fn r91_uid_change_runs_the_delete_handler_first() {
    let old = rs("web").build();
    let new = rs("web").uid("recreated").build();
    let d = on_owner_event(OwnerEvent::Updated {
        old: &old,
        new: &new,
    });
    assert_eq!(
        d.observations,
        vec![Observation {
            owner_key: "default/web".into(),
            change: ExpectationsChange::Delete
        }]
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
}

/// R-91b, A14, A15: deleting the owner forgets its expectations; the recreated owner
/// starts fresh and creates again.
#[test]
fn r91b_a14_a15_delete_forgets_expectations_and_recreate_starts_fresh() {
    let owner = rs("web").replicas(1);
    let config = Config::default();
    let inp = input(&owner, &[]).build();
    let p = plan(&inp, &config).expect("plan");
    let e = apply_all(Expectations::none(), p.manage.expectations(), now());
    assert!(!e.satisfied(now()), "1 create expected");

    let d = on_owner_event(OwnerEvent::Deleted(&owner.build()));
    assert_eq!(d.enqueue, vec!["default/web"]);
    let e = observe(e, &d, "default/web");
    assert_eq!(e, Expectations::none());

    let recreated = rs("web").replicas(1).uid("new-uid");
    let inp = input(&recreated, &[]).expectations(&e).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 1);
}

// ---------------------------------------------------------------------------------------
// pod added

#[test]
fn r92_owned_pod_added_is_a_creation_observation() {
    let web = rs("web");
    let owners = build_all(&[web.clone(), rs("other")]);
    let d = on_pod_event(
        PodEvent::Added(&pod("p").owned_by(&web).build()),
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert_eq!(
        d.observations,
        vec![Observation {
            owner_key: "default/web".into(),
            change: ExpectationsChange::CreationObserved
        }]
    );
    let e = observe(
        Expectations::none().expect_creations(2, now()),
        &d,
        "default/web",
    );
    assert_eq!(counts(&e), (1, 0));
}

#[test]
fn r92_unresolved_controller_ref_does_nothing() {
    let web = rs("web");
    let owners = build_all(std::slice::from_ref(&web));
    for p in [
        pod("p").controller_ref("ReplicaSet", "web", "wrong-uid"),
        pod("p").controller_ref("ReplicationController", "web", "uid-web"),
        pod("p").controller_ref("ReplicaSet", "gone", "uid-gone"),
        pod("p").owned_by(&web).ns("elsewhere"),
    ] {
        let d = on_pod_event(PodEvent::Added(&p.build()), &owners, &kind());
        assert_eq!(d, EventDecision::default(), "{}", p.v["metadata"]);
    }
    // An RC controller resolves when the engine manages ReplicationControllers.
    let d = on_pod_event(
        PodEvent::Added(
            &pod("p")
                .controller_ref("ReplicationController", "web", "uid-web")
                .build(),
        ),
        &owners,
        &OwnerKind::replication_controller(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
}

#[test]
fn r92_orphan_added_enqueues_matching_owners_without_observations() {
    let owners = build_all(&[rs("a"), rs("b"), rs("c").match_labels(json!({"app": "db"}))]);
    let d = on_pod_event(PodEvent::Added(&pod("p").build()), &owners, &kind());
    assert_eq!(d.enqueue, vec!["default/a", "default/b"]);
    assert!(d.observations.is_empty());
}

/// A16 (TestOverlappingRSs): nine owners with the same selector; a pod controlled by the
/// fourth enqueues exactly that one.
#[test]
fn a16_overlapping_owners_controller_ref_wins() {
    let all: Vec<Rs> = (1..=9).map(|i| rs(&format!("rs{i}"))).collect();
    let owners = build_all(&all);
    let d = on_pod_event(
        PodEvent::Added(&pod("p").owned_by(&all[3]).build()),
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/rs4"]);
    assert_eq!(d.observations.len(), 1);
    assert_eq!(d.observations[0].owner_key, "default/rs4");
}

// ---------------------------------------------------------------------------------------
// A17, R-92..R-95, R-44: deletion timestamps

/// A17 (TestDeletionTimestamp).
#[test]
fn a17_deletion_timestamp_counts_as_a_deletion_once() {
    let web = rs("web").replicas(1);
    let owners = build_all(std::slice::from_ref(&web));
    let key = "default/web";
    let p_deleting = pod("p").owned_by(&web).deleting().rv("1");
    let p_key = p_deleting.key();
    let second = pod("second").owned_by(&web).rv("1");

    // 1. Added while already terminating: a deletion, not a creation.
    let e = Expectations::none().expect_deletions([p_key.clone()], now());
    let d = on_pod_event(PodEvent::Added(&p_deleting.build()), &owners, &kind());
    assert_eq!(d.enqueue, vec![key]);
    assert_eq!(
        d.observations,
        vec![Observation {
            owner_key: key.into(),
            change: ExpectationsChange::DeletionObserved { key: p_key.clone() }
        }]
    );
    assert!(observe(e, &d, key).satisfied(now()));

    // 2. Update that sets the deletion timestamp.
    let e = Expectations::none().expect_deletions([p_key.clone()], now());
    let old = pod("p").owned_by(&web).rv("2").build();
    let new = p_deleting.build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec![key]);
    assert!(observe(e, &d, key).satisfied(now()));

    // 3. Expecting another pod: an update of an already terminating P does not fulfil it.
    let e = Expectations::none().expect_deletions([second.key()], now());
    let old = pod("p").owned_by(&web).deleting().rv("2").build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    let e = observe(e, &d, key);
    assert!(!e.satisfied(now()));

    // 4. The final delete of P: still not fulfilled.
    let d = on_pod_event(PodEvent::Deleted(&new), &owners, &kind());
    let e = observe(e, &d, key);
    assert!(!e.satisfied(now()));
    assert_eq!(counts(&e), (0, 1));

    // 5. The delete of the expected pod: enqueued and fulfilled.
    let d = on_pod_event(PodEvent::Deleted(&second.build()), &owners, &kind());
    assert_eq!(d.enqueue, vec![key]);
    let e = observe(e, &d, key);
    assert!(e.satisfied(now()));
}

/// orphan and unresolved deletions are ignored.
#[test]
fn r95_orphan_or_unresolved_deletions_are_ignored() {
    let owners = build_all(&[rs("web")]);
    let d = on_pod_event(PodEvent::Deleted(&pod("orphan").build()), &owners, &kind());
    assert_eq!(d, EventDecision::default());
    let d = on_pod_event(
        PodEvent::Deleted(
            &pod("p")
                .controller_ref("ReplicaSet", "web", "stale-uid")
                .build(),
        ),
        &owners,
        &kind(),
    );
    assert_eq!(d, EventDecision::default());
}

/// R-93, E-13: with a deletion timestamp and changed labels (nil → empty map counts as a
/// change), the old pod's owner observes the deletion too.
#[test]
fn r93_e13_deleted_with_changed_labels_notifies_the_old_owner_too() {
    let a = rs("a");
    let b = rs("b");
    let owners = build_all(&[a.clone(), b.clone()]);
    let old = pod("p").owned_by(&a).no_labels().rv("1").build();
    let new_same_labels = pod("p").owned_by(&b).no_labels().deleting().rv("2").build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new_same_labels,
        },
        &owners,
        &kind(),
    );
    assert_eq!(
        d.enqueue,
        vec!["default/b"],
        "labels unchanged (nil == nil)"
    );

    let new_empty_labels = pod("p")
        .owned_by(&b)
        .labels(json!({}))
        .deleting()
        .rv("2")
        .build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new_empty_labels,
        },
        &owners,
        &kind(),
    );
    assert_eq!(
        d.enqueue,
        vec!["default/b", "default/a"],
        "nil → {{}} is a label change"
    );
    let keys: Vec<&str> = d
        .observations
        .iter()
        .map(|o| o.owner_key.as_str())
        .collect();
    assert_eq!(keys, vec!["default/b", "default/a"]);
}

// ---------------------------------------------------------------------------------------
// pod updated. A9

/// A9 (TestUpdatePods).
#[test]
fn a9_update_pods() {
    let rs1 = rs("foobar").match_labels(json!({"foo": "bar"}));
    let rs2 = rs("barfoo").match_labels(json!({"bar": "foo"}));
    let owners = build_all(&[rs1.clone(), rs2.clone()]);
    let foo_bar = json!({"foo": "bar"});
    let bar_foo = json!({"bar": "foo"});
    let cases = [
        (
            "owned by RS1, labels change: the controller ref wins",
            pod("p").owned_by(&rs1).labels(foo_bar.clone()),
            pod("p").owned_by(&rs1).labels(bar_foo.clone()),
            vec!["default/foobar"],
        ),
        (
            "ref to RS2 removed: old owner and label match are both RS2",
            pod("p").owned_by(&rs2).labels(bar_foo.clone()),
            pod("p").orphan().labels(bar_foo.clone()),
            vec!["default/barfoo"],
        ),
        (
            "ref to RS1 removed: old owner RS1, label match RS2",
            pod("p").owned_by(&rs1).labels(bar_foo.clone()),
            pod("p").orphan().labels(bar_foo.clone()),
            vec!["default/foobar", "default/barfoo"],
        ),
        (
            "owned by RS2, labels change, ref unchanged",
            pod("p").owned_by(&rs2).labels(foo_bar),
            pod("p").owned_by(&rs2).labels(bar_foo),
            vec!["default/barfoo"],
        ),
    ];
    for (what, old, new, want) in cases {
        let old = old.rv("1").build();
        let new = new.rv("2").build();
        let d = on_pod_event(
            PodEvent::Updated {
                old: &old,
                new: &new,
            },
            &owners,
            &kind(),
        );
        assert_eq!(d.enqueue, want, "{what}");
        assert!(
            d.observations.is_empty(),
            "{what}: no expectation change on update"
        );
    }
}

#[test]
fn r93_resync_with_the_same_resource_version_is_ignored() {
    let web = rs("web");
    let owners = build_all(std::slice::from_ref(&web));
    let old = pod("p").owned_by(&web).rv("7").build();
    let new = pod("p").owned_by(&web).rv("7").ready_since(NOW).build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d, EventDecision::default());
}

/// becoming ready with minReadySeconds > 0 also schedules a check after exactly
/// minReadySeconds (no "+1 s" since ~1.34).
#[test]
fn r93_becoming_ready_schedules_the_availability_check() {
    let web = rs("web").min_ready(10);
    let owners = build_all(std::slice::from_ref(&web));
    let old = pod("p").owned_by(&web).not_ready().rv("1").build();
    let new = pod("p").owned_by(&web).ready_since(NOW).rv("2").build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert_eq!(
        d.enqueue_after,
        vec![DelayedKey {
            key: "default/web".into(),
            after: Duration::from_seconds(10)
        }]
    );
    // Still ready: no delayed check.
    let newer = pod("p").owned_by(&web).ready_since(NOW).rv("3").build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &new,
            new: &newer,
        },
        &owners,
        &kind(),
    );
    assert!(d.enqueue_after.is_empty());
    // minReadySeconds 0: no delayed check.
    let plain = rs("web");
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &build_all(&[plain]),
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert!(d.enqueue_after.is_empty());
}

#[test]
fn r93_orphan_update_without_label_or_ref_change_does_nothing() {
    let owners = build_all(&[rs("web")]);
    let old = pod("p").rv("1").build();
    let new = pod("p").rv("2").ready_since(NOW).build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d, EventDecision::default());
    // A label change makes matching owners look.
    let relabelled = pod("p")
        .rv("3")
        .labels(json!({"app": "web", "x": "y"}))
        .build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &relabelled,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
}

/// a new controller ref that does not resolve stops after notifying the old owner.
#[test]
fn r93_unresolved_new_ref_only_notifies_the_old_owner() {
    let web = rs("web");
    let owners = build_all(std::slice::from_ref(&web));
    let old = pod("p").owned_by(&web).rv("1").build();
    let new = pod("p")
        .controller_ref("ReplicaSet", "ghost", "uid-ghost")
        .rv("2")
        .build();
    let d = on_pod_event(
        PodEvent::Updated {
            old: &old,
            new: &new,
        },
        &owners,
        &kind(),
    );
    assert_eq!(d.enqueue, vec!["default/web"]);
    assert!(d.observations.is_empty());
}

/// The plan after a pod event: the creation observation lets the owner act again.
#[test]
fn r92_observation_unblocks_the_next_sync() {
    let web = rs("web").replicas(2);
    let config = Config::default();
    let e = Expectations::none().expect_creations(1, now());
    let newcomer = pod("new").owned_by(&web).ready_since(NOW);
    let inp = input(&web, std::slice::from_ref(&newcomer))
        .expectations(&e)
        .build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);
    let d = on_pod_event(
        PodEvent::Added(&newcomer.build()),
        &build_all(std::slice::from_ref(&web)),
        &kind(),
    );
    let e = observe(e, &d, "default/web");
    let inp = input(&web, &[newcomer]).expectations(&e).build();
    let p = plan(&inp, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 1);
}
