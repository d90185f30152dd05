//! The events the autoscaler records (H-131..H-133): reasons, and the messages they
//! carry. Events go through the host's recorder (aggregation, rate limits) as any other.

use serde::{Deserialize, Serialize};

use crate::controller::event_correlation::{NORMAL, WARNING};

/// One event: `Normal` or `Warning`, a reason, a message.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HpaEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The reason, as `SuccessfulRescale` (H-132).
    pub reason: String,
    /// The message.
    pub message: String,
}

impl HpaEvent {
    pub(crate) fn warning(reason: &str, message: impl Into<String>) -> Self {
        HpaEvent {
            type_: WARNING.into(),
            reason: reason.into(),
            message: message.into(),
        }
    }

    pub(crate) fn normal(reason: &str, message: impl Into<String>) -> Self {
        HpaEvent {
            type_: NORMAL.into(),
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// H-132 reasons.
pub(crate) const FAILED_GET_SCALE: &str = "FailedGetScale";
pub(crate) const SELECTOR_REQUIRED: &str = "SelectorRequired";
pub(crate) const INVALID_SELECTOR: &str = "InvalidSelector";
pub(crate) const AMBIGUOUS_SELECTOR: &str = "AmbiguousSelector";
pub(crate) const FAILED_COMPUTE_METRICS_REPLICAS: &str = "FailedComputeMetricsReplicas";
pub(crate) const FAILED_RESCALE: &str = "FailedRescale";
pub(crate) const SUCCESSFUL_RESCALE: &str = "SuccessfulRescale";
pub(crate) const FAILED_UPDATE_STATUS: &str = "FailedUpdateStatus";

/// H-47/H-42/H-43/H-49: why a rescale happened, as its event says.
pub(crate) fn above_target(metric: &str) -> String {
    format!("{metric} above target")
}
pub(crate) const BELOW_TARGET: &str = "All metrics below target";
pub(crate) const ABOVE_MAX: &str = "Current number of replicas above Spec.MaxReplicas";
pub(crate) const BELOW_MIN: &str = "Current number of replicas below Spec.MinReplicas";

/// H-53 / H-52 messages.
pub(crate) fn rescaled(size: i32, reason: &str) -> String {
    format!("New size: {size}; reason: {reason}")
}
pub(crate) fn rescale_failed(size: i32, reason: &str, error: &str) -> String {
    format!("New size: {size}; reason: {reason}; error: {error}")
}
