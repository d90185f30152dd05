//! The autoscaling forecast (issue 25, point 5): an HPA played forward over a load curve,
//! its scale target a Deployment moved by the engine's controllers.
//!
//! Every sync period the forecast is the autoscaler's host: it answers the engine's own
//! sync ([`run_sync`], every rule H-xx, nothing restated here) from a seeded model of the
//! scale target and its pods, carries the memory the sync returns to the next one (as a
//! controller does) and keeps the status the sync writes (as the informer cache would).
//! The scale target is a Deployment in the shared play (`deployment/play.rs`): a scale
//! write sets its `spec.replicas`; the engine's Deployment controller (D-xx) carries the
//! count to its ReplicaSets — during a rolling update, split across the old and the new
//! ones (proportional scaling, D-40..D-47, and the rollout's own steps, D-50..D-54); the
//! engine's ReplicaSet controller (plan, calls, complete: R-xx) creates and deletes the
//! pods (which ones a scale-down deletes is the ranking's choice). Between two HPA syncs
//! the controllers act at every instant something happens (a pod starting, a pod becoming
//! ready, a requeue), `createDelaySeconds` after a scale write or a rollout's start.
//!
//! The model, which is the forecast's and no upstream rule:
//! - **Load** is in *pods at target*: the demand divided by what one pod uses at the
//!   target. A load of 12 with a 50 % CPU target on 500m requests is 3 CPUs of demand:
//!   12 pods at 50 %. Each metric of the HPA reads its own load: the curve `load` times
//!   its `factor` (1), or its own curve (`metrics[i].load`, in pods at *its* target).
//!   With factors 1 every metric proposes about the same count; a factor of 1.5 on the
//!   second makes it propose half as many pods again, and it dominates.
//! - **Metrics**, at each sync, from the load of each metric:
//!   - `Resource` / `ContainerResource` (cpu or memory; `Utilization` or `AverageValue`)
//!     and `Pods` (`AverageValue`): the Ready pods share the demand evenly, each sample
//!     spread by a seeded `± noise` fraction; Running pods not yet Ready report
//!     `startupCpu` (cpu) or `startupMemory` (memory) × their request, and 0 for a `Pods`
//!     metric (no traffic before Ready); Pending pods have no sample (metrics-server has
//!     none). Samples are taken at the sync's instant over a `metricWindowSeconds` window.
//!   - `Object` and `External`: one value: with an `AverageValue` target the total demand
//!     (load × target), with a `Value` target the demand per Ready pod (target × load /
//!     Ready pods, as a latency or a queue per worker behaves), spread by one seeded
//!     noise draw.
//! - **Pods** ([`PodModel`]): Pending until `runningSeconds` after creation
//!   (`status.startTime` is the creation), Running and not Ready until `readySeconds`,
//!   then Ready. Every pod requests `cpuRequestMillis` and `memoryRequestMi`.
//! - **Rollout** ([`RolloutPlan`]): at `atSeconds` the Deployment's template changes
//!   (a new image), with the RollingUpdate strategy given; the new template's pods start
//!   by `rollout.pods` (the same model unless given). Or the forecast starts with the
//!   rollout `partway`: the old ReplicaSet at `old` pods, the new one at `new`, all Ready.
//!
//! The totals measure the pods at each sync and count them for the sync period that
//! follows: **at capacity** means Ready pods × (1 + the controller's tolerance) ≥ the
//! highest load of any metric; **over-provisioned pod-seconds** sum the pods beyond that
//! load; a **shortfall** starts at the first sync under capacity and lasts until the
//! first sync back at capacity; **direction changes** count rescales whose direction
//! differs from the previous rescale's (flapping).
//!
//! Same input, same seed: same forecast. The only randomness is [`Rng`], there is no
//! clock, and the load curve uses only arithmetic (its cosine is a series), so native and
//! wasm agree.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::deployment::limiting::StepCalls;
use crate::deployment::model::IntOrString;
/// A pod's stage for what it reports: Pending (no sample), Running not Ready, Ready.
pub use crate::deployment::play::Stage;
use crate::deployment::play::{Play, PodLife};
use crate::deployment::{ProgressRequeue, Wire};
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::time::Time;

use super::events::HpaEvent;
use super::explain::{explain_sync, HpaExplanation};
use super::load::{pod_usage, ready_share, spread, UsageStage};
pub use super::load::{LoadCurve, LoadPoint};
use super::machine::{run_sync, GroupResource, HpaAnswer, HpaCall, HpaSyncInput};
use super::memory::HpaMemory;
use super::model::{
    HorizontalPodAutoscaler, HpaConfig, HpaGates, HpaPod, HpaStatus, MetricResponse, MetricSpec,
    MetricStatus, MetricTarget, PodMetric, Scale, ScaleSpec, ScaleStatus,
};
use super::status::{ABLE_TO_SCALE, SCALING_LIMITED};

/// The label the model's pods carry and the Deployment's selector names.
const POD_LABEL: (&str, &str) = ("app", "hpa-forecast");
/// Pods the model holds at most (a bound on the work; `maxReplicas` above it is refused).
const MAX_PODS: i32 = 10_000;
/// Syncs at most (a week at 15 s).
const MAX_SYNCS: i64 = 40_320;
/// Deployment syncs of one instant at most (a sync that writes a ReplicaSet is followed
/// by another once the ReplicaSet controller has acted, as the watch would trigger it).
const DEPLOYMENT_SYNCS_PER_INSTANT: usize = 8;
/// One mebibyte in the milli-units of a quantity.
const MI_MILLI: f64 = 1_048_576_000.0;

/// The pods' model (every field defaults on its own).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodModel {
    /// From a scale write (or a rollout's start) to the controllers acting on it (1 s).
    pub create_delay_seconds: f64,
    /// From creation to Running (5 s); Pending before, without a metric sample.
    pub running_seconds: f64,
    /// From creation to Ready (30 s; not before Running).
    pub ready_seconds: f64,
    /// The CPU of a Running pod that is not Ready, as a fraction of its request (1.0).
    pub startup_cpu: f64,
    /// The memory of a Running pod that is not Ready, as a fraction of its request (0.5).
    pub startup_memory: f64,
    /// Each pod's CPU request in millicores (500).
    pub cpu_request_millis: i64,
    /// Each pod's memory request in MiB (512).
    pub memory_request_mi: i64,
    /// The spread of a Ready pod's sample around its share: uniform in ± this fraction,
    /// seeded (0.05).
    pub noise: f64,
    /// The window of every sample (15 s, metrics-server's resolution).
    pub metric_window_seconds: f64,
}

