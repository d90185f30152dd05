//! The engine's input from the types kube-rs users hold: `k8s_openapi`'s
//! `api::core::v1::Pod` and `api::apps::v1::ReplicaSet` (feature `k8s-openapi`).
//!
//! Field by field, no JSON round trip: a host whose reflector already holds typed objects
//! converts them with `TryFrom` and plans. The result equals what
//! [`crate::input::from_value`] makes of the same object serialized, so a host may mix
//! both paths. Two things follow from that equality:
//!
//! - Timestamps keep whole seconds, as `metav1.Time` does on the wire (RFC 3339 with
//!   second precision), and Go's zero time (`0001-01-01T00:00:00Z`) is "no time".
//! - The template's pod spec, which the engine keeps as wire JSON to copy into the pods
//!   it creates, is the serialized `PodSpec` (a `serde_json::Value`, never text).
//!
//! The only refusals are timestamps outside the engine's range (years 1678 to 2261);
//! the error names the field (`status.conditions[1].lastTransitionTime`).
//!
//! k8s-openapi needs exactly one Kubernetes version feature (`v1_31` … `v1_35`) chosen
//! by the final binary; this crate selects none, so it follows the host's choice.
//!
//! ```
//! use k8s_openapi::api::core::v1::Pod as KubePod;
//! use replicore::model::Pod;
//!
//! let kube_pod = KubePod::default();
//! let pod = Pod::try_from(&kube_pod).expect("a pod with no timestamps converts");
//! assert_eq!(pod.name(), "");
//! ```

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use crate::error::{Error, Result};
use crate::model::{
    Container, ContainerStatus, LabelSelector, LabelSelectorRequirement, ObjectMeta,
    OwnerReference, Pod, PodCondition, PodSpec, PodStatus, PodTemplateSpec, ReplicaSet,
    ReplicaSetCondition, ReplicaSetSpec, ReplicaSetStatus, TemplateMeta,
};
use crate::time::{Time, TimeError};

/// Go's zero time, 0001-01-01T00:00:00Z, in Unix seconds.
const GO_ZERO_SECONDS: i64 = -62_135_596_800;
const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// A `metav1.Time` as the engine reads its wire form: whole seconds (rounded down, as
/// `%S` prints them), Go's zero time as `None`.
fn time(t: Option<&meta::Time>, path: &str) -> Result<Option<Time>> {
    let Some(meta::Time(ts)) = t else {
        return Ok(None);
    };
    let mut seconds = ts.as_second();
    if ts.subsec_nanosecond() < 0 {
        seconds = seconds.saturating_sub(1);
    }
    if seconds == GO_ZERO_SECONDS {
        return Ok(None);
    }
    seconds
        .checked_mul(NANOS_PER_SECOND)
        .map(|n| Some(Time::from_unix_nanos(n)))
        .ok_or_else(|| Error::Malformed {
            path: path.to_owned(),
            message: TimeError::OutOfRange(ts.to_string()).to_string(),
        })
}

fn index(path: &str, k: usize, field: &str) -> String {
    format!("{path}[{k}].{field}")
}

fn object_meta(m: &meta::ObjectMeta) -> Result<ObjectMeta> {
    Ok(ObjectMeta {
        name: m.name.clone().unwrap_or_default(),
        generate_name: m.generate_name.clone(),
        namespace: m.namespace.clone().unwrap_or_default(),
        uid: m.uid.clone().unwrap_or_default(),
        resource_version: m.resource_version.clone(),
        generation: m.generation,
        creation_timestamp: time(m.creation_timestamp.as_ref(), "metadata.creationTimestamp")?,
        deletion_timestamp: time(m.deletion_timestamp.as_ref(), "metadata.deletionTimestamp")?,
        deletion_grace_period_seconds: m.deletion_grace_period_seconds,
        labels: m.labels.clone(),
        annotations: m.annotations.clone(),
        owner_references: m
            .owner_references
            .iter()
            .flatten()
            .map(owner_reference)
            .collect(),
        finalizers: m.finalizers.clone().unwrap_or_default(),
    })
}

fn owner_reference(r: &meta::OwnerReference) -> OwnerReference {
    OwnerReference {
        api_version: r.api_version.clone(),
        kind: r.kind.clone(),
        name: r.name.clone(),
        uid: r.uid.clone(),
        controller: r.controller,
        block_owner_deletion: r.block_owner_deletion,
    }
}

fn pod_spec(s: &core::PodSpec) -> PodSpec {
    PodSpec {
        node_name: s.node_name.clone(),
        init_containers: s
            .init_containers
            .iter()
            .flatten()
            .map(|c| Container {
                name: c.name.clone(),
                restart_policy: c.restart_policy.clone(),
            })
            .collect(),
    }
}

