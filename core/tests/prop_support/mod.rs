//! Strategies and helpers for the property tests: realistic owners, pods, expectations
//! and configurations as model structs, arbitrary and "almost valid" JSON, and a
//! simulated host that answers a plan's calls.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::{json, Value};

use replicore::claim::ClaimKind;
use replicore::model::{
    Container, ContainerStatus, LabelSelector, LabelSelectorRequirement, ObjectMeta,
    OwnerReference, Pod, PodCondition, PodSpec, PodStatus, PodTemplateSpec, ReplicaSet,
    ReplicaSetCondition, ReplicaSetSpec, ReplicaSetStatus, StringMap, TemplateMeta,
};
use replicore::{
    ApiError, CallResult, ClaimOutcome, Config, Duration, Expectations, ExpectationsRecord,
    LiveOwner, Manage, OwnerKind, SyncInput, SyncOutcome, SyncPlan, Time,
};

pub const NS_A: &str = "ns-a";
pub const NS_B: &str = "ns-b";
pub const OWNER_NAME: &str = "web";
pub const OWNER_UID: &str = "rs-web-uid";
pub const OTHER_OWNER_NAME: &str = "api";
pub const OTHER_OWNER_UID: &str = "rs-api-uid";
pub const DEPLOYMENT_UID: &str = "dep-web-uid";
pub const COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// The fixed controller clock of every generated input: 2026-11-21T04:40:12Z.
pub fn now() -> Time {
    Time::from_unix_seconds(1_795_236_012)
}

const SEC: i64 = 1_000_000_000;

fn ago(nanos: i64) -> Option<Time> {
    Some(Time::from_unix_nanos(now().unix_nanos() - nanos))
}

/// A timestamp around `now`: zero (`None`), exactly `now`, from a small pool shared by
/// many pods (ties, and distinct times inside one log2 bucket), seconds to weeks old,
/// slightly in the future, and rarely the representable extremes.
pub fn time_around_now() -> impl Strategy<Value = Option<Time>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(now())),
        // A pool: 1000 s and 1001 s share log2 bucket 39; 1 h; 3 d.
        4 => prop::sample::select(vec![1000 * SEC, 1001 * SEC, 1003 * SEC + 7, 3600 * SEC, 3 * 86400 * SEC])
            .prop_map(ago),
        3 => (1i64..60 * SEC).prop_map(ago),
        4 => (60i64..(4 * 7 * 86400)).prop_map(|s| ago(s * SEC)),
        1 => (1i64..120 * SEC).prop_map(|n| ago(-n)),
        1 => prop::sample::select(vec![i64::MAX, i64::MIN + 1, 0, 1])
            .prop_map(|n| Some(Time::from_unix_nanos(n))),
    ]
}

/// Times near `now` only (no extremes): for owners and expectations.
fn recent(max_secs: i64) -> impl Strategy<Value = Time> {
    (0i64..max_secs * SEC).prop_map(|n| Time::from_unix_nanos(now().unix_nanos() - n))
}

fn labels(pairs: &[(&str, &str)]) -> StringMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Pod labels: matching the usual selector or not, absent, empty.
fn pod_labels() -> impl Strategy<Value = Option<StringMap>> {
    prop_oneof![
        6 => Just(Some(labels(&[("app", "web")]))),
        2 => Just(Some(labels(&[("app", "web"), ("ver", "v1")]))),
        1 => Just(Some(labels(&[("app", "web"), ("tier", "fe")]))),
        2 => Just(Some(labels(&[("app", "api")]))),
        1 => Just(None),
        1 => Just(Some(StringMap::new())),
    ]
}

/// How a pod relates to the owner under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    Owned,
    /// Controller reference with the owner's UID but another name.
    OwnedOtherName,
    /// Controller reference with the owner's UID and name but the other kind.
    OwnedOtherKind,
    OtherOwner,
    Orphan,
    /// Only a non-controller owner reference.
    OrphanNonController,
}

fn ownership() -> impl Strategy<Value = Ownership> {
    prop_oneof![
        8 => Just(Ownership::Owned),
        1 => Just(Ownership::OwnedOtherName),
        1 => Just(Ownership::OwnedOtherKind),
        2 => Just(Ownership::OtherOwner),
        4 => Just(Ownership::Orphan),
        1 => Just(Ownership::OrphanNonController),
    ]
}

