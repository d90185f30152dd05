//! The status the autoscaler writes (H-123..H-130): conditions set in place or appended,
//! removed keeping the others' order; the whole status rebuilt by `setStatus`; written
//! only when it differs semantically from the status read.

use crate::time::Time;

use super::model::{HpaCondition, HpaStatus, MetricStatus};

/// Condition types (H-129).
pub(crate) const ABLE_TO_SCALE: &str = "AbleToScale";
pub(crate) const SCALING_ACTIVE: &str = "ScalingActive";
pub(crate) const SCALING_LIMITED: &str = "ScalingLimited";
pub(crate) const SCALED_TO_ZERO: &str = "ScaledToZero";

/// H-125: sets a condition: the first of that type is overwritten in place (its
/// transition time moves only when the status changes), or a new one is appended.
pub(crate) fn set_condition(
    status: &mut HpaStatus,
    type_: &str,
    value: bool,
    reason: &str,
    message: String,
    now: Time,
) {
    let value = if value { "True" } else { "False" };
    let list = status.conditions.get_or_insert_with(Vec::new);
    let at = match list.iter().position(|c| c.type_ == type_) {
        Some(i) => i,
        None => {
            list.push(HpaCondition {
                type_: type_.to_owned(),
                ..HpaCondition::default()
            });
            list.len() - 1
        }
    };
    if let Some(c) = list.get_mut(at) {
        if c.status != value {
            c.last_transition_time = Some(now);
        }
        c.status = value.to_owned();
        c.reason = reason.to_owned();
        c.message = message;
    }
}

/// H-126: removes every condition of a type, keeping the order of the others.
pub(crate) fn remove_condition(status: &mut HpaStatus, type_: &str) {
    if let Some(list) = &mut status.conditions {
        list.retain(|c| c.type_ != type_);
    }
}

/// H-40: the first `ScaledToZero` condition is True.
pub(crate) fn scaled_to_zero(status: &HpaStatus) -> bool {
    status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == SCALED_TO_ZERO)
        .is_some_and(|c| c.status == "True")
}

/// H-123 `setStatus`: the status rebuilt from these values; the last scale time and the
/// conditions kept (the scale time set to now on a rescale), everything else dropped.
pub(crate) fn set_status(
    status: &mut HpaStatus,
    current: i32,
    desired: i32,
    metrics: Option<Vec<MetricStatus>>,
    rescaled: bool,
    now: Time,
) {
    let rebuilt = HpaStatus {
        observed_generation: None,
        last_scale_time: if rescaled {
            Some(now)
        } else {
            status.last_scale_time
        },
        current_replicas: current,
        desired_replicas: desired,
        current_metrics: metrics,
        conditions: status.conditions.take(),
    };
    *status = rebuilt;
}

/// H-127: upstream's `Semantic.DeepEqual`: quantities by value, times by instant, a nil
/// and an empty list (or map) alike.
pub(crate) fn semantically_equal(a: &HpaStatus, b: &HpaStatus) -> bool {
    normalized(a) == normalized(b)
}

fn normalized(s: &HpaStatus) -> HpaStatus {
    let mut s = s.clone();
    if s.conditions.as_ref().is_some_and(Vec::is_empty) {
        s.conditions = None;
    }
    match &mut s.current_metrics {
        Some(list) if list.is_empty() => s.current_metrics = None,
        Some(list) => list.iter_mut().for_each(normalize_metric),
        None => {}
    }
    s
}

fn normalize_metric(m: &mut MetricStatus) {
    let selectors = [
        m.object.as_mut().map(|o| &mut o.metric.selector),
        m.pods.as_mut().map(|p| &mut p.metric.selector),
        m.external.as_mut().map(|e| &mut e.metric.selector),
    ];
    for sel in selectors.into_iter().flatten().flatten() {
        if sel.match_labels.as_ref().is_some_and(|l| l.is_empty()) {
            sel.match_labels = None;
        }
        if sel.match_expressions.as_ref().is_some_and(Vec::is_empty) {
            sel.match_expressions = None;
        }
        for e in sel.match_expressions.iter_mut().flatten() {
            if e.values.as_ref().is_some_and(Vec::is_empty) {
                e.values = None;
            }
        }
    }
}
