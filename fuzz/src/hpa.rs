//! The HorizontalPodAutoscaler's step machine under arbitrary input and answers.
//!
//! A fuzz input is `document`, optionally followed by a NUL byte and a `script`. The
//! document is read as an [`HpaSyncInput`] (and as an [`HpaSyncState`]); a refusal must
//! name a path. An input that parses is synced: each call is answered from the script's
//! bytes (any answer kind, the wrong kinds included; scales, pods and metric responses
//! with arbitrary values), or, where the script says so or is used up, from the
//! document's own world (`scale`, `pods`, `metrics`, as the `hpa-sync` conformance
//! vectors carry them) or a plausible default. The engine must never panic.
//!
//! Invariants checked:
//! - a refusal (input, state, answer) names a non-empty path that starts its message;
//! - an answer of the wrong kind is refused and changes nothing; one of the right kind is
//!   taken;
//! - a sync makes a bounded number of calls and ends;
//! - the plain state survives JSON: `HpaSyncState::from_json` → `HpaSync::from_state`
//!   names the same next step, mid-sync and at the end;
//! - the outcome requeues after the sync period, `rescaledTo` is the count of the last
//!   scale write answered `ok`, the memory survives JSON, and a finished sync refuses
//!   further answers;
//! - the memory a sync returns feeds the next sync of the key.

use arbitrary::Unstructured;
use replicore::hpa::{HpaAnswer, HpaCall, HpaMemory, HpaStep, HpaSync, HpaSyncInput, HpaSyncState};
use replicore::time::{Duration, Time};
use serde_json::{json, Value};

/// What one fuzz input exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HpaRun {
    /// The document parsed as a sync input.
    pub parsed: bool,
    /// The document parsed as a sync state and resumed.
    pub resumed: bool,
    /// Syncs driven to their end.
    pub syncs: usize,
    /// Answers taken.
    pub calls: usize,
    /// Answers refused (wrong kind, or not an answer at all).
    pub refused: usize,
}

/// bytes → `HpaSyncInput` / `HpaSyncState` → syncs to their end with answers from the
/// bytes.
pub fn hpa_bytes(data: &[u8]) -> HpaRun {
    let (doc, script) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut run = HpaRun::default();
    let world = World::from_doc(doc);
    match HpaSyncState::from_json(doc).and_then(HpaSync::from_state) {
        Ok(sync) => {
            run.resumed = true;
            let input = sync.state().input;
            drive(
                sync,
                &input,
                &world,
                &mut Unstructured::new(script),
                &mut run,
            );
        }
        Err(e) => check_error(&e),
    }
    let input = match HpaSyncInput::from_json(doc) {
        Ok(input) => input,
        Err(e) => {
            check_error(&e);
            return run;
        }
    };
    run.parsed = true;
    let mut u = Unstructured::new(script);
    let memory = drive(
        HpaSync::new(input.clone()),
        &input,
        &world,
        &mut u,
        &mut run,
    );
    // The next sync of the key, with the memory this one left, answered by the world.
    let mut next = input;
    next.memory = memory;
    drive(
        HpaSync::new(next.clone()),
        &next,
        &world,
        &mut Unstructured::new(&[]),
        &mut run,
    );
    run
}

/// A refusal names where: a non-empty path, which its message starts with.
pub fn check_error(e: &replicore::Error) {
    assert!(!e.path().is_empty(), "an error without a path: {e}");
    assert!(
        e.to_string().starts_with(e.path()),
        "the message does not start with the path: {e}"
    );
}

/// The world a document describes (as the `hpa-sync` vectors do), for the answers the
/// script leaves to it.
#[derive(Default)]
pub struct World {
    scale: Option<Value>,
    pods: Option<Value>,
    metrics: Vec<Value>,
}

impl World {
    fn from_doc(doc: &[u8]) -> World {
        let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(doc) else {
            return World::default();
        };
        World {
            scale: map.remove("scale").filter(|s| !s.is_null()),
            pods: map.remove("pods"),
            metrics: match map.remove("metrics") {
                Some(Value::Array(list)) => list,
                _ => Vec::new(),
            },
        }
    }
}

