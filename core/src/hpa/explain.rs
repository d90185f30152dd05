//! "Why N?" for a HorizontalPodAutoscaler (issue 25 point 4): from a snapshot (the HPA,
//! its scale target, the pods, the metrics APIs' answers) what the next sync decides and
//! why: per metric the current value against the target, the usage ratio against the
//! tolerance band, which pods counted and which were left out or assumed at 0 % / 100 %;
//! then the max over metrics, the stabilization window and the recommendation that bounds
//! it, the policy or the min/max that limits the change, the desired count, the conditions
//! and what the sync writes.
//!
//! Explain decides nothing itself: it runs the engine's sync ([`HpaSync`], every rule of
//! the autoscaler) with a host that answers from the snapshot, and reads what the sync
//! recorded as it ran (the calculator's grouping and ratios, the normalization). When the
//! controller's memory is not given (a live cluster: upstream keeps it in process), the
//! sync runs with an assumed memory and again with the memories at the ends of what a
//! memory can do (recent recommendations at either end, recent scale events in either
//! direction): the range of counts the real controller could write.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::deployment::Wire;
use crate::error::{Error, Result};
use crate::quantity::Quantity;
use crate::selector::Selector;
use crate::time::{Duration, Time};

use super::calculator::Tolerances;
use super::client;
use super::events::HpaEvent;
use super::machine::{
    tolerances, Branch, GroupResource, HpaAnswer, HpaCall, HpaStep, HpaSync, HpaSyncDone,
    HpaSyncInput, MetricTrace, SyncTrace,
};
use super::memory::{HpaMemory, Recommendation, ScaleEvent};
use super::model::{
    HorizontalPodAutoscaler, HpaConfig, HpaGates, HpaPod, HpaStatus, MetricSpec, Scale,
};
use super::normalize;
use super::pods::CpuUnready;

/// What to explain: a snapshot of the cluster and the metrics APIs' answers.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaExplainInput {
    /// The controller clock.
    pub now: Time,
    /// The HPA to explain, `name` or `namespace/name`; may be left out when the objects
    /// hold one HPA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hpa: Option<String>,
    /// `kubectl get hpa,deploy,rs,sts,pods -o json`: a v1 List, an array of Lists, or
    /// objects. The HPA, its scale target (its `spec.replicas`, `status.replicas` and
    /// selector are the Scale; a `Scale` object works too) and the pods are read.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub objects: Value,
    /// The metrics APIs' answers as `kubectl get --raw` prints them (`PodMetricsList`,
    /// `MetricValueList`, `ExternalMetricValueList`), and `{api, error}` for an API that
    /// failed ([`client`]).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional, type = "Array<unknown>"))]
    pub metrics: Vec<Value>,
    /// The controller's configuration; each setting not given takes its default.
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
    /// The controller's memory of this HPA, when known (a host that runs the engine keeps
    /// it). Unknown: explain assumes one and gives the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub memory: Option<HpaMemory>,
}

/// The explanation of one HPA's next sync.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaExplanation {
    /// The instant the sync is explained at.
    pub now: Time,
    /// The HPA's namespace.
    pub namespace: String,
    /// The HPA's name.
    pub name: String,
    /// `Kind/name` of the scale target.
    pub target: String,
    /// The Scale as read: `spec.replicas` (the current count), `status.replicas`, the
    /// selector; `None` when it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub scale: Option<HpaScaleSummary>,
    /// The effective `spec.minReplicas` (1 when absent).
    pub min_replicas: i32,
    /// `spec.maxReplicas`.
    pub max_replicas: i32,
    /// `behavior` or `legacy` (no `spec.behavior`).
    pub path: String,
    /// H-67/H-144: a ratio within `[low, high]` means no change.
    pub tolerance: HpaToleranceBand,
    /// Which branch of H-38 the sync took, in words (`None` when the scale was not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub branch: Option<String>,
    /// Each metric of `spec.metrics`, in order.
    pub metrics: Vec<HpaMetricExplanation>,
    /// The max over the metrics (H-64): the count and the metric that gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub chosen: Option<HpaChosen>,
    /// Stabilization (H-104/H-110).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stabilization: Option<HpaStabilizationExplanation>,
    /// The rate and min/max limits (H-106, H-112..H-116).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limit: Option<HpaLimitExplanation>,
    /// The count the sync decides (the scale is written when it differs from the current).
    pub desired_replicas: i32,
    /// The count written to the scale, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rescale_to: Option<i32>,
    /// The conditions after the sync.
    pub conditions: Vec<HpaConditionExplanation>,
    /// The events the sync records.
    pub events: Vec<HpaEvent>,
    /// The error the sync returns (upstream logs it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
    /// The sync's writes, in words.
    pub next_sync: Vec<String>,
    /// When the controller syncs this HPA again, in seconds (the sync period, H-134).
    pub requeue_after_seconds: i64,
    /// The memory the sync used, and what it leaves.
    pub memory: HpaMemoryExplanation,
    /// Facts about the snapshot itself (a metric without an answer, …).
    pub notes: Vec<String>,
    /// [`render_hpa`] of the above.
    pub text: String,
}

/// The target's Scale as the sync read it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaScaleSummary {
    /// `spec.replicas`: the current count.
    pub spec_replicas: i32,
    /// `status.replicas`.
    pub status_replicas: i32,
    /// `status.selector`: the target's pods.
    pub selector: String,
}

/// The tolerances of both directions and the band of ratios they leave unchanged.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaToleranceBand {
    /// The scale-down tolerance.
    pub scale_down: f64,
    /// The scale-up tolerance.
    pub scale_up: f64,
    /// `1 - scaleDown`: the lowest ratio within tolerance.
    pub low: f64,
    /// `1 + scaleUp`: the highest ratio within tolerance.
    pub high: f64,
}

/// One metric of `spec.metrics`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaMetricExplanation {
    /// The metric's position in `spec.metrics`.
    pub index: usize,
    /// The metric's `type`, as `Resource`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The engine's name for it (the one events and conditions use), or the spec's.
    pub name: String,
    /// The target, in words (`50% of request`, `average 100m per pod`, `value 30`).
    pub target: String,
    /// The current value as the status reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub current: Option<String>,
    /// The usage ratio the count started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ratio: Option<f64>,
    /// Whether the ratio is within tolerance (H-144).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub within_tolerance: Option<bool>,
    /// For the pod metrics: each listed pod and how it counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pods: Option<Vec<HpaPodExplanation>>,
    /// For Object and External value targets: the ready pods the ratio multiplies (H-95).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ready_pods: Option<i64>,
    /// The second pass with the missing and unready pods' assumptions (H-85..H-87).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rebalance: Option<HpaRebalanceExplanation>,
    /// The count this metric proposes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub proposal: Option<i32>,
    /// Why it proposes nothing: the condition reason and the message (H-74).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<HpaMetricError>,
    /// The proposal in words, with the rule.
    pub why: String,
}

/// Why a metric proposes nothing.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaMetricError {
    /// The ScalingActive condition's reason (and the event's), as
    /// `FailedGetResourceMetric`.
    pub reason: String,
    /// The error text.
    pub message: String,
}

/// How one pod counted for a pod metric (H-76, H-77).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaPodExplanation {
    /// The pod's name.
    pub name: String,
    /// `ready`, `unready`, `missing` or `ignored`.
    pub class: String,
    /// Why it is not ready, missing or ignored, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub why: Option<String>,
    /// Its sample, in milli-units.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub value: Option<i64>,
}

