//! The rollout forecast (issue point 6): plays a Deployment's rollout forward in time.
//!
//! Two controllers take turns over an in-memory API:
//! - the Deployment controller is the engine's own sync ([`run_sync`], every rule D-xx),
//!   its calls applied to the model (creates, scales, deletes, status writes);
//! - the ReplicaSet controller is a reduction of the engine's: each ReplicaSet gets
//!   `spec.replicas` pods, at most `burstReplicas` (500) created or deleted per pass
//!   (creation never fails here, so slow-start batches all succeed, R-40..R-45), and a
//!   scale-down deletes unready pods before ready ones, newest first (the ranking's
//!   first rules, R-70..R-72).
//!
//! Pods start up in a seeded model: ready `startup` (plus a seeded jitter) after their
//! creation, available `minReadySeconds` later; a [`FailureModel`] makes some or all
//! pods of the new template never ready. Deleted pods go at once (no grace period).
//! Time jumps from event to event (a pod becoming available, the controller's requeue
//! for the progress deadline), rounded up to the `interval`. Same seed, same forecast:
//! the only randomness is [`Rng`], and there is no clock.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::time::{Duration, Time};

use super::limiting::{self, StepCalls, StepCounts};
use super::machine::{run_sync, ApiCall, ApiResult, DeploymentSyncInput, ProgressRequeue};
use super::model::{reason, Deployment, Rs, Wire, RECREATE};
use super::strategy::{max_replicas, max_surge, max_unavailable};

/// The ReplicaSet controller's `burstReplicas` (kube-controller-manager default).
const BURST: usize = 500;
/// Syncs of one instant at most (a sync that writes a ReplicaSet is followed by another
/// once the ReplicaSet controller has acted, as the watch would trigger it).
const SYNCS_PER_INSTANT: usize = 8;

/// Which new pods never become ready.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FailureModel {
    /// Every pod becomes ready after its start-up time.
    None,
    /// Each pod of the new template is, with this probability (seeded), never ready.
    NeverReadyFraction { fraction: f64 },
    /// The new template always fails (crash loop): none of its pods becomes ready.
    NewTemplateFails,
}

/// How to play the rollout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastOptions {
    /// The controller clock at the start.
    pub now: Time,
    #[serde(default)]
    pub seed: u64,
    /// From creation to ready, in seconds.
    pub startup_seconds: f64,
    /// A seeded extra delay, uniform in `0..=jitter`, per pod, in seconds.
    #[serde(default)]
    pub startup_jitter_seconds: f64,
    pub failure: FailureModel,
    /// Time resolution: events are rounded up to multiples of this, in seconds.
    pub interval_seconds: f64,
    /// Stop the forecast after this long, in seconds.
    pub max_seconds: f64,
}

impl ForecastOptions {
    /// 10 s start-up, no failures, 1 s resolution, at most one hour.
    pub fn at(now: Time) -> Self {
        ForecastOptions {
            now,
            seed: 1,
            startup_seconds: 10.0,
            startup_jitter_seconds: 0.0,
            failure: FailureModel::None,
            interval_seconds: 1.0,
            max_seconds: 3600.0,
        }
    }
}

/// One row of the step table: the state after the controllers acted at `seconds`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastStep {
    /// Seconds since the start.
    pub seconds: f64,
    /// `spec.replicas` of the new ReplicaSet (0 before it exists).
    pub new_replicas: i32,
    /// `spec.replicas` summed over the old ReplicaSets.
    pub old_replicas: i32,
    /// Pods that exist.
    pub pods: i32,
    /// Available pods (ready for `minReadySeconds`).
    pub available: i32,
    /// The surge bound in force: at most `R + maxSurge` pods (D-08).
    pub max_pods: i32,
    /// The availability bound in force: at least `R − maxUnavailable` available (D-08).
    pub min_available: i32,
    /// The rule that decided (or limited) this step, e.g. `D-51`.
    pub rule: String,
    /// What it decided, in words.
    pub why: String,
}

