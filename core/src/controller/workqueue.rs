//! The numbers of client-go's default controller rate limiter
//! (`workqueue.DefaultTypedControllerRateLimiter`), which the ReplicaSet and Deployment
//! controllers' queues use: a key's retry waits the longer of its exponential backoff
//! (base · 2^failures, capped) and the overall token bucket. One table, read by the
//! simulator's queue and, through `controllerQueueLimits()`, by the operator's.

use serde::Serialize;

/// The rate limiter's parameters.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueLimits {
    /// The first retry's backoff (5 ms), doubled per failure.
    pub base_delay_ms: u64,
    /// The backoff's cap (1000 s).
    pub max_delay_ms: u64,
    /// The bucket's tokens per second (10).
    pub qps: u64,
    /// The bucket's burst (100).
    pub burst: u64,
}

/// `workqueue.DefaultTypedControllerRateLimiter()`.
pub const CONTROLLER_QUEUE_LIMITS: QueueLimits = QueueLimits {
    base_delay_ms: 5,
    max_delay_ms: 1_000_000,
    qps: 10,
    burst: 100,
};
