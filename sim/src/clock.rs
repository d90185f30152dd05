//! Virtual time: milliseconds since the scenario's start, mapped to engine instants, and
//! the agenda of future events in a fixed order (time, phase, insertion order), so a run
//! depends on nothing but the scenario.

use std::collections::BTreeMap;

use replicore::time::{Duration, Time};

/// Virtual milliseconds since the scenario's start.
pub type Ms = u64;

/// The largest virtual time (and any delay or edit time a scenario gives) a JS number
/// holds exactly, 2^53 − 1: the simulator's state, trace and scenario must stay readable
/// from JS. (A seed may be any u64 in Rust; the JS binding refuses one above this.)
pub const MAX_MS: Ms = (1 << 53) - 1;

/// `value` at `path` within [`MAX_MS`].
pub(crate) fn check_ms(value: u64, path: &str) -> replicore::error::Result<()> {
    if value > MAX_MS {
        return Err(replicore::error::Error::Malformed {
            path: path.into(),
            message: format!("{value} is above 2^53-1, the largest whole number JavaScript holds"),
        });
    }
    Ok(())
}

/// Where the virtual clock stands and which instant `t = 0` is.
#[derive(Clone, Debug)]
pub struct Clock {
    start: Time,
    now: Ms,
}

impl Clock {
    pub fn new(start: Time) -> Self {
        Clock { start, now: 0 }
    }

    pub fn now(&self) -> Ms {
        self.now
    }

    pub fn start(&self) -> Time {
        self.start
    }

    /// The engine instant of virtual time `t`.
    pub fn instant(&self, t: Ms) -> Time {
        self.start.plus(Duration::from_nanos(
            i64::try_from(t)
                .unwrap_or(i64::MAX / 1_000_000)
                .saturating_mul(1_000_000),
        ))
    }

    /// The engine instant of now.
    pub fn now_instant(&self) -> Time {
        self.instant(self.now)
    }

    /// Moves the clock forward (never back).
    pub fn set(&mut self, t: Ms) {
        self.now = self.now.max(t);
    }
}

/// An engine duration as virtual milliseconds, rounded up (a requeue never fires early).
pub fn ms_of(d: Duration) -> Ms {
    let n = d.as_nanos();
    if n <= 0 {
        return 0;
    }
    (n as u64).div_ceil(1_000_000)
}

/// Events at the same time run in phase order: the simulation's own events first, then
/// the HPA's syncs (the forecast's order: the cluster plays up to a sync's instant, then
/// the sync runs), then the scripted edits (a user's edit at `t` runs once everything due
/// at `t` has run, as [`crate::Simulator::apply`] does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Normal = 0,
    Hpa = 1,
    Edit = 2,
}

/// Future events, ordered by (time, phase, insertion order).
#[derive(Clone, Debug)]
pub struct Agenda<E> {
    items: BTreeMap<(Ms, Phase, u64), E>,
    seq: u64,
}

impl<E> Default for Agenda<E> {
    fn default() -> Self {
        Agenda {
            items: BTreeMap::new(),
            seq: 0,
        }
    }
}

impl<E> Agenda<E> {
    pub fn at(&mut self, t: Ms, event: E) {
        self.at_phase(t, Phase::Normal, event);
    }

    pub fn at_phase(&mut self, t: Ms, phase: Phase, event: E) {
        self.seq += 1;
        self.items.insert((t, phase, self.seq), event);
    }

    /// The time of the next event.
    pub fn next_time(&self) -> Option<Ms> {
        self.items.keys().next().map(|(t, _, _)| *t)
    }

    /// Removes and returns the next event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Ms) -> Option<(Ms, E)> {
        let first = self.items.first_key_value().map(|(k, _)| *k)?;
        if first.0 > until {
            return None;
        }
        self.items.remove(&first).map(|e| (first.0, e))
    }

    pub fn pop(&mut self) -> Option<(Ms, E)> {
        self.items.pop_first().map(|((t, _, _), e)| (t, e))
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Ms, &E)> {
        self.items.iter().map(|((t, _, _), e)| (*t, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_run_by_time_then_phase_then_insertion() {
        let mut a = Agenda::default();
        a.at_phase(5, Phase::Edit, "edit@5");
        a.at(5, "b@5");
        a.at(1, "a@1");
        a.at(5, "c@5");
        assert_eq!(a.next_time(), Some(1));
        let order: Vec<_> = std::iter::from_fn(|| a.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["a@1", "b@5", "c@5", "edit@5"]);
    }

    #[test]
    fn pop_until_stops_at_the_horizon() {
        let mut a = Agenda::default();
        a.at(10, 1);
        a.at(20, 2);
        assert_eq!(a.pop_until(15), Some((10, 1)));
        assert_eq!(a.pop_until(15), None);
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn clock_maps_to_instants_and_never_goes_back() {
        let start = Time::from_unix_seconds(1_000);
        let mut c = Clock::new(start);
        c.set(1500);
        c.set(200);
        assert_eq!(c.now(), 1500);
        assert_eq!(c.now_instant(), Time::from_unix_nanos(1_001_500_000_000));
        assert_eq!(ms_of(Duration::from_nanos(1)), 1);
        assert_eq!(ms_of(Duration::from_seconds(2)), 2000);
        assert_eq!(ms_of(Duration::from_nanos(-5)), 0);
    }
}
