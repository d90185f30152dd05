//! The orphan → owner lookup, E-02 (event-side asymmetry). Upstream A6
//! (TestPodControllerLookup).

use crate::common;

use super::owners_selecting;
use common::*;
use replicore::{on_pod_event, EventDecision, OwnerKind, PodEvent, ReplicaSet};
use serde_json::json;

fn kind() -> OwnerKind {
    OwnerKind::replica_set()
}

fn build_all(owners: &[Rs]) -> Vec<ReplicaSet> {
    owners.iter().map(Rs::build).collect()
}

fn selecting(pod: &P, owners: &[Rs]) -> Vec<String> {
    let owners = build_all(owners);
    owners_selecting(&pod.build(), &owners)
        .iter()
        .map(|r| r.metadata.name.clone())
        .collect()
}

// ---------------------------------------------------------------------------------------
// R-15, A6, E-02

/// A6 (TestPodControllerLookup).
#[test]
fn a6_pod_controller_lookup() {
    let basic = rs("basic").ns("").no_selector();
    assert!(selecting(&pod("p").ns("").no_labels(), &[basic]).is_empty());
    let foo = rs("foo").ns("").match_labels(json!({"foo": "bar"}));
    assert!(selecting(&pod("p").ns("ns").labels(json!({"foo": "bar"})), &[foo]).is_empty());
    let bar = rs("bar").ns("ns").match_labels(json!({"foo": "bar"}));
    assert_eq!(
        selecting(&pod("p").ns("ns").labels(json!({"foo": "bar"})), &[bar]),
        vec!["bar"]
    );
}

/// empty label maps match nothing; empty ("everything"), nil and invalid selectors
/// are skipped; several matches are all returned.
#[test]
fn r15_e02_orphan_lookup_rules() {
    let owners = [
        rs("everything").selector(json!({})),
        rs("nil").no_selector(),
        rs("invalid").selector(json!({"matchExpressions": [{"key": "app", "operator": "Bogus"}]})),
        rs("web1"),
        rs("web2").match_labels(json!({"app": "web"})),
        rs("db").match_labels(json!({"app": "db"})),
    ];
    assert_eq!(selecting(&pod("p"), &owners), vec!["web1", "web2"]);
    assert!(selecting(&pod("p").labels(json!({})), &owners).is_empty());
    assert!(selecting(&pod("p").no_labels(), &owners).is_empty());
    // E-02: an orphan add never enqueues the empty-selector owner.
    let d = on_pod_event(
        PodEvent::Added(&pod("x").labels(json!({"z": "1"})).build()),
        &build_all(&owners),
        &kind(),
    );
    assert_eq!(d, EventDecision::default());
}
