//! The Deployment controller's raw JS API (`wasm/src/deployment.rs`): the plain state
//! survives a JSON round trip between steps, bad inputs of any JS type are refused with a
//! JS `Error` carrying `code` and `path`, and an instance stays usable after a refusal.
//! Run in Node and headless Chromium by `scripts/test-wasm.sh`, like `api.rs`.
#![cfg(target_arch = "wasm32")]

use js_sys::{Function, Reflect, JSON};
use replicore_wasm::deployment as dep;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// JSON text in a JS string, as the wrapper passes objects.
fn t(v: &Value) -> JsValue {
    JsValue::from_str(&v.to_string())
}

/// A JS value as JSON (text results parsed, objects through `JSON.stringify`).
fn ok(r: Result<JsValue, JsValue>) -> Value {
    let v = r.unwrap_or_else(|e| panic!("expected success, got {}", message(&e)));
    let text = match v.as_string() {
        Some(text) => text,
        None => JSON::stringify(&v).expect("stringifies").into(),
    };
    serde_json::from_str(&text).expect("JSON")
}

fn prop(e: &JsValue, name: &str) -> String {
    Reflect::get(e, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

fn message(e: &JsValue) -> String {
    prop(e, "message")
}

/// The `(code, path)` of a refusal, checked to be a JS Error whose message names the path.
fn refused<T: std::fmt::Debug>(r: Result<T, JsValue>) -> (String, String) {
    let e = r.expect_err("expected a refusal");
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    let (code, path) = (prop(&e, "code"), prop(&e, "path"));
    assert!(!code.is_empty() && !path.is_empty(), "{}", message(&e));
    assert!(message(&e).contains(&path), "{}", message(&e));
    (code, path)
}

/// A JS value built by an expression (values JSON cannot express).
fn js(expr: &str) -> JsValue {
    Function::new_no_args(&format!("return ({expr});"))
        .call0(&JsValue::NULL)
        .expect("evaluates")
}

/// A new RollingUpdate deployment with no ReplicaSet: the sync creates one, then writes
/// the status.
fn input(max_surge: Value) -> Value {
    json!({
        "now": "2026-11-24T01:00:00Z",
        "key": "default/web",
        "deployment": {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "uid": "d1", "generation": 1},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "web", "image": "web:1"}]}},
                "strategy": {"type": "RollingUpdate",
                             "rollingUpdate": {"maxSurge": max_surge, "maxUnavailable": 0}}
            }
        },
        "replicaSets": [],
        "pods": []
    })
}

/// Plays the sync to its end over the plain state, each state passed through JSON text.
fn play(state: Value) -> (Vec<String>, Value) {
    let mut state = state;
    let mut calls = Vec::new();
    loop {
        let step = ok(dep::deployment_sync_next(t(&state)));
        match step["step"].as_str() {
            Some("call") => {
                calls.push(step["call"]["call"].as_str().unwrap_or("").to_owned());
                state = ok(dep::deployment_sync_report(
                    t(&state),
                    t(&json!({"result": "ok"})),
                ));
            }
            _ => return (calls, step["done"].clone()),
        }
        assert!(calls.len() < 50, "the sync ends");
    }
}

#[wasm_bindgen_test]
fn the_plain_state_round_trips_and_the_class_agrees() {
    let state = ok(dep::deployment_sync_start(t(&input(json!("25%")))));
    assert_eq!(state["results"], json!([]));
    assert_eq!(state["input"]["key"], "default/web");
    let (calls, done) = play(state.clone());
    assert_eq!(calls.first().map(String::as_str), Some("createReplicaSet"));
    assert!(
        calls.iter().any(|c| c == "updateDeploymentStatus"),
        "{calls:?}"
    );
    assert_eq!(done["calls"], json!(calls.len()));
    assert_eq!(done["error"], Value::Null);

    // The class: the same steps, and its state is the pure functions' state.
    let mut run = dep::JsDeploymentSyncRun::new(t(&input(json!("25%")))).expect("starts");
    assert_eq!(ok(run.state()), state);
    let mut class_calls = Vec::new();
    let class_done = loop {
        let step = ok(run.next());
        if step["step"] == "done" {
            break step["done"].clone();
        }
        class_calls.push(step["call"]["call"].as_str().unwrap_or("").to_owned());
        run.report(t(&json!({"result": "ok"}))).expect("reported");
        // Resume from the state's JSON text each time: the same machine.
        run = dep::JsDeploymentSyncRun::from_state(run.state().expect("state")).expect("resumes");
    };
    assert_eq!((class_calls, class_done), (calls, done));
}

#[wasm_bindgen_test]
fn bad_inputs_are_refused_with_a_path_and_the_instance_stays_usable() {
    // A maxSurge of the wrong type: a field-path error. ("abc%" is upstream's sync error,
    // in the done step, as upstream returns it.)
    let (code, path) = refused(dep::deployment_sync_start(t(&input(json!(1.5)))));
    assert_eq!(
        (code.as_str(), path.as_str()),
        (
            "MALFORMED",
            "deployment.spec.strategy.rollingUpdate.maxSurge"
        )
    );
    let (calls, done) = play(ok(dep::deployment_sync_start(t(&input(json!("abc%"))))));
    assert!(calls.is_empty(), "{calls:?}");
    assert_eq!(
        done["error"]["message"],
        "invalid value for IntOrString: invalid value \"abc%\": strconv.Atoi: parsing \"abc\": invalid syntax"
    );
    for bad in ["5", "null", "1n", "Symbol('s')", "({now: 1})", "[]"] {
        refused(dep::deployment_sync_start(js(bad)));
    }
    let (_, path) = refused(dep::deployment_sync_start(t(
        &json!({"now": "2026-11-24T01:00:00Z", "key": "k", "replicaSets": [1], "pods": []}),
    )));
    assert_eq!(path, "replicaSets[0]");
    let (_, path) = refused(dep::deployment_sync_next(t(
        &json!({"input": input(json!(true))}),
    )));
    assert_eq!(
        path,
        "sync.input.deployment.spec.strategy.rollingUpdate.maxSurge"
    );

    let mut run = dep::JsDeploymentSyncRun::new(t(&input(json!(1)))).expect("starts");
    let before = ok(run.state());
    refused(run.report(js("1n")));
    refused(run.report(t(&json!({"result": "perhaps"}))));
    assert_eq!(ok(run.state()), before, "a refused report changes nothing");
    assert_eq!(ok(run.next())["call"]["call"], "createReplicaSet");

    let (code, path) = refused(dep::deployment_queue_action(
        t(&json!({"events": [], "error": null, "requeue": {"kind": "none"}, "calls": 0})),
        js("-1"),
    ));
    assert_eq!((code.as_str(), path.as_str()), ("MALFORMED", "requeues"));
    let (code, path) = refused(dep::deployment_keys_for_replica_set_event(
        t(&json!({"type": "updated", "object": {}})),
        t(&json!([])),
        JsValue::UNDEFINED,
    ));
    assert_eq!((code.as_str(), path.as_str()), ("MISSING", "event.old"));
}
