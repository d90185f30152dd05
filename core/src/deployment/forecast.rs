//! The rollout forecast (issue point 6): plays a Deployment's rollout forward in time.
//!
//! Two controllers take turns over an in-memory cluster, the shared play of the forecasts
//! (`deployment/play.rs`), and both are the engine's own:
//! - the Deployment controller is the engine's sync ([`run_sync`](super::run_sync),
//!   every rule D-xx), its calls applied to the model (creates, scales, deletes, status
//!   writes);
//! - the ReplicaSet controller is the engine's too: the watch-event rules say which
//!   ReplicaSet to sync, `plan` and `complete` decide (slow-start batches, burst, the
//!   ranking that picks which pods a scale-down deletes, the status counts and the
//!   minReadySeconds requeue), and the play only carries out the calls. No ReplicaSet
//!   rule is restated here.
//!
//! The play starts from the pods the snapshot shows, each ReplicaSet's in groups
//! ([`PodGroup`]: available, ready, starting, unready past the start-up time,
//! crash-looping), and says what it assumes of each group ([`PodAssumption`]): the
//! available and ready pods stay ready, the starting ones become ready at the end of
//! their start-up time, the ones unready past it or restarting never do. A snapshot
//! without pods is read from the ReplicaSets' status counts instead.
//!
//! Pods the controllers create start up in a seeded model: Running at once, Ready
//! `startup` (plus a seeded jitter) after their creation (available `minReadySeconds`
//! later, as the status rules count it). The new template's
//! pods fail as its observed pods do (all of them never ready: the new ones neither); a
//! [`FailureModel`] other than `observed` overrides what the cluster shows. Deleted pods
//! go at once (no grace period).
//!
//! A Progressing condition already `ProgressDeadlineExceeded` does not stop the play: the
//! controllers keep scaling when pods become ready (the condition goes back to
//! `ReplicaSetUpdated`), so the forecast ends stalled only when nothing is left to happen.
//! Time jumps from event to event (a pod becoming ready, a ReplicaSet's requeue, the
//! Deployment controller's requeue for the progress deadline), rounded up to the
//! `interval`. Same seed, same forecast:
//! the only randomness is [`Rng`], and there is no clock.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::model::Pod;
use crate::pods;
use crate::rng::Rng;
use crate::time::{Duration, Time};
use crate::words::{age, plural};

use super::limiting::{self, StepCalls, StepCounts};
use super::machine::ProgressRequeue;
use super::model::{reason, Deployment, Rs, Wire, RECREATE};
use super::play::{Play, PlayPod, PodLife};
use super::strategy::{max_replicas, max_surge, max_unavailable};

/// Syncs of one instant at most (a sync that writes a ReplicaSet is followed by another
/// once the ReplicaSet controller has acted, as the watch would trigger it).
const SYNCS_PER_INSTANT: usize = 8;

/// Which pods never become ready.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FailureModel {
    /// As the cluster shows (the default): observed pods unready past the start-up time
    /// or restarting never become ready, and the new template's new pods fail when all
    /// of its observed pods do.
    Observed,
    /// Every pod becomes ready after its start-up time; an observed pod unready past it
    /// or restarting, one start-up time from the start (an override of what the cluster
    /// shows).
    None,
    /// Each pod of the new template is, with this probability (seeded), never ready.
    NeverReadyFraction {
        /// The probability.
        fraction: f64,
    },
    /// The new template always fails (crash loop): none of its pods becomes ready (its
    /// observed pods already ready stay ready).
    NewTemplateFails,
}

/// A group of a ReplicaSet's pods as the snapshot shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PodGroup {
    /// Available (ready for `minReadySeconds`).
    Available,
    /// Ready, not yet for `minReadySeconds`.
    Ready,
    /// Not ready, for less than the start-up time, no container restarted.
    Starting,
    /// Not ready for longer than the start-up time, no container restarted.
    Unready,
    /// Not ready, a container restarted.
    CrashLooping,
    /// Counted from the ReplicaSet's status (the snapshot has no pods).
    FromStatus,
    /// Created by the controllers during the forecast.
    Created,
}