impl Default for PodModel {
    fn default() -> Self {
        PodModel {
            create_delay_seconds: 1.0,
            running_seconds: 5.0,
            ready_seconds: 30.0,
            startup_cpu: 1.0,
            startup_memory: 0.5,
            cpu_request_millis: 500,
            memory_request_mi: 512,
            noise: 0.05,
            metric_window_seconds: 15.0,
        }
    }
}

/// What drives one metric of the HPA (`metrics[i]` for `hpa.spec.metrics[i]`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricLoad {
    /// The metric's load is the forecast's `load` times this (1).
    #[serde(default = "one")]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
    pub factor: f64,
    /// The metric's own load curve, in pods at its target (instead of `load`; the factor
    /// still applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub load: Option<LoadCurve>,
}

fn one() -> f64 {
    1.0
}

/// A rollout of a new template during the forecast.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutPlan {
    /// When the template changes (0; ignored with `partway`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
    pub at_seconds: f64,
    /// The RollingUpdate strategy (25 % each unless given).
    #[serde(default = "quarter")]
    #[cfg_attr(feature = "ts", ts(as = "Option<IntOrString>", optional))]
    pub max_surge: IntOrString,
    /// The RollingUpdate strategy's `maxUnavailable` (25 % unless given).
    #[serde(default = "quarter")]
    #[cfg_attr(feature = "ts", ts(as = "Option<IntOrString>", optional))]
    pub max_unavailable: IntOrString,
    /// How the new template's pods start (the forecast's `pods` unless given; its
    /// missing fields take the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pods: Option<PodModel>,
    /// Start with the rollout underway: the old ReplicaSet at `old` pods, the new one at
    /// `new`, every pod Ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub partway: Option<Partway>,
}

fn quarter() -> IntOrString {
    IntOrString::Str("25%".to_owned())
}

/// A rollout underway at the start.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Partway {
    /// The old ReplicaSet's pods at the start.
    pub old: i32,
    /// The new ReplicaSet's pods at the start.
    pub new: i32,
}

/// What to forecast.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecastInput {
    /// The controller clock at the start (2026-01-01T00:00:00Z unless given).
    #[serde(default = "default_start")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Time>", optional))]
    pub start: Time,
    /// The HorizontalPodAutoscaler (autoscaling/v2), as `kubectl get hpa -o json` prints it.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub hpa: Value,
    /// The controller's configuration; `syncPeriodSeconds` (15) is the forecast's step.
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<HpaConfig>>", optional)
    )]
    pub config: HpaConfig,
    /// The autoscaler's feature gates; each gate not given takes its default.
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<HpaGates>>", optional)
    )]
    pub feature_gates: HpaGates,
    /// The load over time, in pods at target (each metric's unless `metrics` gives it its
    /// own).
    pub load: LoadCurve,
    /// What drives each metric, index for index with `hpa.spec.metrics` (a metric
    /// without an entry reads `load`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<MetricLoad>>", optional))]
    pub metrics: Vec<MetricLoad>,
    /// How the pods start and what they request; each field not given takes its default.
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<PodModel>>", optional)
    )]
    pub pods: PodModel,
    /// The Deployment's replicas at the start, all Ready for an hour.
    pub initial_replicas: i32,
    /// A rollout during the forecast (none unless given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rollout: Option<RolloutPlan>,
    /// How long to play (3600 s).
    #[serde(default = "one_hour")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i64>", optional))]
    pub duration_seconds: i64,
    /// The seed of the samples' noise: the same input and seed give the same forecast.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<u64>", optional))]
    pub seed: u64,
    /// Explain the sync at this second ("why N?", [`HpaForecast::explanation`]); the
    /// forecast is the same with or without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub explain_at_seconds: Option<i64>,
}

fn default_start() -> Time {
    // 2026-01-01T00:00:00Z
    Time::from_unix_seconds(1_767_225_600)
}

fn one_hour() -> i64 {
    3600
}

impl HpaForecastInput {
    /// Parses the input from JSON text, naming the field path of any error.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        crate::input::from_json(bytes)
    }

    /// Parses the input from a JSON value, naming the field path of any error.
    pub fn from_value(value: Value) -> Result<Self> {
        crate::input::from_value(value)
    }
}

/// One metric at one sync: its load and what the status reports.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecastMetric {
    /// `cpu`, `memory`, or the metric's name.
    pub name: String,
    /// The metric's load, in pods at its target.
    pub load: f64,
    /// What the status reports (`currentMetrics[i]`): utilization (percent of request),
    /// average value or value (quantities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub utilization: Option<i32>,
    /// The average value the status reports, as a quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub average_value: Option<String>,
    /// The value the status reports, as a quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub value: Option<String>,
}

/// One sync of the forecast: the model at the sync and what the sync decided.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecastStep {
    /// Seconds since the start.
    pub seconds: i64,
    /// The load, in pods at target (the curve `load`).
    pub load: f64,
    /// The first metric's utilization as the status reports it (percent of request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub utilization: Option<i32>,
    /// The first metric's average value as the status reports it, as a quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub average_value: Option<String>,
    /// Every metric, in `spec.metrics` order.
    pub metrics: Vec<HpaForecastMetric>,
    /// `status.currentReplicas` after the sync.
    pub current_replicas: i32,
    /// `status.desiredReplicas` after the sync.
    pub desired_replicas: i32,
    /// The Deployment's `spec.replicas` after the sync.
    pub replicas: i32,
    /// `spec.replicas` of the new ReplicaSet (the current template's), before the sync.
    pub new_replicas: i32,
    /// `spec.replicas` of the old ReplicaSets, summed, before the sync.
    pub old_replicas: i32,
    /// The pods that exist at the sync.
    pub pods: i32,
    /// The pods that are Ready at the sync.
    pub ready_pods: i32,
    /// The count the sync wrote, if it rescaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rescaled_to: Option<i32>,
    /// The reason of the AbleToScale condition.
    pub able_to_scale: String,
    /// The reason of the ScalingLimited condition.
    pub scaling_limited: String,
    /// What held the count back: ScalingLimited's reason when True, else AbleToScale's
    /// when it is a stabilization (`ScaleUpStabilized`, `ScaleDownStabilized`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limited_by: Option<String>,
    /// Ready pods × (1 + tolerance) < the highest load of any metric.
    pub under_capacity: bool,
    /// The events the sync recorded.
    pub events: Vec<HpaEvent>,
    /// The sync's error (a host would log it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// A time under capacity: from its first sync to the first sync back at capacity.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shortfall {
    /// Seconds from the forecast's start to the shortfall's first sync.
    pub start_seconds: i64,
    /// The load at its start.
    pub load: f64,
    /// Seconds until capacity was reached; none when the forecast ended first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub seconds_to_capacity: Option<i64>,
}

