//! One `reconcileAutoscaler(hpa, key)` as a step machine (H-31..H-61, H-134): the engine
//! names each call — resolve the target's kind, read its scale, list the pods of its
//! selector from the cache, fetch one metric, write the scale, write the status — the
//! host makes it and reports the answer, until the engine says what the sync amounted
//! to: the events, the error, the requeue and the **new memory** (the recommendations
//! and scale events upstream keeps in process), which the host keeps for the next sync.
//!
//! Every step is plain data (serde, camelCase). Unlike the Deployment's machine this one
//! does not replay: each answer is folded into the machine's state as it arrives, so a
//! metric over 10,000 pods is computed once.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::deployment::Wire;
use crate::error::{Error, Result};
use crate::outcome::ApiError;
use crate::selector::Selector;
use crate::time::{Duration, Time};

use super::calculator::{Context, StartupPeriods, Tolerances};
use super::events::{self, HpaEvent};
use super::memory::HpaMemory;
use super::metrics::{self, Aggregate, MetricQuery, ScaleCounts};
use super::model::{
    HorizontalPodAutoscaler, HpaConfig, HpaGates, HpaPod, HpaStatus, MetricResponse, MetricStatus,
    Scale,
};
use super::normalize::{self, Bounds};
use super::pods::{self, PodFacts, PodNames, Requested};
use super::status::{self, ABLE_TO_SCALE, SCALED_TO_ZERO, SCALING_ACTIVE, SCALING_LIMITED};

/// Another HPA the controller has seen, with the selector it last stored for it (H-58).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredHpa {
    /// The other HPA's namespace.
    pub namespace: String,
    /// The other HPA's name.
    pub name: String,
    /// The target's selector as last parsed; `""` for an HPA not reconciled yet.
    #[serde(default)]
    pub selector: String,
}

/// Everything one sync decides from besides what it reads through calls.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaSyncInput {
    /// The controller clock: condition times, windows, periods.
    pub now: Time,
    /// Each gate defaults on its own (v1.36's defaults).
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<HpaGates>>", optional)
    )]
    pub feature_gates: HpaGates,
    /// Each setting defaults on its own (kube-controller-manager's defaults).
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<crate::ts::Partial<HpaConfig>>", optional)
    )]
    pub config: HpaConfig,
    /// The work-queue key: `namespace/name` (the memory's key, H-05); by default the
    /// HPA's.
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<String>"))]
    pub key: String,
    /// The HPA as the cache holds it (defaults applied, H-11/H-12).
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub hpa: Wire<HorizontalPodAutoscaler>,
    /// The memory the host kept from the previous sync of this key (none: the first
    /// sync since the controller started).
    #[cfg_attr(feature = "ts", ts(as = "Option<HpaMemory>", optional))]
    pub memory: HpaMemory,
    /// The other HPAs of the controller, for the overlap check (H-59).
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<RegisteredHpa>>", optional))]
    pub other_hpa_selectors: Vec<RegisteredHpa>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireInput {
    now: Time,
    #[serde(default)]
    feature_gates: HpaGates,
    #[serde(default)]
    config: HpaConfig,
    #[serde(default)]
    key: Option<String>,
    hpa: Value,
    #[serde(default, deserialize_with = "crate::objects::opt_object")]
    memory: Option<HpaMemory>,
    #[serde(default, alias = "otherHPASelectors")]
    other_hpa_selectors: Option<Vec<RegisteredHpa>>,
}

impl WireInput {
    fn convert(self) -> Result<HpaSyncInput> {
        let mut hpa: Wire<HorizontalPodAutoscaler> =
            Wire::from_value(self.hpa).map_err(|e| e.under("hpa"))?;
        hpa.apply_defaults();
        check_sources(&hpa).map_err(|e| e.under("hpa"))?;
        let key = match self.key {
            Some(k) => k,
            None => format!("{}/{}", hpa.metadata.namespace, hpa.metadata.name),
        };
        Ok(HpaSyncInput {
            now: self.now,
            feature_gates: self.feature_gates,
            config: self.config,
            key,
            hpa,
            memory: self.memory.unwrap_or_default(),
            other_hpa_selectors: self.other_hpa_selectors.unwrap_or_default(),
        })
    }
}

/// H-21: fields upstream dereferences without a check (it would panic without them)
/// are refused with their path.
fn check_sources(hpa: &HorizontalPodAutoscaler) -> Result<()> {
    for (i, m) in hpa.metrics().iter().enumerate() {
        let at = |field: &str| Error::Missing {
            path: format!("spec.metrics[{i}].{field}"),
        };
        match m.type_.as_str() {
            "Object" if m.object.is_none() => return Err(at("object")),
            "Pods" => match &m.pods {
                None => return Err(at("pods")),
                Some(p) if p.target.average_value.is_none() => {
                    return Err(at("pods.target.averageValue"))
                }
                _ => {}
            },
            "Resource" if m.resource.is_none() => return Err(at("resource")),
            "ContainerResource" if m.container_resource.is_none() => {
                return Err(at("containerResource"))
            }
            "External" if m.external.is_none() => return Err(at("external")),
            _ => {}
        }
    }
    Ok(())
}

impl<'de> Deserialize<'de> for HpaSyncInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        WireInput::deserialize(d)?
            .convert()
            .map_err(serde::de::Error::custom)
    }
}

impl HpaSyncInput {
    /// Parses a sync input from JSON text, naming the field path of any error.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        crate::input::from_json::<WireInput>(bytes)?.convert()
    }

    /// Parses a sync input from a JSON value, naming the field path of any error.
    pub fn from_value(value: Value) -> Result<Self> {
        crate::input::from_value::<WireInput>(value)?.convert()
    }
}

/// A sync's plain state: its input and the answers reported so far. A host may keep it
/// as data between steps (JSON, `structuredClone`); [`HpaSync::from_state`] resumes it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HpaSyncState {
    /// The sync's input.
    pub input: HpaSyncInput,
    /// The answers to the calls so far, in order.
    pub answers: Vec<HpaAnswer>,
}

#[derive(Deserialize)]
struct StateWire {
    input: Value,
    #[serde(default)]
    answers: Vec<HpaAnswer>,
}

impl HpaSyncState {
    /// Reads a state from JSON text (the input with its own field paths).
    pub fn from_json(bytes: &[u8]) -> Result<HpaSyncState> {
        let wire: StateWire = crate::input::from_json(bytes)?;
        let input = HpaSyncInput::from_value(wire.input).map_err(|e| e.under("input"))?;
        Ok(HpaSyncState {
            input,
            answers: wire.answers,
        })
    }
}

