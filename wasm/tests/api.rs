//! The raw JavaScript API of `replicore-wasm` (what `node/src/api.ts` wraps), exercised
//! through its exported functions with real JS values: in Node (`wasm-pack test --node`)
//! and in headless Chromium (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless
//! --chrome`). The tests are plain `#[wasm_bindgen_test]` (no `run_in_browser`), so the
//! same suite runs in both; `scripts/test-wasm.sh` runs both.
//!
//! Object arguments cross the boundary as JSON text (the wrapper's `JSON.stringify`);
//! inputs are written with `serde_json::json!`. Results are plain JS objects, read back
//! through `JSON.stringify`, so a `Map` or a `BigInt` in a result (instead of a plain
//! object / number) would fail the comparisons.
#![cfg(target_arch = "wasm32")]

use js_sys::{Error, Function, Reflect, JSON};
use replicore_wasm as rc;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

// ---------------------------------------------------------------------------------------
// Helpers

/// The controller clock of every fixture.
const NOW: &str = "2026-11-21T04:40:12Z";

/// A JSON value as the binding takes it: JSON text in a JS string.
fn t(v: &Value) -> JsValue {
    JsValue::from_str(&v.to_string())
}

/// An instant as JSON text (`"\"2026-…\""`), as `applyExpectations` takes `now`.
fn at(time: &str) -> JsValue {
    t(&json!(time))
}

/// A plain JS object (`JSON.parse`): what the binding must refuse in place of JSON text.
fn obj(v: &Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("fixture JSON parses")
}

/// A JS value as JSON (`JSON.stringify`, then serde_json).
fn to_json(v: &JsValue) -> Value {
    let text: String = JSON::stringify(v).expect("result stringifies").into();
    serde_json::from_str(&text).expect("JSON.stringify output parses")
}

/// The message of a thrown value (for assertion messages).
fn describe(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The result of a call that must succeed, as JSON.
fn ok(r: Result<JsValue, JsValue>) -> Value {
    match r {
        // The large results (plan, planFor, rankPods) are JSON text.
        Ok(v) if v.is_string() => {
            let text = v.as_string().unwrap_or_default();
            serde_json::from_str(&text).expect("a text result is JSON")
        }
        Ok(v) => {
            assert!(
                !v.is_instance_of::<js_sys::Map>(),
                "results are plain objects"
            );
            to_json(&v)
        }
        Err(e) => panic!("expected success, got an error: {}", describe(&e)),
    }
}

/// What a failed call threw.
#[derive(Debug)]
struct Thrown {
    code: String,
    path: String,
    message: String,
}

/// Asserts the call failed with a JS `Error` carrying string `code` and `path`
/// properties and a message that names the path.
fn thrown<T: std::fmt::Debug>(r: Result<T, JsValue>) -> Thrown {
    let e = match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    };
    assert!(
        e.is_instance_of::<Error>(),
        "not a JS Error: {e:?} ({})",
        describe(&e)
    );
    let prop = |name: &str| {
        Reflect::get(&e, &JsValue::from_str(name))
            .expect("Reflect.get on an Error")
            .as_string()
            .unwrap_or_else(|| panic!("error.{name} is not a string: {}", describe(&e)))
    };
    let err: &Error = e.unchecked_ref();
    let thrown = Thrown {
        code: prop("code"),
        path: prop("path"),
        message: err.message().into(),
    };
    assert!(!thrown.code.is_empty(), "empty code: {thrown:?}");
    assert!(!thrown.path.is_empty(), "empty path: {thrown:?}");
    assert!(
        thrown.message.contains(&thrown.path),
        "the message does not name the path: {thrown:?}"
    );
    thrown
}

/// Asserts an error in the `"{path}: {what}"` form with this code and path.
fn assert_error<T: std::fmt::Debug>(r: Result<T, JsValue>, code: &str, path: &str) -> Thrown {
    let e = thrown(r);
    assert_eq!((e.code.as_str(), e.path.as_str()), (code, path), "{e:?}");
    assert!(
        e.message.starts_with(&format!("{path}: ")),
        "message not in the `path: what` form: {e:?}"
    );
    e
}

/// Runs `f` inside a JS `try`/`catch`: `Ok(result)` if it returned, `Err(exception)` if
/// a JS exception (or a WebAssembly trap) escaped the binding instead of a returned error.
fn guarded(
    f: impl Fn() -> Result<JsValue, JsValue> + 'static,
) -> Result<Result<JsValue, JsValue>, JsValue> {
    let out: Rc<RefCell<Option<Result<JsValue, JsValue>>>> = Rc::new(RefCell::new(None));
    let slot = out.clone();
    let closure = Closure::<dyn Fn()>::new(move || {
        let r = f();
        *slot.borrow_mut() = Some(r);
    });
    let try_catch = Function::new_with_args(
        "f",
        "try { f(); return undefined; } catch (e) { return e === undefined ? null : e; }",
    );
    let escaped = try_catch
        .call1(&JsValue::NULL, closure.as_ref())
        .expect("the try/catch wrapper itself does not throw");
    if !escaped.is_undefined() {
        return Err(escaped);
    }
    let r = out.borrow_mut().take().expect("the closure ran");
    Ok(r)
}

/// A JS value built by a JS expression (objects JSON cannot express).
fn js_expr(expr: &str) -> JsValue {
    Function::new_no_args(&format!("return ({expr});"))
        .call0(&JsValue::NULL)
        .expect("fixture expression evaluates")
}

// ---------------------------------------------------------------------------------------
// Fixtures: a ReplicaSet `default/web` (selector and template labels `app=web`) and pods.

fn owner(replicas: i64) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": "web", "namespace": "default", "uid": "uid-web",
            "generation": 1, "resourceVersion": "18",
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
        "status": {"replicas": 0, "observedGeneration": 1},
    })
}

fn controller_ref() -> Value {
    json!([{
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "uid-web",
        "controller": true, "blockOwnerDeletion": true,
    }])
}

/// `a`: running on node-1, ready for an hour.
fn pod_a() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "a", "namespace": "default", "uid": "uid-a", "resourceVersion": "5",
            "labels": {"app": "web"}, "creationTimestamp": "2026-11-21T03:40:12Z",
            "ownerReferences": controller_ref(),
        },
        "spec": {"nodeName": "node-1"},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-21T03:40:30Z"},
        ]},
    })
}

/// `b`: pending, not scheduled.
fn pod_b() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "b", "namespace": "default", "uid": "uid-b", "resourceVersion": "6",
            "labels": {"app": "web"}, "creationTimestamp": "2026-11-21T04:40:00Z",
            "ownerReferences": controller_ref(),
        },
        "spec": {},
        "status": {"phase": "Pending"},
    })
}

/// `c`: running on node-1, not ready.
fn pod_c() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "c", "namespace": "default", "uid": "uid-c", "resourceVersion": "7",
            "labels": {"app": "web"}, "creationTimestamp": "2026-11-21T04:00:12Z",
            "ownerReferences": controller_ref(),
        },
        "spec": {"nodeName": "node-1"},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "False", "lastTransitionTime": "2026-11-21T04:10:00Z"},
        ]},
    })
}

/// `o`: an orphan with the owner's labels.
fn orphan() -> Value {
    json!({
        "metadata": {
            "name": "o", "namespace": "default", "uid": "uid-o", "resourceVersion": "9",
            "labels": {"app": "web"}, "creationTimestamp": "2026-11-21T04:00:00Z",
        },
        "spec": {"nodeName": "node-2"},
        "status": {"phase": "Running"},
    })
}

fn create_input() -> Value {
    json!({"now": NOW, "owner": owner(3)})
}

fn scale_down_input() -> Value {
    json!({"now": NOW, "owner": owner(1), "pods": [pod_a(), pod_b(), pod_c()]})
}

fn adoption_input() -> Value {
    json!({"now": NOW, "owner": owner(2), "pods": [pod_a(), orphan()]})
}

fn no_config() -> JsValue {
    JsValue::UNDEFINED
}

fn plan_of(input: &Value) -> Value {
    ok(rc::plan(t(input), no_config()))
}

// ---------------------------------------------------------------------------------------
// version, plan, adoptionAllowed

#[wasm_bindgen_test]
fn version_is_the_crate_version() {
    assert_eq!(rc::version(), env!("CARGO_PKG_VERSION"));
    assert_eq!(rc::version(), "0.1.0");
}

#[wasm_bindgen_test]
fn plan_creates_three_pods_in_batches_of_one_and_two() {
    let p = plan_of(&create_input());
    assert_eq!(p["key"], "default/web");
    assert_eq!(p["now"], NOW);
    assert_eq!(
        (p["owned"].clone(), p["desired"].clone()),
        (json!(0), json!(3))
    );
    assert_eq!(p["claims"], json!([]));
    assert_eq!(p["needsOwnerRecheck"], false);
    assert!(p.get("halt").is_none(), "{p}");
    let m = &p["manage"];
    assert_eq!(m["action"], "create");
    assert_eq!(m["count"], 3);
    assert_eq!(m["batches"], json!([1, 2]));
    assert_eq!(
        m["expectations"],
        json!({"op": "expectCreations", "count": 3})
    );
    let pod = &m["pod"];
    assert_eq!(pod["metadata"]["generateName"], "web-");
    assert_eq!(pod["metadata"]["namespace"], "default");
    assert_eq!(pod["metadata"]["labels"], json!({"app": "web"}));
    assert_eq!(pod["metadata"]["ownerReferences"], controller_ref());
    assert_eq!(
        pod["spec"],
        json!({"containers": [{"name": "c", "image": "nginx"}]})
    );
}