fn controller_ref(kind: &str, name: &str, uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: if kind == "ReplicationController" {
            "v1".into()
        } else {
            "apps/v1".into()
        },
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

fn owner_refs(o: Ownership) -> Vec<OwnerReference> {
    match o {
        Ownership::Owned => vec![controller_ref("ReplicaSet", OWNER_NAME, OWNER_UID)],
        Ownership::OwnedOtherName => vec![controller_ref("ReplicaSet", "web-renamed", OWNER_UID)],
        Ownership::OwnedOtherKind => {
            vec![controller_ref(
                "ReplicationController",
                OWNER_NAME,
                OWNER_UID,
            )]
        }
        Ownership::OtherOwner => {
            vec![controller_ref(
                "ReplicaSet",
                OTHER_OWNER_NAME,
                OTHER_OWNER_UID,
            )]
        }
        Ownership::Orphan => Vec::new(),
        Ownership::OrphanNonController => {
            let mut r = controller_ref("ReplicaSet", OWNER_NAME, OWNER_UID);
            r.controller = Some(false);
            vec![r]
        }
    }
}

fn phase() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        2 => Just(Some("Pending".to_owned())),
        6 => Just(Some("Running".to_owned())),
        1 => Just(Some("Unknown".to_owned())),
        1 => Just(Some("Succeeded".to_owned())),
        1 => Just(Some("Failed".to_owned())),
        1 => Just(Some(String::new())),
        1 => Just(None),
    ]
}

fn node() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(String::new())),
        3 => Just(Some("node-1".to_owned())),
        3 => Just(Some("node-2".to_owned())),
        1 => Just(Some("node-3".to_owned())),
    ]
}

fn condition_status() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => Just("True"), 2 => Just("False"), 1 => Just("Unknown"), 1 => Just("")]
}

fn ready_condition(status: &str, t: Option<Time>) -> PodCondition {
    PodCondition {
        type_: "Ready".into(),
        status: status.into(),
        last_transition_time: t,
    }
}

/// Conditions: usually one Ready condition, sometimes another type before it, sometimes a
/// second Ready condition after it (only the first counts, E-14).
fn conditions() -> impl Strategy<Value = Vec<PodCondition>> {
    (
        prop::option::weighted(0.85, (condition_status(), time_around_now())),
        prop::option::weighted(0.1, time_around_now()),
        prop::option::weighted(0.1, (condition_status(), time_around_now())),
    )
        .prop_map(|(ready, other, dup)| {
            let mut out = Vec::new();
            if let Some(t) = other {
                out.push(PodCondition {
                    type_: "PodScheduled".into(),
                    status: "True".into(),
                    last_transition_time: t,
                });
            }
            if let Some((s, t)) = ready {
                out.push(ready_condition(s, t));
            }
            if let Some((s, t)) = dup {
                out.push(ready_condition(s, t));
            }
            out
        })
}

fn restart_count() -> impl Strategy<Value = i32> {
    prop_oneof![
        6 => 0i32..3,
        2 => 3i32..50,
        1 => prop::sample::select(vec![-1, i32::MAX, i32::MIN]),
    ]
}

fn container_statuses() -> impl Strategy<Value = Vec<ContainerStatus>> {
    prop::collection::vec(restart_count(), 0..3).prop_map(|counts| {
        counts
            .into_iter()
            .enumerate()
            .map(|(i, restart_count)| ContainerStatus {
                name: format!("c{i}"),
                restart_count,
            })
            .collect()
    })
}

/// Init containers (sidecars when `restartPolicy: Always`) and their statuses, whose
/// names sometimes match no spec entry.
fn sidecars() -> impl Strategy<Value = (Vec<Container>, Vec<ContainerStatus>)> {
    (
        prop::collection::vec(any::<bool>(), 0..3),
        prop::collection::vec((0usize..3, restart_count()), 0..3),
    )
        .prop_map(|(always, statuses)| {
            let specs = always
                .into_iter()
                .enumerate()
                .map(|(i, a)| Container {
                    name: format!("init-{i}"),
                    restart_policy: a.then(|| "Always".to_owned()),
                })
                .collect();
            let statuses = statuses
                .into_iter()
                .map(|(i, restart_count)| ContainerStatus {
                    name: format!("init-{i}"),
                    restart_count,
                })
                .collect();
            (specs, statuses)
        })
}

/// Deletion-cost annotation values, valid and invalid.
pub fn cost_value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "0", "1", "-1", "5", "100", "-100", "-007", "007", "+5", "", "abc", "2147483647",
            "2147483648", "-2147483648", "-2147483649", " 5", "5 ", "1_000", "-0", "1e3", "٣",
        ])
        .prop_map(str::to_owned),
        1 => any::<i32>().prop_map(|n| n.to_string()),
        1 => "[-+0-9a-z ]{0,6}",
    ]
}

fn annotations() -> impl Strategy<Value = Option<StringMap>> {
    prop_oneof![
        5 => Just(None),
        1 => Just(Some(StringMap::new())),
        3 => cost_value().prop_map(|v| Some(labels(&[(COST, &v)]))),
        1 => cost_value().prop_map(|v| Some(labels(&[(COST, &v), ("team", "a")]))),
    ]
}

