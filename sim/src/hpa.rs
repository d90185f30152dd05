//! The HorizontalPodAutoscaler controller beside the Deployment one (a Deployment
//! scenario with `hpa`). Every sync period the engine's whole HPA sync ([`run_sync`],
//! every rule H-xx) runs with the simulation as its host, which restates no rule:
//! - it resolves the target (`apps/Deployment` → `deployments`), answers `GET …/scale`
//!   from the API server's Deployment, lists the pods from the controller's informer
//!   cache (so a watch delay shows), and answers each metric from the load model;
//! - a scale write sets the Deployment's `spec.replicas` through the API server (the
//!   watch carries it to the Deployment controller, which carries it to the
//!   ReplicaSets); a status write replaces the HPA's status;
//! - it keeps the memory the sync returns for the next sync, as the controller does,
//!   and requeues the key after the period the sync names.
//!
//! The metrics are the engine's load model (`replicore::hpa::load`) as the forecast
//! drives it ([`Driven::sample`]): the Ready pods of the Deployment (the API server's:
//! what the kubelets report) share the load, Running pods not yet Ready report their
//! start-up use, Pending pods nothing. The draws come from a stream of their own seeded
//! with the scenario's seed, one per Ready pod (oldest first) per per-pod metric and one
//! per Object or External metric, in `spec.metrics` order: the forecast's draws, so a run
//! whose kubelet matches the forecast's pod model replays the forecast.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use replicore::deployment::Wire;
use replicore::error::{Error, Result};
use replicore::hpa::forecast::{self, Driven, MetricLoad, PodModel, Row, Stage};
use replicore::hpa::machine::{GroupResource, HpaAnswer, HpaCall};
use replicore::hpa::model::{HpaCondition, HpaPod, Scale};
use replicore::hpa::{
    run_sync, HorizontalPodAutoscaler, HpaEvent, HpaForecastStep, HpaMemory, HpaSyncInput,
    LoadCurve, MetricResponse,
};
use replicore::model::Pod;
use replicore::pods;
use replicore::rng::Rng;
use replicore::time::Time;

use super::clock::{Ms, Phase};
use super::deployment::SimLane;
use super::scenario::{ScenarioHpa, DEFAULT_IMAGE};
use super::trace::What;
use super::{Ev, Simulator, EVENTS_CAPACITY, HISTORY_CAPACITY};

/// The HPA controller's own state.
#[derive(Clone, Debug)]
pub struct HpaController {
    /// `namespace/name`.
    pub key: String,
    /// The HPA as the API server holds it; the controller reads it fresh each sync.
    pub hpa: Wire<HorizontalPodAutoscaler>,
    /// The sync's settings (configuration, gates, key); the HPA and the memory are laid
    /// in at each sync.
    base: HpaSyncInput,
    /// What the previous sync left for the next one.
    pub memory: HpaMemory,
    pub load: LoadCurve,
    pub metric_loads: Vec<MetricLoad>,
    metrics: Vec<Driven>,
    /// The pods' container (a ContainerResource metric's) and their model.
    container: String,
    model: PodModel,
    /// The metrics' own draws (the forecast's stream).
    rng: Rng,
    pub syncs: VecDeque<HpaSyncTrace>,
    pub events: VecDeque<SimHpaEvent>,
}

/// One call of an HPA sync as the simulation answered it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HpaCallTrace {
    /// `resolveTarget`, `getScale`, `listPods`, `fetchMetric`, `updateScale`,
    /// `updateStatus`.
    pub call: &'static str,
    /// `spec.replicas` sent (`updateScale`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub replicas: Option<i32>,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// One HPA sync: what the forecast shows of a sync (`step`: load, metrics, replicas,
