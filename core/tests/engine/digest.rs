//! Pod digests (core/src/digest.rs): the per-pod values the ranking, the owner filter and
//! the selectors compare, computed once when a pod enters. They must never disagree
//! with the pod they came from, and the shortcuts they allow (UID prefixes, node
//! fingerprints, the strings buffer) must decide exactly as the strings themselves.

use crate::common;

use common::*;
use replicore::replicaset::owner;
use replicore::replicaset::rank::{self, deletion_order_of};
use replicore::{plan, Config, Error, FeatureGates, Manage, Pod, PodDigest, Pods, SyncInput};
use serde_json::json;

fn assert_in_step(pods: &Pods) {
    assert_eq!(pods.digests().len(), pods.len());
    for (i, (p, d)) in pods.iter().zip(pods.digests()).enumerate() {
        assert_eq!(*d, PodDigest::of(p), "digest {i} is stale");
    }
}

#[test]
fn every_change_to_a_pods_list_recomputes_the_changed_digest() {
    let mut pods: Pods = vec![pod("a").build(), pod("b").ready_since(&ago(60.0)).build()].into();
    assert_in_step(&pods);
    pods.push(pod("c").node("n1").build());
    pods.insert(1, pod("d").cost("5").build());
    assert_in_step(&pods);
    let old = pods.replace(0, pod("a").ready_since(&ago(5.0)).build());
    assert_eq!(old.map(|p| p.metadata.name), Some("a".to_owned()));
    assert!(pods.digests()[0].is_ready(), "replaced pod's digest");
    assert!(pods.update(2, |p| p.spec.node_name = Some("n2".into())));
    assert!(!pods.update(9, |_| {}), "out of range");
    pods.update_each(|p| p.metadata.uid = format!("u-{}", p.metadata.name));
    assert_in_step(&pods);
    assert_eq!(
        pods.remove(1).map(|p| p.metadata.name),
        Some("d".to_owned())
    );
    assert!(pods.remove(7).is_none());
    assert_in_step(&pods);
    pods.extend([pod("e").build()]);
    assert_in_step(&pods);
    assert_eq!(pods.len(), 4);
}

#[test]
fn parsed_inputs_carry_digests_of_their_pods() {
    let owner = rs("web").replicas(1);
    let input = SyncInput::from_json(
        json!({
            "now": "2026-11-21T04:40:12Z",
            "owner": owner.build(),
            "pods": [pod("a").owned_by(&owner).ready_since(&ago(30.0)).build(),
                     pod("b").orphan().deleting().build()],
        })
        .to_string()
        .as_bytes(),
    )
    .expect("valid input");
    assert_in_step(&input.pods);
    assert!(input.pods.digests()[0].is_active() && input.pods.digests()[0].is_ready());
    assert!(!input.pods.digests()[1].is_active() && input.pods.digests()[1].is_terminating());
}