impl PodGroup {
    fn words(self) -> &'static str {
        match self {
            PodGroup::Available => "available",
            PodGroup::Ready => "ready, not yet available",
            PodGroup::Starting => "starting",
            PodGroup::Unready => "unready past the start-up time",
            PodGroup::CrashLooping => "crash-looping",
            PodGroup::FromStatus => "counted from the ReplicaSet's status",
            PodGroup::Created => "created in the forecast",
        }
    }
}

/// What the forecast assumed of one group of a ReplicaSet's pods at the start (or, with
/// group `created`, of the pods the controllers create for the new template).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodAssumption {
    /// The ReplicaSet (empty for the new template's created pods before it exists).
    pub replica_set: String,
    /// Of the Deployment's current template.
    pub new: bool,
    /// Which group of pods.
    pub group: PodGroup,
    /// Pods in the group (0 for `created`: however many the controllers create).
    pub pods: usize,
    /// The longest any of them has been unready, in seconds (starting, unready,
    /// crash-looping).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unready_seconds: Option<f64>,
    /// The most restarts of a container among them.
    #[serde(skip_serializing_if = "is_zero")]
    pub restarts: i32,
    /// Whether they become (or stay) ready in the forecast.
    pub ready: bool,
    /// What the forecast assumed, in words.
    pub assumed: String,
    /// The failure model decided, over what the cluster shows.
    pub overridden: bool,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// How to play the rollout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastOptions {
    /// The controller clock at the start.
    pub now: Time,
    #[serde(default)]
    /// The seed of the start-up jitter.
    pub seed: u64,
    /// From creation to ready, in seconds.
    pub startup_seconds: f64,
    /// A seeded extra delay, uniform in `0..=jitter`, per pod, in seconds.
    #[serde(default)]
    pub startup_jitter_seconds: f64,
    /// Which pods fail.
    pub failure: FailureModel,
    /// Time resolution: events are rounded up to multiples of this, in seconds.
    pub interval_seconds: f64,
    /// Stop the forecast after this long, in seconds.
    pub max_seconds: f64,
}

impl ForecastOptions {
    /// 10 s start-up, pods as observed, 1 s resolution, at most one hour.
    pub fn at(now: Time) -> Self {
        ForecastOptions {
            now,
            seed: 1,
            startup_seconds: 10.0,
            startup_jitter_seconds: 0.0,
            failure: FailureModel::Observed,
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
    Complete {
        /// When, in seconds from the start.
        seconds: f64,
    },
    /// The rollout cannot progress; `reason` is the Progressing condition's reason when
    /// the controller reported one (`ProgressDeadlineExceeded`).
    Stalled {
        /// When, in seconds from the start.
        seconds: f64,
        /// The Progressing condition's reason, or empty.
        reason: String,
        /// Why, in words.
        why: String,
    },
    /// `maxSeconds` passed first.
    Unfinished {
        /// When the forecast stopped, in seconds from the start.
        seconds: f64,
    },
}

/// The forecast of a rollout.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    /// `namespace/name` of the Deployment.
    pub deployment: String,
    /// `spec.strategy.type`.
    pub strategy: String,
    /// `spec.replicas`.
    pub replicas: i32,
    /// D-05, D-06, resolved against `spec.replicas`.
    pub max_surge: i32,
    /// D-05..D-07, resolved against `spec.replicas`.
    pub max_unavailable: i32,
    /// What was assumed of each group of pods at the start.
    pub assumptions: Vec<PodAssumption>,
    /// The steps of the rollout, in time order.
    pub steps: Vec<ForecastStep>,
    /// How the rollout ended.
    pub end: ForecastEnd,
    /// The most pods that existed at once.
    pub peak_pods: i32,
    /// The fewest available pods at any step.
    pub min_available: i32,
    /// Deployment syncs played.
    pub syncs: usize,
}

/// A pod of the model: when it becomes ready, if ever (milliseconds from start).
#[derive(Clone, Debug)]
struct SimPod {
    /// The observed pod's name (empty: the play names it).
    name: String,
    created: i64,
    ready: Option<i64>,
    restarts: i32,
    group: PodGroup,
}

impl SimPod {
    fn life(&self) -> PodLife {
        PodLife {
            running: self.created,
            ready: self.ready,
            restarts: self.restarts,
        }
    }
}

impl PodGroup {
    const ALL: [PodGroup; 7] = [
        PodGroup::Available,
        PodGroup::Ready,
        PodGroup::Starting,
        PodGroup::Unready,
        PodGroup::CrashLooping,
        PodGroup::FromStatus,
        PodGroup::Created,
    ];

