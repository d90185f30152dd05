//! The objects the autoscaler reads and writes: the HorizontalPodAutoscaler
//! (autoscaling/v2), the target's Scale subresource (autoscaling/v1) and the pods, with
//! the API defaults the controller assumes (H-10..H-13, H-21) and the controller's
//! configuration and gates (H-01, H-02, H-06..H-09).
//!
//! Field names and omissions follow the Kubernetes wire format, so a status the engine
//! writes is the JSON upstream writes.

use serde::{Deserialize, Serialize};

use crate::model::LabelSelector;
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
    /// `metadata.name`.
    #[serde(default)]
    pub name: String,
    /// `metadata.namespace`.
    #[serde(default)]
    pub namespace: String,
    /// `metadata.labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<LabelList>,
    /// `metadata.deletionTimestamp`: a pod that has one is ignored by the calculator
    /// (H-76).
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub deletion_timestamp: Option<Time>,
}

impl Meta {
    /// R-12: does `selector` select this object's labels?
    pub fn selected_by(&self, selector: &crate::selector::Selector) -> bool {
        selector.matches_lookup(|key| self.labels.as_ref()?.get(key).map(String::as_bytes))
    }
}

/// `autoscaling/v2` HorizontalPodAutoscaler: the fields the controller reads (H-10).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    /// `metadata`: the HPA's namespace and name.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: Meta,
    /// `spec`: the target, the bounds, the metrics and the behavior.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: HpaSpec,
    /// `status`: what the controller last wrote; a sync starts from it.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: HpaStatus,
}

/// `spec.scaleTargetRef` (and a metric's `describedObject`): the object, by kind and name,
/// in the HPA's namespace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    /// `kind`, as `Deployment`.
    #[serde(default)]
    pub kind: String,
    /// `name`.
    #[serde(default)]
    pub name: String,
    /// `apiVersion`, as `apps/v1`: with the kind, says which resource's scale subresource
    /// is read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
}

/// `spec` of a HorizontalPodAutoscaler.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaSpec {
    /// `spec.scaleTargetRef`: the workload whose scale the autoscaler reads and writes.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub scale_target_ref: CrossVersionObjectReference,
    /// H-11, H-39: nil means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// `spec.maxReplicas`: the upper bound the autoscaler scales to.
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
    /// `type`: `Object`, `Pods`, `Resource`, `ContainerResource` or `External`; names the
    /// one source field that is set.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `object`: a metric describing one object in the namespace, for type `Object`.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub object: Option<ObjectMetricSource>,
    /// `pods`: a custom metric averaged over the target's pods, for type `Pods`.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub pods: Option<PodsMetricSource>,
    /// `resource`: a resource (cpu, memory) of the target's pods, for type `Resource`.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resource: Option<ResourceMetricSource>,
    /// `containerResource`: a resource of one container of each pod, for type
    /// `ContainerResource`.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_resource: Option<ContainerResourceMetricSource>,
    /// `external`: a metric from outside the cluster, for type `External`.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub external: Option<ExternalMetricSource>,
}

/// `metric` of a Pods, Object or External source: the metric's name and label selector.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    /// `name` of the metric.
    #[serde(default)]
    pub name: String,
    /// `selector`: narrows the metric to the series with these labels.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub selector: Option<LabelSelector>,
}

/// `target` of a metric source: the value the autoscaler aims for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricTarget {
    /// `type`: `Utilization`, `Value` or `AverageValue`; only an Object metric's
    /// computation reads it (H-68), the others look at which field is set.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `value`: the target for the metric's total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`: the target for the metric's value per pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`: the target as a percentage of the pods' requests (Resource and
    /// ContainerResource).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

/// `object` metric source: a metric of one object (as an Ingress's requests per second).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// `describedObject`: the object the metric is about.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub described_object: CrossVersionObjectReference,
    /// `target`: `value`, or `averageValue` per pod.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
}

/// `pods` metric source: a custom metric each pod reports, averaged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    /// `target`: `averageValue` per pod.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

/// `resource` metric source: what the pods use of a resource, from the resource metrics
/// API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    /// `name` of the resource, as `cpu` or `memory`.
    #[serde(default)]
    pub name: String,
    /// `target`: `averageUtilization` (percent of request) or `averageValue`.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

/// `containerResource` metric source: as [`ResourceMetricSource`], for one named container
/// of each pod.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    /// `name` of the resource, as `cpu` or `memory`.
    #[serde(default)]
    pub name: String,
    /// `target`: `averageUtilization` (percent of request) or `averageValue`.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
    /// `container`: the name of the container whose usage and request count.
    #[serde(default)]
    pub container: String,
}

