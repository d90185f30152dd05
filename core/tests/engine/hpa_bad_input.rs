//! Bad input to the autoscaler's sync (issue 25, point 7): what is refused, with its exact
//! field path and code (H-21: fields upstream would dereference without a check; values
//! that do not parse), and what is not refused because upstream decides it: an inverted
//! or negative min/max, an empty or unparsable selector, an unknown metric type. Those
//! run to upstream's conditions, events and errors.

use replicore::hpa::{
    GroupResource, HpaAnswer, HpaCall, HpaStep, HpaSync, HpaSyncDone, HpaSyncInput, HpaSyncState,
};
use serde_json::{json, Value};

const NOW: &str = "2026-11-27T12:00:00Z";

/// A valid HPA (External metric, AverageValue 10) with `spec` fields replaced.
fn hpa(spec: Value) -> Value {
    let mut h = json!({"metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 1, "maxReplicas": 10,
                 "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                              "target": {"type": "AverageValue", "averageValue": "10"}}}]}});
    for (k, v) in spec.as_object().into_iter().flatten() {
        h["spec"][k] = v.clone();
    }
    h
}

fn doc(spec: Value) -> Value {
    json!({"now": NOW, "hpa": hpa(spec)})
}

/// The refusal of an input document: (code, path), checked to be `path: what`.
fn refused(input: &Value) -> (&'static str, String) {
    let e =
        HpaSyncInput::from_json(input.to_string().as_bytes()).expect_err("the input is refused");
    assert!(e.to_string().starts_with(&format!("{}: ", e.path())), "{e}");
    // The value form refuses the same way.
    let v = HpaSyncInput::from_value(input.clone()).expect_err("refused as a value too");
    assert_eq!(v, e);
    (e.code(), e.path().to_owned())
}

/// Runs a sync: the scale has `replicas` and `selector`, the external metric `usage`
/// milli-units; every write succeeds.
fn sync(input: &Value, replicas: i32, selector: &str, usage: i64) -> (HpaSyncDone, Vec<HpaCall>) {
    let input = HpaSyncInput::from_value(input.clone()).expect("a valid input");
    let mut sync = HpaSync::new(input);
    let mut calls = Vec::new();
    while let Some(call) = sync.pending().cloned() {
        let answer = match &call {
            HpaCall::ResolveTarget { .. } => HpaAnswer::Mappings {
                resources: vec![GroupResource {
                    group: "apps".into(),
                    resource: "deployments".into(),
                }],
            },
            HpaCall::GetScale { .. } => HpaAnswer::Scale {
                scale: serde_json::from_value(json!({"spec": {"replicas": replicas},
                    "status": {"replicas": replicas, "selector": selector}}))
                .unwrap(),
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: Default::default(),
            },
            HpaCall::FetchMetric { .. } => HpaAnswer::Metric {
                response: serde_json::from_value(json!({"externalValues": [usage]})).unwrap(),
            },
            _ => HpaAnswer::Ok,
        };
        calls.push(call);
        sync.report(answer).expect("a fitting answer is taken");
    }
    let HpaStep::Done { done } = sync.next() else {
        panic!("no call left, yet not done")
    };
    (done, calls)
}

/// A condition of the status: (status, reason, message).
fn condition(done: &HpaSyncDone, type_: &str) -> (String, String, String) {
    let c = done
        .status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == type_)
        .unwrap_or_else(|| panic!("no {type_} condition: {:?}", done.status.conditions));
    (c.status.clone(), c.reason.clone(), c.message.clone())
}

fn events(done: &HpaSyncDone) -> Vec<(String, String, String)> {
    done.events
        .iter()
        .map(|e| (e.type_.clone(), e.reason.clone(), e.message.clone()))
        .collect()
}

fn s(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

// ---- refused, with the exact path --------------------------------------------------------

#[test]
fn h21_sources_upstream_dereferences_are_required_with_their_path() {
    for (metric, path) in [
        (json!({"type": "Pods"}), "hpa.spec.metrics[0].pods"),
        (
            json!({"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue"}}}),
            "hpa.spec.metrics[0].pods.target.averageValue",
        ),
        (json!({"type": "Object"}), "hpa.spec.metrics[0].object"),
        (json!({"type": "Resource"}), "hpa.spec.metrics[0].resource"),
        (
            json!({"type": "ContainerResource", "containerResource": null}),
            "hpa.spec.metrics[0].containerResource",
        ),
        (json!({"type": "External"}), "hpa.spec.metrics[0].external"),
    ] {
        assert_eq!(
            refused(&doc(json!({"metrics": [metric]}))),
            ("MISSING", path.to_owned())
        );
    }
    // The second metric's path names its index.
    let good = json!({"type": "External", "external": {"metric": {"name": "q"},
        "target": {"type": "Value", "value": "1"}}});
    assert_eq!(
        refused(&doc(json!({"metrics": [good, {"type": "Pods"}]}))).1,
        "hpa.spec.metrics[1].pods"
    );
}

