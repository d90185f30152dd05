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
    /// The recent recommendations (H-104, H-110); `None`: none remembered yet.
    #[serde(default)]
    pub recommendations: Option<Vec<Recommendation>>,
    /// The recent scale-ups, which the scale-up policies count (H-117, H-119).
    #[serde(default)]
    pub scale_up_events: Option<Vec<ScaleEvent>>,
    /// The recent scale-downs, which the scale-down policies count (H-117, H-119).
    #[serde(default)]
    pub scale_down_events: Option<Vec<ScaleEvent>>,
}

/// A remembered recommendation (upstream `timestampedRecommendation`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// The replica count recommended.
    pub recommendation: i32,
    /// When.
    pub timestamp: Time,
}

/// A remembered scale event (upstream `timestampedScaleEvent`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleEvent {
    /// How many replicas the scale added or removed (not negative).
    pub replica_change: i32,
    /// When.
    pub timestamp: Time,
    /// Older than the direction's longest policy period: the next event replaces the last
    /// such entry (H-121).
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
        let cutoff = cutoff(window, now);
        let list = self.recommendations.get_or_insert_with(Vec::new);
        let mut max = proposal;
        let mut old = None;
        for (i, rec) in list.iter().enumerate() {
            if !in_legacy_window(rec.timestamp, cutoff) {
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
        let up_cut = cutoff(up_window, now);
        let down_cut = cutoff(down_window, now);
        let list = self.recommendations.get_or_insert_with(Vec::new);
        let (mut up, mut down) = (proposal, proposal);
        let mut old = None;
        for (i, rec) in list.iter().enumerate() {
            if in_window(rec.timestamp, up_cut) {
                up = up.min(rec.recommendation);
            }
            if in_window(rec.timestamp, down_cut) {
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

impl HpaMemory {
    /// Explain's trace of H-104: the recommendations the legacy window takes part in.
    pub(crate) fn legacy_window(&self, window: Duration, now: Time) -> Vec<Recommendation> {
        let cut = cutoff(window, now);
        self.recommendations
            .iter()
            .flatten()
            .filter(|r| in_legacy_window(r.timestamp, cut))
            .copied()
            .collect()
    }

    /// Explain's trace of H-110: the recommendations inside a behavior window.
    pub(crate) fn behavior_window(&self, window: Duration, now: Time) -> Vec<Recommendation> {
        let cut = cutoff(window, now);
        self.recommendations
            .iter()
            .flatten()
            .filter(|r| in_window(r.timestamp, cut))
            .copied()
            .collect()
    }
}

/// `now − window`, negated as Go negates a Duration: the most negative one stays itself
/// (a window of −2^63 ns reaches back 292 years, as upstream's does), no overflow.
fn cutoff(window: Duration, now: Time) -> Time {
    now.plus(Duration::from_nanos(window.as_nanos().wrapping_neg()))
}

/// H-104: the legacy window keeps an entry at or after the cutoff.
fn in_legacy_window(t: Time, cutoff: Time) -> bool {
    t >= cutoff
}

/// H-110: a behavior window holds an entry strictly after its cutoff.
fn in_window(t: Time, cutoff: Time) -> bool {
    t > cutoff
}

/// Overwrites entry `old` with `rec`, or appends it.
fn remember(list: &mut Vec<Recommendation>, old: Option<usize>, rec: Recommendation) {
    match old.and_then(|i| list.get_mut(i)) {
        Some(slot) => *slot = rec,
        None => list.push(rec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Time = Time::from_unix_seconds(1_800_000_000);

    fn ago(s: i64) -> Time {
        NOW.plus(Duration::from_seconds(-s))
    }

    fn recs(list: &[(i32, i64)]) -> HpaMemory {
        HpaMemory {
            recommendations: Some(
                list.iter()
                    .map(|&(r, s)| Recommendation {
                        recommendation: r,
                        timestamp: ago(s),
                    })
                    .collect(),
            ),
            ..HpaMemory::default()
        }
    }

    fn values(m: &HpaMemory) -> Vec<i32> {
        m.recommendations
            .iter()
            .flatten()
            .map(|r| r.recommendation)
            .collect()
    }

    #[test]
    fn h104_legacy_stabilization_is_a_max_and_recycles_the_last_old_entry() {
        // HT-48 (window 5 min): (history, proposal) → (result, length).
        let w = Duration::from_seconds(300);
        let mut m = recs(&[]);
        assert_eq!((m.stabilize_legacy(5, w, NOW), values(&m).len()), (5, 1));
        let mut m = recs(&[(4, 120), (5, 60)]);
        assert_eq!((m.stabilize_legacy(3, w, NOW), values(&m).len()), (5, 3));
        let mut m = recs(&[(1, 120), (2, 60)]);
        assert_eq!((m.stabilize_legacy(3, w, NOW), values(&m).len()), (3, 3));
        let mut m = recs(&[(10, 600), (9, 540)]);
        assert_eq!((m.stabilize_legacy(3, w, NOW), values(&m).len()), (3, 2));
        let mut m = recs(&[(10, 600), (4, 60), (5, 120), (9, 540)]);
        assert_eq!(
            (m.stabilize_legacy(3, w, NOW), values(&m)),
            (5, vec![10, 4, 5, 3])
        );
        // T-05: an entry exactly at the cutoff still counts.
        let mut m = recs(&[(9, 300)]);
        assert_eq!(m.stabilize_legacy(3, w, NOW), 9);
    }

    #[test]
    fn h110_behavior_stabilization_bounds_current_between_the_windows() {
        // HT-49 rows: (history, current, proposal, up window, down window) → result.
        let s = |h: &[(i32, i64)], current, d, up, down| {
            let mut m = recs(h);
            let r = m.stabilize_with_windows(
                current,
                d,
                Duration::from_seconds(up),
                Duration::from_seconds(down),
                NOW,
            );
            (r, values(&m))
        };
        assert_eq!(s(&[], 100, 5, 0, 0), (5, vec![5]));
        assert_eq!(s(&[(4, 120), (5, 60)], 100, 3, 0, 180), (5, vec![4, 5, 3]));
        assert_eq!(s(&[(4, 120), (5, 60)], 1, 7, 300, 0), (4, vec![4, 5, 7]));
        assert_eq!(s(&[(1, 120), (2, 60)], 100, 3, 300, 0).0, 3);
        assert_eq!(s(&[(10, 600), (9, 540)], 100, 3, 0, 0), (3, vec![10, 3]));
        assert_eq!(
            s(&[(10, 600), (9, 540)], 1, 100, 0, 0),
            (100, vec![10, 100])
        );
        assert_eq!(
            s(&[(10, 6000), (6, 60), (5, 120), (9, 180)], 1, 100, 300, 0),
            (5, vec![100, 6, 5, 9])
        );
        assert_eq!(s(&[(2, 6000), (3, 180)], 2, 1, 300, 300).0, 2);
        // An entry exactly at a cutoff is in neither window and not old (T-05).
        assert_eq!(s(&[(9, 300)], 3, 3, 0, 300), (3, vec![9, 3]));
    }

    #[test]
    fn h108_the_first_sync_remembers_the_current_size_but_an_empty_list_stays_empty() {
        let mut m = HpaMemory::default();
        m.record_initial(7, NOW);
        assert_eq!(values(&m), vec![7]);
        let mut m = recs(&[]);
        m.record_initial(7, NOW);
        assert!(values(&m).is_empty());
    }

    #[test]
    fn h121_scale_events_recycle_the_last_outdated_entry_of_their_direction() {
        // HT-51: a change of 5 from 10 up, policies' longest period 60 s.
        let ev = |c, s, outdated| ScaleEvent {
            replica_change: c,
            timestamp: ago(s),
            outdated,
        };
        let store = |list: Vec<ScaleEvent>, longest| {
            let mut m = HpaMemory {
                scale_up_events: Some(list),
                ..HpaMemory::default()
            };
            m.store_scale_event(10, 15, longest, NOW);
            m.scale_up_events
                .unwrap_or_default()
                .iter()
                .map(|e| (e.replica_change, e.outdated))
                .collect::<Vec<_>>()
        };
        assert_eq!(store(vec![], 60), vec![(5, false)]);
        assert_eq!(store(vec![ev(7, 61, false)], 60), vec![(5, false)]);
        assert_eq!(
            store(vec![ev(7, 58, false)], 60),
            vec![(7, false), (5, false)]
        );
        assert_eq!(
            store(vec![ev(7, 61, false), ev(6, 59, false)], 60),
            vec![(5, false), (6, false)]
        );
        assert_eq!(
            store(
                vec![
                    ev(8, 29, false),
                    ev(6, 59, false),
                    ev(7, 61, false),
                    ev(9, 61, false)
                ],
                60
            ),
            vec![(8, false), (6, false), (7, true), (5, false)]
        );
        assert_eq!(
            store(vec![ev(7, 58, false), ev(6, 59, false)], 120),
            vec![(7, false), (6, false), (5, false)]
        );
    }

    #[test]
    fn h117_changes_count_strictly_inside_the_period_whatever_the_outdated_flag() {
        let m = HpaMemory {
            scale_up_events: Some(vec![
                ScaleEvent {
                    replica_change: 2,
                    timestamp: ago(15),
                    outdated: true,
                },
                ScaleEvent {
                    replica_change: 3,
                    timestamp: ago(14),
                    outdated: false,
                },
            ]),
            scale_down_events: Some(vec![ScaleEvent {
                replica_change: 4,
                timestamp: ago(1),
                outdated: false,
            }]),
            ..HpaMemory::default()
        };
        assert_eq!(m.changes_within(15, NOW), (3, 4));
        assert_eq!(m.changes_within(16, NOW), (5, 4));
    }
}
