//! Which pods count, and what each requests (H-76..H-81, H-95): the pod grouping of the
//! replica calculator (ready, unready, missing, ignored, with the CPU start-up rules),
//! the requests a utilization is a percentage of, and the ready-pod count the Object
//! and External value targets multiply by.

use crate::fxhash::FxHashMap;
use crate::time::{Duration, Time};

use super::model::HpaPod;

/// Go's zero time (`0001-01-01T00:00:00Z`) in nanoseconds since the Unix epoch: what an
/// absent timestamp compares as.
const GO_ZERO_NANOS: i128 = -62_135_596_800 * 1_000_000_000;

/// An instant as upstream compares it: an absent one is Go's zero time.
pub(crate) fn go_nanos(t: Option<Time>) -> i128 {
    t.map_or(GO_ZERO_NANOS, |t| i128::from(t.unix_nanos()))
}

/// One pod's sample (upstream `PodMetric`): milli-value, when it was taken, over what
/// window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    pub value: i64,
    pub timestamp: Option<Time>,
    pub window: Duration,
}

/// Samples by pod name; names of pods that are not listed are kept (H-79).
pub(crate) type Samples<'a> = FxHashMap<&'a str, Sample>;

/// H-76: the pods of a listing by class; `ready` is a count, the others pod names.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Groups<'p> {
    pub ready: usize,
    pub unready: Vec<&'p str>,
    pub missing: Vec<&'p str>,
    pub ignored: Vec<&'p str>,
}

/// What the CPU readiness test (H-77) needs besides the pod.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Startup {
    pub cpu_initialization: Duration,
    pub readiness_delay: Duration,
    pub now: Time,
}

/// H-76: classifies every listed pod, in this order: terminating or Failed → ignored;
/// Pending → unready; no sample → missing; for `cpu` only, H-77 → unready; else ready.
pub(crate) fn group<'p>(
    pods: &[&'p HpaPod],
    samples: &Samples,
    resource: &str,
    startup: Startup,
) -> Groups<'p> {
    let mut g = Groups::default();
    for pod in pods {
        let name = pod.metadata.name.as_str();
        if pod.metadata.deletion_timestamp.is_some() || pod.status.phase == "Failed" {
            g.ignored.push(name);
            continue;
        }
        if pod.status.phase == "Pending" {
            g.unready.push(name);
            continue;
        }
        let Some(sample) = samples.get(name) else {
            g.missing.push(name);
            continue;
        };
        if resource == "cpu" && cpu_sample_unready(pod, sample, startup) {
            g.unready.push(name);
            continue;
        }
        g.ready += 1;
    }
    g
}

/// H-77: is this pod's CPU sample left out as a start-up artefact?
pub(crate) fn cpu_sample_unready(pod: &HpaPod, sample: &Sample, startup: Startup) -> bool {
    let (Some(ready), Some(start)) = (pod.ready_condition(), pod.status.start_time) else {
        return true;
    };
    let start = i128::from(start.unix_nanos());
    let transition = go_nanos(ready.last_transition_time);
    let now = i128::from(startup.now.unix_nanos());
    if start + i128::from(startup.cpu_initialization.as_nanos()) > now {
        // Still initializing: unready, or no full window since the last readiness change.
        ready.status == "False"
            || go_nanos(sample.timestamp) < transition + i128::from(sample.window.as_nanos())
    } else {
        // Past initialization: left out only if it never became ready since it started.
        ready.status == "False"
            && start + i128::from(startup.readiness_delay.as_nanos()) > transition
    }
}

/// H-95: pods in phase Running with a Ready condition that is True (terminating ones
/// included).
pub(crate) fn ready_count(pods: &[&HpaPod]) -> i64 {
    pods.iter()
        .filter(|p| p.status.phase == "Running" && p.is_ready())
        .count() as i64
}