    /// The group as the play's pod tag, and back.
    fn tag(self) -> u8 {
        Self::ALL
            .iter()
            .position(|g| *g == self)
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(0)
    }

    fn of_tag(tag: u8) -> PodGroup {
        Self::ALL
            .get(usize::from(tag))
            .copied()
            .unwrap_or(PodGroup::Created)
    }
}

/// Long ago, in the model's milliseconds (a pod available before the start).
const LONG_AGO: i64 = i64::MIN / 4;

/// Milliseconds from seconds (saturating, never negative).
fn millis(seconds: f64) -> i64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 0;
    }
    (seconds * 1000.0).min(1e15) as i64
}

/// Plays the rollout of `deployment` (wire JSON) over `replica_sets` and `pods` (wire
/// JSON; with no pods, each ReplicaSet's pods are read from its status counts).
pub fn forecast(
    deployment: &Value,
    replica_sets: &[Value],
    pods: &[Value],
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
    let pods = pods
        .iter()
        .enumerate()
        .map(|(i, v)| {
            crate::input::from_value::<Pod>(v.clone()).map_err(|e| e.under(&format!("pods[{i}]")))
        })
        .collect::<Result<Vec<Pod>>>()?;
    forecast_over(deployment, replica_sets, &pods, options)
}

/// [`forecast`] over objects already read.
pub(crate) fn forecast_over(
    deployment: Wire<Deployment>,
    replica_sets: Vec<Rs>,
    pods: &[Pod],
    options: &ForecastOptions,
) -> Result<Forecast> {
    let mut player = Player::new(deployment, options);
    player.start_from(replica_sets, pods)?;
    player.play()
}

/// The seeded start-up model of the pods the ReplicaSet controller creates.
struct Starter {
    rng: Rng,
    failure: FailureModel,
    startup: i64,
    jitter: i64,
    /// With the observed model: the new template's observed pods all never become ready.
    new_template_fails: bool,
}

struct Player<'o> {
    options: &'o ForecastOptions,
    starter: Starter,
    play: Play,
    min_ready: i64,
    interval: i64,
    assumptions: Vec<PodAssumption>,
}

impl Starter {
    /// A pod created at `t`: when it is ready, by the seeded model.
    fn start_pod(&mut self, t: i64, new_template: bool) -> SimPod {
        let fails = new_template
            && match self.failure {
                FailureModel::Observed => self.new_template_fails,
                FailureModel::None => false,
                FailureModel::NeverReadyFraction { fraction } => self.rng.chance(fraction),
                FailureModel::NewTemplateFails => true,
            };
        let ready = if fails {
            None
        } else {
            let extra = if self.jitter > 0 {
                i64::try_from(
                    self.rng
                        .below(u64::try_from(self.jitter).unwrap_or(0).saturating_add(1)),
                )
                .unwrap_or(0)
            } else {
                0
            };
            Some(t.saturating_add(self.startup).saturating_add(extra))
        };
        SimPod {
            name: String::new(),
            created: t,
            ready,
            restarts: 0,
            group: PodGroup::Created,
        }
    }
}