#[wasm_bindgen_test]
fn plan_scale_down_ranks_victims_with_their_rules() {
    let p = plan_of(&scale_down_input());
    assert_eq!(
        (p["owned"].clone(), p["desired"].clone()),
        (json!(3), json!(1))
    );
    let m = &p["manage"];
    assert_eq!(m["action"], "delete");
    let victims = m["victims"].as_array().expect("victims");
    let names: Vec<_> = victims.iter().map(|v| v["name"].clone()).collect();
    assert_eq!(names, [json!("b"), json!("c")]);
    // b: unscheduled goes first; c: not ready goes before the ready a it is compared to.
    assert_eq!(victims[0]["rule"], "unassigned");
    assert_eq!(victims[0]["podIndex"], 1);
    assert_eq!(victims[0]["uid"], "uid-b");
    assert_eq!(victims[0]["namespace"], "default");
    assert_eq!(victims[0]["facts"]["node"], "");
    assert_eq!(victims[0]["facts"]["phase"], "Pending");
    assert_eq!(victims[1]["rule"], "readiness");
    assert_eq!(victims[1]["podIndex"], 2);
    assert_eq!(victims[1]["facts"]["node"], "node-1");
    assert_eq!(victims[1]["facts"]["ready"], false);
    assert_eq!(
        m["expectations"],
        json!({"op": "expectDeletions", "keys": ["default/b", "default/c"]})
    );
}

#[wasm_bindgen_test]
fn plan_adoption_needs_an_owner_recheck() {
    let p = plan_of(&adoption_input());
    assert_eq!(p["needsOwnerRecheck"], true);
    assert_eq!(p["owned"], 1);
    let claims = p["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), 1, "{p}");
    let c = &claims[0];
    assert_eq!(c["kind"], "adopt");
    assert_eq!(
        (c["name"].clone(), c["uid"].clone()),
        (json!("o"), json!("uid-o"))
    );
    assert_eq!(c["podIndex"], 1);
    assert_eq!(c["patchType"], "application/strategic-merge-patch+json");
    assert_eq!(c["patch"]["metadata"]["uid"], "uid-o");
    assert_eq!(c["patch"]["metadata"]["ownerReferences"], controller_ref());
    // With the orphan adopted the owner has its 2 pods.
    assert_eq!(p["manage"], json!({"action": "nothing", "why": "inSync"}));
}

/// The wrapper's `planJson(text)` is `raw.plan(text)` and its `plan(object)` is
/// `raw.plan(JSON.stringify(object))`: the plan must not depend on the text's layout, and
/// must be the core engine's plan, field for field.
#[wasm_bindgen_test]
fn plan_is_the_engines_plan_whatever_the_layout() {
    for input in [create_input(), scale_down_input(), adoption_input()] {
        let compact = plan_of(&input);
        let pretty = ok(rc::plan(
            JsValue::from_str(&serde_json::to_string_pretty(&input).expect("pretty")),
            no_config(),
        ));
        assert_eq!(compact, pretty);
        // The same document from JS: JSON.stringify(JSON.parse(text)).
        let restringified = JSON::stringify(&obj(&input)).expect("stringify");
        assert_eq!(ok(rc::plan(restringified.into(), no_config())), compact);
        // The core engine, natively: the same plan.
        let parsed =
            replicore::SyncInput::from_json(input.to_string().as_bytes()).expect("core parses");
        let config = replicore::Config::default();
        let core_plan = replicore::plan(&parsed, &config).expect("core plans");
        assert_eq!(
            compact,
            serde_json::to_value(&core_plan).expect("plan serializes")
        );
    }
    // With a configuration too.
    let config = json!({"burstReplicas": 2});
    let a = ok(rc::plan(t(&create_input()), t(&config)));
    assert_eq!(a["manage"]["count"], 2, "burstReplicas caps the creates");
    assert_eq!(a["manage"]["batches"], json!([1, 1]));
}

#[wasm_bindgen_test]
fn adoption_allowed_rechecks_the_live_owner() {
    let plan = rc::plan(t(&adoption_input()), no_config()).expect("plan");
    let allowed =
        |live: Value| rc::adoption_allowed(plan.clone(), t(&live)).expect("adoptionAllowed");
    assert_eq!(allowed(json!({"found": owner(2)})), None);
    let mut recreated = owner(2);
    recreated["metadata"]["uid"] = json!("uid-web-2");
    let why = allowed(json!({"found": recreated})).expect("refused");
    assert!(why.contains("uid-web-2"), "{why}");
    let mut deleting = owner(2);
    deleting["metadata"]["deletionTimestamp"] = json!(NOW);
    assert!(allowed(json!({"found": deleting})).is_some());
    let failed = json!({"failed": {"reason": "NotFound", "message": "replicasets \"web\" not found", "code": 404}});
    assert_eq!(
        allowed(failed).as_deref(),
        Some("replicasets \"web\" not found")
    );
    assert_error(
        rc::adoption_allowed(plan.clone(), t(&json!({"lost": true}))),
        "MALFORMED",
        // The unknown variant is the key itself.
        "liveOwner.lost",
    );
}

#[wasm_bindgen_test]
fn plan_accepts_a_config_emulating_an_old_version() {
    let config =
        json!({"featureGates": {"LogarithmicScaleDown": false}, "emulationVersion": "1.30"});
    let p = ok(rc::plan(t(&scale_down_input()), t(&config)));
    assert_eq!(p["manage"]["action"], "delete");
    // null means the defaults, as undefined does.
    let d = ok(rc::plan(t(&create_input()), JsValue::NULL));
    assert_eq!(d, plan_of(&create_input()));
}

// ---------------------------------------------------------------------------------------
// complete, manageAfterClaims, nextBatch

#[wasm_bindgen_test]
fn complete_after_a_failed_create_batch() {
    let outcome = json!({"creates": [
        {"result": "error", "reason": "Forbidden", "message": "exceeded quota", "code": 403},
    ]});
    let done = ok(rc::complete_input(
        t(&create_input()),
        t(&outcome),
        no_config(),
    ));
    assert_eq!(done["manage"]["action"], "create");
    assert_eq!(
        (done["created"].clone(), done["createCalls"].clone()),
        (json!(0), json!(1))
    );
    assert_eq!(done["createBatches"], json!([1]));
    assert_eq!(done["deleted"], 0);
    // One failed call and two never made: all three expected creations are lowered.
    assert_eq!(
        done["expectations"],
        json!([{"op": "lowerCreations", "count": 3}])
    );
    let status = &done["status"];
    assert_eq!(status["replicas"], 0);
    let conditions = status["conditions"].as_array().expect("conditions");
    assert_eq!(conditions.len(), 1, "{status}");
    assert_eq!(conditions[0]["type"], "ReplicaFailure");
    assert_eq!(conditions[0]["status"], "True");
    assert_eq!(conditions[0]["reason"], "FailedCreate");
    assert_eq!(conditions[0]["message"], "exceeded quota");
    assert_eq!(conditions[0]["lastTransitionTime"], NOW);
    assert_eq!(done["requeue"]["kind"], "rateLimited");
    assert_eq!(done["requeue"]["error"], "exceeded quota");
    assert_eq!(done["error"], "exceeded quota");
    assert_eq!(
        done["events"],
        json!([{"type": "Warning", "reason": "FailedCreate", "message": "Error creating: exceeded quota"}])
    );

    // The host's bookkeeping: the plan's expectations, then the corrections → satisfied.
    let plan = plan_of(&create_input());
    let mut changes = vec![plan["manage"]["expectations"].clone()];
    changes.extend(
        done["expectations"]
            .as_array()
            .expect("changes")
            .iter()
            .cloned(),
    );
    let e = ok(rc::apply_expectations(
        t(&Value::Null),
        t(&Value::Array(changes)),
        at(NOW),
    ));
    assert_eq!((e["add"].clone(), e["del"].clone()), (json!(0), json!(0)));
    assert_eq!(rc::expectations_satisfied(t(&e), at(NOW)), Ok(true));
}

#[wasm_bindgen_test]
fn complete_after_everything_succeeded() {
    let outcome = json!({"creates": [
        {"result": "ok", "name": "web-1"}, {"result": "ok", "name": "web-2"},
        {"result": "ok", "name": "web-3"},
    ]});
    let done = ok(rc::complete_input(
        t(&create_input()),
        t(&outcome),
        no_config(),
    ));
    assert_eq!(
        (done["created"].clone(), done["createCalls"].clone()),
        (json!(3), json!(3))
    );
    assert_eq!(done["createBatches"], json!([1, 2]));
    assert_eq!(done["expectations"], json!([]));
    assert_eq!(done["requeue"], json!({"kind": "done"}));
    assert!(done.get("error").is_none(), "{done}");

    let deletes = json!({"deletes": [{"result": "ok"}, {"result": "ok"}]});
    let done = ok(rc::complete_input(
        t(&scale_down_input()),
        t(&deletes),
        no_config(),
    ));
    assert_eq!(done["deleted"], 2);
    assert_eq!(done["requeue"], json!({"kind": "done"}));
}

#[wasm_bindgen_test]
fn manage_after_claims() {
    let input = adoption_input();
    let planned = plan_of(&input)["manage"].clone();
    // Claims went as planned: the manage step is the plan's.
    let as_planned = json!({"liveOwner": {"found": owner(2)}, "results": [{"result": "ok"}]});
    let plan = rc::plan(t(&input), no_config()).expect("plan");
    let m = ok(rc::manage_after_claims(plan.clone(), t(&as_planned)));
    assert_eq!(m, planned);
    assert_eq!(m, json!({"action": "nothing", "why": "inSync"}));
    // The adoption patch failed: the sync returns the claim error before managing.
    let failed = json!({
        "liveOwner": {"found": owner(2)},
        "results": [{"result": "error", "reason": "Conflict", "message": "conflict", "code": 409}],
    });
    let m = ok(rc::manage_after_claims(plan.clone(), t(&failed)));
    assert_eq!(m, json!({"action": "nothing", "why": "claimFailed"}));
    // A plan without claims ignores the claims outcome.
    let m = ok(rc::manage_after_claims(
        rc::plan(t(&create_input()), no_config()).expect("plan"),
        t(&json!({"results": []})),
    ));
    assert_eq!(m, plan_of(&create_input())["manage"]);
    // More results than claims is the host's mistake.
    let extra =
        json!({"liveOwner": {"found": owner(2)}, "results": [{"result": "ok"}, {"result": "ok"}]});
    let e = thrown(rc::manage_after_claims(plan, t(&extra)));
    assert_eq!(e.code, "OUTCOME_MISMATCH", "{e:?}");
    assert!(e.path.starts_with("claims"), "{e:?}");
}

#[wasm_bindgen_test]
fn next_batch_follows_slow_start() {
    let input = json!({"now": NOW, "owner": owner(7)});
    let create = plan_of(&input)["manage"].clone();
    assert_eq!(create["batches"], json!([1, 2, 4]));
    let next = |results: Value| rc::next_batch(t(&create), t(&results)).expect("nextBatch");
    let okc = json!({"result": "ok"});
    let err = json!({"result": "error", "reason": "InternalError", "message": "boom"});
    assert_eq!(next(json!([])), Some(1));
    assert_eq!(next(json!([{"result": "ok", "name": "web-x"}])), Some(2));
    assert_eq!(next(json!([okc, okc, okc])), Some(4));
    assert_eq!(next(json!([okc, okc, okc, okc, okc, okc, okc])), None);
    // A batch with a failure is the last one.
    assert_eq!(next(json!([err])), None);
    assert_eq!(next(json!([okc, err, okc])), None);
}

// ---------------------------------------------------------------------------------------
// rankPods, upstreamLess, slowStart

#[wasm_bindgen_test]
fn rank_pods_orders_with_rules_and_facts() {
    let pods = json!([pod_a(), pod_b(), pod_c()]);
    let ranked = ok(rc::rank_pods(t(&pods), t(&json!({"now": NOW}))));
    let ranked = ranked.as_array().expect("an array");
    let order: Vec<_> = ranked
        .iter()
        .map(|r| (r["name"].clone(), r["index"].clone(), r["rule"].clone()))
        .collect();
    assert_eq!(
        order,
        [
            (json!("b"), json!(1), json!("unassigned")),
            (json!("c"), json!(2), json!("readiness")),
            (json!("a"), json!(0), Value::Null),
        ]
    );
    assert_eq!(ranked[0]["namespace"], "default");
    assert_eq!(ranked[0]["ruleText"], "not scheduled to a node");
    assert_eq!(ranked[1]["ruleText"], "not ready");
    assert!(ranked[2].get("ruleText").is_none(), "{}", ranked[2]);
    // Facts: a and c share node-1 (the pods themselves are the related pods by default).
    let a = &ranked[2]["facts"];
    assert_eq!(a["node"], "node-1");
    assert_eq!(a["phase"], "Running");
    assert_eq!(a["ready"], true);
    assert_eq!(a["colocated"], 2);
    assert_eq!(a["deletionCost"], 0);
    assert_eq!(a["restarts"], 0);
    assert!(a["readyBucket"].is_number(), "{a}");
    assert!(ranked[1]["facts"].get("readyBucket").is_none());
    assert_eq!(ranked[1]["facts"]["colocated"], 2);
    assert_eq!(ranked[0]["facts"]["ready"], false);

    // No related pods: no co-location counts.
    let none = ok(rc::rank_pods(
        t(&pods),
        t(&json!({"now": NOW, "related": []})),
    ));
    assert!(none
        .as_array()
        .expect("array")
        .iter()
        .all(|r| r["facts"]["colocated"] == 0));

    // The order does not depend on the input order.
    let shuffled = json!([pod_c(), pod_a(), pod_b()]);
    let again = ok(rc::rank_pods(t(&shuffled), t(&json!({"now": NOW}))));
    let names: Vec<_> = again
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["name"].clone())
        .collect();
    assert_eq!(names, [json!("b"), json!("c"), json!("a")]);

    // A deletion cost moves a pod first.
    let mut cheap = pod_a();
    cheap["metadata"]["annotations"] =
        json!({"controller.kubernetes.io/pod-deletion-cost": "-100"});
    let mut ready_c = pod_c();
    ready_c["status"]["conditions"][0]["status"] = json!("True");
    let r = ok(rc::rank_pods(
        t(&json!([cheap, ready_c])),
        t(&json!({"now": NOW})),
    ));
    assert_eq!(r[0]["name"], "a");
    assert_eq!(r[0]["rule"], "deletionCost");
    assert_eq!(r[0]["facts"]["deletionCost"], -100);
}

