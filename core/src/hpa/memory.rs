//! The autoscaler's memory: what upstream keeps in process per HPA key (H-05) and the
//! engine takes as an input and gives back as an output of every sync. The recent
//! recommendations (H-104, H-108, H-110) and the scale events (H-117, H-119..H-122).

use serde::{Deserialize, Serialize};

use crate::time::{Duration, Time};

/// The memory of one HPA key. `None` in a list is "no entry in upstream's map" (the first
/// sync after a controller start), which is not the same as an empty list (H-108).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaMemory {
    #[serde(default)]
    pub recommendations: Option<Vec<Recommendation>>,
    #[serde(default)]
    pub scale_up_events: Option<Vec<ScaleEvent>>,
    #[serde(default)]
    pub scale_down_events: Option<Vec<ScaleEvent>>,
}

/// A remembered recommendation (upstream `timestampedRecommendation`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    pub recommendation: i32,
    pub timestamp: Time,
}

/// A remembered scale event (upstream `timestampedScaleEvent`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleEvent {
    pub replica_change: i32,
    pub timestamp: Time,
    #[serde(default)]
    pub outdated: bool,
}

impl HpaMemory {
    /// H-108: the first sync that reads the scale remembers the current size, unless a
    /// list (even an empty one) exists.
    pub(crate) fn record_initial(&mut self, current: i32, now: Time) {
        if self.recommendations.is_none() {
            self.recommendations = Some(vec![Recommendation {
                recommendation: current,
                timestamp: now,
            }]);
        }
    }

    /// H-104 (legacy): the max of `proposal` and every recommendation not older than the
    /// window (an entry exactly at the cutoff counts); then `proposal` is remembered over
    /// the last old entry, or appended.
    pub(crate) fn stabilize_legacy(&mut self, proposal: i32, window: Duration, now: Time) -> i32 {
        let cutoff = now.plus(Duration::from_nanos(-window.as_nanos()));
        let list = self.recommendations.get_or_insert_with(Vec::new);
        let mut max = proposal;
        let mut old = None;
        for (i, rec) in list.iter().enumerate() {
            if rec.timestamp < cutoff {
                old = Some(i);
            } else if rec.recommendation > max {
                max = rec.recommendation;
            }
        }
        remember(
            list,
            old,
            Recommendation {
                recommendation: proposal,
                timestamp: now,
            },
        );
        max
    }

    /// H-110 (behavior): the lowest recommendation inside the up window and the highest
    /// inside the down window (strictly newer than each cutoff) bound `current`; entries
    /// older than both windows are old, and `proposal` is remembered over the last old
    /// entry, or appended.
    pub(crate) fn stabilize_with_windows(
        &mut self,
        current: i32,
        proposal: i32,
        up_window: Duration,
        down_window: Duration,
        now: Time,
    ) -> i32 {
        let up_cut = now.plus(Duration::from_nanos(-up_window.as_nanos()));
        let down_cut = now.plus(Duration::from_nanos(-down_window.as_nanos()));
        let list = self.recommendations.get_or_insert_with(Vec::new);
        let (mut up, mut down) = (proposal, proposal);
        let mut old = None;
        for (i, rec) in list.iter().enumerate() {
            if rec.timestamp > up_cut {
                up = up.min(rec.recommendation);
            }
            if rec.timestamp > down_cut {
                down = down.max(rec.recommendation);
            }
            if rec.timestamp < up_cut && rec.timestamp < down_cut {
                old = Some(i);
            }
        }
        let mut result = current;
        if result < up {
            result = up;
        }
        if result > down {
            result = down;
        }
        remember(
            list,
            old,
            Recommendation {
                recommendation: proposal,
                timestamp: now,
            },
        );
        result
    }

    /// H-117 over both lists: (replicas added, replicas removed) by events strictly newer
    /// than `now - period`, whatever their `outdated` flag. Sums wrap as Go's int32.
    pub(crate) fn changes_within(&self, period_seconds: i32, now: Time) -> (i32, i32) {
        let cutoff = now.plus(Duration::from_seconds(-i64::from(period_seconds)));
        let sum = |list: &Option<Vec<ScaleEvent>>| {
            list.iter()
                .flatten()
                .filter(|e| e.timestamp > cutoff)
                .fold(0_i32, |acc, e| acc.wrapping_add(e.replica_change))
        };
        (sum(&self.scale_up_events), sum(&self.scale_down_events))
    }

    /// H-119..H-121: after a successful scale write with a behavior, the change is
    /// remembered in its direction's list: events older than that direction's longest
    /// policy period are flagged outdated, and the new event overwrites the last outdated
    /// one, or is appended.
    pub(crate) fn store_scale_event(
        &mut self,
        previous: i32,
        new: i32,
        longest_period: i32,
        now: Time,
    ) {
        let (list, change) = if new > previous {
            (&mut self.scale_up_events, new.wrapping_sub(previous))
        } else {
            (&mut self.scale_down_events, previous.wrapping_sub(new))
        };
        let list = list.get_or_insert_with(Vec::new);
        let cutoff = now.plus(Duration::from_seconds(-i64::from(longest_period)));
        let mut last_outdated = None;
        for (i, e) in list.iter_mut().enumerate() {
            if e.timestamp < cutoff {
                e.outdated = true;
            }
            if e.outdated {
                last_outdated = Some(i);
            }
        }
        let event = ScaleEvent {
            replica_change: change,
            timestamp: now,
            outdated: false,
        };
        match last_outdated.and_then(|i| list.get_mut(i)) {
            Some(slot) => *slot = event,
            None => list.push(event),
        }
    }
}

/// Overwrites entry `old` with `rec`, or appends it.
fn remember(list: &mut Vec<Recommendation>, old: Option<usize>, rec: Recommendation) {
    match old.and_then(|i| list.get_mut(i)) {
        Some(slot) => *slot = rec,
        None => list.push(rec),
    }
}