/// The forecast's totals.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecastTotals {
    /// Syncs played.
    pub syncs: usize,
    /// Syncs that rescaled the Deployment.
    pub rescales: usize,
    /// Rescales up.
    pub scale_ups: usize,
    /// Rescales down.
    pub scale_downs: usize,
    /// Rescales in the other direction than the one before.
    pub direction_changes: usize,
    /// Seconds spent under capacity (each sync under capacity counts a sync period).
    pub seconds_under_capacity: i64,
    /// Σ max(0, pods − the highest load) × sync period.
    pub over_provisioned_pod_seconds: f64,
    /// The most pods at any sync.
    pub peak_pods: i32,
    /// The longest time to capacity among the shortfalls that ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub longest_seconds_to_capacity: Option<i64>,
    /// With a rollout: seconds from its start to the first sync with no old replica
    /// left and every pod of the new ReplicaSet available (none: not done in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rollout_seconds: Option<i64>,
}

/// The forecast.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecast {
    /// Every sync, in order.
    pub steps: Vec<HpaForecastStep>,
    /// The times under capacity, in order.
    pub shortfalls: Vec<Shortfall>,
    /// The totals over the forecast.
    pub totals: HpaForecastTotals,
    /// The memory after the last sync (what the controller would remember).
    pub memory: HpaMemory,
    /// The sync at `explainAtSeconds` explained, as `explainHpa` explains a snapshot,
    /// with the memory the forecast carried to it.
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub explanation: Option<HpaExplanation>,
}

// ---------------------------------------------------------------------------------------
// The metrics

/// What a Running pod not yet Ready reports for a per-pod metric.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StartupUse {
    Cpu,
    Memory,
    Nothing,
}

/// How one metric's samples are made.
#[derive(Clone, Debug, PartialEq)]
enum Driver {
    /// Per-pod samples: what one pod uses at the target (milli-units), and what a
    /// starting pod reports.
    PerPod {
        at_target: f64,
        request: f64,
        startup: StartupUse,
    },
    /// One value (Object or External): the target (milli-units); `average`: an
    /// `AverageValue` target (the value is the total demand); else a `Value` target (the
    /// value is the demand per Ready pod).
    Single {
        target: f64,
        average: bool,
        external: bool,
    },
}

/// One metric of the HPA as the load model drives it (the forecast's; the simulator
/// drives its HPA with the same, [`driven`]).
#[derive(Clone, Debug)]
pub struct Driven {
    name: String,
    driver: Driver,
    factor: f64,
    load: Option<LoadCurve>,
}

fn metric_error(i: usize, field: &str, message: &str) -> Error {
    Error::Config {
        path: format!("hpa.spec.metrics[{i}]{field}"),
        message: message.to_owned(),
    }
}

fn milli(q: Option<&crate::quantity::Quantity>) -> Option<f64> {
    q.map(|q| q.milli_value() as f64)
}

/// How the forecast drives `spec.metrics[i]`, from its kind and target; and the container
/// a `ContainerResource` metric names.
fn driver(i: usize, m: &MetricSpec, pods: &PodModel) -> Result<(String, Driver, Option<String>)> {
    let per_pod = |name: &str, target: &MetricTarget, container: Option<String>| {
        let (request, startup) = match name {
            "cpu" => (pods.cpu_request_millis as f64, StartupUse::Cpu),
            "memory" => (pods.memory_request_mi as f64 * MI_MILLI, StartupUse::Memory),
            _ => {
                return Err(metric_error(
                    i,
                    "",
                    &format!("the forecast models the cpu and memory resources, not {name:?}"),
                ))
            }
        };
        let at_target = match (target.type_.as_str(), target.average_utilization) {
            ("Utilization", Some(u)) => request * f64::from(u) / 100.0,
            ("AverageValue", _) => milli(target.average_value.as_ref()).unwrap_or(0.0),
            _ => {
                return Err(metric_error(
                    i,
                    ".target",
                    "the forecast models a Utilization or AverageValue target",
                ))
            }
        };
        Ok((
            name.to_owned(),
            Driver::PerPod {
                at_target,
                request,
                startup,
            },
            container,
        ))
    };
    let single = |name: &str, target: &MetricTarget, external: bool| {
        let (target, average) = match target.type_.as_str() {
            "AverageValue" => (milli(target.average_value.as_ref()), true),
            "Value" => (milli(target.value.as_ref()), false),
            _ => (None, false),
        };
        let Some(target) = target else {
            return Err(metric_error(
                i,
                ".target",
                "the forecast models a Value or AverageValue target",
            ));
        };
        Ok((
            name.to_owned(),
            Driver::Single {
                target,
                average,
                external,
            },
            None,
        ))
    };
    let (name, driver, container) = match (m.type_.as_str(), m) {
        (
            "Resource",
            MetricSpec {
                resource: Some(r), ..
            },
        ) => per_pod(&r.name, &r.target, None)?,
        (
            "ContainerResource",
            MetricSpec {
                container_resource: Some(c),
                ..
            },
        ) => per_pod(&c.name, &c.target, Some(c.container.clone()))?,
        ("Pods", MetricSpec { pods: Some(p), .. }) => {
            if p.target.type_ != "AverageValue" {
                return Err(metric_error(
                    i,
                    ".pods.target",
                    "a Pods metric has an AverageValue target",
                ));
            }
            let at_target = milli(p.target.average_value.as_ref()).unwrap_or(0.0);
            (
                p.metric.name.clone(),
                Driver::PerPod {
                    at_target,
                    request: 0.0,
                    startup: StartupUse::Nothing,
                },
                None,
            )
        }
        (
            "Object",
            MetricSpec {
                object: Some(o), ..
            },
        ) => single(&o.metric.name, &o.target, false)?,
        (
            "External",
            MetricSpec {
                external: Some(e), ..
            },
        ) => single(&e.metric.name, &e.target, true)?,
        _ => {
            return Err(metric_error(
                i,
                ".type",
                &format!("the forecast has no model of a {:?} metric", m.type_),
            ))
        }
    };
    let target = match &driver {
        Driver::PerPod { at_target, .. } => *at_target,
        Driver::Single { target, .. } => *target,
    };
    if target.is_finite() && target > 0.0 {
        Ok((name, driver, container))
    } else {
        Err(metric_error(i, ".target", "the target must be above zero"))
    }
}

