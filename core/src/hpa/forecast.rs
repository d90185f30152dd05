//! The autoscaling forecast (issue 25, point 5): an HPA played forward over a load curve.
//!
//! Every sync period the forecast is the autoscaler's host: it answers the engine's own
//! sync ([`run_sync`], every rule H-xx, nothing restated here) from a seeded model of the
//! scale target and its pods, carries the memory the sync returns to the next one (as a
//! controller does) and keeps the status the sync writes (as the informer cache would),
//! then lets a ReplicaSet-level model carry out the replica count written.
//!
//! The model, which is the forecast's and no upstream rule:
//! - **Load** is in *pods at target*: the total CPU demand divided by what one pod uses at
//!   the target (its request × the target utilization, or the target average value). A
//!   load of 12 with a 50 % target on 500m requests is 3 CPUs of demand: 12 pods at 50 %.
//! - **Pods** ([`PodModel`]): created `createDelaySeconds` after a scale write (the
//!   ReplicaSet controller acting), Pending until `runningSeconds` after creation
//!   (`status.startTime` is the creation), Running and not Ready until `readySeconds`,
//!   then Ready. A scale-down deletes the newest pods first (with one start-up model for
//!   all, the newest are also the least ready), at once (no grace period).
//! - **Metrics**: at each sync, the Ready pods share the demand evenly, each sample spread
//!   by a seeded `± noise` fraction; Running pods not yet Ready report `startupCpu` × their
//!   request; Pending pods have no sample (as metrics-server has none). Samples are taken
//!   at the sync's instant over a `metricWindowSeconds` window.
//! - The HPA's one metric must be a CPU metric (`Resource` or `ContainerResource`) with a
//!   `Utilization` or `AverageValue` target (the default metric is one).
//!
//! The totals measure the pod model at each sync and count it for the sync period that
//! follows: **at capacity** means ready pods × (1 + the controller's tolerance) ≥ load
//! (the ready pods run within the tolerance band of the target); **over-provisioned
//! pod-seconds** sum the pods beyond the load; a **shortfall** starts at the first sync
//! under capacity and lasts until the first sync back at capacity; **direction changes**
//! count rescales whose direction differs from the previous rescale's (flapping).
//!
//! Same input, same seed: same forecast. The only randomness is [`Rng`], there is no
//! clock, and the load curve uses only arithmetic (its cosine is a series), so native and
//! wasm agree.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::deployment::Wire;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::time::{Duration, Time};

use super::events::HpaEvent;
use super::machine::{run_sync, GroupResource, HpaAnswer, HpaCall, HpaSyncInput};
use super::memory::HpaMemory;
use super::model::{
    HorizontalPodAutoscaler, HpaConfig, HpaGates, HpaPod, HpaStatus, MetricResponse, PodMetric,
    Scale, ScaleSpec, ScaleStatus,
};
use super::status::{ABLE_TO_SCALE, SCALING_LIMITED};

/// The label the model's pods carry and the Scale's selector names.
const POD_LABEL: (&str, &str) = ("app", "hpa-forecast");
/// Pods the model holds at most (a bound on the work; `maxReplicas` above it is refused).
const MAX_PODS: i32 = 10_000;
/// Syncs at most (a week at 15 s).
const MAX_SYNCS: i64 = 40_320;

/// One point of a user's load curve.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadPoint {
    pub at_seconds: f64,
    /// Pods at target.
    pub load: f64,
}

/// The load over time, in pods at target (see the module's documentation).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum LoadCurve {
    /// `from` until `atSeconds`, `to` from then on.
    Step { from: f64, to: f64, at_seconds: f64 },
    /// `base`, and `peak` for `durationSeconds` from `atSeconds`.
    Spike {
        base: f64,
        peak: f64,
        at_seconds: f64,
        duration_seconds: f64,
    },
    /// `from` until `startSeconds`, linear to `to` at `endSeconds`, `to` from then on.
    Ramp {
        from: f64,
        to: f64,
        start_seconds: f64,
        end_seconds: f64,
    },
    /// A cosine between `min` (at the start) and `max` (half a period later); the period
    /// is a day unless given.
    DailyCycle {
        min: f64,
        max: f64,
        #[serde(default = "one_day")]
        #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
        period_seconds: f64,
    },
    /// `low` for the first half of every period, `high` for the second.
    Flapping {
        low: f64,
        high: f64,
        period_seconds: f64,
    },
    /// The user's points, in time order, joined linearly (two points at one time make a
    /// step); the first load before the first point, the last after the last.
    Points { points: Vec<LoadPoint> },
}

