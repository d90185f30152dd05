//! From the metrics' proposal to the replica count written (H-104..H-118): the legacy
//! path (no `spec.behavior`: stabilization over recent recommendations, the 2×/4 scale-up
//! cap, min/max) and the behavior path (stabilization windows up and down, Pods/Percent
//! policies over periods of remembered scale events, selectPolicy, min/max per
//! direction). Each returns the count with the conditions it sets.

use crate::time::{Duration, Time};

use super::calculator::{ceil_i32, go_i32};
use super::memory::HpaMemory;
use super::model::{Behavior, ScalingPolicy, ScalingRules};

/// Why the count was limited, and the message (H-106, H-112..H-114).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limit {
    pub reason: &'static str,
    pub message: &'static str,
}

pub(crate) const WITHIN_RANGE: Limit = Limit {
    reason: "DesiredWithinRange",
    message: "the desired count is within the acceptable range",
};
const SCALE_UP_LIMIT: Limit = Limit {
    reason: "ScaleUpLimit",
    message: "the desired replica count is increasing faster than the maximum scale rate",
};
const TOO_MANY: Limit = Limit {
    reason: "TooManyReplicas",
    message: "the desired replica count is more than the maximum replica count",
};
const SCALE_DOWN_LIMIT: Limit = Limit {
    reason: "ScaleDownLimit",
    message: "the desired replica count is decreasing faster than the maximum scale rate",
};
const TOO_FEW: Limit = Limit {
    reason: "TooFewReplicas",
    message: "the desired replica count is less than the minimum replica count",
};

/// How stabilization ended (the `AbleToScale` condition it sets, H-105, H-111).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stabilized {
    pub reason: &'static str,
    pub message: &'static str,
}

const READY_FOR_NEW_SCALE: Stabilized = Stabilized {
    reason: "ReadyForNewScale",
    message: "recommended size matches current size",
};
const DOWN_STABILIZED: Stabilized = Stabilized {
    reason: "ScaleDownStabilized",
    message: "recent recommendations were higher than current one, applying the highest recent recommendation",
};
const UP_STABILIZED: Stabilized = Stabilized {
    reason: "ScaleUpStabilized",
    message: "recent recommendations were lower than current one, applying the lowest recent recommendation",
};

/// The outcome of a normalization: the stabilized count, how, the final count, and
/// whether the limit changed it (`ScalingLimited` True).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Normalized {
    pub stabilized: i32,
    pub stabilization: Stabilized,
    pub desired: i32,
    pub limit: Limit,
}

impl Normalized {
    pub(crate) fn limited(&self) -> bool {
        self.desired != self.stabilized
    }
}

/// The bounds a normalization works in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub current: i32,
    pub min: i32,
    pub max: i32,
}

/// H-04: the legacy path's scale-up cap, `max(factor × current, minimum)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LegacyCap {
    pub factor: f64,
    pub minimum: f64,
}

/// H-104..H-107: the legacy path.
pub(crate) fn legacy(
    memory: &mut HpaMemory,
    b: Bounds,
    cap: LegacyCap,
    proposal: i32,
    window: Duration,
    now: Time,
) -> Normalized {
    let stabilized = memory.stabilize_legacy(proposal, window, now);
    let stabilization = if stabilized != proposal {
        DOWN_STABILIZED
    } else {
        READY_FOR_NEW_SCALE
    };
    let (desired, limit) = legacy_rules(b, cap, stabilized);
    Normalized {
        stabilized,
        stabilization,
        desired,
        limit,
    }
}

/// H-106 `convertDesiredReplicasWithRules`: min first, then the cap or max.
pub(crate) fn legacy_rules(b: Bounds, cap: LegacyCap, desired: i32) -> (i32, Limit) {
    let cap = go_i32((cap.factor * f64::from(b.current)).max(cap.minimum));
    let (allowed_max, max_limit) = if b.max > cap {
        (cap, SCALE_UP_LIMIT)
    } else {
        (b.max, TOO_MANY)
    };
    if desired < b.min {
        return (b.min, TOO_FEW);
    }
    if desired > allowed_max {
        return (allowed_max, max_limit);
    }
    (desired, WITHIN_RANGE)
}