/// Every metric of `hpa` as the load model drives it (`metrics[i]` for
/// `spec.metrics[i]`, errors at `metrics[i]` and `hpa.spec.metrics[i]`), and the one
/// container of the pods.
pub fn driven(
    hpa: &HorizontalPodAutoscaler,
    metrics: &[MetricLoad],
    pods: &PodModel,
) -> Result<(Vec<Driven>, String)> {
    let specs = hpa.metrics();
    if metrics.len() > specs.len() {
        return Err(Error::Config {
            path: "metrics".into(),
            message: format!(
                "{} entries for the HPA's {} metrics",
                metrics.len(),
                specs.len()
            ),
        });
    }
    let mut out = Vec::with_capacity(specs.len());
    let mut container: Option<String> = None;
    for (i, m) in specs.iter().enumerate() {
        let (name, driver, named) = driver(i, m, pods)?;
        if let Some(c) = named {
            if container.as_ref().is_some_and(|k| *k != c) {
                return Err(metric_error(
                    i,
                    ".containerResource.container",
                    "the forecast's pods have one container: every ContainerResource metric names it",
                ));
            }
            container = Some(c);
        }
        let load = metrics.get(i);
        let factor = load.map_or(1.0, |l| l.factor);
        if !(factor.is_finite() && factor >= 0.0) {
            return Err(Error::Config {
                path: format!("metrics[{i}].factor"),
                message: "must be a finite number, not negative".into(),
            });
        }
        let own = load.and_then(|l| l.load.clone());
        if let Some(curve) = &own {
            curve
                .check()
                .map_err(|e| e.under(&format!("metrics[{i}]")))?;
        }
        out.push(Driven {
            name,
            driver,
            factor,
            load: own,
        });
    }
    Ok((out, container.unwrap_or_else(|| "app".to_owned())))
}

impl Driven {
    /// `cpu`, `memory`, or the metric's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The metric's load at `t` seconds when the main curve is at `main`.
    pub fn load_at(&self, main: f64, t: f64) -> f64 {
        self.load.as_ref().map_or(main, |c| c.at(t)) * self.factor
    }
}

// ---------------------------------------------------------------------------------------
// Checks

/// Checks a pod model's numbers, naming `root.field` in an error.
pub fn check_pods(p: &PodModel, root: &str) -> Result<()> {
    let config = |field: &str, message: &str| Error::Config {
        path: format!("{root}.{field}"),
        message: message.to_owned(),
    };
    for (field, v) in [
        ("createDelaySeconds", p.create_delay_seconds),
        ("runningSeconds", p.running_seconds),
        ("readySeconds", p.ready_seconds),
        ("metricWindowSeconds", p.metric_window_seconds),
        ("startupCpu", p.startup_cpu),
        ("startupMemory", p.startup_memory),
    ] {
        if !(v.is_finite() && (0.0..=1e7).contains(&v)) {
            return Err(config(field, "must be a finite number, not negative"));
        }
    }
    if !(p.noise.is_finite() && (0.0..=1.0).contains(&p.noise)) {
        return Err(config("noise", "must be between 0 and 1"));
    }
    if p.cpu_request_millis <= 0 || p.cpu_request_millis > 1_000_000_000 {
        return Err(config("cpuRequestMillis", "must be above zero"));
    }
    if p.memory_request_mi <= 0 || p.memory_request_mi > 1_000_000_000 {
        return Err(config("memoryRequestMi", "must be above zero"));
    }
    Ok(())
}