/// `external` metric source: a metric of something outside the cluster (as a queue's
/// length).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    /// `target`: `value`, or `averageValue` per pod.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub target: MetricTarget,
}

/// `spec.behavior` (H-12).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Behavior {
    /// `behavior.scaleUp`: how fast the autoscaler scales up.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub scale_up: Option<ScalingRules>,
    /// `behavior.scaleDown`: how fast the autoscaler scales down.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub scale_down: Option<ScalingRules>,
}

/// `behavior.scaleUp` or `behavior.scaleDown`: the window, the policies and how to pick
/// among them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingRules {
    /// `stabilizationWindowSeconds`: how far back the recommendations reach that hold
    /// the count in this direction (H-110); an unset scale-down window is the
    /// controller's (H-109).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    /// `selectPolicy`: `Max`, `Min` or `Disabled` (no scaling in this direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<String>,
    /// `policies`: each allows a change per period; `selectPolicy` picks among them.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    pub policies: Option<Vec<ScalingPolicy>>,
    /// `tolerance`: this direction's tolerance, when `HPAConfigurableTolerance` is on
    /// (H-07, H-67).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Quantity>,
}

/// One entry of `policies`: a change allowed per period.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingPolicy {
    /// `type`: `Pods` (a number of pods) or `Percent` (of the replicas at the period's
    /// start, H-115, H-116).
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `value`: the number of pods or the percent.
    #[serde(default)]
    pub value: i32,
    /// `periodSeconds`: the window over which past changes count against `value`.
    #[serde(default)]
    pub period_seconds: i32,
}

/// `status` (H-123): what `setStatus` writes, field for field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaStatus {
    /// `status.observedGeneration`: never written by the controller; dropped by its status
    /// writes (H-123).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `status.lastScaleTime`: when the controller last changed the target's replicas.
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_scale_time: Option<Time>,
    /// `status.currentReplicas`: the target's `spec.replicas`, as its scale said at the
    /// last sync (H-55).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub current_replicas: i32,
    /// `status.desiredReplicas`: the replicas the controller last decided on.
    #[serde(default)]
    pub desired_replicas: i32,
    /// `status.currentMetrics`: each metric's last read value, one entry per entry of
    /// `spec.metrics` (H-62).
    #[serde(default, deserialize_with = "crate::objects::opt_objects")]
    pub current_metrics: Option<Vec<MetricStatus>>,
    /// `status.conditions`: `AbleToScale`, `ScalingActive`, `ScalingLimited` (and
    /// `ScaledToZero`) (H-129).
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "none_or_empty"
    )]
    pub conditions: Option<Vec<HpaCondition>>,
}

/// An entry of `status.conditions` of a HorizontalPodAutoscaler.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaCondition {
    /// `type`, as `AbleToScale`.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `status`: `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// `lastTransitionTime`: when `status` last changed (H-125).
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt"
    )]
    pub last_transition_time: Option<Time>,
    /// `reason`: one CamelCase word, as `SucceededRescale`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`: the text for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// One entry of `status.currentMetrics`; a failed metric leaves `{"type": ""}` (H-62).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    /// `type`: the metric's source type; empty for a metric that failed.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// `object`: the value of an Object metric.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub object: Option<ObjectMetricStatus>,
    /// `pods`: the value of a Pods metric.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub pods: Option<PodsMetricStatus>,
    /// `resource`: the value of a Resource metric.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resource: Option<ResourceMetricStatus>,
    /// `containerResource`: the value of a ContainerResource metric.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    /// `external`: the value of an External metric.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub external: Option<ExternalMetricStatus>,
}

/// `current` of a metric status: the value read, in the form of the metric's target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueStatus {
    /// `value`: the metric's total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`: the value per pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`: the percentage of the pods' requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

/// The status of an Object metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    /// `current`: the value read.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
    /// `describedObject`: the object the metric is about.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub described_object: CrossVersionObjectReference,
}

/// The status of a Pods metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    /// `current`: the average read.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

/// The status of a Resource metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    /// `name` of the resource.
    #[serde(default)]
    pub name: String,
    /// `current`: the utilization and average read.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

/// The status of a ContainerResource metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    /// `name` of the resource.
    #[serde(default)]
    pub name: String,
    /// `current`: the utilization and average read.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
    /// `container`: the container's name.
    #[serde(default)]
    pub container: String,
}

