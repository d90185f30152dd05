//! The controller's work queue, as client-go's rate-limited queue behaves: a key is
//! queued at most once, a key being processed is re-queued when done, delayed adds keep
//! the earliest time, and `add_rate_limited` waits the longer of the per-key exponential
//! backoff (5 ms · 2^failures, at most 1000 s) and the overall token bucket (10 per
//! second, burst 100) — `workqueue.DefaultControllerRateLimiter()`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use super::clock::Ms;

use replicore::workqueue::CONTROLLER_QUEUE_LIMITS as LIMITS;

/// Per-key exponential backoff bounds (the engine's table).
pub const BACKOFF_BASE_MS: Ms = LIMITS.base_delay_ms;
pub const BACKOFF_MAX_MS: Ms = LIMITS.max_delay_ms;
/// The overall bucket: tokens per second and burst.
pub const BUCKET_QPS: u64 = LIMITS.qps;
pub const BUCKET_BURST: u64 = LIMITS.burst;

/// A token bucket in thousandths of a token (exact integer arithmetic).
#[derive(Clone, Debug)]
pub struct TokenBucket {
    /// Millitokens; negative when reservations are outstanding.
    milli: i64,
    last: Ms,
}

impl Default for TokenBucket {
    fn default() -> Self {
        TokenBucket {
            milli: (BUCKET_BURST * 1000) as i64,
            last: 0,
        }
    }
}

impl TokenBucket {
    fn refill(&mut self, now: Ms) {
        let elapsed = now.saturating_sub(self.last);
        self.last = self.last.max(now);
        // BUCKET_QPS tokens per 1000 ms = BUCKET_QPS millitokens per ms.
        let add = i64::try_from(elapsed.saturating_mul(BUCKET_QPS)).unwrap_or(i64::MAX);
        self.milli = self
            .milli
            .saturating_add(add)
            .min((BUCKET_BURST * 1000) as i64);
    }

    /// `Reserve().Delay()`: takes a token now and says how long until it is really there.
    pub fn reserve(&mut self, now: Ms) -> Ms {
        self.refill(now);
        self.milli -= 1000;
        if self.milli >= 0 {
            0
        } else {
            (self.milli.unsigned_abs()).div_ceil(BUCKET_QPS)
        }
    }

    /// Whole tokens available at `now` (0 when reservations are outstanding).
    pub fn tokens(&self, now: Ms) -> u64 {
        let mut b = self.clone();
        b.refill(now);
        u64::try_from(b.milli / 1000).unwrap_or(0)
    }
}

/// The work queue with its rate limiter and delayed adds.
#[derive(Clone, Debug, Default)]
pub struct WorkQueue {
    queue: VecDeque<String>,
    dirty: BTreeSet<String>,
    processing: BTreeSet<String>,
    /// Delayed adds: key → the time it is due (the earliest asked for).
    waiting: BTreeMap<String, Ms>,
    failures: BTreeMap<String, u32>,
    bucket: TokenBucket,
}

/// The queue as `SimState.queue` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QueueState {
    pub ready: Vec<String>,
    pub processing: Vec<String>,
    pub delayed: Vec<DelayedEntry>,
    pub failures: BTreeMap<String, u32>,
    pub tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DelayedEntry {
    pub key: String,
    pub t: Ms,
}

impl WorkQueue {
    /// `Add`: queue the key unless it is already queued; a key being processed is queued
    /// again when `done`.
    pub fn add(&mut self, key: &str) {
        if !self.dirty.insert(key.to_owned()) {
            return;
        }
        if self.processing.contains(key) {
            return;
        }
        self.queue.push_back(key.to_owned());
    }

    /// `AddAfter`: `Some(t)` when the caller must call [`WorkQueue::fire`] at `t`; `None`
    /// when the key was added now or an earlier delayed add already covers it.
    pub fn add_after(&mut self, key: &str, delay: Ms, now: Ms) -> Option<Ms> {
        if delay == 0 {
            self.add(key);
            return None;
        }
        let due = now.saturating_add(delay);
        match self.waiting.get(key) {
            Some(t) if *t <= due => None,
            _ => {
                self.waiting.insert(key.to_owned(), due);
                Some(due)
            }
        }
    }

    /// A delayed add came due at `t` (stale timers, superseded by an earlier one, do nothing).
    pub fn fire(&mut self, key: &str, t: Ms) {
        if self.waiting.get(key) == Some(&t) {
            self.waiting.remove(key);
            self.add(key);
        }
    }