/// pods, conditions' reasons, events), the status conditions and the calls.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HpaSyncTrace {
    pub key: String,
    /// Virtual ms since the start.
    pub t: Ms,
    /// The sync as the forecast's step (`HpaForecastStep`; `seconds` since the start):
    /// a forecast of the same input has the same steps.
    pub step: HpaForecastStep,
    /// `status.conditions` after the sync.
    pub conditions: Vec<HpaCondition>,
    pub calls: Vec<HpaCallTrace>,
}

/// An event the HPA controller recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimHpaEvent {
    pub t: Ms,
    pub at: Time,
    pub hpa: String,
    #[serde(flatten)]
    pub event: HpaEvent,
}

/// The HPA as `state().hpa` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SimHpa {
    pub namespace: String,
    pub name: String,
    pub key: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub current_replicas: i32,
    pub desired_replicas: i32,
    pub conditions: Vec<HpaCondition>,
    /// The HPA object as the API server holds it (spec with defaults, status).
    #[cfg_attr(feature = "ts", ts(as = "replicore::ts::KubeObject"))]
    pub object: Value,
    /// The load now (the curve `load`) and each metric's.
    pub load: f64,
    pub metric_loads: Vec<f64>,
    /// The load curve in force and the per-metric loads.
    pub curve: LoadCurve,
    #[cfg_attr(feature = "ts", ts(as = "Vec<MetricLoad>"))]
    pub metrics: Vec<MetricLoad>,
    /// What the controller remembers for the next sync.
    pub memory: HpaMemory,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub last_sync: Option<HpaSyncTrace>,
    /// Recent events, oldest first.
    pub events: Vec<SimHpaEvent>,
}