#[wasm_bindgen_test]
fn upstream_less_is_the_upstream_comparator() {
    let opts = || t(&json!({"now": NOW}));
    let less = |x: Value, rx: f64, y: Value, ry: f64| {
        rc::upstream_less(t(&x), JsValue::from(rx), t(&y), JsValue::from(ry), opts())
            .expect("upstreamLess")
    };
    assert!(
        less(pod_b(), 0.0, pod_a(), 0.0),
        "unassigned before assigned"
    );
    assert!(!less(pod_a(), 0.0, pod_b(), 0.0));
    assert!(less(pod_c(), 0.0, pod_a(), 0.0), "not ready before ready");
    assert!(!less(pod_a(), 0.0, pod_c(), 0.0));
    // Co-location: at equal readiness... the pod with more neighbours goes first.
    let mut a2 = pod_a();
    a2["metadata"]["name"] = json!("a2");
    a2["metadata"]["uid"] = json!("uid-a2");
    assert!(less(a2.clone(), 3.0, pod_a(), 1.0));
    assert!(!less(pod_a(), 1.0, a2, 3.0));
    // Ranks are whole numbers from 0.
    for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY] {
        assert_error(
            rc::upstream_less(
                t(&pod_a()),
                JsValue::from(bad),
                t(&pod_b()),
                JsValue::from(0.0),
                opts(),
            ),
            "MALFORMED",
            "rankA",
        );
    }
}

#[wasm_bindgen_test]
fn slow_start_runs() {
    let run = |n: f64, initial: f64, failed: Value| {
        rc::slow_start(JsValue::from(n), JsValue::from(initial), t(&failed))
    };
    assert_eq!(
        ok(run(5.0, 1.0, json!([1]))),
        json!({"successes": 2, "calls": 3, "batches": [1, 2], "firstFailure": 1})
    );
    let all = run(5.0, 1.0, json!([])).expect("slowStart");
    assert_eq!(
        to_json(&all),
        json!({"successes": 5, "calls": 5, "batches": [1, 2, 2], "firstFailure": null})
    );
    // No failure is `null`, not `undefined`.
    assert!(Reflect::get(&all, &"firstFailure".into())
        .expect("get")
        .is_null());
    assert_eq!(
        ok(run(0.0, 1.0, json!([]))),
        json!({"successes": 0, "calls": 0, "batches": [], "firstFailure": null})
    );
    assert_eq!(ok(run(10.0, 4.0, json!([])))["batches"], json!([4, 6]));
    // Counts are whole numbers in range; failed calls are indices.
    for bad in [-1.0, 2.5, f64::NAN, f64::INFINITY, 1e12] {
        assert_error(run(bad, 1.0, json!([])), "MALFORMED", "count");
    }
    assert_error(
        run(5.0, f64::NAN, json!([])),
        "MALFORMED",
        "initialBatchSize",
    );
    assert_error(run(5.0, 1.0, json!([-1])), "MALFORMED", "failedCalls[0]");
    assert_error(
        rc::slow_start(JsValue::from(5.0), JsValue::from(1.0), obj(&json!([1]))),
        "MALFORMED",
        "failedCalls",
    );
}

// ---------------------------------------------------------------------------------------
// explain (the wrapper's explain and explainJson)

fn tiny_list() -> Value {
    json!({
        "apiVersion": "v1", "kind": "List",
        "items": [
            owner(3), pod_a(), pod_b(), pod_c(),
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "default"}},
        ],
    })
}

#[wasm_bindgen_test]
fn explain_a_tiny_list() {
    let options = json!({"now": NOW, "replicas": 1});
    let x = ok(rc::explain(t(&tiny_list()), t(&options)));
    assert_eq!(x["now"], NOW);
    assert_eq!(
        (
            x["replicaSets"].clone(),
            x["pods"].clone(),
            x["ignored"].clone()
        ),
        (json!(1), json!(3), json!(1))
    );
    let owners = x["owners"].as_array().expect("owners");
    assert_eq!(owners.len(), 1);
    let web = &owners[0];
    assert_eq!(
        (web["namespace"].clone(), web["name"].clone()),
        (json!("default"), json!("web"))
    );
    assert_eq!(web["desired"], 3);
    assert_eq!(web["selector"], "app=web");
    assert_eq!(
        web["pods"],
        json!({"active": 3, "ready": 1, "available": 1, "terminating": 0})
    );
    assert_eq!(web["sync"], json!({"action": "nothing", "why": "inSync"}));
    let preview = &web["scaleDown"];
    assert_eq!(preview["replicas"], 1);
    let victims: Vec<_> = preview["victims"]
        .as_array()
        .expect("victims")
        .iter()
        .map(|v| (v["position"].clone(), v["name"].clone(), v["rule"].clone()))
        .collect();
    assert_eq!(
        victims,
        [
            (json!(1), json!("b"), json!("unassigned")),
            (json!(2), json!("c"), json!("readiness")),
        ]
    );
    // The core engine, natively: the same explanation.
    let core_options: replicore::explain::ExplainOptions =
        serde_json::from_value(options.clone()).expect("options");
    let core = replicore::explain::explain_json(tiny_list().to_string().as_bytes(), &core_options)
        .expect("core explains");
    assert_eq!(x, serde_json::to_value(&core).expect("serializes"));
    // An array of documents works as a List does.
    let items = tiny_list()["items"].clone();
    let y = ok(rc::explain(t(&items), t(&options)));
    assert_eq!(x, y);
    // Without a preview, no scaleDown.
    let z = ok(rc::explain(t(&tiny_list()), t(&json!({"now": NOW}))));
    assert!(z["owners"][0].get("scaleDown").is_none());
}