/// A UID: `None` means "unique, derived from the name"; otherwise one of a small shared
/// pool, so that distinct pods sometimes share a UID.
fn uid_choice() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![6 => Just(None), 1 => (0u8..3).prop_map(Some)]
}

/// A pod before it is named: whether it lives in the second namespace, and the pod.
#[derive(Clone, Debug)]
pub struct PodProto {
    pub in_b: bool,
    pub uid: Option<u8>,
    pub pod: Pod,
}

pub fn pod_proto() -> impl Strategy<Value = PodProto> {
    let meta = (
        prop::bool::weighted(0.2),
        ownership(),
        pod_labels(),
        prop::option::weighted(0.15, time_around_now()),
        time_around_now(),
        annotations(),
        uid_choice(),
    );
    let body = (
        phase(),
        node(),
        conditions(),
        container_statuses(),
        sidecars(),
    );
    (meta, body).prop_map(
        |(
            (in_b, own, labels, deletion, created, annotations, uid),
            (phase, node_name, conditions, container_statuses, (init_containers, init_statuses)),
        )| {
            let pod = Pod {
                metadata: ObjectMeta {
                    creation_timestamp: created,
                    // An explicit zero deletion time is "none" on the wire as well.
                    deletion_timestamp: deletion.flatten(),
                    labels,
                    annotations,
                    owner_references: owner_refs(own),
                    ..ObjectMeta::default()
                },
                spec: PodSpec {
                    node_name,
                    init_containers,
                },
                status: PodStatus {
                    phase,
                    conditions,
                    container_statuses,
                    init_container_statuses: init_statuses,
                },
            };
            PodProto { in_b, uid, pod }
        },
    )
}

/// Names pods `p0`, `p1`, … per namespace (so the same name appears in both namespaces)
/// and gives each a UID (unique, or shared from the pool).
pub fn name_pods(protos: Vec<PodProto>) -> Vec<Pod> {
    let (mut a, mut b) = (0usize, 0usize);
    protos
        .into_iter()
        .map(|p| {
            let mut pod = p.pod;
            let (ns, n) = if p.in_b {
                b += 1;
                (NS_B, b - 1)
            } else {
                a += 1;
                (NS_A, a - 1)
            };
            pod.metadata.namespace = ns.into();
            pod.metadata.name = format!("p{n}");
            pod.metadata.uid = match p.uid {
                Some(k) => format!("uid-shared-{k}"),
                None => format!("uid-{ns}-p{n}"),
            };
            pod
        })
        .collect()
}

pub fn pods(max: usize) -> impl Strategy<Value = Vec<Pod>> {
    prop::collection::vec(pod_proto(), 0..max).prop_map(name_pods)
}

fn match_labels(pairs: &[(&str, &str)]) -> LabelSelector {
    LabelSelector {
        match_labels: Some(labels(pairs)),
        match_expressions: None,
    }
}

fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: key.into(),
        operator: op.into(),
        values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
    }
}

/// The owner's selector: the usual one, with expressions, empty (everything), nil
/// (nothing), or invalid.
fn owner_selector() -> impl Strategy<Value = Option<LabelSelector>> {
    prop_oneof![
        10 => Just(Some(match_labels(&[("app", "web")]))),
        2 => Just(Some(LabelSelector {
            match_labels: Some(labels(&[("app", "web")])),
            match_expressions: Some(vec![expr("ver", "NotIn", &["v1"])]),
        })),
        1 => Just(Some(LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![expr("app", "In", &["web", "api"])]),
        })),
        1 => Just(Some(LabelSelector::default())),
        1 => Just(None),
        1 => Just(Some(LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![expr("app", "Bogus", &["web"])]),
        })),
    ]
}

fn template_labels() -> impl Strategy<Value = Option<TemplateMeta>> {
    prop_oneof![
        8 => Just(Some(TemplateMeta {
            labels: Some(labels(&[("app", "web")])),
            annotations: None,
            finalizers: Vec::new(),
        })),
        1 => Just(Some(TemplateMeta {
            labels: Some(labels(&[("app", "web"), ("tier", "fe")])),
            annotations: Some(labels(&[("note", "x")])),
            finalizers: vec!["example.com/f".into()],
        })),
        1 => Just(Some(TemplateMeta::default())),
        1 => Just(None),
    ]
}