    /// The rate limiter's `When`: the longer of the key's backoff and the bucket's delay.
    pub fn when(&mut self, key: &str, now: Ms) -> Ms {
        let n = self.failures.entry(key.to_owned()).or_insert(0);
        let exp = *n;
        *n = n.saturating_add(1);
        let backoff = if exp >= 40 {
            BACKOFF_MAX_MS
        } else {
            BACKOFF_BASE_MS
                .saturating_mul(1u64 << exp)
                .min(BACKOFF_MAX_MS)
        };
        backoff.max(self.bucket.reserve(now))
    }

    /// `AddRateLimited`: the delay chosen, and when to fire (as `add_after`).
    pub fn add_rate_limited(&mut self, key: &str, now: Ms) -> (Ms, Option<Ms>) {
        let delay = self.when(key, now);
        (delay, self.add_after(key, delay, now))
    }

    /// `Forget`: the key's backoff starts over.
    pub fn forget(&mut self, key: &str) {
        self.failures.remove(key);
    }

    /// `Get`: the next key to process.
    pub fn get(&mut self) -> Option<String> {
        let key = self.queue.pop_front()?;
        self.dirty.remove(&key);
        self.processing.insert(key.clone());
        Some(key)
    }

    /// `Done`: processing finished; a key added meanwhile is queued again.
    pub fn done(&mut self, key: &str) {
        self.processing.remove(key);
        if self.dirty.contains(key) {
            self.queue.push_back(key.to_owned());
        }
    }

    /// Keys ready to be processed.
    pub fn ready_len(&self) -> usize {
        self.queue.len()
    }

    pub fn failures(&self, key: &str) -> u32 {
        self.failures.get(key).copied().unwrap_or(0)
    }

    pub fn state(&self, now: Ms) -> QueueState {
        let mut delayed: Vec<DelayedEntry> = self
            .waiting
            .iter()
            .map(|(k, t)| DelayedEntry {
                key: k.clone(),
                t: *t,
            })
            .collect();
        replicore::sort::sort_by(&mut delayed, |a, b| (a.t, &a.key).cmp(&(b.t, &b.key)));
        QueueState {
            ready: self.queue.iter().cloned().collect(),
            processing: self.processing.iter().cloned().collect(),
            delayed,
            failures: self.failures.clone(),
            tokens: self.bucket.tokens(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_queued_once_and_requeued_after_processing() {
        let mut q = WorkQueue::default();
        q.add("a");
        q.add("b");
        q.add("a");
        assert_eq!(q.ready_len(), 2);
        assert_eq!(q.get().as_deref(), Some("a"));
        q.add("a"); // while processing: parked
        assert_eq!(q.ready_len(), 1);
        q.done("a");
        assert_eq!(q.get().as_deref(), Some("b"));
        assert_eq!(q.get().as_deref(), Some("a"));
        assert_eq!(q.get(), None);
    }

    #[test]
    fn exponential_backoff_doubles_from_5ms_to_1000s_and_forget_resets() {
        let mut q = WorkQueue::default();
        // Far apart in time so the bucket never binds.
        let delays: Vec<Ms> = (0..20).map(|i| q.when("k", i * 10_000_000)).collect();
        assert_eq!(&delays[..4], &[5, 10, 20, 40]);
        assert_eq!(delays[18], 1_000_000);
        assert_eq!(delays[19], 1_000_000);
        q.forget("k");
        assert_eq!(q.when("k", 300_000_000), 5);
    }

    #[test]
    fn the_bucket_allows_a_burst_of_100_then_10_per_second() {
        let mut b = TokenBucket::default();
        for _ in 0..100 {
            assert_eq!(b.reserve(0), 0);
        }
        assert_eq!(b.reserve(0), 100);
        assert_eq!(b.reserve(0), 200);
        assert_eq!(b.tokens(0), 0);
        // 1 s later: 10 tokens refilled, 2 owed.
        assert_eq!(b.reserve(1000), 0);
        assert_eq!(b.tokens(100_000), 100);
    }

    #[test]
    fn delayed_adds_keep_the_earliest_time() {
        let mut q = WorkQueue::default();
        assert_eq!(q.add_after("k", 100, 0), Some(100));
        assert_eq!(q.add_after("k", 200, 0), None);
        assert_eq!(q.add_after("k", 50, 0), Some(50));
        q.fire("k", 100); // superseded timer
        assert_eq!(q.ready_len(), 0);
        assert_eq!(
            q.state(0).delayed,
            vec![DelayedEntry {
                key: "k".into(),
                t: 50
            }]
        );
        q.fire("k", 50);
        assert_eq!(q.ready_len(), 1);
        assert_eq!(q.add_after("j", 0, 0), None);
        assert_eq!(q.ready_len(), 2);
    }
}