#[wasm_bindgen_test]
fn explain_errors_name_the_item() {
    let mut list = tiny_list();
    list["items"][2]["metadata"]["creationTimestamp"] = json!("nope");
    let options = t(&json!({"now": NOW}));
    let path = "items[2].metadata.creationTimestamp";
    assert_error(rc::explain(t(&list), options.clone()), "MALFORMED", path);
    let e = thrown(rc::explain(
        JsValue::from_str("{\"kind\": \"List\",\n \"items\": [}"),
        options.clone(),
    ));
    assert_eq!(e.code, "SYNTAX", "{e:?}");
    assert!(e.message.contains("line 2 column"), "{e:?}");
    assert_error(
        rc::explain(t(&tiny_list()), JsValue::UNDEFINED),
        "MALFORMED",
        "options",
    );
    assert_error(
        rc::explain(t(&tiny_list()), t(&json!({"now": "soon"}))),
        "MALFORMED",
        "options.now",
    );
    // A list object instead of its JSON text.
    assert_error(rc::explain(obj(&tiny_list()), options), "MALFORMED", ".");
}

// ---------------------------------------------------------------------------------------
// Watch events

#[wasm_bindgen_test]
fn pod_events() {
    let owners = || t(&json!([owner(3)]));
    let event = |e: Value| ok(rc::on_pod_event_js(t(&e), owners(), no_config()));

    let added = event(json!({"type": "added", "object": pod_a()}));
    assert_eq!(
        added,
        json!({
            "enqueue": ["default/web"],
            "enqueueAfter": [],
            "observations": [{"ownerKey": "default/web", "change": {"op": "creationObserved"}}],
        })
    );
    let deleted = event(json!({"type": "deleted", "object": pod_a()}));
    assert_eq!(deleted["enqueue"], json!(["default/web"]));
    assert_eq!(
        deleted["observations"],
        json!([{"ownerKey": "default/web", "change": {"op": "deletionObserved", "key": "default/a"}}])
    );
    // An orphan with matching labels wakes the owner up, observing nothing.
    let orphan_added = event(json!({"type": "added", "object": orphan()}));
    assert_eq!(orphan_added["enqueue"], json!(["default/web"]));
    assert_eq!(orphan_added["observations"], json!([]));
    // A resync (same resourceVersion) asks for nothing.
    let resync = event(json!({"type": "updated", "old": pod_c(), "object": pod_c()}));
    assert_eq!(
        resync,
        json!({"enqueue": [], "enqueueAfter": [], "observations": []})
    );
    // Becoming ready with minReadySeconds: enqueue now and again after minReadySeconds.
    let mut slow_owner = owner(3);
    slow_owner["spec"]["minReadySeconds"] = json!(10);
    let mut ready_c = pod_c();
    ready_c["metadata"]["resourceVersion"] = json!("8");
    ready_c["status"]["conditions"][0] =
        json!({"type": "Ready", "status": "True", "lastTransitionTime": NOW});
    let became_ready = ok(rc::on_pod_event_js(
        t(&json!({"type": "updated", "old": pod_c(), "object": ready_c})),
        t(&json!([slow_owner])),
        no_config(),
    ));
    assert_eq!(became_ready["enqueue"], json!(["default/web"]));
    assert_eq!(
        became_ready["enqueueAfter"],
        json!([{"key": "default/web", "after": 10}])
    );
    // A pod whose controller is not among the owners: nothing.
    let stranger = ok(rc::on_pod_event_js(
        t(&json!({"type": "added", "object": pod_a()})),
        t(&json!([])),
        no_config(),
    ));
    assert_eq!(stranger["enqueue"], json!([]));
}

#[wasm_bindgen_test]
fn owner_events() {
    let added = ok(rc::on_owner_event_js(t(
        &json!({"type": "added", "object": owner(3)}),
    )));
    assert_eq!(
        added,
        json!({"enqueue": ["default/web"], "enqueueAfter": [], "observations": []})
    );
    let deleted = ok(rc::on_owner_event_js(t(
        &json!({"type": "deleted", "object": owner(3)}),
    )));
    assert_eq!(
        deleted,
        json!({
            "enqueue": ["default/web"],
            "enqueueAfter": [],
            "observations": [{"ownerKey": "default/web", "change": {"op": "delete"}}],
        })
    );
    // Recreated under the same name (new UID): the old expectations go.
    let mut recreated = owner(3);
    recreated["metadata"]["uid"] = json!("uid-web-2");
    let updated = ok(rc::on_owner_event_js(t(
        &json!({"type": "updated", "old": owner(3), "object": recreated}),
    )));
    assert_eq!(updated["enqueue"], json!(["default/web"]));
    assert_eq!(
        updated["observations"],
        json!([{"ownerKey": "default/web", "change": {"op": "delete"}}])
    );
    assert_error(
        rc::on_owner_event_js(t(&json!({"type": "renamed", "object": owner(3)}))),
        "MALFORMED",
        "event.type",
    );
}

// ---------------------------------------------------------------------------------------
// Expectations

#[wasm_bindgen_test]
fn expectations_apply_and_expire_after_300_seconds() {
    let e = ok(rc::apply_expectations(
        t(&Value::Null),
        t(&json!([{"op": "expectCreations", "count": 2}])),
        at(NOW),
    ));
    assert_eq!(
        e,
        json!({"add": 2, "del": 0, "timestamp": NOW, "deletionKeys": []})
    );
    let satisfied = |e: &Value, time: &str| rc::expectations_satisfied(t(e), at(time)).expect("ok");
    assert!(!satisfied(&e, NOW));
    // TTL 300 s, strictly greater.
    assert!(!satisfied(&e, "2026-11-21T04:45:12Z"));
    assert!(satisfied(&e, "2026-11-21T04:45:12.000000001Z"));
    assert!(satisfied(&e, "2026-11-21T04:45:13Z"));
    // Nothing recorded: satisfied.
    assert_eq!(
        rc::expectations_satisfied(t(&Value::Null), at(NOW)),
        Ok(true)
    );

    // Both creations observed: satisfied at once; the timestamp is kept.
    let observed = ok(rc::apply_expectations(
        t(&e),
        t(&json!([{"op": "creationObserved"}, {"op": "creationObserved"}])),
        at("2026-11-21T04:41:00Z"),
    ));
    assert_eq!(observed["add"], 0);
    assert_eq!(observed["timestamp"], NOW);
    assert!(satisfied(&observed, NOW));

    // Deletions are tracked by pod key; an unknown key changes nothing.
    let d = ok(rc::apply_expectations(
        t(&Value::Null),
        t(&json!([
            {"op": "expectDeletions", "keys": ["default/b", "default/a"]},
            {"op": "deletionObserved", "key": "default/a"},
            {"op": "deletionObserved", "key": "default/zzz"},
        ])),
        at(NOW),
    ));
    assert_eq!(
        d,
        json!({"add": 0, "del": 1, "timestamp": NOW, "deletionKeys": ["default/b"]})
    );
    assert!(!satisfied(&d, NOW));
    // delete: no record.
    let gone = rc::apply_expectations(t(&d), t(&json!([{"op": "delete"}])), at(NOW)).expect("ok");
    assert!(gone.is_null(), "{gone:?}");
    // `now` is JSON text too: a bare string is refused, and so is a bad instant.
    assert_error(
        rc::expectations_satisfied(t(&Value::Null), JsValue::from_str(NOW)),
        "MALFORMED",
        "now",
    );
    assert_error(
        rc::expectations_satisfied(t(&Value::Null), at("yesterday")),
        "MALFORMED",
        "now",
    );
    assert_error(
        rc::apply_expectations(t(&json!({"add": 1})), t(&json!([])), at(NOW)),
        "MISSING",
        "current.del",
    );
}

// ---------------------------------------------------------------------------------------
// selectorMatches, calculateStatus

#[wasm_bindgen_test]
fn selector_matches_nil_empty_and_invalid() {
    let labels = || t(&json!({"app": "web", "tier": "front"}));
    let matches = |sel: JsValue, labels: JsValue| rc::selector_matches(sel, labels);
    // nil matches nothing, {} everything (even no labels).
    assert_eq!(matches(t(&Value::Null), labels()), Ok(false));
    assert_eq!(matches(t(&json!({})), labels()), Ok(true));
    assert_eq!(matches(t(&json!({})), t(&Value::Null)), Ok(true));
    assert_eq!(
        matches(t(&json!({"matchLabels": {"app": "web"}})), labels()),
        Ok(true)
    );
    assert_eq!(
        matches(t(&json!({"matchLabels": {"app": "db"}})), labels()),
        Ok(false)
    );
    assert_eq!(
        matches(t(&json!({"matchLabels": {"app": "web"}})), t(&Value::Null)),
        Ok(false)
    );
    let expr = json!({"matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["front", "back"]},
        {"key": "canary", "operator": "DoesNotExist"},
    ]});
    assert_eq!(matches(t(&expr), labels()), Ok(true));
    // Invalid selectors throw INVALID_SELECTOR.
    for bad in [
        json!({"matchExpressions": [{"key": "app", "operator": "Bogus"}]}),
        json!({"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}),
        json!({"matchLabels": {"app": "not a valid value!"}}),
    ] {
        let e = thrown(matches(t(&bad), labels()));
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("INVALID_SELECTOR", "selector"),
            "{bad}"
        );
    }
    // Not a selector at all.
    assert_error(matches(t(&json!(5)), labels()), "MALFORMED", "selector");
    assert_error(matches(JsValue::from(5), labels()), "MALFORMED", "selector");
    assert_error(
        matches(t(&json!({})), t(&json!("app=web"))),
        "MALFORMED",
        "labels",
    );
    assert_error(
        matches(t(&json!({})), JsValue::from_str("app=web")),
        "SYNTAX",
        "labels",
    );
}