/// A resource of the API (group, plural name).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupResource {
    /// The API group, empty for the core group.
    #[serde(default)]
    pub group: String,
    /// The resource's plural name, as `deployments`.
    pub resource: String,
}

/// One call the host makes for the engine.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "call",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum HpaCall {
    /// The RESTMapper's resources for a kind in a group, through discovery (H-35).
    /// Answer `mappings` (possibly several, in the mapper's order) or `error` with the
    /// mapper's message (`no matches for kind "X" in group "Y"`).
    ResolveTarget {
        /// The target's API group, from its `apiVersion` (empty for the core group).
        group: String,
        /// The target's kind, as `Deployment`.
        kind: String,
    },
    /// `GET <resource>/<name>/scale` (H-36, and the re-read after a failed write,
    /// H-51). Answer `scale` or `error`.
    GetScale {
        /// The HPA's namespace, where the target is.
        namespace: String,
        /// The target's name.
        name: String,
        /// The target's API group.
        group: String,
        /// The target's resource, as `resolveTarget` answered it.
        resource: String,
    },
    /// The pods of the namespace that the selector matches, from the informer cache, in
    /// every phase (H-59, H-82). Answer `pods`; the engine filters again, so a superset
    /// (every cached pod) is fine.
    ListPods {
        /// The HPA's namespace.
        namespace: String,
        /// The target's `status.selector`, as text.
        selector: String,
    },
    /// One metric of `spec.metrics[index]` (H-99..H-102). Answer `metric`.
    FetchMetric {
        /// The metric's position in `spec.metrics`.
        index: usize,
        /// What to ask the metrics API.
        query: MetricQuery,
    },
    /// `PUT <resource>/<name>/scale` with `spec.replicas` set (H-51). `scale` is the
    /// Scale object to send (the one last read, with the new replicas). Answer `ok` or
    /// `error`.
    UpdateScale {
        /// The HPA's namespace, where the target is.
        namespace: String,
        /// The target's name.
        name: String,
        /// The target's API group.
        group: String,
        /// The target's resource.
        resource: String,
        /// The new `spec.replicas`.
        replicas: i32,
        /// The Scale to send.
        #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: any }"))]
        scale: Value,
    },
    /// `PUT horizontalpodautoscalers/<name>/status` (H-127). `object` is the HPA as read
    /// with this status. Answer `ok` or `error`.
    UpdateStatus {
        /// The HPA's namespace.
        namespace: String,
        /// The HPA's name.
        name: String,
        /// The new status.
        #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: any }"))]
        status: Value,
        /// The HPA to send, carrying the new status.
        #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: any }"))]
        object: Value,
    },
}

impl HpaCall {
    /// The call's kind as a word (`getScale`, …), for messages.
    pub fn name(&self) -> &'static str {
        match self {
            HpaCall::ResolveTarget { .. } => "resolveTarget",
            HpaCall::GetScale { .. } => "getScale",
            HpaCall::ListPods { .. } => "listPods",
            HpaCall::FetchMetric { .. } => "fetchMetric",
            HpaCall::UpdateScale { .. } => "updateScale",
            HpaCall::UpdateStatus { .. } => "updateStatus",
        }
    }
}

/// The host's answer to a call (read field by field, so that an error inside it
/// names its path).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "answer",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum HpaAnswer {
    /// A write succeeded.
    Ok,
    /// The call failed: an API error (reason and message), or the mapper's error.
    Error {
        /// The API error's reason (`NotFound`, `Conflict`, …); empty for a mapper's error.
        #[serde(default)]
        reason: String,
        /// The error text.
        message: String,
    },
    /// The answer to `resolveTarget`.
    Mappings {
        /// The resources the kind maps to, in the mapper's order.
        resources: Vec<GroupResource>,
    },
    /// The answer to `getScale`: the Scale object (autoscaling/v1).
    Scale {
        /// The Scale as read.
        #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: any }"))]
        scale: Wire<Scale>,
    },
    /// The answer to `listPods`.
    Pods {
        /// The pods listed.
        #[cfg_attr(feature = "ts", ts(type = "Array<{ [key: string]: any }>"))]
        pods: Arc<Vec<HpaPod>>,
    },
    /// The answer to `fetchMetric`.
    Metric {
        /// What the metrics API answered.
        #[cfg_attr(feature = "ts", ts(as = "MetricResponse"))]
        response: Arc<MetricResponse>,
    },
}

/// A list of objects shared between the host's answer and the machine (a host that
/// answers the same pods to many syncs pays for one list).
fn shared_objects<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Arc<Vec<HpaPod>>>, D::Error> {
    crate::objects::objects(d).map(|pods| Some(Arc::new(pods)))
}

/// An answer as the host writes it, read as one flat object. Serde's internally tagged
/// enums buffer the whole answer before reading it, which loses the position of an error
/// inside it, and so its path: a pod's bad request would be refused at `answer` rather
/// than at `answer.pods[0].spec.containers[0].resources.requests.cpu`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnswerWire {
    answer: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    resources: Option<Vec<GroupResource>>,
    #[serde(default)]
    scale: Option<Wire<Scale>>,
    #[serde(default, deserialize_with = "shared_objects")]
    pods: Option<Arc<Vec<HpaPod>>>,
    #[serde(default)]
    response: Option<Arc<MetricResponse>>,
}

impl<'de> Deserialize<'de> for HpaAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        const KINDS: &[&str] = &["ok", "error", "mappings", "scale", "pods", "metric"];
        let w = AnswerWire::deserialize(d)?;
        let missing = D::Error::missing_field;
        Ok(match w.answer.as_str() {
            "ok" => HpaAnswer::Ok,
            "error" => HpaAnswer::Error {
                reason: w.reason.unwrap_or_default(),
                message: w.message.ok_or_else(|| missing("message"))?,
            },
            "mappings" => HpaAnswer::Mappings {
                resources: w.resources.ok_or_else(|| missing("resources"))?,
            },
            "scale" => HpaAnswer::Scale {
                scale: w.scale.ok_or_else(|| missing("scale"))?,
            },
            "pods" => HpaAnswer::Pods {
                pods: w.pods.ok_or_else(|| missing("pods"))?,
            },
            "metric" => HpaAnswer::Metric {
                response: w.response.ok_or_else(|| missing("response"))?,
            },
            other => return Err(D::Error::unknown_variant(other, KINDS)),
        })
    }
}

impl HpaAnswer {
    /// The `error` answer for an API error: its reason and message.
    pub fn error(e: &ApiError) -> Self {
        HpaAnswer::Error {
            reason: e.reason.clone(),
            message: e.message.clone(),
        }
    }
}