fn one_day() -> f64 {
    86_400.0
}

/// The pods' model (every field defaults on its own).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodModel {
    /// From a scale write to the ReplicaSet controller creating or deleting pods (1 s).
    pub create_delay_seconds: f64,
    /// From creation to Running (5 s); Pending before, without a metric sample.
    pub running_seconds: f64,
    /// From creation to Ready (30 s; not before Running).
    pub ready_seconds: f64,
    /// The CPU of a Running pod that is not Ready, as a fraction of its request (1.0).
    pub startup_cpu: f64,
    /// Each pod's CPU request in millicores (500).
    pub cpu_request_millis: i64,
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
            cpu_request_millis: 500,
            noise: 0.05,
            metric_window_seconds: 15.0,
        }
    }
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
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<HpaGates>>", optional)
    )]
    pub feature_gates: HpaGates,
    pub load: LoadCurve,
    #[serde(default)]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<PodModel>>", optional)
    )]
    pub pods: PodModel,
    /// The target's replicas at the start, all Ready for an hour.
    pub initial_replicas: i32,
    /// How long to play (3600 s).
    #[serde(default = "one_hour")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i64>", optional))]
    pub duration_seconds: i64,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<u64>", optional))]
    pub seed: u64,
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

/// One sync of the forecast: the model at the sync and what the sync decided.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecastStep {
    /// Seconds since the start.
    pub seconds: i64,
    /// The load, in pods at target.
    pub load: f64,
    /// The utilization the status reports (`currentMetrics[0]`, percent of request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub utilization: Option<i32>,
    /// The average value the status reports (an `AverageValue` target), as a quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub average_value: Option<String>,
    /// `status.currentReplicas` and `status.desiredReplicas` after the sync.
    pub current_replicas: i32,
    pub desired_replicas: i32,
    /// The Scale's `spec.replicas` after the sync.
    pub replicas: i32,
    /// Pods that exist at the sync, and the Ready ones.
    pub pods: i32,
    pub ready_pods: i32,
    /// The count the sync wrote, if it rescaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rescaled_to: Option<i32>,
    /// The reasons of the AbleToScale and ScalingLimited conditions.
    pub able_to_scale: String,
    pub scaling_limited: String,
    /// What held the count back: ScalingLimited's reason when True, else AbleToScale's
    /// when it is a stabilization (`ScaleUpStabilized`, `ScaleDownStabilized`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limited_by: Option<String>,
    /// Ready pods × (1 + tolerance) < load.
    pub under_capacity: bool,
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
    pub syncs: usize,
    pub rescales: usize,
    pub scale_ups: usize,
    pub scale_downs: usize,
    /// Rescales in the other direction than the one before.
    pub direction_changes: usize,
    pub seconds_under_capacity: i64,
    /// Σ max(0, pods − load) × sync period.
    pub over_provisioned_pod_seconds: f64,
    pub peak_pods: i32,
    /// The longest time to capacity among the shortfalls that ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub longest_seconds_to_capacity: Option<i64>,
}

/// The forecast.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaForecast {
    pub steps: Vec<HpaForecastStep>,
    pub shortfalls: Vec<Shortfall>,
    pub totals: HpaForecastTotals,
    /// The memory after the last sync (what the controller would remember).
    pub memory: HpaMemory,
}

// ---------------------------------------------------------------------------------------
// The load curve