#[wasm_bindgen_test]
fn calculate_status_counts_pods() {
    let input = json!({
        "now": NOW, "owner": owner(3), "activePods": [pod_a(), pod_c()], "terminatingPods": 1,
    });
    let s = ok(rc::calculate_status(t(&input), no_config()));
    assert_eq!(
        s,
        json!({
            "replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 1,
            "availableReplicas": 1, "terminatingReplicas": 1, "observedGeneration": 1,
        })
    );
    // A manage error adds ReplicaFailure (FailedCreate: fewer pods than desired).
    let mut failing = input.clone();
    failing["manageError"] = json!("boom");
    let s = ok(rc::calculate_status(t(&failing), no_config()));
    assert_eq!(
        s["conditions"],
        json!([{
            "type": "ReplicaFailure", "status": "True", "lastTransitionTime": NOW,
            "reason": "FailedCreate", "message": "boom",
        }])
    );
    // minReadySeconds: ready for an hour is available, a pod ready just now is not.
    let mut slow = input.clone();
    slow["owner"]["spec"]["minReadySeconds"] = json!(7200);
    let s = ok(rc::calculate_status(t(&slow), no_config()));
    assert_eq!(
        (s["readyReplicas"].clone(), s.get("availableReplicas")),
        (json!(1), None)
    );
    // The alias replicaSet works as owner does.
    let aliased = json!({"now": NOW, "replicaSet": owner(3), "activePods": [pod_a()]});
    assert_eq!(
        ok(rc::calculate_status(t(&aliased), no_config()))["replicas"],
        1
    );
    assert_error(
        rc::calculate_status(
            t(&json!({"now": NOW, "owner": owner(3), "activePods": 5})),
            no_config(),
        ),
        "MALFORMED",
        "activePods",
    );
}

// ---------------------------------------------------------------------------------------
// Errors: every failure is an Error with code and path, and the message names the path.

fn with_bad_timestamp() -> Value {
    let mut bad = pod_c();
    bad["status"]["conditions"][0]["lastTransitionTime"] = json!("yesterday");
    json!({"now": NOW, "owner": owner(1), "pods": [pod_a(), bad]})
}

#[wasm_bindgen_test]
fn error_malformed_timestamp_deep_inside_a_pod() {
    let path = "pods[1].status.conditions[0].lastTransitionTime";
    let input = with_bad_timestamp();
    let e = assert_error(rc::plan(t(&input), no_config()), "MALFORMED", path);
    assert!(e.message.contains("\"yesterday\""), "{e:?}");
    // The same through the other entry points that read pods.
    assert_error(
        rc::complete_input(t(&input), t(&json!({})), no_config()),
        "MALFORMED",
        path,
    );
    assert_error(
        rc::rank_pods(t(&input["pods"]), t(&json!({"now": NOW}))),
        "MALFORMED",
        path,
    );
    assert_error(
        rc::plan(
            t(&json!({"now": "2026-13-40T00:00:00Z", "owner": owner(1)})),
            no_config(),
        ),
        "MALFORMED",
        "now",
    );
}

#[wasm_bindgen_test]
fn error_negative_replicas() {
    let input = json!({"now": NOW, "owner": owner(-1)});
    let e = assert_error(
        rc::plan(t(&input), no_config()),
        "NEGATIVE",
        "owner.spec.replicas",
    );
    assert_eq!(
        e.message,
        "owner.spec.replicas: must not be negative (got -1)"
    );
    let mut other = owner(2);
    other["metadata"]["name"] = json!("other");
    other["spec"]["minReadySeconds"] = json!(-5);
    assert_error(
        rc::plan(
            t(&json!({"now": NOW, "owner": owner(1), "otherOwners": [other]})),
            no_config(),
        ),
        "NEGATIVE",
        "otherOwners[0].spec.minReadySeconds",
    );
    // Not an i32.
    assert_error(
        rc::plan(
            t(&json!({"now": NOW, "owner": owner(10_000_000_000)})),
            no_config(),
        ),
        "MALFORMED",
        "owner.spec.replicas",
    );
    let mut fractional = owner(1);
    fractional["spec"]["replicas"] = json!(2.5);
    assert_error(
        rc::plan(t(&json!({"now": NOW, "owner": fractional})), no_config()),
        "MALFORMED",
        "owner.spec.replicas",
    );
}

#[wasm_bindgen_test]
fn error_non_object_owner() {
    for owner in [json!("web"), json!(5), json!(true), json!([]), json!([1])] {
        let input = json!({"now": NOW, "owner": owner});
        let e = assert_error(rc::plan(t(&input), no_config()), "MALFORMED", "owner");
        assert!(e.message.contains("expected an object"), "{e:?}");
    }
    // An owner without a name.
    let mut nameless = owner(1);
    nameless["metadata"]["name"] = json!("");
    assert_error(
        rc::plan(t(&json!({"now": NOW, "owner": nameless})), no_config()),
        "MISSING",
        "owner.metadata.name",
    );
    // No owner at all.
    assert_error(
        rc::plan(t(&json!({"now": NOW})), no_config()),
        "MISSING",
        "owner",
    );
}

#[wasm_bindgen_test]
fn error_duplicate_pods() {
    let input = json!({"now": NOW, "owner": owner(1), "pods": [pod_a(), pod_b(), pod_a()]});
    let e = assert_error(
        rc::plan(t(&input), no_config()),
        "DUPLICATE_POD",
        "pods[2].metadata.name",
    );
    assert!(e.message.contains("default/a"), "{e:?}");
    assert!(e.message.contains("pods[0]"), "{e:?}");
    assert_error(
        rc::rank_pods(t(&json!([pod_b(), pod_b()])), t(&json!({"now": NOW}))),
        "DUPLICATE_POD",
        "pods[1].metadata.name",
    );
}

#[wasm_bindgen_test]
fn error_invalid_json_text() {
    let text = "{\n  \"now\": \"2026-11-21T04:40:12Z\",\n  \"owner\": {\"metadata\": }\n}";
    let e = thrown(rc::plan(JsValue::from_str(text), no_config()));
    assert_eq!(e.code, "SYNTAX", "{e:?}");
    assert!(e.message.contains("line 3 column"), "{e:?}");
    assert!(e.path.starts_with("owner"), "{e:?}");
    for text in ["", "{", "not json", "{\"a\": 1,}", "}{"] {
        let e = thrown(rc::plan(JsValue::from_str(text), no_config()));
        assert_eq!(e.code, "SYNTAX", "{text:?}: {e:?}");
        assert!(e.message.contains(" line "), "{text:?}: {e:?}");
    }
    // The other arguments' text too, under their own names.
    let e = thrown(rc::complete_input(
        t(&create_input()),
        JsValue::from_str("{\"creates\": [}"),
        no_config(),
    ));
    assert_eq!(e.code, "SYNTAX", "{e:?}");
    assert!(e.path.starts_with("outcome"), "{e:?}");
    let e = thrown(rc::plan(t(&create_input()), JsValue::from_str("{burst}")));
    assert_eq!(e.code, "SYNTAX", "{e:?}");
    assert!(e.path.starts_with("config"), "{e:?}");
    // Valid JSON that is not an object.
    for text in ["[1, 2]", "5", "null", "\"x\"", "true"] {
        assert_error(
            rc::plan(JsValue::from_str(text), no_config()),
            "MALFORMED",
            ".",
        );
    }
}

#[wasm_bindgen_test]
fn error_invalid_config() {
    let gate_off = json!({"featureGates": {"LogarithmicScaleDown": false}});
    let path = "config.featureGates.LogarithmicScaleDown";
    assert_error(
        rc::plan(t(&create_input()), t(&gate_off)),
        "INVALID_CONFIG",
        path,
    );
    assert_error(
        rc::complete_input(t(&create_input()), t(&json!({})), t(&gate_off)),
        "INVALID_CONFIG",
        path,
    );
    assert_error(
        rc::calculate_status(t(&json!({"now": NOW, "owner": owner(1)})), t(&gate_off)),
        "INVALID_CONFIG",
        path,
    );
    assert_error(
        rc::on_pod_event_js(
            t(&json!({"type": "added", "object": pod_a()})),
            t(&json!([])),
            t(&gate_off),
        ),
        "INVALID_CONFIG",
        path,
    );
    assert_error(
        rc::explain(t(&tiny_list()), t(&json!({"now": NOW, "config": gate_off}))),
        "INVALID_CONFIG",
        path,
    );
    assert_error(
        rc::plan(t(&create_input()), t(&json!({"burstReplicas": 0}))),
        "INVALID_CONFIG",
        "config.burstReplicas",
    );
    assert_error(
        rc::plan(t(&create_input()), t(&json!({"emulationVersion": "one"}))),
        "INVALID_CONFIG",
        "config.emulationVersion",
    );
    assert_error(
        rc::plan(t(&create_input()), t(&json!({"burstReplicas": "many"}))),
        "MALFORMED",
        "config.burstReplicas",
    );
    // A config object instead of its JSON text.
    assert_error(
        rc::plan(t(&create_input()), obj(&json!({"burstReplicas": 2}))),
        "MALFORMED",
        "config",
    );
}

#[wasm_bindgen_test]
fn error_outcome_mismatch() {
    let four = json!({"creates": [
        {"result": "ok"}, {"result": "ok"}, {"result": "ok"}, {"result": "ok"},
    ]});
    let e = thrown(rc::complete_input(
        t(&create_input()),
        t(&four),
        no_config(),
    ));
    assert_eq!(e.code, "OUTCOME_MISMATCH", "{e:?}");
    assert_eq!(e.path, "outcome.creates", "{e:?}");
    assert!(e.message.contains("4 results for 3 planned calls"), "{e:?}");
    let bogus = json!({"creates": [{"result": "maybe"}]});
    let e = thrown(rc::complete_input(
        t(&create_input()),
        t(&bogus),
        no_config(),
    ));
    assert_eq!(e.code, "MALFORMED", "{e:?}");
    assert!(e.path.starts_with("outcome.creates[0]"), "{e:?}");
}

type Call = Box<dyn Fn() -> Result<JsValue, JsValue>>;