impl<'o> Player<'o> {
    fn new(deployment: Wire<Deployment>, options: &'o ForecastOptions) -> Self {
        let min_ready = i64::from(deployment.spec.min_ready_seconds.max(0)).saturating_mul(1000);
        Player {
            options,
            starter: Starter {
                rng: Rng::new(options.seed),
                failure: options.failure.clone(),
                startup: millis(options.startup_seconds),
                jitter: millis(options.startup_jitter_seconds),
                new_template_fails: false,
            },
            min_ready,
            interval: millis(options.interval_seconds).max(1),
            assumptions: Vec::new(),
            play: Play::new(options.now, deployment),
        }
    }

    /// The model's cluster at the start: each ReplicaSet with its pods as the snapshot
    /// shows them (with no pod in the snapshot, as its status counts them), and what the
    /// forecast assumes of each group.
    fn start_from(&mut self, replica_sets: Vec<Rs>, observed: &[Pod]) -> Result<()> {
        let mut new_groups: BTreeMap<PodGroup, usize> = BTreeMap::new();
        for rs in replica_sets {
            let new = self.is_new(&rs);
            let pods = if observed.is_empty() {
                self.pods_from_status(&rs, new)
            } else {
                let owned: Vec<&Pod> = observed
                    .iter()
                    .filter(|p| pods::is_active(p))
                    .filter(|p| {
                        p.metadata.controller_ref().is_some_and(|o| {
                            !rs.metadata.uid.is_empty() && o.uid == rs.metadata.uid
                        })
                    })
                    .collect();
                self.observed_pods(&rs, new, &owned)
            };
            if new {
                for p in &pods {
                    *new_groups.entry(p.group).or_default() += 1;
                }
            }
            self.play.add_replica_set(rs.clone())?;
            for p in pods {
                self.play
                    .add_pod(&rs, &p.name, p.created, p.life(), p.group.tag());
            }
        }
        self.new_pods_assumption(&new_groups);
        Ok(())
    }

    /// A ReplicaSet's pods from its status: the available ones long available, the rest
    /// starting now.
    fn pods_from_status(&mut self, rs: &Rs, new: bool) -> Vec<SimPod> {
        let n = usize::try_from(rs.spec.desired().max(0)).unwrap_or(0);
        let up = usize::try_from(rs.status.available_replicas.max(0))
            .unwrap_or(0)
            .min(n);
        let pods: Vec<SimPod> = (0..n)
            .map(|i| {
                if i < up {
                    SimPod {
                        name: String::new(),
                        created: LONG_AGO,
                        ready: Some(LONG_AGO),
                        restarts: 0,
                        group: PodGroup::FromStatus,
                    }
                } else {
                    SimPod {
                        group: PodGroup::FromStatus,
                        ..self.starter.start_pod(0, new)
                    }
                }
            })
            .collect();
        if n > 0 {
            let starting = pods.iter().skip(up).filter(|p| p.ready.is_some()).count();
            let failing = n - up - starting;
            let mut assumed = vec![format!("{up} available")];
            if starting > 0 {
                assumed.push(format!(
                    "{starting} ready {}s from now",
                    seconds(self.starter.startup)
                ));
            }
            if failing > 0 {
                assumed.push(format!("{failing} never ready (the failure model)"));
            }
            self.assumptions.push(PodAssumption {
                replica_set: rs.metadata.name.clone(),
                new,
                group: PodGroup::FromStatus,
                pods: n,
                unready_seconds: None,
                restarts: 0,
                ready: failing == 0,
                assumed: assumed.join(", "),
                overridden: failing > 0,
            });
        }
        pods
    }