/// cos(2π·turns), by a series on [−π, π) (arithmetic only: the same bits everywhere).
fn cos_turns(turns: f64) -> f64 {
    let f = turns - turns.floor();
    // cos(2πf) = −cos(2πf − π)
    let x = 2.0 * std::f64::consts::PI * f - std::f64::consts::PI;
    let x2 = x * x;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=14u32 {
        let k = f64::from(k);
        term *= -x2 / ((2.0 * k - 1.0) * (2.0 * k));
        sum += term;
    }
    -sum
}

impl LoadCurve {
    /// The load at `t` seconds since the start.
    pub fn at(&self, t: f64) -> f64 {
        match self {
            LoadCurve::Step {
                from,
                to,
                at_seconds,
            } => {
                if t < *at_seconds {
                    *from
                } else {
                    *to
                }
            }
            LoadCurve::Spike {
                base,
                peak,
                at_seconds,
                duration_seconds,
            } => {
                if t >= *at_seconds && t < at_seconds + duration_seconds {
                    *peak
                } else {
                    *base
                }
            }
            LoadCurve::Ramp {
                from,
                to,
                start_seconds,
                end_seconds,
            } => {
                if t <= *start_seconds {
                    *from
                } else if t >= *end_seconds {
                    *to
                } else {
                    from + (to - from) * (t - start_seconds) / (end_seconds - start_seconds)
                }
            }
            LoadCurve::DailyCycle {
                min,
                max,
                period_seconds,
            } => min + (max - min) * (1.0 - cos_turns(t / period_seconds)) / 2.0,
            LoadCurve::Flapping {
                low,
                high,
                period_seconds,
            } => {
                let phase = t / period_seconds;
                if phase - phase.floor() < 0.5 {
                    *low
                } else {
                    *high
                }
            }
            LoadCurve::Points { points } => points_at(points, t),
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |field: &str, message: &str| Error::Config {
            path: format!("load.{field}"),
            message: message.to_owned(),
        };
        let load = |field: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(bad(field, "a load must be a finite number, not negative"))
            }
        };
        let time = |field: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(bad(field, "must be a finite number of seconds"))
            }
        };
        match self {
            LoadCurve::Step {
                from,
                to,
                at_seconds,
            } => {
                load("from", *from)?;
                load("to", *to)?;
                time("atSeconds", *at_seconds)
            }
            LoadCurve::Spike {
                base,
                peak,
                at_seconds,
                duration_seconds,
            } => {
                load("base", *base)?;
                load("peak", *peak)?;
                time("atSeconds", *at_seconds)?;
                time("durationSeconds", *duration_seconds)
            }
            LoadCurve::Ramp {
                from,
                to,
                start_seconds,
                end_seconds,
            } => {
                load("from", *from)?;
                load("to", *to)?;
                time("startSeconds", *start_seconds)?;
                time("endSeconds", *end_seconds)?;
                if end_seconds < start_seconds {
                    return Err(bad("endSeconds", "must not be before startSeconds"));
                }
                Ok(())
            }
            LoadCurve::DailyCycle {
                min,
                max,
                period_seconds,
            } => {
                load("min", *min)?;
                load("max", *max)?;
                if !(period_seconds.is_finite() && *period_seconds > 0.0) {
                    return Err(bad("periodSeconds", "must be a positive number of seconds"));
                }
                Ok(())
            }
            LoadCurve::Flapping {
                low,
                high,
                period_seconds,
            } => {
                load("low", *low)?;
                load("high", *high)?;
                if !(period_seconds.is_finite() && *period_seconds > 0.0) {
                    return Err(bad("periodSeconds", "must be a positive number of seconds"));
                }
                Ok(())
            }
            LoadCurve::Points { points } => {
                if points.is_empty() {
                    return Err(Error::Missing {
                        path: "load.points".into(),
                    });
                }
                let mut last = f64::NEG_INFINITY;
                for (i, p) in points.iter().enumerate() {
                    load(&format!("points[{i}].load"), p.load)?;
                    time(&format!("points[{i}].atSeconds"), p.at_seconds)?;
                    if p.at_seconds < last {
                        return Err(bad(
                            &format!("points[{i}].atSeconds"),
                            "points must be in time order",
                        ));
                    }
                    last = p.at_seconds;
                }
                Ok(())
            }
        }
    }
}

