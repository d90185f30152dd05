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
