//! A seeded cluster simulator around the engine: a virtual clock, an API server with
//! resourceVersions, quota and admission failures, a watch with delays and drops, a
//! kubelet model (scheduling, start, readiness, crash loops, readiness flaps), and the
//! ReplicaSet controller loop itself (event rules, expectations, the rate-limited work
//! queue, `plan` → calls → `complete`). A scenario may start from a Deployment instead
//! of owners: the Deployment controller loop ([`deployment`]) then runs the engine's
//! Deployment sync beside it, and the ReplicaSet controller runs the ReplicaSets the
//! Deployment makes. Pure and deterministic: no I/O, no clock, and every random draw
//! comes from the scenario's seed, so a scenario replays to the identical trace.
//!
//! ```
//! use replicore_sim::{Scenario, Simulator};
//! # fn main() -> Result<(), replicore::Error> {
//! let mut sim = Simulator::new(Scenario::new(7, 10))?;
//! sim.advance(60_000); // one virtual minute
//! let state = sim.state();
//! assert_eq!(state.owner.counts.active, 10);
//! // The first sync created the pods in slow-start batches 1, 2, 4, 3.
//! let first = sim.syncs().find(|s| s.action == "create").map(|s| s.batches.iter().flatten().map(|b| b.size).collect::<Vec<_>>());
//! assert_eq!(first, Some(vec![1, 2, 4, 3]));
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod apiserver;
pub mod clock;
pub mod controller;
pub mod deployment;
mod edits;
pub mod hpa;
pub mod kubelet;
pub mod queue;
/// The seeded generator (the engine's: the rollout forecast draws from it too).
pub use replicore::rng;
pub mod scenario;
pub mod state;
pub mod trace;
pub mod watch;

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use replicore::error::{Error, Result};
use replicore::model::{
    LabelSelector, ObjectMeta, Pod, PodTemplateSpec, ReplicaSet, ReplicaSetSpec, TemplateMeta,
};
use replicore::time::Time;
use replicore::Event;

use apiserver::{ApiServer, Change};
use clock::{Agenda, Clock, Ms, Phase};
use controller::Controller;
pub use deployment::{DeploymentSample, DeploymentStep, SimDeployment, SimLane};
pub use hpa::{HpaCallTrace, HpaSyncTrace, SimHpa, SimHpaEvent};
use kubelet::{Action, PodLife};
use rng::Rng;
use scenario::EffectiveDelays;
pub use scenario::{
    DelayMs, Delays, Edit, Faults, HpaPods, Nodes, Scenario, ScenarioDeployment, ScenarioHpa,
    ScenarioOwner, TemplateFailure, TimedEdit,
};
pub use state::{Sample, SimState};
use trace::{SyncTrace, Trace, TraceEntry, What};
use watch::Informer;

/// Recent controller events kept for `state().events`.
pub const EVENTS_CAPACITY: usize = 100;
/// Samples kept for `history()` (the oldest go first).
pub const HISTORY_CAPACITY: usize = 20_000;
/// At most this many events per `advance` call (a guard; a run never needs it).
pub const ADVANCE_LIMIT: usize = 5_000_000;
/// The virtual clock's start when the scenario names none.
pub const DEFAULT_START: &str = "2026-01-01T00:00:00Z";

/// Something due at a virtual time.
#[derive(Clone, Debug)]
pub(crate) enum Ev {
    Deliver(Box<Change>),
    Relist,
    Resync,
    Kubelet {
        key: String,
        uid: String,
        action: Action,
    },
    QueueFire(String),
    Work,
    Edit(Box<Edit>),
    DeploymentQueueFire(String),
    DeploymentWork,
    HpaSync,
}

/// A Kubernetes event the controller recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimEvent {
    pub t: Ms,
    pub at: Time,
    pub owner: String,
    #[serde(flatten)]
    pub event: Event,
}

