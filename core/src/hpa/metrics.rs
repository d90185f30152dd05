//! One metric at a time (H-62..H-75): which query a metric spec asks the metrics APIs,
//! what its answer proposes, the status entry and the name it reports, the texts of its
//! failures; and the aggregation over every metric of the spec (the max, which failures
//! are tolerated).

use serde::{Deserialize, Serialize};

use crate::model::LabelSelector;
use crate::quantity::{Format, Quantity};
use crate::selector::Selector;
use crate::time::Time;

use super::calculator::{self, Context, ObjectRef, Proposal};
use super::model::{
    ContainerResourceMetricStatus, CrossVersionObjectReference, ExternalMetricStatus,
    MetricResponse, MetricSpec, MetricStatus, MetricValueStatus, ObjectMetricStatus,
    PodsMetricStatus, ResourceMetricStatus,
};

/// What the host asks a metrics API for one metric spec (H-99..H-102).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "api", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum MetricQuery {
    /// `metrics.k8s.io` PodMetrics of the pods the selector names: each pod's usage of
    /// `resource` (summed over its containers, or of `container` alone).
    Resource {
        /// The HPA's namespace.
        namespace: String,
        /// The target's pods' selector, as text.
        selector: String,
        /// The resource, as `cpu`.
        resource: String,
        /// For a ContainerResource metric, the container.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        container: Option<String>,
    },
    /// `custom.metrics.k8s.io`: the metric of every pod the selector names.
    Pods {
        /// The HPA's namespace.
        namespace: String,
        /// The target's pods' selector, as text.
        selector: String,
        /// The metric's name.
        metric: String,
        /// The metric's own selector (`metric.selector`), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        metric_selector: Option<LabelSelector>,
    },
    /// `custom.metrics.k8s.io`: the metric of one object (of the namespace itself when the
    /// object is a core Namespace).
    Object {
        /// The HPA's namespace.
        namespace: String,
        /// The object (`describedObject`).
        #[cfg_attr(
            feature = "ts",
            ts(type = "{ kind: string, name: string, apiVersion?: string }")
        )]
        described_object: CrossVersionObjectReference,
        /// The metric's name.
        metric: String,
        /// The metric's own selector (`metric.selector`), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        metric_selector: Option<LabelSelector>,
    },
    /// `external.metrics.k8s.io`: every value of the metric in the namespace.
    External {
        /// The HPA's namespace.
        namespace: String,
        /// The metric's name.
        metric: String,
        /// The metric's own selector (`metric.selector`), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        metric_selector: Option<LabelSelector>,
    },
}

/// A metric that could not propose (H-74, H-75): the condition reason (also the event's),
/// the inner error (event and condition message), the error the aggregation sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    pub reason: &'static str,
    pub inner: String,
    pub error: String,
}

/// A metric that proposed: the count, its name in messages, its status entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Computed {
    pub replicas: i32,
    pub name: String,
    pub status: MetricStatus,
    pub timestamp: Option<Time>,
    /// The calculator's proposal as it came (explain reads its ratio and rebalance).
    pub proposal: Proposal,
}