/// What the sync amounted to.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaSyncDone {
    /// The events recorded, in order (H-132).
    pub events: Vec<HpaEvent>,
    /// The error `reconcileAutoscaler` returned (logged upstream; the key is requeued
    /// after the sync period all the same, H-134).
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
    /// The memory to keep for the next sync of this key.
    pub memory: HpaMemory,
    /// The status as the sync left it (written or not).
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: any }"))]
    pub status: HpaStatus,
    /// The replica count the sync wrote to the scale, if it wrote one.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rescaled_to: Option<i32>,
    /// The selector to register for this HPA (H-58), when the sync parsed one.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub selector: Option<String>,
    /// H-22/H-29: look again after one sync period, whatever happened.
    pub requeue_after_seconds: i64,
}

/// A step: a call to make, or the end.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum HpaStep {
    /// Make this call and report its answer.
    Call {
        /// The call.
        call: HpaCall,
    },
    /// The sync is over.
    Done {
        /// What it amounted to.
        done: HpaSyncDone,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Mappings,
    Scale,
    Pods,
    Metric(usize),
    Update,
    Reget {
        error: ApiError,
    },
    FailureStatus {
        error: String,
        event: Option<HpaEvent>,
    },
    FinalStatus,
    Finished,
}

/// The state of one sync between calls.
#[derive(Clone, Debug)]
pub struct HpaSync {
    input: HpaSyncInput,
    status: HpaStatus,
    events: Vec<HpaEvent>,
    memory: HpaMemory,
    phase: Phase,
    pending: Option<HpaCall>,
    done: Option<HpaSyncDone>,
    reference: String,
    mappings: Vec<GroupResource>,
    mapping_at: usize,
    first_scale_error: Option<String>,
    target: GroupResource,
    scale: Option<Wire<Scale>>,
    current: i32,
    min: i32,
    selector: Option<Selector>,
    selector_text: Option<String>,
    /// The pods answered (every one), which of them the selector names (by name once,
    /// H-59, H-82) and the index of their names.
    pods: Arc<Vec<HpaPod>>,
    listed: Vec<usize>,
    names: PodNames,
    facts: Vec<PodFacts>,
    requested: Vec<Requested>,
    statuses: Option<Vec<MetricStatus>>,
    aggregate: Aggregate,
    desired: i32,
    reason: String,
    attempts: u32,
    rescaled_to: Option<i32>,
    error: Option<String>,
    answers: Vec<HpaAnswer>,
    pods_answer: Option<usize>,
    /// What explain reads of this sync as it runs ([`HpaSync::traced`]); `None` otherwise.
    trace: Option<Box<SyncTrace>>,
}

/// Which branch of H-38 a sync took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Branch {
    /// H-41: the target is at zero and scaling is disabled.
    Disabled,
    /// H-42: above `maxReplicas`.
    AboveMax,
    /// H-43: below `minReplicas`.
    BelowMin,
    /// H-45: the metrics (H-41's scale from zero included).
    Metrics,
}

/// One metric as the sync computed it.
#[derive(Clone, Debug)]
pub(crate) struct MetricTrace {
    pub index: usize,
    pub outcome: std::result::Result<metrics::Computed, metrics::Failure>,
    /// For the pod metrics (Resource, ContainerResource, Pods): the listed pods' names,
    /// the calculator's grouping, each pod's sample, and why each unready pod's CPU
    /// sample was left out (H-77; `None` for a Pending pod).
    pub pods: Option<PodTrace>,
    /// For Object and External value targets: the ready pods counted (H-95).
    pub ready_pods: Option<i64>,
}

/// The pods of one pod metric, as the calculator grouped them.
#[derive(Clone, Debug)]
pub(crate) struct PodTrace {
    pub names: Vec<String>,
    pub groups: super::pods::Groups,
    pub values: Vec<Option<i64>>,
    pub unready_why: Vec<Option<super::pods::CpuUnready>>,
}

/// The normalization as it ran (H-47..H-49).
#[derive(Clone, Debug)]
pub(crate) struct NormTrace {
    /// The max over metrics (H-64; −1 when none) and the metric that gave it.
    pub metric_desired: i32,
    pub metric_name: String,
    /// The count normalized: the max over metrics, negatives as 0 (H-47).
    pub proposal: i32,
    pub normalized: normalize::Normalized,
    /// H-49 lifted the count to minReplicas.
    pub from_zero_floor: bool,
}

/// What explain reads of a sync.
#[derive(Clone, Debug, Default)]
pub(crate) struct SyncTrace {
    pub branch: Option<Branch>,
    pub metrics: Vec<MetricTrace>,
    pub normalized: Option<NormTrace>,
    /// The memory after H-108 (the initial recommendation), as normalization read it.
    pub memory_before: Option<HpaMemory>,
}

/// H-51: `retry.DefaultRetry` allows five attempts.
const MAX_SCALE_ATTEMPTS: u32 = 5;

/// Puts a listed pod's record at its position: appended when the position is new, in
/// place of the earlier pod of its name otherwise (H-59: the later pod of a name wins, at
/// the earlier one's place).
fn put<T>(records: &mut Vec<T>, at: usize, record: T) {
    match records.get_mut(at) {
        Some(slot) => *slot = record,
        None => records.push(record),
    }
}

impl HpaSync {
    /// Starts a sync: the first call is ready at [`HpaSync::next`].
    pub fn new(input: HpaSyncInput) -> HpaSync {
        let hpa = &input.hpa;
        let reference = format!(
            "{}/{}/{}",
            hpa.spec.scale_target_ref.kind, hpa.metadata.namespace, hpa.spec.scale_target_ref.name
        );
        let mut sync = HpaSync {
            status: hpa.status.clone(),
            events: Vec::new(),
            memory: input.memory.clone(),
            phase: Phase::Mappings,
            pending: None,
            done: None,
            reference,
            mappings: Vec::new(),
            mapping_at: 0,
            first_scale_error: None,
            target: GroupResource::default(),
            scale: None,
            current: 0,
            min: hpa.spec.min_replicas.unwrap_or(1),
            selector: None,
            selector_text: None,
            pods: Arc::new(Vec::new()),
            listed: Vec::new(),
            names: PodNames::default(),
            facts: Vec::new(),
            requested: Vec::new(),
            statuses: None,
            aggregate: Aggregate::default(),
            desired: 0,
            reason: String::new(),
            attempts: 0,
            rescaled_to: None,
            error: None,
            answers: Vec::new(),
            pods_answer: None,
            trace: None,
            input,
        };
        sync.start();
        sync
    }

