//! Property tests of the autoscaler's sync (H-38..H-55), one sync with generated metrics,
//! bounds, behavior and memory, every call answered:
//!
//! 1. a sync that rescales writes a count inside [min, max] when the target was inside
//!    (branch D), and exactly min or max when it was outside (branches B and C);
//! 2. on the legacy path a remembered recommendation inside the window bounds a scale-down:
//!    the target never goes below the highest recent recommendation (H-104);
//! 3. a scale-up is never above the policy limit of the behavior (H-112);
//! 4. the plain state replays to the same step at every point (`from_state(state())`);
//! 5. no input and no answer panics the sync;
//! 6. a pod list that repeats names syncs as the list with each name once, the later pod
//!    at the earlier one's place (H-59), computed here independently.

use proptest::prelude::*;
use replicore::hpa::{GroupResource, HpaAnswer, HpaCall, HpaStep, HpaSync, HpaSyncInput};
use serde_json::{json, Value};
use std::sync::Arc;

const NOW: &str = "2026-11-27T12:00:00Z";

#[derive(Clone, Debug)]
struct Case {
    min: i32,
    max: i32,
    current: i32,
    usage: i64,
    target: i64,
    behavior: Option<(i32, i32)>,
    recent: Option<i32>,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        1i32..8,
        0i32..20,
        1i32..30,
        0i64..200_000,
        1i64..20_000,
        proptest::option::of((1i32..10, 1i32..300)),
        proptest::option::of(1i32..40),
    )
        .prop_map(
            |(min, span, current, usage, target, behavior, recent)| Case {
                min,
                max: min + span,
                current,
                usage,
                target,
                behavior,
                recent,
            },
        )
}

/// Legacy-path cases (no behavior) with the target inside [min, max] and a recommendation
/// remembered a minute ago.
fn legacy_cases() -> impl Strategy<Value = Case> {
    (cases(), 1i32..40).prop_map(|(mut c, recent)| {
        c.behavior = None;
        c.current = c.current.clamp(c.min, c.max);
        c.recent = Some(recent);
        c
    })
}

