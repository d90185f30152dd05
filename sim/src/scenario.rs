//! What a simulation starts from and the edits made to it: plain data, serialisable (a
//! scenario with its edits fits in a URL and replays to the identical run).

use serde::{Deserialize, Deserializer, Serialize};

use replicore::config::{Config, FeatureGates};
pub use replicore::deployment::forecast::FailureModel;
pub use replicore::deployment::model::IntOrString;
use replicore::error::{Error, Result};
use replicore::hpa::forecast::{check_pods, MetricLoad, PodModel};
use replicore::hpa::{HpaConfig, HpaGates, LoadCurve};

use super::clock::{check_ms, Ms};
use super::rng::Rng;

/// A delay in virtual milliseconds: exact, or uniform in `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum DelayMs {
    Exact(Ms),
    Range([Ms; 2]),
}

/// A number or a pair (see `number_or_array`).
impl<'de> Deserialize<'de> for DelayMs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        number_or_array(
            d,
            "milliseconds, or a [min, max] pair of them",
            |ms| Some(DelayMs::Exact(ms)),
            DelayMs::Range,
        )
    }
}

/// A value written as a JSON number (`number`, `None` when out of range) or as an array
/// (`array`, of what `A` reads), read by a visitor of its own: serde's `untagged` would
/// buffer the value and try each variant.
fn number_or_array<'de, D: Deserializer<'de>, A: Deserialize<'de>, T>(
    d: D,
    expecting: &'static str,
    number: fn(u64) -> Option<T>,
    array: fn(A) -> T,
) -> std::result::Result<T, D::Error> {
    struct NumberOrArray<A, T> {
        expecting: &'static str,
        number: fn(u64) -> Option<T>,
        array: fn(A) -> T,
    }
    impl<'de, A: Deserialize<'de>, T> serde::de::Visitor<'de> for NumberOrArray<A, T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<T, E> {
            (self.number)(v)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_seq<S: serde::de::SeqAccess<'de>>(
            self,
            seq: S,
        ) -> std::result::Result<T, S::Error> {
            A::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(self.array)
        }
    }
    d.deserialize_any(NumberOrArray {
        expecting,
        number,
        array,
    })
}

impl DelayMs {
    pub fn draw(self, rng: &mut Rng) -> Ms {
        match self {
            DelayMs::Exact(ms) => ms,
            DelayMs::Range([min, max]) => rng.between(min, max),
        }
    }

    fn validate(self, path: &str) -> Result<()> {
        match self {
            DelayMs::Exact(ms) => check_ms(ms, path)?,
            DelayMs::Range([min, max]) => {
                check_ms(min, &format!("{path}[0]"))?;
                check_ms(max, &format!("{path}[1]"))?;
            }
        }
        match self {
            DelayMs::Range([min, max]) if min > max => Err(Error::Malformed {
                path: path.into(),
                message: format!("range [{min}, {max}] has min above max"),
            }),
            _ => Ok(()),
        }
    }
}

/// Delays of the simulated cluster; `None` = the default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Delays {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flap: Option<DelayMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relist: Option<Ms>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resync: Option<Ms>,
}

/// The delays in effect (every field set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EffectiveDelays {
    pub watch: DelayMs,
    pub schedule: DelayMs,
    pub start: DelayMs,
    pub ready: DelayMs,
    pub terminate: DelayMs,
    pub crash: DelayMs,
    pub flap: DelayMs,
    pub relist: Ms,
    /// The owner informer's resync period (every owner redelivered as an update); 0 = off.
    pub resync: Ms,
}

impl Default for EffectiveDelays {
    fn default() -> Self {
        EffectiveDelays {
            watch: DelayMs::Range([20, 80]),
            schedule: DelayMs::Range([50, 300]),
            start: DelayMs::Range([500, 2000]),
            ready: DelayMs::Range([500, 3000]),
            terminate: DelayMs::Range([200, 1000]),
            crash: DelayMs::Range([2000, 6000]),
            flap: DelayMs::Range([1000, 5000]),
            relist: 30_000,
            // Off: kube-controller-manager resyncs every 12 h or more, which a playground
            // never reaches (and an always-pending resync would make `step` jump 12 h).
            resync: 0,
        }
    }
}

