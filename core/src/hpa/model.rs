//! The objects the autoscaler reads and writes: the HorizontalPodAutoscaler
//! (autoscaling/v2), the target's Scale subresource (autoscaling/v1) and the pods, with
//! the API defaults the controller assumes (H-10..H-13, H-21) and the controller's
//! configuration and gates (H-01, H-02, H-06..H-09).
//!
//! Field names and omissions follow the Kubernetes wire format, so a status the engine
//! writes is the JSON upstream writes.

use serde::{Deserialize, Serialize};

use crate::model::{LabelSelector, StringMap};
use crate::pod_fields::Fields::{self, List, Object, Value};
use crate::quantity::Quantity;
use crate::time::{self, Duration, Time};

/// H-01: the controller's configuration (kube-controller-manager's flags), with upstream's
/// defaults.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HpaConfig {
    /// `--horizontal-pod-autoscaler-tolerance` (0.1).
    pub tolerance: f64,
    /// `--horizontal-pod-autoscaler-downscale-stabilization` in seconds (300).
    pub downscale_stabilization_window_seconds: i64,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period` in seconds (300).
    pub cpu_initialization_period_seconds: i64,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay` in seconds (30).
    pub delay_of_initial_readiness_status_seconds: i64,
    /// `--horizontal-pod-autoscaler-sync-period` in seconds (15): the requeue (H-22).
    pub sync_period_seconds: i64,
    /// H-04: the legacy path's scale-up cap is `max(factor × current, minimum)`; a
    /// package variable upstream (2), which upstream's own test package sets to 8 (and
    /// so do the recorded vectors, whose harness runs inside that package).
    pub scale_up_limit_factor: f64,
    /// H-04: 4.
    pub scale_up_limit_minimum: f64,
}

impl Default for HpaConfig {
    fn default() -> Self {
        HpaConfig {
            tolerance: 0.1,
            downscale_stabilization_window_seconds: 300,
            cpu_initialization_period_seconds: 300,
            delay_of_initial_readiness_status_seconds: 30,
            sync_period_seconds: 15,
            scale_up_limit_factor: 2.0,
            scale_up_limit_minimum: 4.0,
        }
    }
}

impl HpaConfig {
    pub(crate) fn downscale_window(&self) -> Duration {
        Duration::from_seconds(self.downscale_stabilization_window_seconds)
    }
}

/// H-06..H-08: the gates the autoscaler reads, with their v1.36 defaults.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct HpaGates {
    /// H-06: alpha, off.
    #[serde(rename = "HPAScaleToZero")]
    pub hpa_scale_to_zero: bool,
    /// H-07: beta, on.
    #[serde(rename = "HPAConfigurableTolerance")]
    pub hpa_configurable_tolerance: bool,
    /// H-08: beta, on.
    pub pod_level_resources: bool,
}

impl Default for HpaGates {
    fn default() -> Self {
        HpaGates {
            hpa_scale_to_zero: false,
            hpa_configurable_tolerance: true,
            pod_level_resources: true,
        }
    }
}

fn none_or_empty<T>(v: &Option<Vec<T>>) -> bool {
    v.as_ref().is_none_or(Vec::is_empty)
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// A metadata subset: what the autoscaler reads of any object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<StringMap>,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub deletion_timestamp: Option<Time>,
}

/// `autoscaling/v2` HorizontalPodAutoscaler: the fields the controller reads (H-10).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: HpaSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: HpaStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaSpec {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub scale_target_ref: CrossVersionObjectReference,
    /// H-11, H-39: nil means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    #[serde(default)]
    pub max_replicas: i32,
    /// H-11: `None` (absent or null) gets the default CPU metric.
    #[serde(default, deserialize_with = "crate::objects::opt_objects")]
    pub metrics: Option<Vec<MetricSpec>>,
    /// H-13: `None` selects the legacy algorithm.
    #[serde(default, deserialize_with = "crate::objects::opt_object")]
    pub behavior: Option<Behavior>,
}

/// One entry of `spec.metrics`: a type and the one source of that type (H-17).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub object: Option<ObjectMetricSource>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub pods: Option<PodsMetricSource>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resource: Option<ResourceMetricSource>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_resource: Option<ContainerResourceMetricSource>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub external: Option<ExternalMetricSource>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    #[serde(default)]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub selector: Option<LabelSelector>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricTarget {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub described_object: CrossVersionObjectReference,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
    #[serde(default)]
    pub container: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

/// `spec.behavior` (H-12).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Behavior {
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub scale_up: Option<ScalingRules>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub scale_down: Option<ScalingRules>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingRules {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    pub policies: Option<Vec<ScalingPolicy>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Quantity>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingPolicy {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub value: i32,
    #[serde(default)]
    pub period_seconds: i32,
}

/// `status` (H-123): what `setStatus` writes, field for field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_scale_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub current_replicas: i32,
    #[serde(default)]
    pub desired_replicas: i32,
    #[serde(default, deserialize_with = "crate::objects::opt_objects")]
    pub current_metrics: Option<Vec<MetricStatus>>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "none_or_empty"
    )]
    pub conditions: Option<Vec<HpaCondition>>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
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