#[test]
fn bad_values_are_refused_with_their_path() {
    let mut no_now = doc(json!({}));
    no_now.as_object_mut().unwrap().remove("now");
    assert_eq!(refused(&no_now).1, "now");
    let mut bad_now = doc(json!({}));
    bad_now["now"] = json!("yesterday");
    assert_eq!(refused(&bad_now), ("MALFORMED", "now".to_owned()));
    bad_now["now"] = json!(1_790_000_000);
    assert_eq!(refused(&bad_now), ("MALFORMED", "now".to_owned()));

    let mut memory = doc(json!({}));
    memory["memory"] = json!({"recommendations": [{"recommendation": 3, "timestamp": "soon"}]});
    assert_eq!(
        refused(&memory),
        (
            "MALFORMED",
            "memory.recommendations[0].timestamp".to_owned()
        )
    );
    memory["memory"] = json!({"scaleUpEvents": [{"replicaChange": "2", "timestamp": NOW}]});
    assert_eq!(
        refused(&memory),
        (
            "MALFORMED",
            "memory.scaleUpEvents[0].replicaChange".to_owned()
        )
    );
    memory["memory"] = json!([]);
    assert_eq!(refused(&memory), ("MALFORMED", "memory".to_owned()));

    assert_eq!(
        refused(&json!({"now": NOW, "hpa": "web"})),
        ("MALFORMED", "hpa".to_owned())
    );
    assert_eq!(
        refused(&doc(json!({"maxReplicas": "10"}))),
        ("MALFORMED", "hpa.spec.maxReplicas".to_owned())
    );
    assert_eq!(
        refused(&doc(json!({"minReplicas": 3_000_000_000_i64}))),
        ("MALFORMED", "hpa.spec.minReplicas".to_owned())
    );
    assert_eq!(
        refused(&doc(json!({"metrics": {"type": "Pods"}}))),
        ("MALFORMED", "hpa.spec.metrics".to_owned())
    );
    let mut config = doc(json!({}));
    config["config"] = json!({"tolerance": "0.1"});
    assert_eq!(
        refused(&config),
        ("MALFORMED", "config.tolerance".to_owned())
    );
    config["config"] = json!({});
    config["featureGates"] = json!({"HPAScaleToZero": "yes"});
    assert_eq!(
        refused(&config),
        ("MALFORMED", "featureGates.HPAScaleToZero".to_owned())
    );
    let mut others = doc(json!({}));
    others["otherHpaSelectors"] = json!([{"namespace": "default"}]);
    assert_eq!(refused(&others).1, "otherHpaSelectors[0].name");
}