/// H-72/H-68: what a metric spec needs before any query, and the query it then makes.
pub(crate) fn query(
    spec: &MetricSpec,
    namespace: &str,
    pod_selector: &str,
) -> Result<MetricQuery, Failure> {
    let ns = namespace.to_owned();
    match spec.type_.as_str() {
        "Object" => {
            let o = spec.object.as_ref().ok_or_else(|| missing_source(spec))?;
            let fail = |inner: String| Failure {
                reason: "FailedGetObjectMetric",
                error: format!("failed to get object metric value: {inner}"),
                inner,
            };
            metric_selector(o.metric.selector.as_ref()).map_err(fail)?;
            let t = &o.target;
            let usable = (t.type_ == "Value" && t.value.is_some())
                || (t.type_ == "AverageValue" && t.average_value.is_some());
            if !usable {
                return Err(fail(
                    "invalid object metric source: neither a value target nor an average value target was set".into(),
                ));
            }
            Ok(MetricQuery::Object {
                namespace: ns,
                described_object: o.described_object.clone(),
                metric: o.metric.name.clone(),
                metric_selector: o.metric.selector.clone(),
            })
        }
        "Pods" => {
            let p = spec.pods.as_ref().ok_or_else(|| missing_source(spec))?;
            metric_selector(p.metric.selector.as_ref()).map_err(|inner| Failure {
                reason: "FailedGetPodsMetric",
                error: format!("failed to get pods metric value: {inner}"),
                inner,
            })?;
            Ok(MetricQuery::Pods {
                namespace: ns,
                selector: pod_selector.to_owned(),
                metric: p.metric.name.clone(),
                metric_selector: p.metric.selector.clone(),
            })
        }
        "Resource" | "ContainerResource" => {
            let (name, target, container) =
                resource_parts(spec).ok_or_else(|| missing_source(spec))?;
            if target.average_value.is_none() && target.average_utilization.is_none() {
                return Err(resource_failure(
                    spec,
                    "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set".into(),
                ));
            }
            Ok(MetricQuery::Resource {
                namespace: ns,
                selector: pod_selector.to_owned(),
                resource: name.to_owned(),
                container: container.map(str::to_owned),
            })
        }
        "External" => {
            let e = spec.external.as_ref().ok_or_else(|| missing_source(spec))?;
            let t = &e.target;
            if t.average_value.is_none() && t.value.is_none() {
                let inner = "invalid external metric source: neither a value target nor an average value target was set".to_owned();
                return Err(Failure {
                    reason: "FailedGetExternalMetric",
                    error: format!(
                        "failed to get {} external metric value: {inner}",
                        e.metric.name
                    ),
                    inner,
                });
            }
            if let Err(inner) = metric_selector(e.metric.selector.as_ref()) {
                return Err(external_failure(spec, inner));
            }
            Ok(MetricQuery::External {
                namespace: ns,
                metric: e.metric.name.clone(),
                metric_selector: e.metric.selector.clone(),
            })
        }
        other => {
            let inner = format!("unknown metric source type {}", go_quote(other));
            Err(Failure {
                reason: "InvalidMetricSourceType",
                error: inner.clone(),
                inner,
            })
        }
    }
}

/// A spec whose source field is missing: refused before the sync (see the machine's
/// input checks); kept here as a failure so this function is total.
fn missing_source(spec: &MetricSpec) -> Failure {
    let inner = format!("metric of type {} has no source", go_quote(&spec.type_));
    Failure {
        reason: "InvalidMetricSourceType",
        error: inner.clone(),
        inner,
    }
}

/// The (resource, container) whose requests a utilization metric divides by (H-80): a
/// Resource or ContainerResource spec without an average-value target.
pub(crate) fn utilization_request(spec: &MetricSpec) -> Option<(&str, &str)> {
    let (resource, target, container) = resource_parts(spec)?;
    target
        .average_value
        .is_none()
        .then_some((resource, container.unwrap_or("")))
}

fn resource_parts(spec: &MetricSpec) -> Option<(&str, &super::model::MetricTarget, Option<&str>)> {
    if spec.type_ == "Resource" {
        let r = spec.resource.as_ref()?;
        Some((r.name.as_str(), &r.target, None))
    } else {
        let c = spec.container_resource.as_ref()?;
        Some((c.name.as_str(), &c.target, Some(c.container.as_str())))
    }
}

/// H-70/H-71/H-75: a Resource or ContainerResource failure with its wrapping.
fn resource_failure(spec: &MetricSpec, inner: String) -> Failure {
    match spec
        .container_resource
        .as_ref()
        .filter(|_| spec.type_ == "ContainerResource")
    {
        Some(c) => Failure {
            reason: "FailedGetContainerResourceMetric",
            error: format!(
                "failed to get {} container metric value: {inner}",
                c.container
            ),
            inner,
        },
        None => Failure {
            reason: "FailedGetResourceMetric",
            error: format!(
                "failed to get {} resource metric value: {inner}",
                spec.resource.as_ref().map_or("", |r| r.name.as_str())
            ),
            inner,
        },
    }
}

