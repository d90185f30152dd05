//! The metrics client (H-99..H-102): the metrics APIs' answers, as `kubectl get --raw`
//! prints them, read into the [`MetricResponse`] one metric query gets. Explain reads a
//! cluster's metrics through it; a host that reads the APIs itself can too.
//!
//! The answers are matched to a query by their kind: `PodMetricsList` / `PodMetrics`
//! (`metrics.k8s.io`) for a Resource query, `MetricValueList` / `MetricValue`
//! (`custom.metrics.k8s.io`, v1beta1 or v1beta2) for Pods and Object queries,
//! `ExternalMetricValueList` / `ExternalMetricValue` (`external.metrics.k8s.io`) for an
//! External query. An answer read without the query's selector (a whole namespace's pod
//! metrics) is narrowed to what the API would have answered: the items whose labels the
//! selector matches, or, for items without labels, whose pod (if the snapshot holds it)
//! the selector matches.

use serde_json::Value;

use crate::model::StringMap;
use crate::quantity::Quantity;
use crate::selector::Selector;
use crate::time::{Duration, Time};

use super::metrics::MetricQuery;
use super::model::{HpaPod, MetricResponse, PodMetric};

/// The API a query asks (and an error answer names).
pub const RESOURCE_API: &str = "metrics.k8s.io";
/// The API of the Pods and Object metrics.
pub const CUSTOM_API: &str = "custom.metrics.k8s.io";
/// The API of the External metrics.
pub const EXTERNAL_API: &str = "external.metrics.k8s.io";

/// The API group a query goes to.
pub fn api_of(query: &MetricQuery) -> &'static str {
    match query {
        MetricQuery::Resource { .. } => RESOURCE_API,
        MetricQuery::Pods { .. } | MetricQuery::Object { .. } => CUSTOM_API,
        MetricQuery::External { .. } => EXTERNAL_API,
    }
}

/// The items of every answer of one kind (a List's items, or a single object).
fn items<'a>(answers: &'a [Value], list: &str, one: &str) -> Vec<&'a Value> {
    let mut out = Vec::new();
    for a in answers {
        match a.get("kind").and_then(Value::as_str) {
            Some(k) if k == list => {
                out.extend(
                    a.get("items")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten(),
                );
            }
            Some(k) if k == one => out.push(a),
            _ => {}
        }
    }
    out
}

/// An error answer: `{"api": "<group>", "error": "<message>"}`.
fn api_error(answers: &[Value], api: &str) -> Option<String> {
    answers.iter().find_map(|a| {
        (a.get("api").and_then(Value::as_str) == Some(api))
            .then(|| a.get("error").and_then(Value::as_str).map(str::to_owned))
            .flatten()
    })
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, k| v.get(*k))
        .and_then(Value::as_str)
}

fn time(v: &Value, key: &str) -> Option<Time> {
    v.get(key)
        .and_then(Value::as_str)
        .and_then(|t| Time::parse(t).ok().flatten())
}

fn milli(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => Quantity::parse(s).ok().map(|q| q.milli_value()),
        Value::Number(n) => Quantity::parse(&n.to_string())
            .ok()
            .map(|q| q.milli_value()),
        _ => None,
    }
}

fn labels(v: &Value, path: &[&str]) -> Option<StringMap> {
    let map = path.iter().try_fold(v, |v, k| v.get(*k))?.as_object()?;
    let mut labels = StringMap::new();
    labels.extend(
        map.iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))),
    );
    Some(labels)
}

/// Would the API have answered this pod's item for `selector`? By the item's labels, else
/// by the snapshot's pod of that name (an unknown pod is kept).
fn pod_selected(
    selector: &Selector,
    item_labels: Option<&StringMap>,
    name: &str,
    namespace: &str,
    pods: &[HpaPod],
) -> bool {
    if let Some(l) = item_labels {
        return selector.matches(Some(l));
    }
    pods.iter()
        .find(|p| p.metadata.name == name && p.metadata.namespace == namespace)
        .is_none_or(|p| p.metadata.selected_by(selector))
}