#[test]
fn quantities_that_do_not_parse_are_field_path_errors() {
    for (q, path) in [
        ("abc", "hpa.spec.metrics[0].external.target.averageValue"),
        ("1Qi", "hpa.spec.metrics[0].external.target.averageValue"),
        ("", "hpa.spec.metrics[0].external.target.averageValue"),
    ] {
        let metric = json!({"type": "External", "external": {"metric": {"name": "queue"},
            "target": {"type": "AverageValue", "averageValue": q}}});
        assert_eq!(
            refused(&doc(json!({"metrics": [metric]}))),
            ("MALFORMED", path.to_owned()),
            "{q:?}"
        );
    }
    let behavior = json!({"scaleDown": {"tolerance": "ten percent"}});
    assert_eq!(
        refused(&doc(json!({"behavior": behavior}))),
        (
            "MALFORMED",
            "hpa.spec.behavior.scaleDown.tolerance".to_owned()
        )
    );
    // In an answer: a pod's request, with the answer's own path; in a state, under
    // `answers[i]`.
    let pods = json!({"answer": "pods", "pods": [{"metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "lots"}}}]}}]});
    let e = replicore::input::from_value::<HpaAnswer>(pods.clone()).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (
            "MALFORMED",
            "pods[0].spec.containers[0].resources.requests.cpu"
        )
    );
    let state = json!({"input": doc(json!({})), "answers": [{"answer": "mappings", "resources": []}, pods]});
    let e = HpaSyncState::from_json(state.to_string().as_bytes()).unwrap_err();
    assert_eq!(
        e.path(),
        "answers[1].pods[0].spec.containers[0].resources.requests.cpu"
    );
}

#[test]
fn a_state_refuses_with_paths_under_input_and_answers() {
    let e = HpaSyncState::from_json(br#"{"answers": []}"#).unwrap_err();
    assert_eq!(e.path(), "input");
    let state = json!({"input": doc(json!({"metrics": [{"type": "Pods"}]}))});
    let e = HpaSyncState::from_json(state.to_string().as_bytes()).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("MISSING", "input.hpa.spec.metrics[0].pods")
    );
    // An answer that parses but does not fit its call: refused by `from_state` at its
    // index.
    let state = json!({"input": doc(json!({})), "answers": [{"answer": "ok"}]});
    let parsed = HpaSyncState::from_json(state.to_string().as_bytes()).expect("parses");
    let e = HpaSync::from_state(parsed).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("OUTCOME_MISMATCH", "answers[0].answer")
    );
    // One answer too many: refused, the sync being done.
    let mut answers = vec![json!({"answer": "error", "message": "no matches for kind"})];
    answers.push(json!({"answer": "ok"}));
    answers.push(json!({"answer": "ok"}));
    let state = json!({"input": doc(json!({})), "answers": answers});
    let parsed = HpaSyncState::from_json(state.to_string().as_bytes()).expect("parses");
    let e = HpaSync::from_state(parsed).unwrap_err();
    assert_eq!(e.path(), "answers[2].answer", "{e}");
}

#[test]
fn a_refused_answer_changes_nothing() {
    let input = HpaSyncInput::from_value(doc(json!({}))).unwrap();
    let mut sync = HpaSync::new(input);
    let before = serde_json::to_string(&sync.state()).unwrap();
    for wrong in [
        HpaAnswer::Ok,
        HpaAnswer::Pods {
            pods: Default::default(),
        },
        HpaAnswer::Metric {
            response: Default::default(),
        },
    ] {
        let e = sync.report(wrong).unwrap_err();
        assert_eq!(e.code(), "OUTCOME_MISMATCH");
        assert_eq!(
            e.to_string(),
            "answer: the answer to resolveTarget must be mappings or error"
        );
    }
    assert_eq!(serde_json::to_string(&sync.state()).unwrap(), before);
    assert!(matches!(
        sync.pending(),
        Some(HpaCall::ResolveTarget { .. })
    ));
}

// ---- not refused: decided as upstream decides --------------------------------------------

#[test]
fn h38_inverted_min_and_max_take_upstreams_branches() {
    // min 5 > max 2, current 3: above max, so max (upstream checks max first, H-38, H-42).
    let (done, calls) = sync(
        &doc(json!({"minReplicas": 5, "maxReplicas": 2})),
        3,
        "app=web",
        0,
    );
    assert_eq!(done.error, None);
    assert_eq!(done.rescaled_to, Some(2));
    assert!(
        !calls
            .iter()
            .any(|c| matches!(c, HpaCall::FetchMetric { .. })),
        "no metric is read"
    );
    assert_eq!(
        events(&done),
        vec![s(
            "Normal",
            "SuccessfulRescale",
            "New size: 2; reason: Current number of replicas above Spec.MaxReplicas"
        )]
    );
    assert_eq!(
        condition(&done, "AbleToScale"),
        s(
            "True",
            "SucceededRescale",
            "the HPA controller was able to update the target scale to 2"
        )
    );
    // Current 1, below both: below min, so min (5), though above max (H-43).
    let (done, _) = sync(
        &doc(json!({"minReplicas": 5, "maxReplicas": 2})),
        1,
        "app=web",
        0,
    );
    assert_eq!(done.rescaled_to, Some(5));
    assert_eq!(
        events(&done)[0].2,
        "New size: 5; reason: Current number of replicas below Spec.MinReplicas"
    );
}

#[test]
fn h42_negative_bounds_are_written_as_upstream_writes_them() {
    // maxReplicas -1: the target is above it, and upstream writes -1 to the scale (the API
    // server refuses it there, not the controller).
    let (done, calls) = sync(&doc(json!({"maxReplicas": -1})), 3, "app=web", 0);
    assert_eq!(done.error, None);
    let writes: Vec<i32> = calls
        .iter()
        .filter_map(|c| match c {
            HpaCall::UpdateScale { replicas, .. } => Some(*replicas),
            _ => None,
        })
        .collect();
    assert_eq!(writes, vec![-1]);
    assert_eq!(done.rescaled_to, Some(-1));
    // minReplicas -3 with a metric that wants 0: the legacy path keeps the count within
    // [min, max] and scales down to 0 (stabilization: none remembered besides current).
    let mut input = doc(json!({"minReplicas": -3}));
    input["memory"] = json!({"recommendations": []});
    let (done, _) = sync(&input, 4, "app=web", 0);
    assert_eq!(done.error, None);
    assert_eq!(done.rescaled_to, Some(0));
    assert_eq!(
        condition(&done, "ScalingLimited"),
        s(
            "False",
            "DesiredWithinRange",
            "the desired count is within the acceptable range"
        )
    );
}

#[test]
fn h57_an_empty_selector_is_upstreams_selector_required() {
    let (done, calls) = sync(&doc(json!({})), 3, "", 50_000);
    assert!(
        !calls.iter().any(|c| matches!(c, HpaCall::ListPods { .. })),
        "no pods are listed"
    );
    assert_eq!(
        events(&done),
        vec![
            s("Warning", "SelectorRequired", "selector is required"),
            s(
                "Warning",
                "FailedComputeMetricsReplicas",
                "selector is required"
            )
        ]
    );
    assert_eq!(
        condition(&done, "ScalingActive"),
        s(
            "False",
            "InvalidSelector",
            "the HPA target's scale is missing a selector"
        )
    );
    assert_eq!(
        done.error.as_deref(),
        Some("failed to compute desired number of replicas based on listed metrics for Deployment/default/web: selector is required")
    );
    assert_eq!(done.rescaled_to, None);
    // An unparsable selector: InvalidSelector with the parser's message.
    let (done, _) = sync(&doc(json!({})), 3, "app in (web", 50_000);
    let (status, reason, message) = condition(&done, "ScalingActive");
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("False", "InvalidSelector")
    );
    assert!(
        message.starts_with(
            "couldn't convert selector into a corresponding internal selector object: "
        ),
        "{message}"
    );
    assert_eq!(events(&done)[0].1, "InvalidSelector");
    assert!(done.error.is_some());
}

#[test]
fn h74_an_unknown_metric_type_is_invalid_metric_source_type() {
    let (done, calls) = sync(
        &doc(json!({"metrics": [{"type": "Bogus"}]})),
        3,
        "app=web",
        0,
    );
    assert!(
        !calls
            .iter()
            .any(|c| matches!(c, HpaCall::FetchMetric { .. })),
        "nothing is fetched"
    );
    let inner = "unknown metric source type \"Bogus\"";
    assert_eq!(
        events(&done),
        vec![
            s("Warning", "InvalidMetricSourceType", inner),
            s(
                "Warning",
                "FailedComputeMetricsReplicas",
                &format!("invalid metrics (1 invalid out of 1), first error is: {inner}")
            )
        ]
    );
    assert_eq!(
        condition(&done, "ScalingActive"),
        s(
            "False",
            "InvalidMetricSourceType",
            &format!("the HPA was unable to compute the replica count: {inner}")
        )
    );
    assert_eq!(
        done.error.as_deref(),
        Some(format!("failed to compute desired number of replicas based on listed metrics for Deployment/default/web: invalid metrics (1 invalid out of 1), first error is: {inner}").as_str())
    );
    // Beside a metric that works, the unknown one does not block a scale-up (H-65).
    let good = json!({"type": "External", "external": {"metric": {"name": "queue"},
        "target": {"type": "AverageValue", "averageValue": "10"}}});
    let (done, _) = sync(
        &doc(json!({"metrics": [{"type": "Bogus"}, good]})),
        3,
        "app=web",
        60_000,
    );
    assert_eq!(done.rescaled_to, Some(6));
    assert_eq!(events(&done)[0].1, "InvalidMetricSourceType");
}

#[test]
fn wild_metric_values_are_decided_not_panicked_on() {
    for usage in [i64::MAX, i64::MIN, -1, 0] {
        let (done, _) = sync(&doc(json!({"maxReplicas": 100})), 3, "app=web", usage);
        if let Some(to) = done.rescaled_to {
            assert!((1..=100).contains(&to), "usage {usage}: rescaled to {to}");
        }
    }
}

#[test]
fn h104_extreme_windows_neither_overflow_nor_refuse() {
    // A downscale window of -2^63 s saturates to -2^63 ns, whose negation is Go's: itself,
    // so the cutoff is 292 years back and every recommendation is recent (the 9 of 2000
    // wins; the legacy cap allows 6 from 3). This overflowed (a panic with overflow
    // checks) before. A window of 2^63 - 1 s reaches as far back; one of -1 s keeps
    // nothing (0 proposed, min 1).
    let recent = json!({"recommendations": [
        {"recommendation": 8, "timestamp": "2026-11-27T11:59:00Z"},
        {"recommendation": 9, "timestamp": "2000-01-01T00:00:00Z"}]});
    for (window, to) in [(i64::MIN, 6), (i64::MAX, 6), (-1, 1)] {
        let mut input = doc(json!({"maxReplicas": 20}));
        input["config"] = json!({"downscaleStabilizationWindowSeconds": window});
        input["memory"] = recent.clone();
        let (done, _) = sync(&input, 3, "app=web", 0);
        assert_eq!(done.error, None, "window {window}");
        assert_eq!(done.rescaled_to, Some(to), "window {window}");
        // The behavior path with the controller's window as its scale-down window.
        input["hpa"]["spec"]["behavior"] =
            json!({"scaleUp": {"stabilizationWindowSeconds": i32::MIN}});
        let (done, _) = sync(&input, 3, "app=web", 0);
        assert_eq!(done.error, None, "window {window}, behavior");
    }
}
