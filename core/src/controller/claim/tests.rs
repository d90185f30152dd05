//! The claim patches and the live-read check next to their code;
//! the claiming a sync does through the public API is tested in
//! `core/tests/engine/rules_claim.rs`.

use crate::common;

use super::{adopt_patch, can_adopt, release_patch, ClaimKind, STRATEGIC_MERGE_PATCH};
use common::*;
use replicore::{plan, Config, Idle, OwnerKind};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn r30_owned_pod_no_longer_selected_is_released() -> TestResult {
    let web = rs("web").replicas(1);
    let pods = kept_and_relabelled(&web);
    let p = plan(&input(&web, &pods).build(), &Config::default())?;
    assert_eq!(p.claims.len(), 1);
    let c = &p.claims[0];
    assert_eq!(c.kind, ClaimKind::Release);
    assert_eq!(
        (c.namespace.as_str(), c.name.as_str(), c.uid.as_str()),
        ("default", "relabelled", "uid-relabelled")
    );
    assert_eq!(c.pod_index, 1);
    assert_eq!(c.patch_type, "application/strategic-merge-patch+json");
    assert_eq!(
        c.patch,
        json!({"metadata": {
            "ownerReferences": [{"$patch": "delete", "uid": "uid-web"}],
            "uid": "uid-relabelled",
        }})
    );
    assert_eq!(c.patch, release_patch(&web.build(), &pods[1].build()));
    // Releases need no live read of the owner.
    assert!(!p.needs_owner_recheck);
    assert_eq!(p.owned, 1);
    assert_eq!(idle(&p.manage), Idle::InSync);
    Ok(())
}

#[test]
fn r31_matching_orphan_is_adopted_with_the_controller_patch() -> TestResult {
    let web = rs("web").replicas(2);
    let pods = [
        healthy("mine", &web),
        pod("orphan").non_controller_ref(&web),
    ];
    let p = plan(&input(&web, &pods).build(), &Config::default())?;
    assert_eq!(p.claims.len(), 1);
    let c = &p.claims[0];
    assert_eq!(c.kind, ClaimKind::Adopt);
    assert_eq!(c.name, "orphan");
    assert_eq!(c.pod_index, 1);
    // Upstream's PatchPod sends a strategic merge patch: ownerReferences merge by uid,
    // so the orphan's non-controller reference stays beside the new controller.
    assert_eq!(c.patch_type, "application/strategic-merge-patch+json");
    assert_eq!(c.patch_type, STRATEGIC_MERGE_PATCH);
    assert_eq!(c.patch, web_adopts_orphan_patch());
    assert_eq!(
        c.patch,
        adopt_patch(&web.build(), &OwnerKind::replica_set(), &pods[1].build())
    );
    assert!(p.needs_owner_recheck, "R-32: adoptions need the live read");
    // The plan counts the adoption: 2 pods, nothing to create.
    assert_eq!(idle(&p.manage), Idle::InSync);
    let done = finish(&p, &all_ok(&p, &web));
    assert_eq!(done.status.ok_or("a status")?.replicas, 2);
    Ok(())
}

#[test]
fn r32_can_adopt_checks_uid_and_deletion() {
    let cached = rs("web").build();
    assert_eq!(can_adopt(&cached, &rs("web").build()), Ok(()));
    assert_eq!(
        can_adopt(&cached, &rs("web").uid("new-uid").build()),
        Err("original default/web is gone: got uid new-uid, wanted uid-web".into())
    );
    let deleting = rs("web").deleting();
    let at = deleting.v["metadata"]["deletionTimestamp"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        can_adopt(&cached, &deleting.build()),
        Err(format!("default/web has just been deleted at {at}"))
    );
}
