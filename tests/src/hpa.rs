//! The judges of the autoscaler's kinds (`conformance/HPA.md`): `hpa-replicas` (one
//! replica-calculator call), `hpa-sync` (one `reconcileAutoscaler`, the runner playing
//! the API server, the discovery mapper and the metrics client of the recorder), and
//! `hpa-trace` (a sequence of syncs, the engine's own memory carried from step to step).

use replicore::hpa::calculator::{self, Context, ObjectRef, StartupPeriods, Tolerances};
use replicore::hpa::model::{HpaPod, MetricResponse};
use replicore::hpa::pods::{PodFacts, PodNames};
use replicore::hpa::{
    GroupResource, HpaAnswer, HpaCall, HpaMemory, HpaSync, HpaSyncDone, HpaSyncInput,
};
use replicore::model::LabelSelector;
use replicore::selector::Selector;
use replicore::time::{Duration, Time};
use serde_json::{json, Value};

use crate::{fail, name_of, parse, Failure, Judged};

/// The message normalisation of HPA.md: the pod a missing request names, and the order of
/// the HPAs an ambiguous selector lists.
pub fn normalize_message(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut rest = m;
    while let Some(at) = ["of Pod ", "in Pod "]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| (i, p.len())))
        .min()
    {
        let (i, len) = at;
        out.push_str(&rest[..i + len]);
        out.push_str("<pod>");
        let after = &rest[i + len..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    if let Some(i) = out.find("are controlled by multiple HPAs: [") {
        let start = i + "are controlled by multiple HPAs: [".len();
        if let Some(len) = out[start..].find(']') {
            let mut keys: Vec<&str> = out[start..start + len].split(' ').collect();
            keys.sort_unstable();
            let sorted = keys.join(" ");
            out = format!("{}{}{}", &out[..start], sorted, &out[start + len..]);
        }
    }
    out
}

fn tolerances(v: &Value) -> Tolerances {
    Tolerances {
        scale_up: v["ScaleUp"].as_f64().unwrap_or(0.1),
        scale_down: v["ScaleDown"].as_f64().unwrap_or(0.1),
    }
}

fn seconds(v: &Value, default: i64) -> Duration {
    Duration::from_seconds(v.as_i64().unwrap_or(default))
}

/// `hpa-replicas`: one calculator method, judged on every output field.
pub fn judge_hpa_replicas(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let now: Time = parse(&name, "input.now", &input["now"])?;
    let pods: Vec<HpaPod> = parse(&name, "input.pods", &input["pods"])?;
    let namespace = input["namespace"].as_str().unwrap_or("");
    let selector = Selector::parse(input["selector"].as_str().unwrap_or(""))
        .map_err(|e| fail(&name, "input.selector", "a selector", e.to_string()))?;
    let mut listed: Vec<&HpaPod> = pods
        .iter()
        .filter(|p| p.listed_by(namespace, &selector))
        .collect();
    let names = PodNames::dedupe(&mut listed, |p| p.metadata.name.as_str());
    let facts: Vec<PodFacts> = listed.iter().map(|p| PodFacts::of(p)).collect();
    let ctx = Context {
        pods: &listed,
        names: &names,
        facts: &facts,
        requested: &[],
        startup: StartupPeriods {
            cpu_initialization: seconds(&input["cpuInitializationPeriodSeconds"], 300),
            readiness_delay: seconds(&input["delayOfInitialReadinessStatusSeconds"], 30),
        },
        now,
        tolerances: tolerances(&input["tolerances"]),
        pod_level_resources: input["featureGates"]["PodLevelResources"]
            .as_bool()
            .unwrap_or(true),
    };
    let resp: MetricResponse = if input["metrics"].is_null() {
        MetricResponse::default()
    } else {
        parse(&name, "input.metrics", &input["metrics"])?
    };
    let current = input["currentReplicas"].as_i64().unwrap_or(0) as i32;
    let target = input["targetUsage"].as_i64().unwrap_or(0);
    let metric = input["metricName"].as_str().unwrap_or("");
    let resource = input["resource"].as_str().unwrap_or("");
    let container = input["container"].as_str().unwrap_or("");
    let metric_selector: Option<LabelSelector> = if input["metricSelector"].is_null() {
        None
    } else {
        Some(parse(
            &name,
            "input.metricSelector",
            &input["metricSelector"],
        )?)
    };
    let obj = ObjectRef {
        kind: input["objectRef"]["kind"].as_str().unwrap_or(""),
        name: input["objectRef"]["name"].as_str().unwrap_or(""),
        namespace,
    };
    let method = input["method"].as_str().unwrap_or("");
    let result = match method {
        "GetResourceReplicas" => {
            let t = input["targetUtilization"].as_i64().unwrap_or(0) as i32;
            calculator::resource_replicas(&ctx, current, t, resource, container, &resp)
        }
        "GetRawResourceReplicas" => {
            calculator::raw_resource_replicas(&ctx, current, target, resource, &resp)
        }
        "GetMetricReplicas" => {
            calculator::pods_metric_replicas(&ctx, current, target, metric, &resp)
        }
        "GetObjectMetricReplicas" => {
            calculator::object_replicas(&ctx, current, target, metric, obj, &resp)
        }
        "GetObjectPerPodMetricReplicas" => {
            calculator::object_per_pod_replicas(&ctx, current, target, metric, obj, &resp)
        }
        "GetExternalMetricReplicas" => calculator::external_replicas(
            &ctx,
            current,
            target,
            namespace,
            metric,
            metric_selector.as_ref(),
            &resp,
        ),
        "GetExternalPerPodMetricReplicas" => calculator::external_per_pod_replicas(
            &ctx,
            current,
            target,
            namespace,
            metric,
            metric_selector.as_ref(),
            &resp,
        ),
        other => return Err(fail(&name, "input.method", "a calculator method", other)),
    };
    let resource_method = method == "GetResourceReplicas";
    let skip_usage = case["tags"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t == "amd64-float-to-int"));
    let got = match &result {
        Ok(p) => {
            let mut v = json!({"replicas": p.replicas, "error": false,
                "timestamp": p.timestamp.map(|t| t.to_rfc3339())});
            if resource_method {
                v["utilization"] = json!(p.utilization);
                v["rawUtilization"] = json!(p.usage);
            } else {
                v["usage"] = json!(p.usage);
            }
            v
        }
        Err(e) => {
            let mut v = json!({"replicas": 0, "error": true, "timestamp": null,
                "errorMessage": normalize_message(&e.message)});
            if resource_method {
                v["utilization"] = json!(e.partial.utilization);
                v["rawUtilization"] = json!(e.partial.usage);
            } else {
                v["usage"] = json!(e.partial.usage);
            }
            v
        }
    };
    let comparable = |e: &Value| {
        let mut e = e.clone();
        if let Some(m) = e["errorMessage"].as_str() {
            e["errorMessage"] = json!(normalize_message(m));
        }
        if skip_usage {
            if let Some(o) = e.as_object_mut() {
                o.remove("usage");
            }
        }
        e
    };
    let mut got = got;
    if skip_usage {
        if let Some(o) = got.as_object_mut() {
            o.remove("usage");
        }
    }
    let candidates = std::iter::once(&case["expect"])
        .chain(case["alternatives"].as_array().into_iter().flatten());
    for want in candidates {
        if comparable(want) == got {
            return Ok(());
        }
    }
    Err(fail(&name, "result", comparable(&case["expect"]), got))
}