fn boxed(f: impl Fn() -> Result<JsValue, JsValue> + 'static) -> Call {
    Box::new(f)
}

/// Garbage in place of the arguments: each call throws an Error with code and path
/// (never a bare string, never a trap).
fn garbage_calls() -> Vec<(&'static str, Call)> {
    let input = || t(&create_input());
    let now = || at(NOW);
    let opts = || t(&json!({"now": NOW}));
    let num = || JsValue::from(42);
    let undef = || JsValue::UNDEFINED;
    let garbage = || JsValue::from_str("garbage");
    let object = || obj(&create_input());
    let b = |r: Result<bool, JsValue>| r.map(JsValue::from);
    vec![
        ("plan(42)", boxed(move || rc::plan(num(), undef()))),
        ("plan(undefined)", boxed(move || rc::plan(undef(), undef()))),
        (
            "plan(null)",
            boxed(move || rc::plan(JsValue::NULL, undef())),
        ),
        (
            "plan(true)",
            boxed(move || rc::plan(JsValue::TRUE, undef())),
        ),
        (
            "plan(input object)",
            boxed(move || rc::plan(object(), undef())),
        ),
        (
            "plan('garbage')",
            boxed(move || rc::plan(garbage(), undef())),
        ),
        (
            "plan('')",
            boxed(move || rc::plan(JsValue::from_str(""), undef())),
        ),
        (
            "plan('{}')",
            boxed(move || rc::plan(t(&json!({})), undef())),
        ),
        ("plan(input, 42)", boxed(move || rc::plan(input(), num()))),
        (
            "adoptionAllowed(input, 42)",
            boxed(move || {
                rc::adoption_allowed(input(), num()).map(|r| r.map_or(JsValue::NULL, JsValue::from))
            }),
        ),
        (
            "complete(42)",
            boxed(move || rc::complete(num(), t(&json!({})))),
        ),
        (
            "complete(input, {})",
            boxed(move || rc::complete(input(), t(&json!({})))),
        ),
        (
            "completeInput(42)",
            boxed(move || rc::complete_input(num(), t(&json!({})), undef())),
        ),
        (
            "completeInput(input, undefined)",
            boxed(move || rc::complete_input(input(), undef(), undef())),
        ),
        (
            "manageAfterClaims(input, 'garbage')",
            boxed(move || rc::manage_after_claims(input(), garbage())),
        ),
        (
            "abandonedExpectations(42)",
            boxed(move || rc::abandoned_expectations(num(), t(&json!([])))),
        ),
        (
            "nextBatch(42, '[]')",
            boxed(move || {
                rc::next_batch(num(), t(&json!([])))
                    .map(|n| n.map_or(JsValue::UNDEFINED, |n| JsValue::from(n as u32)))
            }),
        ),
        ("rankPods(42)", boxed(move || rc::rank_pods(num(), opts()))),
        (
            "rankPods('[]', undefined)",
            boxed(move || rc::rank_pods(t(&json!([])), undef())),
        ),
        (
            "explain(undefined)",
            boxed(move || rc::explain(undef(), opts())),
        ),
        (
            "explain('x')",
            boxed(move || rc::explain(garbage(), opts())),
        ),
        (
            "onPodEvent(42)",
            boxed(move || rc::on_pod_event_js(num(), t(&json!([])), undef())),
        ),
        (
            "onOwnerEvent(undefined)",
            boxed(move || rc::on_owner_event_js(undef())),
        ),
        (
            "applyExpectations('garbage')",
            boxed(move || rc::apply_expectations(garbage(), t(&json!([])), now())),
        ),
        (
            "applyExpectations('null', [{op: 'nope'}])",
            boxed(move || {
                rc::apply_expectations(t(&Value::Null), t(&json!([{"op": "nope"}])), now())
            }),
        ),
        (
            "applyExpectations('null', '[]', 42)",
            boxed(move || rc::apply_expectations(t(&Value::Null), t(&json!([])), num())),
        ),
        (
            "expectationsSatisfied(42)",
            boxed(move || b(rc::expectations_satisfied(num(), now()))),
        ),
        (
            "expectationsSatisfied('null', 'garbage')",
            boxed(move || b(rc::expectations_satisfied(t(&Value::Null), garbage()))),
        ),
        (
            "selectorMatches(42)",
            boxed(move || b(rc::selector_matches(num(), undef()))),
        ),
        (
            "calculateStatus(undefined)",
            boxed(move || rc::calculate_status(undef(), undef())),
        ),
        (
            "slowStart(NaN)",
            boxed(move || {
                rc::slow_start(JsValue::from(f64::NAN), JsValue::from(1.0), t(&json!([])))
            }),
        ),
        (
            "upstreamLess(undefined, ...)",
            boxed(move || {
                b(rc::upstream_less(
                    undef(),
                    JsValue::from(0.0),
                    undef(),
                    JsValue::from(0.0),
                    opts(),
                ))
            }),
        ),
    ]
}

#[wasm_bindgen_test]
fn error_garbage_in_place_of_the_input() {
    for (name, call) in garbage_calls() {
        let e = thrown(call());
        assert!(
            ["MALFORMED", "MISSING", "SYNTAX"].contains(&e.code.as_str()),
            "{name}: {e:?}"
        );
    }
    // A non-string in place of the input is named "."; a missing field by its name.
    for garbage in [
        JsValue::from(42),
        JsValue::UNDEFINED,
        JsValue::NULL,
        obj(&create_input()),
    ] {
        let e = assert_error(rc::plan(garbage, no_config()), "MALFORMED", ".");
        assert!(e.message.contains("expected JSON text"), "{e:?}");
    }
    assert_error(
        rc::plan(t(&json!({"owner": owner(1)})), no_config()),
        "MISSING",
        "now",
    );
    assert_error(
        rc::complete_input(t(&create_input()), obj(&json!({})), no_config()),
        "MALFORMED",
        "outcome",
    );
}

/// The module's allocator grows wasm memory geometrically (`wasm/src/heap.rs`): 80 MB
/// allocated in 4 KB blocks grows memory a handful of times, where dlmalloc alone grows
/// it every few blocks (over a thousand times), and in V8 each growth can start a full
/// garbage collection of the host's heap.
#[wasm_bindgen_test]
fn memory_grows_geometrically() {
    use core::arch::wasm32::memory_size;
    let mut growths = 0;
    let mut last = memory_size(0);
    let mut kept: Vec<Vec<u8>> = Vec::new();
    for i in 0..20_000u32 {
        kept.push(vec![i as u8; 4096]);
        let now = memory_size(0);
        if now != last {
            growths += 1;
            last = now;
        }
    }
    assert_eq!(kept.len(), 20_000);
    assert!(growths <= 20, "{growths} memory growths for 80 MB");
}

/// JSON may cross as its UTF-8 bytes (what the JS wrapper sends): the same answers as
/// from the text, for a plan, the store and explain; bytes that are not UTF-8 JSON are a
/// named error, and a typed array of another kind is refused like any non-text.
#[wasm_bindgen_test]
fn json_crosses_as_utf8_bytes() {
    let bytes = |v: &Value| JsValue::from(js_sys::Uint8Array::from(v.to_string().as_bytes()));
    let input = scale_down_input();
    assert_eq!(
        ok(rc::plan(bytes(&input), no_config())),
        ok(rc::plan(t(&input), no_config()))
    );
    let mut store = rc::store::JsStore::new(JsValue::UNDEFINED).expect("store");
    store.upsert_owner(bytes(&owner(1))).expect("owner");
    store.upsert_pod(bytes(&pod_a())).expect("pod");
    assert_eq!(to_json(&store.size().expect("size"))["pods"], json!(1));
    // An annotation with non-ASCII characters survives the bytes path.
    let mut accented = pod_b();
    accented["metadata"]["annotations"] = json!({"note": "café ✓"});
    store.upsert_pod(bytes(&accented)).expect("pod with UTF-8");
    assert_eq!(to_json(&store.size().expect("size"))["pods"], json!(2));

    let not_utf8 = JsValue::from(js_sys::Uint8Array::from(&b"{\"now\": \"\xff\"}"[..]));
    let e = thrown(rc::plan(not_utf8, no_config()));
    assert!(["MALFORMED", "SYNTAX"].contains(&e.code.as_str()), "{e:?}");
    let words = JsValue::from(js_sys::Uint16Array::new_with_length(4));
    let e = assert_error(rc::plan(words, no_config()), "MALFORMED", ".");
    assert!(e.message.contains("expected JSON text"), "{e:?}");
    // The instance still answers.
    assert_eq!(
        ok(rc::plan(bytes(&input), no_config())),
        ok(rc::plan(t(&input), no_config()))
    );
}