impl EffectiveDelays {
    /// These delays with `d`'s fields laid over them.
    pub fn merged(mut self, d: &Delays) -> Self {
        let pick = |new: Option<DelayMs>, old: DelayMs| new.unwrap_or(old);
        self.watch = pick(d.watch, self.watch);
        self.schedule = pick(d.schedule, self.schedule);
        self.start = pick(d.start, self.start);
        self.ready = pick(d.ready, self.ready);
        self.terminate = pick(d.terminate, self.terminate);
        self.crash = pick(d.crash, self.crash);
        self.flap = pick(d.flap, self.flap);
        self.relist = d.relist.unwrap_or(self.relist).max(1);
        self.resync = d.resync.unwrap_or(self.resync);
        self
    }
}

impl Delays {
    fn validate(&self, path: &str) -> Result<()> {
        for (name, d) in [
            ("watch", self.watch),
            ("schedule", self.schedule),
            ("start", self.start),
            ("ready", self.ready),
            ("terminate", self.terminate),
            ("crash", self.crash),
            ("flap", self.flap),
        ] {
            if let Some(d) = d {
                d.validate(&format!("{path}.{name}"))?;
            }
        }
        for (name, ms) in [("relist", self.relist), ("resync", self.resync)] {
            if let Some(ms) = ms {
                check_ms(ms, &format!("{path}.{name}"))?;
            }
        }
        Ok(())
    }
}

/// Fault probabilities, each in [0, 1].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub watch_drop: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub create_failure: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub crash_loop: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub readiness_flap: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Faults {
    pub fn any(&self) -> bool {
        self.watch_drop > 0.0
            || self.create_failure > 0.0
            || self.crash_loop > 0.0
            || self.readiness_flap > 0.0
    }

    fn validate(&self, path: &str) -> Result<()> {
        for (name, p) in [
            ("watchDrop", self.watch_drop),
            ("createFailure", self.create_failure),
            ("crashLoop", self.crash_loop),
            ("readinessFlap", self.readiness_flap),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::Malformed {
                    path: format!("{path}.{name}"),
                    message: format!("a probability must be within [0, 1] (got {p})"),
                });
            }
        }
        Ok(())
    }
}

/// An owner to create at the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScenarioOwner {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ready_seconds: Option<i32>,
}

/// A Deployment to create at the start (instead of owners): the Deployment controller
/// runs it through the engine, and the ReplicaSet controller runs the ReplicaSets it
/// makes. Pod start-up time is the scenario's `delays` (schedule + start + ready).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScenarioDeployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub replicas: i32,
    /// `RollingUpdate` (the default) or `Recreate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// An int or a percent (`"25%"`, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
    /// An int or a percent (`"25%"`, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ready_seconds: Option<i32>,
    /// Default 600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_deadline_seconds: Option<i32>,
    /// Default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
    /// The container image of the first template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// Which pods of templates other than the first never become ready (the forecast's
    /// model, seeded from the scenario's seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureModel>,
    /// Start rolled out: the first template's ReplicaSet and its `replicas` pods exist
    /// at the start, Running and Ready since an hour before it (as the HPA forecast's
    /// `initialReplicas`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<bool>,
}

/// The image of a Deployment scenario's first template when it names none.
pub const DEFAULT_IMAGE: &str = "registry.k8s.io/pause:3.10";

impl ScenarioDeployment {
    /// A RollingUpdate Deployment `default/web` of `replicas` with upstream's defaults.
    pub fn new(replicas: i32) -> Self {
        ScenarioDeployment {
            name: None,
            namespace: None,
            replicas,
            strategy: None,
            max_surge: None,
            max_unavailable: None,
            min_ready_seconds: None,
            progress_deadline_seconds: None,
            revision_history_limit: None,
            image: None,
            paused: None,
            failure: None,
            settled: None,
        }
    }