/// The recorder's fake API server, mapper and metrics client for one sync.
struct FakeCluster<'a> {
    step: &'a Value,
    scale_gets: u32,
    scale_updates: u32,
    status_updates: u32,
    actions: Vec<Value>,
}

fn api_error(kind: &str, resource: &str, name: &str) -> (String, String) {
    let message = match kind {
        "NotFound" => format!("{resource} \"{name}\" not found"),
        "Conflict" => format!(
            "Operation cannot be fulfilled on {resource} \"{name}\": the object has been modified; please apply your changes to the latest version and try again"
        ),
        "InternalError" => "Internal error occurred: etcdserver: request timed out".into(),
        "Forbidden" => format!("{resource} \"{name}\" is forbidden: exceeded quota: compute-resources"),
        "ServiceUnavailable" => "the server is currently unable to handle the request".into(),
        "Timeout" => "Timeout: request did not complete within requested timeout - context deadline exceeded".into(),
        other => other.to_string(),
    };
    (kind.to_owned(), message)
}

fn qualified(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    }
}

impl FakeCluster<'_> {
    fn injected(&self, verb: &str, resource: &str, call: u32) -> Option<String> {
        self.step["failures"].as_array()?.iter().find_map(|f| {
            (f["verb"] == verb
                && f["resource"] == resource
                && f["onCall"].as_u64() == Some(u64::from(call)))
            .then(|| f["error"].as_str().unwrap_or("InternalError").to_owned())
        })
    }

    /// Records an action: `what` is (verb, group, resource, subresource), `at` is
    /// (namespace, name).
    fn action(&mut self, what: [&str; 4], at: [&str; 2], result: &str) -> &mut Value {
        let [verb, group, resource, sub] = what;
        let [ns, name] = at;
        self.actions
            .push(json!({"verb": verb, "group": group, "resource": resource,
            "subresource": sub, "namespace": ns, "name": name, "result": result}));
        let last = self.actions.len() - 1;
        &mut self.actions[last]
    }

    fn answer(&mut self, call: &HpaCall) -> HpaAnswer {
        match call {
            HpaCall::ResolveTarget { group, kind } => {
                let resource = match (group.as_str(), kind.as_str()) {
                    ("", "ReplicationController") => Some(""),
                    ("apps", "Deployment") => Some("deployments"),
                    ("apps", "ReplicaSet") => Some("replicasets"),
                    ("apps", "StatefulSet") => Some("statefulsets"),
                    ("example.com", "WebApp") => Some("webapps"),
                    _ => None,
                };
                match resource {
                    Some("") => HpaAnswer::Mappings {
                        resources: vec![GroupResource {
                            group: String::new(),
                            resource: "replicationcontrollers".into(),
                        }],
                    },
                    Some(r) => HpaAnswer::Mappings {
                        resources: vec![GroupResource {
                            group: group.clone(),
                            resource: r.into(),
                        }],
                    },
                    None => HpaAnswer::Error {
                        reason: String::new(),
                        message: format!("no matches for kind \"{kind}\" in group \"{group}\""),
                    },
                }
            }
            HpaCall::GetScale {
                namespace,
                name,
                group,
                resource,
            } => {
                self.scale_gets += 1;
                let injected = self.injected("get", "scale", self.scale_gets);
                let failure = injected
                    .clone()
                    .or_else(|| self.step["scale"].is_null().then(|| "NotFound".to_owned()));
                let result = failure.clone().unwrap_or_else(|| "ok".into());
                self.action(
                    ["get", group, resource, "scale"],
                    [namespace.as_str(), name.as_str()],
                    &result,
                );
                match failure {
                    Some(kind) => {
                        let (reason, message) = api_error(&kind, &qualified(group, resource), name);
                        HpaAnswer::Error { reason, message }
                    }
                    None => match serde_json::from_value(self.step["scale"].clone()) {
                        Ok(scale) => HpaAnswer::Scale { scale },
                        Err(e) => HpaAnswer::Error {
                            reason: "Invalid".into(),
                            message: e.to_string(),
                        },
                    },
                }
            }
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: serde_json::from_value(self.step["pods"].clone()).unwrap_or_default(),
            },
            HpaCall::FetchMetric { index, .. } => HpaAnswer::Metric {
                response: serde_json::from_value(self.step["metrics"][*index].clone())
                    .unwrap_or_default(),
            },
            HpaCall::UpdateScale {
                namespace,
                name,
                group,
                resource,
                replicas,
                ..
            } => {
                self.scale_updates += 1;
                let injected = self.injected("update", "scale", self.scale_updates);
                let result = injected.clone().unwrap_or_else(|| "ok".into());
                let a = self.action(
                    ["update", group, resource, "scale"],
                    [namespace.as_str(), name.as_str()],
                    &result,
                );
                a["replicas"] = json!(replicas);
                match injected {
                    Some(kind) => {
                        let (reason, message) = api_error(&kind, &qualified(group, resource), name);
                        HpaAnswer::Error { reason, message }
                    }
                    None => HpaAnswer::Ok,
                }
            }
            HpaCall::UpdateStatus {
                namespace,
                name,
                status,
                ..
            } => {
                self.status_updates += 1;
                let injected =
                    self.injected("update", "horizontalpodautoscalers", self.status_updates);
                let result = injected.clone().unwrap_or_else(|| "ok".into());
                let a = self.action(
                    [
                        "update",
                        "autoscaling",
                        "horizontalpodautoscalers",
                        "status",
                    ],
                    [namespace.as_str(), name.as_str()],
                    &result,
                );
                a["status"] = status.clone();
                match injected {
                    Some(kind) => {
                        let (reason, message) =
                            api_error(&kind, "horizontalpodautoscalers.autoscaling", name);
                        HpaAnswer::Error { reason, message }
                    }
                    None => HpaAnswer::Ok,
                }
            }
        }
    }
}