/// The module does not trap: after every error the same instance still answers, many
/// times over, with exactly the answers it gave before.
#[wasm_bindgen_test]
fn errors_and_valid_calls_interleaved_many_times() {
    let failed_create =
        || t(&json!({"creates": [{"result": "error", "reason": "Forbidden", "message": "quota"}]}));
    let plan_before = plan_of(&scale_down_input());
    let done_before = ok(rc::complete_input(
        t(&create_input()),
        failed_create(),
        no_config(),
    ));
    let ranked_before = ok(rc::rank_pods(
        t(&json!([pod_a(), pod_b(), pod_c()])),
        t(&json!({"now": NOW})),
    ));
    let garbage = garbage_calls();
    let engine_errors: Vec<Call> = vec![
        boxed(|| rc::plan(t(&with_bad_timestamp()), no_config())),
        boxed(|| rc::plan(t(&json!({"now": NOW, "owner": owner(-1)})), no_config())),
        boxed(|| rc::plan(t(&json!({"now": NOW, "owner": "web"})), no_config())),
        boxed(|| {
            rc::plan(
                t(&json!({"now": NOW, "owner": owner(1), "pods": [pod_a(), pod_a()]})),
                no_config(),
            )
        }),
        boxed(|| {
            rc::plan(
                t(&create_input()),
                t(&json!({"featureGates": {"LogarithmicScaleDown": false}})),
            )
        }),
        boxed(|| rc::plan(JsValue::from_str("{\"now\": "), no_config())),
        boxed(|| {
            let four = json!({"creates": [
                {"result": "ok"}, {"result": "ok"}, {"result": "ok"}, {"result": "ok"},
            ]});
            rc::complete_input(t(&create_input()), t(&four), no_config())
        }),
    ];
    let mut errors = 0;
    for round in 0..40 {
        for (name, call) in &garbage {
            thrown(call());
            errors += 1;
            // A valid call right after every error.
            let p = ok(rc::plan(t(&scale_down_input()), no_config()));
            assert_eq!(p, plan_before, "round {round}, after {name}");
        }
        for call in &engine_errors {
            thrown(call());
            errors += 1;
            let d = ok(rc::complete_input(
                t(&create_input()),
                failed_create(),
                no_config(),
            ));
            assert_eq!(d, done_before, "round {round}");
        }
        let r = ok(rc::rank_pods(
            t(&json!([pod_a(), pod_b(), pod_c()])),
            t(&json!({"now": NOW})),
        ));
        assert_eq!(r, ranked_before, "round {round}");
    }
    assert_eq!(errors, 40 * (garbage.len() + engine_errors.len()));
    assert_eq!(rc::version(), "0.1.0");
}

/// Values JSON text cannot carry never reach the engine's parser: a cyclic object or one
/// with a throwing getter in place of the text is refused without being read (no
/// exception escapes, no trap), and the instance keeps answering.
#[wasm_bindgen_test]
fn cyclic_objects_and_throwing_getters_are_refused_unread() {
    let cyclic =
        js_expr("(() => { const o = { now: '2026-11-21T04:40:12Z' }; o.owner = o; return o; })()");
    let getter = js_expr("{ get now() { throw new Error('getter boom'); }, owner: {} }");
    for _ in 0..25 {
        for value in [cyclic.clone(), getter.clone()] {
            let r = guarded(move || rc::plan(value.clone(), JsValue::UNDEFINED))
                .unwrap_or_else(|escaped| panic!("an exception escaped: {}", describe(&escaped)));
            assert_error(r, "MALFORMED", ".");
        }
        let p = guarded(|| rc::plan(t(&create_input()), JsValue::UNDEFINED))
            .expect("a valid call after the refusals does not throw")
            .expect("and succeeds");
        assert_eq!(ok(Ok(p))["manage"]["count"], 3);
    }
}

/// Nesting beyond serde_json's limit of 128 levels is an error (code SYNTAX), not a stack
/// overflow, at every depth; the instance keeps answering.
#[wasm_bindgen_test]
fn deep_nesting_is_an_error_not_a_trap() {
    for depth in [100usize, 129, 1_000, 100_000] {
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let input = create_input().to_string().replacen(
            "{\"containers\"",
            &format!("{{\"deep\":{nested},\"containers\""),
            1,
        );
        assert!(input.contains("\"deep\""), "the fixture was rewritten");
        let r = guarded(move || rc::plan(JsValue::from_str(&input), JsValue::UNDEFINED))
            .unwrap_or_else(|escaped| panic!("depth {depth}: {}", describe(&escaped)));
        if depth < 120 {
            r.expect("a nesting within the limit is fine");
        } else {
            let e = thrown(r);
            assert_eq!(e.code, "SYNTAX", "depth {depth}: {e:?}");
            assert!(e.message.contains("recursion limit exceeded"), "{e:?}");
            assert!(e.path.starts_with("owner.spec.template.spec.deep"), "{e:?}");
        }
        let list = format!("[{nested}]");
        let r = guarded(move || rc::explain(JsValue::from_str(&list), t(&json!({"now": NOW}))))
            .unwrap_or_else(|escaped| panic!("explain depth {depth}: {}", describe(&escaped)));
        assert!(r.is_err(), "explain depth {depth}");
        assert_eq!(plan_of(&create_input())["manage"]["count"], 3);
    }
}

// ---------------------------------------------------------------------------------------
// The engine-side store

