//! The subset of the Kubernetes object model the controller reads and writes.
//!
//! Every type deserializes from the wire format as `kubectl get -o json` prints it:
//! camelCase, unknown fields ignored, optional fields optional. Types the engine writes
//! (status, conditions) serialize the way Go's `encoding/json` writes the API types
//! (`omitempty` where the API has it), so written statuses compare equal to upstream's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::time::{self, Time};

/// Label or annotation map. `None` (absent/null) and an empty map are different values
/// (E-13), as `reflect.DeepEqual` sees them.
pub type StringMap = BTreeMap<String, String>;

/// An entry of `metadata.ownerReferences`: the object that owns this one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// `apiVersion` of the owner, as `apps/v1`.
    #[serde(default)]
    pub api_version: String,
    /// `kind` of the owner, as `ReplicaSet`.
    #[serde(default)]
    pub kind: String,
    /// `name` of the owner.
    #[serde(default)]
    pub name: String,
    /// `uid` of the owner: a reference matches an owner only when the uid is the same.
    #[serde(default)]
    pub uid: String,
    /// `controller`: true on the one reference that names the managing controller (the
    /// ControllerRef).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`: the garbage collector keeps the owner until this object is
    /// gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// `metadata`: the part of `ObjectMeta` the controllers read and write.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `metadata.name`.
    #[serde(default)]
    pub name: String,
    /// `metadata.generateName`: the prefix the API server completes into a name on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    /// `metadata.namespace`.
    #[serde(default)]
    pub namespace: String,
    /// `metadata.uid`: the object's identity, which a name reused after a delete does not
    /// keep.
    #[serde(default)]
    pub uid: String,
    /// `metadata.resourceVersion`: the version the API server stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// `metadata.generation`: bumped by the API server on each spec change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// `metadata.creationTimestamp`; `None` for Go's zero time.
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub creation_timestamp: Option<Time>,
    /// `metadata.deletionTimestamp`: set once deletion is requested (the object is
    /// terminating).
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub deletion_timestamp: Option<Time>,
    /// Read by the `pods` quota rule only ([`crate::quota`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `metadata.labels`; `None` (absent) and an empty map differ (E-13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    /// `metadata.annotations`; `None` (absent) and an empty map differ (E-13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
    /// `metadata.ownerReferences`, in order.
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<OwnerReference>,
    /// `metadata.finalizers`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

impl ObjectMeta {
    /// Is this the object `wanted` names: `name`, or `namespace/name`?
    pub fn is_named(&self, wanted: &str) -> bool {
        match wanted.split_once('/') {
            Some((ns, name)) => self.namespace == ns && self.name == name,
            None => self.name == wanted,
        }
    }

    /// The controller reference: the first owner reference with `controller: true`.
    pub fn controller_ref(&self) -> Option<&OwnerReference> {
        self.owner_references
            .iter()
            .find(|r| r.controller == Some(true))
    }

    /// `namespace/name`, the key of the work queue and of expectations.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

// ---------------------------------------------------------------------------------------
// Pods

/// A `v1 Pod`: the fields the ReplicaSet and Deployment controllers read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    /// `metadata`.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: ObjectMeta,
    /// `spec`: the node and the init containers.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: PodSpec,
    /// `status`: phase, conditions and container statuses.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: PodStatus,
}

/// `spec` of a pod: what the controllers read of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// `spec.nodeName`: the node the pod is bound to; `None` while unscheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    /// `spec.initContainers`: read for the restart policy that makes one a sidecar.
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub init_containers: Vec<Container>,
}

/// An init container: its name and restart policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// `name`.
    #[serde(default)]
    pub name: String,
    /// `restartPolicy`: `Always` makes an init container a sidecar that keeps running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

/// `status` of a pod.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// `status.phase`: `Pending`, `Running`, `Succeeded`, `Failed` or `Unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// `status.conditions`, among them `Ready`.
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<PodCondition>,
    /// `status.containerStatuses`: their restart counts rank pods for deletion.
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub container_statuses: Vec<ContainerStatus>,
    /// `status.initContainerStatuses`: the restart counts of sidecars, ranked as those of
    /// containers.
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub init_container_statuses: Vec<ContainerStatus>,
}

/// An entry of `status.conditions` of a pod.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    /// `type`, as `Ready`.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `status`: `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// `lastTransitionTime`: when `status` last changed.
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_transition_time: Option<Time>,
}

/// An entry of `status.containerStatuses`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    /// `name` of the container.
    #[serde(default)]
    pub name: String,
    /// `restartCount`: how many times the container restarted.
    #[serde(default)]
    pub restart_count: i32,
}

