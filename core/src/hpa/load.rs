//! The load model: no upstream rule, the demand the forecast, the simulator and the
//! dev-server's kubelet play to the autoscaler, written once here.
//!
//! - **A load curve** ([`LoadCurve`]): the demand over time as a step, a spike, a ramp, a
//!   daily cycle, flapping, or the user's points. Its unit is the host's: the forecast
//!   counts *pods at target*, the dev-server millicores of CPU.
//! - **What a pod reports** ([`pods_usage`]): the Ready pods share the demand evenly, each
//!   sample spread by a seeded `± noise` fraction; a Running pod not yet Ready reports
//!   what its start-up uses; a Pending pod reports nothing (metrics-server has no sample).
//!
//! The only randomness is the caller's [`Rng`]; the curve uses arithmetic only (its
//! cosine is a series), so native and wasm agree bit for bit.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::quantity::{Format, Quantity};
use crate::rng::Rng;

use super::model::{Container, HpaPod};

/// One point of a user's load curve.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadPoint {
    /// When, in seconds since the curve's start.
    pub at_seconds: f64,
    /// The load, in the curve's unit.
    pub load: f64,
}

/// The load over time, in the host's unit (the forecast's: pods at target).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum LoadCurve {
    /// `from` until `atSeconds`, `to` from then on.
    Step {
        /// The load before the step.
        from: f64,
        /// The load from the step on.
        to: f64,
        /// When the step is, in seconds.
        at_seconds: f64,
    },
    /// `base`, and `peak` for `durationSeconds` from `atSeconds`.
    Spike {
        /// The load outside the spike.
        base: f64,
        /// The load during the spike.
        peak: f64,
        /// When the spike starts, in seconds.
        at_seconds: f64,
        /// How long it lasts, in seconds.
        duration_seconds: f64,
    },
    /// `from` until `startSeconds`, linear to `to` at `endSeconds`, `to` from then on.
    Ramp {
        /// The load before the ramp.
        from: f64,
        /// The load after it.
        to: f64,
        /// When the ramp starts, in seconds.
        start_seconds: f64,
        /// When it ends, in seconds.
        end_seconds: f64,
    },
    /// A cosine between `min` (at the start) and `max` (half a period later); the period
    /// is a day unless given.
    DailyCycle {
        /// The load at the start of each period.
        min: f64,
        /// The load half a period later.
        max: f64,
        /// The period, in seconds (86,400 unless given).
        #[serde(default = "one_day")]
        #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
        period_seconds: f64,
    },
    /// `low` for the first half of every period, `high` for the second.
    Flapping {
        /// The load of the first half of a period.
        low: f64,
        /// The load of the second half.
        high: f64,
        /// The period, in seconds.
        period_seconds: f64,
    },
    /// The user's points, in time order, joined linearly (two points at one time make a
    /// step); the first load before the first point, the last after the last.
    Points {
        /// The points.
        points: Vec<LoadPoint>,
    },
}

fn one_day() -> f64 {
    86_400.0
}

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

    /// Checks every number of the curve (finite, loads not negative, times in order).
    pub fn check(&self) -> Result<()> {
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
// What a pod reports

/// Where a pod is in its start-up, for what it reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum UsageStage {
    /// Not running: no sample.
    Pending,
    /// Running, not Ready yet: reports `uses` (milli-units), whatever the demand.
    Starting { uses: f64 },
    /// Ready: takes its share of the demand.
    Ready,
}

/// Each Ready pod's share of `demand` (milli-units) when `ready` pods are Ready (0 without
/// any).
pub(crate) fn ready_share(demand: f64, ready: usize) -> f64 {
    if ready > 0 {
        demand / ready as f64
    } else {
        0.0
    }
}

/// What one pod reports (milli-units, rounded), `None` for a pod without a sample. A
/// Ready pod's sample is its `share` spread by one seeded draw in `± noise`.
pub(crate) fn pod_usage(stage: UsageStage, share: f64, noise: f64, rng: &mut Rng) -> Option<i64> {
    match stage {
        UsageStage::Pending => None,
        UsageStage::Starting { uses } => Some(uses.round() as i64),
        UsageStage::Ready => Some(spread(share, noise, rng)),
    }
}

/// `value` spread by one seeded draw in `± noise`, rounded.
pub(crate) fn spread(value: f64, noise: f64, rng: &mut Rng) -> i64 {
    let u = uniform(rng);
    (value * (1.0 + noise * (2.0 * u - 1.0))).round() as i64
}

/// A uniform draw in [0, 1).
fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

// ---------------------------------------------------------------------------------------
// A set of pods under a demand (the dev-server's kubelet and its metrics API)