fn check(input: &HpaForecastInput) -> Result<()> {
    let config = |path: &str, message: &str| Error::Config {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    input.load.check()?;
    check_pods(&input.pods, "pods")?;
    if input.config.sync_period_seconds <= 0 {
        return Err(config("config.syncPeriodSeconds", "must be above zero"));
    }
    if input.duration_seconds < 0 {
        return Err(Error::Negative {
            path: "durationSeconds".into(),
            value: input.duration_seconds,
        });
    }
    if input.duration_seconds / input.config.sync_period_seconds > MAX_SYNCS {
        return Err(config(
            "durationSeconds",
            &format!("the forecast plays at most {MAX_SYNCS} syncs"),
        ));
    }
    if !(0..=MAX_PODS).contains(&input.initial_replicas) {
        return Err(config(
            "initialReplicas",
            &format!("must be between 0 and {MAX_PODS}"),
        ));
    }
    if let Some(r) = &input.rollout {
        if !(r.at_seconds.is_finite() && r.at_seconds >= 0.0) {
            return Err(config(
                "rollout.atSeconds",
                "must be a finite number, not negative",
            ));
        }
        if let Some(p) = &r.pods {
            check_pods(p, "rollout.pods")?;
        }
        if let Some(p) = r.partway {
            for (field, v) in [("old", p.old), ("new", p.new)] {
                if !(0..=MAX_PODS).contains(&v) {
                    return Err(config(
                        &format!("rollout.partway.{field}"),
                        &format!("must be between 0 and {MAX_PODS}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The cluster

/// Milliseconds, from seconds given as a number (finite, checked).
fn millis(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

/// The group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// The Deployment's pod template: the forecast's label, one container with the requests,
/// the image `forecast:v{version}`.
fn pod_template(container: &str, pods: &PodModel, version: u32) -> Value {
    json!({
        "metadata": {"labels": {POD_LABEL.0: POD_LABEL.1}},
        "spec": {"containers": [{"name": container, "image": format!("forecast:v{version}"),
            "resources": {"requests": {"cpu": format!("{}m", pods.cpu_request_millis),
                                       "memory": format!("{}Mi", pods.memory_request_mi)}}}]}
    })
}

/// The scale target: a Deployment of `replicas` with `template`, a RollingUpdate
/// strategy, at revision `revision`.
fn deployment(
    namespace: &str,
    name: &str,
    replicas: i32,
    template: &Value,
    strategy: (&IntOrString, &IntOrString),
    revision: u32,
) -> Result<Wire<crate::deployment::Deployment>> {
    Wire::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "uid": "forecast-deployment",
            "generation": 1, "annotations": {"deployment.kubernetes.io/revision": revision.to_string()}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {POD_LABEL.0: POD_LABEL.1}},
            "template": template, "progressDeadlineSeconds": 600,
            "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": strategy.0, "maxUnavailable": strategy.1}}},
        "status": {"observedGeneration": 1}
    }))
    .map_err(|e| e.under("forecast.deployment"))
}

/// The Deployment's ReplicaSet of template version `version`, at `replicas`.
fn replica_set(
    d: &crate::deployment::Deployment,
    template: &Value,
    version: u32,
    replicas: i32,
) -> Result<crate::deployment::Rs> {
    let hash = format!("v{version}");
    let mut template = template.clone();
    if let Some(labels) = template
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.insert("pod-template-hash".into(), Value::from(hash.clone()));
    }
    let labels = template
        .pointer("/metadata/labels")
        .cloned()
        .unwrap_or(Value::Null);
    Wire::from_value(json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("{}-{hash}", d.metadata.name), "namespace": d.metadata.namespace,
            "uid": format!("forecast-rs-{hash}"), "generation": 1,
            "creationTimestamp": "2025-12-31T00:00:00Z", "labels": labels,
            "annotations": {"deployment.kubernetes.io/revision": version.to_string()},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                "name": d.metadata.name, "uid": d.metadata.uid, "controller": true,
                "blockOwnerDeletion": true}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template},
        "status": {"replicas": replicas, "readyReplicas": replicas,
            "availableReplicas": replicas, "observedGeneration": 1}
    }))
    .map_err(|e| e.under("forecast.replicaSet"))
}

/// A pod model's timings in milliseconds: (running, ready).
fn timings(p: &PodModel) -> (i64, i64) {
    let running = millis(p.running_seconds);
    (running, millis(p.ready_seconds).max(running))
}

/// The HPA's view of the pods: the pod each is listed as, rebuilt when the play's pods
/// change.
struct Listing {
    template: HpaPod,
    version: u64,
    pods: Arc<Vec<HpaPod>>,
}

impl Listing {
    /// The pods as they are at `now` (the play has shown every change up to it). The
    /// list follows the play's pods in name order: kept pods are moved, not copied, and
    /// only a pod whose stage changed is written again.
    fn refresh(&mut self, play: &Play, now: i64) {
        if self.version == play.pods_version {
            return;
        }
        self.version = play.pods_version;
        let list = Arc::make_mut(&mut self.pods);
        let mut old = std::mem::take(list).into_iter().peekable();
        for (name, p) in &play.pods {
            while old.next_if(|o| o.metadata.name < *name).is_some() {}
            let mut pod = match old.next_if(|o| o.metadata.name == *name) {
                Some(pod) => pod,
                None => {
                    let mut pod = self.template.clone();
                    pod.metadata.name.clone_from(name);
                    pod.status.start_time = Some(play.at(p.created));
                    pod.status.phase.clear();
                    pod
                }
            };
            let (phase, ready, since) = match p.life.stage(now) {
                Stage::Pending => ("Pending", "False", p.created),
                Stage::Starting => ("Running", "False", p.created),
                Stage::Ready => ("Running", "True", p.life.ready.unwrap_or(p.created)),
            };
            if pod.status.phase != phase
                || pod
                    .status
                    .conditions
                    .first()
                    .is_some_and(|c| c.status != ready)
            {
                pod.status.phase = phase.to_owned();
                if let Some(c) = pod.status.conditions.first_mut() {
                    c.status = ready.to_owned();
                    c.last_transition_time = Some(play.at(since));
                }
            }
            list.push(pod);
        }
    }
}