/// H-109..H-114: the behavior path. `behavior` is defaulted (H-12); the scale-down
/// window, when unset, is the controller's (H-109).
pub(crate) fn with_behavior(
    memory: &mut HpaMemory,
    behavior: &Behavior,
    b: Bounds,
    proposal: i32,
    default_down_window: Duration,
    now: Time,
) -> Normalized {
    let up = behavior.scale_up.as_ref();
    let down = behavior.scale_down.as_ref();
    let (up_window, down_window) = windows(behavior, default_down_window);
    let stabilized =
        memory.stabilize_with_windows(b.current, proposal, up_window, down_window, now);
    let stabilization = if stabilized == proposal {
        READY_FOR_NEW_SCALE
    } else if proposal >= b.current {
        UP_STABILIZED
    } else {
        DOWN_STABILIZED
    };
    let (desired, limit) = behavior_rate(memory, up, down, b, stabilized, now);
    Normalized {
        stabilized,
        stabilization,
        desired,
        limit,
    }
}

/// H-109/H-110: the up and down stabilization windows (an unset scale-down window is the
/// controller's).
pub(crate) fn windows(behavior: &Behavior, default_down_window: Duration) -> (Duration, Duration) {
    (
        window(behavior.scale_up.as_ref()).unwrap_or(Duration::from_nanos(0)),
        window(behavior.scale_down.as_ref()).unwrap_or(default_down_window),
    )
}

fn window(rules: Option<&ScalingRules>) -> Option<Duration> {
    rules
        .and_then(|r| r.stabilization_window_seconds)
        .map(|s| Duration::from_seconds(i64::from(s)))
}

/// H-112..H-114 `convertDesiredReplicasWithBehaviorRate`.
pub(crate) fn behavior_rate(
    memory: &HpaMemory,
    up: Option<&ScalingRules>,
    down: Option<&ScalingRules>,
    b: Bounds,
    desired: i32,
    now: Time,
) -> (i32, Limit) {
    if desired > b.current {
        let limit = scale_up_limit(memory, b.current, up, now).max(b.current);
        let (allowed, why) = if b.max > limit {
            (limit, SCALE_UP_LIMIT)
        } else {
            (b.max, TOO_MANY)
        };
        if desired > allowed {
            return (allowed, why);
        }
    } else if desired < b.current {
        let limit = scale_down_limit(memory, b.current, down, now).min(b.current);
        let (allowed, why) = if b.min < limit {
            (limit, SCALE_DOWN_LIMIT)
        } else {
            (b.min, TOO_FEW)
        };
        if desired < allowed {
            return (allowed, why);
        }
    }
    (desired, WITHIN_RANGE)
}

/// The replicas at the start of a policy's period: current, less what was added and
/// plus what was removed inside it (H-115, H-116).
fn period_start(memory: &HpaMemory, current: i32, period: i32, now: Time) -> i32 {
    let (added, removed) = memory.changes_within(period, now);
    current.wrapping_sub(added).wrapping_add(removed)
}

/// H-115 `calculateScaleUpLimitWithScalingRules`: the highest count the scale-up
/// policies allow (`Max` the largest change, `Min` the smallest, `Disabled` none).
pub(crate) fn scale_up_limit(
    memory: &HpaMemory,
    current: i32,
    rules: Option<&ScalingRules>,
    now: Time,
) -> i32 {
    policy_limit(memory, current, rules, now, true)
}

/// H-116 `calculateScaleDownLimitWithBehaviors`: the lowest count the scale-down
/// policies allow.
pub(crate) fn scale_down_limit(
    memory: &HpaMemory,
    current: i32,
    rules: Option<&ScalingRules>,
    now: Time,
) -> i32 {
    policy_limit(memory, current, rules, now, false)
}

/// H-115/H-116: each policy's bound from its period's start; the largest change wins
/// unless `selectPolicy` is `Min`. Pods add or remove their value; Percent scales up
/// with ceil and down with truncation, in float64 (T-01).
fn policy_limit(
    memory: &HpaMemory,
    current: i32,
    rules: Option<&ScalingRules>,
    now: Time,
    up: bool,
) -> i32 {
    let select = rules
        .and_then(|r| r.select_policy.as_deref())
        .unwrap_or("Max");
    if select == "Disabled" {
        return current;
    }
    // The largest change is the highest bound going up and the lowest going down.
    let highest = (select == "Min") != up;
    let mut result = if highest { i32::MIN } else { i32::MAX };
    let mut proposed = 0;
    for p in rules
        .and_then(|r| r.policies.as_deref())
        .unwrap_or_default()
    {
        if let Some(bound) = policy_bound(memory, current, p, now, up).1 {
            proposed = bound;
        }
        result = if highest {
            result.max(proposed)
        } else {
            result.min(proposed)
        };
    }
    result
}