/// The pods a load covers at one moment of its curve: what metrics-server would report
/// for them ([`pods_usage`]).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsUsageInput {
    /// The demand over time, millicores of CPU for all the pods together (its errors are
    /// named `load.…`).
    pub load: LoadCurve,
    /// Seconds since the curve's start.
    pub at_seconds: f64,
    /// The pods (Kubernetes objects): their phase, `Ready` condition and containers'
    /// requests are read.
    #[cfg_attr(feature = "ts", ts(type = "Array<{ [key: string]: any }>"))]
    pub pods: Vec<HpaPod>,
    /// The CPU a Running pod that is not Ready uses, as a fraction of its request (1.0,
    /// as the forecast's pod model).
    #[serde(default = "one")]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
    pub startup_cpu: f64,
    /// The memory of a Running container, as a fraction of its memory request (0.5:
    /// memory does not follow the demand).
    #[serde(default = "half")]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
    pub memory: f64,
    /// The spread of a Ready pod's CPU sample around its share: uniform in ± this
    /// fraction (0).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>", optional))]
    pub noise: f64,
    /// The seed of the spread's draws (0).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<u64>", optional))]
    pub seed: u64,
}

fn one() -> f64 {
    1.0
}

fn half() -> f64 {
    0.5
}

/// One container's usage as metrics-server writes it (`containers[].usage`): quantities in
/// their canonical text (`"250m"`, `"64Mi"`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerUsage {
    /// The container's name.
    pub name: String,
    /// What it uses.
    pub usage: ResourceUsage,
}

/// CPU and memory, as quantity text.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUsage {
    /// CPU, as `250m`.
    pub cpu: String,
    /// Memory, as `64Mi`.
    pub memory: String,
}

/// One pod's sample ([`pods_usage`]): `None` and no containers for a pod without one
/// (not Running).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodUsage {
    /// The pod's name.
    pub name: String,
    /// Its CPU in millicores; `None` without a sample.
    pub cpu_millis: Option<i64>,
    /// Its memory in bytes; `None` without a sample.
    pub memory_bytes: Option<i64>,
    /// Each container's usage (none without a sample).
    pub containers: Vec<ContainerUsage>,
}

/// [`pods_usage`]'s answer.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsUsage {
    /// The curve's demand at the moment, millicores.
    pub demand: f64,
    /// Each input pod's sample, in input order.
    pub pods: Vec<PodUsage>,
}

impl PodsUsageInput {
    /// Parses the input from JSON text, naming the field path of any error.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        crate::input::from_json(bytes)
    }
}

/// What each pod reports at `atSeconds` of the load curve. A pod is Ready when Running with a
/// `Ready` condition True (as H-95 counts them), Starting when Running otherwise, Pending
/// (no sample) when not Running. The Ready pods share the demand evenly (each sample
/// spread by a seeded draw, in input order); a Starting pod uses its containers' CPU
/// requests times `startupCpu`. A pod's CPU is split over its containers in proportion to
/// their CPU requests (evenly without any; the remainder of the division to the first);
/// each container's memory is `memory` times its request.
pub fn pods_usage(input: &PodsUsageInput) -> Result<PodsUsage> {
    input.load.check()?;
    let fraction = |field: &str, v: f64| {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(Error::Config {
                path: field.to_owned(),
                message: "must be a finite number, not negative".to_owned(),
            })
        }
    };
    fraction("startupCpu", input.startup_cpu)?;
    fraction("memory", input.memory)?;
    fraction("noise", input.noise)?;
    if !input.at_seconds.is_finite() {
        return Err(Error::Config {
            path: "atSeconds".into(),
            message: "must be a finite number of seconds".into(),
        });
    }
    let stage_of = |pod: &HpaPod| match (pod.status.phase.as_str(), pod.is_ready()) {
        ("Running", true) => PodStage::Ready,
        ("Running", false) => PodStage::Starting,
        _ => PodStage::Pending,
    };
    let demand = input.load.at(input.at_seconds);
    let ready = input
        .pods
        .iter()
        .filter(|p| stage_of(p) == PodStage::Ready)
        .count();
    let share = ready_share(demand, ready);
    let mut rng = Rng::new(input.seed);
    let mut pods = Vec::with_capacity(input.pods.len());
    for pod in &input.pods {
        let request = |c: &Container, r: &str| c.request(r).map_or(0, Quantity::milli_value);
        let cpu_requests: Vec<i64> = pod
            .spec
            .containers
            .iter()
            .map(|c| request(c, "cpu"))
            .collect();
        let cpu_request: i64 = cpu_requests.iter().sum();
        let stage = match stage_of(pod) {
            PodStage::Pending => UsageStage::Pending,
            PodStage::Starting => UsageStage::Starting {
                uses: cpu_request as f64 * input.startup_cpu,
            },
            PodStage::Ready => UsageStage::Ready,
        };
        let name = pod.metadata.name.clone();
        let Some(cpu) = pod_usage(stage, share, input.noise, &mut rng) else {
            pods.push(PodUsage {
                name,
                cpu_millis: None,
                memory_bytes: None,
                containers: Vec::new(),
            });
            continue;
        };
        let cpu_split = split(cpu, &cpu_requests);
        let mut containers = Vec::with_capacity(pod.spec.containers.len());
        let mut memory_total: i64 = 0;
        for (c, cpu) in pod.spec.containers.iter().zip(cpu_split) {
            // A memory request's milli value is its bytes times 1000.
            let memory = (request(c, "memory") as f64 / 1000.0 * input.memory).round() as i64;
            memory_total = memory_total.saturating_add(memory);
            containers.push(ContainerUsage {
                name: c.name.clone(),
                usage: ResourceUsage {
                    cpu: Quantity::from_milli(cpu, Format::DecimalSi).canonical(),
                    memory: Quantity::from_milli(memory.saturating_mul(1000), Format::BinarySi)
                        .canonical(),
                },
            });
        }
        pods.push(PodUsage {
            name,
            cpu_millis: Some(cpu),
            memory_bytes: Some(memory_total),
            containers,
        });
    }
    Ok(PodsUsage { demand, pods })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PodStage {
    Pending,
    Starting,
    Ready,
}

