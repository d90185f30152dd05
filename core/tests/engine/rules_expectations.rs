//! Expectations (§7): satisfied (R-40, C-3), ExpectCreations, ExpectDeletions
//! CreationObserved, DeletionObserved, DeleteExpectations,
//! read before the pods (R-46 / S-4), and the changes a host applies
//! (`ExpectationsChange::apply`). Upstream C1 (TestControllerExpectations) and C2
//! (TestUIDExpectations), E-08 (deletion keys dedupe), E-10 (dormancy gate in plan).

use crate::common;

use std::collections::BTreeSet;

use common::*;
use replicore::expectations::ExpectationsRecord;
use replicore::Idle;
use replicore::{plan, Config, Duration, Expectations, ExpectationsChange, EXPECTATIONS_TTL};

fn keys(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------------------
// R-40, C-3

#[test]
fn c3_the_ttl_is_five_minutes() {
    assert_eq!(EXPECTATIONS_TTL, Duration::from_seconds(300));
}

#[test]
fn r40_no_record_is_satisfied() {
    assert!(Expectations::none().satisfied(now()));
    assert_eq!(Expectations::default(), Expectations::none());
    assert_eq!(Expectations::none().record(), None);
}

#[test]
fn r40_satisfied_iff_nothing_outstanding_or_expired() {
    let n = now();
    // (add, del) ⇒ satisfied right away
    for (add, del, want) in [
        (0, 0, true),
        (-1, 0, true),
        (-1, -1, true),
        (1, 0, false),
        (0, 1, false),
        (1, -5, false),
        (-5, 1, false),
    ] {
        let e = Expectations::none().set(add, del, n);
        assert_eq!(e.satisfied(n), want, "({add}, {del})");
    }
}

/// C-3: expired strictly after 5 minutes.
#[test]
fn c3_r40_expiry_is_strictly_greater_than_the_ttl() {
    let set_at = now();
    let e = Expectations::none().set(3, 0, set_at);
    assert!(!e.satisfied(set_at.plus(Duration::from_seconds(299))));
    assert!(!e.satisfied(set_at.plus(EXPECTATIONS_TTL)), "exactly 5 min");
    assert!(e.satisfied(set_at.plus(EXPECTATIONS_TTL).plus(Duration::from_nanos(1))));
    let r = e.record().expect("record");
    assert!(!r.expired(set_at.plus(EXPECTATIONS_TTL)));
    assert!(r.expired(set_at.plus(Duration::from_seconds(301))));
}

/// C1 (TestControllerExpectations) with the production TTL: set (10, 30); 11 creations
/// observed ⇒ deletions remain; 31 deletions ⇒ (−1, −1), satisfied; set (1, 2) ⇒ not
/// satisfied until TTL + 1 ns.
#[test]
fn c1_controller_expectations() {
    let t0 = now();
    let mut e = Expectations::none().set(10, 30, t0);
    for _ in 0..11 {
        e = e.creation_observed();
    }
    assert_eq!(counts(&e), (-1, 30));
    assert!(!e.satisfied(t0), "deletions remain");
    for _ in 0..31 {
        e = e.lower(0, 1);
    }
    assert_eq!(counts(&e), (-1, -1));
    assert!(e.satisfied(t0));

    let t1 = t0.plus(Duration::from_seconds(10));
    let e = e.set(1, 2, t1);
    assert_eq!(counts(&e), (1, 2));
    assert!(!e.satisfied(t1));
    assert!(!e.satisfied(t1.plus(EXPECTATIONS_TTL)));
    assert!(e.satisfied(t1.plus(EXPECTATIONS_TTL).plus(Duration::from_nanos(1))));
}

// ---------------------------------------------------------------------------------------
// R-41 .. R-45

/// ExpectCreations replaces the counters (zeroing del) and the timestamp; the
/// deletion keys are not cleared.
#[test]
fn r41_expect_creations_replaces_the_record() {
    let t0 = now();
    let t1 = t0.plus(Duration::from_seconds(30));
    let e = Expectations::none()
        .expect_deletions(["default/a", "default/b"], t0)
        .expect_creations(4, t1);
    assert_eq!(
        e.record(),
        Some(&ExpectationsRecord {
            add: 4,
            del: 0,
            timestamp: t1,
            deletion_keys: keys(&["default/a", "default/b"]),
        })
    );
}

/// R-42, E-08: ExpectDeletions dedupes keys, sets (0, |keys|) and replaces the key set.
#[test]
fn r42_e08_expect_deletions_dedupes_and_replaces() {
    let t0 = now();
    let e = Expectations::none()
        .expect_creations(5, t0)
        .expect_deletions(["default/a", "default/b", "default/a"], t0);
    assert_eq!(counts(&e), (0, 2), "add zeroed, duplicate key counted once");
    let e = e.expect_deletions(["default/c"], t0);
    assert_eq!(
        e.record().map(|r| r.deletion_keys.clone()),
        Some(keys(&["default/c"]))
    );
    assert_eq!(counts(&e), (0, 1));
    // Observing the clobbered key no longer counts.
    assert_eq!(counts(&e.clone().deletion_observed("default/a")), (0, 1));
}

/// CreationObserved lowers add only when a record exists; the timestamp stays.
#[test]
fn r43_creation_observed() {
    assert_eq!(
        Expectations::none().creation_observed(),
        Expectations::none()
    );
    let t0 = now();
    let e = Expectations::none()
        .expect_creations(2, t0)
        .creation_observed();
    assert_eq!(counts(&e), (1, 0));
    assert_eq!(e.record().map(|r| r.timestamp), Some(t0));
    let e = e.creation_observed().creation_observed();
    assert_eq!(counts(&e), (-1, 0), "counters may go negative");
    assert!(e.satisfied(t0));
}

/// only an awaited key counts, once.
#[test]
fn r44_deletion_observed_only_for_awaited_keys_once() {
    let t0 = now();
    let e = Expectations::none().expect_deletions(["default/a", "default/b"], t0);
    let e = e.deletion_observed("default/zzz");
    assert_eq!(counts(&e), (0, 2));
    let e = e.deletion_observed("default/a");
    assert_eq!(counts(&e), (0, 1));
    let e = e.deletion_observed("default/a");
    assert_eq!(counts(&e), (0, 1), "a second observation is ignored");
    assert_eq!(
        e.record().map(|r| r.deletion_keys.clone()),
        Some(keys(&["default/b"]))
    );
    assert!(!e.satisfied(t0));
    let e = e.deletion_observed("default/b");
    assert!(e.satisfied(t0));
    assert_eq!(
        Expectations::none().deletion_observed("default/a"),
        Expectations::none()
    );
}

#[test]
fn r45_delete_expectations_forgets_everything() {
    let e = Expectations::none()
        .expect_deletions(["default/a"], now())
        .deleted();
    assert_eq!(e, Expectations::none());
    assert!(e.satisfied(now()));
}

#[test]
fn lower_and_raise_need_a_record() {
    assert_eq!(Expectations::none().lower(1, 1), Expectations::none());
    assert_eq!(Expectations::none().raise(1, 1), Expectations::none());
    let e = Expectations::none()
        .set(1, 1, now())
        .raise(2, 3)
        .lower(1, 0);
    assert_eq!(counts(&e), (2, 4));
}

/// C2 (TestUIDExpectations): for controllers of 2, 1, 0 and 5 replicas (shuffled), five
/// awaited deletions each ⇒ not satisfied; every key observed ⇒ satisfied; deleted ⇒ gone.
#[test]
fn c2_uid_expectations() {
    let t0 = now();
    for rc in ["rc-5", "rc-0", "rc-2", "rc-1"] {
        let pod_keys: Vec<String> = (0..5).map(|i| format!("default/{rc}-pod-{i}")).collect();
        let mut e = Expectations::none().expect_deletions(pod_keys.clone(), t0);
        assert!(!e.satisfied(t0), "{rc}");
        assert_eq!(counts(&e), (0, 5));
        for k in pod_keys.iter().rev() {
            e = e.deletion_observed(k);
        }
        assert!(e.satisfied(t0), "{rc}");
        assert!(e.record().is_some_and(|r| r.deletion_keys.is_empty()));
        assert_eq!(e.deleted().record(), None);
    }
}

// ---------------------------------------------------------------------------------------
// ExpectationsChange: what a host applies

#[test]
fn changes_apply_as_their_operations() {
    let t0 = now();
    let t1 = t0.plus(Duration::from_seconds(5));
    let e = ExpectationsChange::ExpectCreations { count: 3 }.apply(Expectations::none(), t0);
    assert_eq!(counts(&e), (3, 0));
    let e = ExpectationsChange::LowerCreations { count: 2 }.apply(e, t1);
    assert_eq!(counts(&e), (1, 0));
    assert_eq!(
        e.record().map(|r| r.timestamp),
        Some(t0),
        "lowering keeps the timestamp"
    );
    let e = ExpectationsChange::CreationObserved.apply(e, t1);
    assert_eq!(counts(&e), (0, 0));
    let e = ExpectationsChange::ExpectDeletions {
        keys: vec!["default/a".into(), "default/b".into()],
    }
    .apply(e, t1);
    assert_eq!(counts(&e), (0, 2));
    assert_eq!(e.record().map(|r| r.timestamp), Some(t1));
    let e = ExpectationsChange::DeletionObserved {
        key: "default/b".into(),
    }
    .apply(e, t1);
    assert_eq!(counts(&e), (0, 1));
    let e = ExpectationsChange::Delete.apply(e, t1);
    assert_eq!(e, Expectations::none());
}

#[test]
fn changes_and_records_serialize_for_hosts() {
    let v = serde_json::to_value(ExpectationsChange::ExpectCreations { count: 3 }).expect("ser");
    assert_eq!(v, serde_json::json!({"op": "expectCreations", "count": 3}));
    let v = serde_json::to_value(ExpectationsChange::DeletionObserved { key: "ns/p".into() })
        .expect("ser");
    assert_eq!(
        v,
        serde_json::json!({"op": "deletionObserved", "key": "ns/p"})
    );
    let e = Expectations::none().expect_deletions(["ns/p"], now());
    let v = serde_json::to_value(&e).expect("ser");
    assert_eq!(
        v,
        serde_json::json!({"add": 0, "del": 1, "timestamp": NOW, "deletionKeys": ["ns/p"]})
    );
    assert_eq!(
        serde_json::to_value(Expectations::none()).expect("ser"),
        serde_json::Value::Null
    );
}

// ---------------------------------------------------------------------------------------
// S-4, R-46, E-10: plan reads the expectations before anything else

#[test]
fn s4_e10_unsatisfied_expectations_gate_creates_and_deletes() {
    let config = Config::default();
    let web = rs("web").replicas(2);
    let pending = Expectations::none().expect_creations(1, now());

    // Scale-up blocked.
    let sync_in = input(&web, &[]).expectations(&pending).build();
    let p = plan(&sync_in, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);
    assert_eq!(p.manage.expectations(), None);

    // Scale-down blocked.
    let web0 = rs("web").replicas(0);
    let sync_in = input(&web0, &[healthy("a", &web0)])
        .expectations(&pending)
        .build();
    let p = plan(&sync_in, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::ExpectationsPending);

    // Satisfied ⇒ acting again.
    let fulfilled = pending.creation_observed();
    let sync_in = input(&web, &[]).expectations(&fulfilled).build();
    let p = plan(&sync_in, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 2);
}

/// S-4 uses the sync's `now`: the same record is pending at `now` and expired 5 min later.
#[test]
fn s4_expectations_are_judged_at_the_sync_clock() {
    let config = Config::default();
    let web = rs("web").replicas(2);
    let pending = Expectations::none().expect_creations(1, now());
    let sync_in = input(&web, &[])
        .expectations(&pending)
        .now(&at(now(), 301.0))
        .build();
    let p = plan(&sync_in, &config).expect("plan");
    assert_eq!(create_plan(&p.manage).count, 2);
}

/// The engine-kept table is the value form kept by key: after any sequence of changes to
/// several owners, each key's expectations and R-40's answer are those of the changes
/// applied to a value, and a record gone (R-45, or never set) is not kept.
#[test]
fn r40_r45_the_table_agrees_with_the_value_form() {
    use replicore::ExpectationsTable;
    let now = time("2026-11-21T04:42:05Z");
    let later = now.plus(Duration::from_seconds(301));
    let owner_keys = ["shop/a", "shop/b", "other/a"];
    let pods = ["shop/p0", "shop/p1", "shop/p2", "shop/p3"];
    let mut state: u64 = 7;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % n) as usize
    };
    let mut table = ExpectationsTable::new();
    let mut values: Vec<Expectations> = vec![Expectations::none(); owner_keys.len()];
    let mut most = 0;
    for step in 0..2_000 {
        let pod = pods[next(4)].to_owned();
        let change = match next(9) {
            0 => ExpectationsChange::ExpectCreations { count: 3 },
            1 => ExpectationsChange::ExpectDeletions {
                keys: pods[..1 + next(4)]
                    .iter()
                    .map(|k| (*k).to_owned())
                    .collect(),
            },
            2 => ExpectationsChange::LowerCreations { count: 1 },
            3 => ExpectationsChange::DeletionObserved { key: pod },
            4 => ExpectationsChange::CreationObserved,
            5 => ExpectationsChange::Delete,
            6 => ExpectationsChange::Set { add: 1, del: 2 },
            7 => ExpectationsChange::Lower { add: 1, del: 1 },
            _ => ExpectationsChange::Raise { add: 1, del: 0 },
        };
        let owner = next(owner_keys.len() as u64);
        let at = if step % 3 == 0 { later } else { now };
        table.apply(owner_keys[owner], std::slice::from_ref(&change), at);
        values[owner] = change.apply(std::mem::take(&mut values[owner]), at);
        for (key, value) in owner_keys.iter().zip(&values) {
            assert_eq!(&table.get(key), value, "{key} after step {step}");
            assert_eq!(table.satisfied(key, later), value.satisfied(later));
        }
        let recorded = values.iter().filter(|v| v.record().is_some()).count();
        assert_eq!(table.len(), recorded);
        most = most.max(recorded);
    }
    assert_eq!(most, owner_keys.len(), "every owner had a record at once");
    assert!(table.get("nowhere/x").record().is_none());
    assert!(table.satisfied("nowhere/x", now));
    let kept = owner_keys
        .iter()
        .filter(|k| table.get(k).record().is_some())
        .count();
    assert_eq!(kept, table.len());
    for key in owner_keys {
        table.remove(key);
    }
    assert!(table.is_empty());
}