fn deployment_ref(uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: "web".into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

fn rs(ns: &str, name: &str, uid: &str, selector: Option<LabelSelector>) -> ReplicaSet {
    ReplicaSet {
        api_version: Some("apps/v1".into()),
        kind: Some("ReplicaSet".into()),
        metadata: ObjectMeta {
            name: name.into(),
            namespace: ns.into(),
            uid: uid.into(),
            ..ObjectMeta::default()
        },
        spec: ReplicaSetSpec {
            replicas: Some(1),
            min_ready_seconds: 0,
            selector,
            template: PodTemplateSpec::default(),
        },
        status: ReplicaSetStatus::default(),
    }
}

/// Candidate other owners: siblings under the same Deployment (with various selectors and
/// namespaces, one with the owner's own UID, one pending deletion) and unrelated ones.
fn other_owner_pool() -> Vec<ReplicaSet> {
    let dep = deployment_ref(DEPLOYMENT_UID);
    let sib = |ns: &str, name: &str, uid: &str, sel: Option<LabelSelector>| {
        let mut r = rs(ns, name, uid, sel);
        r.metadata.owner_references = vec![dep.clone()];
        r
    };
    let mut deleting = sib(
        NS_A,
        "web-v0",
        "rs-web-v0",
        Some(match_labels(&[("ver", "v1")])),
    );
    deleting.metadata.deletion_timestamp = Some(now());
    let mut other_dep = rs(NS_A, "web-x", "rs-web-x", Some(LabelSelector::default()));
    other_dep.metadata.owner_references = vec![deployment_ref("dep-other-uid")];
    vec![
        sib(
            NS_A,
            "web-v1",
            "rs-web-v1",
            Some(match_labels(&[("app", "web"), ("ver", "v1")])),
        ),
        sib(
            NS_A,
            "web-all",
            "rs-web-all",
            Some(LabelSelector::default()),
        ),
        sib(
            NS_B,
            "web-b",
            "rs-web-b",
            Some(match_labels(&[("app", "web")])),
        ),
        sib(NS_A, "web-nil", "rs-web-nil", None),
        sib(
            NS_A,
            "web-bad",
            "rs-web-bad",
            Some(LabelSelector {
                match_labels: None,
                match_expressions: Some(vec![expr("app", "Exists", &["x"])]),
            }),
        ),
        sib(
            NS_A,
            "web-dup-uid",
            OWNER_UID,
            Some(match_labels(&[("app", "api")])),
        ),
        deleting,
        rs(
            NS_A,
            OTHER_OWNER_NAME,
            OTHER_OWNER_UID,
            Some(match_labels(&[("app", "api")])),
        ),
        other_dep,
    ]
}

pub fn other_owners() -> impl Strategy<Value = Vec<ReplicaSet>> {
    let pool = other_owner_pool();
    prop::collection::vec(any::<bool>(), pool.len()).prop_map(move |keep| {
        pool.iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(r, _)| r.clone())
            .collect()
    })
}

fn failure_condition() -> ReplicaSetCondition {
    ReplicaSetCondition {
        type_: "ReplicaFailure".into(),
        status: "True".into(),
        last_transition_time: Some(now()),
        reason: "FailedCreate".into(),
        message: "earlier".into(),
    }
}

/// The owner under test (namespace `ns-a`, name `web`).
pub fn owner() -> impl Strategy<Value = ReplicaSet> {
    let spec = (
        prop_oneof![9 => (0i32..40).prop_map(Some), 1 => Just(None)],
        prop_oneof![3 => Just(0i32), 1 => 1i32..600],
        owner_selector(),
        template_labels(),
    );
    let meta = (
        prop::bool::weighted(0.5),
        prop::option::weighted(0.15, recent(3600)),
        prop::option::of(1i64..4),
        0i64..4,
        0i32..40,
        prop::sample::select(vec![0u8, 0, 0, 1, 2]),
    );
    (spec, meta).prop_map(
        |(
            (replicas, min_ready, selector, template),
            (has_dep, deleting, gen, obs, st_replicas, conds),
        )| {
            let mut o = rs(NS_A, OWNER_NAME, OWNER_UID, selector);
            o.spec.replicas = replicas;
            o.spec.min_ready_seconds = min_ready;
            o.spec.template = PodTemplateSpec {
                metadata: template,
                spec: json!({"containers": [{"name": "c0", "image": "nginx"}]}),
            };
            if has_dep {
                o.metadata.owner_references = vec![deployment_ref(DEPLOYMENT_UID)];
            }
            o.metadata.deletion_timestamp = deleting;
            o.metadata.generation = gen;
            o.status.observed_generation = obs;
            o.status.replicas = st_replicas;
            o.status.conditions = match conds {
                1 => Some(vec![failure_condition()]),
                2 => Some(Vec::new()),
                _ => None,
            };
            o
        },
    )
}