/// H-72/H-75: an External failure, wrapped by which target it had.
fn external_failure(spec: &MetricSpec, inner: String) -> Failure {
    let (name, per_pod) = spec.external.as_ref().map_or(("", false), |e| {
        (e.metric.name.as_str(), e.target.average_value.is_some())
    });
    let error = if per_pod {
        format!("failed to get {name} external metric value: failed to get {name} external metric: {inner}")
    } else {
        format!("failed to get {name} external metric value: failed to get external metric {name}: {inner}")
    };
    Failure {
        reason: "FailedGetExternalMetric",
        inner,
        error,
    }
}

/// The replica counts a metric reads (H-63): the Scale's spec and status replicas.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScaleCounts {
    pub spec: i32,
    pub status: i32,
}

/// H-68..H-72: what the answer to a metric's query proposes.
pub(crate) fn compute(
    spec: &MetricSpec,
    ctx: &Context<'_>,
    counts: ScaleCounts,
    namespace: &str,
    resp: &MetricResponse,
) -> Result<Computed, Failure> {
    match spec.type_.as_str() {
        "Object" => {
            let Some(o) = spec.object.as_ref() else {
                return Err(missing_source(spec));
            };
            let obj = ObjectRef {
                kind: &o.described_object.kind,
                name: &o.described_object.name,
                namespace,
            };
            let mut status = ObjectMetricStatus {
                metric: o.metric.clone(),
                current: MetricValueStatus::default(),
                described_object: o.described_object.clone(),
            };
            let fail = |inner: String, error: String| Failure {
                reason: "FailedGetObjectMetric",
                inner,
                error,
            };
            let (p, name) = if o.target.type_ == "Value" {
                let target = o.target.value.as_ref().map_or(0, Quantity::milli_value);
                let p = calculator::object_replicas(
                    ctx,
                    counts.spec,
                    target,
                    &o.metric.name,
                    obj,
                    resp,
                )
                .map_err(|e| {
                    fail(
                        e.message.clone(),
                        format!("failed to get object metric value: {}", e.message),
                    )
                })?;
                status.current.value = Some(Quantity::from_milli(p.usage, Format::DecimalSi));
                (
                    p,
                    format!("{} metric {}", o.described_object.kind, o.metric.name),
                )
            } else {
                let target = o
                    .target
                    .average_value
                    .as_ref()
                    .map_or(0, Quantity::milli_value);
                let p = calculator::object_per_pod_replicas(
                    ctx,
                    counts.status,
                    target,
                    &o.metric.name,
                    obj,
                    resp,
                )
                .map_err(|e| {
                    fail(
                        e.message.clone(),
                        format!(
                            "failed to get object metric value: failed to get {} object metric: {}",
                            o.metric.name, e.message
                        ),
                    )
                })?;
                status.current.average_value =
                    Some(Quantity::from_milli(p.usage, Format::DecimalSi));
                (
                    p,
                    format!(
                        "external metric {}({})",
                        o.metric.name,
                        go_selector(o.metric.selector.as_ref())
                    ),
                )
            };
            Ok(computed(
                p,
                name,
                MetricStatus {
                    type_: "Object".into(),
                    object: Some(status),
                    ..MetricStatus::default()
                },
            ))
        }
        "Pods" => {
            let Some(m) = spec.pods.as_ref() else {
                return Err(missing_source(spec));
            };
            let target = m
                .target
                .average_value
                .as_ref()
                .map_or(0, Quantity::milli_value);
            let p =
                calculator::pods_metric_replicas(ctx, counts.spec, target, &m.metric.name, resp)
                    .map_err(|e| Failure {
                        reason: "FailedGetPodsMetric",
                        error: format!("failed to get pods metric value: {}", e.message),
                        inner: e.message,
                    })?;
            Ok(computed(
                p,
                format!("pods metric {}", m.metric.name),
                MetricStatus {
                    type_: "Pods".into(),
                    pods: Some(PodsMetricStatus {
                        metric: m.metric.clone(),
                        current: MetricValueStatus {
                            average_value: Some(Quantity::from_milli(p.usage, Format::DecimalSi)),
                            ..MetricValueStatus::default()
                        },
                    }),
                    ..MetricStatus::default()
                },
            ))
        }
        "Resource" | "ContainerResource" => {
            let Some((resource, target, container)) = resource_parts(spec) else {
                return Err(missing_source(spec));
            };
            let (current, name, p) = if let Some(avg) = &target.average_value {
                let p = calculator::raw_resource_replicas(
                    ctx,
                    counts.spec,
                    avg.milli_value(),
                    resource,
                    resp,
                )
                .map_err(|e| {
                    resource_failure(
                        spec,
                        format!("failed to get {resource} usage: {}", e.message),
                    )
                })?;
                let current = MetricValueStatus {
                    average_value: Some(build_quantity(resource, p.usage)),
                    ..MetricValueStatus::default()
                };
                (current, format!("{resource} resource"), p)
            } else {
                let percent = target.average_utilization.unwrap_or(0);
                let p = calculator::resource_replicas(
                    ctx,
                    counts.spec,
                    percent,
                    resource,
                    container.unwrap_or(""),
                    resp,
                )
                .map_err(|e| {
                    resource_failure(
                        spec,
                        format!("failed to get {resource} utilization: {}", e.message),
                    )
                })?;
                let current = MetricValueStatus {
                    average_utilization: Some(p.utilization),
                    average_value: Some(build_quantity(resource, p.usage)),
                    ..MetricValueStatus::default()
                };
                let name = if container.is_some() {
                    format!("{resource} container resource utilization (percentage of request)")
                } else {
                    format!("{resource} resource utilization (percentage of request)")
                };
                (current, name, p)
            };
            let status = match container {
                Some(c) => MetricStatus {
                    type_: "ContainerResource".into(),
                    container_resource: Some(ContainerResourceMetricStatus {
                        name: resource.to_owned(),
                        current,
                        container: c.to_owned(),
                    }),
                    ..MetricStatus::default()
                },
                None => MetricStatus {
                    type_: "Resource".into(),
                    resource: Some(ResourceMetricStatus {
                        name: resource.to_owned(),
                        current,
                    }),
                    ..MetricStatus::default()
                },
            };
            Ok(computed(p, name, status))
        }
        "External" => {
            let Some(e) = spec.external.as_ref() else {
                return Err(missing_source(spec));
            };
            let selector_text = go_selector(e.metric.selector.as_ref());
            let sel = e.metric.selector.as_ref();
            let mut current = MetricValueStatus::default();
            let p = if let Some(avg) = &e.target.average_value {
                let p = calculator::external_per_pod_replicas(
                    ctx,
                    counts.status,
                    avg.milli_value(),
                    namespace,
                    &e.metric.name,
                    sel,
                    resp,
                )
                .map_err(|e| external_failure(spec, e.message))?;
                current.average_value = Some(Quantity::from_milli(p.usage, Format::DecimalSi));
                p
            } else {
                let target = e.target.value.as_ref().map_or(0, Quantity::milli_value);
                let p = calculator::external_replicas(
                    ctx,
                    counts.spec,
                    target,
                    namespace,
                    &e.metric.name,
                    sel,
                    resp,
                )
                .map_err(|e| external_failure(spec, e.message))?;
                current.value = Some(Quantity::from_milli(p.usage, Format::DecimalSi));
                p
            };
            Ok(computed(
                p,
                format!("external metric {}({selector_text})", e.metric.name),
                MetricStatus {
                    type_: "External".into(),
                    external: Some(ExternalMetricStatus {
                        metric: e.metric.clone(),
                        current,
                    }),
                    ..MetricStatus::default()
                },
            ))
        }
        _ => Err(missing_source(spec)),
    }
}