/// What the driver keeps between calls.
struct Driver<'a> {
    world: &'a World,
    now: Time,
    namespace: String,
    /// The names of the pods last answered (metric samples name them).
    pod_names: Vec<String>,
    /// The labels a `listPods` selector asks for (its `k=v` terms).
    labels: serde_json::Map<String, Value>,
}

/// Runs a sync to its end; returns the memory it left.
fn drive(
    mut sync: HpaSync,
    input: &HpaSyncInput,
    world: &World,
    u: &mut Unstructured<'_>,
    run: &mut HpaRun,
) -> HpaMemory {
    let metrics = input.hpa.spec.metrics.as_ref().map_or(1, Vec::len);
    let bound = 20 + metrics;
    let mut d = Driver {
        world,
        now: input.now,
        namespace: input.hpa.metadata.namespace.clone(),
        pod_names: Vec::new(),
        labels: serde_json::Map::new(),
    };
    let mut calls = 0;
    let mut last_write = None;
    while let Some(call) = sync.pending().cloned() {
        calls += 1;
        assert!(calls <= bound, "a sync makes at most {bound} calls");
        if matches!(call, HpaCall::UpdateScale { .. }) || calls == 3 {
            check_round_trip(&sync);
        }
        if let HpaCall::ListPods { selector, .. } = &call {
            d.labels = labels_of(selector);
        }
        // Up to four answers from the script that may be refused, then one that fits.
        let mut taken = false;
        for _ in 0..4 {
            let Some(answer) = d.scripted(&call, u, run) else {
                break;
            };
            let fits = fits(&call, &answer);
            let before = text(&sync.next());
            match sync.report(answer.clone()) {
                Ok(()) => {
                    assert!(fits, "an answer of the wrong kind was taken: {answer:?}");
                    d.taken(&answer);
                    taken = true;
                    if let HpaCall::UpdateScale { replicas, .. } = &call {
                        last_write = matches!(answer, HpaAnswer::Ok).then_some(*replicas);
                    }
                    break;
                }
                Err(e) => {
                    assert!(!fits, "an answer of the right kind was refused: {e}");
                    check_error(&e);
                    assert_eq!(
                        text(&sync.next()),
                        before,
                        "a refused answer changes nothing"
                    );
                    run.refused += 1;
                }
            }
        }
        if !taken {
            let answer = d.world_answer(&call);
            sync.report(answer.clone())
                .unwrap_or_else(|e| panic!("the world's answer {answer:?} is refused: {e}"));
            d.taken(&answer);
            if let HpaCall::UpdateScale { replicas, .. } = &call {
                last_write = matches!(answer, HpaAnswer::Ok).then_some(*replicas);
            }
        }
        run.calls += 1;
    }
    check_round_trip(&sync);
    let done = match sync.next() {
        HpaStep::Done { done } => done,
        HpaStep::Call { call } => panic!("no call pending, yet the next step is {call:?}"),
    };
    assert_eq!(
        done.requeue_after_seconds, input.config.sync_period_seconds,
        "the requeue is the sync period"
    );
    if let Some(r) = done.rescaled_to {
        assert_eq!(
            Some(r),
            last_write,
            "rescaledTo is the last scale write answered ok"
        );
    }
    let memory: HpaMemory =
        serde_json::from_str(&text(&done.memory)).expect("the memory reads back from its JSON");
    assert_eq!(memory, done.memory, "the memory survives JSON");
    let before = text(&sync.next());
    assert!(
        sync.report(HpaAnswer::Ok).is_err(),
        "a finished sync takes no answer"
    );
    assert_eq!(text(&sync.next()), before);
    run.syncs += 1;
    done.memory
}

/// The plain state through JSON resumes to the same next step.
fn check_round_trip(sync: &HpaSync) {
    let state = serde_json::to_vec(&sync.state()).expect("a state serializes");
    let resumed = HpaSyncState::from_json(&state)
        .and_then(HpaSync::from_state)
        .unwrap_or_else(|e| panic!("a state the machine gave does not resume: {e}"));
    assert_eq!(
        text(&resumed.next()),
        text(&sync.next()),
        "a resumed state names the same next step"
    );
}