    fn validate(&self, path: &str) -> Result<()> {
        for (name, v) in [
            ("replicas", Some(self.replicas)),
            ("minReadySeconds", self.min_ready_seconds),
            ("progressDeadlineSeconds", self.progress_deadline_seconds),
            ("revisionHistoryLimit", self.revision_history_limit),
        ] {
            if let Some(v) = v.filter(|v| *v < 0) {
                return Err(Error::Negative {
                    path: format!("{path}.{name}"),
                    value: i64::from(v),
                });
            }
        }
        if self.name.as_deref() == Some("") {
            return Err(Error::Missing {
                path: format!("{path}.name"),
            });
        }
        if self.image.as_deref() == Some("") {
            return Err(Error::Missing {
                path: format!("{path}.image"),
            });
        }
        match self.strategy.as_deref() {
            None | Some("RollingUpdate") => {
                let (surge, unavailable) = replicore::deployment::strategy::resolve_fenceposts(
                    self.max_surge.as_ref(),
                    self.max_unavailable.as_ref(),
                    self.replicas,
                )
                .map_err(|message| Error::Malformed {
                    path: format!("{path}.maxSurge"),
                    message,
                })?;
                if surge < 0 || unavailable < 0 {
                    return Err(Error::Malformed {
                        path: format!("{path}.maxSurge"),
                        message: "maxSurge and maxUnavailable must not be negative".into(),
                    });
                }
                if self.max_surge.as_ref().is_some_and(is_zero_value)
                    && self.max_unavailable.as_ref().is_some_and(is_zero_value)
                {
                    return Err(Error::Malformed {
                        path: format!("{path}.maxUnavailable"),
                        message: "may not be 0 when maxSurge is 0".into(),
                    });
                }
            }
            Some("Recreate") => {
                if self.max_surge.is_some() || self.max_unavailable.is_some() {
                    return Err(Error::Malformed {
                        path: format!("{path}.strategy"),
                        message: "Recreate takes no maxSurge or maxUnavailable".into(),
                    });
                }
            }
            Some(other) => {
                return Err(Error::Malformed {
                    path: format!("{path}.strategy"),
                    message: format!(
                        "{} is not a strategy (RollingUpdate, Recreate)",
                        replicore::error::quoted(other)
                    ),
                })
            }
        }
        if let Some(FailureModel::NeverReadyFraction { fraction }) = &self.failure {
            if !(0.0..=1.0).contains(fraction) {
                return Err(Error::Malformed {
                    path: format!("{path}.failure.fraction"),
                    message: format!("a probability must be within [0, 1] (got {fraction})"),
                });
            }
        }
        Ok(())
    }
}

fn is_zero_value(v: &IntOrString) -> bool {
    match v {
        IntOrString::Int(i) => *i == 0,
        IntOrString::Str(s) => s == "0%",
    }
}

/// A HorizontalPodAutoscaler on the scenario's Deployment, the engine's HPA sync run
/// every sync period against the simulation, and the load that drives its metrics. The
/// fields are the HPA forecast's (`HpaForecastInput`) of the same names: the load model
/// is the engine's (`replicore::hpa::load`), in pods at target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScenarioHpa {
    /// The HorizontalPodAutoscaler (autoscaling/v2) as `kubectl get hpa -o json` prints
    /// it; its `scaleTargetRef` names the Deployment (`apps/v1`, `Deployment`, its name).
    /// Created at the start; a missing name or namespace is the Deployment's.
    #[cfg_attr(feature = "ts", ts(as = "replicore::ts::KubeObject"))]
    pub hpa: serde_json::Value,
    /// The controller's configuration (kube-controller-manager's flags).
    #[serde(default, skip_serializing_if = "is_default")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<replicore::ts::Partial<HpaConfig>>", optional)
    )]
    pub config: HpaConfig,
    #[serde(default, skip_serializing_if = "is_default")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<replicore::ts::Partial<HpaGates>>", optional)
    )]
    pub feature_gates: HpaGates,
    /// The load over virtual time (seconds since the start), in pods at target.
    pub load: LoadCurve,
    /// What drives each metric, index for index with `hpa.spec.metrics` (a metric
    /// without an entry reads `load`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<MetricLoad>>", optional))]
    pub metrics: Vec<MetricLoad>,
    /// What the pods use: the fields of the forecast's pod model the kubelet does not
    /// have (its start-up times are the scenario's `delays`).
    #[serde(default, skip_serializing_if = "is_default")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<replicore::ts::Partial<HpaPods>>", optional)
    )]
    pub pods: HpaPods,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// What each pod requests and reports (the forecast's `PodModel` fields of the same