fn points_at(points: &[LoadPoint], t: f64) -> f64 {
    // The last point at or before t, and the first after it.
    let after = points.partition_point(|p| p.at_seconds <= t);
    match (
        after.checked_sub(1).and_then(|i| points.get(i)),
        points.get(after),
    ) {
        (Some(a), Some(b)) if b.at_seconds > a.at_seconds => {
            a.load + (b.load - a.load) * (t - a.at_seconds) / (b.at_seconds - a.at_seconds)
        }
        (Some(a), _) => a.load,
        (None, Some(b)) => b.load,
        (None, None) => 0.0,
    }
}

// ---------------------------------------------------------------------------------------
// The pod model

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Pending,
    Starting,
    Ready,
}

/// One pod of the model: its creation (ms since the start) and its stage as last shown.
#[derive(Clone, Debug)]
struct ModelPod {
    created_ms: i64,
    stage: Stage,
}

/// Milliseconds, from seconds given as a number (finite, checked).
fn millis(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

struct Model {
    start: Time,
    running_ms: i64,
    ready_ms: i64,
    template: HpaPod,
    pods: Vec<ModelPod>,
    /// The pods as the host lists them, index for index with `pods` (shared with the
    /// sync's answer; the first change after a sync copies nothing, the sync is over).
    objects: Arc<Vec<HpaPod>>,
    next_name: u64,
}

impl Model {
    fn at(&self, ms: i64) -> Time {
        instant(self.start, ms)
    }

    fn create(&mut self, n: usize, at_ms: i64) {
        let mut made = Vec::with_capacity(n);
        for _ in 0..n {
            self.next_name += 1;
            let pod = ModelPod {
                created_ms: at_ms,
                stage: Stage::Pending,
            };
            let mut object = self.template.clone();
            object.metadata.name = format!("{}-{:05}", POD_LABEL.1, self.next_name);
            object.status.start_time = Some(self.at(at_ms));
            show(self.start, self.ready_ms, &mut object, &pod);
            made.push((object, pod));
        }
        let objects = Arc::make_mut(&mut self.objects);
        for (object, pod) in made {
            objects.push(object);
            self.pods.push(pod);
        }
    }

    /// The ReplicaSet controller at `at_ms`: as many pods as `replicas`, the newest
    /// deleted first.
    fn reconcile(&mut self, replicas: i32, at_ms: i64) {
        let want = usize::try_from(replicas).unwrap_or(0);
        if want > self.pods.len() {
            self.create(want - self.pods.len(), at_ms);
        } else if want < self.pods.len() {
            self.pods.truncate(want);
            Arc::make_mut(&mut self.objects).truncate(want);
        }
    }

    /// Moves every pod to its stage at `now_ms`; returns (pods, ready pods).
    fn advance(&mut self, now_ms: i64) -> (usize, usize) {
        let (start, running_ms, ready_ms) = (self.start, self.running_ms, self.ready_ms);
        let mut ready = 0;
        let objects = Arc::make_mut(&mut self.objects);
        for (pod, object) in self.pods.iter_mut().zip(objects.iter_mut()) {
            let age = now_ms - pod.created_ms;
            let stage = if age >= ready_ms {
                Stage::Ready
            } else if age >= running_ms {
                Stage::Starting
            } else {
                Stage::Pending
            };
            if stage == Stage::Ready {
                ready += 1;
            }
            if stage != pod.stage {
                pod.stage = stage;
                show(start, ready_ms, object, pod);
            }
        }
        (self.pods.len(), ready)
    }
}

fn instant(start: Time, ms: i64) -> Time {
    start.plus(Duration::from_nanos(ms.saturating_mul(1_000_000)))
}

/// Writes a pod's stage into its object: the phase and the Ready condition (which moved
/// at creation, and again when the pod became Ready).
fn show(start: Time, ready_ms: i64, object: &mut HpaPod, pod: &ModelPod) {
    let (phase, ready, since) = match pod.stage {
        Stage::Pending => ("Pending", "False", pod.created_ms),
        Stage::Starting => ("Running", "False", pod.created_ms),
        Stage::Ready => ("Running", "True", pod.created_ms + ready_ms),
    };
    object.status.phase = phase.to_owned();
    if let Some(c) = object.status.conditions.first_mut() {
        c.status = ready.to_owned();
        c.last_transition_time = Some(instant(start, since));
    }
}

// ---------------------------------------------------------------------------------------
// The play

/// What one pod uses at target, in millicores, from the HPA's one CPU metric; and the
/// container the metric names (`""`: the whole pod).
fn per_pod_target(hpa: &HorizontalPodAutoscaler, request: i64) -> Result<(f64, String)> {
    let metrics = hpa.metrics();
    let [metric] = metrics else {
        return Err(Error::Config {
            path: "hpa.spec.metrics".into(),
            message: format!(
                "the forecast models one CPU metric, the HPA has {}",
                metrics.len()
            ),
        });
    };
    let (name, target, container) = match (&metric.resource, &metric.container_resource) {
        (Some(r), _) if metric.type_ == "Resource" => (&r.name, &r.target, String::new()),
        (_, Some(c)) if metric.type_ == "ContainerResource" => {
            (&c.name, &c.target, c.container.clone())
        }
        _ => {
            return Err(Error::Config {
                path: "hpa.spec.metrics[0].type".into(),
                message: format!(
                    "the forecast models a CPU Resource or ContainerResource metric, not {:?}",
                    metric.type_
                ),
            })
        }
    };
    if name != "cpu" {
        return Err(Error::Config {
            path: "hpa.spec.metrics[0]".into(),
            message: format!("the forecast models the cpu resource, not {name:?}"),
        });
    }
    let per_pod = match (
        target.type_.as_str(),
        target.average_utilization,
        &target.average_value,
    ) {
        ("Utilization", Some(u), _) => request as f64 * f64::from(u) / 100.0,
        ("AverageValue", _, Some(v)) => v.milli_value() as f64,
        _ => {
            return Err(Error::Config {
                path: "hpa.spec.metrics[0]".into(),
                message: "the forecast models a Utilization or AverageValue target".into(),
            })
        }
    };
    if per_pod.is_finite() && per_pod > 0.0 {
        Ok((per_pod, container))
    } else {
        Err(Error::Config {
            path: "hpa.spec.metrics[0]".into(),
            message: "the target must be above zero".into(),
        })
    }
}

fn check(input: &HpaForecastInput) -> Result<()> {
    let config = |path: &str, message: &str| Error::Config {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    input.load.check()?;
    let p = &input.pods;
    for (field, v) in [
        ("createDelaySeconds", p.create_delay_seconds),
        ("runningSeconds", p.running_seconds),
        ("readySeconds", p.ready_seconds),
        ("metricWindowSeconds", p.metric_window_seconds),
        ("startupCpu", p.startup_cpu),
    ] {
        if !(v.is_finite() && (0.0..=1e7).contains(&v)) {
            return Err(config(
                &format!("pods.{field}"),
                "must be a finite number, not negative",
            ));
        }
    }
    if !(p.noise.is_finite() && (0.0..=1.0).contains(&p.noise)) {
        return Err(config("pods.noise", "must be between 0 and 1"));
    }
    if p.cpu_request_millis <= 0 {
        return Err(config("pods.cpuRequestMillis", "must be above zero"));
    }
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
    Ok(())
}

/// The pod every model pod is made from: the target's label, one container with the
/// CPU request, a Ready condition.
fn template(namespace: &str, container: &str, request: i64) -> Result<HpaPod> {
    let name = if container.is_empty() {
        "app"
    } else {
        container
    };
    serde_json::from_value(json!({
        "metadata": {"namespace": namespace, "labels": {POD_LABEL.0: POD_LABEL.1}},
        "spec": {"containers": [{"name": name, "resources": {"requests": {"cpu": format!("{request}m")}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}]},
    }))
    .map_err(|e| Error::Malformed {
        path: "pods".into(),
        message: e.to_string(),
    })
}

/// The group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
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
    let request = input.pods.cpu_request_millis;
    let (per_pod, container) = per_pod_target(&base.hpa, request)?;
    let namespace = base.hpa.metadata.namespace.clone();
    let target = base.hpa.spec.scale_target_ref.clone();
    let mapping = HpaAnswer::Mappings {
        resources: vec![GroupResource {
            group: group_of(&target.api_version).to_owned(),
            resource: format!("{}s", target.kind.to_lowercase()),
        }],
    };
    let selector = format!("{}={}", POD_LABEL.0, POD_LABEL.1);
    let tolerance = input.config.tolerance;

    let mut model = Model {
        start: input.start,
        running_ms: millis(input.pods.running_seconds),
        ready_ms: millis(input.pods.ready_seconds.max(input.pods.running_seconds)),
        template: template(&namespace, &container, request)?,
        pods: Vec::new(),
        objects: Arc::new(Vec::new()),
        next_name: 0,
    };
    model.create(
        usize::try_from(input.initial_replicas).unwrap_or(0),
        -3_600_000,
    );
    let delay_ms = millis(input.pods.create_delay_seconds);
    let window_ms = millis(input.pods.metric_window_seconds);
    let startup_milli = (input.pods.startup_cpu * request as f64).round() as i64;
    let mut rng = Rng::new(input.seed);

    let mut hpa = base.hpa.clone();
    let mut memory = HpaMemory::default();
    let mut replicas = input.initial_replicas;
    // Scale writes the ReplicaSet controller has still to act on: (at ms, replicas).
    let mut writes: Vec<(i64, i32)> = Vec::new();
    let mut steps = Vec::new();
    let mut shortfalls: Vec<Shortfall> = Vec::new();
    let mut totals = HpaForecastTotals::default();
    let mut last_direction = 0i32;

    let syncs = input.duration_seconds / period_s;
    for k in 0..=syncs {
        let seconds = k * period_s;
        let now_ms = seconds * 1000;
        let now = model.at(now_ms);
        let acted = writes.iter().take_while(|(at, _)| *at <= now_ms).count();
        for (at, r) in writes.drain(..acted) {
            model.reconcile(r, at);
        }
        let (pods, ready) = model.advance(now_ms);
        let load = input.load.at(seconds as f64);

        // The samples: Ready pods share the demand, Starting ones use their start-up CPU.
        let share = if ready > 0 {
            load * per_pod / ready as f64
        } else {
            0.0
        };
        let mut samples = Vec::with_capacity(pods);
        for (pod, object) in model.pods.iter().zip(model.objects.iter()) {
            let value = match pod.stage {
                Stage::Pending => continue,
                Stage::Starting => startup_milli,
                Stage::Ready => {
                    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    (share * (1.0 + input.pods.noise * (2.0 * u - 1.0))).round() as i64
                }
            };
            samples.push(PodMetric {
                pod: object.metadata.name.clone(),
                value,
                timestamp: Some(now),
                window_millis: window_ms,
            });
        }
        let metric = Arc::new(MetricResponse {
            pod_metrics: Some(samples),
            timestamp: Some(now),
            ..MetricResponse::default()
        });
        let scale_typed = Scale {
            spec: ScaleSpec { replicas },
            status: ScaleStatus {
                replicas: i32::try_from(pods).unwrap_or(i32::MAX),
                selector: selector.clone(),
            },
        };
        let scale_wire = json!({"spec": {"replicas": replicas},
            "status": {"replicas": scale_typed.status.replicas, "selector": selector}});
        let scale = Wire::new(scale_typed, scale_wire);

        let mut sync_input = base.clone();
        sync_input.now = now;
        sync_input.hpa = hpa.clone();
        sync_input.memory = std::mem::take(&mut memory);
        let mut written: Option<Value> = None;
        let done = run_sync(sync_input, |call| match call {
            HpaCall::ResolveTarget { .. } => mapping.clone(),
            HpaCall::GetScale { .. } => HpaAnswer::Scale {
                scale: scale.clone(),
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: Arc::clone(&model.objects),
            },
            HpaCall::FetchMetric { .. } => HpaAnswer::Metric {
                response: Arc::clone(&metric),
            },
            HpaCall::UpdateStatus { object, .. } => {
                written = Some(object.clone());
                HpaAnswer::Ok
            }
            HpaCall::UpdateScale { .. } => HpaAnswer::Ok,
        })?;
        memory = done.memory;
        // The cache now holds the HPA as written.
        if let Some(object) = written {
            let mut typed = (*hpa.typed).clone();
            typed.status = done.status.clone();
            hpa = Wire::new(typed, object);
        }
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
            replicas = r;
            writes.push((now_ms + delay_ms, r));
        }

        // The totals, for the period that follows.
        let under = (ready as f64) * (1.0 + tolerance) < load;
        if under {
            totals.seconds_under_capacity += period_s;
            if shortfalls
                .last()
                .is_none_or(|s| s.seconds_to_capacity.is_some())
            {
                shortfalls.push(Shortfall {
                    start_seconds: seconds,
                    load,
                    seconds_to_capacity: None,
                });
            }
        } else if let Some(s) = shortfalls.last_mut() {
            if s.seconds_to_capacity.is_none() {
                s.seconds_to_capacity = Some(seconds - s.start_seconds);
            }
        }
        totals.over_provisioned_pod_seconds += (pods as f64 - load).max(0.0) * period_s as f64;
        totals.peak_pods = totals
            .peak_pods
            .max(i32::try_from(pods).unwrap_or(i32::MAX));

        steps.push(step(
            &done.status,
            seconds,
            load,
            replicas,
            (pods, ready),
            under,
            done.rescaled_to,
            done.events,
            done.error,
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
    })
}

#[allow(clippy::too_many_arguments)]
fn step(
    status: &HpaStatus,
    seconds: i64,
    load: f64,
    replicas: i32,
    (pods, ready): (usize, usize),
    under_capacity: bool,
    rescaled_to: Option<i32>,
    events: Vec<HpaEvent>,
    error: Option<String>,
) -> HpaForecastStep {
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
    let current = status
        .current_metrics
        .iter()
        .flatten()
        .next()
        .and_then(|m| {
            m.resource
                .as_ref()
                .map(|r| &r.current)
                .or(m.container_resource.as_ref().map(|c| &c.current))
        });
    HpaForecastStep {
        seconds,
        load,
        utilization: current.and_then(|c| c.average_utilization),
        average_value: current
            .and_then(|c| c.average_value.as_ref())
            .map(|q| q.canonical()),
        current_replicas: status.current_replicas,
        desired_replicas: status.desired_replicas,
        replicas,
        pods: i32::try_from(pods).unwrap_or(i32::MAX),
        ready_pods: i32::try_from(ready).unwrap_or(i32::MAX),
        rescaled_to,
        able_to_scale: able.map(|c| c.reason.clone()).unwrap_or_default(),
        scaling_limited: limited.map(|c| c.reason.clone()).unwrap_or_default(),
        limited_by,
        under_capacity,
        events,
        error,
    }
}

/// Parses and plays: the JSON entry point of the bindings.
pub fn forecast_json(bytes: &[u8]) -> Result<HpaForecast> {
    forecast(&HpaForecastInput::from_json(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_cosine_matches_the_library() {
        for i in 0..=40 {
            let t = f64::from(i) / 16.0 - 0.7;
            let want = (2.0 * std::f64::consts::PI * t).cos();
            assert!((cos_turns(t) - want).abs() < 1e-9, "{t}");
        }
    }

    #[test]
    fn points_join_linearly_and_hold_at_the_ends() {
        let p = [
            LoadPoint {
                at_seconds: 10.0,
                load: 2.0,
            },
            LoadPoint {
                at_seconds: 20.0,
                load: 4.0,
            },
            LoadPoint {
                at_seconds: 20.0,
                load: 8.0,
            },
        ];
        assert_eq!(points_at(&p, 0.0), 2.0);
        assert_eq!(points_at(&p, 15.0), 3.0);
        assert_eq!(points_at(&p, 20.0), 8.0);
        assert_eq!(points_at(&p, 99.0), 8.0);
    }
}