/// H-115/H-116 for one policy: the replicas at its period's start, and the bound it
/// allows from there (`None` for an unknown type, which upstream skips).
pub(crate) fn policy_bound(
    memory: &HpaMemory,
    current: i32,
    p: &ScalingPolicy,
    now: Time,
    up: bool,
) -> (i32, Option<i32>) {
    let start = period_start(memory, current, p.period_seconds, now);
    let fraction = f64::from(p.value) / 100.0;
    let bound = match (p.type_.as_str(), up) {
        ("Pods", true) => Some(start.wrapping_add(p.value)),
        ("Pods", false) => Some(start.wrapping_sub(p.value)),
        ("Percent", true) => Some(ceil_i32(f64::from(start) * (1.0 + fraction))),
        ("Percent", false) => Some(go_i32(f64::from(start) * (1.0 - fraction))),
        _ => None,
    };
    (start, bound)
}

/// H-121: the longest policy period of a direction (0 without policies).
pub(crate) fn longest_period(rules: Option<&ScalingRules>) -> i32 {
    rules
        .and_then(|r| r.policies.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|p| p.period_seconds)
        .fold(0, i32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpa::memory::ScaleEvent;
    use crate::hpa::model::ScalingPolicy;

    const NOW: Time = Time::from_unix_seconds(1_800_000_000);
    const TEST_CAP: LegacyCap = LegacyCap {
        factor: 8.0,
        minimum: 4.0,
    };

    fn b(current: i32, min: i32, max: i32) -> Bounds {
        Bounds { current, min, max }
    }

    fn rules(select: &str, policies: &[(&str, i32, i32)]) -> ScalingRules {
        ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: Some(select.into()),
            policies: Some(
                policies
                    .iter()
                    .map(|&(t, v, p)| ScalingPolicy {
                        type_: t.into(),
                        value: v,
                        period_seconds: p,
                    })
                    .collect(),
            ),
            tolerance: None,
        }
    }

    /// Events of `changes` spread over the last `over` seconds (as upstream's test does).
    fn spread(changes: &[i32], over: i64) -> Vec<ScaleEvent> {
        let n = changes.len() as i64;
        changes
            .iter()
            .enumerate()
            .map(|(i, &c)| ScaleEvent {
                replica_change: c,
                timestamp: NOW.plus(Duration::from_seconds(
                    -over + over / (2 * n) + over / n * i as i64,
                )),
                outdated: false,
            })
            .collect()
    }

    #[test]
    fn h106_legacy_rules_check_min_first_then_the_cap_or_max() {
        // HT-46 (upstream's test factor 8).
        assert_eq!(legacy_rules(b(5, 3, 8), TEST_CAP, 7), (7, WITHIN_RANGE));
        assert_eq!(legacy_rules(b(3, 2, 8), TEST_CAP, 1), (2, TOO_FEW));
        assert_eq!(legacy_rules(b(1, 0, 10), TEST_CAP, 0), (0, WITHIN_RANGE));
        assert_eq!(legacy_rules(b(20, 1, 10), TEST_CAP, 1000), (10, TOO_MANY));
        assert_eq!(
            legacy_rules(b(3, 1, 2000), TEST_CAP, 1000),
            (24, SCALE_UP_LIMIT)
        );
        // kube-controller-manager's own factor: double, or 4.
        let kcm = LegacyCap {
            factor: 2.0,
            minimum: 4.0,
        };
        assert_eq!(legacy_rules(b(1, 1, 100), kcm, 50), (4, SCALE_UP_LIMIT));
        assert_eq!(legacy_rules(b(10, 1, 100), kcm, 50), (20, SCALE_UP_LIMIT));
    }

    #[test]
    fn h115_h116_policy_limits_select_the_largest_or_smallest_change() {
        // HT-47.
        let m = HpaMemory::default();
        let up = rules("Min", &[("Pods", 2, 60), ("Percent", 50, 60)]);
        assert_eq!(scale_up_limit(&m, 1, Some(&up), NOW), 2);
        let down = rules("Min", &[("Pods", 2, 60), ("Percent", 50, 60)]);
        assert_eq!(scale_down_limit(&m, 5, Some(&down), NOW), 3);
        let disabled = rules("Disabled", &[("Pods", 2, 60)]);
        assert_eq!(scale_up_limit(&m, 7, Some(&disabled), NOW), 7);
        assert_eq!(scale_down_limit(&m, 7, Some(&disabled), NOW), 7);
    }

    #[test]
    fn h143_percent_policies_are_float64_not_integer_arithmetic() {
        let m = HpaMemory::default();
        let up = |current, percent| {
            scale_up_limit(
                &m,
                current,
                Some(&rules("Max", &[("Percent", percent, 15)])),
                NOW,
            )
        };
        let down = |current, percent| {
            scale_down_limit(
                &m,
                current,
                Some(&rules("Max", &[("Percent", percent, 15)])),
                NOW,
            )
        };
        assert_eq!(up(50, 10), 56, "ceil(50 × 1.1) is 56 in float64");
        assert_eq!(up(100, 10), 111);
        assert_eq!(up(25, 12), 29);
        assert_eq!(up(50, 12), 57);
        assert_eq!(down(5, 80), 0, "trunc(5 × 0.2) is 0 in float64");
        assert_eq!(down(10, 80), 1);
        assert_eq!(down(10, 90), 0);
        assert_eq!(down(20, 80), 3);
    }

    #[test]
    fn h112_h113_behavior_rate_limits_one_direction_at_a_time() {
        // HT-50, a few rows.
        let m = HpaMemory::default();
        let def_up = rules("Max", &[("Pods", 4, 15), ("Percent", 100, 15)]);
        let def_down = rules("Max", &[("Percent", 100, 15)]);
        let rate = |m: &HpaMemory, up: &ScalingRules, down: &ScalingRules, bounds, d| {
            behavior_rate(m, Some(up), Some(down), bounds, d, NOW)
        };
        assert_eq!(
            rate(&m, &def_up, &def_down, b(5, 3, 8), 7),
            (7, WITHIN_RANGE)
        );
        assert_eq!(rate(&m, &def_up, &def_down, b(3, 2, 8), 1), (2, TOO_FEW));
        assert_eq!(
            rate(&m, &def_up, &def_down, b(20, 1, 10), 1000),
            (10, TOO_MANY)
        );
        assert_eq!(rate(&m, &def_up, &def_down, b(10, 1, 1000), 50).0, 20);
        let one_percent = rules("Max", &[("Percent", 1, 60)]);
        assert_eq!(
            rate(&m, &one_percent, &def_down, b(3, 1, 1000), 1000),
            (4, SCALE_UP_LIMIT)
        );
        let down_pods = rules("Max", &[("Pods", 20, 60), ("Percent", 1, 60)]);
        assert_eq!(
            rate(&m, &def_up, &down_pods, b(100, 1, 1000), 2),
            (80, SCALE_DOWN_LIMIT)
        );
        // Events inside the period move its start: up events 1, 5, 9 within 120 s, Pods 150 per
        // 120 s: 100 - 15 + 150 = 235.
        let with_up = HpaMemory {
            scale_up_events: Some(spread(&[1, 5, 9], 120)),
            ..HpaMemory::default()
        };
        let pods150 = rules("Max", &[("Pods", 150, 120)]);
        assert_eq!(
            rate(&with_up, &pods150, &def_down, b(100, 1, 1000), 500).0,
            235
        );
        // A limit on the wrong side of current is clamped to current (Pods 5 per 120 s).
        let pods5 = rules("Max", &[("Pods", 5, 120)]);
        assert_eq!(
            rate(&with_up, &pods5, &def_down, b(100, 1, 1000), 500),
            (100, SCALE_UP_LIMIT)
        );
    }

    #[test]
    fn h118_percent_only_scale_up_cannot_leave_zero() {
        let m = HpaMemory::default();
        let percent = rules("Max", &[("Percent", 100, 15)]);
        assert_eq!(scale_up_limit(&m, 0, Some(&percent), NOW), 0);
    }
}