/// Runs one sync of a step (or of an `hpa-sync` input) with `memory`; returns what is
/// judged, as the vectors write it.
fn run_step(
    name: &str,
    step: &Value,
    shared: &Value,
    memory: HpaMemory,
) -> Result<(Value, HpaSyncDone), Failure> {
    // The recorder's harness runs inside upstream's test package, whose init() sets the
    // legacy scale-up factor to 8 (H-04, T-30): so did every recorded sync.
    let mut config = shared["config"].clone();
    if config.get("scaleUpLimitFactor").is_none() {
        config["scaleUpLimitFactor"] = json!(8.0);
    }
    let mut doc = json!({
        "now": step["now"],
        "featureGates": shared["featureGates"],
        "config": config,
        "key": shared["key"],
        "hpa": step["hpa"],
        "otherHPASelectors": step.get("otherHPASelectors").cloned().unwrap_or(Value::Null),
    });
    doc["memory"] = serde_json::to_value(&memory).unwrap_or(Value::Null);
    let input = HpaSyncInput::from_value(doc)
        .map_err(|e| fail(name, "input", "a valid input", e.to_string()))?;
    let mut fake = FakeCluster {
        step,
        scale_gets: 0,
        scale_updates: 0,
        status_updates: 0,
        actions: Vec::new(),
    };
    let mut sync = HpaSync::new(input);
    while let Some(call) = sync.pending().cloned() {
        let answer = fake.answer(&call);
        sync.report(answer)
            .map_err(|e| fail(name, "report", "accepted", e.to_string()))?;
    }
    let done = match sync.next() {
        replicore::hpa::HpaStep::Done { done } => done,
        replicore::hpa::HpaStep::Call { call } => {
            return Err(fail(name, "done", "done", format!("{call:?}")))
        }
    };
    let events: Vec<Value> = done
        .events
        .iter()
        .map(|e| json!({"type": e.type_, "reason": e.reason, "message": normalize_message(&e.message)}))
        .collect();
    let mut actions = Value::Array(fake.actions);
    normalize_actions(&mut actions);
    let got = json!({
        "actions": actions,
        "events": events,
        "error": done.error.is_some(),
        "errorMessage": done.error.as_deref().map(normalize_message),
        "memory": done.memory,
    });
    Ok((got, done))
}