    /// A sync that records what explain reads ([`SyncTrace`]); it decides the same.
    pub(crate) fn traced(input: HpaSyncInput) -> HpaSync {
        let mut sync = HpaSync::new(input);
        sync.trace = Some(Box::default());
        sync
    }

    pub(crate) fn trace(&self) -> Option<&SyncTrace> {
        self.trace.as_deref()
    }

    fn branch(&mut self, b: Branch) {
        if let Some(t) = self.trace.as_mut() {
            t.branch = Some(b);
        }
    }

    /// The machine at a plain state: the input's sync with each answer reported in turn.
    pub fn from_state(state: HpaSyncState) -> Result<HpaSync> {
        let mut sync = HpaSync::new(state.input);
        for (i, answer) in state.answers.into_iter().enumerate() {
            sync.report(answer)
                .map_err(|e| e.under(&format!("answers[{i}]")))?;
        }
        Ok(sync)
    }

    /// The plain state of this machine (`answers` as reported; the pods answer as the
    /// pods of the selector, which the engine reads the same).
    pub fn state(&self) -> HpaSyncState {
        let mut answers = self.answers.clone();
        if let Some(slot) = self.pods_answer.and_then(|i| answers.get_mut(i)) {
            *slot = HpaAnswer::Pods {
                pods: Arc::clone(&self.pods),
            };
        }
        HpaSyncState {
            input: self.input.clone(),
            answers,
        }
    }

    /// The next step: the call the engine waits for, or the end.
    pub fn next(&self) -> HpaStep {
        match (&self.pending, &self.done) {
            (Some(call), _) => HpaStep::Call { call: call.clone() },
            (None, Some(done)) => HpaStep::Done { done: done.clone() },
            (None, None) => HpaStep::Done {
                done: self.finish_value(),
            },
        }
    }

    /// The call the engine waits for, if any.
    pub fn pending(&self) -> Option<&HpaCall> {
        self.pending.as_ref()
    }

    /// The outcome, once there is no call left.
    pub fn into_done(self) -> Option<HpaSyncDone> {
        self.done
    }

    /// Reports the answer to the pending call. An answer of the wrong kind is refused
    /// (and changes nothing).
    pub fn report(&mut self, answer: HpaAnswer) -> Result<()> {
        let Some(call) = self.pending.take() else {
            return Err(outcome("the sync is done: there is no call to answer"));
        };
        let fits = matches!(
            (&call, &answer),
            (
                HpaCall::ResolveTarget { .. },
                HpaAnswer::Mappings { .. } | HpaAnswer::Error { .. }
            ) | (
                HpaCall::GetScale { .. },
                HpaAnswer::Scale { .. } | HpaAnswer::Error { .. }
            ) | (HpaCall::ListPods { .. }, HpaAnswer::Pods { .. })
                | (HpaCall::FetchMetric { .. }, HpaAnswer::Metric { .. })
                | (
                    HpaCall::UpdateScale { .. },
                    HpaAnswer::Ok | HpaAnswer::Error { .. }
                )
                | (
                    HpaCall::UpdateStatus { .. },
                    HpaAnswer::Ok | HpaAnswer::Error { .. }
                )
        );
        if !fits {
            let wanted = match &call {
                HpaCall::ResolveTarget { .. } => "mappings or error",
                HpaCall::GetScale { .. } => "scale or error",
                HpaCall::ListPods { .. } => "pods",
                HpaCall::FetchMetric { .. } => "metric",
                HpaCall::UpdateScale { .. } | HpaCall::UpdateStatus { .. } => "ok or error",
            };
            let name = call.name();
            self.pending = Some(call);
            return Err(outcome(&format!("the answer to {name} must be {wanted}")));
        }
        match answer {
            // The pods are kept once (filtered, which replays the same): not twice.
            HpaAnswer::Pods { pods } => {
                self.pods_answer = Some(self.answers.len());
                self.answers.push(HpaAnswer::Pods {
                    pods: Arc::new(Vec::new()),
                });
                self.phase = Phase::Finished;
                self.after_pods(pods);
            }
            answer => {
                self.advance(&answer);
                self.answers.push(answer);
            }
        }
        Ok(())
    }

    fn call(&mut self, call: HpaCall) {
        self.pending = Some(call);
    }

    fn now(&self) -> Time {
        self.input.now
    }

    fn namespace(&self) -> String {
        self.input.hpa.metadata.namespace.clone()
    }

    fn set(&mut self, type_: &str, value: bool, reason: &str, message: String) {
        let now = self.now();
        status::set_condition(&mut self.status, type_, value, reason, message, now);
    }

    // ---- H-34..H-37: the target and its scale -----------------------------------------

    fn start(&mut self) {
        let api_version = self.input.hpa.spec.scale_target_ref.api_version.clone();
        match parse_group(&api_version) {
            Err(e) => {
                let err = format!("invalid API version in scale target reference: {e}");
                self.scale_failure(e, err);
            }
            Ok(group) => {
                let kind = self.input.hpa.spec.scale_target_ref.kind.clone();
                self.call(HpaCall::ResolveTarget { group, kind });
            }
        }
    }

    /// H-34..H-36: the target cannot be read: event, condition, status write if changed
    /// (its error only logged), the error returned.
    fn scale_failure(&mut self, cause: String, error: String) {
        self.events
            .push(HpaEvent::warning(events::FAILED_GET_SCALE, cause.clone()));
        self.set(
            ABLE_TO_SCALE,
            false,
            "FailedGetScale",
            format!("the HPA controller was unable to get the target's current scale: {cause}"),
        );
        self.write_status_then(Phase::FailureStatus { error, event: None });
    }

    fn get_scale(&mut self, at: usize) {
        let Some(m) = self.mappings.get(at).cloned() else {
            return;
        };
        self.mapping_at = at;
        let name = self.input.hpa.spec.scale_target_ref.name.clone();
        let namespace = self.namespace();
        self.call(HpaCall::GetScale {
            namespace,
            name,
            group: m.group,
            resource: m.resource,
        });
    }

