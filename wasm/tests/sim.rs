//! The simulator class of the binding (`new Simulator(scenarioJson)`), with real JS
//! values, in Node and headless Chromium (`scripts/test-wasm.sh`): results are plain
//! objects of the declared shapes, a seed replays identically, bad input throws Errors
//! with `code` and `path`, and a failed call leaves the instance usable.
#![cfg(feature = "sim")]
#![cfg(target_arch = "wasm32")]

use js_sys::{Error, Reflect, JSON};
use replicore_wasm::Simulator;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn t(v: &Value) -> JsValue {
    JsValue::from_str(&v.to_string())
}

fn to_json(v: &JsValue) -> Value {
    assert!(
        !v.is_instance_of::<js_sys::Map>(),
        "results are plain objects"
    );
    let text: String = JSON::stringify(v).expect("stringifies").into();
    serde_json::from_str(&text).expect("parses")
}

fn ok(r: Result<JsValue, JsValue>) -> Value {
    match r {
        Ok(v) => to_json(&v),
        Err(e) => panic!("expected success: {e:?}"),
    }
}

fn thrown<T>(r: Result<T, JsValue>) -> (String, String, String) {
    let Err(e) = r else {
        panic!("expected an error");
    };
    assert!(e.is_instance_of::<Error>(), "not a JS Error: {e:?}");
    let prop = |n: &str| {
        Reflect::get(&e, &n.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let msg: String = e.unchecked_ref::<Error>().message().into();
    (prop("code"), prop("path"), msg)
}

fn sim(scenario: Value) -> Simulator {
    Simulator::new(t(&scenario)).unwrap_or_else(|e| panic!("scenario refused: {e:?}"))
}

#[wasm_bindgen_test]
fn scaling_up_shows_slow_start_batches_and_the_state() {
    let mut s = sim(json!({"seed": 1, "replicas": 0, "nodes": ["a", "b"]}));
    s.apply(t(&json!({"op": "setReplicas", "replicas": 10})))
        .unwrap();
    let ran = s.advance(JsValue::from(30_000.0)).unwrap();
    assert!(ran > 10.0);
    let state = ok(s.state());
    assert_eq!(state["t"], 30_000);
    assert_eq!(state["owner"]["desired"], 10);
    assert_eq!(state["owner"]["counts"]["active"], 10);
    assert_eq!(state["pods"].as_array().unwrap().len(), 10);
    let pod = &state["pods"][0];
    for field in [
        "name",
        "node",
        "phase",
        "ready",
        "ageMs",
        "restarts",
        "deletionCost",
        "owner",
        "created",
    ] {
        assert!(pod.get(field).is_some(), "pod.{field} missing: {pod}");
    }
    assert_eq!(state["nodes"].as_array().unwrap().len(), 2);
    let trace = ok(s.trace(JsValue::UNDEFINED));
    let batches: Vec<Vec<u64>> = trace
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "sync" && e["sync"]["action"] == "create")
        .map(|e| {
            e["sync"]["batches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["size"].as_u64().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(batches, vec![vec![1, 2, 4, 3]]);
    let since = trace.as_array().unwrap().len() as f64 - 2.0;
    assert_eq!(
        ok(s.trace(JsValue::from(since))).as_array().unwrap().len(),
        2
    );
    let history = ok(s.history());
    let last = history.as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["desired"].as_u64(), last["current"].as_u64()),
        (Some(10), Some(10))
    );
}

#[wasm_bindgen_test]
fn ranking_and_preview_follow_the_gates() {
    let mut s = sim(json!({"seed": 2, "replicas": 4}));
    s.advance(JsValue::from(20_000.0)).unwrap();
    let name = ok(s.state())["pods"][3]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    s.apply(t(
        &json!({"op": "editPod", "pod": name, "deletionCost": -10}),
    ))
    .unwrap();
    let ranking = ok(s.ranking(JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(ranking["pods"][0]["name"], name.as_str());
    assert_eq!(ranking["pods"][0]["rule"], "deletionCost");
    let off = ok(s.ranking(t(&json!({"PodDeletionCost": false})), JsValue::UNDEFINED));
    assert_eq!(off["featureGates"]["PodDeletionCost"], false);
    assert!(off["pods"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["rule"] != "deletionCost"));
    let preview = ok(s.preview(JsValue::from(1.0), JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(preview["victims"].as_array().unwrap().len(), 3);
    assert_eq!(preview["firstSync"], 3);
    assert_eq!(preview["victims"][0]["name"], name.as_str());
}

#[wasm_bindgen_test]
fn a_scenario_replays_to_the_identical_trace() {
    let mut a =
        sim(json!({"seed": 3, "replicas": 3, "faults": {"watchDrop": 0.2, "createFailure": 0.2}}));
    a.advance(JsValue::from(5_000.0)).unwrap();
    a.apply(t(&json!({"op": "setReplicas", "replicas": 6})))
        .unwrap();
    a.advance(JsValue::from(40_000.0)).unwrap();
    let scenario = ok(a.scenario());
    assert_eq!(scenario["edits"][0]["at"], 5_000);
    let mut b = sim(scenario);
    b.advance(JsValue::from(45_000.0)).unwrap();
    assert_eq!(
        ok(a.trace(JsValue::UNDEFINED)),
        ok(b.trace(JsValue::UNDEFINED))
    );
    assert_eq!(ok(a.state()), ok(b.state()));
}

#[wasm_bindgen_test]
fn bad_input_throws_errors_with_code_and_path_and_the_instance_stays_usable() {
    let (code, path, msg) = thrown(Simulator::new(t(
        &json!({"seed": 1, "faults": {"crashLoop": 3}}),
    )));
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("MALFORMED", "faults.crashLoop")
    );
    assert!(msg.starts_with("faults.crashLoop: "), "{msg}");
    let (code, _, _) = thrown(Simulator::new(JsValue::from_str("{")));
    assert_eq!(code, "SYNTAX");
    let (_, path, _) = thrown(Simulator::new(JSON::parse("{\"seed\": 1}").unwrap()));
    assert_eq!(path, ".", "objects must arrive as JSON text");
    let mut s = sim(json!({"seed": 4, "replicas": 2}));
    let (code, path, _) = thrown(s.apply(t(&json!({"op": "killPod", "pod": "ghost"}))));
    assert_eq!((code.as_str(), path.as_str()), ("MALFORMED", "edit.pod"));
    let (_, path, _) = thrown(s.apply(t(&json!({"op": "teleport"}))));
    assert!(path.starts_with("edit"), "{path}");
    let (_, path, _) = thrown(s.advance(JsValue::from(-1.0)));
    assert_eq!(path, "ms");
    // Not a number, or a time past what JS numbers and engine instants hold: refused,
    // and the simulator goes on answering.
    let (_, path, _) = thrown(s.advance(JsValue::from("5")));
    assert_eq!(path, "ms");
    let (code, path, _) = thrown(s.advance(JsValue::from(9_007_199_254_740_991.0)));
    assert_eq!((code.as_str(), path.as_str()), ("MALFORMED", "ms"));
    let (_, path, _) = thrown(s.trace(JsValue::from(true)));
    assert_eq!(path, "since");
    let (_, path, _) = thrown(s.ranking(JsValue::UNDEFINED, JsValue::from(5.0)));
    assert_eq!(path, "owner");
    let (_, path, _) =
        thrown(s.preview(JsValue::from("1"), JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(path, "replicas");
    ok(s.trace(JsValue::UNDEFINED));
    ok(s.history());
    let (_, path, _) = thrown(s.ranking(t(&json!({"NoSuchGate": true})), JsValue::UNDEFINED));
    assert!(path.starts_with("featureGates"), "{path}");
    let (_, path, _) = thrown(s.preview(
        JsValue::from(1.0),
        JsValue::UNDEFINED,
        JsValue::from("nobody"),
    ));
    assert_eq!(path, "owner");
    assert_eq!(
        ok(s.ranking(JsValue::UNDEFINED, JsValue::from("default/web")))["pods"],
        ok(s.ranking(JsValue::NULL, JsValue::UNDEFINED))["pods"]
    );
    assert!(
        ok(s.scenario()).get("edits").is_none(),
        "failed edits are not recorded"
    );
    s.advance(JsValue::from(10_000.0)).unwrap();
    assert_eq!(ok(s.state())["owner"]["counts"]["active"], 2);
    assert!(!s.step(), "converged without faults: nothing scheduled");
    s.apply(t(&json!({"op": "setReplicas", "replicas": 3})))
        .unwrap();
    assert!(s.step());
}