/// names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HpaPods {
    /// The CPU of a Running pod that is not Ready, as a fraction of its request (1.0).
    pub startup_cpu: f64,
    /// The memory of a Running pod that is not Ready, as a fraction of its request (0.5).
    pub startup_memory: f64,
    /// Each pod's CPU request in millicores (500).
    pub cpu_request_millis: i64,
    /// Each pod's memory request in MiB (512).
    pub memory_request_mi: i64,
    /// A Ready pod's sample spreads uniformly in ± this fraction of its share (0.05).
    pub noise: f64,
    /// The window of every sample (15 s).
    pub metric_window_seconds: f64,
}

impl Default for HpaPods {
    fn default() -> Self {
        let m = PodModel::default();
        HpaPods {
            startup_cpu: m.startup_cpu,
            startup_memory: m.startup_memory,
            cpu_request_millis: m.cpu_request_millis,
            memory_request_mi: m.memory_request_mi,
            noise: m.noise,
            metric_window_seconds: m.metric_window_seconds,
        }
    }
}

impl HpaPods {
    /// The forecast's pod model with these fields (its start-up times unused here).
    pub fn model(&self) -> PodModel {
        PodModel {
            startup_cpu: self.startup_cpu,
            startup_memory: self.startup_memory,
            cpu_request_millis: self.cpu_request_millis,
            memory_request_mi: self.memory_request_mi,
            noise: self.noise,
            metric_window_seconds: self.metric_window_seconds,
            ..PodModel::default()
        }
    }
}

impl ScenarioHpa {
    /// The checks of the numbers (the HPA object is read when the simulation starts).
    pub fn validate(&self, path: &str) -> Result<()> {
        self.load.check().map_err(|e| e.under(path))?;
        check_pods(&self.pods.model(), &format!("{path}.pods"))?;
        if self.config.sync_period_seconds <= 0 {
            return Err(Error::Config {
                path: format!("{path}.config.syncPeriodSeconds"),
                message: "must be above zero".into(),
            });
        }
        if !self.hpa.is_object() {
            return Err(Error::Malformed {
                path: format!("{path}.hpa"),
                message: "expected a HorizontalPodAutoscaler object".into(),
            });
        }
        Ok(())
    }
}

/// Feature gates to change (the others keep their value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct GatesPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_deletion_cost: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logarithmic_scale_down: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment_replica_set_terminating_replicas: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_controller_consistency_replica_set: Option<bool>,
}

impl GatesPatch {
    pub fn apply(&self, g: &mut FeatureGates) {
        let set = |v: Option<bool>, slot: &mut bool| {
            if let Some(v) = v {
                *slot = v;
            }
        };
        set(self.pod_deletion_cost, &mut g.pod_deletion_cost);
        set(self.logarithmic_scale_down, &mut g.logarithmic_scale_down);
        set(
            self.deployment_replica_set_terminating_replicas,
            &mut g.deployment_replica_set_terminating_replicas,
        );
        set(
            self.stale_controller_consistency_replica_set,
            &mut g.stale_controller_consistency_replica_set,
        );
    }
}

/// Configuration to change (the others keep their value).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ConfigPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_replicas: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_gates: Option<GatesPatch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation_version: Option<String>,
}

/// One change to a running simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Edit {
    SetReplicas {
        replicas: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
    },
    SetQuota {
        #[serde(default)]
        quota: Option<u32>,
    },
    SetFeatureGates {
        feature_gates: GatesPatch,
    },
    SetConfig {
        config: ConfigPatch,
    },
    SetFaults {
        faults: Faults,
    },
    SetDelays {
        delays: Delays,
    },
    EditPod {
        pod: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ready: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restarts: Option<i32>,
        /// Absent: unchanged; `null`: annotation removed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deletion_cost: Option<Option<i32>>,
    },
    AddNode {
        node: String,
    },
    RemoveNode {
        node: String,
    },
    KillPod {
        pod: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
    },
    /// A new pod template: the Deployment's container image (`kubectl set image`);
    /// `fail` makes the pods of that image fail.
    SetImage {
        image: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fail: Option<TemplateFailure>,
    },
    /// The Deployment's current template fails from now on: its new pods never become
    /// ready (or crash-loop).
    FailTemplate {
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<TemplateFailure>", optional))]
        failure: TemplateFailure,
    },
    /// `kubectl scale deploy --replicas` (during a rollout: proportional scaling, D-44).
    ScaleDeployment {
        replicas: i32,
    },
    /// `kubectl rollout pause`.
    PauseDeployment,
    /// `kubectl rollout resume`.
    ResumeDeployment,
    /// `kubectl rollout undo [--to-revision]`, client-side as kubectl does it: the
    /// revision's ReplicaSet template (without the pod-template-hash label) and
    /// annotations copied into the Deployment. No revision: the previous one.
    UndoDeployment {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revision: Option<i64>,
    },
    /// The HPA's load from now on: a new curve (time still counted from the start) and,
    /// when given, new per-metric loads.
    SetLoad {
        load: LoadCurve,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metrics: Option<Vec<MetricLoad>>,
    },
}

