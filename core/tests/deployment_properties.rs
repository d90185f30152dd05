//! Property tests of the Deployment controller's rolling update (D-50..D-54), one sync
//! with every call answered ok:
//!
//! 1. it never plans more than `max(R + maxSurge, what there already is)` replicas;
//! 2. by its own accounting (available replicas, from RS status, that stay within the
//!    new sizes) it never goes below `min(R − maxUnavailable, what is available)`;
//! 3. it finishes without an error and without a panic, whatever the sizes.

mod deployment_support;

use std::collections::BTreeMap;

use deployment_support::*;
use proptest::prelude::*;
use replicore::deployment::{strategy, ApiCall};
use serde_json::{json, Value};

fn int_or_percent() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i32..6).prop_map(|i| json!(i)),
        prop::sample::select(vec!["0%", "1%", "10%", "25%", "33%", "50%", "100%", "150%"])
            .prop_map(|s| json!(s)),
    ]
}

/// (spec, available ≤ spec)
fn sizes() -> impl Strategy<Value = (i32, i32)> {
    (0i32..12).prop_flat_map(|spec| (Just(spec), 0..=spec))
}

#[derive(Debug)]
struct Case {
    replicas: i32,
    surge: Value,
    unavailable: Value,
    new: Option<(i32, i32)>,
    old: Vec<(i32, i32)>,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        0i32..25,
        int_or_percent(),
        int_or_percent(),
        prop::option::of(sizes()),
        prop::collection::vec(sizes(), 0..5),
    )
        .prop_map(|(replicas, surge, unavailable, new, old)| Case {
            replicas,
            surge,
            unavailable,
            // The new RS is not above R (scaling it down to R is not a rollout step).
            new: new.map(|(s, a)| (s.min(replicas), a.min(s.min(replicas)))),
            old,
        })
}

fn build(c: &Case) -> (Value, Vec<Value>) {
    let d = deployment(c.replicas, c.surge.clone(), c.unavailable.clone());
    let mut rss = Vec::new();
    let mut push =
        |name: String, image: &str, (spec, avail): (i32, i32), minute: usize, rev: usize| {
            let mut v = rs(
                &name,
                image,
                spec,
                avail,
                &rev.to_string(),
                &format!("2026-11-23T10:{minute:02}:00Z"),
            );
            // Not a scaling event: the RSs were last scaled for this R.
            v["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] =
                json!(c.replicas.to_string());
            if image == "v2" {
                v["spec"]["template"] = template("v2");
                v["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] = json!("new");
            }
            rss.push(v);
        };
    for (i, s) in c.old.iter().enumerate() {
        push(format!("web-old{i}"), &format!("v1-{i}"), *s, i, i + 1);
    }
    if let Some(s) = c.new {
        push("web-new".into(), "v2", s, 30, 9);
    }
    (d, rss)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn rolling_update_stays_within_surge_and_availability(c in cases()) {
        let (d, rss) = build(&c);
        let typed = typed_deployment(d.clone());
        let (surge, min_available) = (strategy::max_surge(&typed), strategy::min_available(&typed));
        let mut spec: BTreeMap<String, i32> = BTreeMap::new();
        let mut available: BTreeMap<String, i32> = BTreeMap::new();
        for v in &rss {
            let name = v["metadata"]["name"].as_str().unwrap().to_owned();
            spec.insert(name.clone(), v["spec"]["replicas"].as_i64().unwrap() as i32);
            available.insert(name, v["status"]["availableReplicas"].as_i64().unwrap() as i32);
        }
        let before: i32 = spec.values().sum();
        let total_available: i32 = available.values().sum();
        let (calls, done) = run_ok(input(d, rss));
        prop_assert!(done.error.is_none(), "{:?}", done.error);
        for call in &calls {
            if let ApiCall::UpdateReplicaSet { name, object, .. } | ApiCall::CreateReplicaSet { name, object, .. } = call {
                spec.insert(name.clone(), object["spec"]["replicas"].as_i64().unwrap() as i32);
            }
        }
        let after: i32 = spec.values().sum();
        prop_assert!(
            after <= before.max(c.replicas + surge),
            "{after} replicas planned, limit max({before}, {} + {surge}); calls {:?}", c.replicas, summary(&calls)
        );
        let kept: i32 = spec
            .iter()
            .map(|(n, s)| available.get(n).copied().unwrap_or(0).min(*s))
            .sum();
        prop_assert!(
            kept >= min_available.min(total_available),
            "{kept} available kept, floor min({min_available}, {total_available}); calls {:?}", summary(&calls)
        );
    }
}

// ---------------------------------------------------------------------------------------
// 3. No panic on any input and any API answers (issue point 8)

use replicore::deployment::{ApiResult, DeploymentSync, Step};
use replicore::outcome::ApiError;

fn any_int_or_string() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            0i64,
            1,
            3,
            -1,
            -7,
            150,
            i64::from(i32::MAX),
            i64::from(i32::MIN)
        ])
        .prop_map(|i| json!(i)),
        prop::sample::select(vec![
            "25%",
            "0%",
            "150%",
            "abc%",
            "150",
            "-5%",
            "",
            "%",
            "99999999999%"
        ])
        .prop_map(|s| json!(s)),
        Just(Value::Null),
    ]
}