    fn advance(&mut self, answer: &HpaAnswer) {
        match (std::mem::replace(&mut self.phase, Phase::Finished), answer) {
            (Phase::Mappings, HpaAnswer::Error { message, .. }) => {
                let err =
                    format!("unable to determine resource for scale target reference: {message}");
                self.scale_failure(message.clone(), err);
            }
            (Phase::Mappings, HpaAnswer::Mappings { resources }) => {
                self.mappings.clone_from(resources);
                if self.mappings.is_empty() {
                    let cause = "unrecognized resource".to_owned();
                    let err = format!(
                        "failed to query scale subresource for {}: {cause}",
                        self.reference
                    );
                    self.scale_failure(cause, err);
                } else {
                    self.phase = Phase::Scale;
                    self.get_scale(0);
                }
            }
            (Phase::Scale, HpaAnswer::Error { message, .. }) => {
                if self.mapping_at == 0 {
                    self.first_scale_error = Some(message.clone());
                }
                if self.mapping_at + 1 < self.mappings.len() {
                    self.phase = Phase::Scale;
                    self.get_scale(self.mapping_at + 1);
                } else {
                    let cause = self.first_scale_error.take().unwrap_or_default();
                    let err = format!(
                        "failed to query scale subresource for {}: {cause}",
                        self.reference
                    );
                    self.scale_failure(cause, err);
                }
            }
            (Phase::Scale, HpaAnswer::Scale { scale }) => {
                self.target = self
                    .mappings
                    .get(self.mapping_at)
                    .cloned()
                    .unwrap_or_default();
                self.current = scale.spec.replicas;
                self.scale = Some(scale.clone());
                self.after_scale();
            }
            (Phase::Metric(i), HpaAnswer::Metric { response }) => {
                self.metric_answered(i, response);
                self.metric(i + 1);
            }
            (Phase::Update, HpaAnswer::Ok) => self.rescaled(),
            (Phase::Update, HpaAnswer::Error { reason, message }) => {
                // H-51: after any failed write the scale is read again.
                self.phase = Phase::Reget {
                    error: ApiError::new(reason, message.clone()),
                };
                let name = self.input.hpa.spec.scale_target_ref.name.clone();
                let namespace = self.namespace();
                self.call(HpaCall::GetScale {
                    namespace,
                    name,
                    group: self.target.group.clone(),
                    resource: self.target.resource.clone(),
                });
            }
            (Phase::Reget { error }, answer) => {
                if let HpaAnswer::Scale { scale } = answer {
                    self.scale = Some(scale.clone());
                }
                if error.reason == "Conflict" && self.attempts < MAX_SCALE_ATTEMPTS {
                    self.update_scale();
                } else {
                    self.rescale_failed(&error.message);
                }
            }
            (Phase::FailureStatus { error, event }, answer) => {
                self.status_answered(answer, true);
                self.events.extend(event);
                self.finish(Some(error));
            }
            (Phase::FinalStatus, answer) => {
                if let Some(e) = self.status_answered(answer, false) {
                    self.error = Some(e);
                }
                let error = self.error.take();
                self.finish(error);
            }
            (phase, _) => {
                // `report` only lets through answers that fit the pending call.
                self.phase = phase;
            }
        }
    }

    // ---- H-37..H-44: the branches ------------------------------------------------------

    fn after_scale(&mut self) {
        self.set(
            ABLE_TO_SCALE,
            true,
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale".into(),
        );
        let now = self.now();
        self.memory.record_initial(self.current, now);
        if let Some(t) = self.trace.as_mut() {
            t.memory_before = Some(self.memory.clone());
        }
        let hpa = &self.input.hpa;
        let gate = self.input.feature_gates.hpa_scale_to_zero;
        let has_obj_ext = hpa
            .metrics()
            .iter()
            .any(|m| m.type_ == "Object" || m.type_ == "External");
        let scaled_to_zero = gate && status::scaled_to_zero(&self.status);
        let max = hpa.spec.max_replicas;
        if self.current == 0 {
            // H-41: metrics are computed iff ScaledToZero is True and (min ≠ 0 or an
            // Object/External metric exists).
            if scaled_to_zero && (self.min != 0 || has_obj_ext) {
                self.branch(Branch::Metrics);
                return self.compute_metrics();
            }
            self.branch(Branch::Disabled);
            // H-41: scaling disabled.
            self.desired = 0;
            self.set(
                SCALING_ACTIVE,
                false,
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero".into(),
            );
            if !gate {
                status::remove_condition(&mut self.status, SCALED_TO_ZERO);
            }
            return self.decided(false);
        }
        if self.current > max {
            self.branch(Branch::AboveMax);
            self.reason = events::ABOVE_MAX.into();
            self.desired = max;
            return self.decided(true);
        }
        if self.current < self.min {
            self.branch(Branch::BelowMin);
            self.reason = events::BELOW_MIN.into();
            self.desired = self.min;
            return self.decided(true);
        }
        self.branch(Branch::Metrics);
        self.compute_metrics()
    }

    // ---- H-57..H-61: the selector and the overlap check --------------------------------

    fn compute_metrics(&mut self) {
        let text = self
            .scale
            .as_ref()
            .map(|s| s.status.selector.clone())
            .unwrap_or_default();
        if text.is_empty() {
            self.events.push(HpaEvent::warning(
                events::SELECTOR_REQUIRED,
                "selector is required",
            ));
            self.set(
                SCALING_ACTIVE,
                false,
                "InvalidSelector",
                "the HPA target's scale is missing a selector".into(),
            );
            return self.metrics_fatal("selector is required".into());
        }
        match Selector::parse(&text) {
            Err(e) => {
                let msg = format!(
                    "couldn't convert selector into a corresponding internal selector object: {}",
                    e.0
                );
                self.events
                    .push(HpaEvent::warning(events::INVALID_SELECTOR, msg.clone()));
                self.set(SCALING_ACTIVE, false, "InvalidSelector", msg.clone());
                self.metrics_fatal(msg)
            }
            Ok(sel) => {
                self.selector = Some(sel);
                self.selector_text = Some(text.clone());
                self.phase = Phase::Pods;
                let namespace = self.namespace();
                self.call(HpaCall::ListPods {
                    namespace,
                    selector: text,
                });
            }
        }
    }