/// The simulation.
#[derive(Clone, Debug)]
pub struct Simulator {
    scenario: Scenario,
    /// Edits applied through [`Simulator::apply`], with their times.
    applied: Vec<TimedEdit>,
    clock: Clock,
    agenda: Agenda<Ev>,
    rng: Rng,
    api: ApiServer,
    informer: Informer,
    nodes: Vec<String>,
    lives: BTreeMap<String, PodLife>,
    ctrl: Controller,
    /// The Deployment controller (idle unless the scenario has a Deployment).
    dctrl: deployment::DeploymentController,
    /// The HPA controller (when the scenario has an HPA).
    hpa: Option<Box<hpa::HpaController>>,
    delays: EffectiveDelays,
    faults: Faults,
    trace: Trace,
    history: VecDeque<Sample>,
    events: VecDeque<SimEvent>,
    /// Owner keys in creation order; the first is the primary owner.
    owner_keys: Vec<String>,
    worker_pending: bool,
    /// Keep each sync's whole input in the trace (tests; off by default: memory).
    keep_inputs: bool,
    resync_pending: bool,
}

fn owner_object(o: &ScenarioOwner, uid: String, deployment_uid: String, start: Time) -> ReplicaSet {
    let name = o.name.clone().unwrap_or_else(|| "web".into());
    let mut labels = BTreeMap::new();
    labels.insert("app".to_owned(), name.clone());
    ReplicaSet {
        api_version: Some("apps/v1".into()),
        kind: Some("ReplicaSet".into()),
        metadata: ObjectMeta {
            name,
            namespace: o.namespace.clone().unwrap_or_else(|| "default".into()),
            uid,
            generation: Some(1),
            creation_timestamp: Some(start),
            // Owned by a Deployment, as ReplicaSets usually are: its pods count as related
            // for the co-location rule (R-45, R-71).
            owner_references: vec![replicore::model::OwnerReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: o.name.clone().unwrap_or_else(|| "web".into()),
                uid: deployment_uid,
                controller: Some(true),
                block_owner_deletion: Some(true),
            }],
            ..ObjectMeta::default()
        },
        spec: ReplicaSetSpec {
            replicas: Some(o.replicas),
            min_ready_seconds: o.min_ready_seconds.unwrap_or(0),
            selector: Some(LabelSelector {
                match_labels: Some(labels.clone()),
                match_expressions: None,
            }),
            template: PodTemplateSpec {
                metadata: Some(TemplateMeta {
                    labels: Some(labels),
                    annotations: None,
                    finalizers: Vec::new(),
                }),
                spec: serde_json::json!({"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}),
            },
        },
        status: Default::default(),
    }
}

/// The latest timestamp of an imported cluster (so nothing is in the future at `t = 0`).
fn latest_time(owners: &[ReplicaSet], pods: &[Pod]) -> Option<Time> {
    let owner_times = owners.iter().filter_map(|o| o.metadata.creation_timestamp);
    let pod_times = pods.iter().flat_map(|p| {
        p.metadata.creation_timestamp.into_iter().chain(
            p.status
                .conditions
                .iter()
                .filter_map(|c| c.last_transition_time),
        )
    });
    owner_times.chain(pod_times).max()
}

impl Simulator {
    /// Starts a simulation at virtual time 0: the owners and pods in the store, the
    /// informers synced, every object handed to the event rules (the controller's start).
    pub fn new(scenario: Scenario) -> Result<Simulator> {
        scenario.validate()?;
        let mut rng = Rng::new(scenario.seed);
        let config = scenario.config.clone().unwrap_or_default();
        let (imported_owners, imported_pods) = match &scenario.cluster {
            Some(list) => replicore::explain::snapshot_of(list.clone(), &config.owner_kind.kind)
                .map_err(|e| e.under("cluster"))?,
            None => (Vec::new(), Vec::new()),
        };
        let start = match &scenario.start {
            Some(s) => Time::parse(s)
                .map_err(|e| Error::Malformed {
                    path: "start".into(),
                    message: e.to_string(),
                })?
                .ok_or_else(|| Error::Malformed {
                    path: "start".into(),
                    message: "the zero time cannot start a simulation".into(),
                })?,
            None => match latest_time(&imported_owners, &imported_pods) {
                Some(t) => t,
                None => Time::parse(DEFAULT_START)
                    .ok()
                    .flatten()
                    .unwrap_or(Time::from_unix_seconds(1_767_225_600)),
            },
        };
        let mut owners: Vec<ReplicaSet> = imported_owners;
        let declared: Vec<ScenarioOwner> = match (&scenario.owners, &scenario.cluster) {
            (Some(list), _) => list.clone(),
            (None, Some(_)) => Vec::new(),
            (None, None) if scenario.deployment.is_some() => Vec::new(),
            (None, None) => vec![ScenarioOwner {
                name: None,
                namespace: None,
                replicas: scenario.replicas.unwrap_or(0),
                min_ready_seconds: None,
            }],
        };
        for (i, o) in declared.iter().enumerate() {
            let uid = apiserver::new_uid(&mut rng);
            let rs = owner_object(o, uid, apiserver::new_uid(&mut rng), start);
            if owners.iter().any(|x| x.metadata.key() == rs.metadata.key()) {
                return Err(Error::Malformed {
                    path: format!("owners[{i}].name"),
                    message: format!(
                        "owner {} is given twice",
                        replicore::error::capped(&rs.metadata.key())
                    ),
                });
            }
            owners.push(rs);
        }
        if owners.is_empty() && scenario.deployment.is_none() {
            return Err(Error::Missing {
                path: "owners".into(),
            });
        }
        let mut nodes = scenario
            .nodes
            .as_ref()
            .map_or_else(|| Nodes::Count(3).names(), Nodes::names);
        for p in &imported_pods {
            let n = p.node_name();
            if !n.is_empty() && !nodes.iter().any(|x| x == n) {
                nodes.push(n.to_owned());
            }
        }
        let mut api = ApiServer::default();
        api.quota = scenario.quota;
        let owner_keys: Vec<String> = owners.iter().map(|o| o.metadata.key()).collect();
        let mut initial: Vec<Change> = Vec::new();
        for rs in owners {
            initial.push(api.put_owner(rs));
        }
        for p in imported_pods {
            initial.push(api.put_pod(p));
        }
        let delays = EffectiveDelays::default()
            .merged(scenario.delays.as_ref().unwrap_or(&Delays::default()));
        let faults = scenario.faults.clone().unwrap_or_default();
        let mut sim = Simulator {
            applied: Vec::new(),
            clock: Clock::new(start),
            agenda: Agenda::default(),
            rng,
            api,
            informer: Informer::default(),
            nodes,
            lives: BTreeMap::new(),
            ctrl: Controller {
                config,
                ..Controller::default()
            },
            dctrl: deployment::DeploymentController::default(),
            hpa: None,
            delays,
            faults,
            trace: Trace::default(),
            history: VecDeque::new(),
            events: VecDeque::new(),
            owner_keys,
            worker_pending: false,
            keep_inputs: false,
            resync_pending: false,
            scenario,
        };
        if let Some(d) = sim.scenario.deployment.clone() {
            if let Some(h) = sim.scenario.hpa.clone() {
                let name = d.name.as_deref().unwrap_or("web");
                let namespace = d.namespace.as_deref().unwrap_or("default");
                sim.hpa = Some(Box::new(hpa::HpaController::new(
                    &h,
                    (namespace, name),
                    start,
                    sim.scenario.seed,
                )?));
                let t = sim.clock.now();
                sim.agenda.at_phase(t, Phase::Hpa, Ev::HpaSync);
            }
            initial.push(sim.create_deployment(&d)?);
            if d.settled == Some(true) {
                initial.extend(sim.settle_deployment()?);
            }
        }
        // The informers' initial list: every object delivered at t = 0, in store order.
        for change in initial {
            if let apiserver::Object::Pod(p) = &change.object {
                let p = (**p).clone();
                sim.kubelet_adopt_initial(&p);
            }
            sim.deliver(change);
        }
        sim.schedule_resync();
        let edits = sim.scenario.edits.clone();
        for e in edits {
            sim.agenda
                .at_phase(e.at, Phase::Edit, Ev::Edit(Box::new(e.edit)));
        }
        sim.after_event();
        Ok(sim)
    }

    /// The next owner resync, when resyncs are on and none is scheduled.
    pub(crate) fn schedule_resync(&mut self) {
        if self.delays.resync > 0 && !self.resync_pending {
            self.resync_pending = true;
            let t = self.clock.now().saturating_add(self.delays.resync);
            self.agenda.at(t, Ev::Resync);
        }
    }

    /// Keep the whole engine input of every sync in the trace ([`SyncTrace::full_input`]),
    /// for checking decisions after the fact. Off by default (it costs memory).
    pub fn keep_sync_inputs(&mut self, keep: bool) {
        self.keep_inputs = keep;
    }

    /// A simulation from scenario JSON text.
    pub fn from_json(bytes: &[u8]) -> Result<Simulator> {
        Simulator::new(Scenario::from_json(bytes)?)
    }

    pub(crate) fn record(&mut self, what: What) {
        let t = self.clock.now();
        let at = self.clock.now_instant();
        self.trace.push(t, at, what);
    }

    fn process(&mut self, ev: Ev) {
        match ev {
            Ev::Deliver(change) => self.deliver(*change),
            Ev::Relist => self.relist(),
            Ev::Resync => {
                self.resync_pending = false;
                if self.delays.resync > 0 {
                    self.resync();
                    self.schedule_resync();
                }
            }
            Ev::Kubelet { key, uid, action } => self.kubelet(&key, &uid, action),
            Ev::QueueFire(key) => {
                let t = self.clock.now();
                self.ctrl.queue.fire(&key, t);
            }
            Ev::Work => self.work(),
            Ev::Edit(edit) => {
                let error = self.apply_edit(&edit).err().map(|e| e.to_string());
                self.record(What::Edit { edit: *edit, error });
            }
            Ev::DeploymentQueueFire(key) => self.deployment_fire(&key),
            Ev::DeploymentWork => self.deployment_work(),
            Ev::HpaSync => self.hpa_sync(),
        }
        self.after_event();
    }

    fn after_event(&mut self) {
        self.kick();
        self.sample();
        if self.dctrl.key.is_some() {
            self.deployment_kick();
            self.deployment_sample();
        }
    }

    /// Processes the next event in virtual time; false when nothing is scheduled.
    /// Events due after the [`Simulator::horizon`] never run.
    pub fn step(&mut self) -> bool {
        match self.agenda.pop_until(self.horizon()) {
            Some((t, ev)) => {
                self.clock.set(t);
                self.process(ev);
                true
            }
            None => false,
        }
    }

    /// Processes every event due up to `now + ms` and moves the clock there; returns how
    /// many events ran.
    /// The clock stops at the [`Simulator::horizon`] (see [`Simulator::try_advance`]).
    pub fn advance(&mut self, ms: Ms) -> usize {
        let target = self.clock.now().saturating_add(ms).min(self.horizon());
        let n = self.run_until(target);
        self.clock.set(target);
        n
    }

    /// [`Simulator::advance`], refusing to go past the [`Simulator::horizon`] (a time JS
    /// numbers or engine instants cannot represent): the simulator stays usable.
    pub fn try_advance(&mut self, ms: Ms) -> Result<usize> {
        let now = self.clock.now();
        let horizon = self.horizon();
        match now.checked_add(ms) {
            Some(target) if target <= horizon => Ok(self.advance(ms)),
            _ => Err(Error::Malformed {
                path: "ms".into(),
                message: format!(
                    "{ms} ms from t={now} passes the simulation's horizon, t={horizon} (the last time a JS number and an engine instant both hold)"
                ),
            }),
        }
    }

    /// The last virtual time the simulation reaches: 2^53 − 1 ms (JS numbers), or the
    /// last engine instant (year 2262), whichever comes first.
    pub fn horizon(&self) -> Ms {
        let left = i64::MAX.saturating_sub(self.clock.start().unix_nanos()) / 1_000_000;
        // A day short of the end: the engine's own delays (requeues, TTLs) stay in range.
        let left = u64::try_from(left.saturating_sub(86_400_000)).unwrap_or(0);
        left.min(clock::MAX_MS)
    }

    fn run_until(&mut self, target: Ms) -> usize {
        let mut n = 0;
        while n < ADVANCE_LIMIT {
            let Some((t, ev)) = self.agenda.pop_until(target) else {
                break;
            };
            self.clock.set(t);
            self.process(ev);
            n += 1;
        }
        n
    }

    /// Applies an edit now, after the events still due at this instant, and records it
    /// (with its time) in [`Simulator::scenario`] for replay. An edit that fails changes
    /// nothing and is not recorded.
    pub fn apply(&mut self, edit: Edit) -> Result<()> {
        edit.validate("edit")?;
        let now = self.clock.now();
        self.run_until(now);
        self.apply_edit(&edit)?;
        self.record(What::Edit {
            edit: edit.clone(),
            error: None,
        });
        self.applied.push(TimedEdit { at: now, edit });
        self.after_event();
        Ok(())
    }

    /// The scenario with every edit applied so far: replaying it (and advancing to the
    /// same time) gives the identical run.
    pub fn scenario(&self) -> Scenario {
        let mut s = self.scenario.clone();
        s.edits.extend(self.applied.iter().cloned());
        replicore::sort::sort_by_key(&mut s.edits, |e| e.at);
        s
    }

    /// Trace entries with `seq >= since`.
    pub fn trace(&self, since: u64) -> impl Iterator<Item = &TraceEntry> {
        self.trace.since(since)
    }

    /// The syncs in the trace, in order.
    pub fn syncs(&self) -> impl Iterator<Item = &SyncTrace> {
        self.trace.since(0).filter_map(|e| match &e.what {
            What::Sync { sync } => Some(&**sync),
            _ => None,
        })
    }

    /// Desired/current/ready/available of the primary owner over virtual time.
    pub fn history(&self) -> impl Iterator<Item = &Sample> {
        self.history.iter()
    }

    /// Virtual ms since the start.
    pub fn now(&self) -> Ms {
        self.clock.now()
    }

    /// The engine instant of now.
    pub fn now_instant(&self) -> Time {
        self.clock.now_instant()
    }

    /// The API server's pods (the truth), by `namespace/name`.
    pub fn pods(&self) -> impl Iterator<Item = &Pod> {
        self.api.pods.values()
    }

    /// The API server's owner of `key` (`namespace/name`).
    pub fn owner(&self, key: &str) -> Option<&ReplicaSet> {
        self.api.owners.get(key)
    }

    /// The primary owner's key.
    pub fn primary_key(&self) -> &str {
        self.owner_keys.first().map_or("", String::as_str)
    }

    /// The controller's configuration in effect.
    pub fn config(&self) -> &replicore::config::Config {
        &self.ctrl.config
    }

    /// Whether anything is scheduled.
    pub fn is_idle(&self) -> bool {
        self.agenda.is_empty()
    }

    /// Virtual time of the next scheduled event.
    pub fn next_event_time(&self) -> Option<Ms> {
        self.agenda.next_time().filter(|t| *t <= self.horizon())
    }
}