fn deletion_keys() -> impl Strategy<Value = BTreeSet<String>> {
    prop::collection::btree_set(
        (prop::sample::select(vec![NS_A, NS_B]), 0usize..6)
            .prop_map(|(ns, n)| format!("{ns}/p{n}")),
        0..4,
    )
}

/// Expectation records that are satisfied (nothing outstanding).
pub fn satisfied_expectations() -> impl Strategy<Value = Expectations> {
    (-3i64..=0, -3i64..=0, recent(600), deletion_keys()).prop_map(|(add, del, timestamp, keys)| {
        Expectations(Some(ExpectationsRecord {
            add,
            del,
            timestamp,
            deletion_keys: keys,
        }))
    })
}

fn outstanding() -> impl Strategy<Value = (i64, i64)> {
    prop_oneof![(1i64..30, -2i64..3), (-2i64..3, 1i64..30),]
}

/// Records with something outstanding and not expired: age in [−60 s, 300 s] (300 s
/// exactly is not expired: the TTL comparison is strict).
pub fn pending_expectations() -> impl Strategy<Value = Expectations> {
    let age = prop_oneof![
        4 => 0i64..=300 * SEC,
        1 => Just(300 * SEC),
        1 => -60 * SEC..0,
    ];
    (outstanding(), age, deletion_keys()).prop_map(|((add, del), age, keys)| {
        Expectations(Some(ExpectationsRecord {
            add,
            del,
            timestamp: Time::from_unix_nanos(now().unix_nanos() - age),
            deletion_keys: keys,
        }))
    })
}

/// Records with something outstanding but older than the TTL.
pub fn expired_expectations() -> impl Strategy<Value = Expectations> {
    let age = prop_oneof![
        1 => Just(300 * SEC + 1),
        3 => 300 * SEC + 1..30 * 86400 * SEC,
    ];
    (outstanding(), age, deletion_keys()).prop_map(|((add, del), age, keys)| {
        Expectations(Some(ExpectationsRecord {
            add,
            del,
            timestamp: Time::from_unix_nanos(now().unix_nanos() - age),
            deletion_keys: keys,
        }))
    })
}

pub fn expectations() -> impl Strategy<Value = Expectations> {
    prop_oneof![
        4 => Just(Expectations(None)),
        2 => satisfied_expectations(),
        2 => pending_expectations(),
        1 => expired_expectations(),
    ]
}

/// Engine configurations: burst 1..20, the gate defaults of a few versions with some
/// gates flipped, the ReplicaSet kind or (rarely) ReplicationController.
pub fn config() -> impl Strategy<Value = Config> {
    (
        1usize..=20,
        prop::sample::select(vec![21u32, 22, 30, 33, 35, 36, 36, 36]),
        any::<(bool, bool, bool)>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(burst, minor, (flip_cost, flip_term, flip_stale), rc)| {
            let mut c = Config::for_version(minor);
            c.burst_replicas = burst;
            let g = &mut c.feature_gates;
            g.pod_deletion_cost ^= flip_cost;
            g.deployment_replica_set_terminating_replicas ^= flip_term;
            g.stale_controller_consistency_replica_set ^= flip_stale;
            if rc {
                c.owner_kind = OwnerKind::replication_controller();
            }
            c
        })
}

/// A structurally valid sync input and a configuration.
pub fn scenario() -> impl Strategy<Value = (SyncInput, Config)> {
    (
        owner(),
        other_owners(),
        pods(24),
        expectations(),
        prop::bool::weighted(0.92),
        config(),
    )
        .prop_map(|(owner, other_owners, pods, expectations, fresh, config)| {
            (
                SyncInput {
                    now: now(),
                    owner,
                    other_owners,
                    pods: pods.into(),
                    expectations,
                    cache_is_fresh: fresh,
                },
                config,
            )
        })
}

// ---------------------------------------------------------------------------------------
// JSON

/// Field names the engine reads, so that arbitrary objects reach deep into the model.
fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "now", "owner", "pods", "otherOwners", "expectations", "cacheIsFresh", "metadata",
            "spec", "status", "name", "namespace", "uid", "labels", "annotations",
            "ownerReferences", "controller", "kind", "deletionTimestamp", "creationTimestamp",
            "replicas", "selector", "matchLabels", "matchExpressions", "operator", "values",
            "template", "phase", "conditions", "type", "lastTransitionTime", "nodeName",
            "containerStatuses", "restartCount", "initContainers", "restartPolicy", "add",
            "del", "timestamp", "deletionKeys", "minReadySeconds", "generation",
        ])
        .prop_map(str::to_owned),
        1 => ".{0,8}",
    ]
}