/// How the pods of a failing template fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum TemplateFailure {
    /// Running, never Ready.
    #[default]
    NeverReady,
    /// Restarting over and over, never Ready.
    CrashLoop,
}

pub const POD_PHASES: [&str; 5] = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

impl Edit {
    /// The checks types cannot express.
    pub fn validate(&self, path: &str) -> Result<()> {
        match self {
            Edit::SetReplicas { replicas, .. } if *replicas < 0 => Err(Error::Negative {
                path: format!("{path}.replicas"),
                value: i64::from(*replicas),
            }),
            Edit::SetFaults { faults } => faults.validate(&format!("{path}.faults")),
            Edit::SetDelays { delays } => delays.validate(&format!("{path}.delays")),
            Edit::SetConfig { config } if config.burst_replicas == Some(0) => Err(Error::Config {
                path: format!("{path}.config.burstReplicas"),
                message: "must be at least 1".into(),
            }),
            Edit::EditPod { phase: Some(p), .. } if !POD_PHASES.contains(&p.as_str()) => {
                Err(Error::Malformed {
                    path: format!("{path}.phase"),
                    message: format!(
                        "{} is not a pod phase (Pending, Running, Succeeded, Failed, Unknown)",
                        replicore::error::quoted(p)
                    ),
                })
            }
            Edit::EditPod {
                restarts: Some(r), ..
            } if *r < 0 => Err(Error::Negative {
                path: format!("{path}.restarts"),
                value: i64::from(*r),
            }),
            Edit::AddNode { node } | Edit::RemoveNode { node } if node.is_empty() => {
                Err(Error::Missing {
                    path: format!("{path}.node"),
                })
            }
            Edit::EditPod { pod, .. } | Edit::KillPod { pod, .. } if pod.is_empty() => {
                Err(Error::Missing {
                    path: format!("{path}.pod"),
                })
            }
            Edit::SetImage { image, .. } if image.is_empty() => Err(Error::Missing {
                path: format!("{path}.image"),
            }),
            Edit::ScaleDeployment { replicas } if *replicas < 0 => Err(Error::Negative {
                path: format!("{path}.replicas"),
                value: i64::from(*replicas),
            }),
            Edit::UndoDeployment {
                revision: Some(r), ..
            } if *r < 0 => Err(Error::Negative {
                path: format!("{path}.revision"),
                value: *r,
            }),
            Edit::SetLoad { load, .. } => load.check().map_err(|e| e.under(path)),
            _ => Ok(()),
        }
    }
}

/// An edit at a virtual time.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TimedEdit {
    /// Virtual ms since the start.
    pub at: Ms,
    #[serde(flatten)]
    pub edit: Edit,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum EditOp {
    SetReplicas,
    SetQuota,
    SetFeatureGates,
    SetConfig,
    SetFaults,
    SetDelays,
    EditPod,
    AddNode,
    RemoveNode,
    KillPod,
    SetImage,
    FailTemplate,
    ScaleDeployment,
    PauseDeployment,
    ResumeDeployment,
    UndoDeployment,
    SetLoad,
}

/// The wire form of an [`Edit`] (and of a [`TimedEdit`], with `at`): the fields of every
/// op in one flat object, read without serde's buffers for internally tagged enums and
/// `flatten`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditWire {
    op: EditOp,
    at: Option<Ms>,
    replicas: Option<i32>,
    owner: Option<String>,
    quota: Option<u32>,
    feature_gates: Option<GatesPatch>,
    config: Option<ConfigPatch>,
    faults: Option<Faults>,
    delays: Option<Delays>,
    pod: Option<String>,
    namespace: Option<String>,
    phase: Option<String>,
    ready: Option<bool>,
    restarts: Option<i32>,
    /// Absent: unchanged; `null`: annotation removed.
    #[serde(default, deserialize_with = "replicore::objects::present")]
    deletion_cost: Option<Option<i32>>,
    node: Option<String>,
    image: Option<String>,
    fail: Option<TemplateFailure>,
    failure: Option<TemplateFailure>,
    revision: Option<i64>,
    load: Option<LoadCurve>,
    metrics: Option<Vec<MetricLoad>>,
}