/// How the forecast ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ForecastEnd {
    /// The new ReplicaSet has every replica available and no old pod is left.
    Complete { seconds: f64 },
    /// The rollout cannot progress; `reason` is the Progressing condition's reason when
    /// the controller reported one (`ProgressDeadlineExceeded`).
    Stalled {
        seconds: f64,
        reason: String,
        why: String,
    },
    /// `maxSeconds` passed first.
    Unfinished { seconds: f64 },
}

/// The forecast of a rollout.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    pub deployment: String,
    pub strategy: String,
    pub replicas: i32,
    pub max_surge: i32,
    pub max_unavailable: i32,
    pub steps: Vec<ForecastStep>,
    pub end: ForecastEnd,
    /// The most pods that existed at once.
    pub peak_pods: i32,
    /// The fewest available pods at any step.
    pub min_available: i32,
    /// Deployment syncs played.
    pub syncs: usize,
}

/// A pod of the model: when it becomes available, if ever (milliseconds from start).
#[derive(Clone, Copy, Debug)]
struct SimPod {
    created: i64,
    ready: Option<i64>,
    available: Option<i64>,
}

/// The in-memory cluster: the deployment, its ReplicaSets, their pods.
struct Cluster {
    deployment: Wire<Deployment>,
    replica_sets: Vec<Rs>,
    pods: BTreeMap<String, Vec<SimPod>>,
    created: usize,
}

/// Milliseconds from seconds (saturating, never negative).
fn millis(seconds: f64) -> i64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 0;
    }
    (seconds * 1000.0).min(1e15) as i64
}

/// Plays the rollout of `deployment` (wire JSON) over `replica_sets` (wire JSON).
pub fn forecast(
    deployment: &Value,
    replica_sets: &[Value],
    options: &ForecastOptions,
) -> Result<Forecast> {
    let deployment: Wire<Deployment> =
        Wire::from_value(deployment.clone()).map_err(|e| e.under("deployment"))?;
    let replica_sets = replica_sets
        .iter()
        .enumerate()
        .map(|(i, v)| {
            Wire::from_value(v.clone()).map_err(|e| e.under(&format!("replicaSets[{i}]")))
        })
        .collect::<Result<Vec<Rs>>>()?;
    Player::new(deployment, replica_sets, options).play()
}

struct Player<'o> {
    options: &'o ForecastOptions,
    rng: Rng,
    cluster: Cluster,
    startup: i64,
    jitter: i64,
    min_ready: i64,
    interval: i64,
    /// `spec.replicas` of each ReplicaSet before the current sync's first update of it.
    before: BTreeMap<String, i32>,
}

impl<'o> Player<'o> {
    fn new(
        deployment: Wire<Deployment>,
        replica_sets: Vec<Rs>,
        options: &'o ForecastOptions,
    ) -> Self {
        let min_ready = i64::from(deployment.spec.min_ready_seconds.max(0)).saturating_mul(1000);
        let mut player = Player {
            options,
            rng: Rng::new(options.seed),
            startup: millis(options.startup_seconds),
            jitter: millis(options.startup_jitter_seconds),
            min_ready,
            interval: millis(options.interval_seconds).max(1),
            before: BTreeMap::new(),
            cluster: Cluster {
                deployment,
                replica_sets: Vec::new(),
                pods: BTreeMap::new(),
                created: 0,
            },
        };
        // The pods the ReplicaSets report: the available ones long available, the rest
        // starting now.
        for rs in replica_sets {
            let n = usize::try_from(rs.spec.desired().max(0)).unwrap_or(0);
            let up = usize::try_from(rs.status.available_replicas.max(0)).unwrap_or(0);
            let new = player.is_new(&rs);
            let pods = (0..n)
                .map(|i| {
                    if i < up {
                        SimPod {
                            created: i64::MIN / 4,
                            ready: Some(i64::MIN / 4),
                            available: Some(i64::MIN / 4),
                        }
                    } else {
                        player.start_pod(0, new)
                    }
                })
                .collect();
            player.cluster.pods.insert(rs.metadata.name.clone(), pods);
            player.cluster.replica_sets.push(rs);
        }
        player
    }