    /// A ReplicaSet's observed (active, owned) pods, in groups.
    fn observed_pods(&mut self, rs: &Rs, new: bool, owned: &[&Pod]) -> Vec<SimPod> {
        let now = self.options.now;
        let offset = |t: Time| {
            now.since(t)
                .as_nanos()
                .saturating_div(1_000_000)
                .saturating_neg()
        };
        let min_ready_seconds = self.play.deployment.spec.min_ready_seconds;
        let mut groups: BTreeMap<PodGroup, (Vec<SimPod>, i64, i32)> = BTreeMap::new();
        for pod in owned {
            let created = pod.metadata.creation_timestamp.map_or(0, offset);
            let restarts = pods::max_container_restarts(pod);
            let (group, ready, since) = if pods::is_available(pod, min_ready_seconds, now) {
                (PodGroup::Available, Some(LONG_AGO), None)
            } else if let Some(ready) = pods::ready_state(pod) {
                (PodGroup::Ready, Some(ready.map_or(0, offset)), None)
            } else {
                // Unready since its Ready condition last changed (else since its creation).
                let since = pod
                    .status
                    .conditions
                    .iter()
                    .find(|c| c.type_ == "Ready")
                    .and_then(|c| c.last_transition_time)
                    .map_or(created, offset)
                    .max(created);
                let group = if restarts > 0 {
                    PodGroup::CrashLooping
                } else if since.saturating_neg() > self.starter.startup {
                    PodGroup::Unready
                } else {
                    PodGroup::Starting
                };
                (group, None, Some(since))
            };
            let ready =
                ready.or_else(|| self.observed_ready_at(group, new, since.unwrap_or(created)));
            let entry = groups.entry(group).or_insert((Vec::new(), 0, 0));
            entry.0.push(SimPod {
                name: pod.metadata.name.clone(),
                created,
                ready,
                restarts,
                group,
            });
            entry.1 = entry.1.max(since.map_or(0, i64::saturating_neg));
            entry.2 = entry.2.max(restarts);
        }
        let mut out = Vec::new();
        for (group, (pods, unready, restarts)) in groups {
            let ready = pods.iter().all(|p| p.ready.is_some());
            let observed_ready = matches!(
                group,
                PodGroup::Available | PodGroup::Ready | PodGroup::Starting
            );
            let assumed = match (group, ready) {
                (PodGroup::Available, _) => "stay available".to_owned(),
                (PodGroup::Ready, _) if self.min_ready > 0 => format!(
                    "available {}s after they became ready",
                    seconds(self.min_ready)
                ),
                (PodGroup::Ready, _) => "stay available".to_owned(),
                (PodGroup::Starting, true) => {
                    format!(
                        "ready {}s after their creation",
                        seconds(self.starter.startup)
                    )
                }
                (_, true) => format!("ready {}s from now", seconds(self.starter.startup)),
                (_, false) => "never ready".to_owned(),
            };
            self.assumptions.push(PodAssumption {
                replica_set: rs.metadata.name.clone(),
                new,
                group,
                pods: pods.len(),
                unready_seconds: (!matches!(group, PodGroup::Available | PodGroup::Ready))
                    .then_some(unready as f64 / 1000.0),
                restarts,
                ready,
                assumed,
                overridden: ready != observed_ready,
            });
            out.extend(pods);
        }
        out
    }

    /// When an observed unready pod of `group` becomes ready (unready since `since`), if
    /// ever: as observed, or as the failure model overrides.
    fn observed_ready_at(&self, group: PodGroup, new: bool, since: i64) -> Option<i64> {
        let starting = since.saturating_add(self.starter.startup).max(0);
        match (&self.options.failure, group) {
            (FailureModel::NewTemplateFails, _) if new => None,
            (FailureModel::None, PodGroup::Unready | PodGroup::CrashLooping) => {
                Some(self.starter.startup)
            }
            (_, PodGroup::Starting) => Some(starting),
            _ => None,
        }
    }