fn computed(p: Proposal, name: String, status: MetricStatus) -> Computed {
    Computed {
        replicas: p.replicas,
        name,
        status,
        timestamp: p.timestamp,
        proposal: p,
    }
}

/// H-70 `buildQuantity`: memory in BinarySI, everything else in DecimalSI.
fn build_quantity(resource: &str, milli: i64) -> Quantity {
    let format = if resource == "memory" {
        Format::BinarySi
    } else {
        Format::DecimalSi
    };
    Quantity::from_milli(milli, format)
}

/// H-62..H-66: the max over the metrics, which failures block, the condition to set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Aggregate {
    pub replicas: i32,
    pub name: String,
    pub timestamp: Option<Time>,
    pub failed: usize,
    pub first_failure: Option<Failure>,
}

impl Aggregate {
    /// H-64: a proposal is taken while the max is 0, or when strictly larger.
    pub(crate) fn propose(&mut self, c: &Computed) {
        if self.replicas == 0 || c.replicas > self.replicas {
            self.replicas = c.replicas;
            self.name.clone_from(&c.name);
            self.timestamp = c.timestamp;
        }
    }

    pub(crate) fn fail(&mut self, f: Failure) {
        if self.failed == 0 {
            self.first_failure = Some(f);
        }
        self.failed += 1;
    }