/// Whether `answer` is of a kind `call` takes, as `HpaCall`'s documentation lists them.
fn fits(call: &HpaCall, answer: &HpaAnswer) -> bool {
    let takes: &[&str] = match call.name() {
        "resolveTarget" => &["mappings", "error"],
        "getScale" => &["scale", "error"],
        "listPods" => &["pods"],
        "fetchMetric" => &["metric"],
        _ => &["ok", "error"],
    };
    let kind = match answer {
        HpaAnswer::Ok => "ok",
        HpaAnswer::Error { .. } => "error",
        HpaAnswer::Mappings { .. } => "mappings",
        HpaAnswer::Scale { .. } => "scale",
        HpaAnswer::Pods { .. } => "pods",
        HpaAnswer::Metric { .. } => "metric",
    };
    takes.contains(&kind)
}

fn text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("engine values serialize")
}

/// The `k=v` terms of a selector, as labels a matching pod carries.
fn labels_of(selector: &str) -> serde_json::Map<String, Value> {
    selector
        .split(',')
        .filter_map(|term| {
            let (k, v) = term.split_once('=')?;
            let v = v.trim_start_matches('=');
            (!k.ends_with('!')).then(|| (k.trim().to_owned(), json!(v.trim())))
        })
        .collect()
}

/// An answer as a host's JSON, read as the binding reads it.
fn answer_of(v: Value) -> Option<HpaAnswer> {
    match replicore::input::from_value::<HpaAnswer>(v) {
        Ok(a) => Some(a),
        Err(e) => {
            check_error(&e);
            None
        }
    }
}

const QUANTITIES: &[&str] = &[
    "100m",
    "250m",
    "1",
    "64Mi",
    "0",
    "-1",
    "-500m",
    "1e3",
    "9223372036854775807",
    "18446744073709551616",
    "8Ei",
    "0.0000001",
    "1.5Gi",
    "abc",
    "",
    "1Qi",
];

const SELECTORS: &[&str] = &[
    "app=web",
    "",
    "app in (web",
    "!app",
    "app",
    "app=web,tier!=db",
    "x notin (a,b)",
    "app=other",
    "a==b",
    "cheddar cheese",
];

const REASONS: &[&str] = &["Conflict", "NotFound", "InternalError", "", "Forbidden"];