impl<'de> Deserialize<'de> for Edit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        replicore::objects::converted::<_, EditWire, _, String>(d, Edit::try_from)
    }
}

impl<'de> Deserialize<'de> for TimedEdit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        replicore::objects::converted::<_, EditWire, _, String>(d, |mut w| {
            let at = w.at.take().ok_or("missing field `at`")?;
            Ok(TimedEdit {
                at,
                edit: Edit::try_from(w)?,
            })
        })
    }
}

impl TryFrom<EditWire> for Edit {
    type Error = String;

    fn try_from(w: EditWire) -> std::result::Result<Self, String> {
        fn need<T>(v: Option<T>, field: &str) -> std::result::Result<T, String> {
            replicore::objects::required(v, "this op", field)
        }
        Ok(match w.op {
            EditOp::SetReplicas => Edit::SetReplicas {
                replicas: need(w.replicas, "replicas")?,
                owner: w.owner,
            },
            EditOp::SetQuota => Edit::SetQuota { quota: w.quota },
            EditOp::SetFeatureGates => Edit::SetFeatureGates {
                feature_gates: need(w.feature_gates, "featureGates")?,
            },
            EditOp::SetConfig => Edit::SetConfig {
                config: need(w.config, "config")?,
            },
            EditOp::SetFaults => Edit::SetFaults {
                faults: need(w.faults, "faults")?,
            },
            EditOp::SetDelays => Edit::SetDelays {
                delays: need(w.delays, "delays")?,
            },
            EditOp::EditPod => Edit::EditPod {
                pod: need(w.pod, "pod")?,
                namespace: w.namespace,
                phase: w.phase,
                ready: w.ready,
                restarts: w.restarts,
                deletion_cost: w.deletion_cost,
            },
            EditOp::AddNode => Edit::AddNode {
                node: need(w.node, "node")?,
            },
            EditOp::RemoveNode => Edit::RemoveNode {
                node: need(w.node, "node")?,
            },
            EditOp::KillPod => Edit::KillPod {
                pod: need(w.pod, "pod")?,
                namespace: w.namespace,
            },
            EditOp::SetImage => Edit::SetImage {
                image: need(w.image, "image")?,
                fail: w.fail,
            },
            EditOp::FailTemplate => Edit::FailTemplate {
                failure: w.failure.unwrap_or_default(),
            },
            EditOp::ScaleDeployment => Edit::ScaleDeployment {
                replicas: need(w.replicas, "replicas")?,
            },
            EditOp::PauseDeployment => Edit::PauseDeployment,
            EditOp::ResumeDeployment => Edit::ResumeDeployment,
            EditOp::UndoDeployment => Edit::UndoDeployment {
                revision: w.revision,
            },
            EditOp::SetLoad => Edit::SetLoad {
                load: need(w.load, "load")?,
                metrics: w.metrics,
            },
        })
    }
}

/// The most nodes a scenario may count (each is a name in memory; a count near `u32::MAX`
/// would exhaust it).
pub const MAX_NODES: u32 = 10_000;

/// Node names: a list, or a count of `node-1` ….
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Nodes {
    Count(u32),
    Names(Vec<String>),
}

/// A count or a list of names (see `number_or_array`).
impl<'de> Deserialize<'de> for Nodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        number_or_array(
            d,
            "a node count, or a list of node names",
            |n| u32::try_from(n).ok().map(Nodes::Count),
            Nodes::Names,
        )
    }
}

impl Nodes {
    pub fn names(&self) -> Vec<String> {
        match self {
            Nodes::Count(n) => (1..=*n).map(|i| format!("node-{i}")).collect(),
            Nodes::Names(v) => v.clone(),
        }
    }
}

