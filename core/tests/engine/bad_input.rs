//! Bad input: every entry point answers with a `replicore::Error` that names the JSON path
//! of the offending field (in the `pods[1].status.conditions[0].lastTransitionTime`
//! spelling) and says what was wrong. Never a panic, never a silent default.

use crate::common;

use common::*;
use replicore::outcome::{CallResult, SyncOutcome};
use replicore::{complete, plan, Config, Error, SyncInput};
use serde_json::{json, Value};

/// A minimal valid input as JSON, to break one field at a time.
fn base() -> Value {
    json!({
        "now": NOW,
        "owner": {
            "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
            "spec": {"replicas": 3, "minReadySeconds": 0,
                     "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}}}
        },
        "pods": [
            {"metadata": {"name": "p0", "namespace": "default", "uid": "p0"}},
            {"metadata": {"name": "p1", "namespace": "default", "uid": "p1"},
             "status": {"phase": "Running",
                        "conditions": [{"type": "Ready", "status": "True",
                                        "lastTransitionTime": NOW}]}},
            {"metadata": {"name": "p2", "namespace": "default", "uid": "p2"}}
        ]
    })
}

fn parse(v: &Value) -> Result<SyncInput, Error> {
    SyncInput::from_json(&serde_json::to_vec(v).expect("serializes"))
}

/// The error for `v`, checked to name `path` both in `path()` and in its text.
fn err_at(v: &Value, path: &str) -> Error {
    let err = parse(v).expect_err("bad input must be refused");
    assert_eq!(err.path(), path, "error: {err}");
    assert!(
        err.to_string().starts_with(&format!("{path}: ")),
        "the message names the path: {err}"
    );
    err
}

#[test]
fn the_base_fixture_is_valid() {
    let input = parse(&base()).expect("valid");
    assert_eq!(input.pods.len(), 3);
    assert_eq!(input.owner.spec.replicas, Some(3));
}

// ---------------------------------------------------------------------------------------
// Timestamps

#[test]
fn malformed_condition_timestamp_names_the_condition() {
    let mut v = base();
    v["pods"][1]["status"]["conditions"][0]["lastTransitionTime"] = json!("yesterday");
    let err = err_at(&v, "pods[1].status.conditions[0].lastTransitionTime");
    assert_eq!(err.code(), "MALFORMED");
    assert!(
        matches!(&err, Error::Malformed { message, .. } if message.contains("invalid RFC 3339 timestamp \"yesterday\"")),
        "{err:?}"
    );
}

#[test]
fn malformed_now_names_now() {
    let mut v = base();
    v["now"] = json!("2026-13-45T99:00:00Z");
    let err = err_at(&v, "now");
    assert!(err.to_string().contains("invalid RFC 3339"), "{err}");
}

#[test]
fn now_may_not_be_the_go_zero_time() {
    let mut v = base();
    v["now"] = json!("0001-01-01T00:00:00Z");
    let err = err_at(&v, "now");
    assert!(err.to_string().contains("zero time"), "{err}");
}

#[test]
fn timestamp_outside_the_nanosecond_range_is_refused() {
    let mut v = base();
    v["pods"][0]["metadata"]["creationTimestamp"] = json!("3000-01-01T00:00:00Z");
    let err = err_at(&v, "pods[0].metadata.creationTimestamp");
    assert!(
        err.to_string().contains("outside the representable range"),
        "{err}"
    );
}

#[test]
fn timestamp_of_the_wrong_json_type_is_refused() {
    let mut v = base();
    v["pods"][2]["metadata"]["deletionTimestamp"] = json!(5);
    let err = err_at(&v, "pods[2].metadata.deletionTimestamp");
    assert!(
        err.to_string().contains("invalid type: integer `5`"),
        "{err}"
    );
}

#[test]
fn malformed_expectations_timestamp_names_it() {
    let mut v = base();
    v["expectations"] = json!({"add": 1, "del": 0, "timestamp": "x"});
    err_at(&v, "expectations.timestamp");
}

#[test]
fn expectations_without_a_counter_name_the_field() {
    let mut v = base();
    v["expectations"] = json!({"add": 1, "timestamp": NOW});
    let err = err_at(&v, "expectations.del");
    assert_eq!(
        err,
        Error::Missing {
            path: "expectations.del".into()
        }
    );
}

/// `now` is required; its absence must be reported at `now`.
#[test]
fn missing_now_names_now() {
    let mut v = base();
    if let Some(m) = v.as_object_mut() {
        m.remove("now");
    }
    let err = err_at(&v, "now");
    assert!(err.to_string().contains("now"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Counts (§2, R-03: negative minReadySeconds is invalid input)

#[test]
fn negative_replicas_is_refused() {
    let mut v = base();
    v["owner"]["spec"]["replicas"] = json!(-1);
    let err = err_at(&v, "owner.spec.replicas");
    assert_eq!(
        err,
        Error::Negative {
            path: "owner.spec.replicas".into(),
            value: -1
        }
    );
    assert_eq!(err.code(), "NEGATIVE");
    assert!(err.to_string().contains("must not be negative (got -1)"));
}

#[test]
fn negative_min_ready_seconds_is_refused() {
    let mut v = base();
    v["owner"]["spec"]["minReadySeconds"] = json!(-5);
    let err = err_at(&v, "owner.spec.minReadySeconds");
    assert_eq!(
        err,
        Error::Negative {
            path: "owner.spec.minReadySeconds".into(),
            value: -5
        }
    );
}

#[test]
fn negative_replicas_of_another_owner_is_refused() {
    let mut v = base();
    v["otherOwners"] = json!([{"metadata": {"name": "b"}}, {"spec": {"replicas": -2}}]);
    let err = err_at(&v, "otherOwners[1].spec.replicas");
    assert!(matches!(err, Error::Negative { value: -2, .. }), "{err:?}");
}

#[test]
fn replicas_beyond_int32_is_refused() {
    let mut v = base();
    v["owner"]["spec"]["replicas"] = json!(3_000_000_000i64);
    let err = err_at(&v, "owner.spec.replicas");
    assert!(err.to_string().contains("expected i32"), "{err}");
}

#[test]
fn replicas_as_a_string_is_refused() {
    let mut v = base();
    v["owner"]["spec"]["replicas"] = json!("3");
    let err = err_at(&v, "owner.spec.replicas");
    assert!(
        err.to_string().contains("invalid type: string \"3\""),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// Missing names (R-21)

#[test]
fn pod_without_a_name_is_refused() {
    let mut v = base();
    if let Some(m) = v["pods"][2]["metadata"].as_object_mut() {
        m.remove("name");
    }
    let err = err_at(&v, "pods[2].metadata.name");
    assert_eq!(
        err,
        Error::Missing {
            path: "pods[2].metadata.name".into()
        }
    );
    assert_eq!(err.code(), "MISSING");
    assert_eq!(err.to_string(), "pods[2].metadata.name: is required");
}

#[test]
fn pod_with_an_empty_name_is_refused() {
    let mut v = base();
    v["pods"][0]["metadata"]["name"] = json!("");
    err_at(&v, "pods[0].metadata.name");
}

#[test]
fn owner_without_uid_is_refused() {
    let mut v = base();
    if let Some(m) = v["owner"]["metadata"].as_object_mut() {
        m.remove("uid");
    }
    let err = err_at(&v, "owner.metadata.uid");
    assert!(matches!(err, Error::Missing { .. }), "{err:?}");
}

#[test]
fn owner_without_name_or_namespace_is_refused() {
    for field in ["name", "namespace"] {
        let mut v = base();
        v["owner"]["metadata"][field] = json!("");
        let err = err_at(&v, &format!("owner.metadata.{field}"));
        assert!(matches!(err, Error::Missing { .. }), "{err:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Wrong JSON types

#[test]
fn owner_that_is_not_an_object_is_refused() {
    let mut v = base();
    v["owner"] = json!(5);
    let err = err_at(&v, "owner");
    assert!(
        err.to_string()
            .contains("invalid type: integer `5`, expected an object"),
        "{err}"
    );
}

#[test]
fn pods_that_are_not_a_list_are_refused() {
    let mut v = base();
    v["pods"] = json!({});
    let err = err_at(&v, "pods");
    assert!(
        err.to_string().contains("expected an array of objects"),
        "{err}"
    );
}

#[test]
fn label_value_that_is_not_a_string_is_refused() {
    let mut v = base();
    v["owner"]["spec"]["selector"]["matchLabels"]["app"] = json!(1);
    let err = err_at(&v, "owner.spec.selector.matchLabels.app");
    assert!(err.to_string().contains("expected a string"), "{err}");
}

#[test]
fn cache_is_fresh_must_be_a_boolean() {
    let mut v = base();
    v["cacheIsFresh"] = json!("yes");
    err_at(&v, "cacheIsFresh");
}

/// An array where an object belongs is a wrong JSON type and must be refused at that path.
#[test]
fn metadata_that_is_an_array_is_refused_as_malformed() {
    let mut v = base();
    v["pods"][0]["metadata"] = json!([]);
    let err = err_at(&v, "pods[0].metadata");
    assert!(matches!(err, Error::Malformed { .. }), "{err:?}");
}

/// The same defect where nothing else catches it: `status: []` silently reads as an empty
/// status, and `spec: [5]` as `{replicas: 5}`.
#[test]
fn arrays_in_place_of_status_or_spec_are_refused() {
    let mut v = base();
    v["pods"][1]["status"] = json!([]);
    let err = err_at(&v, "pods[1].status");
    assert!(matches!(err, Error::Malformed { .. }), "{err:?}");

    let mut v = base();
    v["owner"]["spec"] = json!([5]);
    let err = err_at(&v, "owner.spec");
    assert!(matches!(err, Error::Malformed { .. }), "{err:?}");
}

// ---------------------------------------------------------------------------------------
// Duplicate pods (E-08)

#[test]
fn duplicate_pod_names_name_both_places() {
    let mut v = base();
    v["pods"][2]["metadata"]["name"] = json!("p0");
    let err = err_at(&v, "pods[2].metadata.name");
    assert_eq!(
        err,
        Error::DuplicatePod {
            path: "pods[2].metadata.name".into(),
            key: "default/p0".into(),
            first: "pods[0]".into(),
        }
    );
    assert_eq!(err.code(), "DUPLICATE_POD");
    assert_eq!(
        err.to_string(),
        "pods[2].metadata.name: pod default/p0 is given twice (first at pods[0])"
    );
}

#[test]
fn same_name_in_different_namespaces_is_not_a_duplicate() {
    let mut v = base();
    v["pods"][2]["metadata"]["name"] = json!("p0");
    v["pods"][2]["metadata"]["namespace"] = json!("other");
    assert!(parse(&v).is_ok());
}

// ---------------------------------------------------------------------------------------
// JSON syntax

#[test]
fn invalid_json_syntax_reports_line_and_column() {
    let text =
        b"{\"now\": \"2026-11-21T04:40:12Z\",\n \"owner\": {\"metadata\": {\"name\": \"web\",}}}";
    let err = SyncInput::from_json(text).expect_err("syntax error");
    assert_eq!(err.code(), "SYNTAX");
    // The path is the object the parser was in (the key it could not read has no name).
    assert_eq!(err.path(), "owner.metadata");
    assert!(
        err.to_string()
            .contains("trailing comma at line 2 column 39"),
        "{err}"
    );
}

/// JSON text is UTF-8: a byte that is not is refused at the path of the value holding
/// it, with its line and column, even in a field the engine does not read.
#[test]
fn text_that_is_not_utf8_is_refused_where_it_is() {
    let text = b"{\"now\": \"2026-11-21T04:40:12Z\",\n \"pods\": [{\"metadata\": {\"name\": \"a\"}},\n  {\"metadata\": {\"annotations\": {\"note\": \"caf\xe9\"}}}]}";
    let err = SyncInput::from_json(text).expect_err("not UTF-8");
    assert_eq!(err.code(), "SYNTAX");
    assert_eq!(err.path(), "pods[1].metadata.annotations.note");
    assert!(
        err.to_string()
            .contains("invalid UTF-8 at line 3 column 45"),
        "{err}"
    );
    // The same text in UTF-8 reads on to the next check (the owner is missing).
    let fixed = String::from_utf8_lossy(text).replace('\u{fffd}', "é");
    let err = SyncInput::from_json(fixed.as_bytes()).expect_err("no owner");
    assert_eq!((err.code(), err.path()), ("MISSING", "owner"));
    // A bad byte in a key names the member, its bad byte replaced.
    let err = SyncInput::from_json(b"{\"n\xffow\": 1}").expect_err("not UTF-8");
    assert_eq!((err.code(), err.path()), ("SYNTAX", "n\u{fffd}ow"));
    assert!(err.to_string().contains("line 1 column 4"), "{err}");
}

#[test]
fn truncated_json_reports_eof_with_position() {
    let err =
        SyncInput::from_json(b"{\"now\": \"2026-11-21T04:40:12Z\", \"pods\": [").expect_err("eof");
    assert_eq!(err.path(), "pods");
    assert!(
        err.to_string()
            .contains("EOF while parsing a list at line 1 column 41"),
        "{err}"
    );
}

#[test]
fn empty_document_is_refused_at_the_root() {
    let err = SyncInput::from_json(b"").expect_err("empty");
    assert_eq!(err.path(), ".");
    assert!(err
        .to_string()
        .contains("EOF while parsing a value at line 1 column 0"));
}

#[test]
fn type_errors_drop_the_line_and_column() {
    let mut v = base();
    v["owner"] = json!(5);
    let err = parse(&v).expect_err("type error");
    assert!(!err.to_string().contains(" at line "), "{err}");
}

// ---------------------------------------------------------------------------------------
// plan() re-validates inputs built in code, and the configuration (§16)

#[test]
fn plan_refuses_an_input_built_in_code_with_negative_replicas() {
    let mut input = input(&rs("web"), &[]).build();
    input.owner.spec.replicas = Some(-4);
    let err = plan(&input, &Config::default()).expect_err("negative");
    assert_eq!(
        err,
        Error::Negative {
            path: "owner.spec.replicas".into(),
            value: -4
        }
    );
}

#[test]
fn plan_refuses_an_input_built_in_code_with_duplicate_pods() {
    let owner = rs("web");
    let mut input = input(&owner, &[pod("a").owned_by(&owner)]).build();
    let copy = input.pods[0].clone();
    input.pods.push(copy);
    let err = plan(&input, &Config::default()).expect_err("duplicate");
    assert_eq!(err.path(), "pods[1].metadata.name");
    assert!(matches!(err, Error::DuplicatePod { ref first, .. } if first == "pods[0]"));
}

#[test]
fn plan_refuses_a_zero_burst() {
    let input = input(&rs("web"), &[]).build();
    let config = Config {
        burst_replicas: 0,
        ..Config::default()
    };
    let err = plan(&input, &config).expect_err("burst 0");
    assert_eq!(err.path(), "config.burstReplicas");
    assert_eq!(err.code(), "INVALID_CONFIG");
}

#[test]
fn plan_refuses_logarithmic_scale_down_off_at_1_36() {
    let input = input(&rs("web"), &[]).build();
    let mut config = Config::default();
    config.feature_gates.logarithmic_scale_down = false;
    let err = plan(&input, &config).expect_err("locked gate");
    assert_eq!(err.path(), "config.featureGates.LogarithmicScaleDown");
    assert!(err.to_string().contains("locked to true in 1.36"), "{err}");
}

#[test]
fn config_json_of_the_wrong_type_names_the_field() {
    let err =
        replicore::input::from_json::<Config>(br#"{"burstReplicas": -1}"#).expect_err("usize");
    assert_eq!(err.path(), "burstReplicas");
    let err =
        replicore::input::from_json::<Config>(br#"{"featureGates": {"PodDeletionCost": "on"}}"#)
            .expect_err("bool");
    assert_eq!(err.path(), "featureGates.PodDeletionCost");
}

// ---------------------------------------------------------------------------------------
// complete(): an outcome that does not fit its plan

#[test]
fn complete_refuses_too_few_create_results() {
    let owner = rs("web").replicas(3);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    // batches 1, 2: the first call succeeded, so the second batch must be reported too.
    let outcome = SyncOutcome {
        creates: vec![CallResult::created("web-a")],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("missing results");
    assert_eq!(err.path(), "creates");
    assert_eq!(err.code(), "OUTCOME_MISMATCH");
    assert_eq!(err.to_string(), "creates: 1 results for 3 planned calls");
}

#[test]
fn complete_refuses_results_for_calls_beyond_a_failed_batch() {
    let owner = rs("web").replicas(3);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let outcome = SyncOutcome {
        creates: vec![
            CallResult::error("Forbidden", "quota"),
            CallResult::created("web-b"),
            CallResult::created("web-c"),
        ],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("too many results");
    assert_eq!(err.to_string(), "creates: 3 results for 1 planned calls");
}

#[test]
fn complete_refuses_deletes_for_a_create_plan_and_skipped_creates() {
    let owner = rs("web").replicas(1);
    let input = input(&owner, &[]).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let outcome = SyncOutcome {
        creates: vec![CallResult::created("x")],
        deletes: vec![CallResult::ok()],
        ..SyncOutcome::default()
    };
    assert_eq!(
        complete(&p, &outcome).expect_err("deletes").path(),
        "deletes"
    );
    let outcome = SyncOutcome {
        creates: vec![CallResult::Skipped],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("skipped create");
    assert_eq!(err.path(), "creates");
    assert!(err.to_string().contains("skipped"), "{err}");
}

#[test]
fn complete_refuses_a_wrong_number_of_delete_results_and_skipped_deletes() {
    let owner = rs("web").replicas(0);
    let pods = [healthy("a", &owner), healthy("b", &owner)];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(delete_plan(&p.manage).victims.len(), 2);
    let outcome = SyncOutcome {
        deletes: vec![CallResult::ok()],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("one result for two deletes");
    assert_eq!(err.to_string(), "deletes: 1 results for 2 planned calls");
    let outcome = SyncOutcome {
        deletes: vec![CallResult::ok(), CallResult::Skipped],
        ..SyncOutcome::default()
    };
    let err = complete(&p, &outcome).expect_err("skipped delete");
    assert_eq!(err.path(), "deletes");
    assert!(err.to_string().contains("default/b"), "{err}");
}

#[test]
fn complete_refuses_claim_results_of_the_wrong_length_or_without_the_live_owner() {
    let owner = rs("web").replicas(1);
    let pods = [pod("orphan")];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    assert_eq!(p.claims.len(), 1);
    let err = complete(&p, &SyncOutcome::default()).expect_err("no claim results");
    assert_eq!(err.path(), "claims.results");
    assert_eq!(
        err.to_string(),
        "claims.results: 0 results for 1 planned claims"
    );

    let mut outcome = SyncOutcome::default();
    outcome.claims.results = vec![CallResult::ok()];
    let err = complete(&p, &outcome).expect_err("no live owner");
    assert_eq!(err.path(), "claims.liveOwner");

    // The same checks guard manage_after.
    let err = p.manage_after(&outcome.claims).expect_err("no live owner");
    assert_eq!(err.path(), "claims.liveOwner");
}

#[test]
fn complete_refuses_an_allowed_adoption_reported_as_skipped() {
    let owner = rs("web").replicas(1);
    let pods = [pod("orphan")];
    let input = input(&owner, &pods).build();
    let config = Config::default();
    let p = plan(&input, &config).expect("plan");
    let mut outcome = SyncOutcome::default();
    outcome.claims.results = vec![CallResult::Skipped];
    outcome.claims.live_owner = Some(replicore::LiveOwner::Found(Box::new(owner.build())));
    let err = complete(&p, &outcome).expect_err("skipped although allowed");
    assert_eq!(err.path(), "claims.results");
    assert!(err.to_string().contains("default/orphan"), "{err}");
}

#[test]
fn flat_tagged_values_name_the_offending_field() {
    use replicore::input::from_json_any;
    use replicore::ExpectationsChange;
    let err =
        from_json_any::<Vec<ExpectationsChange>>(br#"[{"op": "delete"}, {"op": "set", "add": 1}]"#)
            .expect_err("set needs del");
    assert_eq!((err.code(), err.path()), ("MALFORMED", "[1]"));
    assert!(err.to_string().contains("`del`"), "{err}");
    let err = from_json_any::<Vec<ExpectationsChange>>(br#"[{"op": "explode"}]"#).expect_err("op");
    assert_eq!(err.path(), "[0].op");
    let err =
        SyncOutcome::deserialize_json(br#"{"creates": [{"result": "ok"}, {"result": "maybe"}]}"#)
            .expect_err("unknown result");
    assert_eq!(err.path(), "creates[1].result");
    let ok = SyncOutcome::deserialize_json(
        br#"{"creates": [{"result": "error", "reason": "Forbidden", "message": "quota", "code": 403}]}"#,
    )
    .expect("valid");
    assert_eq!(
        ok.creates
            .first()
            .and_then(CallResult::as_error)
            .map(|e| e.code),
        Some(Some(403))
    );
}

trait DeserializeJson: Sized {
    fn deserialize_json(bytes: &[u8]) -> replicore::Result<Self>;
}

impl DeserializeJson for SyncOutcome {
    fn deserialize_json(bytes: &[u8]) -> replicore::Result<Self> {
        replicore::input::from_json(bytes)
    }
}

/// A required field missing from the last item of a list, or from an object that is the
/// last member of its parent, is named with the item's index and the object's path: the
/// bracket closing the parent is not the object.
#[test]
fn a_missing_field_in_the_last_item_keeps_its_path() {
    use replicore::input::from_json_any;
    use replicore::ExpectationsChange;
    let missing = |text: &str| {
        let e = from_json_any::<Vec<ExpectationsChange>>(text.as_bytes()).expect_err("refused");
        (e.code().to_owned(), e.path().to_owned())
    };
    let at = |path: &str| ("MISSING".to_owned(), path.to_owned());
    assert_eq!(missing(r#"[{"count": 1}]"#), at("[0].op"));
    assert_eq!(missing(r#"[{"op": "delete"}, {"count": 1}]"#), at("[1].op"));
    assert_eq!(missing(r#"[{"count": 1}, {"op": "delete"}]"#), at("[0].op"));
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Holder {
        changes: Vec<ExpectationsChange>,
    }
    let e = replicore::input::from_json::<Holder>(br#"{"changes": [{"op": "delete"}, {}]}"#)
        .expect_err("refused");
    assert_eq!((e.code(), e.path()), ("MISSING", "changes[1].op"));
}
