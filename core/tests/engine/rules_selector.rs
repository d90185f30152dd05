//! Label selectors (§4): conversion, validation, matching, the
//! template-label selector, an invalid selector in sync, and the edge cases
//! E-01..E-03. Upstream D1 (TestLabelSelectorAsSelector), D2 (TestRequirementConstructor)
//! and D3 (TestRequirementSelectorMatching); A29 (invalid operator).

use crate::common;

use common::*;
use replicore::claim::ClaimKind;
use replicore::model::{LabelSelector, StringMap};
use replicore::selector::SelectorError;
use replicore::{plan, Config, Selector};
use replicore::{Halt, Idle, Requeue};
use serde_json::{json, Value};

fn selector(v: Value) -> LabelSelector {
    replicore::input::from_value(v).expect("selector JSON parses")
}

fn compile(v: Value) -> Result<Selector, SelectorError> {
    Selector::compile(Some(&selector(v)))
}

fn ok(v: Value) -> Selector {
    compile(v.clone()).unwrap_or_else(|e| panic!("{v} should compile: {e}"))
}

fn labels(v: Value) -> StringMap {
    replicore::input::from_value(v).expect("labels parse")
}

fn expr(key: &str, op: &str, values: &[&str]) -> Value {
    json!({"matchExpressions": [{"key": key, "operator": op, "values": values}]})
}

// ---------------------------------------------------------------------------------------
// R-10, D1

#[test]
fn r10_d1_nil_selects_nothing_not_even_the_empty_set() {
    let nothing = Selector::compile(None).expect("nil compiles");
    assert!(nothing.is_nothing());
    assert!(!nothing.is_everything());
    assert!(!nothing.matches(None));
    assert!(!nothing.matches(Some(&StringMap::new())));
    assert!(!nothing.matches(Some(&labels(json!({"app": "web"})))));
    assert_eq!(nothing.to_string(), "<none>");
}

#[test]
fn r10_d1_empty_selects_everything() {
    for empty in [
        json!({}),
        json!({"matchLabels": {}}),
        json!({"matchExpressions": []}),
        json!({"matchLabels": {}, "matchExpressions": []}),
    ] {
        let all = ok(empty.clone());
        assert!(all.is_everything(), "{empty}");
        assert!(all.matches(None), "no labels at all");
        assert!(all.matches(Some(&StringMap::new())));
        assert!(all.matches(Some(&labels(json!({"x": "y"})))));
        assert_eq!(all.to_string(), "");
    }
}

/// D1: the canonical strings, values sorted, requirements sorted by key.
#[test]
fn d1_canonical_forms() {
    assert_eq!(
        ok(json!({"matchLabels": {"foo": "bar"}})).to_string(),
        "foo=bar"
    );
    assert_eq!(
        ok(expr("baz", "In", &["qux", "norf"])).to_string(),
        "baz in (norf,qux)"
    );
    let both = json!({
        "matchLabels": {"foo": "bar"},
        "matchExpressions": [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]
    });
    assert_eq!(ok(both).to_string(), "baz in (norf,qux),foo=bar");
    let ops = json!({"matchExpressions": [
        {"key": "d", "operator": "DoesNotExist"},
        {"key": "c", "operator": "Exists"},
        {"key": "b", "operator": "NotIn", "values": ["z", "y"]},
    ]});
    assert_eq!(ok(ops).to_string(), "b notin (y,z),c,!d");
}

#[test]
fn d1_exists_with_values_is_an_error_and_the_input_is_not_mutated() {
    let sel = selector(expr("baz", "Exists", &["qux", "norf"]));
    let before = sel.clone();
    let err = Selector::compile(Some(&sel)).expect_err("values with Exists");
    assert!(
        err.to_string().contains("values set must be empty"),
        "{err}"
    );
    assert_eq!(sel, before);
    // The order of the input values is left alone after a successful compile, too.
    let sel = selector(expr("baz", "In", &["qux", "norf"]));
    let _ = Selector::compile(Some(&sel)).expect("compiles");
    assert_eq!(
        sel.match_expressions.expect("exprs")[0].values,
        Some(vec!["qux".to_string(), "norf".to_string()])
    );
}