    fn now(&self, t: i64) -> Time {
        self.options
            .now
            .plus(Duration::from_nanos(t.saturating_mul(1_000_000)))
    }

    /// Is `rs` of the deployment's current template?
    fn is_new(&self, rs: &Rs) -> bool {
        limiting::is_new(rs, &self.cluster.deployment.spec.template)
    }

    /// A pod created at `t`: when it is ready and available, by the seeded model.
    fn start_pod(&mut self, t: i64, new_template: bool) -> SimPod {
        let fails = new_template
            && match self.options.failure {
                FailureModel::None => false,
                FailureModel::NeverReadyFraction { fraction } => self.rng.chance(fraction),
                FailureModel::NewTemplateFails => true,
            };
        if fails {
            return SimPod {
                created: t,
                ready: None,
                available: None,
            };
        }
        let extra = if self.jitter > 0 {
            i64::try_from(
                self.rng
                    .below(u64::try_from(self.jitter).unwrap_or(0).saturating_add(1)),
            )
            .unwrap_or(0)
        } else {
            0
        };
        let ready = t.saturating_add(self.startup).saturating_add(extra);
        SimPod {
            created: t,
            ready: Some(ready),
            available: Some(ready.saturating_add(self.min_ready)),
        }
    }

    /// The ReplicaSet controller's pass at `t` over every ReplicaSet: pods to
    /// `spec.replicas` (at most [`BURST`] per pass), then the status.
    fn reconcile_replica_sets(&mut self, t: i64) {
        let names: Vec<(String, i32, bool)> = self
            .cluster
            .replica_sets
            .iter()
            .map(|rs| (rs.metadata.name.clone(), rs.spec.desired(), self.is_new(rs)))
            .collect();
        for (name, desired, new) in names {
            let want = usize::try_from(desired.max(0)).unwrap_or(0);
            let mut pods = self.cluster.pods.remove(&name).unwrap_or_default();
            if pods.len() < want {
                let add = (want - pods.len()).min(BURST);
                for _ in 0..add {
                    let pod = self.start_pod(t, new);
                    pods.push(pod);
                }
            } else if pods.len() > want {
                let remove = (pods.len() - want).min(BURST);
                // R-70..R-72 reduced: unready first, then the most recently ready; among
                // equals the newest first. Kept: the first `len − remove` by that rank.
                crate::sort::sort_by_key(&mut pods, |p| {
                    let ready_now = p.ready.is_some_and(|r| r <= t);
                    (
                        ready_now,
                        std::cmp::Reverse(p.ready.unwrap_or(i64::MAX)),
                        std::cmp::Reverse(p.created),
                    )
                });
                pods.drain(..remove);
            }
            let ready = pods
                .iter()
                .filter(|p| p.ready.is_some_and(|r| r <= t))
                .count();
            let available = pods
                .iter()
                .filter(|p| p.available.is_some_and(|r| r <= t))
                .count();
            let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
            if let Some(rs) = self
                .cluster
                .replica_sets
                .iter_mut()
                .find(|rs| rs.metadata.name == name)
            {
                let generation = rs.metadata.generation.unwrap_or(0);
                let status = &mut rs.status;
                status.replicas = count(pods.len());
                status.fully_labeled_replicas = count(pods.len());
                status.ready_replicas = count(ready);
                status.available_replicas = count(available);
                status.observed_generation = generation;
            }
            self.cluster.pods.insert(name, pods);
        }
    }