    fn after_pods(&mut self, pods: Arc<Vec<HpaPod>>) {
        let ns = self.input.hpa.metadata.namespace.clone();
        let selector = self.selector.clone().unwrap_or(Selector::Nothing);
        // One pass over the answered pods, each read once: whether the selector names it,
        // its name (deduplicated), its facts and the requests the utilization metrics
        // divide by. With 10,000 pods they do not stay in the caches between passes.
        let mut requested: Vec<Requested> = Vec::new();
        for (resource, container) in self
            .input
            .hpa
            .metrics()
            .iter()
            .filter_map(metrics::utilization_request)
        {
            if !requested
                .iter()
                .any(|r| r.resource == resource && r.container == container)
            {
                requested.push(Requested {
                    resource: resource.to_owned(),
                    container: container.to_owned(),
                    values: Vec::with_capacity(pods.len()),
                });
            }
        }
        let gate = self.input.feature_gates.pod_level_resources;
        // The names are indexed after the pass (`PodNames::append`); should one repeat,
        // the pass runs again with each name looked up as it comes (`PodNames::insert`).
        let mut names = PodNames::with_capacity(pods.len());
        let (mut listed, mut facts) = (Vec::new(), Vec::new());
        let mut pass = |position: &mut dyn FnMut(&str) -> usize| {
            listed = Vec::with_capacity(pods.len());
            facts = Vec::with_capacity(pods.len());
            for r in &mut requested {
                r.values.clear();
            }
            for (i, p) in pods.iter().enumerate() {
                if !p.listed_by(&ns, &selector) {
                    continue;
                }
                let at = position(&p.metadata.name);
                put(&mut listed, at, i);
                put(&mut facts, at, PodFacts::of(p));
                for r in &mut requested {
                    let v = pods::pod_request(p, &r.container, &r.resource, gate).ok();
                    put(&mut r.values, at, v);
                }
            }
        };
        pass(&mut |name| names.append(name));
        if !names.index_unique() {
            names = PodNames::with_capacity(pods.len());
            pass(&mut |name| names.insert(name).0);
        }
        self.names = names;
        self.listed = listed;
        self.facts = facts;
        self.requested = requested;
        self.pods = pods;
        // H-59: the registered HPAs of the namespace whose stored selector matches one of
        // these pods; this HPA's own (just stored) selector matches them all.
        if !self.listed.is_empty() {
            let mut keys = vec![self.input.key.clone()];
            for other in &self.input.other_hpa_selectors {
                let key = format!("{}/{}", other.namespace, other.name);
                if other.namespace != ns || key == self.input.key || other.selector.is_empty() {
                    continue;
                }
                let Ok(theirs) = Selector::parse(&other.selector) else {
                    continue;
                };
                if self.listed_pods().any(|p| p.metadata.selected_by(&theirs))
                    && !keys.contains(&key)
                {
                    keys.push(key);
                }
            }
            if keys.len() > 1 {
                crate::sort::sort(&mut keys);
                let msg = format!(
                    "pods by selector {} are controlled by multiple HPAs: [{}]",
                    self.selector_text.clone().unwrap_or_default(),
                    keys.join(" ")
                );
                self.events
                    .push(HpaEvent::warning(events::AMBIGUOUS_SELECTOR, msg.clone()));
                self.set(SCALING_ACTIVE, false, "AmbiguousSelector", msg.clone());
                return self.metrics_fatal(msg);
            }
        }
        self.statuses = Some(vec![
            MetricStatus::default();
            self.input.hpa.metrics().len()
        ]);
        self.metric(0);
    }

    // ---- H-62..H-75: one metric at a time ----------------------------------------------

    fn metric(&mut self, from: usize) {
        let metrics = self.input.hpa.metrics();
        let ns = self.input.hpa.metadata.namespace.clone();
        let selector = self.selector_text.clone().unwrap_or_default();
        for i in from..metrics.len() {
            let Some(spec) = metrics.get(i) else { break };
            match metrics::query(spec, &ns, &selector) {
                Ok(query) => {
                    self.phase = Phase::Metric(i);
                    self.call(HpaCall::FetchMetric { index: i, query });
                    return;
                }
                Err(f) => {
                    self.events
                        .push(HpaEvent::warning(f.reason, f.inner.clone()));
                    if let Some(t) = self.trace.as_mut() {
                        t.metrics.push(MetricTrace {
                            index: i,
                            outcome: Err(f.clone()),
                            pods: None,
                            ready_pods: None,
                        });
                    }
                    self.aggregate.fail(f);
                }
            }
        }
        self.metrics_done();
    }

    /// The pods of the namespace that the selector names (H-59, H-82).
    fn listed_pods(&self) -> impl Iterator<Item = &HpaPod> {
        self.listed.iter().filter_map(|&i| self.pods.get(i))
    }