fn container_statuses(list: Option<&Vec<core::ContainerStatus>>) -> Vec<ContainerStatus> {
    list.into_iter()
        .flatten()
        .map(|c| ContainerStatus {
            name: c.name.clone(),
            restart_count: c.restart_count,
        })
        .collect()
}

fn pod_status(s: &core::PodStatus) -> Result<PodStatus> {
    let conditions = s
        .conditions
        .iter()
        .flatten()
        .enumerate()
        .map(|(k, c)| {
            Ok(PodCondition {
                type_: c.type_.clone(),
                status: c.status.clone(),
                last_transition_time: time(
                    c.last_transition_time.as_ref(),
                    &index("status.conditions", k, "lastTransitionTime"),
                )?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(PodStatus {
        phase: s.phase.clone(),
        conditions,
        container_statuses: container_statuses(s.container_statuses.as_ref()),
        init_container_statuses: container_statuses(s.init_container_statuses.as_ref()),
    })
}

impl TryFrom<&core::Pod> for Pod {
    type Error = Error;

    /// The pod as the engine reads it; fails only on a timestamp outside years
    /// 1678–2261, naming its field.
    fn try_from(p: &core::Pod) -> Result<Pod> {
        Ok(Pod {
            metadata: object_meta(&p.metadata)?,
            spec: p.spec.as_ref().map(pod_spec).unwrap_or_default(),
            status: p
                .status
                .as_ref()
                .map(pod_status)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

fn label_selector(s: &meta::LabelSelector) -> LabelSelector {
    LabelSelector {
        match_labels: s.match_labels.clone(),
        match_expressions: s.match_expressions.as_ref().map(|list| {
            list.iter()
                .map(|r| LabelSelectorRequirement {
                    key: r.key.clone(),
                    operator: r.operator.clone(),
                    values: r.values.clone(),
                })
                .collect()
        }),
    }
}

fn template(t: &core::PodTemplateSpec) -> Result<PodTemplateSpec> {
    let spec = match &t.spec {
        None => serde_json::Value::Null,
        Some(spec) => serde_json::to_value(spec).map_err(|e| Error::Malformed {
            path: "spec.template.spec".into(),
            message: e.to_string(),
        })?,
    };
    Ok(PodTemplateSpec {
        metadata: t.metadata.as_ref().map(|m| TemplateMeta {
            labels: m.labels.clone(),
            annotations: m.annotations.clone(),
            finalizers: m.finalizers.clone().unwrap_or_default(),
        }),
        spec,
    })
}

fn replica_set_spec(s: &apps::ReplicaSetSpec) -> Result<ReplicaSetSpec> {
    Ok(ReplicaSetSpec {
        replicas: s.replicas,
        min_ready_seconds: s.min_ready_seconds.unwrap_or_default(),
        selector: Some(label_selector(&s.selector)),
        template: s
            .template
            .as_ref()
            .map(template)
            .transpose()?
            .unwrap_or_default(),
    })
}

fn replica_set_status(s: &apps::ReplicaSetStatus) -> Result<ReplicaSetStatus> {
    let conditions = s
        .conditions
        .as_ref()
        .map(|list| {
            list.iter()
                .enumerate()
                .map(|(k, c)| {
                    Ok(ReplicaSetCondition {
                        type_: c.type_.clone(),
                        status: c.status.clone(),
                        last_transition_time: time(
                            c.last_transition_time.as_ref(),
                            &index("status.conditions", k, "lastTransitionTime"),
                        )?,
                        reason: c.reason.clone().unwrap_or_default(),
                        message: c.message.clone().unwrap_or_default(),
                    })
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    Ok(ReplicaSetStatus {
        replicas: s.replicas,
        fully_labeled_replicas: s.fully_labeled_replicas.unwrap_or_default(),
        ready_replicas: s.ready_replicas.unwrap_or_default(),
        available_replicas: s.available_replicas.unwrap_or_default(),
        terminating_replicas: s.terminating_replicas,
        observed_generation: s.observed_generation.unwrap_or_default(),
        conditions,
    })
}

impl TryFrom<&apps::ReplicaSet> for ReplicaSet {
    type Error = Error;

    /// The ReplicaSet as the engine reads it (`apiVersion` and `kind` as the API writes
    /// them); fails only on a timestamp outside years 1678–2261, naming its field.
    fn try_from(rs: &apps::ReplicaSet) -> Result<ReplicaSet> {
        Ok(ReplicaSet {
            api_version: Some("apps/v1".into()),
            kind: Some("ReplicaSet".into()),
            metadata: object_meta(&rs.metadata)?,
            spec: rs
                .spec
                .as_ref()
                .map(replica_set_spec)
                .transpose()?
                .unwrap_or_default(),
            status: rs
                .status
                .as_ref()
                .map(replica_set_status)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}
