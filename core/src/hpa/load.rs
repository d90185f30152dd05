//! The load model: no upstream rule, the demand the forecast, the simulator and the
//! dev-server's kubelet play to the autoscaler, written once here.
//!
//! - **A load curve** ([`LoadCurve`]): the demand over time as a step, a spike, a ramp, a
//!   daily cycle, flapping, or the user's points. Its unit is the host's: the forecast
//!   counts *pods at target*, the dev-server millicores of CPU.
//! - **What a pod reports** ([`pod_usage`]): the Ready pods share the demand evenly, each
//!   sample spread by a seeded `± noise` fraction; a Running pod not yet Ready reports
//!   what its start-up uses; a Pending pod reports nothing (metrics-server has no sample).
//!
//! The only randomness is the caller's [`Rng`]; the curve uses arithmetic only (its
//! cosine is a series), so native and wasm agree bit for bit.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::Rng;

/// One point of a user's load curve.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadPoint {
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
pub enum UsageStage {
    /// Not running: no sample.
    Pending,
    /// Running, not Ready yet: reports `uses` (milli-units), whatever the demand.
    Starting { uses: f64 },
    /// Ready: takes its share of the demand.
    Ready,
}

/// Each Ready pod's share of `demand` (milli-units) when `ready` pods are Ready (0 without
/// any).
pub fn ready_share(demand: f64, ready: usize) -> f64 {
    if ready > 0 {
        demand / ready as f64
    } else {
        0.0
    }
}

/// What one pod reports (milli-units, rounded), `None` for a pod without a sample. A
/// Ready pod's sample is its `share` spread by one seeded draw in `± noise`.
pub fn pod_usage(stage: UsageStage, share: f64, noise: f64, rng: &mut Rng) -> Option<i64> {
    match stage {
        UsageStage::Pending => None,
        UsageStage::Starting { uses } => Some(uses.round() as i64),
        UsageStage::Ready => Some(spread(share, noise, rng)),
    }
}

/// `value` spread by one seeded draw in `± noise`, rounded.
pub fn spread(value: f64, noise: f64, rng: &mut Rng) -> i64 {
    let u = uniform(rng);
    (value * (1.0 + noise * (2.0 * u - 1.0))).round() as i64
}

/// A uniform draw in [0, 1).
fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
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