fn input(c: &Case) -> HpaSyncInput {
    let behavior = c.behavior.map(|(pods, percent)| {
        json!({"scaleUp": {"policies": [{"type": "Pods", "value": pods, "periodSeconds": 15},
                                        {"type": "Percent", "value": percent, "periodSeconds": 15}]}})
    });
    let memory = c.recent.map(|r| json!({"recommendations": [{"recommendation": r, "timestamp": "2026-11-27T11:59:00Z"}]}));
    let mut hpa = json!({"metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": c.min, "maxReplicas": c.max,
                 "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                              "target": {"type": "AverageValue", "averageValue": format!("{}m", c.target)}}}]}});
    if let Some(b) = behavior {
        hpa["spec"]["behavior"] = b;
    }
    HpaSyncInput::from_value(json!({"now": NOW, "hpa": hpa, "memory": memory})).unwrap()
}

fn answer(c: &Case, call: &HpaCall) -> HpaAnswer {
    match call {
        HpaCall::ResolveTarget { .. } => HpaAnswer::Mappings {
            resources: vec![GroupResource {
                group: "apps".into(),
                resource: "deployments".into(),
            }],
        },
        HpaCall::GetScale { .. } => HpaAnswer::Scale {
            scale: serde_json::from_value(json!({"spec": {"replicas": c.current},
                "status": {"replicas": c.current, "selector": "app=web"}}))
            .unwrap(),
        },
        HpaCall::ListPods { .. } => HpaAnswer::Pods {
            pods: Default::default(),
        },
        HpaCall::FetchMetric { .. } => HpaAnswer::Metric {
            response: serde_json::from_value(json!({"externalValues": [c.usage]})).unwrap(),
        },
        _ => HpaAnswer::Ok,
    }
}

fn run(c: &Case) -> (Option<i32>, Vec<Value>) {
    let mut sync = HpaSync::new(input(c));
    let mut states = Vec::new();
    while let Some(call) = sync.pending().cloned() {
        states.push(serde_json::to_value(sync.state()).unwrap());
        sync.report(answer(c, &call)).unwrap();
    }
    let HpaStep::Done { done } = sync.next() else {
        panic!("not done")
    };
    assert!(done.error.is_none(), "{:?}", done.error);
    (done.rescaled_to, states)
}

/// A listed pod: (name index, ready, cpu request in milli, its sample in milli).
type ListedPod = (usize, bool, i64, i64);

/// A CPU utilization sync over `pods` (every name's sample the last one listed for it);
/// its status and rescale.
fn run_pods(pods: &[ListedPod], samples: &[ListedPod]) -> (Value, Option<i32>) {
    let hpa = json!({"metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 1, "maxReplicas": 50,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                              "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
    let input = HpaSyncInput::from_value(json!({"now": NOW, "hpa": hpa})).unwrap();
    let listed: Vec<Value> = pods
        .iter()
        .map(|&(name, ready, request, _)| {
            json!({"metadata": {"name": format!("p{name}"), "namespace": "default",
                                "labels": {"app": "web"}},
                   "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": format!("{request}m")}}}]},
                   "status": {"phase": "Running", "startTime": "2026-11-27T10:00:00Z",
                              "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" },
                                              "lastTransitionTime": "2026-11-27T10:00:30Z"}]}})
        })
        .collect();
    let metrics: Vec<Value> = samples
        .iter()
        .map(|&(name, _, _, usage)| {
            json!({"pod": format!("p{name}"), "value": usage, "timestamp": "2026-11-27T11:59:50Z", "windowMillis": 30000})
        })
        .collect();
    let pods = Arc::new(serde_json::from_value(Value::Array(listed)).unwrap());
    let mut sync = HpaSync::new(input);
    while let Some(call) = sync.pending().cloned() {
        let answer = match call {
            HpaCall::ResolveTarget { .. } => HpaAnswer::Mappings {
                resources: vec![GroupResource {
                    group: "apps".into(),
                    resource: "deployments".into(),
                }],
            },
            HpaCall::GetScale { .. } => HpaAnswer::Scale {
                scale: serde_json::from_value(json!({"spec": {"replicas": 4},
                    "status": {"replicas": 4, "selector": "app=web"}}))
                .unwrap(),
            },
            HpaCall::ListPods { .. } => HpaAnswer::Pods {
                pods: Arc::clone(&pods),
            },
            HpaCall::FetchMetric { .. } => HpaAnswer::Metric {
                response: serde_json::from_value(json!({"podMetrics": metrics})).unwrap(),
            },
            _ => HpaAnswer::Ok,
        };
        sync.report(answer).unwrap();
    }
    let HpaStep::Done { done } = sync.next() else {
        panic!("not done")
    };
    (
        serde_json::to_value(&done.status).unwrap(),
        done.rescaled_to,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn h59_repeated_pod_names_sync_as_the_later_pod_at_the_earlier_place(
        pods in proptest::collection::vec((0usize..6, any::<bool>(), 100i64..1000, 0i64..2000), 1..12),
    ) {
        let mut once: Vec<ListedPod> = Vec::new();
        for &pod in &pods {
            match once.iter_mut().find(|p| p.0 == pod.0) {
                Some(earlier) => *earlier = pod,
                None => once.push(pod),
            }
        }
        prop_assert_eq!(run_pods(&pods, &pods), run_pods(&once, &pods));
    }

    #[test]
    fn rescales_stay_within_min_and_max(c in cases()) {
        let (to, _) = run(&c);
        if let Some(to) = to {
            if c.current > c.max {
                prop_assert_eq!(to, c.max);
            } else if c.current < c.min {
                prop_assert_eq!(to, c.min);
            } else {
                prop_assert!(to >= c.min && to <= c.max, "{to} outside [{}, {}]", c.min, c.max);
            }
        }
    }

    #[test]
    fn legacy_never_scales_down_below_a_recent_recommendation(c in legacy_cases()) {
        let (to, _) = run(&c);
        let recent = c.recent.unwrap_or(0);
        if let Some(to) = to.filter(|&t| t < c.current) {
            prop_assert!(to >= recent.min(c.max), "scaled down to {to} below {recent} (current {})", c.current);
        }
    }

    #[test]
    fn behavior_scale_up_stays_within_its_policies(c in cases()) {
        prop_assume!(c.current >= c.min && c.current <= c.max);
        let Some((pods, percent)) = c.behavior else { return Ok(()) };
        let (to, _) = run(&c);
        if let Some(to) = to.filter(|&t| t > c.current) {
            let by_pods = c.current + pods;
            let by_percent = (f64::from(c.current) * (1.0 + f64::from(percent) / 100.0)).ceil() as i32;
            prop_assert!(to <= by_pods.max(by_percent), "{to} above the limit from {}", c.current);
        }
    }

    #[test]
    fn the_plain_state_replays_to_the_same_step(c in cases()) {
        let (_, states) = run(&c);
        for state in states {
            let text = serde_json::to_vec(&state).unwrap();
            let parsed = replicore::hpa::HpaSyncState::from_json(&text).unwrap();
            let again = HpaSync::from_state(parsed).unwrap();
            let reparsed = serde_json::to_value(again.state()).unwrap();
            prop_assert_eq!(reparsed, state);
        }
    }

    #[test]
    fn no_answer_panics_the_sync(c in cases(), noise in proptest::collection::vec(0u8..6, 0..12)) {
        let mut sync = HpaSync::new(input(&c));
        for n in noise {
            let bogus = match n {
                0 => HpaAnswer::Ok,
                1 => HpaAnswer::Error { reason: "Conflict".into(), message: "conflict".into() },
                2 => HpaAnswer::Mappings { resources: vec![] },
                3 => HpaAnswer::Pods { pods: Default::default() },
                4 => HpaAnswer::Metric { response: serde_json::from_value(json!({"podMetrics": [{"pod": "x", "value": -5}]})).unwrap() },
                _ => HpaAnswer::Metric { response: serde_json::from_value(json!({"error": "down"})).unwrap() },
            };
            let _ = sync.report(bogus);
        }
        let _ = sync.next();
    }
}
