//! The benchmark input (`benches/data`) against what upstream computed on it
//! (`benches/data/reference-10k.json`): selector matches, active pods, the status, the
//! pods to delete, and a full `plan` on a scale-down.

use std::collections::HashSet;
use std::io::Read;
use std::path::PathBuf;

use replicore::config::FeatureGates;
use replicore::pods;
use replicore::replicaset::owner;
use replicore::replicaset::rank;
use replicore::replicaset::status::{self, StatusContext};
use replicore::{plan, Config, Manage, OwnerKind, Pod, ReplicaSet, Selector, SyncInput, Time};
use serde::Deserialize;

#[derive(Deserialize)]
struct PodList {
    items: Vec<Pod>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    active_owned_pods: usize,
    active_pods_all: usize,
    generated_at: String,
    get_pods_to_delete_diff: usize,
    json_bytes: usize,
    may_delete: Vec<String>,
    may_delete_count: usize,
    must_delete_count: usize,
    owned_pods: usize,
    selector_matches: usize,
    status_at_generated_at: ReferenceStatus,
    total_pods: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReferenceStatus {
    replicas: i32,
    fully_labeled_replicas: i32,
    ready_replicas: i32,
    available_replicas: i32,
    terminating_replicas: i32,
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("data")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    let path = data(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pod_list_json() -> Vec<u8> {
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(read("pods-10k.json.gz").as_slice())
        .read_to_end(&mut json)
        .expect("gunzip pods-10k.json.gz");
    json
}

struct Fixture {
    reference: Reference,
    now: Time,
    rs: ReplicaSet,
    pods: Vec<Pod>,
    json_len: usize,
}

fn fixture() -> Fixture {
    let reference: Reference =
        serde_json::from_slice(&read("reference-10k.json")).expect("reference-10k.json");
    let now = Time::parse(&reference.generated_at)
        .expect("generatedAt")
        .expect("generatedAt is not zero");
    let rs: ReplicaSet =
        replicore::input::from_json(&read("replicaset.json")).expect("replicaset.json");
    let json = pod_list_json();
    let list: PodList = replicore::input::from_json(&json).expect("pods-10k.json.gz");
    Fixture {
        reference,
        now,
        rs,
        pods: list.items,
        json_len: json.len(),
    }
}

/// Active pods whose controller reference is the RS (by UID), input order.
fn active_owned<'a>(rs: &ReplicaSet, all: &'a [Pod]) -> (usize, Vec<&'a Pod>) {
    let owned: Vec<&Pod> = owner::pods_of_owner(rs, &OwnerKind::replica_set(), all)
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| {
            p.metadata
                .controller_ref()
                .is_some_and(|r| r.uid == rs.metadata.uid)
        })
        .collect();
    let n = owned.len();
    (n, owner::active(&owned))
}

#[test]
fn engine_reproduces_the_upstream_reference() {
    let f = fixture();
    let r = &f.reference;
    let gates = FeatureGates::default();
    assert_eq!(f.now, Time::parse("2026-11-21T04:43:13Z").unwrap().unwrap());
    assert_eq!(f.json_len, r.json_bytes, "decompressed PodList size");
    assert_eq!(f.pods.len(), r.total_pods);

    // Selector matches over every pod.
    let selector = Selector::compile(f.rs.spec.selector.as_ref()).expect("selector compiles");
    let matches = f
        .pods
        .iter()
        .filter(|p| selector.matches(p.metadata.labels.as_ref()))
        .count();
    assert_eq!(matches, r.selector_matches, "selector matches");

    // Active pods among all and among the owned.
    let active_all = f.pods.iter().filter(|p| pods::is_active(p)).count();
    assert_eq!(active_all, r.active_pods_all, "active pods among all");
    let (owned, active) = active_owned(&f.rs, &f.pods);
    assert_eq!(owned, r.owned_pods, "owned pods");
    assert_eq!(active.len(), r.active_owned_pods, "active owned pods");

    // calculateStatus(rs, activeOwned, terminating = 0, err = nil, now).
    let kind = OwnerKind::replica_set();
    let st = status::calculate(
        &f.rs,
        &active,
        0,
        StatusContext {
            gates: &gates,
            owner_kind: &kind,
            manage_error: None,
            now: f.now,
            wall_clock: f.now,
        },
    );
    let want = &r.status_at_generated_at;
    assert_eq!(st.replicas, want.replicas, "replicas");
    assert_eq!(
        st.fully_labeled_replicas, want.fully_labeled_replicas,
        "fullyLabeledReplicas"
    );
    assert_eq!(st.ready_replicas, want.ready_replicas, "readyReplicas");
    assert_eq!(
        st.available_replicas, want.available_replicas,
        "availableReplicas"
    );
    assert_eq!(
        st.terminating_replicas,
        Some(want.terminating_replicas),
        "terminatingReplicas"
    );
    assert_eq!(st.conditions, None, "no ReplicaFailure condition");

    // getPodsToDelete(activeOwned, related = activeOwned, diff = 4928): the certain
    // deletions are chosen, and the rest come from the tie group `mayDelete`.
    let diff = r.get_pods_to_delete_diff;
    assert_eq!(r.may_delete.len(), 54);
    let chosen = rank::pods_to_delete(&active, &active, diff, f.now, &gates);
    assert_eq!(chosen.len(), diff);
    let may: HashSet<&str> = r.may_delete.iter().map(String::as_str).collect();
    let names: Vec<&str> = chosen
        .iter()
        .map(|c| active.get(c.index).expect("index in range").name())
        .collect();
    assert_eq!(
        names.iter().collect::<HashSet<_>>().len(),
        diff,
        "no pod chosen twice"
    );
    let from_tie_group = names.iter().filter(|n| may.contains(*n)).count();
    assert_eq!(from_tie_group, r.may_delete_count, "chosen from mayDelete");
    assert_eq!(
        diff - from_tie_group,
        r.must_delete_count,
        "chosen outside mayDelete (certain deletions)"
    );

    // The full ranking places the tie group right after the certain deletions.
    let ranked = rank::rank(&active, &active, f.now, &gates);
    assert_eq!(ranked.len(), active.len());
    let positions: Vec<usize> = ranked
        .iter()
        .enumerate()
        .filter(|(_, rp)| may.contains(active.get(rp.index).expect("index").name()))
        .map(|(pos, _)| pos)
        .collect();
    let must = r.must_delete_count;
    assert_eq!(
        positions,
        (must..must + r.may_delete.len()).collect::<Vec<_>>(),
        "the 54-pod tie group is contiguous right after the certain deletions"
    );
    // pods_to_delete is the prefix of rank.
    assert!(chosen.iter().zip(&ranked).all(|(a, b)| a == b));
}

#[test]
fn plan_scales_down_by_one_burst_in_rank_order() {
    let f = fixture();
    let gates = FeatureGates::default();
    let mut rs = f.rs.clone();
    rs.spec.replicas = Some(5000);
    let input = SyncInput {
        now: f.now,
        owner: rs,
        other_owners: Vec::new(),
        pods: f.pods.clone().into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(p.halt, None);
    assert!(p.claims.is_empty(), "no adoptions or releases");
    assert_eq!(p.owned, 9857);
    let Manage::Delete(d) = &p.manage else {
        panic!("expected a delete plan, got {:?}", p.manage);
    };
    // diff = 9857 − 5000 = 4857 > burst 500.
    assert_eq!(d.victims.len(), config.burst_replicas);
    assert_eq!(d.victims.len(), 500);

    let (_, active) = active_owned(&f.rs, &f.pods);
    let ranked = rank::rank(&active, &active, f.now, &gates);
    for (pos, (v, r)) in d.victims.iter().zip(&ranked).enumerate() {
        let pod = active.get(r.index).expect("index");
        assert_eq!(v.name, pod.name(), "victim {pos}");
        assert_eq!(v.uid, pod.uid(), "victim {pos}");
        assert_eq!(v.namespace, pod.namespace(), "victim {pos}");
        assert_eq!(
            input.pods.get(v.pod_index).map(Pod::name),
            Some(pod.name()),
            "victim {pos}: pod_index"
        );
        assert_eq!(v.rule, r.rule, "victim {pos}: rule");
        assert_eq!(v.facts, r.facts, "victim {pos}: facts");
    }
    let keys: Vec<String> = d
        .victims
        .iter()
        .map(|v| format!("{}/{}", v.namespace, v.name))
        .collect();
    assert_eq!(
        d.expectations,
        replicore::ExpectationsChange::ExpectDeletions { keys }
    );
}
