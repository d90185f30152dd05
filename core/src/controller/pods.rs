//! Pod predicates: ready, ready time, available, active, terminating (R-01..R-07), the
//! deletion-cost annotation, restart counts, and the counts a status
//! reports over a set of pods ([`PodCounts`]).

use crate::model::Pod;
use crate::time::{Duration, Time};

/// Counts over a set of pods as a status reports them: the active pods
/// those ready and available at `now`, and the terminating ones
/// (R-06; each user says which terminating pods it counts: the explanation only those a
/// status would report, R-81, the simulator every one its owner controls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PodCounts {
    /// Active pods.
    pub active: usize,
    /// Ready active pods.
    pub ready: usize,
    /// Ready for at least `minReadySeconds` at `now`.
    pub available: usize,
    /// Terminating pods.
    pub terminating: usize,
}

impl PodCounts {
    /// Counts one active pod: active, and ready and available as it is at `now`.
    pub fn add_active(&mut self, pod: &Pod, min_ready_seconds: i32, now: Time) {
        self.active += 1;
        self.ready += usize::from(is_ready(pod));
        self.available += usize::from(is_available(pod, min_ready_seconds, now));
    }
}

/// C-5: the annotation whose int32 value orders pods on scale-down.
pub const DELETION_COST_ANNOTATION: &str = "controller.kubernetes.io/pod-deletion-cost";

/// in one look: `None` when not ready, else `Some(ready time)` (the inner
/// `None` when the time is zero). The first `Ready` condition decides.
pub fn ready_state(pod: &Pod) -> Option<Option<Time>> {
    let cond = pod.status.conditions.iter().find(|c| c.type_ == "Ready")?;
    (cond.status == "True").then_some(cond.last_transition_time)
}

/// ready iff the first `Ready` condition has status `True` (phase not consulted).
pub fn is_ready(pod: &Pod) -> bool {
    ready_state(pod).is_some()
}

/// the `lastTransitionTime` of the Ready=True condition; `None` if not ready or zero.
pub fn ready_time(pod: &Pod) -> Option<Time> {
    ready_state(pod).flatten()
}

/// ready, and either `minReadySeconds == 0` or ready since at least that long
/// (the boundary is inclusive, `<=`, since ~1.34). A zero ready time with
/// `minReadySeconds > 0` is never available.
pub fn is_available(pod: &Pod, min_ready_seconds: i32, now: Time) -> bool {
    match ready_state(pod) {
        None => false,
        Some(_) if min_ready_seconds == 0 => true,
        Some(None) => false,
        Some(Some(t)) => t.plus(Duration::from_seconds(i64::from(min_ready_seconds))) <= now,
    }
}

/// phase Succeeded or Failed.
pub fn is_terminal(pod: &Pod) -> bool {
    matches!(pod.phase(), "Succeeded" | "Failed")
}

/// not terminal and no deletion timestamp.
pub fn is_active(pod: &Pod) -> bool {
    !is_terminal(pod) && pod.metadata.deletion_timestamp.is_none()
}

/// not terminal but with a deletion timestamp.
pub fn is_terminating(pod: &Pod) -> bool {
    !is_terminal(pod) && pod.metadata.deletion_timestamp.is_some()
}

/// C-9: Pending → 0, Unknown → 1, Running → 2, anything else (including "") → 0.
pub fn phase_ordinal(pod: &Pod) -> u8 {
    match pod.phase() {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    }
}

/// the pod-deletion-cost annotation as upstream parses it. Absent or invalid ⇒ 0.
/// Valid: `"0"`, or a first character of `-` or `1`–`9`, then a base-10 int32
/// (`"-007"` ⇒ −7, `"007"` ⇒ 0, `"+5"` ⇒ 0, `"2147483648"` ⇒ 0).
pub fn deletion_cost(pod: &Pod) -> i32 {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DELETION_COST_ANNOTATION))
        .map_or(0, |v| parse_deletion_cost(v))
}

/// R-60 on the raw annotation value.
pub fn parse_deletion_cost(value: &str) -> i32 {
    let first_ok = match value.as_bytes().first() {
        Some(b'-') | Some(b'1'..=b'9') => true,
        Some(b'0') => value == "0",
        _ => false,
    };
    if !first_ok {
        return 0;
    }
    // strconv.ParseInt(v, 10, 32): optional sign, then digits only (no '_' in base 10).
    let digits = value.strip_prefix('-').unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    value.parse::<i32>().unwrap_or(0)
}

/// the highest restart count over regular containers.
pub fn max_container_restarts(pod: &Pod) -> i32 {
    pod.status
        .container_statuses
        .iter()
        .map(|c| c.restart_count)
        .max()
        .unwrap_or(0)
        .max(0)
}

/// the highest restart count over sidecars: init containers whose spec entry has
/// `restartPolicy: Always`.
pub fn max_sidecar_restarts(pod: &Pod) -> i32 {
    let sidecars = &pod.spec.init_containers;
    pod.status
        .init_container_statuses
        .iter()
        .filter(|s| {
            sidecars
                .iter()
                .any(|c| c.name == s.name && c.restart_policy.as_deref() == Some("Always"))
        })
        .map(|c| c.restart_count)
        .max()
        .unwrap_or(0)
        .max(0)
}