/// The pod every listed pod is made from: the label, one container with the requests, a
/// Ready condition.
fn listed_template(namespace: &str, container: &str, pods: &PodModel) -> Result<HpaPod> {
    // Read through the text, as every input is (one reader of `HpaPod` in the module).
    crate::input::from_value_any(json!({
        "metadata": {"namespace": namespace, "labels": {POD_LABEL.0: POD_LABEL.1}},
        "spec": {"containers": [{"name": container, "resources": {"requests": {
            "cpu": format!("{}m", pods.cpu_request_millis),
            "memory": format!("{}Mi", pods.memory_request_mi)}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}]},
    }))
    .map_err(|e| e.under("pods"))
}

/// The controllers between two HPA syncs.
struct Cluster {
    play: Play,
    /// Pod models: the forecast's, and the rollout's new template's.
    models: [PodModel; 2],
    /// Whether the rollout has started (pods the new ReplicaSet creates then use the
    /// second model).
    rolled: bool,
    /// The rollout still to start: (at ms, the new template).
    rollout: Option<(i64, Value)>,
    /// From a scale write or the rollout's start to the Deployment controller acting.
    delay: [i64; 2],
    rollout_started: Option<i64>,
    /// When the Deployment controller next syncs (a write it has to see, its requeue).
    deployment_due: Option<i64>,
    /// The last instant played.
    now: i64,
}

impl Cluster {
    /// Plays every instant up to `until`: pods changing stage, ReplicaSet keys due, the
    /// Deployment controller's syncs, the rollout's start.
    fn run_until(&mut self, until: i64) -> Result<()> {
        let mut first = true;
        loop {
            let next = if first {
                Some(self.now)
            } else {
                [
                    self.play.next_event(self.now),
                    self.deployment_due.filter(|&d| d > self.now),
                    self.rollout.as_ref().map(|r| r.0).filter(|&r| r > self.now),
                ]
                .into_iter()
                .flatten()
                .min()
            };
            first = false;
            let Some(t) = next.filter(|&t| t <= until) else {
                break;
            };
            self.now = t;
            self.instant(t)?;
        }
        self.now = until;
        Ok(())
    }

    fn instant(&mut self, t: i64) -> Result<()> {
        if self.rollout.as_ref().is_some_and(|r| r.0 <= t) {
            if let Some((_, template)) = self.rollout.take() {
                self.play.set_template(template);
                self.rolled = true;
                self.rollout_started = Some(t);
                self.due(t.saturating_add(self.delay[1]));
            }
        }
        self.play.advance_pods(t)?;
        let mut changed = self.replica_sets(t)?;
        if changed || self.deployment_due.is_some_and(|d| d <= t) {
            self.deployment_due = None;
            for _ in 0..DEPLOYMENT_SYNCS_PER_INSTANT {
                let mut decided = StepCalls::default();
                let requeue = self.play.sync_deployment(t, &mut decided)?;
                if let ProgressRequeue::After { after } = requeue {
                    self.due(t.saturating_add((after.as_nanos() / 1_000_000).max(1)));
                }
                changed = self.replica_sets(t)?;
                if decided.writes == 0 && !changed {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The Deployment controller syncs at `at` (or earlier, if it already does).
    fn due(&mut self, at: i64) {
        self.deployment_due = Some(self.deployment_due.map_or(at, |d| d.min(at)));
    }

    fn replica_sets(&mut self, t: i64) -> Result<bool> {
        let models = self.models.clone();
        let rolled = self.rolled;
        let me = Cluster::startup_of(models, rolled);
        self.play.run_replica_sets(t, &mut |at, new| me(at, new))
    }

    fn startup_of(models: [PodModel; 2], rolled: bool) -> impl Fn(i64, bool) -> (PodLife, u8) {
        move |t, new| {
            let tag = u8::from(new && rolled);
            let model = if tag == 1 { &models[1] } else { &models[0] };
            let (running, ready) = timings(model);
            (
                PodLife {
                    running: t.saturating_add(running),
                    ready: Some(t.saturating_add(ready)),
                    restarts: 0,
                },
                tag,
            )
        }
    }
}

// ---------------------------------------------------------------------------------------
// The play

/// The cluster at the start: the Deployment, its ReplicaSet(s) and their Ready pods; and
/// the rollout still to start.
fn start_cluster(
    input: &HpaForecastInput,
    namespace: &str,
    name: &str,
    container: &str,
) -> Result<Cluster> {
    let rollout = input.rollout.as_ref();
    let quarter = quarter();
    let strategy = rollout.map_or((&quarter, &quarter), |r| (&r.max_surge, &r.max_unavailable));
    let v1 = pod_template(container, &input.pods, 1);
    let v2 = pod_template(container, &input.pods, 2);
    let partway = rollout.and_then(|r| r.partway);
    let (template, revision) = if partway.is_some() {
        (&v2, 2)
    } else {
        (&v1, 1)
    };
    let d = deployment(
        namespace,
        name,
        input.initial_replicas,
        template,
        strategy,
        revision,
    )?;
    let mut sets = Vec::new();
    match partway {
        Some(p) => {
            sets.push((replica_set(&d, &v1, 1, p.old)?, p.old));
            sets.push((replica_set(&d, &v2, 2, p.new)?, p.new));
        }
        None => sets.push((
            replica_set(&d, &v1, 1, input.initial_replicas)?,
            input.initial_replicas,
        )),
    }
    let mut play = Play::new(input.start, d.clone());
    let (running, ready) = timings(&input.pods);
    for (rs, n) in sets {
        play.add_replica_set(rs.clone())?;
        for _ in 0..n {
            let created = -3_600_000;
            let life = PodLife {
                running: created + running,
                ready: Some(created + ready),
                restarts: 0,
            };
            play.add_pod(&rs, "", created, life, 0);
        }
    }
    let pending = match (rollout, partway) {
        (Some(r), None) => Some((millis(r.at_seconds), v2.clone())),
        _ => None,
    };
    let models = [
        input.pods.clone(),
        rollout
            .and_then(|r| r.pods.clone())
            .unwrap_or_else(|| input.pods.clone()),
    ];
    let delay = [
        millis(models[0].create_delay_seconds),
        millis(models[1].create_delay_seconds),
    ];
    Ok(Cluster {
        play,
        models,
        rolled: partway.is_some(),
        rollout: pending,
        delay,
        rollout_started: partway.map(|_| 0),
        deployment_due: Some(0),
        now: 0,
    })
}

/// Plays the forecast.
pub fn forecast(input: &HpaForecastInput) -> Result<HpaForecast> {
    check(input)?;
    let period_s = input.config.sync_period_seconds;
    // The HPA as the sync reads it: defaults applied, sources checked (the machine's).
    let base = HpaSyncInput::from_value(json!({
        "now": input.start,
        "featureGates": input.feature_gates,
        "config": input.config,
        "hpa": input.hpa,
    }))?;
    let max = base.hpa.spec.max_replicas;
    if max > MAX_PODS {
        return Err(Error::Config {
            path: "hpa.spec.maxReplicas".into(),
            message: format!("the forecast models at most {MAX_PODS} pods"),
        });
    }
    let (metrics, container) = driven(&base.hpa, &input.metrics, &input.pods)?;
    let namespace = base.hpa.metadata.namespace.clone();
    let target = base.hpa.spec.scale_target_ref.clone();
    let mapping = HpaAnswer::Mappings {
        resources: vec![GroupResource {
            group: group_of(&target.api_version).to_owned(),
            resource: format!("{}s", target.kind.to_ascii_lowercase()),
        }],
    };
    let selector = format!("{}={}", POD_LABEL.0, POD_LABEL.1);
    let tolerance = input.config.tolerance;

    let mut cluster = start_cluster(input, &namespace, &target.name, &container)?;
    let mut listing = Listing {
        template: listed_template(&namespace, &container, &input.pods)?,
        version: u64::MAX,
        pods: Arc::new(Vec::new()),
    };
    let window_ms = millis(input.pods.metric_window_seconds);
    let mut rng = Rng::new(input.seed);

    let mut hpa = base.hpa.clone();
    let mut memory = HpaMemory::default();
    let mut steps = Vec::new();
    let mut shortfalls: Vec<Shortfall> = Vec::new();
    let mut totals = HpaForecastTotals::default();
    let mut last_direction = 0i32;
    let mut loads = vec![0.0; metrics.len()];
    let mut explanation = None;

    let syncs = input.duration_seconds / period_s;
    for k in 0..=syncs {
        let seconds = k * period_s;
        let now_ms = seconds * 1000;
        cluster.run_until(now_ms)?;
        let now = cluster.play.at(now_ms);
        let load = input.load.at(seconds as f64);
        for (l, m) in loads.iter_mut().zip(&metrics) {
            *l = m.load_at(load, seconds as f64);
        }
        let top = loads.iter().copied().fold(0.0, f64::max);
        listing.refresh(&cluster.play, now_ms);
        let (pods, ready) = {
            let ready = cluster
                .play
                .pods
                .values()
                .filter(|p| p.life.stage(now_ms) == Stage::Ready)
                .count();
            (cluster.play.pods.len(), ready)
        };
        let counts = cluster.play.counts();
        if totals.rollout_seconds.is_none() {
            if let Some(started) = cluster.rollout_started {
                if counts.old == 0 && counts.pods == counts.new && counts.available == counts.new {
                    totals.rollout_seconds = Some((now_ms - started) / 1000);
                }
            }
        }

        // The metrics' answers, one per spec.
        let answers: Vec<Arc<MetricResponse>> = metrics
            .iter()
            .zip(&loads)
            .map(|(m, &l)| {
                let pods =
                    cluster
                        .play
                        .pods
                        .values()
                        .zip(listing.pods.iter())
                        .map(|(p, object)| {
                            let model = cluster
                                .models
                                .get(usize::from(p.tag))
                                .unwrap_or(&input.pods);
                            (object.metadata.name.as_str(), p.life.stage(now_ms), model)
                        });
                Arc::new(m.sample(l, pods, ready, (now, window_ms), input.pods.noise, &mut rng))
            })
            .collect();

        let replicas = cluster.play.deployment.replicas();
        let scale = deployment_scale(&cluster.play.deployment, &selector);

        let mut sync_input = base.clone();
        sync_input.now = now;
        sync_input.hpa = hpa.clone();
        sync_input.memory = std::mem::take(&mut memory);
        let mut written: Option<Value> = None;
        let listed = Arc::clone(&listing.pods);
        let host = |call: &HpaCall| match call {
            HpaCall::ResolveTarget { .. } => mapping.clone(),
            HpaCall::GetScale { .. } => HpaAnswer::Scale {
                scale: scale.clone(),
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: Arc::clone(&listed),
            },
            HpaCall::FetchMetric { index, .. } => HpaAnswer::Metric {
                response: answers.get(*index).cloned().unwrap_or_default(),
            },
            HpaCall::UpdateStatus { object, .. } => {
                written = Some(object.clone());
                HpaAnswer::Ok
            }
            HpaCall::UpdateScale { .. } => HpaAnswer::Ok,
        };
        let done = if input.explain_at_seconds == Some(seconds) {
            let (done, e) = explain_sync(sync_input, host)?;
            explanation = Some(e);
            done
        } else {
            run_sync(sync_input, host)?
        };
        memory = done.memory;
        // The cache now holds the HPA as written.
        if let Some(object) = written {
            let mut typed = (*hpa.typed).clone();
            typed.status = done.status.clone();
            hpa = Wire::new(typed, object);
        }
        let mut after = replicas;
        if let Some(r) = done.rescaled_to {
            let direction = (r - replicas).signum();
            totals.rescales += 1;
            if direction > 0 {
                totals.scale_ups += 1;
            } else if direction < 0 {
                totals.scale_downs += 1;
            }
            if direction != 0 && last_direction != 0 && direction != last_direction {
                totals.direction_changes += 1;
            }
            if direction != 0 {
                last_direction = direction;
            }
            after = r;
            // The scale write: the Deployment's spec now; its controller sees it after
            // the delay.
            cluster.play.scale_deployment(r);
            cluster.due(now_ms + cluster.delay[0]);
        }

        // The totals, for the period that follows.
        let under = (ready as f64) * (1.0 + tolerance) < top;
        if under {
            totals.seconds_under_capacity += period_s;
            if shortfalls
                .last()
                .is_none_or(|s| s.seconds_to_capacity.is_some())
            {
                shortfalls.push(Shortfall {
                    start_seconds: seconds,
                    load: top,
                    seconds_to_capacity: None,
                });
            }
        } else if let Some(s) = shortfalls.last_mut() {
            if s.seconds_to_capacity.is_none() {
                s.seconds_to_capacity = Some(seconds - s.start_seconds);
            }
        }
        totals.over_provisioned_pod_seconds += (pods as f64 - top).max(0.0) * period_s as f64;
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        totals.peak_pods = totals.peak_pods.max(count(pods));

        steps.push(step(
            &done.status,
            Row {
                seconds,
                load,
                metrics: metric_rows(&metrics, &loads, &done.status),
                replicas: after,
                new_replicas: counts.new,
                old_replicas: counts.old,
                pods: count(pods),
                ready_pods: count(ready),
                under_capacity: under,
                rescaled_to: done.rescaled_to,
                events: done.events,
                error: done.error,
            },
        ));
    }
    totals.syncs = steps.len();
    totals.longest_seconds_to_capacity = shortfalls
        .iter()
        .filter_map(|s| s.seconds_to_capacity)
        .max();
    Ok(HpaForecast {
        steps,
        shortfalls,
        totals,
        memory,
        explanation,
    })
}

impl Driven {
    /// This metric's answer at a sync at `now` (samples over `window_ms`): for a per-pod
    /// metric, a sample of each of `pods` (name, stage, the model it started by), in the
    /// order given, drawing once per Ready pod; else one value, drawn once. `ready`
    /// counts the Ready pods; `load` is this metric's.
    pub fn sample<'a>(
        &self,
        load: f64,
        pods: impl Iterator<Item = (&'a str, Stage, &'a PodModel)>,
        ready: usize,
        (now, window_ms): (Time, i64),
        noise: f64,
        rng: &mut Rng,
    ) -> MetricResponse {
        match &self.driver {
            Driver::PerPod {
                at_target,
                request,
                startup,
            } => {
                let share = ready_share(load * at_target, ready);
                let mut samples = Vec::with_capacity(pods.size_hint().0);
                for (name, stage, model) in pods {
                    let stage = match stage {
                        Stage::Pending => UsageStage::Pending,
                        Stage::Starting => UsageStage::Starting {
                            uses: match startup {
                                StartupUse::Cpu => model.startup_cpu * request,
                                StartupUse::Memory => model.startup_memory * request,
                                StartupUse::Nothing => 0.0,
                            },
                        },
                        Stage::Ready => UsageStage::Ready,
                    };
                    let Some(value) = pod_usage(stage, share, noise, rng) else {
                        continue;
                    };
                    samples.push(PodMetric {
                        pod: name.to_owned(),
                        value,
                        timestamp: Some(now),
                        window_millis: window_ms,
                    });
                }
                MetricResponse {
                    pod_metrics: Some(samples),
                    timestamp: Some(now),
                    ..MetricResponse::default()
                }
            }
            Driver::Single {
                target,
                average,
                external,
            } => {
                let raw = if *average {
                    load * target
                } else {
                    target * load / ready.max(1) as f64
                };
                let value = spread(raw, noise, rng);
                if *external {
                    MetricResponse {
                        external_values: Some(vec![value]),
                        timestamp: Some(now),
                        ..MetricResponse::default()
                    }
                } else {
                    MetricResponse {
                        object_value: Some(value),
                        timestamp: Some(now),
                        ..MetricResponse::default()
                    }
                }
            }
        }
    }
}

/// Each metric's row: its load and what `currentMetrics[i]` reports.
pub fn metric_rows(
    metrics: &[Driven],
    loads: &[f64],
    status: &HpaStatus,
) -> Vec<HpaForecastMetric> {
    let current = status.current_metrics.as_deref().unwrap_or_default();
    metrics
        .iter()
        .zip(loads)
        .enumerate()
        .map(|(i, (m, &load))| {
            let c = current.get(i).and_then(current_value);
            HpaForecastMetric {
                name: m.name.clone(),
                load,
                utilization: c.and_then(|c| c.average_utilization),
                average_value: c
                    .and_then(|c| c.average_value.as_ref())
                    .map(|q| q.canonical()),
                value: c.and_then(|c| c.value.as_ref()).map(|q| q.canonical()),
            }
        })
        .collect()
}

fn current_value(m: &MetricStatus) -> Option<&super::model::MetricValueStatus> {
    m.resource
        .as_ref()
        .map(|r| &r.current)
        .or(m.container_resource.as_ref().map(|c| &c.current))
        .or(m.pods.as_ref().map(|p| &p.current))
        .or(m.object.as_ref().map(|o| &o.current))
        .or(m.external.as_ref().map(|e| &e.current))
}

/// A step's figures beside the sync's status (the fields of [`HpaForecastStep`] the
/// status does not give).
pub struct Row {
    /// As [`HpaForecastStep::seconds`].
    pub seconds: i64,
    /// As [`HpaForecastStep::load`].
    pub load: f64,
    /// As [`HpaForecastStep::metrics`].
    pub metrics: Vec<HpaForecastMetric>,
    /// As [`HpaForecastStep::replicas`].
    pub replicas: i32,
    /// As [`HpaForecastStep::new_replicas`].
    pub new_replicas: i32,
    /// As [`HpaForecastStep::old_replicas`].
    pub old_replicas: i32,
    /// As [`HpaForecastStep::pods`].
    pub pods: i32,
    /// As [`HpaForecastStep::ready_pods`].
    pub ready_pods: i32,
    /// As [`HpaForecastStep::under_capacity`].
    pub under_capacity: bool,
    /// As [`HpaForecastStep::rescaled_to`].
    pub rescaled_to: Option<i32>,
    /// As [`HpaForecastStep::events`].
    pub events: Vec<HpaEvent>,
    /// As [`HpaForecastStep::error`].
    pub error: Option<String>,
}

/// The step a sync's status and its figures make.
pub fn step(status: &HpaStatus, row: Row) -> HpaForecastStep {
    let condition = |type_: &str| {
        status
            .conditions
            .iter()
            .flatten()
            .find(|c| c.type_ == type_)
    };
    let able = condition(ABLE_TO_SCALE);
    let limited = condition(SCALING_LIMITED);
    let limited_by = match (limited, able) {
        (Some(l), _) if l.status == "True" => Some(l.reason.clone()),
        (_, Some(a)) if a.reason.ends_with("Stabilized") => Some(a.reason.clone()),
        _ => None,
    };
    let first = row.metrics.first();
    HpaForecastStep {
        seconds: row.seconds,
        load: row.load,
        utilization: first.and_then(|m| m.utilization),
        average_value: first.and_then(|m| m.average_value.clone()),
        current_replicas: status.current_replicas,
        desired_replicas: status.desired_replicas,
        replicas: row.replicas,
        new_replicas: row.new_replicas,
        old_replicas: row.old_replicas,
        pods: row.pods,
        ready_pods: row.ready_pods,
        rescaled_to: row.rescaled_to,
        able_to_scale: able.map(|c| c.reason.clone()).unwrap_or_default(),
        scaling_limited: limited.map(|c| c.reason.clone()).unwrap_or_default(),
        limited_by,
        under_capacity: row.under_capacity,
        events: row.events,
        error: row.error,
        metrics: row.metrics,
    }
}

/// A Deployment's scale subresource as `GET deployments/<name>/scale` answers it: its
/// `spec.replicas`, its `status.replicas` and `selector` (the label selector as text).
pub fn deployment_scale(d: &crate::deployment::Deployment, selector: &str) -> Wire<Scale> {
    let replicas = d.replicas();
    let typed = Scale {
        spec: ScaleSpec { replicas },
        status: ScaleStatus {
            replicas: d.status.replicas,
            selector: selector.to_owned(),
        },
    };
    let wire = json!({"spec": {"replicas": replicas},
        "status": {"replicas": d.status.replicas, "selector": selector}});
    Wire::new(typed, wire)
}

/// Parses and plays: the JSON entry point of the bindings.
pub fn forecast_json(bytes: &[u8]) -> Result<HpaForecast> {
    forecast(&HpaForecastInput::from_json(bytes)?)
}