/// Everything a simulation starts from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owners: Option<Vec<ScenarioOwner>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Nodes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delays: Option<Delays>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Faults>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Config>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub cluster: Option<serde_json::Value>,
    /// A Deployment instead of owners (neither `owners`, `replicas` nor `cluster`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<ScenarioDeployment>,
    /// A HorizontalPodAutoscaler scaling the Deployment (Deployment scenarios only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hpa: Option<ScenarioHpa>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<TimedEdit>,
}

impl Scenario {
    /// A scenario of one owner `default/web` with `replicas`, three nodes, defaults elsewhere.
    pub fn new(seed: u64, replicas: i32) -> Self {
        Scenario {
            seed,
            start: None,
            owners: None,
            replicas: Some(replicas),
            nodes: None,
            delays: None,
            faults: None,
            quota: None,
            config: None,
            cluster: None,
            deployment: None,
            hpa: None,
            edits: Vec::new(),
        }
    }

    /// A scenario of one Deployment (no owners): three nodes, defaults elsewhere.
    pub fn with_deployment(seed: u64, deployment: ScenarioDeployment) -> Self {
        Scenario {
            replicas: None,
            deployment: Some(deployment),
            ..Scenario::new(seed, 0)
        }
    }

    /// Parses scenario JSON text; errors name the path (`scenario.faults.watchDrop`).
    pub fn from_json(bytes: &[u8]) -> Result<Scenario> {
        let s: Scenario = replicore::input::from_json(bytes)?;
        s.validate()?;
        Ok(s)
    }

    /// The checks types cannot express.
    pub fn validate(&self) -> Result<()> {
        if let Some(r) = self.replicas.filter(|r| *r < 0) {
            return Err(Error::Negative {
                path: "replicas".into(),
                value: i64::from(r),
            });
        }
        for (i, o) in self.owners.iter().flatten().enumerate() {
            if o.replicas < 0 {
                return Err(Error::Negative {
                    path: format!("owners[{i}].replicas"),
                    value: i64::from(o.replicas),
                });
            }
            if let Some(m) = o.min_ready_seconds.filter(|m| *m < 0) {
                return Err(Error::Negative {
                    path: format!("owners[{i}].minReadySeconds"),
                    value: i64::from(m),
                });
            }
            if o.name.as_deref() == Some("") {
                return Err(Error::Missing {
                    path: format!("owners[{i}].name"),
                });
            }
        }
        if let Some(d) = &self.deployment {
            if self.owners.is_some() || self.replicas.is_some() || self.cluster.is_some() {
                return Err(Error::Malformed {
                    path: "deployment".into(),
                    message: "a Deployment scenario starts without owners, replicas or cluster"
                        .into(),
                });
            }
            d.validate("deployment")?;
        }
        if let Some(h) = &self.hpa {
            if self.deployment.is_none() {
                return Err(Error::Malformed {
                    path: "hpa".into(),
                    message: "an HPA scales the scenario's Deployment: give `deployment`".into(),
                });
            }
            h.validate("hpa")?;
        }
        if let Some(Nodes::Count(n)) = self.nodes {
            if n > MAX_NODES {
                return Err(Error::Malformed {
                    path: "nodes".into(),
                    message: format!("at most {MAX_NODES} nodes (got {n})"),
                });
            }
        }
        if let Some(Nodes::Names(names)) = &self.nodes {
            for (i, n) in names.iter().enumerate() {
                if n.is_empty() {
                    return Err(Error::Missing {
                        path: format!("nodes[{i}]"),
                    });
                }
                if names.iter().take(i).any(|m| m == n) {
                    return Err(Error::Malformed {
                        path: format!("nodes[{i}]"),
                        message: format!("node {} is given twice", replicore::error::quoted(n)),
                    });
                }
            }
        }
        if let Some(d) = &self.delays {
            d.validate("delays")?;
        }
        if let Some(f) = &self.faults {
            f.validate("faults")?;
        }
        if let Some(c) = &self.config {
            c.validate()?;
            if c.owner_kind.kind != "ReplicaSet" {
                return Err(Error::Config {
                    path: "config.ownerKind".into(),
                    message: "the simulator runs ReplicaSets only".into(),
                });
            }
        }
        for (i, e) in self.edits.iter().enumerate() {
            check_ms(e.at, &format!("edits[{i}].at"))?;
            e.edit.validate(&format!("edits[{i}]"))?;
        }
        Ok(())
    }
}