// ---------------------------------------------------------------------------------------
// R-11, D2

/// D2 (TestRequirementConstructor), through the LabelSelector API.
#[test]
fn d2_requirement_constructor_table() {
    let long_key = "a".repeat(254);
    let long_value = "a".repeat(254);
    let table: Vec<(&str, Value, bool)> = vec![
        ("In with no values", expr("x", "In", &[]), false),
        (
            "In with values absent",
            json!({"matchExpressions": [{"key": "x", "operator": "In"}]}),
            false,
        ),
        ("NotIn with empty set", expr("x", "NotIn", &[]), false),
        ("In {foo}", expr("x", "In", &["foo"]), true),
        ("NotIn {foo}", expr("x", "NotIn", &["foo"]), true),
        (
            "Exists",
            json!({"matchExpressions": [{"key": "x", "operator": "Exists"}]}),
            true,
        ),
        ("Exists with []", expr("x", "Exists", &[]), true),
        (
            "DoesNotExist",
            json!({"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]}),
            true,
        ),
        ("Exists {foo}", expr("x", "Exists", &["foo"]), false),
        (
            "DoesNotExist {foo}",
            expr("x", "DoesNotExist", &["foo"]),
            false,
        ),
        // Gt/Lt exist in the labels package but are not LabelSelector operators.
        ("Gt {1}", expr("x", "Gt", &["1"]), false),
        ("Lt {6}", expr("x", "Lt", &["6"]), false),
        ("Gt {}", expr("x", "Gt", &[]), false),
        ("Gt {bar}", expr("x", "Gt", &["bar"]), false),
        ("Lt {bar}", expr("x", "Lt", &["bar"]), false),
        // matchLabels always gives one value; "Equals" is not an expression operator.
        (
            "Equals {foo, bar}",
            expr("x", "Equals", &["foo", "bar"]),
            false,
        ),
        ("Equals {foo}", expr("x", "Equals", &["foo"]), false),
        ("= {foo}", expr("x", "=", &["foo"]), false),
        (
            "key of 254 a's",
            json!({"matchLabels": {long_key.clone(): "v"}}),
            false,
        ),
        (
            "value of 254 a's",
            json!({"matchLabels": {"x": long_value}}),
            false,
        ),
        ("value \"a b\"", json!({"matchLabels": {"x": "a b"}}), false),
        ("unsupportedOp", expr("x", "unsupportedOp", &["foo"]), false),
        ("lower-case in", expr("x", "in", &["foo"]), false),
        (
            "no operator",
            json!({"matchExpressions": [{"key": "x"}]}),
            false,
        ),
    ];
    for (name, sel, valid) in table {
        assert_eq!(compile(sel).is_ok(), valid, "{name}");
    }
}

#[test]
fn r10_unknown_operators_say_so() {
    let err = compile(expr("x", "Gt", &["1"])).expect_err("Gt");
    assert_eq!(
        err.to_string(),
        "invalid label selector: \"Gt\" is not a valid label selector operator"
    );
}

/// keys are qualified names.
#[test]
fn r11_label_keys() {
    let table = [
        ("app", true),
        ("a", true),
        ("a_b.c-d", true),
        ("A9", true),
        ("example.com/app", true),
        ("k8s.io/a", true),
        (&*format!("{}/x", "a".repeat(253)), true),
        (&*format!("{}/x", "a".repeat(254)), false),
        (&*"a".repeat(63), true),
        (&*"a".repeat(64), false),
        ("", false),
        ("-a", false),
        ("a-", false),
        ("_a", false),
        ("a b", false),
        ("/a", false),
        ("example.com/", false),
        ("a/b/c", false),
        ("Example.com/a", false),
        ("exa_mple.com/a", false),
        ("-example.com/a", false),
        ("example..com/a", false),
    ];
    for (key, valid) in table {
        let sel = json!({"matchLabels": {key: "v"}});
        assert_eq!(compile(sel).is_ok(), valid, "key {key:?}");
        let sel = json!({"matchExpressions": [{"key": key, "operator": "Exists"}]});
        assert_eq!(compile(sel).is_ok(), valid, "expression key {key:?}");
    }
}

/// values are empty or ≤ 63 label-name characters.
#[test]
fn r11_label_values() {
    let table = [
        ("", true),
        ("v", true),
        ("v1.2_3-4", true),
        (&*"a".repeat(63), true),
        (&*"a".repeat(64), false),
        ("-v", false),
        ("v-", false),
        ("a b", false),
        ("a/b", false),
        ("ä", false),
    ];
    for (value, valid) in table {
        assert_eq!(
            compile(json!({"matchLabels": {"k": value}})).is_ok(),
            valid,
            "value {value:?}"
        );
        assert_eq!(
            compile(expr("k", "In", &["ok", value])).is_ok(),
            valid,
            "In value {value:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// R-12, D3

/// D3 (TestRequirementSelectorMatching), the rows reachable through LabelSelector.
#[test]
fn d3_requirement_matching() {
    let two = |a: Value, b: Value| json!({"matchExpressions": [a, b]});
    let r = |key: &str, op: &str, values: &[&str]| json!({"key": key, "operator": op, "values": values});
    let table = [
        (
            json!({"x": "foo", "y": "baz"}),
            two(r("x", "In", &["foo"]), r("y", "NotIn", &["alpha"])),
            true,
        ),
        (
            json!({"x": "foo", "y": "baz"}),
            two(r("x", "In", &["foo"]), r("y", "In", &["alpha"])),
            false,
        ),
        (
            json!({"y": ""}),
            two(r("x", "NotIn", &[""]), r("y", "Exists", &[])),
            true,
        ),
        (
            json!({"y": ""}),
            two(r("x", "DoesNotExist", &[]), r("y", "Exists", &[])),
            true,
        ),
        (
            json!({"y": ""}),
            two(r("x", "NotIn", &[""]), r("y", "DoesNotExist", &[])),
            false,
        ),
        (json!({"y": "baz"}), expr("x", "In", &[""]), false),
    ];
    for (set, sel, want) in table {
        let l = labels(set.clone());
        assert_eq!(ok(sel.clone()).matches(Some(&l)), want, "{sel} on {set}");
    }
}

/// R-12 operator by operator, with the label present, absent, and the label map absent.
#[test]
fn r12_matching_per_operator() {
    let with = labels(json!({"k": "v"}));
    let other = labels(json!({"k": "w"}));
    let empty_value = labels(json!({"k": ""}));
    let without = labels(json!({"z": "v"}));
    // (selector, with, other value, k="", without, no labels at all)
    let table = [
        (
            json!({"matchLabels": {"k": "v"}}),
            [true, false, false, false, false],
        ),
        (
            json!({"matchLabels": {"k": ""}}),
            [false, false, true, false, false],
        ),
        (
            expr("k", "In", &["v", "x"]),
            [true, false, false, false, false],
        ),
        (expr("k", "NotIn", &["v"]), [false, true, true, true, true]),
        (
            json!({"matchExpressions": [{"key": "k", "operator": "Exists"}]}),
            [true, true, true, false, false],
        ),
        (
            json!({"matchExpressions": [{"key": "k", "operator": "DoesNotExist"}]}),
            [false, false, false, true, true],
        ),
    ];
    for (sel, want) in table {
        let s = ok(sel.clone());
        let got = [
            s.matches(Some(&with)),
            s.matches(Some(&other)),
            s.matches(Some(&empty_value)),
            s.matches(Some(&without)),
            s.matches(None),
        ];
        assert_eq!(got, want, "{sel}");
    }
}

#[test]
fn r10_requirements_are_anded() {
    let s = ok(json!({
        "matchLabels": {"app": "web", "tier": "fe"},
        "matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod"]}]
    }));
    assert!(s.matches(Some(&labels(json!({"app": "web", "tier": "fe"})))));
    assert!(s.matches(Some(&labels(
        json!({"app": "web", "tier": "fe", "env": "dev"})
    ))));
    assert!(!s.matches(Some(&labels(
        json!({"app": "web", "tier": "fe", "env": "prod"})
    ))));
    assert!(!s.matches(Some(&labels(json!({"app": "web"})))));
}

// ---------------------------------------------------------------------------------------
//

#[test]
fn r13_template_label_selector() {
    assert!(Selector::from_labels(None).is_everything());
    assert!(Selector::from_labels(None).matches(None));
    let empty = StringMap::new();
    assert!(Selector::from_labels(Some(&empty)).matches(None));
    let t = labels(json!({"name": "foo", "type": "production"}));
    let s = Selector::from_labels(Some(&t));
    assert!(s.matches(Some(&labels(
        json!({"name": "foo", "type": "production", "x": "y"})
    ))));
    assert!(!s.matches(Some(&labels(json!({"name": "foo"})))));
    assert!(!s.matches(None));
    // No validation: an invalid key still builds an equality requirement.
    let bad = labels(json!({"a b": "c d"}));
    assert!(Selector::from_labels(Some(&bad)).matches(Some(&bad)));
}

// ---------------------------------------------------------------------------------------
// R-14, E-03, A29: an invalid selector halts the sync

#[test]
fn r14_e03_a29_invalid_selector_does_nothing_at_all() {
    let owner = rs("web")
        .replicas(3)
        .selector(expr("app", "Invalid", &["web"]))
        .generation(2)
        .status(json!({"replicas": 7, "observedGeneration": 1}));
    let pods = [pod("orphan"), healthy("mine", &owner)];
    let input = input(&owner, &pods)
        .expectations(&replicore::Expectations::none().expect_creations(2, now()))
        .build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    match &p.halt {
        Some(Halt::InvalidSelector { message }) => {
            assert!(
                message.contains("\"Invalid\" is not a valid label selector operator"),
                "{message}"
            )
        }
        other => panic!("expected an invalid-selector halt, got {other:?}"),
    }
    assert!(p.claims.is_empty());
    assert!(!p.needs_owner_recheck);
    assert_eq!(idle(&p.manage), Idle::Halted);
    let done = finish(&p, &Default::default());
    assert_eq!(done.status, None, "no status write even though it is stale");
    assert_eq!(done.requeue, Requeue::Done, "success, no requeue");
    assert!(done.expectations.is_empty());
    assert!(done.events.is_empty());
    assert_eq!(done.error, None);
}

// ---------------------------------------------------------------------------------------
// E-01, E-02 at sync level

/// E-01: a nil selector matches no pod: owned pods are released, replicas are created.
#[test]
fn e01_nil_selector_releases_and_creates() {
    let owner = rs("web").replicas(2).no_selector();
    let pods = [healthy("mine", &owner), pod("orphan")];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(p.halt, None);
    assert_eq!(p.claims.len(), 1);
    assert_eq!(p.claims[0].kind, ClaimKind::Release);
    assert_eq!(p.claims[0].name, "mine");
    assert_eq!(p.owned, 0);
    assert_eq!(create_plan(&p.manage).count, 2);
}

/// E-01 with the owner being deleted: nothing is released or created.
#[test]
fn e01_nil_selector_owner_being_deleted_releases_nothing() {
    let owner = rs("web").replicas(2).no_selector().deleting();
    let pods = [healthy("mine", &owner)];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert!(p.claims.is_empty());
    assert_eq!(idle(&p.manage), Idle::OwnerTerminating);
}

/// E-02: an empty selector adopts every orphan of the namespace, labelled or not.
#[test]
fn e02_empty_selector_adopts_every_orphan_of_the_namespace() {
    let owner = rs("web").replicas(3).selector(json!({}));
    let pods = [
        pod("a").labels(json!({"other": "x"})),
        pod("b").no_labels(),
        pod("c").ns("elsewhere"),
        pod("d").owned_by(&rs("someone-else")),
    ];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let adopted: Vec<&str> = p.claims.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(adopted, vec!["a", "b"]);
    assert!(p.claims.iter().all(|c| c.kind == ClaimKind::Adopt));
    assert!(p.needs_owner_recheck);
    // Counting the two adoptions, one pod is still missing.
    assert_eq!(create_plan(&p.manage).count, 1);
}
