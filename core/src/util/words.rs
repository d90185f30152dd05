//! Words for the reports: plurals and short durations.

use crate::time::Time;

/// `5s`, `12m`, `26h`, `6d`: how long ago `t` was.
pub(crate) fn age(now: Time, t: Time) -> String {
    let secs = now.since(t).as_nanos().div_euclid(1_000_000_000);
    match secs {
        s if s < 0 => "in the future".into(),
        s if s < 120 => format!("{s}s"),
        s if s < 120 * 60 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// `1 pod`, `3 pods`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