    fn context<'a>(&'a self, pods: &'a [&'a HpaPod]) -> Context<'a> {
        Context {
            pods,
            names: &self.names,
            facts: &self.facts,
            requested: &self.requested,
            startup: StartupPeriods {
                cpu_initialization: Duration::from_seconds(
                    self.input.config.cpu_initialization_period_seconds,
                ),
                readiness_delay: Duration::from_seconds(
                    self.input.config.delay_of_initial_readiness_status_seconds,
                ),
            },
            now: self.now(),
            tolerances: tolerances(&self.input),
            pod_level_resources: self.input.feature_gates.pod_level_resources,
        }
    }

    fn metric_answered(&mut self, i: usize, response: &MetricResponse) {
        let Some(spec) = self.input.hpa.metrics().get(i) else {
            return;
        };
        let mut pods: Vec<&HpaPod> = Vec::with_capacity(self.listed.len());
        pods.extend(self.listed_pods());
        let ctx = self.context(&pods);
        let counts = ScaleCounts {
            spec: self.scale.as_ref().map_or(0, |s| s.spec.replicas),
            status: self.scale.as_ref().map_or(0, |s| s.status.replicas),
        };
        let result = metrics::compute(
            spec,
            &ctx,
            counts,
            &self.input.hpa.metadata.namespace,
            response,
        );
        if self.trace.is_some() {
            let t = metric_trace(i, spec, &ctx, response, &result);
            if let Some(trace) = self.trace.as_mut() {
                trace.metrics.push(t);
            }
        }
        match result {
            Ok(c) => {
                self.aggregate.propose(&c);
                if let Some(slot) = self.statuses.as_mut().and_then(|s| s.get_mut(i)) {
                    *slot = c.status;
                }
            }
            Err(f) => {
                self.events
                    .push(HpaEvent::warning(f.reason, f.inner.clone()));
                self.aggregate.fail(f);
            }
        }
    }

    fn metrics_done(&mut self) {
        let total = self.input.hpa.metrics().len();
        let spec_replicas = self.scale.as_ref().map_or(0, |s| s.spec.replicas);
        let error = self.aggregate.error(total);
        if self.aggregate.is_fatal(total, spec_replicas) {
            // H-65: the first failure's condition.
            if let Some(f) = self.aggregate.first_failure.clone() {
                self.set(
                    SCALING_ACTIVE,
                    false,
                    f.reason,
                    format!(
                        "the HPA was unable to compute the replica count: {}",
                        f.inner
                    ),
                );
            } else {
                // H-66 edge: no metric at all sets an empty condition.
                self.set("", false, "", String::new());
            }
            match error {
                Some(e) => return self.metrics_fatal(e),
                None => {
                    // Not fatal upstream (no error): desired 0, normalized.
                    return self.normalize(-1, String::new());
                }
            }
        }
        let name = self.aggregate.name.clone();
        self.set(
            SCALING_ACTIVE,
            true,
            "ValidMetricFound",
            format!("the HPA was able to successfully calculate a replica count from {name}"),
        );
        self.error = error;
        self.normalize(self.aggregate.replicas, name);
    }

    /// H-124 `setCurrentReplicasAndMetricsInStatus`: the status rebuilt on a failure path,
    /// the desired count read kept.
    fn keep_desired_status(&mut self) {
        let desired = self.status.desired_replicas;
        let statuses = self.statuses.take();
        let now = self.now();
        status::set_status(
            &mut self.status,
            self.current,
            desired,
            statuses,
            false,
            now,
        );
    }

    /// H-45: the metrics gave no count: the status (desired kept) is written if changed,
    /// then the event, and the error returned.
    fn metrics_fatal(&mut self, err: String) {
        self.keep_desired_status();
        let error = format!(
            "failed to compute desired number of replicas based on listed metrics for {}: {err}",
            self.reference
        );
        let event = Some(HpaEvent::warning(
            events::FAILED_COMPUTE_METRICS_REPLICAS,
            err,
        ));
        self.write_status_then(Phase::FailureStatus { error, event });
    }

    // ---- H-47..H-50: normalization -----------------------------------------------------

    fn normalize(&mut self, metric_desired: i32, metric_name: String) {
        let traced = self
            .trace
            .is_some()
            .then(|| (metric_desired, metric_name.clone()));
        let current = self.current;
        let mut desired = 0;
        let mut rescale_metric = String::new();
        if metric_desired > desired {
            desired = metric_desired;
            rescale_metric = metric_name;
        }
        if desired > current {
            self.reason = events::above_target(&rescale_metric);
        }
        if desired < current {
            self.reason = events::BELOW_TARGET.into();
        }
        let bounds = Bounds {
            current,
            min: self.min,
            max: self.input.hpa.spec.max_replicas,
        };
        let now = self.now();
        let n = match &self.input.hpa.spec.behavior {
            None => {
                let cap = normalize::LegacyCap {
                    factor: self.input.config.scale_up_limit_factor,
                    minimum: self.input.config.scale_up_limit_minimum,
                };
                normalize::legacy(
                    &mut self.memory,
                    bounds,
                    cap,
                    desired,
                    self.input.config.downscale_window(),
                    now,
                )
            }
            Some(b) => normalize::with_behavior(
                &mut self.memory,
                b,
                bounds,
                desired,
                self.input.config.downscale_window(),
                now,
            ),
        };
        self.set(
            ABLE_TO_SCALE,
            true,
            n.stabilization.reason,
            n.stabilization.message.into(),
        );
        self.set(
            SCALING_LIMITED,
            n.limited(),
            n.limit.reason,
            n.limit.message.into(),
        );
        if let (Some(t), Some((metric_desired, metric_name))) = (self.trace.as_mut(), traced) {
            t.normalized = Some(NormTrace {
                metric_desired,
                metric_name,
                proposal: desired,
                normalized: n,
                from_zero_floor: false,
            });
        }
        let mut desired = n.desired;
        // H-49: scale from zero up to min.
        let gate = self.input.feature_gates.hpa_scale_to_zero;
        if current == 0
            && self.min != 0
            && gate
            && status::scaled_to_zero(&self.status)
            && desired < self.min
        {
            desired = self.min;
            if self.reason.is_empty() {
                self.reason = events::BELOW_MIN.into();
            }
            if let Some(n) = self.trace.as_mut().and_then(|t| t.normalized.as_mut()) {
                n.from_zero_floor = true;
            }
        }
        self.desired = desired;
        self.decided(desired != current);
    }

    // ---- H-51..H-55: the write ---------------------------------------------------------

    fn decided(&mut self, rescale: bool) {
        if rescale {
            self.update_scale();
        } else {
            self.desired = self.current;
            self.final_status(false);
        }
    }

    fn update_scale(&mut self) {
        self.attempts += 1;
        self.phase = Phase::Update;
        let mut scale = self
            .scale
            .as_ref()
            .map(|s| (*s.wire).clone())
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        set_replicas(&mut scale, self.desired);
        let name = self.input.hpa.spec.scale_target_ref.name.clone();
        let namespace = self.namespace();
        self.call(HpaCall::UpdateScale {
            namespace,
            name,
            group: self.target.group.clone(),
            resource: self.target.resource.clone(),
            replicas: self.desired,
            scale,
        });
    }

    /// H-52: the write failed for good.
    fn rescale_failed(&mut self, err: &str) {
        self.events.push(HpaEvent::warning(
            events::FAILED_RESCALE,
            events::rescale_failed(self.desired, &self.reason, err),
        ));
        self.set(
            ABLE_TO_SCALE,
            false,
            "FailedUpdateScale",
            format!("the HPA controller was unable to update the target scale: {err}"),
        );
        self.keep_desired_status();
        let error = format!("failed to rescale {}: {err}", self.reference);
        self.write_status_then(Phase::FailureStatus { error, event: None });
    }

    /// H-53: the write succeeded.
    fn rescaled(&mut self) {
        let (current, desired) = (self.current, self.desired);
        self.set(
            ABLE_TO_SCALE,
            true,
            "SucceededRescale",
            format!("the HPA controller was able to update the target scale to {desired}"),
        );
        self.events.push(HpaEvent::normal(
            events::SUCCESSFUL_RESCALE,
            events::rescaled(desired, &self.reason),
        ));
        if let Some(b) = &self.input.hpa.spec.behavior {
            let rules = if desired > current {
                b.scale_up.as_ref()
            } else {
                b.scale_down.as_ref()
            };
            let longest = normalize::longest_period(rules);
            let now = self.now();
            self.memory
                .store_scale_event(current, desired, longest, now);
        }
        let hpa = &self.input.hpa;
        if self.input.feature_gates.hpa_scale_to_zero {
            let has_obj_ext = hpa
                .metrics()
                .iter()
                .any(|m| m.type_ == "Object" || m.type_ == "External");
            if current > 0 && desired == 0 && self.min == 0 && has_obj_ext {
                self.set(
                    SCALED_TO_ZERO,
                    true,
                    "ScaledToZero",
                    "the HPA controller scaled the workload to zero".into(),
                );
            } else {
                self.set(
                    SCALED_TO_ZERO,
                    false,
                    "NotScaledToZero",
                    "the HPA controller did not scale the workload to zero".into(),
                );
            }
        } else {
            status::remove_condition(&mut self.status, SCALED_TO_ZERO);
        }
        self.rescaled_to = Some(desired);
        self.final_status(true);
    }

    /// H-55: the status rebuilt and written if it changed.
    fn final_status(&mut self, rescaled: bool) {
        let statuses = self.statuses.take();
        let now = self.now();
        status::set_status(
            &mut self.status,
            self.current,
            self.desired,
            statuses,
            rescaled,
            now,
        );
        self.write_status_then(Phase::FinalStatus);
    }

    /// H-127: a status write when the status differs from the one read; `then` says what
    /// the write's answer leads to.
    fn write_status_then(&mut self, then: Phase) {
        if status::semantically_equal(&self.input.hpa.status, &self.status) {
            self.phase = then;
            self.advance_without_write();
            return;
        }
        self.phase = then;
        let status = serde_json::to_value(&self.status).unwrap_or(Value::Null);
        // The stored object with this status in place of the old one, which is not
        // copied (copying it only to replace it was a twentieth of the sync).
        let object = match &*self.input.hpa.wire {
            Value::Object(map) => {
                let mut copy = serde_json::Map::new();
                copy.extend(map.iter().map(|(k, v)| {
                    let v = if k == "status" { &status } else { v };
                    (k.clone(), v.clone())
                }));
                if !copy.contains_key("status") {
                    copy.insert("status".into(), status.clone());
                }
                Value::Object(copy)
            }
            other => other.clone(),
        };
        let name = self.input.hpa.metadata.name.clone();
        let namespace = self.namespace();
        self.call(HpaCall::UpdateStatus {
            namespace,
            name,
            status,
            object,
        });
    }

    fn advance_without_write(&mut self) {
        match std::mem::replace(&mut self.phase, Phase::Finished) {
            Phase::FailureStatus { error, event } => {
                self.events.extend(event);
                self.finish(Some(error));
            }
            Phase::FinalStatus => {
                let error = self.error.take();
                self.finish(error);
            }
            other => self.phase = other,
        }
    }

    /// H-128: a failed status write records its event; the error it makes.
    fn status_answered(&mut self, answer: &HpaAnswer, _logged_only: bool) -> Option<String> {
        match answer {
            HpaAnswer::Error { message, .. } => {
                self.events.push(HpaEvent::warning(
                    events::FAILED_UPDATE_STATUS,
                    message.clone(),
                ));
                Some(format!(
                    "failed to update status for {}: {message}",
                    self.input.hpa.metadata.name
                ))
            }
            _ => None,
        }
    }

    fn finish_value(&self) -> HpaSyncDone {
        HpaSyncDone {
            events: self.events.clone(),
            error: self.error.clone(),
            memory: self.memory.clone(),
            status: self.status.clone(),
            rescaled_to: self.rescaled_to,
            selector: self.selector_text.clone(),
            requeue_after_seconds: self.input.config.sync_period_seconds,
        }
    }

    fn finish(&mut self, error: Option<String>) {
        self.phase = Phase::Finished;
        self.pending = None;
        self.error = error;
        self.done = Some(self.finish_value());
    }
}

