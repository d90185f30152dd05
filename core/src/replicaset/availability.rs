//! When to look again for availability (R-83, S-14): pods that are ready but not yet
//! available for `minReadySeconds` become available at a known instant.

use crate::model::{Pod, ReplicaSetStatus};
use crate::pods;
use crate::time::{Duration, Time};

/// R-83 per pod: the time until it becomes available, if it is ready, `minReadySeconds >
/// 0`, its ready time is non-zero and that instant is still ahead (`> 0`).
pub fn next_check(pod: &Pod, min_ready_seconds: i32, now: Time) -> Option<Duration> {
    if min_ready_seconds <= 0 || !pods::is_ready(pod) {
        return None;
    }
    let ready_at = pods::ready_time(pod)?;
    let available_at = ready_at.plus(Duration::from_seconds(i64::from(min_ready_seconds)));
    let left = available_at.since(now);
    (left > Duration::ZERO).then_some(left)
}

/// R-83 (`FindMinNextPodAvailabilityCheck`): the smallest positive wait over `pods`
/// evaluated at `last_evaluation`, re-evaluated at `now`: still positive ⇒ that wait,
/// otherwise zero (check now). `None` when no pod is waiting.
pub fn min_next_check(
    pods: &[&Pod],
    min_ready_seconds: i32,
    last_evaluation: Time,
    now: Time,
) -> Option<Duration> {
    let mut best: Option<(&Pod, Duration)> = None;
    for p in pods {
        if let Some(d) = next_check(p, min_ready_seconds, last_evaluation) {
            if best.is_none_or(|(_, b)| d < b) {
                best = Some((p, d));
            }
        }
    }
    let (pod, _) = best?;
    Some(next_check(pod, min_ready_seconds, now).unwrap_or(Duration::ZERO))
}

/// S-14: after a successful sync, requeue after the next availability check when
/// `minReadySeconds > 0` and some ready pods are not yet available; fall back to
/// `minReadySeconds` when no pod reports a time.
pub fn requeue_after(
    status: &ReplicaSetStatus,
    pods: &[&Pod],
    min_ready_seconds: i32,
    now: Time,
) -> Option<Duration> {
    requeue_after_next_check(
        status,
        min_next_check(pods, min_ready_seconds, now, now),
        min_ready_seconds,
    )
}

/// [`requeue_after`] given the pods' nearest check ([`min_next_check`] evaluated at the
/// sync's `now`, which is the smallest [`next_check`] over them).
pub(crate) fn requeue_after_next_check(
    status: &ReplicaSetStatus,
    next_check: Option<Duration>,
    min_ready_seconds: i32,
) -> Option<Duration> {
    if min_ready_seconds <= 0 || status.ready_replicas == status.available_replicas {
        return None;
    }
    Some(next_check.unwrap_or(Duration::from_seconds(i64::from(min_ready_seconds))))
}
