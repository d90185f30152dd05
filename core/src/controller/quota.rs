//! Which pods a `pods` ResourceQuota charges (kube-apiserver's quota evaluator,
//! `QuotaV1Pod`). Not a controller decision, but the fact a fake API server (the
//! simulator's, the dev-server's) needs to answer a pod create with `403 exceeded quota`
//! exactly when kube-apiserver would: one rule, here, for both.
//!
//! A pod is charged unless
//! - it is terminal (phase `Failed` or `Succeeded`), or
//! - it has been terminating for longer than its grace period: `deletionTimestamp` plus
//!   `deletionGracePeriodSeconds` lies strictly before `now` (a pod stuck terminating on a
//!   lost node must not keep its owner from scaling up).
//!
//! So a pod that is terminating *within* its grace period still counts: a scale-down
//! followed by a scale-up can meet the quota until the old pods are gone.

use crate::model::Pod;
use crate::pods;
use crate::time::{Duration, Time};

/// `QuotaV1Pod`: is `pod` charged to a `pods` quota at `now`?
pub fn charged(pod: &Pod, now: Time) -> bool {
    if pods::is_terminal(pod) {
        return false;
    }
    match (
        pod.metadata.deletion_timestamp,
        pod.metadata.deletion_grace_period_seconds,
    ) {
        (Some(deleted), Some(grace)) => now <= deleted.plus(Duration::from_seconds(grace)),
        _ => true,
    }
}

/// The `pods` usage at `now`: how many of `pods` (a namespace's pods, for a quota of
/// that namespace) are charged.
pub fn used<'a>(pods: impl IntoIterator<Item = &'a Pod>, now: Time) -> usize {
    pods.into_iter().filter(|p| charged(p, now)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(phase: &str, deleted: Option<i64>, grace: Option<i64>) -> Pod {
        let mut v = serde_json::json!({
            "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "status": {"phase": phase}
        });
        if let Some(d) = deleted {
            v["metadata"]["deletionTimestamp"] = Time::from_unix_seconds(d).to_rfc3339().into();
        }
        if let Some(g) = grace {
            v["metadata"]["deletionGracePeriodSeconds"] = g.into();
        }
        crate::input::from_value(v).unwrap()
    }

    #[test]
    fn terminal_pods_are_not_charged() {
        let now = Time::from_unix_seconds(100);
        assert!(!charged(&pod("Succeeded", None, None), now));
        assert!(!charged(&pod("Failed", None, None), now));
        assert!(charged(&pod("Running", None, None), now));
        assert!(charged(&pod("Pending", None, None), now));
    }

    #[test]
    fn terminating_pods_are_charged_until_their_grace_period_is_over() {
        // Deleted at 100 s with 30 s of grace: charged through 130 s, not after.
        let p = pod("Running", Some(100), Some(30));
        assert!(charged(&p, Time::from_unix_seconds(110)));
        assert!(charged(&p, Time::from_unix_seconds(130)));
        assert!(!charged(&p, Time::from_unix_nanos(130_000_000_001)));
        // Without a grace period the timestamp alone does not release it.
        assert!(charged(
            &pod("Running", Some(100), None),
            Time::from_unix_seconds(1000)
        ));
        // Grace 0: released the moment after deletion.
        assert!(!charged(
            &pod("Running", Some(100), Some(0)),
            Time::from_unix_seconds(101)
        ));
    }

    #[test]
    fn usage_counts_the_charged_pods() {
        let now = Time::from_unix_seconds(200);
        let pods = [
            pod("Running", None, None),
            pod("Failed", None, None),
            pod("Running", Some(100), Some(30)),
            pod("Running", Some(190), Some(30)),
            pod("Pending", None, None),
        ];
        assert_eq!(used(&pods, now), 3);
    }
}