/// Explain's record of one metric: the calculator's grouping of the pods for the pod
/// metrics, the ready-pod count for the Object and External value targets.
fn metric_trace(
    index: usize,
    spec: &super::model::MetricSpec,
    ctx: &Context<'_>,
    response: &MetricResponse,
    result: &std::result::Result<metrics::Computed, metrics::Failure>,
) -> MetricTrace {
    let resource = match spec.type_.as_str() {
        "Resource" => spec.resource.as_ref().map(|r| r.name.as_str()),
        "ContainerResource" => spec.container_resource.as_ref().map(|r| r.name.as_str()),
        "Pods" => Some(""),
        _ => None,
    };
    let pods = resource.and_then(|resource| {
        let (groups, values, unready_why) = super::calculator::grouping(ctx, response, resource)?;
        Some(PodTrace {
            names: ctx.pods.iter().map(|p| p.metadata.name.clone()).collect(),
            groups,
            values,
            unready_why,
        })
    });
    let value_target = match spec.type_.as_str() {
        "Object" => spec
            .object
            .as_ref()
            .is_some_and(|o| o.target.type_ == "Value"),
        "External" => spec
            .external
            .as_ref()
            .is_some_and(|e| e.target.average_value.is_none()),
        _ => false,
    };
    MetricTrace {
        index,
        outcome: result.clone(),
        pods,
        ready_pods: value_target.then(|| super::pods::ready_count(ctx.facts)),
    }
}

/// H-67: the tolerances of an HPA: the controller's, or per direction from the behavior
/// when the gate allows.
pub(crate) fn tolerances(input: &HpaSyncInput) -> Tolerances {
    let mut t = Tolerances {
        scale_up: input.config.tolerance,
        scale_down: input.config.tolerance,
    };
    let Some(b) = &input.hpa.spec.behavior else {
        return t;
    };
    if !input.feature_gates.hpa_configurable_tolerance {
        return t;
    }
    if let Some(q) = b.scale_down.as_ref().and_then(|r| r.tolerance.as_ref()) {
        t.scale_down = q.approximate_f64();
    }
    if let Some(q) = b.scale_up.as_ref().and_then(|r| r.tolerance.as_ref()) {
        t.scale_up = q.approximate_f64();
    }
    t
}

/// H-34 `schema.ParseGroupVersion`, the group only.
fn parse_group(api_version: &str) -> std::result::Result<String, String> {
    if api_version.is_empty() || api_version == "/" {
        return Ok(String::new());
    }
    match api_version.matches('/').count() {
        0 => Ok(String::new()),
        1 => Ok(api_version.split('/').next().unwrap_or_default().to_owned()),
        _ => Err(format!("unexpected GroupVersion string: {api_version}")),
    }
}

fn set_replicas(scale: &mut Value, replicas: i32) {
    if let Value::Object(map) = scale {
        let spec = map
            .entry("spec")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !spec.is_object() {
            *spec = Value::Object(serde_json::Map::new());
        }
        if let Value::Object(spec) = spec {
            spec.insert("replicas".into(), Value::from(replicas));
        }
    }
}

fn outcome(message: &str) -> Error {
    Error::Outcome {
        path: "answer".into(),
        message: message.into(),
    }
}

/// Runs a whole sync with a host that answers each call at once (tests, benchmarks,
/// hosts with synchronous I/O).
pub fn run_sync(
    input: HpaSyncInput,
    mut host: impl FnMut(&HpaCall) -> HpaAnswer,
) -> Result<HpaSyncDone> {
    let mut sync = HpaSync::new(input);
    while let Some(call) = sync.pending().cloned() {
        sync.report(host(&call))?;
    }
    Ok(sync.finish_value())
}
