//! Which pods a sync sees (§5: R-20..R-22) and claiming (§6: R-30..R-34), with the edge
//! cases E-04, E-05, E-09, E-12. Upstream A18 (TestDoNotPatchPodWithOtherControlRef),
//! A19 (TestPatchPodFails), A20 (TestDoNotAdoptOrCreateIfBeingDeleted), A21 (…Race).

use crate::common;

use common::*;
use replicore::claim::{ClaimKind, STRATEGIC_MERGE_PATCH};
use replicore::outcome::{ApiError, CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
use replicore::replicaset::owner;
use replicore::{plan, Config, OwnerKind, Selector};
use replicore::{Idle, Manage, Requeue};
use serde_json::json;

fn names<'a>(pods: impl IntoIterator<Item = &'a replicore::Pod>) -> Vec<&'a str> {
    pods.into_iter().map(|p| p.name()).collect()
}

fn claims_outcome(results: Vec<CallResult>, live: Option<LiveOwner>) -> SyncOutcome {
    SyncOutcome {
        claims: ClaimOutcome {
            live_owner: live,
            results,
        },
        ..SyncOutcome::default()
    }
}

fn live(owner: &Rs) -> Option<LiveOwner> {
    Some(LiveOwner::Found(Box::new(owner.build())))
}

// ---------------------------------------------------------------------------------------
// E-04, E-05

#[test]
fn r20_r21_owned_pods_then_orphans_of_the_namespace() {
    let web = rs("web");
    let pods = build_pods(&[
        pod("orphan-1"),
        pod("mine-1").owned_by(&web),
        pod("theirs").owned_by(&rs("other")),
        pod("orphan-2").non_controller_ref(&web),
        pod("elsewhere").ns("kube-system"),
        pod("mine-2").owned_by(&web).phase("Succeeded"),
        pod("orphan-elsewhere").ns("kube-system").owned_by(&web),
    ]);
    let seen = owner::pods_of_owner(&web.build(), &OwnerKind::replica_set(), &pods);
    let got: Vec<(usize, &str)> = seen.iter().map(|(i, p)| (*i, p.name())).collect();
    // Owned first (input order), then orphans (input order); terminal pods are still listed.
    assert_eq!(
        got,
        vec![
            (1, "mine-1"),
            (5, "mine-2"),
            (0, "orphan-1"),
            (3, "orphan-2")
        ]
    );
}

/// a controller reference carrying this owner's UID but another kind or name is
/// not this owner's.
#[test]
fn r22_uid_alone_does_not_make_a_pod_ours() {
    let web = rs("web");
    let pods = build_pods(&[
        pod("wrong-name").controller_ref("ReplicaSet", "not-web", "uid-web"),
        pod("wrong-kind").controller_ref("ReplicationController", "web", "uid-web"),
        pod("wrong-uid").controller_ref("ReplicaSet", "web", "uid-other"),
        pod("right").controller_ref("ReplicaSet", "web", "uid-web"),
    ]);
    let seen = owner::pods_of_owner(&web.build(), &OwnerKind::replica_set(), &pods);
    assert_eq!(names(seen.iter().map(|(_, p)| *p)), vec!["right"]);
    // For a ReplicationController owner the kind must say so.
    let seen = owner::pods_of_owner(&web.build(), &OwnerKind::replication_controller(), &pods);
    assert_eq!(names(seen.iter().map(|(_, p)| *p)), vec!["wrong-kind"]);
}

#[test]
fn r22_e05_unseen_pods_do_not_count_and_are_not_claimed() {
    let web = rs("web").replicas(2);
    let pods = [
        pod("wrong-name")
            .controller_ref("ReplicaSet", "not-web", "uid-web")
            .ready_since(NOW),
        pod("other-ns").ns("elsewhere").ready_since(NOW),
        healthy("mine", &web),
    ];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert_eq!(p.owned, 1);
    assert_eq!(create_plan(&p.manage).count, 1);
}