/// The second pass of a pod metric's count (H-85..H-87).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaRebalanceExplanation {
    /// What the pods without a sample were assumed to use, in words (`None`: none
    /// missing, or left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub missing_assumed: Option<String>,
    /// The unready pods were assumed to use nothing (a scale-up with unready pods).
    pub unready_assumed_zero: bool,
    /// The usage ratio the assumptions give.
    pub new_ratio: f64,
    /// Whether that ratio is within tolerance (no change).
    pub within_tolerance: bool,
    /// The assumption turned the direction around (H-86): no change.
    pub direction_flipped: bool,
}

/// The metric that gave the highest count (H-64).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaChosen {
    /// The highest count over the metrics.
    pub replicas: i32,
    /// The name of the metric that gave it.
    pub metric: String,
    /// The count normalization starts from (H-47: negatives as 0).
    pub proposal: i32,
}

/// The stabilization step: the windows, the recommendations in them and what they gave.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaStabilizationExplanation {
    /// The legacy window, or the scale-down window (seconds).
    pub down_window_seconds: f64,
    /// The scale-up window (behavior path only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub up_window_seconds: Option<f64>,
    /// The recommendations inside the scale-up window, as the sync read them (before it
    /// added its own).
    pub in_up_window: Vec<Recommendation>,
    /// The recommendations inside the scale-down (or legacy) window.
    pub in_down_window: Vec<Recommendation>,
    /// The count stabilization started from.
    pub proposal: i32,
    /// The count it gave.
    pub stabilized: i32,
    /// The recommendation that set the stabilized count, when it is not the proposal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub bound_by: Option<Recommendation>,
    /// The AbleToScale reason it sets.
    pub reason: String,
}

/// The limits step: the rate limits and the min/max bounds, and what they gave.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaLimitExplanation {
    /// `up`, `down` or `none`.
    pub direction: String,
    /// The ScalingLimited reason.
    pub reason: String,
    /// Whether ScalingLimited is True.
    pub limited: bool,
    /// The ScalingLimited message.
    pub message: String,
    /// The count after the limits: the desired replicas.
    pub result: i32,
    /// Behavior path: the direction's policies with their bounds.
    pub policies: Vec<HpaPolicyExplanation>,
    /// Behavior path: the direction's `selectPolicy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub select_policy: Option<String>,
    /// The policy whose bound limited the count (an index into `policies`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limiting_policy: Option<usize>,
}

/// One policy of the direction scaled in, with the bound it allows.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaPolicyExplanation {
    /// The policy's `type`: `Pods` or `Percent`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The policy's `value`.
    pub value: i32,
    /// The policy's `periodSeconds`.
    pub period_seconds: i32,
    /// The replicas at the period's start: current, less the scale-ups and plus the
    /// scale-downs remembered inside it (H-115..H-117).
    pub period_start: i32,
    /// The most (scaling up) or the fewest (scaling down) replicas the policy allows from
    /// `periodStart`; `None` for an unknown type, which is skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub bound: Option<i32>,
}

/// One condition of the status after the sync.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaConditionExplanation {
    /// `type`, as `AbleToScale`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `status`: `True` or `False`.
    pub status: String,
    /// `reason`.
    pub reason: String,
    /// `message`.
    pub message: String,
    /// Set or changed by this sync.
    pub changed: bool,
}

/// The memory the sync used.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaMemoryExplanation {
    /// The memory was given (not assumed).
    pub given: bool,
    /// What was assumed, in words (empty when given).
    pub assumed: String,
    /// Unknown memory: the counts the other memories give.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub range: Option<HpaReplicaRange>,
    /// The memory to keep after this sync.
    pub after: HpaMemory,
}

/// The counts the sync decides under the memories explain tried.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaReplicaRange {
    /// The fewest replicas any tried memory gives.
    pub low: i32,
    /// The most replicas any tried memory gives.
    pub high: i32,
    /// Each memory tried and its count.
    pub tried: Vec<HpaMemoryScenario>,
}

/// One memory explain tried, and the count the sync decides with it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaMemoryScenario {
    /// The memory, in words.
    pub memory: String,
    /// The desired replicas with it.
    pub desired_replicas: i32,
}

// ---- reading the snapshot ------------------------------------------------------------

/// The items of a List, of an array of Lists or objects, or one object.
fn collect_items(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Array(a) => a.iter().for_each(|v| collect_items(v, out)),
        Value::Object(o) => match o.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().for_each(|v| collect_items(v, out)),
            None => out.push(value.clone()),
        },
        _ => {}
    }
}

fn kind_of(v: &Value) -> &str {
    v.get("kind").and_then(Value::as_str).unwrap_or_default()
}

