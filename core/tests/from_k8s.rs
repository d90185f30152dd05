//! Feature `k8s-openapi`: the field-by-field conversion of k8s-openapi's `Pod` and
//! `ReplicaSet` equals the JSON path (`input::from_value` of the same object
//! serialized), for realistic objects: conditions, container statuses, owner
//! references, deletion timestamps, selectors with expressions, templates; and its
//! refusals name the field.
//!
//! `cargo test -p replicore --features k8s-openapi --test from_k8s`

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::jiff::Timestamp;
use serde::de::DeserializeOwned;
use serde::Serialize;

use replicore::input::from_value;
use replicore::model::{Pod, ReplicaSet};
use replicore::Error;

fn at(seconds: i64) -> meta::Time {
    meta::Time(Timestamp::from_second(seconds).unwrap())
}

fn at_nanos(seconds: i64, nanos: i32) -> meta::Time {
    meta::Time(Timestamp::new(seconds, nanos).unwrap())
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

const T0: i64 = 1_795_236_012; // 2026-11-21T04:40:12Z

fn rs_owner_ref(name: &str, uid: &str, controller: Option<bool>) -> meta::OwnerReference {
    meta::OwnerReference {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        name: name.into(),
        uid: uid.into(),
        controller,
        block_owner_deletion: controller,
    }
}

fn condition(type_: &str, status: &str, time: Option<meta::Time>) -> core::PodCondition {
    core::PodCondition {
        type_: type_.into(),
        status: status.into(),
        last_transition_time: time,
        ..Default::default()
    }
}

fn container_status(name: &str, restarts: i32, ready: bool) -> core::ContainerStatus {
    core::ContainerStatus {
        name: name.into(),
        image: "nginx:1.27".into(),
        image_id: "docker.io/library/nginx@sha256:0".into(),
        ready,
        restart_count: restarts,
        started: Some(ready),
        ..Default::default()
    }
}

/// A running, ready pod owned by `web` with a non-controller owner reference beside
/// it, a deletion cost, an init sidecar and restarts.
fn ready_pod() -> core::Pod {
    core::Pod {
        metadata: meta::ObjectMeta {
            name: Some("web-7d9f8b6c5d-abcde".into()),
            generate_name: Some("web-7d9f8b6c5d-".into()),
            namespace: Some("shop".into()),
            uid: Some("pod-uid-1".into()),
            resource_version: Some("4711".into()),
            generation: Some(1),
            creation_timestamp: Some(at(T0 - 3600)),
            labels: Some(map(&[("app", "web"), ("pod-template-hash", "7d9f8b6c5d")])),
            annotations: Some(map(&[(
                "controller.kubernetes.io/pod-deletion-cost",
                "-100",
            )])),
            owner_references: Some(vec![
                rs_owner_ref("web-7d9f8b6c5d", "rs-uid", Some(true)),
                meta::OwnerReference {
                    api_version: "example.com/v1".into(),
                    kind: "Backup".into(),
                    name: "nightly".into(),
                    uid: "backup-uid".into(),
                    controller: None,
                    block_owner_deletion: None,
                },
            ]),
            finalizers: Some(vec!["example.com/protect".into()]),
            ..Default::default()
        },
        spec: Some(core::PodSpec {
            node_name: Some("node-a".into()),
            init_containers: Some(vec![
                core::Container {
                    name: "proxy".into(),
                    restart_policy: Some("Always".into()),
                    ..Default::default()
                },
                core::Container {
                    name: "migrate".into(),
                    ..Default::default()
                },
            ]),
            containers: vec![core::Container {
                name: "nginx".into(),
                image: Some("nginx:1.27".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: Some(core::PodStatus {
            phase: Some("Running".into()),
            conditions: Some(vec![
                condition("PodScheduled", "True", Some(at(T0 - 3590))),
                condition("Initialized", "True", Some(at(T0 - 3580))),
                condition("ContainersReady", "True", Some(at(T0 - 3500))),
                // Sub-second precision: the wire keeps whole seconds.
                condition("Ready", "True", Some(at_nanos(T0 - 3500, 750_000_000))),
            ]),
            container_statuses: Some(vec![container_status("nginx", 3, true)]),
            init_container_statuses: Some(vec![
                container_status("proxy", 1, true),
                container_status("migrate", 0, false),
            ]),
            host_ip: Some("10.0.0.5".into()),
            pod_ip: Some("10.244.1.7".into()),
            start_time: Some(at(T0 - 3590)),
            ..Default::default()
        }),
    }
}

/// A terminating pod: deletion timestamp and grace period, Ready false.
fn terminating_pod() -> core::Pod {
    let mut pod = ready_pod();
    pod.metadata.name = Some("web-7d9f8b6c5d-fghij".into());
    pod.metadata.uid = Some("pod-uid-2".into());
    pod.metadata.deletion_timestamp = Some(at(T0 - 5));
    pod.metadata.deletion_grace_period_seconds = Some(30);
    if let Some(status) = pod.status.as_mut() {
        status.conditions = Some(vec![
            condition("Ready", "False", Some(at(T0 - 4))),
            // A condition with no transition time, and Go's zero time.
            condition("ContainersReady", "False", None),
            condition("PodScheduled", "True", Some(at(-62_135_596_800))),
        ]);
    }
    pod
}

/// A pending orphan: no spec node, no status conditions, no owner, no labels map.
fn pending_orphan() -> core::Pod {
    core::Pod {
        metadata: meta::ObjectMeta {
            name: Some("stray".into()),
            namespace: Some("shop".into()),
            uid: Some("pod-uid-3".into()),
            creation_timestamp: Some(at(T0 - 10)),
            labels: Some(BTreeMap::new()),
            ..Default::default()
        },
        spec: Some(core::PodSpec::default()),
        status: Some(core::PodStatus {
            phase: Some("Pending".into()),
            ..Default::default()
        }),
    }
}

fn replica_set() -> apps::ReplicaSet {
    apps::ReplicaSet {
        metadata: meta::ObjectMeta {
            name: Some("web-7d9f8b6c5d".into()),
            namespace: Some("shop".into()),
            uid: Some("rs-uid".into()),
            resource_version: Some("4700".into()),
            generation: Some(3),
            creation_timestamp: Some(at(T0 - 7200)),
            labels: Some(map(&[("app", "web"), ("pod-template-hash", "7d9f8b6c5d")])),
            annotations: Some(map(&[
                ("deployment.kubernetes.io/desired-replicas", "3"),
                ("deployment.kubernetes.io/revision", "2"),
            ])),
            owner_references: Some(vec![meta::OwnerReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into(),
                uid: "dep-uid".into(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..Default::default()
        },
        spec: Some(apps::ReplicaSetSpec {
            replicas: Some(3),
            min_ready_seconds: Some(10),
            selector: meta::LabelSelector {
                match_labels: Some(map(&[("app", "web")])),
                match_expressions: Some(vec![meta::LabelSelectorRequirement {
                    key: "tier".into(),
                    operator: "NotIn".into(),
                    values: Some(vec!["batch".into()]),
                }]),
            },
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta::ObjectMeta {
                    labels: Some(map(&[("app", "web"), ("pod-template-hash", "7d9f8b6c5d")])),
                    annotations: Some(map(&[("kubectl.kubernetes.io/restartedAt", "now")])),
                    ..Default::default()
                }),
                spec: Some(core::PodSpec {
                    containers: vec![core::Container {
                        name: "nginx".into(),
                        image: Some("nginx:1.27".into()),
                        ports: Some(vec![core::ContainerPort {
                            container_port: 80,
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }],
                    termination_grace_period_seconds: Some(30),
                    ..Default::default()
                }),
            }),
        }),
        status: Some(apps::ReplicaSetStatus {
            replicas: 2,
            fully_labeled_replicas: Some(2),
            ready_replicas: Some(1),
            available_replicas: Some(1),
            observed_generation: Some(2),
            terminating_replicas: Some(1),
            conditions: Some(vec![apps::ReplicaSetCondition {
                type_: "ReplicaFailure".into(),
                status: "True".into(),
                last_transition_time: Some(at(T0 - 60)),
                reason: Some("FailedCreate".into()),
                message: Some("pods \"web-7d9f8b6c5d-x\" is forbidden: exceeded quota".into()),
            }]),
        }),
    }
}

/// What the engine reads from the object's wire form.
fn via_json<K: Serialize, T: DeserializeOwned>(object: &K) -> T {
    from_value(serde_json::to_value(object).unwrap()).unwrap()
}

#[test]
fn pods_convert_as_their_json_reads() {
    for kube in [
        ready_pod(),
        terminating_pod(),
        pending_orphan(),
        core::Pod::default(),
    ] {
        let direct = Pod::try_from(&kube).unwrap();
        let wire: Pod = via_json(&kube);
        assert_eq!(direct, wire, "{:?}", kube.metadata.name);
    }
}

#[test]
fn the_conversion_keeps_what_the_rules_read() {
    let pod = Pod::try_from(&ready_pod()).unwrap();
    assert_eq!(pod.metadata.owner_references.len(), 2);
    assert_eq!(
        pod.metadata.controller_ref().map(|r| r.uid.as_str()),
        Some("rs-uid")
    );
    assert_eq!(pod.status.container_statuses[0].restart_count, 3);
    assert_eq!(
        pod.spec.init_containers[0].restart_policy.as_deref(),
        Some("Always")
    );
    // 750 ms dropped, as the wire drops them.
    let ready = pod
        .status
        .conditions
        .iter()
        .find(|c| c.type_ == "Ready")
        .unwrap();
    assert_eq!(
        ready.last_transition_time.map(|t| t.unix_nanos()),
        Some((T0 - 3500) * 1_000_000_000)
    );
    let terminating = Pod::try_from(&terminating_pod()).unwrap();
    assert_eq!(
        terminating
            .metadata
            .deletion_timestamp
            .map(|t| t.unix_nanos()),
        Some((T0 - 5) * 1_000_000_000)
    );
    // Go's zero time is no time.
    assert_eq!(terminating.status.conditions[2].last_transition_time, None);
}

#[test]
fn replica_sets_convert_as_their_json_reads() {
    let mut bare = apps::ReplicaSet::default();
    bare.metadata.name = Some("bare".into());
    let mut no_conditions = replica_set();
    if let Some(status) = no_conditions.status.as_mut() {
        status.conditions = Some(Vec::new());
        status.terminating_replicas = None;
    }
    for kube in [replica_set(), bare, no_conditions] {
        let direct = ReplicaSet::try_from(&kube).unwrap();
        let wire: ReplicaSet = via_json(&kube);
        assert_eq!(direct, wire, "{:?}", kube.metadata.name);
    }
    let rs = ReplicaSet::try_from(&replica_set()).unwrap();
    assert_eq!(
        rs.spec.template.spec["containers"][0]["image"],
        "nginx:1.27"
    );
    assert_eq!(rs.status.conditions.as_ref().map(Vec::len), Some(1));
}

#[test]
fn a_time_outside_the_engine_range_is_refused_by_field() {
    // Year 2300: past the engine's i64 nanoseconds.
    let late = at(10_413_792_000);
    let mut pod = ready_pod();
    pod.metadata.deletion_timestamp = Some(late.clone());
    let err = Pod::try_from(&pod).unwrap_err();
    assert_eq!(err.path(), "metadata.deletionTimestamp");
    assert!(matches!(err, Error::Malformed { .. }), "{err}");
    // The JSON path refuses it too.
    assert!(from_value::<Pod>(serde_json::to_value(&pod).unwrap()).is_err());

    let mut pod = ready_pod();
    if let Some(status) = pod.status.as_mut() {
        if let Some(conditions) = status.conditions.as_mut() {
            conditions[1].last_transition_time = Some(late.clone());
        }
    }
    let err = Pod::try_from(&pod).unwrap_err();
    assert_eq!(err.path(), "status.conditions[1].lastTransitionTime");
    assert!(err.to_string().contains("2261"), "{err}");

    let mut rs = replica_set();
    if let Some(status) = rs.status.as_mut() {
        if let Some(conditions) = status.conditions.as_mut() {
            conditions[0].last_transition_time = Some(late.clone());
        }
    }
    let err = ReplicaSet::try_from(&rs).unwrap_err();
    assert_eq!(err.path(), "status.conditions[0].lastTransitionTime");

    let mut rs = replica_set();
    rs.metadata.creation_timestamp = Some(at(-10_000_000_000)); // 1653
    let err = ReplicaSet::try_from(&rs).unwrap_err();
    assert_eq!(err.path(), "metadata.creationTimestamp");
}

#[test]
fn converted_objects_plan_as_parsed_ones() {
    let owner = ReplicaSet::try_from(&replica_set()).unwrap();
    let pods: Vec<Pod> = [ready_pod(), terminating_pod(), pending_orphan()]
        .iter()
        .map(|p| Pod::try_from(p).unwrap())
        .collect();
    let now = replicore::Time::from_unix_seconds(T0);
    let direct = replicore::SyncInput {
        now,
        owner: owner.clone(),
        other_owners: Vec::new(),
        pods: pods.into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    };
    let pods_json: Vec<serde_json::Value> = [ready_pod(), terminating_pod(), pending_orphan()]
        .iter()
        .map(|p| serde_json::to_value(p).unwrap())
        .collect();
    let json = serde_json::json!({
        "now": "2026-11-21T04:40:12Z",
        "owner": serde_json::to_value(replica_set()).unwrap(),
        "pods": pods_json,
    });
    let parsed = replicore::SyncInput::from_json(json.to_string().as_bytes()).unwrap();
    let config = replicore::Config::default();
    let a = replicore::plan(&direct, &config).unwrap();
    let b = replicore::plan(&parsed, &config).unwrap();
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        serde_json::to_value(&b).unwrap()
    );
}