fn any_count() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(1),
        json!(3),
        json!(10),
        json!(-2),
        json!(i32::MAX),
        json!(i32::MIN),
        Value::Null,
    ])
}

fn any_annotation() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        Value::Null,
        json!("1"),
        json!("3"),
        json!("0"),
        json!("-4"),
        json!("abc"),
        json!(""),
        json!("99999999999999999999"),
        json!("2147483647"),
    ])
}

fn any_rs() -> impl Strategy<Value = Value> {
    (
        any_count(),
        any_count(),
        any_annotation(),
        any_annotation(),
        any_annotation(),
        0usize..3,
        any::<bool>(),
        0u8..3,
    )
        .prop_map(|(spec, avail, rev, desired, max, image, deleting, owner)| {
            let mut v = rs(
                "web-x",
                &format!("v{image}"),
                1,
                1,
                "1",
                "2026-11-23T10:00:00Z",
            );
            v["spec"]["replicas"] = spec;
            // Status counts are plain integers on the wire (null is refused at parse).
            let avail = if avail.is_null() { json!(0) } else { avail };
            v["status"]["availableReplicas"] = avail.clone();
            v["status"]["replicas"] = avail;
            let a = v["metadata"]["annotations"].as_object_mut().unwrap();
            for (k, x) in [
                ("revision", rev),
                ("desired-replicas", desired),
                ("max-replicas", max),
            ] {
                let key = format!("deployment.kubernetes.io/{k}");
                if x.is_null() {
                    a.remove(&key);
                } else {
                    a.insert(key, x);
                }
            }
            if deleting {
                v["metadata"]["deletionTimestamp"] = json!("2026-11-24T00:00:00Z");
            }
            match owner {
                0 => {}
                1 => v["metadata"]["ownerReferences"] = json!([]),
                _ => v["metadata"]["ownerReferences"][0]["uid"] = json!("other"),
            }
            v
        })
}

fn any_result() -> impl Strategy<Value = ApiResult> {
    prop::sample::select(vec![
        "ok",
        "ok",
        "ok",
        "AlreadyExists",
        "NotFound",
        "Conflict",
        "Invalid",
        "InternalError",
        "NamespaceTerminating",
    ])
    .prop_map(|r| match r {
        "ok" => ApiResult::ok(),
        "NamespaceTerminating" => ApiResult::Error(ApiError {
            reason: "Forbidden".into(),
            message: "terminating".into(),
            code: Some(403),
            causes: vec!["NamespaceTerminating".into()],
        }),
        other => ApiResult::Error(ApiError::new(other, format!("{other} answer"))),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_input_and_no_answer_panics_the_sync(
        replicas in any_count(),
        surge in any_int_or_string(),
        unavailable in any_int_or_string(),
        strategy_type in prop::sample::select(vec!["RollingUpdate", "Recreate", "", "BlueGreen"]),
        paused in any::<bool>(),
        rollback in any_annotation(),
        history in any_count(),
        deadline in any_count(),
        collisions in any_count(),
        selector in prop::sample::select(vec![
            json!({"matchLabels": {"app": "web"}}), json!({}), Value::Null,
            json!({"matchExpressions": [{"key": "app", "operator": "Bad"}]}),
        ]),
        rss in prop::collection::vec(any_rs(), 0..5),
        results in prop::collection::vec(any_result(), 0..40),
    ) {
        let mut d = deployment(1, surge, unavailable);
        d["spec"]["replicas"] = replicas;
        d["spec"]["strategy"]["type"] = json!(strategy_type);
        d["spec"]["paused"] = json!(paused);
        d["spec"]["revisionHistoryLimit"] = history;
        d["spec"]["progressDeadlineSeconds"] = deadline;
        d["spec"]["selector"] = selector;
        d["status"]["collisionCount"] = collisions;
        if !rollback.is_null() {
            d["metadata"]["annotations"]["deprecated.deployment.rollback.to"] = rollback;
        }
        let rss: Vec<Value> = rss
            .into_iter()
            .enumerate()
            .map(|(i, mut v)| {
                v["metadata"]["name"] = json!(format!("web-{i}"));
                v["metadata"]["uid"] = json!(format!("uid-{i}"));
                v
            })
            .collect();
        let input = replicore::deployment::DeploymentSyncInput::from_value(json!({
            "now": NOW, "key": "default/web", "deployment": d, "replicaSets": rss,
        }));
        prop_assert!(input.is_ok(), "{:?}", input.err());
        let Ok(input) = input else {
            return Ok(());
        };
        let Ok(mut m) = DeploymentSync::new(input) else {
            return Ok(());
        };
        let mut answers = results.into_iter().chain(std::iter::repeat(ApiResult::ok()));
        for _ in 0..200 {
            match m.next() {
                Ok(Step::Call { .. }) => m.report(answers.next().unwrap_or(ApiResult::ok())).unwrap(),
                Ok(Step::Done { .. }) | Err(_) => return Ok(()),
            }
        }
        prop_assert!(false, "no end after 200 calls");
    }
}