fn name_of(v: &Value) -> (&str, &str) {
    let m = v.get("metadata");
    let get = |k: &str| {
        m.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    (get("namespace"), get("name"))
}

/// The resource a kind is served as (the RESTMapper's answer for the usual kinds).
fn resource_of(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// The target object's Scale (autoscaling/v1) as the API server computes it for the
/// workload kinds: `spec.replicas` (1 when absent), `status.replicas`, the selector.
fn scale_of(target: &Value) -> Result<Wire<Scale>> {
    if kind_of(target) == "Scale" {
        return Wire::from_value(target.clone());
    }
    let replicas = target
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let status = target
        .pointer("/status/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let selector = match target.pointer("/spec/selector") {
        Some(s) if s.is_object() => {
            let sel: crate::model::LabelSelector =
                crate::input::from_value(s.clone()).map_err(|e| e.under("spec.selector"))?;
            match Selector::compile(Some(&sel)) {
                Ok(Selector::All(r)) if r.is_empty() => String::new(),
                Ok(s) => s.to_string(),
                Err(_) => String::new(),
            }
        }
        // A ReplicationController's selector is a map.
        _ => String::new(),
    };
    Wire::from_value(serde_json::json!({
        "apiVersion": "autoscaling/v1", "kind": "Scale",
        "spec": {"replicas": replicas},
        "status": {"replicas": status, "selector": selector},
    }))
}

/// The snapshot read: the HPA, its target, the pods.
struct Snapshot {
    hpa: Value,
    target: Option<Value>,
    pods: Vec<HpaPod>,
}

fn read_snapshot(input: &HpaExplainInput) -> Result<Snapshot> {
    let mut items = Vec::new();
    collect_items(&input.objects, &mut items);
    let hpas: Vec<&Value> = items
        .iter()
        .filter(|i| kind_of(i) == "HorizontalPodAutoscaler")
        .collect();
    let wanted = input.hpa.as_deref();
    let hpa = match wanted {
        Some(w) => hpas.iter().find(|h| {
            let (ns, name) = name_of(h);
            w == name || w == format!("{ns}/{name}")
        }),
        None if hpas.len() == 1 => hpas.first(),
        None => None,
    };
    let Some(hpa) = hpa.map(|h| (*h).clone()) else {
        let names: Vec<String> = hpas
            .iter()
            .map(|h| {
                let (ns, n) = name_of(h);
                format!("{ns}/{n}")
            })
            .collect();
        let message = match (wanted, names.is_empty()) {
            (_, true) => "no HorizontalPodAutoscaler in the objects".to_owned(),
            (Some(w), false) => format!(
                "no HorizontalPodAutoscaler named {w}; the objects hold {}",
                names.join(", ")
            ),
            (None, false) => format!(
                "the objects hold {} HorizontalPodAutoscalers ({}): name one",
                names.len(),
                names.join(", ")
            ),
        };
        return Err(Error::Malformed {
            path: "hpa".into(),
            message,
        });
    };
    let (ns, _) = name_of(&hpa);
    let ns = ns.to_owned();
    let kind = hpa
        .pointer("/spec/scaleTargetRef/kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let tname = hpa
        .pointer("/spec/scaleTargetRef/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let target = items
        .iter()
        .find(|i| {
            let (n, name) = name_of(i);
            (kind_of(i) == kind || kind_of(i) == "Scale") && n == ns && name == tname
        })
        .cloned();
    let mut pods = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if kind_of(item) == "Pod" {
            pods.push(
                crate::input::from_value::<HpaPod>(item.clone())
                    .map_err(|e| e.under(&format!("objects.items[{i}]")))?,
            );
        }
    }
    Ok(Snapshot { hpa, target, pods })
}

// ---- running the sync ----------------------------------------------------------------

/// One run of the engine's sync with the snapshot's answers.
struct Run {
    done: HpaSyncDone,
    trace: SyncTrace,
    calls: Vec<HpaCall>,
    scale: Option<Scale>,
}

fn run(input: HpaSyncInput, snap: &Snapshot, metrics: &[Value]) -> Result<Run> {
    let pods = std::sync::Arc::new(snap.pods.clone());
    run_with(input, |call| {
        Ok(match call {
            HpaCall::ResolveTarget { group, kind } => HpaAnswer::Mappings {
                resources: vec![GroupResource {
                    group: group.clone(),
                    resource: resource_of(kind),
                }],
            },
            HpaCall::GetScale {
                name,
                group,
                resource,
                ..
            } => match &snap.target {
                Some(t) => HpaAnswer::Scale {
                    scale: scale_of(t).map_err(|e| e.under("objects"))?,
                },
                None => {
                    let gr = if group.is_empty() {
                        resource.clone()
                    } else {
                        format!("{resource}.{group}")
                    };
                    HpaAnswer::Error {
                        reason: "NotFound".into(),
                        message: format!("{gr} \"{name}\" not found"),
                    }
                }
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: std::sync::Arc::clone(&pods),
            },
            HpaCall::FetchMetric { query, .. } => HpaAnswer::Metric {
                response: std::sync::Arc::new(client::metric_response(query, metrics, &snap.pods)),
            },
            HpaCall::UpdateScale { .. } | HpaCall::UpdateStatus { .. } => HpaAnswer::Ok,
        })
    })
}

/// The engine's sync, traced, with `host` answering each call.
fn run_with(
    input: HpaSyncInput,
    mut host: impl FnMut(&HpaCall) -> Result<HpaAnswer>,
) -> Result<Run> {
    let mut sync = HpaSync::traced(input);
    let mut calls = Vec::new();
    let mut scale = None;
    while let Some(call) = sync.pending().cloned() {
        let answer = host(&call)?;
        if let HpaAnswer::Scale { scale: s } = &answer {
            scale = Some((**s).clone());
        }
        calls.push(call);
        sync.report(answer)?;
    }
    let trace = sync.trace().cloned().unwrap_or_default();
    let HpaStep::Done { done } = sync.next() else {
        return Err(Error::Outcome {
            path: "hpa".into(),
            message: "the sync did not finish".into(),
        });
    };
    Ok(Run {
        done,
        trace,
        calls,
        scale,
    })
}

fn sync_input(input: &HpaExplainInput, snap: &Snapshot, memory: HpaMemory) -> Result<HpaSyncInput> {
    let mut wire = serde_json::json!({
        "now": input.now,
        "hpa": snap.hpa,
        "memory": memory,
    });
    if let Value::Object(map) = &mut wire {
        map.insert(
            "config".into(),
            serde_json::to_value(&input.config).unwrap_or(Value::Null),
        );
        map.insert(
            "featureGates".into(),
            serde_json::to_value(input.feature_gates).unwrap_or(Value::Null),
        );
    }
    HpaSyncInput::from_value(wire).map_err(|e| match e {
        Error::Malformed { path, message } if path == "memory" => {
            Error::Malformed { path, message }
        }
        e => e.under("objects"),
    })
}

/// Explains the HPA of a snapshot.
pub fn explain_hpa(input: &HpaExplainInput) -> Result<HpaExplanation> {
    let snap = read_snapshot(input)?;
    let given = input.memory.is_some();
    let memory = input.memory.clone().unwrap_or_else(assumed_memory);
    let sync = sync_input(input, &snap, memory)?;
    let hpa = sync.hpa.clone();
    let tol = tolerances(&sync);
    let main = run(sync, &snap, &input.metrics)?;
    let range = if given || main.trace.normalized.is_none() {
        None
    } else {
        Some(memory_range(input, &snap, &hpa, &main)?)
    };
    let notes = snapshot_notes(input, &snap, &hpa, &main);
    let mut e = describe(input.now, &input.config, &hpa, tol, &main, notes);
    e.memory = HpaMemoryExplanation {
        given,
        assumed: if given { String::new() } else { ASSUMED.into() },
        range,
        after: main.done.memory.clone(),
    };
    e.text = render_hpa(&e);
    Ok(e)
}

/// "Why N?" for a sync a host runs itself with its own answers (the forecast's syncs):
/// the engine's sync, traced, with `host` answering each call; the memory is the input's
/// (known). Returns what the sync did and its explanation.
pub(crate) fn explain_sync(
    input: HpaSyncInput,
    mut host: impl FnMut(&HpaCall) -> HpaAnswer,
) -> Result<(HpaSyncDone, HpaExplanation)> {
    let hpa = input.hpa.clone();
    let tol = tolerances(&input);
    let (now, config) = (input.now, input.config.clone());
    let run = run_with(input, |call| Ok(host(call)))?;
    let mut e = describe(now, &config, &hpa, tol, &run, Vec::new());
    e.memory = HpaMemoryExplanation {
        given: true,
        assumed: String::new(),
        range: None,
        after: run.done.memory.clone(),
    };
    e.text = render_hpa(&e);
    Ok((run.done, e))
}

/// [`explain_hpa`] of JSON text.
pub fn explain_hpa_json(bytes: &[u8]) -> Result<HpaExplanation> {
    let input: HpaExplainInput = crate::input::from_json(bytes)?;
    explain_hpa(&input)
}

const ASSUMED: &str = "the controller's memory is unknown: assumed it remembers no recommendation and no scale event inside any window or period (as if every recent recommendation had been this one and nothing had been scaled lately)";

fn assumed_memory() -> HpaMemory {
    HpaMemory {
        recommendations: Some(Vec::new()),
        scale_up_events: Some(Vec::new()),
        scale_down_events: Some(Vec::new()),
    }
}

/// The sync again under the memories at the ends of what a memory can do: nothing
/// remembered (the controller just started: H-108), a recent recommendation at the
/// current count, at 0 or at a count above every bound, each with no recent scale
/// event, a large recent scale-up, or a large recent scale-down (a recent event counts
/// against its direction's policies and widens the other's: H-115, H-116). The
/// stabilized count lies between the current count and the proposal (behavior) or at
/// or above the proposal (legacy), and the policies only narrow it towards the current
/// count, so these memories reach both ends.
fn memory_range(
    input: &HpaExplainInput,
    snap: &Snapshot,
    hpa: &HorizontalPodAutoscaler,
    main: &Run,
) -> Result<HpaReplicaRange> {
    let current = main.scale.as_ref().map_or(0, |s| s.spec.replicas);
    let proposal = main.trace.normalized.as_ref().map_or(0, |n| n.proposal);
    let high = current
        .max(proposal)
        .max(hpa.spec.max_replicas)
        .saturating_add(1)
        .min(i32::MAX / 4);
    let just_before = input.now.plus(Duration::from_nanos(-1_000_000));
    let rec = |r: i32| {
        Some(vec![Recommendation {
            recommendation: r,
            timestamp: just_before,
        }])
    };
    let event = Some(vec![ScaleEvent {
        replica_change: high,
        timestamp: just_before,
        outdated: false,
    }]);
    let mut tried = vec![(
        "nothing yet (a controller that just started)".to_owned(),
        HpaMemory::default(),
    )];
    let recs = [
        ("no recent recommendation".to_owned(), Some(Vec::new())),
        (
            format!("a recent recommendation of {current}"),
            rec(current),
        ),
        ("a recent recommendation of 0".to_owned(), rec(0)),
        (format!("a recent recommendation of {high}"), rec(high)),
    ];
    for (words, recommendations) in recs {
        for (what, up, down) in [
            ("", Some(Vec::new()), Some(Vec::new())),
            (", a recent scale-up", event.clone(), Some(Vec::new())),
            (", a recent scale-down", Some(Vec::new()), event.clone()),
        ] {
            tried.push((
                format!("{words}{what}"),
                HpaMemory {
                    recommendations: recommendations.clone(),
                    scale_up_events: up,
                    scale_down_events: down,
                },
            ));
        }
    }
    let mut out = Vec::new();
    for (memory, m) in tried {
        let r = run(sync_input(input, snap, m)?, snap, &input.metrics)?;
        out.push(HpaMemoryScenario {
            memory,
            desired_replicas: r.done.status.desired_replicas,
        });
    }
    let low = out.iter().map(|s| s.desired_replicas).min().unwrap_or(0);
    let high = out.iter().map(|s| s.desired_replicas).max().unwrap_or(0);
    Ok(HpaReplicaRange {
        low,
        high,
        tried: out,
    })
}

// ---- putting the run in words --------------------------------------------------------

fn q(v: Option<&Quantity>) -> String {
    v.map_or_else(|| "?".into(), Quantity::canonical)
}

/// The target of a metric spec, in words.
fn target_words(spec: &MetricSpec, status_replicas: i32) -> (String, String) {
    match spec.type_.as_str() {
        "Resource" | "ContainerResource" => {
            let (name, t, container) = match (&spec.resource, &spec.container_resource) {
                (Some(r), _) if spec.type_ == "Resource" => (r.name.clone(), &r.target, None),
                (_, Some(c)) => (c.name.clone(), &c.target, Some(c.container.clone())),
                _ => return (spec.type_.clone(), "?".into()),
            };
            let label = match &container {
                Some(c) => format!("{name} of container {c}"),
                None => name.clone(),
            };
            match (&t.average_value, t.average_utilization) {
                (Some(v), _) => (label, format!("average {} per pod", v.canonical())),
                (None, Some(u)) => (label, format!("{u}% of request")),
                _ => (label, "no target".into()),
            }
        }
        "Pods" => match &spec.pods {
            Some(p) => (
                format!("pods metric {}", p.metric.name),
                format!("average {} per pod", q(p.target.average_value.as_ref())),
            ),
            None => ("Pods".into(), "?".into()),
        },
        "Object" => match &spec.object {
            Some(o) => {
                let label = format!(
                    "{} {} metric {}",
                    o.described_object.kind, o.described_object.name, o.metric.name
                );
                if o.target.type_ == "Value" {
                    (label, format!("value {}", q(o.target.value.as_ref())))
                } else {
                    (
                        label,
                        format!(
                            "average {} per pod (the value over the {status_replicas} replicas of the scale's status)",
                            q(o.target.average_value.as_ref())
                        ),
                    )
                }
            }
            None => ("Object".into(), "?".into()),
        },
        "External" => match &spec.external {
            Some(x) => {
                let label = format!("external metric {}", x.metric.name);
                match (&x.target.average_value, &x.target.value) {
                    (Some(v), _) => (
                        label,
                        format!(
                            "average {} per pod (the sum over the {status_replicas} replicas of the scale's status)",
                            v.canonical()
                        ),
                    ),
                    (None, Some(v)) => (label, format!("value {} (the sum)", v.canonical())),
                    _ => (label, "no target".into()),
                }
            }
            None => ("External".into(), "?".into()),
        },
        other => (other.to_owned(), "?".into()),
    }
}

/// The current value of a status entry, in words.
fn current_words(status: &super::model::MetricStatus) -> Option<String> {
    let c = match status.type_.as_str() {
        "Resource" => &status.resource.as_ref()?.current,
        "ContainerResource" => &status.container_resource.as_ref()?.current,
        "Pods" => &status.pods.as_ref()?.current,
        "Object" => &status.object.as_ref()?.current,
        "External" => &status.external.as_ref()?.current,
        _ => return None,
    };
    Some(match (c.average_utilization, &c.average_value, &c.value) {
        (Some(u), Some(v), _) => format!("{u}% of request (average {})", v.canonical()),
        (Some(u), None, _) => format!("{u}% of request"),
        (None, Some(v), _) => format!("average {}", v.canonical()),
        (None, None, Some(v)) => format!("value {}", v.canonical()),
        _ => return None,
    })
}

fn pods_of(t: &MetricTrace, resource: &str) -> Option<Vec<HpaPodExplanation>> {
    let p = t.pods.as_ref()?;
    let g = &p.groups;
    let mut out: Vec<HpaPodExplanation> = p
        .names
        .iter()
        .enumerate()
        .map(|(i, name)| HpaPodExplanation {
            name: name.clone(),
            class: "ready".into(),
            why: None,
            value: p.values.get(i).copied().flatten(),
        })
        .collect();
    for (k, &i) in g.unready.iter().enumerate() {
        if let Some(pe) = out.get_mut(i) {
            pe.class = "unready".into();
            pe.why = Some(match p.unready_why.get(k).copied().flatten() {
                None => "Pending".into(),
                Some(CpuUnready::NoReadinessOrStart) => {
                    "no Ready condition or no start time (its CPU sample is not used)".into()
                }
                Some(CpuUnready::InitializingNotReady) => {
                    "inside the CPU initialization period and not Ready".into()
                }
                Some(CpuUnready::InitializingStaleSample) => {
                    "inside the CPU initialization period, and its sample's window began before it last changed readiness".into()
                }
                Some(CpuUnready::NeverReady) => {
                    "not Ready, and it has not been Ready since the initial readiness delay after its start".into()
                }
            });
        }
    }
    for &i in &g.missing {
        if let Some(pe) = out.get_mut(i) {
            pe.class = "missing".into();
            pe.why = Some(if resource.is_empty() {
                "no sample in the metric's answer".into()
            } else {
                format!("no {resource} sample in the metrics API's answer")
            });
        }
    }
    for &i in &g.ignored {
        if let Some(pe) = out.get_mut(i) {
            pe.class = "ignored".into();
            pe.why = Some("being deleted, or Failed".into());
        }
    }
    Some(out)
}

fn metric_explanation(
    t: &MetricTrace,
    spec: Option<&MetricSpec>,
    status_replicas: i32,
    current: i32,
    tol: Tolerances,
) -> HpaMetricExplanation {
    let (label, target) = spec.map_or_else(
        || ("?".to_owned(), "?".to_owned()),
        |s| target_words(s, status_replicas),
    );
    let type_ = spec.map(|s| s.type_.clone()).unwrap_or_default();
    let resource = spec
        .and_then(|s| {
            s.resource
                .as_ref()
                .map(|r| r.name.clone())
                .or_else(|| s.container_resource.as_ref().map(|r| r.name.clone()))
        })
        .unwrap_or_default();
    let utilization = spec.is_some_and(|s| {
        s.resource
            .as_ref()
            .map(|r| &r.target)
            .or_else(|| s.container_resource.as_ref().map(|c| &c.target))
            .is_some_and(|t| t.average_value.is_none())
    });
    let pods = pods_of(t, &resource);
    match &t.outcome {
        Err(f) => HpaMetricExplanation {
            index: t.index,
            type_,
            name: label,
            target,
            current: None,
            ratio: None,
            within_tolerance: None,
            pods,
            ready_pods: t.ready_pods,
            rebalance: None,
            proposal: None,
            error: Some(HpaMetricError {
                reason: f.reason.into(),
                message: f.inner.clone(),
            }),
            why: format!("no proposal: {} (H-74)", f.inner),
        },
        Ok(c) => {
            let p = c.proposal;
            let within = tol.is_within(p.ratio);
            let rule = match (type_.as_str(), t.ready_pods.is_some()) {
                ("Object", true) => "H-93, H-94",
                ("Object", false) => "H-96",
                ("External", true) => "H-97, H-94",
                ("External", false) => "H-98",
                _ => "H-84",
            };
            let rebalance = p.rebalance.map(|r| {
                let missing_assumed = r.missing_full.map(|full| match (full, utilization) {
                    (false, _) => "0 (the ratio is above 1)".to_owned(),
                    (true, true) => {
                        "100 % of their request, or the target if it is above 100 % (the ratio is below 1)".to_owned()
                    }
                    (true, false) => "the target (the ratio is below 1)".to_owned(),
                });
                HpaRebalanceExplanation {
                    missing_assumed,
                    unready_assumed_zero: r.unready_zero,
                    new_ratio: r.new_ratio,
                    within_tolerance: tol.is_within(r.new_ratio),
                    direction_flipped: (p.ratio < 1.0 && r.new_ratio > 1.0)
                        || (p.ratio > 1.0 && r.new_ratio < 1.0),
                }
            });
            let why = match (&rebalance, within) {
                (Some(r), _) if r.within_tolerance => format!(
                    "with the assumptions the ratio is {:.3}, within tolerance: keep {current} (H-86)",
                    r.new_ratio
                ),
                (Some(r), _) if r.direction_flipped => format!(
                    "with the assumptions the ratio is {:.3}, the other side of 1: keep {current} (H-86)",
                    r.new_ratio
                ),
                (Some(r), _) => format!(
                    "ceil({:.3} × the pods counted) = {} (H-87)",
                    r.new_ratio, c.replicas
                ),
                (None, true) if c.replicas == current || c.replicas == status_replicas => {
                    format!("ratio {:.3} within tolerance: keep {}", p.ratio, c.replicas)
                }
                (None, _) => format!("ratio {:.3}: {} replicas ({rule})", p.ratio, c.replicas),
            };
            HpaMetricExplanation {
                index: t.index,
                type_,
                name: c.name.clone(),
                target,
                current: current_words(&c.status),
                ratio: Some(p.ratio),
                within_tolerance: Some(within),
                pods,
                ready_pods: t.ready_pods,
                rebalance,
                proposal: Some(c.replicas),
                error: None,
                why,
            }
        }
    }
}

fn branch_words(b: Branch, current: i32, hpa: &HorizontalPodAutoscaler, min: i32) -> String {
    match b {
        Branch::Disabled => format!(
            "the target has {current} replicas: scaling is disabled (H-41); the HPA does not scale a target at zero"
        ),
        Branch::AboveMax => format!(
            "{current} replicas is above maxReplicas {}: set to {} without reading metrics (H-42)",
            hpa.spec.max_replicas, hpa.spec.max_replicas
        ),
        Branch::BelowMin => format!(
            "{current} replicas is below minReplicas {min}: set to {min} without reading metrics (H-43)"
        ),
        Branch::Metrics => "the metrics decide (H-45)".into(),
    }
}

/// Facts about a snapshot the sync read (a missing target, a metric API without an answer).
fn snapshot_notes(
    input: &HpaExplainInput,
    snap: &Snapshot,
    hpa: &HorizontalPodAutoscaler,
    run: &Run,
) -> Vec<String> {
    let mut notes = Vec::new();
    if snap.target.is_none() {
        notes.push(format!(
            "the objects hold no {} named {} in namespace {}: the scale read answers NotFound",
            hpa.spec.scale_target_ref.kind, hpa.spec.scale_target_ref.name, hpa.metadata.namespace
        ));
    }
    for call in &run.calls {
        if let HpaCall::FetchMetric { index, query } = call {
            let api = client::api_of(query);
            let answered = input.metrics.iter().any(|m| {
                let v = m
                    .get("apiVersion")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                v.starts_with(api) || m.get("api").and_then(Value::as_str) == Some(api)
            });
            if !answered {
                notes.push(format!(
                    "metric {index}: no answer of {api} was given; read as the API answering no metrics"
                ));
            }
        }
    }
    notes
}

fn describe(
    now: Time,
    config: &HpaConfig,
    hpa: &HorizontalPodAutoscaler,
    tol: Tolerances,
    run: &Run,
    notes: Vec<String>,
) -> HpaExplanation {
    let current = run.scale.as_ref().map_or(0, |s| s.spec.replicas);
    let status_replicas = run.scale.as_ref().map_or(0, |s| s.status.replicas);
    let min = hpa.spec.min_replicas.unwrap_or(1);
    let specs = hpa.metrics();
    let metrics = run
        .trace
        .metrics
        .iter()
        .map(|t| metric_explanation(t, specs.get(t.index), status_replicas, current, tol))
        .collect();
    let memory_before = run.trace.memory_before.clone().unwrap_or_default();
    let (chosen, stabilization, limit) = match &run.trace.normalized {
        None => (None, None, None),
        Some(n) => {
            let chosen = Some(HpaChosen {
                replicas: n.metric_desired,
                metric: n.metric_name.clone(),
                proposal: n.proposal,
            });
            let norm = &n.normalized;
            let down_default = config.downscale_window();
            let (stab, lim) = match &hpa.spec.behavior {
                None => {
                    let in_window = memory_before.legacy_window(down_default, now);
                    let bound_by = (norm.stabilized != n.proposal)
                        .then(|| {
                            in_window
                                .iter()
                                .find(|r| r.recommendation == norm.stabilized)
                                .copied()
                        })
                        .flatten();
                    (
                        HpaStabilizationExplanation {
                            down_window_seconds: down_default.as_seconds_f64(),
                            up_window_seconds: None,
                            in_up_window: Vec::new(),
                            in_down_window: in_window,
                            proposal: n.proposal,
                            stabilized: norm.stabilized,
                            bound_by,
                            reason: norm.stabilization.reason.into(),
                        },
                        HpaLimitExplanation {
                            direction: direction(norm.stabilized, current),
                            reason: norm.limit.reason.into(),
                            limited: norm.limited(),
                            message: norm.limit.message.into(),
                            result: norm.desired,
                            policies: Vec::new(),
                            select_policy: None,
                            limiting_policy: None,
                        },
                    )
                }
                Some(b) => {
                    let (up_w, down_w) = normalize::windows(b, down_default);
                    let in_up = memory_before.behavior_window(up_w, now);
                    let in_down = memory_before.behavior_window(down_w, now);
                    let bound_by = if norm.stabilized == n.proposal {
                        None
                    } else if n.proposal >= current {
                        in_up
                            .iter()
                            .filter(|r| r.recommendation <= norm.stabilized)
                            .min_by_key(|r| r.recommendation)
                            .copied()
                    } else {
                        in_down
                            .iter()
                            .filter(|r| r.recommendation >= norm.stabilized)
                            .max_by_key(|r| r.recommendation)
                            .copied()
                    };
                    let up = norm.stabilized > current;
                    let rules = if up {
                        b.scale_up.as_ref()
                    } else {
                        b.scale_down.as_ref()
                    };
                    let moving = norm.stabilized != current;
                    let policies: Vec<HpaPolicyExplanation> = if moving {
                        rules
                            .and_then(|r| r.policies.as_deref())
                            .unwrap_or_default()
                            .iter()
                            .map(|p| {
                                let (start, bound) =
                                    normalize::policy_bound(&memory_before, current, p, now, up);
                                HpaPolicyExplanation {
                                    type_: p.type_.clone(),
                                    value: p.value,
                                    period_seconds: p.period_seconds,
                                    period_start: start,
                                    bound,
                                }
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let rate_limited = norm.limit.reason == "ScaleUpLimit"
                        || norm.limit.reason == "ScaleDownLimit";
                    let limiting_policy = if rate_limited {
                        policies.iter().position(|p| p.bound == Some(norm.desired))
                    } else {
                        None
                    };
                    (
                        HpaStabilizationExplanation {
                            down_window_seconds: down_w.as_seconds_f64(),
                            up_window_seconds: Some(up_w.as_seconds_f64()),
                            in_up_window: in_up,
                            in_down_window: in_down,
                            proposal: n.proposal,
                            stabilized: norm.stabilized,
                            bound_by,
                            reason: norm.stabilization.reason.into(),
                        },
                        HpaLimitExplanation {
                            direction: direction(norm.stabilized, current),
                            reason: norm.limit.reason.into(),
                            limited: norm.limited(),
                            message: norm.limit.message.into(),
                            result: norm.desired,
                            policies,
                            select_policy: moving
                                .then(|| rules.and_then(|r| r.select_policy.clone()))
                                .flatten(),
                            limiting_policy,
                        },
                    )
                }
            };
            (chosen, Some(stab), Some(lim))
        }
    };
    let done = &run.done;
    let conditions = done
        .status
        .conditions
        .iter()
        .flatten()
        .map(|c| {
            let before = hpa
                .status
                .conditions
                .iter()
                .flatten()
                .find(|o| o.type_ == c.type_);
            HpaConditionExplanation {
                type_: c.type_.clone(),
                status: c.status.clone(),
                reason: c.reason.clone(),
                message: c.message.clone(),
                changed: before.is_none_or(|o| {
                    o.status != c.status || o.reason != c.reason || o.message != c.message
                }),
            }
        })
        .collect();
    let reference = format!(
        "{}/{}",
        hpa.spec.scale_target_ref.kind, hpa.spec.scale_target_ref.name
    );
    let next_sync = run
        .calls
        .iter()
        .filter_map(|c| match c {
            HpaCall::UpdateScale { replicas, .. } => Some(format!(
                "write the scale of {reference}: {current} → {replicas} replicas (H-51)"
            )),
            HpaCall::UpdateStatus { .. } => Some(status_words(&hpa.status, &done.status)),
            _ => None,
        })
        .collect();
    HpaExplanation {
        now,
        namespace: hpa.metadata.namespace.clone(),
        name: hpa.metadata.name.clone(),
        target: reference,
        scale: run.scale.as_ref().map(|s| HpaScaleSummary {
            spec_replicas: s.spec.replicas,
            status_replicas: s.status.replicas,
            selector: s.status.selector.clone(),
        }),
        min_replicas: min,
        max_replicas: hpa.spec.max_replicas,
        path: if hpa.spec.behavior.is_some() {
            "behavior".into()
        } else {
            "legacy".into()
        },
        tolerance: HpaToleranceBand {
            scale_down: tol.scale_down,
            scale_up: tol.scale_up,
            low: 1.0 - tol.scale_down,
            high: 1.0 + tol.scale_up,
        },
        branch: run.trace.branch.map(|b| branch_words(b, current, hpa, min)),
        metrics,
        chosen,
        stabilization,
        limit,
        desired_replicas: done.status.desired_replicas,
        rescale_to: done.rescaled_to,
        conditions,
        events: done.events.clone(),
        error: done.error.clone(),
        next_sync,
        requeue_after_seconds: done.requeue_after_seconds,
        memory: HpaMemoryExplanation {
            given: false,
            assumed: String::new(),
            range: None,
            after: HpaMemory::default(),
        },
        notes,
        text: String::new(),
    }
}

fn direction(to: i32, from: i32) -> String {
    match to.cmp(&from) {
        std::cmp::Ordering::Greater => "up".into(),
        std::cmp::Ordering::Less => "down".into(),
        std::cmp::Ordering::Equal => "none".into(),
    }
}

fn status_words(before: &HpaStatus, after: &HpaStatus) -> String {
    format!(
        "write the status: currentReplicas {}, desiredReplicas {} (was {}), the conditions below (H-55, H-127)",
        after.current_replicas, after.desired_replicas, before.desired_replicas
    )
}

// ---- the text ------------------------------------------------------------------------

fn ratio(r: f64) -> String {
    format!("{r:.3}")
}

/// The text `replicore explain hpa/NAME` prints.
pub fn render_hpa(e: &HpaExplanation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "HorizontalPodAutoscaler {}/{} → {} (min {}, max {}, {} path)",
        e.namespace, e.name, e.target, e.min_replicas, e.max_replicas, e.path
    );
    match &e.scale {
        Some(s) => {
            let _ = writeln!(
                out,
                "  scale: {} replicas (status {}), selector {}",
                s.spec_replicas,
                s.status_replicas,
                if s.selector.is_empty() {
                    "(none)"
                } else {
                    &s.selector
                }
            );
        }
        None => out.push_str("  scale: not read\n"),
    }
    let _ = writeln!(
        out,
        "  tolerance: a ratio within [{}, {}] means no change (H-67, H-144)",
        ratio(e.tolerance.low),
        ratio(e.tolerance.high)
    );
    for n in &e.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if let Some(b) = &e.branch {
        let _ = writeln!(out, "  branch: {b}");
    }
    for m in &e.metrics {
        let _ = writeln!(
            out,
            "  metric {}: {} ({}), target {}",
            m.index, m.name, m.type_, m.target
        );
        if let Some(c) = &m.current {
            let _ = write!(out, "    current {c}");
            if let (Some(r), Some(w)) = (m.ratio, m.within_tolerance) {
                let _ = write!(
                    out,
                    ", ratio {} ({})",
                    ratio(r),
                    if w {
                        "within tolerance"
                    } else {
                        "outside tolerance"
                    }
                );
            }
            out.push('\n');
        }
        if let Some(pods) = &m.pods {
            let count = |c: &str| pods.iter().filter(|p| p.class == c).count();
            let _ = writeln!(
                out,
                "    pods: {} ready, {} unready, {} missing, {} ignored (H-76)",
                count("ready"),
                count("unready"),
                count("missing"),
                count("ignored")
            );
            let odd = pods.iter().filter(|p| p.class != "ready");
            for (shown, p) in odd.enumerate() {
                if shown == 10 {
                    let _ = writeln!(out, "      … and more");
                    break;
                }
                let _ = writeln!(
                    out,
                    "      {} {}: {}",
                    p.class,
                    p.name,
                    p.why.as_deref().unwrap_or_default()
                );
            }
        }
        if let Some(n) = m.ready_pods {
            let _ = writeln!(out, "    ready pods counted: {n} (H-95)");
        }
        if let Some(r) = &m.rebalance {
            if let Some(a) = &r.missing_assumed {
                let _ = writeln!(out, "    missing pods assumed at {a} (H-85)");
            }
            if r.unready_assumed_zero {
                out.push_str("    unready pods assumed at 0 (a scale-up, H-85)\n");
            }
        }
        let _ = writeln!(out, "    → {}", m.why);
    }
    if let Some(c) = &e.chosen {
        if c.replicas >= 0 && !c.metric.is_empty() {
            let _ = writeln!(
                out,
                "  max over metrics: {} from {} (H-64)",
                c.replicas, c.metric
            );
        } else {
            let _ = writeln!(out, "  max over metrics: {} (H-64, H-47)", c.proposal);
        }
    }
    if let Some(s) = &e.stabilization {
        match s.up_window_seconds {
            Some(up) => {
                let _ = writeln!(
                    out,
                    "  stabilization: windows {up}s up, {}s down; {} recommendation(s) in the up window, {} in the down window (H-110)",
                    s.down_window_seconds,
                    s.in_up_window.len(),
                    s.in_down_window.len()
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  stabilization: window {}s; {} recommendation(s) in it (H-104)",
                    s.down_window_seconds,
                    s.in_down_window.len()
                );
            }
        }
        match &s.bound_by {
            Some(r) => {
                let _ = writeln!(
                    out,
                    "    {} → {} ({}): bounded by the recommendation {} of {}",
                    s.proposal,
                    s.stabilized,
                    s.reason,
                    r.recommendation,
                    r.timestamp.to_rfc3339()
                );
            }
            None => {
                let _ = writeln!(out, "    {} → {} ({})", s.proposal, s.stabilized, s.reason);
            }
        }
    }
    if let Some(l) = &e.limit {
        for (i, p) in l.policies.iter().enumerate() {
            let bound = p.bound.map_or_else(|| "-".into(), |b| b.to_string());
            let _ = writeln!(
                out,
                "    {} policy {} {} per {}s: from {} at the period's start, allows {}{}",
                l.direction,
                p.type_,
                p.value,
                p.period_seconds,
                p.period_start,
                bound,
                if l.limiting_policy == Some(i) {
                    "  ← limits"
                } else {
                    ""
                }
            );
        }
        if let Some(sp) = &l.select_policy {
            let _ = writeln!(out, "    selectPolicy {sp} (H-115, H-116)");
        }
        let _ = writeln!(
            out,
            "  limits: {} → {} (ScalingLimited={} {}: {})",
            e.stabilization.as_ref().map_or(l.result, |s| s.stabilized),
            l.result,
            if l.limited { "True" } else { "False" },
            l.reason,
            l.message
        );
    }
    let _ = writeln!(out, "  desired replicas: {}", e.desired_replicas);
    for c in &e.conditions {
        let _ = writeln!(
            out,
            "  {}={} {}{}: {}",
            c.type_,
            c.status,
            c.reason,
            if c.changed { " (set by this sync)" } else { "" },
            c.message
        );
    }
    for ev in &e.events {
        let _ = writeln!(out, "  event: {} {}: {}", ev.type_, ev.reason, ev.message);
    }
    if e.next_sync.is_empty() {
        out.push_str("  next sync: writes nothing\n");
    } else {
        out.push_str("  next sync:\n");
        for (i, c) in e.next_sync.iter().enumerate() {
            let _ = writeln!(out, "    {}. {c}", i + 1);
        }
    }
    if let Some(err) = &e.error {
        let _ = writeln!(out, "  error: {err}");
    }
    let _ = writeln!(out, "  requeue: after {}s (H-134)", e.requeue_after_seconds);
    if e.memory.given {
        out.push_str("  memory: as given\n");
    } else {
        let _ = writeln!(out, "  memory: {}", e.memory.assumed);
        if let Some(r) = &e.memory.range {
            if r.low == r.high {
                let _ = writeln!(out, "    whatever it remembers, the sync decides {}", r.low);
            } else {
                let _ = writeln!(
                    out,
                    "    what it remembers could make it anything from {} to {}:",
                    r.low, r.high
                );
                let mut seen = Vec::new();
                for s in &r.tried {
                    if seen.contains(&s.desired_replicas) {
                        continue;
                    }
                    seen.push(s.desired_replicas);
                    let _ = writeln!(out, "      {}: {}", s.desired_replicas, s.memory);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: &str = "2026-11-27T12:00:00Z";

    /// A pod Ready for an hour, requesting 200m CPU.
    fn pod(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "shop", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "web", "resources": {"requests": {"cpu": "200m"}}}]},
               "status": {"phase": "Running", "startTime": "2026-11-27T10:00:00Z",
                          "conditions": [{"type": "Ready", "status": "True",
                                          "lastTransitionTime": "2026-11-27T10:00:30Z"}]}})
    }

    fn deployment(replicas: i32) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}},
               "status": {"replicas": replicas}})
    }

    fn hpa(behavior: Option<Value>) -> Value {
        let mut h = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
               "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                        "minReplicas": 1, "maxReplicas": 20,
                        "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                                     "target": {"type": "Utilization", "averageUtilization": 50}}}]}});
        if let (Some(b), Some(spec)) = (behavior, h.get_mut("spec").and_then(Value::as_object_mut))
        {
            spec.insert("behavior".into(), b);
        }
        h
    }

    /// Pod metrics: each (pod, milli-CPU).
    fn usage(samples: &[(&str, &str)]) -> Value {
        let items: Vec<Value> = samples
            .iter()
            .map(|(n, cpu)| {
                json!({"metadata": {"name": n, "namespace": "shop", "labels": {"app": "web"}},
                                   "timestamp": "2026-11-27T11:59:50Z", "window": "30s",
                                   "containers": [{"name": "web", "usage": {"cpu": cpu}}]})
            })
            .collect();
        json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "items": items})
    }

    fn input(objects: Vec<Value>, metrics: Vec<Value>, memory: Option<Value>) -> HpaExplainInput {
        let mut v = json!({"now": NOW, "objects": {"apiVersion": "v1", "kind": "List", "items": objects},
                           "metrics": metrics});
        if let (Some(m), Some(o)) = (memory, v.as_object_mut()) {
            o.insert("memory".into(), m);
        }
        crate::input::from_value(v).unwrap()
    }

    fn four_pods() -> Vec<Value> {
        ["web-a", "web-b", "web-c", "web-d"]
            .iter()
            .map(|n| pod(n))
            .collect()
    }

    #[test]
    fn a_scale_up_limited_by_a_policy() {
        // 4 pods at 200 % of a 50 % target want 16; the policy adds 2 pods per minute.
        let behavior =
            json!({"scaleUp": {"policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}]}});
        let mut objects = vec![hpa(Some(behavior)), deployment(4)];
        objects.extend(four_pods());
        let metrics = vec![usage(&[
            ("web-a", "400m"),
            ("web-b", "400m"),
            ("web-c", "400m"),
            ("web-d", "400m"),
        ])];
        let e = explain_hpa(&input(objects, metrics, Some(json!({})))).unwrap();
        let m = &e.metrics[0];
        assert_eq!(m.ratio, Some(4.0));
        assert_eq!(m.within_tolerance, Some(false));
        assert_eq!(m.proposal, Some(16));
        let limit = e.limit.as_ref().unwrap();
        assert_eq!(
            (limit.reason.as_str(), limit.limited, limit.result),
            ("ScaleUpLimit", true, 6)
        );
        assert_eq!(limit.limiting_policy, Some(0));
        assert_eq!(limit.policies[0].bound, Some(6));
        assert_eq!(e.desired_replicas, 6);
        assert_eq!(e.rescale_to, Some(6));
        assert!(e.text.contains("allows 6  ← limits"), "{}", e.text);
        assert!(e.memory.given);
    }

    #[test]
    fn a_scale_down_held_by_the_stabilization_window() {
        // 4 pods at 20 % of a 50 % target want 2; a minute ago the controller recommended 4.
        let mut objects = vec![hpa(Some(json!({}))), deployment(4)];
        objects.extend(four_pods());
        let metrics = vec![usage(&[
            ("web-a", "40m"),
            ("web-b", "40m"),
            ("web-c", "40m"),
            ("web-d", "40m"),
        ])];
        let memory = json!({"recommendations": [{"recommendation": 4, "timestamp": "2026-11-27T11:59:00Z"}]});
        let e = explain_hpa(&input(objects, metrics, Some(memory))).unwrap();
        assert_eq!(e.metrics[0].proposal, Some(2));
        let s = e.stabilization.as_ref().unwrap();
        assert_eq!(
            (s.proposal, s.stabilized, s.reason.as_str()),
            (2, 4, "ScaleDownStabilized")
        );
        assert_eq!(s.bound_by.map(|r| r.recommendation), Some(4));
        assert_eq!(s.down_window_seconds, 300.0);
        assert_eq!(e.desired_replicas, 4);
        assert_eq!(e.rescale_to, None);
        assert!(
            e.text.contains("bounded by the recommendation 4"),
            "{}",
            e.text
        );
    }

    #[test]
    fn missing_pods_are_assumed_at_0_on_a_scale_up_and_100_on_a_scale_down() {
        let mut objects = vec![hpa(None), deployment(4)];
        objects.extend(four_pods());
        // Up: three pods at 150 % of request, web-d without a sample counts as 0.
        let up = vec![usage(&[
            ("web-a", "300m"),
            ("web-b", "300m"),
            ("web-c", "300m"),
        ])];
        let e = explain_hpa(&input(objects.clone(), up, Some(json!({})))).unwrap();
        let m = &e.metrics[0];
        let missing: Vec<&str> = m
            .pods
            .iter()
            .flatten()
            .filter(|p| p.class == "missing")
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(missing, ["web-d"]);
        let r = m.rebalance.as_ref().unwrap();
        assert_eq!(
            r.missing_assumed.as_deref(),
            Some("0 (the ratio is above 1)")
        );
        // (300 × 3 + 0) × 100 / 800 = 112 % → 2.24 × 4 pods = 9.
        assert_eq!(r.new_ratio, 2.24);
        assert_eq!(m.proposal, Some(9));
        // Down: three pods at 10 %, web-d assumed at 100 % of its request.
        let down = vec![usage(&[
            ("web-a", "20m"),
            ("web-b", "20m"),
            ("web-c", "20m"),
        ])];
        let e = explain_hpa(&input(objects, down, Some(json!({})))).unwrap();
        let r = e.metrics[0].rebalance.as_ref().unwrap();
        assert!(r
            .missing_assumed
            .as_deref()
            .unwrap()
            .starts_with("100 % of their request"));
        // (20 × 3 + 200) × 100 / 800 = 32 % → 0.64 × 4 = 3.
        assert_eq!(r.new_ratio, 0.64);
        assert_eq!(e.metrics[0].proposal, Some(3));
    }

    #[test]
    fn unready_cpu_pods_are_left_out_and_named() {
        let mut objects = vec![hpa(None), deployment(4)];
        objects.extend(four_pods());
        // web-d started a minute ago and is not Ready yet.
        objects[5] = json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "web-d", "namespace": "shop", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "web", "resources": {"requests": {"cpu": "200m"}}}]},
               "status": {"phase": "Running", "startTime": "2026-11-27T11:59:00Z",
                          "conditions": [{"type": "Ready", "status": "False",
                                          "lastTransitionTime": "2026-11-27T11:59:00Z"}]}});
        let metrics = vec![usage(&[
            ("web-a", "300m"),
            ("web-b", "300m"),
            ("web-c", "300m"),
            ("web-d", "500m"),
        ])];
        let e = explain_hpa(&input(objects, metrics, Some(json!({})))).unwrap();
        let m = &e.metrics[0];
        let d = m.pods.iter().flatten().find(|p| p.name == "web-d").unwrap();
        assert_eq!(d.class, "unready");
        assert_eq!(
            d.why.as_deref(),
            Some("inside the CPU initialization period and not Ready")
        );
        assert!(m.rebalance.as_ref().unwrap().unready_assumed_zero);
    }

    #[test]
    fn unknown_memory_assumes_one_and_gives_the_range() {
        // A scale-down from 4 to 2 with no memory given: the assumed memory lets it go to
        // 2; a recent recommendation of 4 (or a controller that just started) holds it at
        // 4; a recent higher recommendation on the legacy path even raises it.
        let mut objects = vec![hpa(Some(json!({}))), deployment(4)];
        objects.extend(four_pods());
        let metrics = vec![usage(&[
            ("web-a", "40m"),
            ("web-b", "40m"),
            ("web-c", "40m"),
            ("web-d", "40m"),
        ])];
        let e = explain_hpa(&input(objects.clone(), metrics.clone(), None)).unwrap();
        assert!(!e.memory.given);
        assert_eq!(e.desired_replicas, 2);
        let r = e.memory.range.as_ref().unwrap();
        assert_eq!((r.low, r.high), (2, 4));
        assert!(r
            .tried
            .iter()
            .any(|s| s.memory.starts_with("nothing yet") && s.desired_replicas == 4));
        assert!(e.text.contains("anything from 2 to 4"), "{}", e.text);
        // Legacy path: a recent high recommendation raises it up to the 2× cap.
        objects[0] = hpa(None);
        let e = explain_hpa(&input(objects, metrics, None)).unwrap();
        let r = e.memory.range.as_ref().unwrap();
        assert_eq!((r.low, r.high), (2, 8));
    }

    #[test]
    fn the_snapshot_without_the_target_reads_not_found() {
        let e = explain_hpa(&input(vec![hpa(None)], vec![], None)).unwrap();
        assert!(e.scale.is_none());
        assert_eq!(e.events[0].reason, "FailedGetScale");
        assert!(e
            .error
            .as_deref()
            .unwrap()
            .contains("deployments.apps \"web\" not found"));
        assert!(e.memory.range.is_none());
        let err = explain_hpa(&input(vec![deployment(1)], vec![], None)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "hpa: no HorizontalPodAutoscaler in the objects"
        );
    }
}