/// The status of an External metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// `metric`: name and selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metric: MetricIdentifier,
    /// `current`: the value read.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub current: MetricValueStatus,
}

/// `autoscaling/v1` Scale (H-10): `spec.replicas`, `status.replicas`, `status.selector`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    /// `spec`: the replicas the target is asked for.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: ScaleSpec,
    /// `status`: the replicas it has and its pods' selector.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: ScaleStatus,
}

/// `spec` of a Scale.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSpec {
    /// `spec.replicas`: the target's desired replicas, the count the autoscaler starts
    /// from.
    #[serde(default)]
    pub replicas: i32,
}

/// `status` of a Scale.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleStatus {
    /// `status.replicas`: the target's actual replicas.
    #[serde(default)]
    pub replicas: i32,
    /// `status.selector`: the target's pods' label selector, as text (`app=web`).
    #[serde(default)]
    pub selector: String,
}

/// A pod as the autoscaler reads it (H-76..H-81, H-95).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaPod {
    /// `metadata`: name, namespace, labels and deletion timestamp.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub metadata: Meta,
    /// `spec`: the containers and their requests.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub spec: PodSpec,
    /// `status`: phase, conditions and start time.
    #[serde(default, deserialize_with = "crate::objects::object")]
    pub status: PodStatus,
}

/// `spec` of a pod: what the autoscaler reads of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// `spec.containers`: their requests are the base of a utilization (H-80).
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub containers: Vec<Container>,
    /// `spec.initContainers`: the sidecars' (`restartPolicy: Always`) requests count with
    /// the containers' (H-80).
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
    /// `spec.overhead`: added to pod-level requests (H-81).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<ResourceList>,
}

/// An object of name → value read as a map reads it (in name order, a later duplicate
/// name replacing the earlier) and held as one sorted list: an object's two or three
/// entries lie side by side in one small block. A map would put them in a node with room
/// for eleven (about 550 bytes for a pod's labels) and its count, keys and values on three
/// cache lines, each a miss per pod with 10,000 pods.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryList<K, V>(Vec<(K, V)>);

/// Resource name → quantity (`requests`, `overhead`).
pub type ResourceList = EntryList<ResourceName, Quantity>;

/// Label key → value (`metadata.labels`).
pub type LabelList = EntryList<String, String>;

impl<K, V> Default for EntryList<K, V> {
    fn default() -> Self {
        EntryList(Vec::new())
    }
}