/// The message normalisation applied to the conditions of a status an action sends.
fn normalize_actions(actions: &mut Value) {
    for a in actions.as_array_mut().into_iter().flatten() {
        if let Some(o) = a.as_object_mut() {
            o.remove("injected");
        }
        for c in a["status"]["conditions"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if let Some(m) = c["message"].as_str() {
                c["message"] = json!(normalize_message(m));
            }
        }
    }
}

fn comparable(want: &Value) -> Value {
    let mut w = json!({
        "actions": want["actions"],
        "events": want["events"].as_array().map(|es| es.iter().map(|e| json!({"type": e["type"], "reason": e["reason"],
            "message": normalize_message(e["message"].as_str().unwrap_or(""))})).collect::<Vec<_>>()),
        "error": want["error"],
        "errorMessage": want["errorMessage"].as_str().map(normalize_message),
        "memory": want["memory"],
    });
    normalize_actions(&mut w["actions"]);
    if w["errorMessage"].is_null() && w["error"] == json!(false) {
        w["errorMessage"] = Value::Null;
    }
    w
}

/// The first field where `got` and `want` differ, for the report.
fn first_difference(got: &Value, want: &Value) -> (String, String, String) {
    for field in ["actions", "events", "error", "errorMessage", "memory"] {
        if got[field] != want[field] {
            if let (Some(g), Some(w)) = (got[field].as_array(), want[field].as_array()) {
                for i in 0..g.len().max(w.len()) {
                    if g.get(i) != w.get(i) {
                        return (
                            format!("{field}[{i}]"),
                            w.get(i).map_or("(none)".into(), |v| v.to_string()),
                            g.get(i).map_or("(none)".into(), |v| v.to_string()),
                        );
                    }
                }
            }
            return (
                field.into(),
                want[field].to_string(),
                got[field].to_string(),
            );
        }
    }
    ("?".into(), want.to_string(), got.to_string())
}

fn judge_step(name: &str, at: &str, got: &Value, expect: &Value, alternatives: &[Value]) -> Judged {
    let want = comparable(expect);
    if *got == want || alternatives.iter().any(|a| comparable(a) == *got) {
        return Ok(());
    }
    let (field, w, g) = first_difference(got, &want);
    Err(Failure {
        case: name.to_owned(),
        field: format!("{at}{field}"),
        expected: w,
        got: g,
    })
}

fn memory_of(name: &str, v: &Value) -> Result<HpaMemory, Failure> {
    if v.is_null() {
        return Ok(HpaMemory::default());
    }
    parse(name, "input.memory", v)
}

/// `hpa-sync`: one sync, the recorder's world played by the runner.
pub fn judge_hpa_sync(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let memory = memory_of(&name, &input["memory"])?;
    let (got, _) = run_step(&name, input, input, memory)?;
    let alternatives = case["alternatives"].as_array().cloned().unwrap_or_default();
    judge_step(&name, "", &got, &case["expect"], &alternatives)
}

/// `hpa-trace`: the steps in order, the engine's own memory carried along.
pub fn judge_hpa_trace(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let steps = input["steps"].as_array().cloned().unwrap_or_default();
    let expects = case["expect"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut memory = HpaMemory::default();
    for (i, step) in steps.iter().enumerate() {
        let (got, done) = run_step(&name, step, input, memory)?;
        let want = expects.get(i).cloned().unwrap_or(Value::Null);
        judge_step(&name, &format!("steps[{i}]."), &got, &want, &[])?;
        memory = done.memory;
    }
    Ok(())
}