impl Driver<'_> {
    fn taken(&mut self, answer: &HpaAnswer) {
        if let HpaAnswer::Pods { pods } = answer {
            self.pod_names = pods.iter().map(|p| p.metadata.name.clone()).collect();
        }
    }

    fn pick<'s, T>(&self, u: &mut Unstructured<'_>, from: &'s [T]) -> &'s T {
        let i = u.choose_index(from.len()).unwrap_or(0);
        &from[i]
    }

    fn time(&self, u: &mut Unstructured<'_>) -> Value {
        let rel = |s: i64| json!(self.now.plus(Duration::from_seconds(s)).to_string());
        match u.int_in_range(0..=9u8).unwrap_or(0) {
            0 => rel(0),
            1 => rel(-30),
            2 => rel(-600),
            3 => rel(3600),
            4 => json!("1677-09-21T00:12:44Z"),
            5 => json!("2262-04-11T23:47:16Z"),
            6 => json!("0001-01-01T00:00:00Z"),
            7 => Value::Null,
            8 => rel(-i64::from(u.arbitrary::<u16>().unwrap_or(0))),
            _ => json!(Time::from_unix_nanos(u.arbitrary::<i64>().unwrap_or(0)).to_string()),
        }
    }

    fn i32(&self, u: &mut Unstructured<'_>) -> i32 {
        match u.int_in_range(0..=9u8).unwrap_or(0) {
            0 => 3,
            1 => 0,
            2 => 1,
            3 => -1,
            4 => i32::MAX,
            5 => i32::MIN,
            6 => 10,
            7 => i32::MAX - 1,
            _ => u.arbitrary().unwrap_or(0),
        }
    }

    fn i64(&self, u: &mut Unstructured<'_>) -> i64 {
        match u.int_in_range(0..=10u8).unwrap_or(0) {
            0 => 500,
            1 => 0,
            2 => -1,
            3 => i64::MAX,
            4 => i64::MIN,
            5 => i64::MAX / 100,
            6 => 1 << 53,
            7 => -1000,
            8 => 100_000,
            _ => u.arbitrary().unwrap_or(0),
        }
    }

    /// The answer the script gives (`None`: the script leaves it to the world).
    fn scripted(
        &self,
        call: &HpaCall,
        u: &mut Unstructured<'_>,
        run: &mut HpaRun,
    ) -> Option<HpaAnswer> {
        let mode = u.int_in_range(0..=15u8).unwrap_or(0);
        let v = match mode {
            0..=6 => return None,
            7 => json!({"answer": "error", "reason": self.pick(u, REASONS),
                        "message": self.pick(u, &["boom", "", "the object has been modified"])}),
            8 => json!({"answer": "ok"}),
            9 => {
                let n = u.int_in_range(0..=4usize).unwrap_or(0);
                let resources: Vec<Value> = (0..n)
                    .map(|_| {
                        json!({"group": self.pick(u, &["apps", "", "example.com"]),
                               "resource": self.pick(u, &["deployments", "replicasets", "", "webapps"])})
                    })
                    .collect();
                json!({"answer": "mappings", "resources": resources})
            }
            10 => {
                let selector = *self.pick(u, SELECTORS);
                json!({"answer": "scale", "scale": {
                    "spec": {"replicas": self.i32(u)},
                    "status": {"replicas": self.i32(u), "selector": selector}}})
            }
            11 => json!({"answer": "pods", "pods": self.pods(u)}),
            12 | 13 => json!({"answer": "metric", "response": self.metric(u)}),
            14 => {
                // The answer as arbitrary JSON text.
                let raw: &str = u.arbitrary().unwrap_or("");
                match serde_json::from_str::<Value>(raw) {
                    Ok(v) => v,
                    Err(_) => return None,
                }
            }
            _ => return Some(self.world_answer(call)),
        };
        match answer_of(v) {
            Some(a) => Some(a),
            None => {
                run.refused += 1;
                None
            }
        }
    }

    fn pods(&self, u: &mut Unstructured<'_>) -> Vec<Value> {
        let n = u.int_in_range(0..=5usize).unwrap_or(0);
        (0..n)
            .map(|i| {
                let name = match u.int_in_range(0..=5u8).unwrap_or(0) {
                    0 => format!("p{i}"),
                    5 => String::new(),
                    k => format!("p{}", k % 3),
                };
                let namespace = self
                    .pick(u, &[self.namespace.as_str(), "other", ""])
                    .to_string();
                let labels = match u.int_in_range(0..=2u8).unwrap_or(0) {
                    0 => Value::Object(self.labels.clone()),
                    1 => json!({"app": "other"}),
                    _ => Value::Null,
                };
                let mut meta = json!({"name": name, "namespace": namespace, "labels": labels});
                if u.ratio(1, 8).unwrap_or(false) {
                    meta["deletionTimestamp"] = self.time(u);
                }
                let container = |u: &mut Unstructured<'_>, name: &str| {
                    let mut requests = serde_json::Map::new();
                    if u.ratio(3, 4).unwrap_or(true) {
                        requests.insert("cpu".into(), json!(self.pick(u, QUANTITIES)));
                    }
                    if u.ratio(1, 2).unwrap_or(true) {
                        requests.insert("memory".into(), json!(self.pick(u, QUANTITIES)));
                    }
                    let mut c = json!({"name": name, "resources": {"requests": requests}});
                    if u.ratio(1, 4).unwrap_or(false) {
                        c["restartPolicy"] = json!("Always");
                    }
                    c
                };
                let containers: Vec<Value> = (0..u.int_in_range(0..=2usize).unwrap_or(1))
                    .map(|k| container(u, &format!("c{k}")))
                    .collect();
                let mut spec = json!({"containers": containers});
                if u.ratio(1, 4).unwrap_or(false) {
                    spec["initContainers"] = json!([container(u, "init")]);
                }
                if u.ratio(1, 4).unwrap_or(false) {
                    spec["resources"] = json!({"requests": {"cpu": self.pick(u, QUANTITIES)}});
                }
                if u.ratio(1, 6).unwrap_or(false) {
                    spec["overhead"] = json!({"cpu": self.pick(u, QUANTITIES)});
                }
                let phase = self.pick(u, &["Running", "Pending", "Failed", "Succeeded", ""]);
                let mut status = json!({"phase": phase, "startTime": self.time(u)});
                if u.ratio(3, 4).unwrap_or(true) {
                    status["conditions"] = json!([{
                        "type": "Ready",
                        "status": self.pick(u, &["True", "False", "Unknown"]),
                        "lastTransitionTime": self.time(u),
                    }]);
                }
                json!({"metadata": meta, "spec": spec, "status": status})
            })
            .collect()
    }

    fn metric(&self, u: &mut Unstructured<'_>) -> Value {
        let mut r = serde_json::Map::new();
        if u.ratio(3, 4).unwrap_or(true) {
            let n = u.int_in_range(0..=5usize).unwrap_or(0);
            let samples: Vec<Value> = (0..n)
                .map(|i| {
                    let pod = match self.pod_names.get(i) {
                        Some(p) if u.ratio(3, 4).unwrap_or(true) => p.clone(),
                        _ => "ghost".to_owned(),
                    };
                    let mut s = json!({"pod": pod, "value": self.i64(u)});
                    if u.ratio(1, 2).unwrap_or(false) {
                        s["timestamp"] = self.time(u);
                    }
                    if u.ratio(1, 2).unwrap_or(false) {
                        s["windowMillis"] = json!(self.i64(u));
                    }
                    s
                })
                .collect();
            r.insert("podMetrics".into(), json!(samples));
        }
        if u.ratio(1, 2).unwrap_or(false) {
            r.insert("objectValue".into(), json!(self.i64(u)));
        }
        if u.ratio(1, 2).unwrap_or(false) {
            let n = u.int_in_range(0..=4usize).unwrap_or(0);
            let values: Vec<i64> = (0..n).map(|_| self.i64(u)).collect();
            r.insert("externalValues".into(), json!(values));
        }
        if u.ratio(1, 3).unwrap_or(false) {
            r.insert("timestamp".into(), self.time(u));
        }
        if u.ratio(1, 6).unwrap_or(false) {
            r.insert("error".into(), json!("unable to fetch metrics: fuzz"));
        }
        Value::Object(r)
    }

    /// The answer of the document's world, or a plausible default; always of the kind
    /// the call takes.
    fn world_answer(&self, call: &HpaCall) -> HpaAnswer {
        let world = self.world;
        let from_world = match call {
            HpaCall::GetScale { .. } => world
                .scale
                .clone()
                .map(|s| json!({"answer": "scale", "scale": s})),
            HpaCall::ListPods { .. } => world
                .pods
                .clone()
                .map(|p| json!({"answer": "pods", "pods": p})),
            HpaCall::FetchMetric { index, .. } => world
                .metrics
                .get(*index)
                .map(|m| json!({"answer": "metric", "response": m})),
            _ => None,
        };
        if let Some(a) = from_world.and_then(answer_of) {
            return a;
        }
        let v = match call {
            HpaCall::ResolveTarget { group, kind } => {
                let resource = format!("{}s", kind.to_lowercase());
                json!({"answer": "mappings", "resources": [{"group": group, "resource": resource}]})
            }
            HpaCall::GetScale { .. } => json!({"answer": "scale", "scale": {
                "spec": {"replicas": 3}, "status": {"replicas": 3, "selector": "app=web"}}}),
            HpaCall::ListPods { namespace, .. } => {
                let started = self.now.plus(Duration::from_seconds(-3600)).to_string();
                let pods: Vec<Value> = (0..3)
                    .map(|i| {
                        json!({
                            "metadata": {"name": format!("p{i}"), "namespace": namespace,
                                         "labels": Value::Object(self.labels.clone())},
                            "spec": {"containers": [{"name": "app",
                                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
                            "status": {"phase": "Running", "startTime": started,
                                "conditions": [{"type": "Ready", "status": "True",
                                                "lastTransitionTime": started}]}
                        })
                    })
                    .collect();
                json!({"answer": "pods", "pods": pods})
            }
            HpaCall::FetchMetric { .. } => {
                let samples: Vec<Value> = self
                    .pod_names
                    .iter()
                    .map(|p| json!({"pod": p, "value": 150}))
                    .collect();
                json!({"answer": "metric", "response": {
                    "podMetrics": samples, "objectValue": 1500, "externalValues": [1500]}})
            }
            HpaCall::UpdateScale { .. } | HpaCall::UpdateStatus { .. } => json!({"answer": "ok"}),
        };
        answer_of(v).expect("the default answers read")
    }
}