#[test]
fn duplicates_found_through_digests_keep_their_paths() {
    let owner = rs("web");
    let input = SyncInput {
        now: now(),
        owner: owner.build(),
        other_owners: vec![],
        pods: vec![
            pod("a").build(),
            pod("b").build(),
            pod("a").uid("other").build(),
        ]
        .into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    match plan(&input, &Config::default()) {
        Err(Error::DuplicatePod { path, first, .. }) => {
            assert_eq!(path, "pods[2].metadata.name");
            assert_eq!(first, "pods[0]");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    // Same name in another namespace is another pod.
    let mut ok = input.clone();
    ok.pods.update(2, |p| p.metadata.namespace = "other".into());
    assert!(plan(&ok, &Config::default()).is_ok());
}

/// UIDs longer than the 16-byte prefix the digest keeps: pods whose UIDs differ only
/// after it are still told apart, in byte order, by the ranking and the de-duplication.
#[test]
fn uids_sharing_the_digest_prefix_are_compared_in_full() {
    let prefix = "0123456789abcdef";
    // Ready in one log2 bucket at different times: upstream orders them by UID.
    let b = pod("x")
        .uid(&format!("{prefix}-b"))
        .node("n1")
        .ready_since(&ago(100.0));
    let a = pod("y")
        .uid(&format!("{prefix}-a"))
        .node("n2")
        .ready_since(&ago(101.0));
    let pods: Pods = vec![b.build(), a.build()].into();
    let dig: Vec<_> = pods.digested().collect();
    let order = deletion_order_of(&dig, &dig, now(), &FeatureGates::default());
    assert_eq!(order, vec![1, 0], "{prefix}-a goes first");
    assert!(rank::upstream_less(
        (&pods[1], 1),
        (&pods[0], 1),
        now(),
        &FeatureGates::default()
    ));

    // R-45 de-duplicates by UID: the same long UID twice is one pod (the first by
    // namespace/name); another UID with the same prefix is another pod.
    let deploy = "deploy-uid";
    let owner = rs("web").controlled_by(deploy);
    let same1 = pod("p2").uid(&format!("{prefix}-same")).build();
    let same2 = pod("p1").uid(&format!("{prefix}-same")).build();
    let other = pod("p3").uid(&format!("{prefix}-other")).build();
    let all: Vec<Pod> = vec![same1, same2, other];
    let related = owner::related_pods(&owner.build(), &[] as &[replicore::ReplicaSet], &all);
    let mut names: Vec<&str> = related.iter().map(|p| p.name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["p1", "p3"]);
}

/// The strings buffer stores lengths, so no byte inside a label, namespace or UID can
/// make two different strings read as equal.
#[test]
fn selectors_and_owner_filter_read_the_digest_strings_exactly() {
    let owner = rs("web").replicas(0).match_labels(json!({"app": "web"}));
    let input = |pods: Vec<Pod>| SyncInput {
        now: now(),
        owner: owner.build(),
        other_owners: vec![],
        pods: pods.into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    let config = Config::default();
    let plan_of = |pods: Vec<Pod>| {
        let input = input(pods);
        let p = plan(&input, &config).expect("plan");
        (
            p.claims.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
            match &p.manage {
                Manage::Delete(d) => d.victims.iter().map(|v| v.name.clone()).collect(),
                _ => Vec::new(),
            },
        )
    };
    let (claims, _) = plan_of(vec![
        pod("nul-value")
            .orphan()
            .labels(json!({"app": "web\u{0}"}))
            .build(),
        pod("nul-key")
            .orphan()
            .labels(json!({"app\u{0}": "web"}))
            .build(),
        pod("prefix-key")
            .orphan()
            .labels(json!({"ap": "pweb"}))
            .build(),
        pod("match")
            .orphan()
            .labels(json!({"app": "web", "z": ""}))
            .build(),
    ]);
    assert_eq!(claims, ["match"], "only the exact label is adopted");

    // Owned: kind, name and UID compared whole; a longer UID is another owner.
    let mine = pod("mine").owned_by(&owner).build();
    let longer = pod("longer")
        .controller_ref(
            "ReplicaSet",
            &owner.name(),
            &format!("{}x", owner.uid_str()),
        )
        .build();
    let other_ns = pod("elsewhere").owned_by(&owner).ns("other").build();
    let (claims, victims) = plan_of(vec![mine, longer, other_ns]);
    assert!(claims.is_empty());
    assert_eq!(
        victims,
        ["mine"],
        "replicas 0 deletes the owner's own pod only"
    );
}

/// R-80..R-82 counted from digests (as `complete` does) equal the counts from the pods,
/// at the availability boundary (ready exactly `minReadySeconds` ago: available, R-03),
/// with a zero ready time, and with labels that only partly match the template.
#[test]
fn status_from_digests_equals_status_from_pods() {
    use replicore::replicaset::status::{calculate, calculate_of, StatusContext};
    let gates = FeatureGates::default();
    let kind = replicore::OwnerKind::replica_set();
    for min_ready in [0, 10] {
        let owner = rs("web")
            .min_ready(min_ready)
            .template_labels(json!({"app": "web", "tier": "fe"}));
        let pods: Pods = vec![
            pod("boundary")
                .labels(json!({"app": "web", "tier": "fe"}))
                .ready_since(&ago(10.0)),
            pod("young")
                .labels(json!({"app": "web", "tier": "fe"}))
                .ready_since(&ago(9.5)),
            pod("zero").labels(json!({"app": "web"})).ready_no_ltt(),
            pod("not-ready")
                .labels(json!({"app": "web", "tier": "fe", "x": "y"}))
                .not_ready(),
            pod("pending").labels(json!({"tier": "fe"})),
        ]
        .into_iter()
        .map(|p| p.build())
        .collect();
        let ctx = StatusContext {
            gates: &gates,
            owner_kind: &kind,
            manage_error: None,
            now: now(),
            wall_clock: now(),
        };
        let refs: Vec<&Pod> = pods.iter().collect();
        let dig: Vec<_> = pods.digested().collect();
        let from_pods = calculate(&owner.build(), &refs, 0, ctx);
        let from_digests = calculate_of(&owner.build(), &dig, 0, ctx);
        assert_eq!(from_pods, from_digests, "minReadySeconds {min_ready}");
        let expected_available = if min_ready == 0 { 3 } else { 1 };
        assert_eq!(from_digests.available_replicas, expected_available);
        assert_eq!(from_digests.fully_labeled_replicas, 3);
        assert_eq!(from_digests.ready_replicas, 3);
    }
}