/// Strings that stress parsers: odd timestamps, numbers as text, unicode.
pub fn weird_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "0001-01-01T00:00:00Z", "2262-04-12T00:00:00Z", "2262-04-11T23:47:16.854775807Z",
            "2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224192Z",
            "1677-09-21T00:12:43.145224191Z", "1677-09-21T00:00:00Z", "9999-12-31T23:59:59Z",
            "0000-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-11-21T04:40:12Z",
            "2026-11-21T04:40:12.999999999999Z", "2026-11-21T04:40:12+23:59",
            "2026-11-21T04:40:12-23:59", "2026-02-30T00:00:00Z", "2026-11-21 04:40:12Z",
            "2026-11-21T24:00:00Z", "2026-11-21T23:59:60Z", "1e400", "-1e400", "NaN", "",
            " ", "True", "Ready", "Running", "Succeeded", "ü", "🦀", "\u{0}", "\u{202e}web",
            "ns-a", "web", "rs-web-uid", "app", "-007", "2147483648", "In", "NotIn", "Always",
        ])
        .prop_map(str::to_owned),
        1 => ".{0,10}",
        1 => "\\PC{0,4}",
    ]
}

fn weird_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            json!(0),
            json!(-1),
            json!(1),
            json!(i32::MAX),
            json!(i64::from(i32::MAX) + 1),
            json!(i64::from(i32::MIN) - 1),
            json!(i64::MAX),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(1e308),
            json!(-1e308),
            json!(0.5),
            json!(-0.0),
            json!(9.0e9),
            json!(9.0e9 + 1.0),
            json!(1e-300),
        ]),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
    ]
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => weird_number(),
        3 => weird_string().prop_map(Value::String),
        1 => Just(Value::String(RAW.into())),
    ]
}

/// Arbitrary JSON values.
pub fn arb_json() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(json_key(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A placeholder replaced in the JSON text by a raw token no `Value` can hold.
pub const RAW: &str = "__RAW_TOKEN__";

pub fn raw_token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "1e400",
        "-1e400",
        "1E-400",
        "18446744073709551616",
        "-9223372036854775809",
        "340282366920938463463374607431768211456",
        "-0",
        "0.0000000000000000000000000000001e-300",
        "2147483648",
        "1.7976931348623157e309",
        "\"\\ud800\"",
        "\"\\u0000\"",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    ])
}