impl Pod {
    /// `metadata.name`.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// `metadata.namespace`.
    pub fn namespace(&self) -> &str {
        &self.metadata.namespace
    }

    /// `metadata.uid`.
    pub fn uid(&self) -> &str {
        &self.metadata.uid
    }

    /// The node the pod is bound to; empty when unscheduled.
    pub fn node_name(&self) -> &str {
        self.spec.node_name.as_deref().unwrap_or("")
    }

    /// `status.phase`; empty when absent.
    pub fn phase(&self) -> &str {
        self.status.phase.as_deref().unwrap_or("")
    }

    /// `namespace/name`, the pod's key.
    pub fn key(&self) -> String {
        self.metadata.key()
    }
}

// ---------------------------------------------------------------------------------------
// ReplicaSets

/// An `apps/v1 ReplicaSet` (or another owner of the same shape, as a
/// ReplicationController): what the controllers read and write.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSet {
    /// `apiVersion`, when the object carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `kind`, when the object carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `metadata`.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: ObjectMeta,
    /// `spec`: replicas, selector, template.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: ReplicaSetSpec,
    /// `status`: what the controller last wrote.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: ReplicaSetStatus,
}

/// `spec` of a ReplicaSet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetSpec {
    /// Defaulted to 1 by the API server (E-18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// `spec.minReadySeconds`: how long a pod must be ready to count as available.
    #[serde(default)]
    pub min_ready_seconds: i32,
    /// `None` selects nothing; an empty selector selects everything.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub selector: Option<LabelSelector>,
    /// `spec.template`: the pods created from it.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub template: PodTemplateSpec,
}

impl ReplicaSetSpec {
    /// `spec.replicas`, 1 when absent (E-18).
    pub fn desired(&self) -> i32 {
        self.replicas.unwrap_or(1)
    }
}

/// `spec.template`: the metadata and spec of the pods to create.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTemplateSpec {
    /// `template.metadata`: labels, annotations and finalizers the created pods get.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<TemplateMeta>,
    /// The pod spec, kept as the wire JSON: the engine copies it into created pods.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub spec: serde_json::Value,
}

/// `template.metadata`: what a created pod's metadata starts from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateMeta {
    /// `labels` of the created pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    /// `annotations` of the created pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
    /// `finalizers` of the created pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

impl PodTemplateSpec {
    /// `template.metadata.labels`, when there are any.
    pub fn labels(&self) -> Option<&StringMap> {
        self.metadata.as_ref().and_then(|m| m.labels.as_ref())
    }
}

/// `ReplicaSetStatus`, serialized with Go's `omitempty` rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetStatus {
    /// `status.replicas`: the pods the owner has.
    #[serde(default)]
    pub replicas: i32,
    /// `status.fullyLabeledReplicas`: the pods whose labels match the template's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fully_labeled_replicas: i32,
    /// `status.readyReplicas`: the pods that are ready.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ready_replicas: i32,
    /// `status.availableReplicas`: the pods ready for at least `minReadySeconds`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub available_replicas: i32,
    /// Only written behind the DeploymentReplicaSetTerminatingReplicas gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub terminating_replicas: Option<i32>,
    /// `status.observedGeneration`: the `metadata.generation` this status was written for.
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    /// `None` (absent) and `Some(vec![])` differ for the write decision.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    pub conditions: Option<Vec<ReplicaSetCondition>>,
}

/// An entry of `status.conditions` of a ReplicaSet (as `ReplicaFailure`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetCondition {
    /// `type`, as `ReplicaFailure`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `status`: `True`, `False` or `Unknown`.
    pub status: String,
    /// `lastTransitionTime`: when `status` last changed.
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt"
    )]
    pub last_transition_time: Option<Time>,
    /// `reason`: one CamelCase word.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`: the text for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

// ---------------------------------------------------------------------------------------
// Label selectors

/// A `metav1.LabelSelector`: `matchLabels` and `matchExpressions`, all of which must match.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// `matchLabels`: each key must have exactly this value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub match_labels: Option<StringMap>,
    /// `matchExpressions`: each requirement must hold.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
}

/// One `matchExpressions` entry: a key, an operator and values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    /// `key`: the label the requirement is about.
    #[serde(default)]
    pub key: String,
    /// `operator`: `In`, `NotIn`, `Exists` or `DoesNotExist`.
    #[serde(default)]
    pub operator: String,
    /// `values`: the values `In` and `NotIn` compare with; empty for the other two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub values: Option<Vec<String>>,
}

/// A `v1 List` as `kubectl get rs,pods -o json` prints it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectList {
    /// The list's objects, each as JSON.
    #[serde(default)]
    pub items: Vec<serde_json::Value>,
}