/// One entry of `status.currentMetrics`; a failed metric leaves `{"type": ""}` (H-62).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub object: Option<ObjectMetricStatus>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub pods: Option<PodsMetricStatus>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resource: Option<ResourceMetricStatus>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub external: Option<ExternalMetricStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub described_object: CrossVersionObjectReference,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
    #[serde(default)]
    pub container: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

/// `autoscaling/v1` Scale (H-10): `spec.replicas`, `status.replicas`, `status.selector`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: ScaleSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: ScaleStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSpec {
    #[serde(default)]
    pub replicas: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleStatus {
    #[serde(default)]
    pub replicas: i32,
    #[serde(default)]
    pub selector: String,
}

/// A pod as the autoscaler reads it (H-76..H-81, H-95).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaPod {
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: PodSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: PodStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub containers: Vec<Container>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub init_containers: Vec<Container>,
    /// Pod-level resources (H-81).
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resources: Option<Resources>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<ResourceList>,
}

/// Resource name → quantity, in name order (a later duplicate name wins, as in a map).
/// Held as one sorted list: a container's two or three requests lie side by side, where
/// a map's node put the entry count, the keys and the values on three cache lines, each a
/// miss per container with 10,000 pods.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceList(Vec<(ResourceName, Quantity)>);

impl ResourceList {
    pub fn get(&self, name: &str) -> Option<&Quantity> {
        self.0
            .iter()
            .find(|(k, _)| k.as_str() == name)
            .map(|(_, q)| q)
    }

    pub fn keys(&self) -> impl Iterator<Item = &ResourceName> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&ResourceName, &Quantity)> {
        self.0.iter().map(|(k, q)| (k, q))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(ResourceName, Quantity)> for ResourceList {
    fn from_iter<I: IntoIterator<Item = (ResourceName, Quantity)>>(iter: I) -> Self {
        let map: std::collections::BTreeMap<_, _> = iter.into_iter().collect();
        ResourceList(map.into_iter().collect())
    }
}

impl Serialize for ResourceList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for ResourceList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<ResourceName, Quantity>::deserialize(d)?;
        Ok(ResourceList(map.into_iter().collect()))
    }
}

/// A key of a [`ResourceList`]: `cpu` and `memory`, which every sync looks up in every
/// container, are held without a text on the heap (with 10,000 pods, reading those texts
/// to compare them was most of the time the requests took); any other name as its text.
/// Ordered, compared and written as its text.
#[derive(Clone, Debug)]
pub enum ResourceName {
    Cpu,
    Memory,
    Other(String),
}

impl ResourceName {
    pub fn as_str(&self) -> &str {
        match self {
            ResourceName::Cpu => "cpu",
            ResourceName::Memory => "memory",
            ResourceName::Other(s) => s,
        }
    }
}

impl From<String> for ResourceName {
    fn from(s: String) -> Self {
        match s.as_str() {
            "cpu" => ResourceName::Cpu,
            "memory" => ResourceName::Memory,
            _ => ResourceName::Other(s),
        }
    }
}

impl std::borrow::Borrow<str> for ResourceName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ResourceName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ResourceName {}

impl PartialOrd for ResourceName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResourceName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Serialize for ResourceName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResourceName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(ResourceName::from)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resources {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ResourceList>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resources: Option<Resources>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

impl Container {
    pub(crate) fn request(&self, resource: &str) -> Option<&Quantity> {
        self.resources.as_ref()?.requests.as_ref()?.get(resource)
    }