/// H-80/H-81: each listed pod's request of `resource` in milli-units (all pods, ignored
/// and unready ones included); the first pod that lacks one fails the metric.
pub(crate) fn requests<'p>(
    pods: &[&'p HpaPod],
    container: &str,
    resource: &str,
    pod_level_gate: bool,
) -> Result<FxHashMap<&'p str, i64>, String> {
    let mut out = FxHashMap::default();
    out.reserve(pods.len());
    for pod in pods {
        let request = if pod_level_gate && container.is_empty() && has_pod_level_requests(pod) {
            pod_level_request(pod, resource)?
        } else {
            container_request(pod, container, resource)?
        };
        out.insert(pod.metadata.name.as_str(), request);
    }
    Ok(out)
}

/// The resources pod-level requests may name: cpu, memory and hugepages.
fn supported_pod_level(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

fn has_pod_level_requests(pod: &HpaPod) -> bool {
    pod.spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .is_some_and(|r| r.keys().any(|k| supported_pod_level(k)))
}

/// H-80: the sum over the containers and the restartable init containers (or the named
/// one alone) of each one's milli request.
fn container_request(pod: &HpaPod, container: &str, resource: &str) -> Result<i64, String> {
    let name = &pod.metadata.name;
    let candidates = pod.spec.containers.iter().chain(
        pod.spec
            .init_containers
            .iter()
            .filter(|c| c.is_restartable()),
    );
    let mut total: i64 = 0;
    for c in candidates {
        if container.is_empty() || container == c.name {
            let q = c.request(resource).ok_or_else(|| {
                format!(
                    "missing request for {resource} in container {} of Pod {name}",
                    c.name
                )
            })?;
            total = total.wrapping_add(q.milli_value());
        }
        if container == c.name {
            return Ok(total);
        }
    }
    if !container.is_empty() {
        return Err(format!("container {container} not found in Pod {name}"));
    }
    Ok(total)
}

/// H-81: the effective pod request (containers and sidecars, maxed with the init
/// containers' peak, replaced by the pod-level value, plus the overhead), exact, then in
/// milli-units.
fn pod_level_request(pod: &HpaPod, resource: &str) -> Result<i64, String> {
    let get = |c: &super::model::Container| c.request(resource).map(|q| q.nanos());
    let add = |a: Option<i128>, b: Option<i128>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    };
    let max = |a: Option<i128>, b: Option<i128>| match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (a, b) => a.or(b),
    };
    let mut total = pod
        .spec
        .containers
        .iter()
        .fold(None, |acc, c| add(acc, get(c)));
    let mut sidecars: Option<i128> = None;
    let mut init_peak: Option<i128> = None;
    for c in &pod.spec.init_containers {
        let during = if c.is_restartable() {
            total = add(total, get(c));
            sidecars = add(sidecars, get(c));
            sidecars
        } else {
            add(get(c), sidecars)
        };
        init_peak = max(init_peak, during);
    }
    total = max(total, init_peak);
    if let Some(q) = pod
        .spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get(resource))
    {
        if supported_pod_level(resource) {
            total = Some(q.nanos());
        }
    }
    if let Some(o) = pod.spec.overhead.as_ref().and_then(|o| o.get(resource)) {
        total = add(total, Some(o.nanos()));
    }
    total.map(crate::quantity::nanos_to_milli).ok_or_else(|| {
        format!(
            "missing pod-level request for {resource} in Pod {}",
            pod.metadata.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: Time = Time::from_unix_seconds(1_800_000_000);

    fn at(s: i64) -> String {
        NOW.plus(Duration::from_seconds(-s)).to_rfc3339()
    }

    fn pod(v: serde_json::Value) -> HpaPod {
        serde_json::from_value(v).unwrap()
    }

    fn startup() -> Startup {
        Startup {
            cpu_initialization: Duration::from_seconds(120),
            readiness_delay: Duration::from_seconds(10),
            now: NOW,
        }
    }

    fn sample(taken_ago: i64, window: i64) -> Samples<'static> {
        let mut s = Samples::default();
        s.insert(
            "p",
            Sample {
                value: 100,
                timestamp: Some(NOW.plus(Duration::from_seconds(-taken_ago))),
                window: Duration::from_seconds(window),
            },
        );
        s
    }

    fn class(p: &HpaPod, samples: &Samples<'_>, resource: &str) -> &'static str {
        let g = group(&[p], samples, resource, startup());
        match (g.ready, g.unready.len(), g.missing.len(), g.ignored.len()) {
            (1, 0, 0, 0) => "ready",
            (0, 1, 0, 0) => "unready",
            (0, 0, 1, 0) => "missing",
            (0, 0, 0, 1) => "ignored",
            _ => "?",
        }
    }

    fn running(start_ago: i64, ready: &str, transition_ago: i64) -> HpaPod {
        pod(
            json!({"metadata": {"name": "p"}, "status": {"phase": "Running", "startTime": at(start_ago),
            "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": at(transition_ago)}]}}),
        )
    }

    #[test]
    fn h76_h77_pods_are_grouped_as_upstream_groups_them() {
        // RT-22, row by row.
        let succeeded = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Succeeded"}}));
        assert_eq!(class(&succeeded, &sample(0, 60), "memory"), "ready");
        let no_condition = pod(
            json!({"metadata": {"name": "p"}, "status": {"phase": "Running", "startTime": at(60)}}),
        );
        assert_eq!(class(&no_condition, &sample(0, 60), "cpu"), "unready");
        assert_eq!(
            class(&running(60, "True", 30), &sample(0, 30), "cpu"),
            "ready"
        );
        assert_eq!(
            class(&running(60, "True", 30), &sample(0, 60), "cpu"),
            "unready"
        );
        assert_eq!(
            class(&running(600, "False", 594), &sample(0, 60), "cpu"),
            "unready"
        );
        assert_eq!(
            class(&running(180, "True", 180), &sample(120, 60), "cpu"),
            "ready"
        );
        assert_eq!(
            class(&running(600, "False", 540), &sample(0, 60), "cpu"),
            "ready"
        );
        // start + delay is not strictly after the transition: ready.
        assert_eq!(
            class(&running(600, "False", 590), &sample(0, 60), "cpu"),
            "ready"
        );
        assert_eq!(
            class(&running(600, "True", 600), &Samples::default(), "cpu"),
            "missing"
        );
        let pending = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Pending"}}));
        assert_eq!(class(&pending, &sample(0, 60), "cpu"), "unready");
        let deleting = pod(
            json!({"metadata": {"name": "p", "deletionTimestamp": at(1)}, "status": {"phase": "Running"}}),
        );
        assert_eq!(class(&deleting, &sample(0, 60), "cpu"), "ignored");
        let failed = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Failed"}}));
        assert_eq!(class(&failed, &sample(0, 60), "cpu"), "ignored");
        // H-78: for any other resource readiness is not consulted.
        assert_eq!(
            class(&running(60, "False", 30), &sample(0, 60), "memory"),
            "ready"
        );
    }

    fn request(v: serde_json::Value, container: &str, gate: bool) -> Result<i64, String> {
        let p = pod(v);
        requests(&[&p], container, "cpu", gate).map(|r| r["p"])
    }

    #[test]
    fn h80_h81_requests_sum_containers_and_sidecars_or_take_the_pod_level_value() {
        // RT-23.
        let two = json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "container1", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "container2", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(two.clone(), "", true), Ok(150));
        assert_eq!(request(two, "container1", true), Ok(100));
        let pod_level = json!({"metadata": {"name": "p"}, "spec": {"resources": {"requests": {"cpu": "800m"}},
            "containers": [{"name": "container1"}, {"name": "container2", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(pod_level.clone(), "", true), Ok(800));
        assert_eq!(
            request(pod_level, "", false),
            Err("missing request for cpu in container container1 of Pod p".into())
        );
        let init = json!({"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}],
            "initContainers": [{"name": "plain", "resources": {"requests": {"cpu": "20m"}}},
                               {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(init, "", true), Ok(150));
        let one = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app",
            "resources": {"requests": {"cpu": "100m"}}}]}});
        assert_eq!(
            request(one, "non-existent-container", true),
            Err("container non-existent-container not found in Pod p".into())
        );
        // T-14: pod-level requests add the overhead, container sums do not.
        let overhead = json!({"metadata": {"name": "p"}, "spec": {"resources": {"requests": {"cpu": "1"}},
            "overhead": {"cpu": "250m"}, "containers": [{"name": "app"}]}});
        assert_eq!(request(overhead, "", true), Ok(1250));
    }
}