    /// What the pods the controllers create for the new template do: with the observed
    /// model, they fail when every observed pod of the new template does.
    fn new_pods_assumption(&mut self, new_groups: &BTreeMap<PodGroup, usize>) {
        let observed: usize = new_groups.values().sum();
        let failing: usize = [PodGroup::Unready, PodGroup::CrashLooping]
            .iter()
            .filter_map(|g| new_groups.get(g))
            .sum();
        self.starter.new_template_fails = observed > 0 && failing == observed;
        let startup = format!(
            "ready {}s after their creation",
            seconds(self.starter.startup)
        );
        let (ready, assumed, overridden) = match &self.options.failure {
            FailureModel::Observed if self.starter.new_template_fails => (
                false,
                format!(
                    "never ready, as the new template's {} observed",
                    plural(observed, "pod")
                ),
                false,
            ),
            FailureModel::Observed | FailureModel::None => (true, startup, false),
            FailureModel::NeverReadyFraction { fraction } => (
                *fraction < 1.0,
                format!("{startup}, but each never with probability {fraction}"),
                true,
            ),
            FailureModel::NewTemplateFails => (false, "never ready".to_owned(), true),
        };
        let replica_set = self
            .play
            .replica_sets
            .iter()
            .find(|rs| self.is_new(rs))
            .map(|rs| rs.metadata.name.clone())
            .unwrap_or_default();
        self.assumptions.push(PodAssumption {
            replica_set,
            new: true,
            group: PodGroup::Created,
            pods: 0,
            unready_seconds: None,
            restarts: 0,
            ready,
            assumed,
            overridden,
        });
    }

    /// Is `rs` of the deployment's current template?
    fn is_new(&self, rs: &Rs) -> bool {
        self.play.is_new(rs)
    }

    /// The ReplicaSet controller at `t` (the engine's, in the play): pods shown as they
    /// are at `t`, every ReplicaSet key due synced.
    fn reconcile_replica_sets(&mut self, t: i64) -> Result<()> {
        self.play.advance_pods(t)?;
        let starter = &mut self.starter;
        self.play.run_replica_sets(t, &mut |at, new| {
            let p = starter.start_pod(at, new);
            (p.life(), p.group.tag())
        })?;
        Ok(())
    }

    /// One Deployment sync at `t`, its calls applied to the model.
    fn sync(&mut self, t: i64, decided: &mut StepCalls) -> Result<ProgressRequeue> {
        self.play.sync_deployment(t, decided)
    }

    /// (new replicas, old replicas, pods, available) now.
    fn counts(&self) -> (i32, i32, i32, i32) {
        let c = self.play.counts();
        (c.new, c.old, c.pods, c.available)
    }

    /// The next instant something changes: a pod becoming ready or available, or the
    /// controller's requeue; rounded up to the interval.
    fn next_event(&self, t: i64, requeue: Option<i64>) -> Option<i64> {
        let next = self
            .play
            .next_event(t)
            .into_iter()
            .chain(requeue.filter(|&e| e > t))
            .min()?;
        let rounded = next
            .saturating_add(self.interval - 1)
            .div_euclid(self.interval)
            .saturating_mul(self.interval);
        Some(rounded.max(t.saturating_add(1)))
    }