/// `total` in parts proportional to `weights` (equal parts when they are all 0), rounded
/// down, the remainder to the first part.
fn split(total: i64, weights: &[i64]) -> Vec<i64> {
    let sum: i128 = weights.iter().map(|w| i128::from(*w)).sum();
    let n = weights.len() as i128;
    let mut parts: Vec<i64> = weights
        .iter()
        .map(|w| {
            let part = if sum > 0 {
                i128::from(total) * i128::from(*w) / sum
            } else {
                i128::from(total) / n.max(1)
            };
            i64::try_from(part).unwrap_or(0)
        })
        .collect();
    let rest = total - parts.iter().sum::<i64>();
    if let Some(first) = parts.first_mut() {
        *first += rest;
    }
    parts
}

/// [`pods_usage`] of a JSON [`PodsUsageInput`].
pub fn pods_usage_json(bytes: &[u8]) -> Result<PodsUsage> {
    pods_usage(&PodsUsageInput::from_json(bytes)?)
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

    #[test]
    fn ready_pods_share_the_demand_and_starting_pods_use_their_request() {
        let pod = |name: &str, phase: &str, ready: &str| {
            format!(
                r#"{{"metadata": {{"name": "{name}"}},
                    "spec": {{"containers": [
                      {{"name": "app", "resources": {{"requests": {{"cpu": "150m", "memory": "64Mi"}}}}}},
                      {{"name": "side", "resources": {{"requests": {{"cpu": "50m"}}}}}}]}},
                    "status": {{"phase": "{phase}", "conditions": [{{"type": "Ready", "status": "{ready}"}}]}}}}"#
            )
        };
        let json = format!(
            r#"{{"load": {{"kind": "step", "from": 100, "to": 900, "atSeconds": 60}},
                 "atSeconds": 60, "pods": [{}, {}, {}, {}, {}]}}"#,
            pod("a", "Running", "True"),
            pod("b", "Running", "False"),
            pod("c", "Pending", "False"),
            pod("d", "Running", "True"),
            pod("e", "Running", "True"),
        );
        let out = pods_usage_json(json.as_bytes()).unwrap();
        assert_eq!(out.demand, 900.0);
        let cpu: Vec<_> = out.pods.iter().map(|p| p.cpu_millis).collect();
        assert_eq!(cpu, [Some(300), Some(200), None, Some(300), Some(300)]);
        let a = &out.pods[0];
        assert_eq!(a.memory_bytes, Some(32 * 1024 * 1024));
        assert_eq!(a.containers[0].usage.cpu, "225m");
        assert_eq!(a.containers[0].usage.memory, "32Mi");
        assert_eq!(a.containers[1].usage.cpu, "75m");
        assert_eq!(a.containers[1].usage.memory, "0");
        assert!(out.pods[2].containers.is_empty());
    }

    #[test]
    fn a_split_keeps_the_total() {
        assert_eq!(split(100, &[1, 1, 1]), [34, 33, 33]);
        assert_eq!(split(7, &[0, 0]), [4, 3]);
        assert_eq!(split(5, &[]), Vec::<i64>::new());
    }

    #[test]
    fn the_noise_is_seeded_and_a_bad_number_is_refused() {
        let json = |seed: u64| {
            format!(
                r#"{{"load": {{"kind": "step", "from": 1000, "to": 1000, "atSeconds": 0}},
                    "atSeconds": 5, "noise": 0.2, "seed": {seed},
                    "pods": [{{"metadata": {{"name": "a"}}, "status": {{"phase": "Running", "conditions": [{{"type": "Ready", "status": "True"}}]}}}},
                             {{"metadata": {{"name": "b"}}, "status": {{"phase": "Running", "conditions": [{{"type": "Ready", "status": "True"}}]}}}}]}}"#
            )
        };
        let a = pods_usage_json(json(7).as_bytes()).unwrap();
        assert_eq!(a, pods_usage_json(json(7).as_bytes()).unwrap());
        assert_ne!(a, pods_usage_json(json(8).as_bytes()).unwrap());
        for p in &a.pods {
            let v = p.cpu_millis.unwrap();
            assert!((400..=600).contains(&v), "{v}");
        }
        let bad =
            br#"{"load": {"kind": "step", "from": 1, "to": 1, "atSeconds": 0}, "atSeconds": 0,
                       "noise": -1, "pods": []}"#;
        assert!(pods_usage_json(bad).is_err());
    }
}