    /// H-65: the error of the failures, if any (`invalid metrics (n invalid out of m)…`).
    pub(crate) fn error(&self, total: usize) -> Option<String> {
        self.first_failure.as_ref().map(|f| {
            format!(
                "invalid metrics ({} invalid out of {total}), first error is: {}",
                self.failed, f.error
            )
        })
    }

    /// H-65: every metric failed, or some did and the max is below the spec replicas.
    pub(crate) fn is_fatal(&self, total: usize, spec_replicas: i32) -> bool {
        self.failed >= total || (self.failed > 0 && self.replicas < spec_replicas)
    }
}

/// upstream `metav1.LabelSelectorAsSelector`, with upstream's error texts.
pub(crate) fn metric_selector(sel: Option<&LabelSelector>) -> Result<Selector, String> {
    let Some(s) = sel else {
        return Ok(Selector::Nothing);
    };
    if let Some(exprs) = &s.match_expressions {
        for e in exprs {
            let values = e.values.as_deref().unwrap_or_default();
            let json_values = || serde_json::to_string(&e.values).unwrap_or_default();
            match e.operator.as_str() {
                "In" | "NotIn" if values.is_empty() => {
                    return Err("values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty".into())
                }
                "Exists" | "DoesNotExist" if !values.is_empty() => {
                    return Err(format!(
                        "values: Invalid value: {}: values set must be empty for exists and does not exist",
                        json_values()
                    ))
                }
                "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
                other => return Err(format!("{} is not a valid label selector operator", go_quote(other))),
            }
        }
    }
    Selector::compile(Some(s)).map_err(|e| e.0)
}

/// Go's `%+v` of a `*metav1.LabelSelector` (its generated `String()`), as upstream puts
/// it into metric names and error texts (H-68).
pub(crate) fn go_selector(sel: Option<&LabelSelector>) -> String {
    let Some(s) = sel else {
        return "nil".into();
    };
    let mut out = String::from("&LabelSelector{MatchLabels:map[string]string{");
    for (k, v) in s.match_labels.iter().flatten() {
        out.push_str(&format!("{k}: {v},"));
    }
    out.push_str("},MatchExpressions:[]LabelSelectorRequirement{");
    for e in s.match_expressions.iter().flatten() {
        out.push_str(&format!(
            "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
            e.key,
            e.operator,
            e.values.as_deref().unwrap_or_default().join(" ")
        ));
    }
    out.push_str("},}");
    out
}

/// Go's `%q` of a string.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