    fn play(mut self) -> Result<Forecast> {
        let max = millis(self.options.max_seconds);
        let d = &self.play.deployment;
        let (r, surge, unavailable) = (d.replicas(), max_surge(d), max_unavailable(d));
        let recreate = d.spec.strategy.type_ == RECREATE;
        let mut forecast = Forecast {
            deployment: format!("{}/{}", d.metadata.namespace, d.metadata.name),
            strategy: d.spec.strategy.type_.clone(),
            replicas: r,
            max_surge: surge,
            max_unavailable: unavailable,
            assumptions: std::mem::take(&mut self.assumptions),
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
            self.reconcile_replica_sets(t)?;
            for _ in 0..SYNCS_PER_INSTANT {
                let mut decided = StepCalls::default();
                let r = self.sync(t, &mut decided)?;
                forecast.syncs += 1;
                self.reconcile_replica_sets(t)?;
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
                    let d = &self.play.deployment;
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
            let d = &self.play.deployment;
            let seconds = t as f64 / 1000.0;
            if new == r && old == 0 && pods == r && available == r {
                forecast.end = ForecastEnd::Complete { seconds };
                break;
            }
            // Past the progress deadline the controllers keep going when pods become
            // ready: only a rollout with nothing left to happen is stalled there.
            let timed_out = d
                .status
                .condition(reason::PROGRESSING)
                .filter(|c| c.reason == reason::TIMED_OUT)
                .map(|c| c.reason.clone());
            if let Some(reason) = timed_out.filter(|_| self.next_event(t, None).is_none()) {
                forecast.end = ForecastEnd::Stalled {
                    seconds,
                    reason,
                    why: self.stall_why(counts),
                };
                break;
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

    /// Why nothing moves any more, in the forecast's own counts: the new ReplicaSets'
    /// pods that never become ready, by group.
    fn stall_why(&self, (_new, old, pods, available): (i32, i32, i32, i32)) -> String {
        let d = &self.play.deployment;
        let new_sets: Vec<&str> = self
            .play
            .replica_sets
            .iter()
            .filter(|rs| self.is_new(rs))
            .map(|rs| rs.metadata.name.as_str())
            .collect();
        let new_pods: Vec<&PlayPod> = self
            .play
            .pods
            .values()
            .filter(|p| new_sets.contains(&p.replica_set.as_str()))
            .collect();
        let mut never: BTreeMap<PodGroup, usize> = BTreeMap::new();
        for p in new_pods.iter().filter(|p| p.life.ready.is_none()) {
            *never.entry(PodGroup::of_tag(p.tag)).or_default() += 1;
        }
        let total: usize = never.values().sum();
        let groups = never
            .iter()
            .map(|(g, n)| format!("{n} {}", g.words()))
            .collect::<Vec<_>>()
            .join(", ");
        let never = if total == 0 {
            format!(
                "the new ReplicaSet's {} wait for nothing",
                plural(new_pods.len(), "pod")
            )
        } else {
            format!(
                "{total} of the new ReplicaSet's {} never become ready ({groups})",
                plural(new_pods.len(), "pod")
            )
        };
        format!(
            "{never}; {available} of {pods} pods available, {old} old replicas kept: \
             maxUnavailable {} allows at most that many unavailable and maxSurge {} at most {} pods",
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
            self.play.deployment.replicas(),
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
    if !f.assumptions.is_empty() {
        let _ = writeln!(out, "Starting from the cluster as it is:");
    }
    for a in &f.assumptions {
        let _ = writeln!(out, "  {}", assumption_text(a));
    }
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

/// One assumption in words: `web-5d8 (new): 3 crash-looping (unready for 12m, up to 7
/// restarts): never ready, as observed`.
fn assumption_text(a: &PodAssumption) -> String {
    let which = if a.new { "new" } else { "old" };
    let whose = if a.replica_set.is_empty() {
        format!("the new template's ReplicaSet ({which})")
    } else {
        format!("{} ({which})", a.replica_set)
    };
    let by = if a.overridden {
        "by the failure model, over what the cluster shows"
    } else if a.group == PodGroup::Created || a.group == PodGroup::FromStatus {
        "by the model"
    } else {
        "as observed"
    };
    if a.group == PodGroup::Created {
        return format!("{whose}: pods created in the forecast: {}, {by}", a.assumed);
    }
    let mut detail = Vec::new();
    if let Some(u) = a
        .unready_seconds
        .filter(|_| a.group != PodGroup::FromStatus)
    {
        detail.push(format!("unready for {}", duration_words(u)));
    }
    if a.restarts > 0 {
        detail.push(format!(
            "up to {}",
            plural(usize::try_from(a.restarts).unwrap_or(0), "restart")
        ));
    }
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(" ({})", detail.join(", "))
    };
    format!(
        "{whose}: {} {}{detail}: {}, {by}",
        a.pods,
        a.group.words(),
        a.assumed
    )
}

/// Seconds in words as `age` writes them (`45s`, `12m`).
fn duration_words(s: f64) -> String {
    let t = Time::from_unix_seconds(0);
    age(
        t.plus(Duration::from_nanos(millis(s).saturating_mul(1_000_000))),
        t,
    )
}

/// Milliseconds as seconds for a message (`10`, `2.5`).
fn seconds(ms: i64) -> String {
    trim_seconds(ms as f64 / 1000.0)
}

fn trim_seconds(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}