/// The client's answer to `query` from the APIs' answers (H-99..H-102), with the client's
/// error texts when there is nothing to read.
pub fn metric_response(query: &MetricQuery, answers: &[Value], pods: &[HpaPod]) -> MetricResponse {
    let failed = |message: String| MetricResponse {
        error: Some(message),
        ..MetricResponse::default()
    };
    let api = api_of(query);
    match query {
        MetricQuery::Resource {
            namespace,
            selector,
            resource,
            container,
        } => {
            let sel = Selector::parse(selector).unwrap_or(Selector::Nothing);
            let chosen: Vec<&Value> = items(answers, "PodMetricsList", "PodMetrics")
                .into_iter()
                .filter(|i| {
                    let name = text(i, &["metadata", "name"]).unwrap_or_default();
                    text(i, &["metadata", "namespace"]).is_none_or(|n| n == namespace)
                        && pod_selected(
                            &sel,
                            labels(i, &["metadata", "labels"]).as_ref(),
                            name,
                            namespace,
                            pods,
                        )
                })
                .collect();
            if chosen.is_empty() {
                return failed(match api_error(answers, api) {
                    Some(e) => format!("unable to fetch metrics from resource metrics API: {e}"),
                    None => "no metrics returned from resource metrics API".into(),
                });
            }
            let mut out = Vec::new();
            for i in &chosen {
                let containers = i
                    .get("containers")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                // H-99: the sum over the containers (an item with none, or with one that
                // lacks the resource, is left out), or the named container's usage.
                let value = match container {
                    Some(c) => containers
                        .iter()
                        .find(|k| text(k, &["name"]) == Some(c))
                        .and_then(|k| milli(k.get("usage").and_then(|u| u.get(resource)))),
                    None if containers.is_empty() => None,
                    None => containers.iter().try_fold(0_i64, |acc, k| {
                        Some(acc.wrapping_add(milli(k.get("usage").and_then(|u| u.get(resource)))?))
                    }),
                };
                if let Some(value) = value {
                    out.push(PodMetric {
                        pod: text(i, &["metadata", "name"]).unwrap_or_default().into(),
                        value,
                        timestamp: time(i, "timestamp"),
                        window_millis: i
                            .get("window")
                            .and_then(Value::as_str)
                            .and_then(go_duration)
                            .map_or(0, |d| d.as_nanos() / 1_000_000),
                    });
                }
            }
            MetricResponse {
                timestamp: chosen.first().and_then(|i| time(i, "timestamp")),
                pod_metrics: Some(out),
                ..MetricResponse::default()
            }
        }
        MetricQuery::Pods {
            namespace,
            selector,
            metric,
            ..
        } => {
            let sel = Selector::parse(selector).unwrap_or(Selector::Nothing);
            let chosen: Vec<&Value> = items(answers, "MetricValueList", "MetricValue")
                .into_iter()
                .filter(|i| {
                    let name = text(i, &["describedObject", "name"]).unwrap_or_default();
                    text(i, &["describedObject", "kind"]) == Some("Pod")
                        && custom_name(i) == Some(metric)
                        && text(i, &["describedObject", "namespace"]).is_none_or(|n| n == namespace)
                        && pod_selected(&sel, None, name, namespace, pods)
                })
                .collect();
            if chosen.is_empty() {
                return failed(match api_error(answers, api) {
                    Some(e) => format!("unable to fetch metrics from custom metrics API: {e}"),
                    None => "no metrics returned from custom metrics API".into(),
                });
            }
            // H-100: the window is `windowSeconds`, one minute when absent.
            let out = chosen
                .iter()
                .map(|i| PodMetric {
                    pod: text(i, &["describedObject", "name"])
                        .unwrap_or_default()
                        .into(),
                    value: milli(i.get("value")).unwrap_or(0),
                    timestamp: time(i, "timestamp"),
                    window_millis: i
                        .get("windowSeconds")
                        .and_then(Value::as_i64)
                        .map_or(60_000, |s| s.saturating_mul(1000)),
                })
                .collect();
            MetricResponse {
                timestamp: chosen.first().and_then(|i| time(i, "timestamp")),
                pod_metrics: Some(out),
                ..MetricResponse::default()
            }
        }
        MetricQuery::Object {
            namespace,
            described_object,
            metric,
            ..
        } => {
            // H-101: a core Namespace's metric is the HPA's namespace's.
            let ns_kind = described_object.kind == "Namespace"
                && group_of(&described_object.api_version).is_empty();
            let name = if ns_kind {
                namespace.as_str()
            } else {
                described_object.name.as_str()
            };
            let found = items(answers, "MetricValueList", "MetricValue")
                .into_iter()
                .find(|i| {
                    text(i, &["describedObject", "kind"]) == Some(described_object.kind.as_str())
                        && text(i, &["describedObject", "name"]) == Some(name)
                        && custom_name(i) == Some(metric)
                });
            match found {
                Some(i) => MetricResponse {
                    object_value: Some(milli(i.get("value")).unwrap_or(0)),
                    timestamp: time(i, "timestamp"),
                    ..MetricResponse::default()
                },
                None => failed(format!(
                    "unable to fetch metrics from custom metrics API: {}",
                    api_error(answers, api).unwrap_or_else(|| format!(
                        "the server could not find the metric {metric} for {} {name}",
                        described_object.kind
                    ))
                )),
            }
        }
        MetricQuery::External {
            metric,
            metric_selector,
            ..
        } => {
            let sel = match metric_selector {
                None => Selector::All(Vec::new()),
                Some(s) => Selector::compile(Some(s)).unwrap_or(Selector::Nothing),
            };
            // The API applied the selector: upstream reads every item it answers. Among
            // several answers (a snapshot's files), the items whose labels match are
            // the query's; items without matching labels (an adapter that leaves
            // `metricLabels` empty) are still the answer when none match.
            let named: Vec<&Value> =
                items(answers, "ExternalMetricValueList", "ExternalMetricValue")
                    .into_iter()
                    .filter(|i| text(i, &["metricName"]) == Some(metric))
                    .collect();
            let labelled: Vec<&Value> = named
                .iter()
                .copied()
                .filter(|i| sel.matches(labels(i, &["metricLabels"]).as_ref()))
                .collect();
            let chosen = if labelled.is_empty() { named } else { labelled };
            if chosen.is_empty() {
                return failed(match api_error(answers, api) {
                    Some(e) => format!("unable to fetch metrics from external metrics API: {e}"),
                    None => "no metrics returned from external metrics API".into(),
                });
            }
            MetricResponse {
                external_values: Some(
                    chosen
                        .iter()
                        .map(|i| milli(i.get("value")).unwrap_or(0))
                        .collect(),
                ),
                timestamp: chosen.first().and_then(|i| time(i, "timestamp")),
                ..MetricResponse::default()
            }
        }
    }
}

