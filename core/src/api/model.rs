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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub creation_timestamp: Option<Time>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<OwnerReference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

impl ObjectMeta {
    /// The controller reference: the first owner reference with `controller: true`.
    /// Is this the object `wanted` names: `name`, or `namespace/name`?
    pub fn is_named(&self, wanted: &str) -> bool {
        match wanted.split_once('/') {
            Some((ns, name)) => self.namespace == ns && self.name == name,
            None => self.name == wanted,
        }
    }

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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: PodSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: PodStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub init_containers: Vec<Container>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<PodCondition>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub container_statuses: Vec<ContainerStatus>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub init_container_statuses: Vec<ContainerStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_transition_time: Option<Time>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub restart_count: i32,
}

impl Pod {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    pub fn namespace(&self) -> &str {
        &self.metadata.namespace
    }

    pub fn uid(&self) -> &str {
        &self.metadata.uid
    }

    /// The node the pod is bound to; empty when unscheduled.
    pub fn node_name(&self) -> &str {
        self.spec.node_name.as_deref().unwrap_or("")
    }

    pub fn phase(&self) -> &str {
        self.status.phase.as_deref().unwrap_or("")
    }

    pub fn key(&self) -> String {
        self.metadata.key()
    }
}

// ---------------------------------------------------------------------------------------
// ReplicaSets

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: ReplicaSetSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: ReplicaSetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetSpec {
    /// Defaulted to 1 by the API server (E-18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub min_ready_seconds: i32,
    /// `None` selects nothing; an empty selector selects everything.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub selector: Option<LabelSelector>,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub template: PodTemplateSpec,
}

impl ReplicaSetSpec {
    pub fn desired(&self) -> i32 {
        self.replicas.unwrap_or(1)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTemplateSpec {
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<StringMap>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

impl PodTemplateSpec {
    pub fn labels(&self) -> Option<&StringMap> {
        self.metadata.as_ref().and_then(|m| m.labels.as_ref())
    }
}

/// `ReplicaSetStatus`, serialized with Go's `omitempty` rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetStatus {
    #[serde(default)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fully_labeled_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ready_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub available_replicas: i32,
    /// Only written behind the DeploymentReplicaSetTerminatingReplicas gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub terminating_replicas: Option<i32>,
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt"
    )]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub match_labels: Option<StringMap>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub operator: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub values: Option<Vec<String>>,
}

/// A `v1 List` as `kubectl get rs,pods -o json` prints it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectList {
    #[serde(default)]
    pub items: Vec<serde_json::Value>,
}