    /// One Deployment sync at `t`, its calls applied to the model.
    fn sync(&mut self, t: i64, decided: &mut StepCalls) -> Result<ProgressRequeue> {
        let now = self.now(t);
        let d = &self.cluster.deployment;
        let input = DeploymentSyncInput {
            now,
            feature_gates: Default::default(),
            key: format!("{}/{}", d.metadata.namespace, d.metadata.name),
            deployment: Some(d.clone()),
            replica_sets: self.cluster.replica_sets.clone(),
            pods: Vec::new(),
        };
        let mut calls = Vec::new();
        let mut failure: Option<Error> = None;
        self.before.clear();
        let done = run_sync(input, |call| {
            let (result, err) = self.apply(call, now);
            if let Some(e) = err {
                failure.get_or_insert(e);
            }
            calls.push(call.clone());
            result
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        self.note(&calls, decided);
        Ok(done.requeue)
    }

    /// The in-memory API server: applies `call`, answers as the server would.
    fn apply(&mut self, call: &ApiCall, now: Time) -> (ApiResult, Option<Error>) {
        let ok = |object: Option<Value>| ApiResult::Ok { object };
        match call {
            ApiCall::GetDeployment { .. } => {
                (ok(Some(Value::clone(&self.cluster.deployment.wire))), None)
            }
            ApiCall::PatchReplicaSet { .. } => (ok(None), None),
            ApiCall::CreateReplicaSet { object, .. } => {
                let mut object = object.clone();
                self.cluster.created += 1;
                if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.insert(
                        "uid".into(),
                        Value::from(format!("forecast-{}", self.cluster.created)),
                    );
                    meta.insert("creationTimestamp".into(), Value::from(now.to_rfc3339()));
                    meta.insert("generation".into(), Value::from(1));
                }
                match Rs::from_value(object.clone()) {
                    Ok(rs) => {
                        self.cluster
                            .pods
                            .insert(rs.metadata.name.clone(), Vec::new());
                        self.cluster.replica_sets.push(rs);
                        (ok(Some(object)), None)
                    }
                    Err(e) => (ok(None), Some(e.under("forecast.createReplicaSet"))),
                }
            }
            ApiCall::UpdateReplicaSet { name, object, .. } => {
                match Rs::from_value(object.clone()) {
                    Ok(mut rs) => {
                        if let Some(slot) = self
                            .cluster
                            .replica_sets
                            .iter_mut()
                            .find(|r| &r.metadata.name == name)
                        {
                            self.before
                                .entry(name.clone())
                                .or_insert(slot.spec.desired());
                            let generation = slot.metadata.generation.unwrap_or(0);
                            let bump = slot.spec != rs.spec;
                            rs.status = slot.status.clone();
                            rs.metadata.generation =
                                Some(if bump { generation + 1 } else { generation });
                            *slot = rs;
                        }
                        (ok(None), None)
                    }
                    Err(e) => (ok(None), Some(e.under("forecast.updateReplicaSet"))),
                }
            }
            ApiCall::DeleteReplicaSet { name, .. } => {
                self.cluster
                    .replica_sets
                    .retain(|r| &r.metadata.name != name);
                self.cluster.pods.remove(name);
                (ok(None), None)
            }
            ApiCall::UpdateDeployment { object, .. }
            | ApiCall::UpdateDeploymentStatus { object, .. } => {
                match Wire::from_value(object.clone()) {
                    Ok(d) => {
                        self.cluster.deployment = d;
                        (ok(None), None)
                    }
                    Err(e) => (ok(None), Some(e.under("forecast.updateDeployment"))),
                }
            }
        }
    }

    /// What the calls of one sync did to the ReplicaSets, for the step's rule.
    fn note(&self, calls: &[ApiCall], decided: &mut StepCalls) {
        limiting::note_calls(
            decided,
            calls,
            &self.before,
            &self.cluster.replica_sets,
            &self.cluster.deployment.spec.template,
        );
    }

    /// (new replicas, old replicas, pods, available) now.
    fn counts(&self) -> (i32, i32, i32, i32) {
        let c = limiting::counts(
            &self.cluster.replica_sets,
            &self.cluster.deployment.spec.template,
        );
        (c.new, c.old, c.pods, c.available)
    }

    /// The next instant something changes: a pod becoming ready or available, or the
    /// controller's requeue; rounded up to the interval.
    fn next_event(&self, t: i64, requeue: Option<i64>) -> Option<i64> {
        let pods = self
            .cluster
            .pods
            .values()
            .flatten()
            .flat_map(|p| [p.ready, p.available])
            .flatten()
            .filter(|&e| e > t);
        let next = pods.chain(requeue.filter(|&e| e > t)).min()?;
        let rounded = next
            .saturating_add(self.interval - 1)
            .div_euclid(self.interval)
            .saturating_mul(self.interval);
        Some(rounded.max(t.saturating_add(1)))
    }

    fn play(mut self) -> Result<Forecast> {
        let max = millis(self.options.max_seconds);
        let d = &self.cluster.deployment;
        let (r, surge, unavailable) = (d.replicas(), max_surge(d), max_unavailable(d));
        let recreate = d.spec.strategy.type_ == RECREATE;
        let mut forecast = Forecast {
            deployment: format!("{}/{}", d.metadata.namespace, d.metadata.name),
            strategy: d.spec.strategy.type_.clone(),
            replicas: r,
            max_surge: surge,
            max_unavailable: unavailable,
            steps: Vec::new(),
            end: ForecastEnd::Unfinished { seconds: 0.0 },
            peak_pods: 0,
            min_available: i32::MAX,
            syncs: 0,
        };
        let mut t = 0i64;
        let mut last: Option<(i32, i32, i32, i32)> = None;
        loop {
            let mut requeue = None;
            self.reconcile_replica_sets(t);
            for _ in 0..SYNCS_PER_INSTANT {
                let mut decided = StepCalls::default();
                let r = self.sync(t, &mut decided)?;
                forecast.syncs += 1;
                self.reconcile_replica_sets(t);
                match r {
                    ProgressRequeue::After { after } => {
                        requeue = Some(t.saturating_add(after.as_nanos() / 1_000_000));
                    }
                    // Rate-limited: back again within the (first) retry delays.
                    ProgressRequeue::RateLimited => requeue = Some(t.saturating_add(1)),
                    ProgressRequeue::None => {}
                }
                let counts = self.counts();
                forecast.peak_pods = forecast.peak_pods.max(counts.2);
                forecast.min_available = forecast.min_available.min(counts.3);
                if last != Some(counts) || decided.writes > 0 {
                    let d = &self.cluster.deployment;
                    // Recreate has no surge and no availability floor (D-60..D-62).
                    let b = limiting::bounds(d);
                    let bounds = (b.max_pods, b.min_available);
                    let (rule, why) = self.rule(&decided, counts, bounds, recreate);
                    forecast.steps.push(ForecastStep {
                        seconds: t as f64 / 1000.0,
                        new_replicas: counts.0,
                        old_replicas: counts.1,
                        pods: counts.2,
                        available: counts.3,
                        max_pods: bounds.0,
                        min_available: bounds.1,
                        rule,
                        why,
                    });
                    last = Some(counts);
                }
                if decided.calls == 0 {
                    break;
                }
            }
            let counts = self.counts();
            let (new, old, pods, available) = counts;
            let d = &self.cluster.deployment;
            let seconds = t as f64 / 1000.0;
            if new == r && old == 0 && pods == r && available == r {
                forecast.end = ForecastEnd::Complete { seconds };
                break;
            }
            if let Some(c) = d.status.condition(reason::PROGRESSING) {
                if c.reason == reason::TIMED_OUT {
                    forecast.end = ForecastEnd::Stalled {
                        seconds,
                        reason: c.reason.clone(),
                        why: self.stall_why(counts),
                    };
                    break;
                }
            }
            match self.next_event(t, requeue) {
                Some(next) if next <= max => t = next,
                Some(_) => {
                    forecast.end = ForecastEnd::Unfinished {
                        seconds: max as f64 / 1000.0,
                    };
                    break;
                }
                None => {
                    forecast.end = ForecastEnd::Stalled {
                        seconds,
                        reason: String::new(),
                        why: format!(
                            "{} (no progress deadline: the rollout waits forever)",
                            self.stall_why(counts)
                        ),
                    };
                    break;
                }
            }
        }
        if forecast.min_available == i32::MAX {
            forecast.min_available = 0;
        }
        Ok(forecast)
    }

    /// Why nothing moves any more.
    fn stall_why(&self, (new, old, pods, available): (i32, i32, i32, i32)) -> String {
        let d = &self.cluster.deployment;
        let never = self
            .cluster
            .replica_sets
            .iter()
            .filter(|rs| self.is_new(rs))
            .filter_map(|rs| self.cluster.pods.get(&rs.metadata.name))
            .flatten()
            .filter(|p| p.ready.is_none())
            .count();
        format!(
            "{never} of the new ReplicaSet's {new} pods never become ready; {available} of {pods} pods available, \
             {old} old replicas kept: maxUnavailable {} allows at most {} unavailable and maxSurge {} at most {} pods",
            max_unavailable(d),
            max_unavailable(d),
            max_surge(d),
            max_replicas(d)
        )
    }

    /// Which rule decided (or limited) the step, and what it did, in words.
    fn rule(
        &self,
        decided: &StepCalls,
        (new, old, pods, available): (i32, i32, i32, i32),
        (max_pods, min_available): (i32, i32),
        recreate: bool,
    ) -> (String, String) {
        let r = limiting::limiting_rule(
            self.cluster.deployment.replicas(),
            decided,
            StepCounts {
                new,
                old,
                pods,
                available,
            },
            limiting::StepBounds {
                max_pods,
                min_available,
            },
            recreate,
        );
        (r.rule, r.why)
    }
}

/// The forecast as a text table (`replicore explain --forecast`).
pub fn render_forecast(f: &Forecast) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Forecast for deployment {} ({}, {} replicas, maxSurge {}, maxUnavailable {})",
        f.deployment, f.strategy, f.replicas, f.max_surge, f.max_unavailable
    );
    let _ = writeln!(
        out,
        "{:>8}  {:>5}  {:>5}  {:>5}  {:>5}  {:>7}  {:>7}  {:<10} why",
        "time", "new", "old", "pods", "avail", "≤pods", "≥avail", "rule"
    );
    for s in &f.steps {
        let _ = writeln!(
            out,
            "{:>7}s  {:>5}  {:>5}  {:>5}  {:>5}  {:>7}  {:>7}  {:<10} {}",
            trim_seconds(s.seconds),
            s.new_replicas,
            s.old_replicas,
            s.pods,
            s.available,
            s.max_pods,
            s.min_available,
            s.rule,
            s.why
        );
    }
    match &f.end {
        ForecastEnd::Complete { seconds } => {
            let _ = writeln!(out, "Complete after {}s.", trim_seconds(*seconds));
        }
        ForecastEnd::Stalled {
            seconds,
            reason,
            why,
        } => {
            let reason = if reason.is_empty() {
                "stalled".to_string()
            } else {
                reason.clone()
            };
            let _ = writeln!(
                out,
                "Stalled at {}s: {reason}: {why}.",
                trim_seconds(*seconds)
            );
        }
        ForecastEnd::Unfinished { seconds } => {
            let _ = writeln!(out, "Not finished after {}s.", trim_seconds(*seconds));
        }
    }
    let _ = writeln!(
        out,
        "Peak {} pods, minimum {} available, {} syncs.",
        f.peak_pods, f.min_available, f.syncs
    );
    out
}

fn trim_seconds(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}