/// Every path (as object keys / array indices) of a JSON value, the root excluded.
pub fn json_paths(v: &Value) -> Vec<Vec<PathStep>> {
    fn walk(v: &Value, prefix: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    prefix.push(PathStep::Key(k.clone()));
                    out.push(prefix.clone());
                    walk(x, prefix, out);
                    prefix.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    prefix.push(PathStep::Index(i));
                    out.push(prefix.clone());
                    walk(x, prefix, out);
                    prefix.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

#[derive(Clone, Debug)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

/// One mutation of an "almost valid" input.
#[derive(Clone, Debug)]
pub enum Mutation {
    Replace(Index, Value),
    Remove(Index),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let replacement = prop_oneof![
        4 => json_leaf(),
        1 => Just(json!([])),
        1 => Just(json!({})),
        1 => arb_json(),
    ];
    prop_oneof![
        5 => (any::<Index>(), replacement).prop_map(|(i, v)| Mutation::Replace(i, v)),
        1 => any::<Index>().prop_map(Mutation::Remove),
    ]
}

/// Applies mutations to a JSON value (each at a path picked among the current ones).
pub fn mutate(mut v: Value, muts: &[Mutation]) -> Value {
    for m in muts {
        let paths = json_paths(&v);
        if paths.is_empty() {
            continue;
        }
        let (idx, new) = match m {
            Mutation::Replace(i, x) => (i, Some(x.clone())),
            Mutation::Remove(i) => (i, None),
        };
        let path = &paths[idx.index(paths.len())];
        let (last, parent_path) = path.split_last().expect("non-empty path");
        let mut parent = &mut v;
        for step in parent_path {
            parent = match step {
                PathStep::Key(k) => &mut parent[k.as_str()],
                PathStep::Index(i) => &mut parent[*i],
            };
        }
        match (last, new) {
            (PathStep::Key(k), Some(x)) => parent[k.as_str()] = x,
            (PathStep::Index(i), Some(x)) => parent[*i] = x,
            (PathStep::Key(k), None) => {
                if let Value::Object(m) = parent {
                    m.remove(k);
                }
            }
            (PathStep::Index(i), None) => {
                if let Value::Array(a) = parent {
                    a.remove(*i);
                }
            }
        }
    }
    v
}

/// The JSON text of a value with every `RAW` placeholder string replaced by `raw`.
pub fn to_text(v: &Value, raw: &str) -> String {
    serde_json::to_string(v)
        .expect("serializable")
        .replace(&format!("\"{RAW}\""), raw)
}

/// Replaces every `podIndex` (which legitimately changes with a permutation of the input)
/// by the key of the pod it designates.
pub fn normalise_pod_indices(v: &mut Value, pods: &[Pod]) {
    match v {
        Value::Object(m) => {
            if let Some(idx) = m.remove("podIndex") {
                let i = idx.as_u64().expect("podIndex is an index") as usize;
                let p = &pods[i];
                m.insert(
                    "podKey".into(),
                    json!(format!("{}/{}#{}", p.namespace(), p.name(), p.uid())),
                );
            }
            for x in m.values_mut() {
                normalise_pod_indices(x, pods);
            }
        }
        Value::Array(a) => {
            for x in a {
                normalise_pod_indices(x, pods);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// A simulated host

/// A small deterministic generator (the engine's SplitMix64) driving the simulated
/// host's answers.
#[derive(Clone, Debug)]
pub struct HostRng(replicore::rng::SplitMix64);

impl HostRng {
    pub fn new(seed: u64) -> Self {
        HostRng(replicore::rng::SplitMix64::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// True with probability `pct`/100.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.next_u64() % 100 < pct
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

fn api_error(reason: &str, code: u16, message: &str) -> CallResult {
    CallResult::Error(ApiError {
        reason: reason.into(),
        message: message.into(),
        code: Some(code),
        causes: Vec::new(),
    })
}

/// How often the simulated host fails, in percent.
#[derive(Clone, Copy, Debug)]
pub struct HostProfile {
    pub failure_pct: u64,
}

/// What the simulated host did for a plan: its claim results, the manage step it ran
/// (from `manage_after`), and its create/delete results.
#[derive(Debug)]
pub struct HostRun {
    pub outcome: SyncOutcome,
    pub manage: Manage,
    /// Whether the live owner allowed adoptions (when it was read).
    pub adoption_allowed: Option<bool>,
}

/// Answers every call of `plan` the way a host would: claims (with the live owner read
/// when asked), then the manage step `manage_after` returns, creates batch by batch as
/// `CreatePlan::next_batch` says, every delete.
pub fn run_host(plan: &SyncPlan, input: &SyncInput, rng: &mut HostRng, p: HostProfile) -> HostRun {
    let f = p.failure_pct;
    let mut claims = ClaimOutcome::default();
    let mut adoption_allowed = None;
    if plan.needs_owner_recheck {
        let live = if rng.chance(100 - f) {
            LiveOwner::Found(Box::new(input.owner.clone()))
        } else {
            match rng.below(3) {
                0 => {
                    let mut o = input.owner.clone();
                    o.metadata.uid = "someone-else".into();
                    LiveOwner::Found(Box::new(o))
                }
                1 => {
                    let mut o = input.owner.clone();
                    o.metadata.deletion_timestamp = Some(now());
                    LiveOwner::Found(Box::new(o))
                }
                _ => LiveOwner::Failed(ApiError::new("InternalError", "etcd is sad")),
            }
        };
        adoption_allowed = Some(plan.adoption_allowed(&live).is_ok());
        claims.live_owner = Some(live);
    }
    for action in &plan.claims {
        let r = match action.kind {
            ClaimKind::Adopt if adoption_allowed == Some(false) => CallResult::Skipped,
            ClaimKind::Adopt => {
                if rng.chance(100 - f) {
                    CallResult::ok()
                } else if rng.chance(50) {
                    api_error("NotFound", 404, "pods \"x\" not found")
                } else {
                    api_error("Conflict", 409, "the object has been modified")
                }
            }
            ClaimKind::Release => {
                if rng.chance(100 - f) {
                    CallResult::ok()
                } else {
                    match rng.below(3) {
                        0 => api_error("NotFound", 404, "pods \"x\" not found"),
                        1 => api_error("Invalid", 422, "uid precondition failed"),
                        _ => api_error("Conflict", 409, "the object has been modified"),
                    }
                }
            }
        };
        claims.results.push(r);
    }
    let manage = plan
        .manage_after(&claims)
        .expect("manage_after accepts a well-shaped claim outcome");
    let mut creates = Vec::new();
    let mut deletes = Vec::new();
    match &manage {
        Manage::Nothing { .. } => {}
        Manage::Create(c) => {
            let mut k = 0;
            while let Some(n) = c.next_batch(&creates) {
                assert!(n > 0, "next_batch asked for an empty batch");
                for _ in 0..n {
                    k += 1;
                    let r = if rng.chance(100 - f) {
                        CallResult::created(format!("web-{k:05}"))
                    } else {
                        match rng.below(4) {
                            0 => CallResult::Error(ApiError {
                                reason: "Forbidden".into(),
                                message: "namespace is being terminated".into(),
                                code: Some(403),
                                causes: vec!["NamespaceTerminating".into()],
                            }),
                            1 => api_error("NotFound", 404, "namespace not found"),
                            2 => api_error("AlreadyExists", 409, "already exists"),
                            _ => api_error("InternalError", 500, "boom"),
                        }
                    };
                    creates.push(r);
                }
            }
        }
        Manage::Delete(d) => {
            for _ in &d.victims {
                let r = if rng.chance(100 - f) {
                    CallResult::ok()
                } else if rng.chance(50) {
                    api_error("NotFound", 404, "pods \"x\" not found")
                } else {
                    api_error("InternalError", 500, "boom")
                };
                deletes.push(r);
            }
        }
    }
    HostRun {
        outcome: SyncOutcome {
            claims,
            creates,
            deletes,
        },
        manage,
        adoption_allowed,
    }
}

/// Breaks the shape of an outcome in one of several ways (extra or missing results,
/// skipped calls, a missing live owner read).
pub fn break_shape(outcome: &mut SyncOutcome, how: u8) {
    match how % 8 {
        0 => outcome.creates.push(CallResult::ok()),
        1 => {
            outcome.creates.pop();
        }
        2 => outcome.deletes.push(CallResult::ok()),
        3 => {
            outcome.deletes.pop();
        }
        4 => outcome.claims.results.push(CallResult::Skipped),
        5 => {
            outcome.claims.results.pop();
        }
        6 => outcome.claims.live_owner = None,
        _ => {
            for r in outcome.creates.iter_mut().chain(outcome.deletes.iter_mut()) {
                *r = CallResult::Skipped;
            }
            for r in &mut outcome.claims.results {
                *r = CallResult::Skipped;
            }
        }
    }
}

/// Applies a plan's and a completion's expectation changes to `e`.
pub fn apply_changes<'a>(
    mut e: Expectations,
    changes: impl IntoIterator<Item = &'a replicore::ExpectationsChange>,
    at: Time,
) -> Expectations {
    for c in changes {
        e = c.apply(e, at);
    }
    e
}

/// Duration helper for readability.
pub fn secs(s: i64) -> Duration {
    Duration::from_seconds(s)
}

/// Labels map helper for tests.
pub fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    labels(pairs)
}

/// The paths where two JSON values differ, with both sides (for failure messages).
pub fn json_diff(a: &Value, b: &Value) -> Vec<String> {
    fn walk(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    let p = format!("{path}.{k}");
                    match (x.get(k), y.get(k)) {
                        (Some(u), Some(v)) => walk(u, v, &p, out),
                        (u, v) => out.push(format!("{p}: {u:?} vs {v:?}")),
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    walk(u, v, &format!("{path}[{i}]"), out);
                }
            }
            _ if a != b => out.push(format!("{path}: {a} vs {b}")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(a, b, "", &mut out);
    out
}

/// Pods that rules 1–5 cannot separate (same node, Running, Ready, no cost), with ready
/// and creation times inside one log2 bucket, few restart counts and a small UID pool:
/// the ground where upstream's comparator is intransitive.
pub fn tie_heavy_pods(max: usize) -> impl Strategy<Value = Vec<Pod>> {
    let one = (
        prop::sample::select(vec![1000 * SEC, 1001 * SEC, 1003 * SEC + 7]),
        prop::sample::select(vec![5000 * SEC, 5001 * SEC, 5002 * SEC]),
        0i32..3,
        0u8..6,
        prop::bool::weighted(0.1),
    );
    prop::collection::vec(one, 0..max).prop_map(|pods| {
        pods.into_iter()
            .enumerate()
            .map(|(i, (ready, created, restarts, uid, other_node))| Pod {
                metadata: ObjectMeta {
                    name: format!("p{i}"),
                    namespace: NS_A.into(),
                    uid: format!("u{uid}"),
                    creation_timestamp: ago(created),
                    labels: Some(labels(&[("app", "web")])),
                    owner_references: owner_refs(Ownership::Owned),
                    ..ObjectMeta::default()
                },
                spec: PodSpec {
                    node_name: Some(if other_node { "node-2" } else { "node-1" }.into()),
                    init_containers: Vec::new(),
                },
                status: PodStatus {
                    phase: Some("Running".into()),
                    conditions: vec![ready_condition("True", ago(ready))],
                    container_statuses: vec![ContainerStatus {
                        name: "c0".into(),
                        restart_count: restarts,
                    }],
                    init_container_statuses: Vec::new(),
                },
            })
            .collect()
    })
}

/// At least `cases` cases; `PROPTEST_CASES` may ask for more.
pub fn cfg(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(cases, |n| n.max(cases));
    ProptestConfig {
        // Keep failures reproducible from the printed input; write no regression files.
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}