/// E-04: pods of other namespaces are invisible and never adopted.
#[test]
fn e04_pods_in_other_namespaces_are_never_adopted() {
    let web = rs("web").replicas(1);
    let input = input(&web, &[pod("p").ns("other")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert_eq!(create_plan(&p.manage).count, 1);
}

/// A18 (TestDoNotPatchPodWithOtherControlRef), E-05: a matching pod controlled by another
/// ReplicaSet ⇒ 2 creates, 0 patches.
#[test]
fn a18_e05_pod_of_another_controller_is_left_alone() {
    let web = rs("web").replicas(2);
    let other = rs("other").uid("another-uid");
    let input = input(&web, &[healthy("theirs", &other)]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert!(!p.needs_owner_recheck);
    assert_eq!(create_plan(&p.manage).count, 2);
}

// ---------------------------------------------------------------------------------------
// release

/// release answered NotFound or Invalid is a success; any other error fails the
/// sync.
#[test]
fn r30_e12_release_not_found_or_invalid_is_not_an_error() {
    let web = rs("web").replicas(1);
    let pods = kept_and_relabelled(&web);
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    for (reason, fails) in [("NotFound", false), ("Invalid", false), ("Conflict", true)] {
        let outcome = claims_outcome(vec![CallResult::error(reason, format!("{reason}!"))], None);
        assert_eq!(
            p.manage_after(&outcome.claims).expect("fits"),
            if fails {
                Manage::Nothing {
                    why: Idle::ClaimFailed,
                }
            } else {
                p.manage.clone()
            }
        );
        let done = finish(&p, &outcome);
        assert_eq!(done.error.is_some(), fails, "{reason}");
        if fails {
            assert_eq!(done.error.as_deref(), Some("Conflict!"));
            assert_eq!(done.status, None);
        } else {
            let status = done.status.expect("status written");
            assert_eq!(status.replicas, 1, "the released pod no longer counts");
        }
    }
    // The HTTP code alone is enough.
    let by_code = CallResult::Error(ApiError {
        code: Some(404),
        ..ApiError::default()
    });
    let done = finish(&p, &claims_outcome(vec![by_code], None));
    assert_eq!(done.error, None);
}

/// R-30, E-09: an owner being deleted releases nothing, but still claims its matching pods.
#[test]
fn r30_e09_owner_being_deleted_releases_nothing_and_keeps_claiming() {
    let web = rs("web").replicas(5).deleting();
    let pods = kept_and_relabelled(&web);
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert_eq!(p.owned, 1);
    assert_eq!(idle(&p.manage), Idle::OwnerTerminating);
    let done = finish(&p, &SyncOutcome::default());
    let status = done.status.expect("E-09: status still written");
    assert_eq!(status.replicas, 1);
    assert_eq!(done.error, None);
}

// ---------------------------------------------------------------------------------------
// adopt

/// R-31 (issue 15): an orphan that carries another owner's non-controller reference is
/// adopted with a strategic merge patch naming only this owner's reference, so the
/// API server merges it into `ownerReferences` by `uid` and the other reference stays.
#[test]
fn r31_adoption_keeps_a_non_controller_reference_by_strategic_merge() {
    let web = rs("web").replicas(1);
    let foreign = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "name": "bundle", "uid": "uid-bundle",
    });
    let mut orphan = pod("orphan");
    orphan.v["metadata"]["ownerReferences"] = json!([foreign]);
    let adopting = input(&web, &[orphan]).build();
    let config = Config::default();
    let p = plan(&adopting, &config).expect("plan");
    assert_eq!(p.claims.len(), 1);
    let c = &p.claims[0];
    assert_eq!(c.kind, ClaimKind::Adopt);
    assert_eq!(c.patch_type, STRATEGIC_MERGE_PATCH);
    // The body lists only the new controller reference (merged by uid), never the
    // pod's whole list, and carries the pod-UID precondition.
    assert_eq!(c.patch, web_adopts_orphan_patch());
    // Adoption and release share the patch type, as upstream's PatchPod sends both.
    let web2 = rs("web").replicas(1);
    let released = [healthy("relabelled", &web2).labels(json!({"app": "other"}))];
    let releasing = input(&web2, &released).build();
    let r = plan(&releasing, &config).expect("plan");
    assert_eq!(r.claims.len(), 1);
    assert_eq!(r.claims[0].kind, ClaimKind::Release);
    assert_eq!(r.claims[0].patch_type, c.patch_type);
}

#[test]
fn r31_orphans_that_are_not_adopted() {
    let web = rs("web").replicas(1);
    let pods = [
        pod("unmatched").labels(json!({"app": "other"})),
        pod("unlabelled").no_labels(),
        // Terminating orphans are never adopted (not active, R-04).
        pod("terminating").deleting(),
        // Terminal orphans are ignored (E-07).
        pod("done").phase("Succeeded"),
    ];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert!(!p.needs_owner_recheck);
    assert_eq!(create_plan(&p.manage).count, 1);
}

/// R-31, E-12: an adoption answered NotFound is not claimed and not an error: the pods
/// still missing are created.
#[test]
fn r31_e12_adoption_not_found_is_not_an_error() {
    let web = rs("web").replicas(2);
    let pods = [healthy("mine", &web), pod("orphan")];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(idle(&p.manage), Idle::InSync);
    let outcome = claims_outcome(
        vec![CallResult::error("NotFound", "pods \"orphan\" not found")],
        live(&web),
    );
    let manage = p.manage_after(&outcome.claims).expect("fits");
    let c = create_plan(&manage);
    assert_eq!(c.count, 1);
    let mut outcome = outcome;
    outcome.creates = vec![CallResult::created("web-x")];
    let done = finish(&p, &outcome);
    assert_eq!(done.created, 1);
    assert_eq!(done.error, None);
    assert_eq!(done.status.expect("status").replicas, 1);
}

#[test]
fn r31_adoption_other_error_fails_the_sync() {
    let web = rs("web").replicas(2);
    let pods = [healthy("mine", &web), pod("orphan")];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let outcome = claims_outcome(
        vec![CallResult::error(
            "Conflict",
            "the object has been modified",
        )],
        live(&web),
    );
    let done = finish(&p, &outcome);
    assert_eq!(
        done.manage,
        Manage::Nothing {
            why: Idle::ClaimFailed
        }
    );
    assert_eq!(done.error.as_deref(), Some("the object has been modified"));
    assert_eq!(done.status, None, "R-33: no status write");
}

// ---------------------------------------------------------------------------------------
// the live re-check

#[test]
fn r32_adoption_allowed_by_the_live_read() {
    let web = rs("web").replicas(1);
    let input = input(&web, &[pod("orphan")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(
        p.adoption_allowed(&LiveOwner::Found(Box::new(web.build()))),
        Ok(())
    );
    assert_eq!(
        p.adoption_allowed(&LiveOwner::Failed(ApiError::new(
            "InternalError",
            "etcd timeout"
        ))),
        Err("etcd timeout".into())
    );
}

/// A21 (TestDoNotAdoptOrCreateIfBeingDeletedRace), R-32: the cache says alive, the live
/// read says deleted ⇒ every adoption fails with that error; 0 creates, 0 deletes.
#[test]
fn a21_r32_live_owner_deleted_refuses_every_adoption() {
    let web = rs("web").replicas(3);
    let input = input(&web, &[pod("o1"), pod("o2")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(p.claims.len(), 2);
    let gone = rs("web").deleting();
    let live_owner = LiveOwner::Found(Box::new(gone.build()));
    let why = p.adoption_allowed(&live_owner).expect_err("refused");
    assert!(
        why.starts_with("default/web has just been deleted at "),
        "{why}"
    );
    // The host skips the patches.
    let outcome = claims_outcome(
        vec![CallResult::Skipped, CallResult::Skipped],
        Some(live_owner),
    );
    assert_eq!(
        p.manage_after(&outcome.claims).expect("fits"),
        Manage::Nothing {
            why: Idle::ClaimFailed
        }
    );
    let done = finish(&p, &outcome);
    assert_eq!((done.created, done.create_calls, done.deleted), (0, 0, 0));
    assert_eq!(done.status, None);
    let error = done.error.expect("error");
    assert_eq!(
        error,
        format!("[can't adopt Pod default/o1 (uid-o1): {why}, can't adopt Pod default/o2 (uid-o2): {why}]")
    );
    assert_eq!(done.requeue, Requeue::RateLimited { error });
}

#[test]
fn r32_live_owner_with_a_new_uid_refuses_adoption() {
    let web = rs("web").replicas(1);
    let input = input(&web, &[pod("o1")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let outcome = claims_outcome(
        vec![CallResult::Skipped],
        Some(LiveOwner::Found(Box::new(
            rs("web").uid("recreated").build(),
        ))),
    );
    let done = finish(&p, &outcome);
    assert_eq!(
        done.error.as_deref(),
        Some("can't adopt Pod default/o1 (uid-o1): original default/web is gone: got uid recreated, wanted uid-web")
    );
}

/// only an attempted adoption triggers the live read.
#[test]
fn r32_no_adoption_no_live_read() {
    let web = rs("web").replicas(1);
    let input = input(&web, &[healthy("mine", &web)]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(!p.needs_owner_recheck);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!(done.error, None);
}

// ---------------------------------------------------------------------------------------
// any claim error stops the sync. A19, A20

/// A19 (TestPatchPodFails): two matching orphans, every patch fails ⇒ an error with the
/// patch errors, 2 patch attempts, 0 creates, 0 deletes, rate-limited requeue.
#[test]
fn a19_r33_failed_patches_fail_the_sync() {
    let web = rs("web").replicas(2);
    let input = input(&web, &[pod("o1"), pod("o2")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(p.claims.len(), 2, "two patch attempts");
    let outcome = claims_outcome(
        vec![
            CallResult::error("InternalError", "fake patch error 1"),
            CallResult::error("InternalError", "fake patch error 2"),
        ],
        live(&web),
    );
    let done = finish(&p, &outcome);
    assert_eq!(
        done.manage,
        Manage::Nothing {
            why: Idle::ClaimFailed
        }
    );
    assert_eq!((done.created, done.create_calls, done.deleted), (0, 0, 0));
    let error = done.error.clone().expect("error");
    assert!(
        error.contains("fake patch error 1") && error.contains("fake patch error 2"),
        "{error}"
    );
    assert!(matches!(done.requeue, Requeue::RateLimited { .. }));
    assert_eq!(done.status, None, "R-33: no status update");
    assert!(done.expectations.is_empty());
}

/// a single claim error is the error itself (no brackets).
#[test]
fn r33_one_error_is_not_bracketed() {
    let web = rs("web").replicas(2);
    let input = input(&web, &[pod("o1"), pod("o2")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let outcome = claims_outcome(
        vec![CallResult::ok(), CallResult::error("InternalError", "boom")],
        live(&web),
    );
    assert_eq!(finish(&p, &outcome).error.as_deref(), Some("boom"));
}

/// A20 (TestDoNotAdoptOrCreateIfBeingDeleted), E-09: an owner being deleted with a
/// matching orphan ⇒ no error, no creates, deletes or patches.
#[test]
fn a20_e09_owner_being_deleted_adopts_and_creates_nothing() {
    let web = rs("web").replicas(2).deleting();
    let input = input(&web, &[pod("orphan")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert!(!p.needs_owner_recheck);
    assert_eq!(idle(&p.manage), Idle::OwnerTerminating);
    let done = finish(&p, &SyncOutcome::default());
    assert_eq!(done.error, None);
    assert_eq!((done.created, done.deleted), (0, 0));
}

/// §6: upstream patches in input order; the patches are independent of each other, so
/// the plan lists them by namespace/name to stay the same under any input order.
#[test]
fn s6_claims_are_listed_by_name_whatever_the_input_order() {
    let web = rs("web").replicas(3);
    let input = input(&web, &[pod("zeta"), pod("alpha")]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let order: Vec<&str> = p.claims.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(order, vec!["alpha", "zeta"]);
}

// ---------------------------------------------------------------------------------------
// terminating pods for status

#[test]
fn r34_is_claimed_by_needs_our_uid_and_a_matching_selector() {
    let web = rs("web");
    let sel = Selector::compile(web.build().spec.selector.as_ref()).expect("selector");
    let owner = web.build();
    assert!(owner::is_claimed_by(
        &pod("a").owned_by(&web).deleting().build(),
        &owner,
        &sel
    ));
    assert!(!owner::is_claimed_by(
        &pod("a").owned_by(&web).labels(json!({"app": "x"})).build(),
        &owner,
        &sel
    ));
    assert!(!owner::is_claimed_by(&pod("a").build(), &owner, &sel));
    assert!(!owner::is_claimed_by(
        &pod("a").owned_by(&rs("b")).build(),
        &owner,
        &sel
    ));
}

#[test]
fn r34_only_our_matching_terminating_pods_count() {
    let web = rs("web").replicas(1);
    let pods = [
        healthy("active", &web),
        healthy("ours", &web).deleting(),
        healthy("ours-unmatched", &web)
            .labels(json!({"app": "x"}))
            .deleting(),
        pod("orphan").deleting(),
        healthy("ours-failed", &web).phase("Failed").deleting(),
    ];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(
        p.claims.is_empty(),
        "terminating pods are never claimed or released"
    );
    let done = finish(&p, &SyncOutcome::default());
    let status = done.status.expect("status");
    assert_eq!(status.replicas, 1);
    assert_eq!(status.terminating_replicas, Some(1));
}

/// R-31, E-12, R-55..R-57: an adoption answered NotFound while the owner has too many
/// pods: the scale-down ranks the pods it does hold, exactly as a plan over those pods
/// would, from the plan alone (also after a JSON round trip of the plan).
#[test]
fn r31_adoption_not_found_while_over_replicated_ranks_what_is_held() {
    let web = rs("web").replicas(1);
    let pods = [
        healthy("mine", &web),
        pod("o1").node("node-1").ready_since(&ago(60.0)),
        pod("o2").node("node-2").ready_since(&ago(120.0)),
    ];
    let input = input(&web, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(delete_plan(&p.manage).victims.len(), 2);
    assert!(
        p.basis.reserve.is_some(),
        "a failed adoption may need a ranking"
    );
    // o1 is gone; o2 is adopted.
    let by_name = |n: &str| {
        if n == "o1" {
            CallResult::error("NotFound", "pods \"o1\" not found")
        } else {
            CallResult::ok()
        }
    };
    let results = p.claims.iter().map(|c| by_name(&c.name)).collect();
    let outcome = claims_outcome(results, live(&web));
    // What a plan over the pods the owner then holds decides.
    let held = [
        healthy("mine", &web),
        healthy("o2", &web).ready_since(&ago(120.0)),
    ];
    let reference = plan(&input_of(&web, &held), &config).expect("plan");
    let want: Vec<String> = delete_plan(&reference.manage)
        .victims
        .iter()
        .map(|v| v.name.clone())
        .collect();
    assert_eq!(want.len(), 1);
    let back: replicore::SyncPlan =
        serde_json::from_str(&serde_json::to_string(&p).expect("serializes")).expect("parses");
    for p in [&p, &back] {
        let manage = p.manage_after(&outcome.claims).expect("fits");
        let got: Vec<String> = delete_plan(&manage)
            .victims
            .iter()
            .map(|v| v.name.clone())
            .collect();
        assert_eq!(got, want);
        let mut out = outcome.clone();
        out.deletes = vec![CallResult::ok()];
        let done = finish(p, &out);
        assert_eq!(done.deleted, 1);
        assert_eq!(done.status.expect("status").replicas, 2);
    }
}

fn input_of(owner: &Rs, pods: &[P]) -> replicore::SyncInput {
    input(owner, pods).build()
}
