//! Slow start (C-2, R-52): creates go out in batches of 1, 2, 4, … (the last one cut to
//! what remains); every call of a batch is issued, and a batch with any failure is the
//! last one.

/// C-2: the first batch's size.
pub const SLOW_START_INITIAL_BATCH_SIZE: usize = 1;

/// The batch sizes for `count` calls starting at `initial`: `min(initial, count)`,
/// then doubling, the last cut to what remains. `count == 0` ⇒ no batches.
pub fn batch_sizes(count: usize, initial: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut remaining = count;
    let mut size = initial.max(1).min(count);
    while remaining > 0 {
        sizes.push(size);
        remaining -= size;
        size = size.saturating_mul(2).min(remaining);
    }
    sizes
}

/// How far a slow start got, given which calls failed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SlowStartResult {
    /// Calls that succeeded (a call "treated as success" counts, R-53).
    pub successes: usize,
    /// Calls issued: every call of every batch started.
    pub calls: usize,
    /// The batches that were started.
    pub batches: Vec<usize>,
    /// The index (0-based, call order) of the first failed call.
    pub first_failure: Option<usize>,
}

/// the size of the next batch of a schedule, given whether each call issued so far
/// failed (in call order): `None` once a batch had a failure (it was the last one), when a
/// batch is only partly reported, or when the schedule is done. The one statement of where
/// slow start stops; [`run`] and the sync's plan ([`super::CreatePlan::next_batch`])
/// both ask it.
pub fn next_batch(batches: &[usize], failed_so_far: &[bool]) -> Option<usize> {
    let mut issued = 0;
    for &size in batches {
        if issued >= failed_so_far.len() {
            return (issued == failed_so_far.len()).then_some(size);
        }
        let batch = failed_so_far.get(issued..issued + size)?;
        if batch.iter().any(|&failed| failed) {
            return None;
        }
        issued += size;
    }
    None
}

/// Runs the schedule over per-call results (`true` = success), in call order: stops after
/// the first batch that has a failure. `failed(i)` answers for call `i` (0-based).
pub fn run(count: usize, initial: usize, mut failed: impl FnMut(usize) -> bool) -> SlowStartResult {
    let sizes = batch_sizes(count, initial);
    let mut outcomes: Vec<bool> = Vec::with_capacity(count);
    let mut result = SlowStartResult {
        successes: 0,
        calls: 0,
        batches: Vec::new(),
        first_failure: None,
    };
    while let Some(size) = next_batch(&sizes, &outcomes) {
        result.batches.push(size);
        for i in result.calls..result.calls + size {
            let f = failed(i);
            if f {
                result.first_failure.get_or_insert(i);
            } else {
                result.successes += 1;
            }
            outcomes.push(f);
        }
        result.calls += size;
    }
    result
}