    /// A sidecar: an init container that keeps running (`restartPolicy: Always`).
    pub(crate) fn is_restartable(&self) -> bool {
        self.restart_policy.as_deref() == Some("Always")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<PodCondition>,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub start_time: Option<Time>,
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

impl HpaPod {
    /// The first `Ready` condition, as `podutil.GetPodCondition` finds it.
    pub(crate) fn ready_condition(&self) -> Option<&PodCondition> {
        self.status.conditions.iter().find(|c| c.type_ == "Ready")
    }

    /// `podutil.IsPodReady`: a `Ready` condition with status `True`.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready_condition().is_some_and(|c| c.status == "True")
    }
}

/// The fields of a pod the autoscaler reads ([`HpaPod`] on the wire), as
/// [`crate::pod_fields::POD_FIELDS`] is the ReplicaSet engine's: a host's pod cache may keep
/// only these (with the ReplicaSet engine's, when it feeds both).
pub const HPA_POD_FIELDS: Fields = {
    const REQUESTS: Fields = Object(&[("requests", Value)]);
    const CONTAINER: Fields = Object(&[
        ("name", Value),
        ("resources", REQUESTS),
        ("restartPolicy", Value),
    ]);
    Object(&[
        (
            "metadata",
            Object(&[
                ("name", Value),
                ("namespace", Value),
                ("labels", Value),
                ("deletionTimestamp", Value),
            ]),
        ),
        (
            "spec",
            Object(&[
                ("containers", List(&CONTAINER)),
                ("initContainers", List(&CONTAINER)),
                ("resources", REQUESTS),
                ("overhead", Value),
            ]),
        ),
        (
            "status",
            Object(&[
                ("phase", Value),
                (
                    "conditions",
                    List(&Object(&[
                        ("type", Value),
                        ("status", Value),
                        ("lastTransitionTime", Value),
                    ])),
                ),
                ("startTime", Value),
            ]),
        ),
    ])
};

// ---------------------------------------------------------------------------------------
// Defaults the controller assumes (H-11, H-12, H-21)

impl HorizontalPodAutoscaler {
    /// H-11/H-12: the API server's defaults, applied to an object that may come without
    /// them (objects from an API server already have them; applying twice changes
    /// nothing).
    pub fn apply_defaults(&mut self) {
        let spec = &mut self.spec;
        if spec.min_replicas.is_none() {
            spec.min_replicas = Some(1);
        }
        if spec.metrics.as_ref().is_none_or(Vec::is_empty) {
            spec.metrics = Some(vec![MetricSpec {
                type_: "Resource".into(),
                resource: Some(ResourceMetricSource {
                    name: "cpu".into(),
                    target: MetricTarget {
                        type_: "Utilization".into(),
                        average_utilization: Some(80),
                        ..MetricTarget::default()
                    },
                }),
                ..MetricSpec::default()
            }]);
        }
        if let Some(behavior) = &mut spec.behavior {
            let up = behavior.scale_up.take().unwrap_or_default();
            behavior.scale_up = Some(overlay(
                up,
                Some(0),
                vec![policy("Pods", 4, 15), policy("Percent", 100, 15)],
            ));
            let down = behavior.scale_down.take().unwrap_or_default();
            behavior.scale_down = Some(overlay(down, None, vec![policy("Percent", 100, 15)]));
        }
    }

    pub(crate) fn metrics(&self) -> &[MetricSpec] {
        self.spec.metrics.as_deref().unwrap_or_default()
    }
}

fn policy(kind: &str, value: i32, period: i32) -> ScalingPolicy {
    ScalingPolicy {
        type_: kind.into(),
        value,
        period_seconds: period,
    }
}

/// H-12: the user's rules over a default, field by field.
fn overlay(
    mut user: ScalingRules,
    window: Option<i32>,
    policies: Vec<ScalingPolicy>,
) -> ScalingRules {
    if user.select_policy.is_none() {
        user.select_policy = Some("Max".into());
    }
    if user.stabilization_window_seconds.is_none() {
        user.stabilization_window_seconds = window;
    }
    if user.policies.is_none() {
        user.policies = Some(policies);
    }
    user
}

// ---------------------------------------------------------------------------------------
// What the metrics APIs answered (the host's `MetricsClient`)

/// What one metrics query answered, in milli-units, as the host's metrics client hands it
/// over (H-99..H-102): pod samples (Resource, ContainerResource, Pods), an object's value,
/// an external metric's values, or the client's error text.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricResponse {
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pod_metrics: Option<Vec<PodMetric>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub object_value: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub external_values: Option<Vec<i64>>,
    /// The first sample's time, as the client returns it beside the values.
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub timestamp: Option<Time>,
    /// The client's error (`unable to fetch metrics from resource metrics API: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// One pod's sample.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMetric {
    pub pod: String,
    /// Milli-units (memory in milli-bytes).
    pub value: i64,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub timestamp: Option<Time>,
    /// The sample's window in milliseconds (H-100: one minute when the API gives none).
    #[serde(default = "one_minute_millis")]
    pub window_millis: i64,
}

fn one_minute_millis() -> i64 {
    60_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hpa_pod_tree_keeps_every_field_the_model_reads() {
        let full = serde_json::json!({
            "metadata": {"name": "p", "namespace": "ns", "labels": {"a": "b"},
                         "deletionTimestamp": "2026-11-21T04:40:12Z", "uid": "dropped"},
            "spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}},
                                "restartPolicy": "Always", "image": "dropped"}],
                "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "10m"}}, "restartPolicy": "Always"}],
                "resources": {"requests": {"cpu": "1"}},
                "overhead": {"cpu": "5m"},
                "nodeName": "dropped"
            },
            "status": {"phase": "Running", "startTime": "2026-11-21T04:40:12Z",
                       "conditions": [{"type": "Ready", "status": "True",
                                       "lastTransitionTime": "2026-11-21T04:40:12Z", "reason": "dropped"}],
                       "podIP": "dropped"}
        });
        let whole: HpaPod = crate::input::from_value(full.clone()).unwrap_or_default();
        let kept = HPA_POD_FIELDS.keep(&full);
        assert!(!kept.to_string().contains("dropped"));
        let read: HpaPod = crate::input::from_value(kept).unwrap_or_default();
        assert_eq!(read, whole);
        // Every field of the model is set above: what the model writes back is kept whole.
        let written = serde_json::to_value(&whole).unwrap_or_default();
        assert_eq!(HPA_POD_FIELDS.keep(&written), written);
    }
}