/// `key=value,…` of a selector's `matchLabels` (the scale's `status.selector`).
fn selector_text(labels: Option<&std::collections::BTreeMap<String, String>>) -> String {
    labels
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// A pod's stage for its metrics: Running and Ready, Running, or neither.
fn stage_of(p: &Pod) -> Stage {
    if p.phase() != "Running" {
        Stage::Pending
    } else if pods::is_ready(p) {
        Stage::Ready
    } else {
        Stage::Starting
    }
}

fn not_found(resource: &str, name: &str) -> HpaAnswer {
    HpaAnswer::Error {
        reason: "NotFound".into(),
        message: format!("{resource} \"{name}\" not found"),
    }
}

impl HpaController {
    /// The scenario's HPA on the Deployment `namespace/name`, created at `now`.
    pub(crate) fn new(
        h: &ScenarioHpa,
        (namespace, name): (&str, &str),
        now: Time,
        seed: u64,
    ) -> Result<HpaController> {
        let mut object = h.hpa.clone();
        for (field, value) in [("namespace", namespace), ("name", name)] {
            let missing = object
                .pointer(&format!("/metadata/{field}"))
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if missing {
                super::apiserver::set_field(&mut object, &["metadata", field], value.into());
            }
        }
        let base = HpaSyncInput::from_value(json!({
            "now": now,
            "featureGates": h.feature_gates,
            "config": h.config,
            "hpa": object,
        }))
        .map_err(|e| e.under("hpa"))?;
        let model = h.pods.model();
        let (metrics, container) =
            forecast::driven(&base.hpa, &h.metrics, &model).map_err(|e| e.under("hpa"))?;
        Ok(HpaController {
            key: base.key.clone(),
            hpa: base.hpa.clone(),
            base,
            memory: HpaMemory::default(),
            load: h.load.clone(),
            metric_loads: h.metrics.clone(),
            metrics,
            container,
            model,
            rng: Rng::new(seed),
            syncs: VecDeque::new(),
            events: VecDeque::new(),
        })
    }

    /// The pod template's container: the image, the requests of the pod model.
    pub(crate) fn container(&self, image: Option<&str>) -> Value {
        json!({"name": self.container, "image": image.unwrap_or(DEFAULT_IMAGE),
            "resources": {"requests": {"cpu": format!("{}m", self.model.cpu_request_millis),
                "memory": format!("{}Mi", self.model.memory_request_mi)}}})
    }

    /// The load now and each metric's.
    fn loads(&self, seconds: f64) -> (f64, Vec<f64>) {
        let main = self.load.at(seconds);
        let each = self
            .metrics
            .iter()
            .map(|m| m.load_at(main, seconds))
            .collect();
        (main, each)
    }

    /// A cached pod as the HPA lists it: labels, the template's container with its
    /// requests, phase, start time (its creation) and Ready condition.
    fn listed(&self, p: &Pod) -> Option<HpaPod> {
        let mut status = json!({"phase": p.phase()});
        if let Some(created) = p.metadata.creation_timestamp {
            super::apiserver::set_field(&mut status, &["startTime"], json!(created));
        }
        let ready = p.status.conditions.iter().find(|c| c.type_ == "Ready");
        if let Some(c) = ready {
            super::apiserver::set_field(
                &mut status,
                &["conditions"],
                json!([{"type": "Ready", "status": c.status, "lastTransitionTime": c.last_transition_time}]),
            );
        }
        let mut metadata = json!({"name": p.metadata.name, "namespace": p.metadata.namespace,
            "labels": p.metadata.labels});
        if let Some(d) = p.metadata.deletion_timestamp {
            super::apiserver::set_field(&mut metadata, &["deletionTimestamp"], json!(d));
        }
        // Read through the text, as every input is (one reader of `HpaPod` in the module).
        replicore::input::from_value_any(json!({"metadata": metadata,
            "spec": {"containers": [self.container(None)]}, "status": status}))
        .ok()
    }
}

impl Simulator {
    /// The `setLoad` edit: the load from now on.
    pub(crate) fn set_load(
        &mut self,
        load: &LoadCurve,
        metrics: Option<&[MetricLoad]>,
    ) -> Result<()> {
        let Some(h) = self.hpa.as_mut() else {
            return Err(Error::Malformed {
                path: "edit.op".into(),
                message: "no HPA in the simulation".into(),
            });
        };
        if let Some(m) = metrics {
            let (drivers, _) =
                forecast::driven(&h.hpa, m, &h.model).map_err(|e| e.under("edit"))?;
            h.metrics = drivers;
            h.metric_loads = m.to_vec();
        }
        h.load = load.clone();
        Ok(())
    }

    /// The pods of the Deployment's ReplicaSets (`lanes`) in the API server (what the
    /// kubelets report), not terminating, oldest first.
    fn deployment_pods(&self, lanes: &[SimLane]) -> Vec<&Pod> {
        let uids: Vec<&str> = lanes
            .iter()
            .filter_map(|l| self.api.owners.get(&l.key))
            .map(|rs| rs.metadata.uid.as_str())
            .collect();
        let mut list: Vec<&Pod> = self
            .api
            .pods
            .values()
            .filter(|p| {
                p.metadata
                    .controller_ref()
                    .is_some_and(|r| uids.contains(&r.uid.as_str()))
                    && pods::is_active(p)
            })
            .collect();
        replicore::sort::sort_by(&mut list, |a, b| {
            (a.metadata.creation_timestamp, &a.metadata.name)
                .cmp(&(b.metadata.creation_timestamp, &b.metadata.name))
        });
        list
    }

    /// The scale subresource of the Deployment `namespace/name`.
    fn scale_of(&self, namespace: &str, name: &str) -> Option<Wire<Scale>> {
        let d = self.api.deployments.get(&format!("{namespace}/{name}"))?;
        let selector = selector_text(
            d.spec
                .selector
                .as_ref()
                .and_then(|s| s.match_labels.as_ref()),
        );
        Some(forecast::deployment_scale(d, &selector))
    }

    /// One `reconcileAutoscaler`, the engine deciding; the next sync after the period
    /// it names.
    pub(crate) fn hpa_sync(&mut self) {
        let Some(mut h) = self.hpa.take() else {
            return;
        };
        let t = self.clock.now();
        let now = self.clock.now_instant();
        let seconds = t as f64 / 1000.0;
        let (load, loads) = h.loads(seconds);
        let top = loads.iter().copied().fold(0.0, f64::max);

        // What the kubelets report: the metrics' answers, one per spec.
        // The Deployment's ReplicaSets, read once for the pods and the replica counts.
        let lanes = self.deployment().map(|d| self.lanes(d)).unwrap_or_default();
        let truth: Vec<(String, Stage)> = self
            .deployment_pods(&lanes)
            .into_iter()
            .map(|p| (p.metadata.name.clone(), stage_of(p)))
            .collect();
        let ready = truth.iter().filter(|(_, s)| *s == Stage::Ready).count();
        let window = (h.model.metric_window_seconds * 1000.0).round() as i64;
        let answers: Vec<Arc<MetricResponse>> = {
            let HpaController {
                metrics,
                model,
                rng,
                ..
            } = &mut *h;
            metrics
                .iter()
                .zip(&loads)
                .map(|(m, &l)| {
                    let pods = truth.iter().map(|(n, s)| (n.as_str(), *s, &*model));
                    Arc::new(m.sample(l, pods, ready, (now, window), model.noise, rng))
                })
                .collect()
        };
        let (new_replicas, old_replicas) = lanes.iter().fold((0, 0), |(n, o), l| {
            if l.new {
                (n + l.desired, o)
            } else {
                (n, o + l.desired)
            }
        });
        let namespace = h.hpa.metadata.namespace.clone();
        let listed: Arc<Vec<HpaPod>> = Arc::new(
            self.informer
                .pods
                .iter()
                .filter(|p| p.metadata.namespace == namespace)
                .filter_map(|p| h.listed(p))
                .collect(),
        );

        let mut input = h.base.clone();
        input.now = now;
        input.hpa = h.hpa.clone();
        input.memory = std::mem::take(&mut h.memory);
        let mut written: Option<Value> = None;
        let mut calls: Vec<HpaCallTrace> = Vec::new();
        let result = run_sync(input, |call| {
            let answer = self.hpa_call(call, &listed, &answers, &mut written);
            let error = match &answer {
                HpaAnswer::Error { message, .. } => Some(message.clone()),
                _ => None,
            };
            calls.push(HpaCallTrace {
                call: call.name(),
                replicas: match call {
                    HpaCall::UpdateScale { replicas, .. } => Some(*replicas),
                    _ => None,
                },
                ok: error.is_none(),
                error,
            });
            answer
        });
        let done = match result {
            Ok(done) => done,
            Err(e) => {
                // The engine refused its input: nothing more to do for this HPA.
                self.record(What::HpaInvalid {
                    key: h.key.clone(),
                    error: e.to_string(),
                });
                self.hpa = Some(h);
                return;
            }
        };
        h.memory = done.memory.clone();
        if let Some(object) = written {
            let mut typed = (*h.hpa.typed).clone();
            typed.status = done.status.clone();
            h.hpa = Wire::new(typed, object);
        }
        let replicas = self.deployment().map_or(0, |d| d.replicas());
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        let tolerance = h.base.config.tolerance;
        let step = forecast::step(
            &done.status,
            Row {
                seconds: i64::try_from(t / 1000).unwrap_or(i64::MAX),
                load,
                metrics: forecast::metric_rows(&h.metrics, &loads, &done.status),
                replicas,
                new_replicas,
                old_replicas,
                pods: count(truth.len()),
                ready_pods: count(ready),
                under_capacity: (ready as f64) * (1.0 + tolerance) < top,
                rescaled_to: done.rescaled_to,
                events: done.events.clone(),
                error: done.error.clone(),
            },
        );
        for ev in &done.events {
            if h.events.len() >= EVENTS_CAPACITY {
                h.events.pop_front();
            }
            h.events.push_back(SimHpaEvent {
                t,
                at: now,
                hpa: h.key.clone(),
                event: ev.clone(),
            });
        }
        let trace = HpaSyncTrace {
            key: h.key.clone(),
            t,
            step,
            conditions: done.status.conditions.clone().unwrap_or_default(),
            calls,
        };
        if h.syncs.len() >= HISTORY_CAPACITY {
            h.syncs.pop_front();
        }
        h.syncs.push_back(trace.clone());
        self.record(What::HpaSync {
            sync: Box::new(trace),
        });
        let after = u64::try_from(done.requeue_after_seconds.max(1)).unwrap_or(1) * 1000;
        self.agenda
            .at_phase(t.saturating_add(after), Phase::Hpa, Ev::HpaSync);
        self.hpa = Some(h);
    }

    /// One call of the HPA sync, answered from the simulation.
    fn hpa_call(
        &mut self,
        call: &HpaCall,
        listed: &Arc<Vec<HpaPod>>,
        answers: &[Arc<MetricResponse>],
        written: &mut Option<Value>,
    ) -> HpaAnswer {
        match call {
            HpaCall::ResolveTarget { group, kind } => {
                if group == "apps" && kind == "Deployment" {
                    HpaAnswer::Mappings {
                        resources: vec![GroupResource {
                            group: "apps".into(),
                            resource: "deployments".into(),
                        }],
                    }
                } else {
                    HpaAnswer::Error {
                        reason: String::new(),
                        message: format!("no matches for kind \"{kind}\" in group \"{group}\""),
                    }
                }
            }
            HpaCall::GetScale {
                namespace, name, ..
            } => match self.scale_of(namespace, name) {
                Some(scale) => HpaAnswer::Scale { scale },
                None => not_found("deployments.apps", name),
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: Arc::clone(listed),
            },
            HpaCall::FetchMetric { index, .. } => HpaAnswer::Metric {
                response: answers.get(*index).cloned().unwrap_or_default(),
            },
            HpaCall::UpdateScale {
                namespace,
                name,
                replicas,
                ..
            } => {
                let key = format!("{namespace}/{name}");
                let r = *replicas;
                match self.api.edit_deployment(&key, move |w| {
                    super::apiserver::set_field(w, &["spec", "replicas"], r.into());
                }) {
                    Ok(Some(c)) => {
                        self.publish(c);
                        HpaAnswer::Ok
                    }
                    Ok(None) => not_found("deployments.apps", name),
                    Err(e) => HpaAnswer::Error {
                        reason: "Invalid".into(),
                        message: e.to_string(),
                    },
                }
            }
            HpaCall::UpdateStatus { object, .. } => {
                *written = Some(object.clone());
                HpaAnswer::Ok
            }
        }
    }

    /// The HPA's view, when the simulation has one.
    pub(crate) fn sim_hpa(&self) -> Option<SimHpa> {
        let h = self.hpa.as_ref()?;
        let seconds = self.clock.now() as f64 / 1000.0;
        let (load, metric_loads) = h.loads(seconds);
        let status = &h.hpa.status;
        Some(SimHpa {
            namespace: h.hpa.metadata.namespace.clone(),
            name: h.hpa.metadata.name.clone(),
            key: h.key.clone(),
            min_replicas: h.hpa.spec.min_replicas.unwrap_or(1),
            max_replicas: h.hpa.spec.max_replicas,
            current_replicas: status.current_replicas,
            desired_replicas: status.desired_replicas,
            conditions: status.conditions.clone().unwrap_or_default(),
            object: h.hpa.wire.as_ref().clone(),
            load,
            metric_loads,
            curve: h.load.clone(),
            metrics: h.metric_loads.clone(),
            memory: h.memory.clone(),
            last_sync: h.syncs.back().cloned(),
            events: h.events.iter().cloned().collect(),
        })
    }

    /// The HPA syncs, in order (the newest [`HISTORY_CAPACITY`]).
    pub fn hpa_syncs(&self) -> impl Iterator<Item = &HpaSyncTrace> {
        self.hpa.iter().flat_map(|h| h.syncs.iter())
    }
}