impl<K: std::borrow::Borrow<str>, V> EntryList<K, V> {
    /// The value of `name` (the few entries scanned with the inline comparison, no
    /// `memcmp` call per entry).
    pub fn get(&self, name: &str) -> Option<&V> {
        use crate::replicaset::digest::same_bytes;
        self.0
            .iter()
            .find(|(k, _)| same_bytes(k.borrow().as_bytes(), name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The entries, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for EntryList<K, V> {
    /// In name order, the last of each name kept (as a map keeps it).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let map: std::collections::BTreeMap<K, V> = iter.into_iter().collect();
        EntryList(map.into_iter().collect())
    }
}

impl<K: Serialize, V: Serialize> Serialize for EntryList<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for EntryList<K, V> {
    /// Read through the map (whose reader the binary has anyway: the ReplicaSet's labels
    /// are a `BTreeMap`), then laid out as the list.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<K, V>::deserialize(d)?;
        Ok(EntryList(map.into_iter().collect()))
    }
}

/// A key of a [`ResourceList`]: `cpu` and `memory`, which every sync looks up in every
/// container, are held without a text on the heap (with 10,000 pods, reading those texts
/// to compare them was most of the time the requests took); any other name as its text.
/// Ordered, compared and written as its text.
#[derive(Clone, Debug)]
pub enum ResourceName {
    /// `cpu`.
    Cpu,
    /// `memory`.
    Memory,
    /// Any other resource name.
    Other(String),
}

impl ResourceName {
    /// The name as written.
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

/// `resources` of a container or a pod: what the autoscaler reads of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resources {
    /// `requests`: the resources asked for, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ResourceList>,
}

/// A container or init container: its name, requests and restart policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// `name`: a ContainerResource metric picks the container by it.
    #[serde(default)]
    pub name: String,
    /// `resources`: the container's requests.
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub resources: Option<Resources>,
    /// `restartPolicy`: `Always` makes an init container a sidecar.
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

/// `status` of a pod: what the autoscaler reads of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// `status.phase`: a `Failed` pod is ignored, a `Pending` one unready (H-76).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    /// `status.conditions`: the `Ready` condition decides whether a CPU sample counts
    /// (H-77).
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<PodCondition>,
    /// `status.startTime`: when the kubelet accepted the pod (H-77).
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub start_time: Option<Time>,
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

impl HpaPod {
    /// H-59: is this pod one the sync lists for an HPA of `namespace` whose target selects
    /// by `selector`? (A host may answer `listPods` with more.)
    pub fn listed_by(&self, namespace: &str, selector: &crate::selector::Selector) -> bool {
        crate::replicaset::digest::same_bytes(
            self.metadata.namespace.as_bytes(),
            namespace.as_bytes(),
        ) && self.metadata.selected_by(selector)
    }

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
    /// Per pod of the target, its sample (Resource, ContainerResource and Pods metrics).
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_objects",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pod_metrics: Option<Vec<PodMetric>>,
    /// The object's value (Object metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub object_value: Option<i64>,
    /// The values of the series that matched (External metrics), which the calculator sums
    /// (H-97, H-98).
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
    /// The pod's name.
    pub pod: String,
    /// Milli-units (memory in milli-bytes).
    pub value: i64,
    /// When the sample was taken.
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

    /// Labels and requests are read as a map reads them: in key order, a later duplicate
    /// key replacing the earlier, and written back as the same object.
    #[test]
    fn label_and_resource_lists_read_as_maps_read() {
        let text = r#"{"name": "p", "labels": {"tier": "a", "app": "web", "tier": "b"}}"#;
        let meta: Meta = crate::input::from_json(text.as_bytes()).unwrap_or_default();
        let labels = meta.labels.clone().unwrap_or_default();
        let read: Vec<(&str, &str)> = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(read, [("app", "web"), ("tier", "b")]);
        let map: crate::model::StringMap =
            serde_json::from_str(r#"{"tier": "a", "app": "web", "tier": "b"}"#).unwrap_or_default();
        assert_eq!(
            serde_json::to_value(&labels).ok(),
            serde_json::to_value(&map).ok()
        );
        let none: Meta = crate::input::from_json(br#"{"labels": null}"#).unwrap_or_default();
        assert_eq!(none.labels, None);
        let bad = crate::input::from_json::<Meta>(br#"{"labels": {"a": 1}}"#);
        assert_eq!(
            bad.map_err(|e| e.path().to_owned()).err().as_deref(),
            Some("labels.a")
        );

        let requests: ResourceList =
            serde_json::from_str(r#"{"memory": "1Gi", "cpu": "1", "cpu": "250m"}"#)
                .unwrap_or_default();
        let read: Vec<(&str, i64)> = requests
            .iter()
            .map(|(k, q)| (k.as_str(), q.milli_value()))
            .collect();
        assert_eq!(read, [("cpu", 250), ("memory", 1_073_741_824_000)]);
    }

    /// R-12 on a pod's label list agrees with the selector on the same labels as a map,
    /// for every operator, present and absent keys and compared values.
    #[test]
    fn a_label_list_is_selected_as_its_map() {
        use crate::selector::Selector;
        let selectors = [
            "",
            "app=web",
            "app!=web",
            "app in (web,db)",
            "app notin (web)",
            "tier",
            "!tier",
            "rank>3",
            "rank<3",
            "app=web,tier in (a,b),!canary",
            "app=web,rank>1",
        ];
        let label_sets: [&[(&str, &str)]; 6] = [
            &[],
            &[("app", "web")],
            &[("app", "db"), ("tier", "a")],
            &[("app", "web"), ("tier", "b"), ("canary", "1")],
            &[("rank", "4"), ("app", "web")],
            &[("rank", "x"), ("tier", "c")],
        ];
        for text in selectors {
            let Ok(selector) = Selector::parse(text) else {
                panic!("{text} parses");
            };
            for set in label_sets {
                let map: crate::model::StringMap = set
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                let meta = Meta {
                    labels: Some(
                        set.iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                    ),
                    ..Meta::default()
                };
                assert_eq!(
                    meta.selected_by(&selector),
                    selector.matches(Some(&map)),
                    "{text} on {set:?}"
                );
            }
            let unlabelled = Meta::default();
            assert_eq!(
                unlabelled.selected_by(&selector),
                selector.matches(None),
                "{text} on no labels"
            );
        }
        assert!(!Meta::default().selected_by(&Selector::Nothing));
    }
}