#[wasm_bindgen_test]
fn store_plans_what_plan_plans_and_survives_bad_objects() {
    let mut store = rc::store::JsStore::new(JsValue::UNDEFINED).expect("default config");
    store.upsert_owner(t(&owner(1))).expect("owner");
    for p in [pod_a(), pod_b(), pod_c()] {
        store.upsert_pod(t(&p)).expect("pod");
    }
    // Bad objects: refused with code and path, nothing changes.
    assert_error(
        store.upsert_pod(t(&json!({"metadata": {"namespace": "default"}}))),
        "MISSING",
        "pod.metadata.name",
    );
    assert_error(store.upsert_pod(obj(&pod_a())), "MALFORMED", "pod");
    assert_error(
        store.plan_for(
            JsValue::from("default"),
            JsValue::from("nope"),
            t(&json!({"now": NOW})),
        ),
        "NOT_FOUND",
        "owner",
    );
    let size = ok(store.size());
    assert_eq!(size, json!({"owners": 1, "pods": 3}));

    let plan_text = store
        .plan_for(
            JsValue::from("default"),
            JsValue::from("web"),
            t(&json!({"now": NOW})),
        )
        .expect("planFor");
    let r = ok(Ok(plan_text.clone()));
    let input = json!({"now": NOW, "owner": owner(1), "pods": [pod_a(), pod_b(), pod_c()]});
    let whole = ok(rc::plan(t(&input), no_config()));
    let names = |p: &Value| -> Vec<String> {
        p["manage"]["victims"]
            .as_array()
            .map(|v| v.iter().map(|x| x["name"].to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(names(&r), names(&whole));
    assert!(!names(&whole).is_empty(), "a scale-down plan: {whole}");
    let deletes: Vec<Value> = names(&whole)
        .iter()
        .map(|_| json!({"result": "ok"}))
        .collect();
    let outcome = json!({"deletes": deletes});
    // Completing reads the plan alone: no plan is made again.
    let plans = replicore::replicaset::plans_made();
    let done = ok(rc::complete(plan_text.clone(), t(&outcome)));
    assert_eq!(
        replicore::replicaset::plans_made(),
        plans,
        "complete made a plan"
    );
    assert_eq!(done["deleted"], json!(deletes.len()));
    // The plan is a value: through JSON again (the text re-serialized) it completes the
    // same, and the store may change meanwhile.
    store
        .delete_pod(JsValue::from("default"), JsValue::from("a"))
        .expect("delete");
    let again = t(&r);
    assert_eq!(ok(rc::complete(again, t(&outcome))), done);
    assert_eq!(
        replicore::replicaset::plans_made(),
        plans,
        "complete made a plan"
    );
}

// ---------------------------------------------------------------------------------------
// The autoscaler's sync (`hpaSyncStart`/`hpaSyncNext`/`hpaSyncReport`, `HpaSyncRun`):
// bad input of every JS type refused with `code` and `path`, and usable afterwards.

/// A valid HPA sync input (an External metric at 10 per pod).
fn hpa_input() -> Value {
    json!({"now": NOW, "hpa": {"metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 1, "maxReplicas": 10,
                 "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                              "target": {"type": "AverageValue", "averageValue": "10"}}}]}}})
}

/// The answers of a whole sync that scales 2 → 4 (60 queued at 10 per pod; the legacy
/// cap allows 4).
fn hpa_answers() -> Vec<Value> {
    vec![
        json!({"answer": "mappings", "resources": [{"group": "apps", "resource": "deployments"}]}),
        json!({"answer": "scale", "scale": {"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}}}),
        json!({"answer": "pods", "pods": []}),
        json!({"answer": "metric", "response": {"externalValues": [60000]}}),
        json!({"answer": "ok"}),
        json!({"answer": "ok"}),
    ]
}

/// Plays a whole sync through the plain-state functions; returns the done step.
fn hpa_play_plain() -> Value {
    let mut state = rc::hpa::hpa_sync_start(t(&hpa_input())).expect("starts");
    for answer in hpa_answers() {
        let step = ok(rc::hpa::hpa_sync_next(state.clone()));
        assert_eq!(step["step"], "call", "{step}");
        state = rc::hpa::hpa_sync_report(state, t(&answer)).expect("reported");
    }
    let done = ok(rc::hpa::hpa_sync_next(state));
    assert_eq!(done["step"], "done", "{done}");
    assert_eq!(done["done"]["rescaledTo"], 4, "{done}");
    done
}

/// Values of every JS type that are not JSON text of an input: each must be refused.
fn bad_js_values() -> Vec<(String, JsValue)> {
    let mut values: Vec<(String, JsValue)> = [
        "undefined",
        "null",
        "0",
        "-1.5",
        "NaN",
        "Infinity",
        "true",
        "1n",
        "Symbol('s')",
        "[]",
        "[1, 2]",
        "({})",
        "({now: 1})",
        "(() => 1)",
        "new Map()",
        "new Date(0)",
        "'not json'",
        "''",
        "'{'",
        "'[]'",
        "'null'",
        "'42'",
        "'\"text\"'",
        "'{\"now\": 5}'",
        "'{\"now\": \"2026-11-21T04:40:12Z\", \"hpa\": []}'",
        "'{\"input\": {}, \"answers\": 3}'",
        "'{\"answer\": \"perhaps\"}'",
        "'{\"answer\": \"scale\", \"scale\": []}'",
        "'{\"answer\": \"metric\", \"response\": {\"podMetrics\": [{\"pod\": 1}]}}'",
        "new Uint8Array([0xff, 0xfe])",
    ]
    .iter()
    .map(|e| (e.to_string(), js_expr(e)))
    .collect();
    // The input as a plain object (not its JSON text).
    values.push(("object input".into(), obj(&hpa_input())));
    // 1 MB of a string that is not JSON, and 1 MB of JSON of the wrong shape.
    values.push(("1 MB of x".into(), JsValue::from_str(&"x".repeat(1 << 20))));
    let long = format!("{{\"pad\": \"{}\", \"now\": 1}}", "a".repeat(1 << 20));
    values.push(("1 MB object".into(), JsValue::from_str(&long)));
    // Nesting beyond serde_json's limit, and a very deep one.
    for depth in [200usize, 100_000] {
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        values.push((
            format!("depth {depth}"),
            JsValue::from_str(&format!("{{\"now\": {nested}}}")),
        ));
    }
    values
}

#[wasm_bindgen_test]
fn hpa_sync_plain_functions_refuse_every_js_type_and_keep_answering() {
    let done_before = hpa_play_plain();
    let started = rc::hpa::hpa_sync_start(t(&hpa_input())).expect("starts");
    for (name, value) in bad_js_values() {
        let v = value.clone();
        let r = guarded(move || rc::hpa::hpa_sync_start(v.clone())).unwrap_or_else(|escaped| {
            panic!("{name}: an exception escaped: {}", describe(&escaped))
        });
        let e = thrown(r);
        assert_ne!(e.path, "", "{name}");
        let v = value.clone();
        let r = guarded(move || rc::hpa::hpa_sync_next(v.clone())).unwrap_or_else(|escaped| {
            panic!("{name}: an exception escaped: {}", describe(&escaped))
        });
        let e = thrown(r);
        assert!(e.path.starts_with("sync"), "{name}: {e:?}");
        // A bad state, and a bad answer to a good state.
        let v = value.clone();
        let r = guarded(move || rc::hpa::hpa_sync_report(v.clone(), t(&hpa_answers()[0])))
            .unwrap_or_else(|escaped| {
                panic!("{name}: an exception escaped: {}", describe(&escaped))
            });
        assert!(thrown(r).path.starts_with("sync"), "{name}");
        let (s, v) = (started.clone(), value.clone());
        let r = guarded(move || rc::hpa::hpa_sync_report(s.clone(), v.clone())).unwrap_or_else(
            |escaped| panic!("{name}: an exception escaped: {}", describe(&escaped)),
        );
        let e = thrown(r);
        assert!(
            e.path.starts_with("answer") || e.path.starts_with("sync"),
            "{name}: {e:?}"
        );
        // A good call right after.
        let step = ok(rc::hpa::hpa_sync_next(started.clone()));
        assert_eq!(step["call"]["call"], "resolveTarget", "after {name}");
    }
    assert_eq!(
        hpa_play_plain(),
        done_before,
        "the same sync after the refusals"
    );
}

#[wasm_bindgen_test]
fn hpa_sync_refusals_name_their_exact_path() {
    assert_error(
        rc::hpa::hpa_sync_start(JsValue::UNDEFINED),
        "MALFORMED",
        ".",
    );
    assert_error(rc::hpa::hpa_sync_next(JsValue::NULL), "MALFORMED", "sync");
    assert_error(
        rc::hpa::hpa_sync_report(
            rc::hpa::hpa_sync_start(t(&hpa_input())).expect("starts"),
            JsValue::from_f64(3.0),
        ),
        "MALFORMED",
        "answer",
    );
    let mut pods = hpa_input();
    pods["hpa"]["spec"]["metrics"] = json!([{"type": "Pods"}]);
    assert_error(
        rc::hpa::hpa_sync_start(t(&pods)),
        "MISSING",
        "hpa.spec.metrics[0].pods",
    );
    assert_error(
        rc::hpa::hpa_sync_next(t(&json!({"input": pods}))),
        "MISSING",
        "sync.input.hpa.spec.metrics[0].pods",
    );
    let mut memory = hpa_input();
    memory["memory"] = json!({"recommendations": [{"recommendation": 1, "timestamp": "soon"}]});
    assert_error(
        rc::hpa::hpa_sync_start(t(&memory)),
        "MALFORMED",
        "memory.recommendations[0].timestamp",
    );
    let mut quantity = hpa_input();
    quantity["hpa"]["spec"]["metrics"][0]["external"]["target"]["averageValue"] = json!("ten");
    assert_error(
        rc::hpa::hpa_sync_start(t(&quantity)),
        "MALFORMED",
        "hpa.spec.metrics[0].external.target.averageValue",
    );
    // An answer of the wrong kind: refused at `answer`; in a state, at its index.
    let started = rc::hpa::hpa_sync_start(t(&hpa_input())).expect("starts");
    assert_error(
        rc::hpa::hpa_sync_report(started.clone(), t(&json!({"answer": "ok"}))),
        "OUTCOME_MISMATCH",
        "answer",
    );
    let state = json!({"input": hpa_input(), "answers": [{"answer": "ok"}]});
    assert_error(
        rc::hpa::hpa_sync_next(t(&state)),
        "OUTCOME_MISMATCH",
        "sync.answers[0].answer",
    );
}

#[wasm_bindgen_test]
fn hpa_sync_run_refuses_every_js_type_and_stays_usable() {
    for (name, value) in bad_js_values() {
        let v = value.clone();
        let r = guarded(move || rc::hpa::JsHpaSyncRun::new(v.clone()).map(JsValue::from))
            .unwrap_or_else(|escaped| {
                panic!("{name}: an exception escaped: {}", describe(&escaped))
            });
        thrown(r);
        let v = value.clone();
        let r = guarded(move || rc::hpa::JsHpaSyncRun::from_state(v.clone()).map(JsValue::from))
            .unwrap_or_else(|escaped| {
                panic!("{name}: an exception escaped: {}", describe(&escaped))
            });
        assert!(thrown(r).path.starts_with("sync"), "{name}");
    }
    // One instance: every bad answer before each good one, the state unchanged by each.
    let mut run = rc::hpa::JsHpaSyncRun::new(t(&hpa_input())).expect("starts");
    let bad: Vec<(String, JsValue)> = bad_js_values()
        .into_iter()
        .chain([("ok to every call".to_string(), t(&json!({"answer": "ok"})))])
        .collect();
    for (i, answer) in hpa_answers().into_iter().enumerate() {
        let before = ok(run.state());
        for (name, value) in &bad {
            if i >= 4 && name == "ok to every call" {
                continue; // the writes take `ok`
            }
            let e = thrown(run.report(value.clone()));
            assert!(e.path.starts_with("answer"), "{name}: {e:?}");
            assert_eq!(ok(run.state()), before, "{name} changed the state");
        }
        assert_eq!(ok(run.next())["step"], "call");
        run.report(t(&answer)).expect("the good answer is taken");
    }
    let done = ok(run.next());
    assert_eq!(done["done"]["rescaledTo"], 4, "{done}");
    // Done: a further answer is refused, and the instance still answers.
    assert_error(
        run.report(t(&json!({"answer": "ok"}))),
        "OUTCOME_MISMATCH",
        "answer",
    );
    assert_eq!(ok(run.next()), done);
    let resumed = rc::hpa::JsHpaSyncRun::from_state(run.state().expect("state")).expect("resumes");
    assert_eq!(ok(resumed.next()), done);
}

// ---------------------------------------------------------------------------------------
// "Why N?" (`explainHpa`): the engine's explanation, as the engine makes it natively.

#[wasm_bindgen_test]
fn explain_hpa_is_the_engines_explanation() {
    let input = json!({"now": NOW, "objects": {"kind": "List", "items": [
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
         "metadata": {"name": "web", "namespace": "default"},
         "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                  "minReplicas": 1, "maxReplicas": 10,
                  "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                               "target": {"type": "AverageValue", "averageValue": "10"}}}]}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 2}}]},
        "metrics": [{"kind": "ExternalMetricValueList", "apiVersion": "external.metrics.k8s.io/v1beta1",
                     "items": [{"metricName": "queue", "value": "60", "timestamp": NOW}]}]});
    let got = ok(rc::report::explain_hpa(t(&input)));
    let native = replicore::hpa::explain_hpa_json(input.to_string().as_bytes()).expect("explains");
    assert_eq!(got, serde_json::to_value(&native).expect("serializes"));
    // 60 queued at 10 per pod: 6, the legacy cap allows 4.
    assert_eq!(got["desiredReplicas"], 4, "{got}");
    assert_error(
        rc::report::explain_hpa(t(&json!({"now": NOW, "objects": []}))),
        "MALFORMED",
        "hpa",
    );
    assert_error(
        rc::report::explain_hpa(t(&json!({"objects": []}))),
        "MISSING",
        "now",
    );
}

#[wasm_bindgen_test]
fn pods_usage_is_the_engines_load_model() {
    let ready = json!({"type": "Ready", "status": "True"});
    let pod = |name: &str, phase: &str, conditions: Value| {
        json!({"metadata": {"name": name},
               "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}}}]},
               "status": {"phase": phase, "conditions": conditions}})
    };
    let input = json!({"load": {"kind": "step", "from": 100, "to": 600, "atSeconds": 30},
        "atSeconds": 30,
        "pods": [pod("a", "Running", json!([ready])), pod("b", "Running", json!([])),
                 pod("c", "Pending", json!([])), pod("d", "Running", json!([ready]))]});
    let got = ok(rc::hpa::pods_usage(t(&input)));
    let native =
        replicore::hpa::load::pods_usage_json(input.to_string().as_bytes()).expect("computes");
    assert_eq!(got, serde_json::to_value(&native).expect("serializes"));
    assert_eq!(got["demand"], 600.0, "{got}");
    assert_eq!(got["pods"][0]["containers"][0]["usage"]["cpu"], "300m");
    assert_eq!(
        got["pods"][1]["cpuMillis"], 200,
        "a starting pod uses its request"
    );
    assert_eq!(
        got["pods"][2]["cpuMillis"],
        Value::Null,
        "a pending pod has no sample"
    );
    assert_error(
        rc::hpa::pods_usage(t(
            &json!({"load": {"kind": "step", "from": -1, "to": 1, "atSeconds": 0},
                                       "atSeconds": 0, "pods": []}),
        )),
        "INVALID_CONFIG",
        "load.from",
    );
}