/// The query's metric selector as the metrics client sends it (`metricLabelSelector` of the
/// custom metrics API, `labelSelector` of the external one): its text, `""` for none or
/// for one that does not compile (the engine refuses those before any query).
pub fn metric_selector_text(query: &MetricQuery) -> String {
    let sel = match query {
        MetricQuery::Resource { .. } => None,
        MetricQuery::Pods {
            metric_selector, ..
        }
        | MetricQuery::Object {
            metric_selector, ..
        }
        | MetricQuery::External {
            metric_selector, ..
        } => metric_selector.as_ref(),
    };
    match sel.map(|s| Selector::compile(Some(s))) {
        Some(Ok(s @ Selector::All(_))) => s.to_string(),
        _ => String::new(),
    }
}

/// A custom metric item's name: v1beta2's `metric.name`, v1beta1's `metricName`.
fn custom_name(item: &Value) -> Option<&str> {
    text(item, &["metric", "name"]).or_else(|| text(item, &["metricName"]))
}

fn group_of(api_version: &str) -> &str {
    match api_version.split_once('/') {
        Some((g, _)) => g,
        None => "",
    }
}

/// Go's `time.ParseDuration` for the forms the metrics API writes (`15.009s`, `1m0s`,
/// `500ms`); `None` for anything else.
pub(crate) fn go_duration(text: &str) -> Option<Duration> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(Duration::from_nanos(0));
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(digits);
        let value: f64 = number.parse().ok()?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let scale = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        total += value * scale;
        rest = tail;
    }
    let nanos = total.round();
    if !nanos.is_finite() || nanos >= 9.2e18 {
        return None;
    }
    let nanos = nanos as i64;
    Some(Duration::from_nanos(if negative { -nanos } else { nanos }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        let ms = |t: &str| go_duration(t).map(|d| d.as_nanos() / 1_000_000);
        assert_eq!(ms("15.009s"), Some(15_009));
        assert_eq!(ms("1m0s"), Some(60_000));
        assert_eq!(ms("500ms"), Some(500));
        assert_eq!(ms("0"), Some(0));
        assert_eq!(ms("1x"), None);
        assert_eq!(ms(""), None);
    }

    #[test]
    fn metric_selectors_as_query_text() {
        let q: MetricQuery = serde_json::from_value(serde_json::json!({
            "api": "external", "namespace": "ns", "metric": "queue",
            "metricSelector": {"matchLabels": {"q": "a"}, "matchExpressions": [{"key": "z", "operator": "Exists"}]}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(metric_selector_text(&q), "q=a,z");
        let none: MetricQuery = serde_json::from_value(
            serde_json::json!({"api": "external", "namespace": "ns", "metric": "queue"}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(metric_selector_text(&none), "");
    }

    #[test]
    fn h99_pod_metrics_sum_containers_and_narrow_to_the_selector() {
        let answers = vec![serde_json::json!({
            "kind": "PodMetricsList",
            "items": [
                {"metadata": {"name": "a", "namespace": "ns", "labels": {"app": "web"}},
                 "timestamp": "2026-11-27T12:00:00Z", "window": "30s",
                 "containers": [{"name": "x", "usage": {"cpu": "100m"}}, {"name": "y", "usage": {"cpu": "50m"}}]},
                {"metadata": {"name": "b", "namespace": "ns", "labels": {"app": "db"}},
                 "containers": [{"name": "x", "usage": {"cpu": "1"}}]},
                {"metadata": {"name": "c", "namespace": "ns", "labels": {"app": "web"}},
                 "containers": [{"name": "x", "usage": {"memory": "1Mi"}}]}
            ]
        })];
        let q = MetricQuery::Resource {
            namespace: "ns".into(),
            selector: "app=web".into(),
            resource: "cpu".into(),
            container: None,
        };
        let r = metric_response(&q, &answers, &[]);
        let got: Vec<(String, i64, i64)> = r
            .pod_metrics
            .unwrap_or_default()
            .into_iter()
            .map(|m| (m.pod, m.value, m.window_millis))
            .collect();
        // c lacks cpu in a container: left out (missing); b is not selected.
        assert_eq!(got, vec![("a".to_owned(), 150, 30_000)]);
        let none = metric_response(&q, &[], &[]);
        assert_eq!(
            none.error.as_deref(),
            Some("no metrics returned from resource metrics API")
        );
    }

    #[test]
    fn h101_external_items_without_labels_are_the_answer_to_the_selector() {
        let q: MetricQuery = serde_json::from_value(serde_json::json!({
            "api": "external", "namespace": "ns", "metric": "queue",
            "metricSelector": {"matchLabels": {"queue": "jobs"}}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let list = |items: serde_json::Value| {
            vec![serde_json::json!({"kind": "ExternalMetricValueList", "items": items})]
        };
        // An adapter that leaves metricLabels empty: upstream sums what it answered.
        let bare = list(serde_json::json!([
            {"metricName": "queue", "metricLabels": {}, "value": "60"},
            {"metricName": "queue", "value": "15"}
        ]));
        assert_eq!(
            metric_response(&q, &bare, &[]).external_values,
            Some(vec![60_000, 15_000])
        );
        // Labelled items: the ones the selector matches are the query's.
        let labelled = list(serde_json::json!([
            {"metricName": "queue", "metricLabels": {"queue": "jobs"}, "value": "7"},
            {"metricName": "queue", "metricLabels": {"queue": "mail"}, "value": "9"},
            {"metricName": "other", "metricLabels": {"queue": "jobs"}, "value": "1"}
        ]));
        assert_eq!(
            metric_response(&q, &labelled, &[]).external_values,
            Some(vec![7_000])
        );
    }
}
