//! Resolving `maxSurge` / `maxUnavailable` (D-05..D-08).

use super::model::{Deployment, IntOrString};

/// `intstr.GetScaledValueFromIntOrPercent`: an integer as given; `"p%"` of `total`,
/// rounded up (`round_up`) or down (D-05). The error text is upstream's.
pub fn scaled_value(value: &IntOrString, total: i32, round_up: bool) -> Result<i32, String> {
    match value {
        IntOrString::Int(i) => Ok(*i),
        IntOrString::Str(s) => {
            let Some(digits) = s.strip_suffix('%') else {
                return Err(
                    "invalid value for IntOrString: invalid type: string is not a percentage"
                        .into(),
                );
            };
            let p: i64 = go_atoi(digits).ok_or_else(|| {
                format!(
                    "invalid value for IntOrString: invalid value {s:?}: strconv.Atoi: parsing {digits:?}: invalid syntax"
                )
            })?;
            let exact = p as f64 * f64::from(total) / 100.0;
            let rounded = if round_up {
                exact.ceil()
            } else {
                exact.floor()
            };
            // Go converts float64 → int → int32, wrapping.
            Ok((rounded as i64) as i32)
        }
    }
}

/// `strconv.Atoi` (decimal, optional sign).
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// D-05/D-06 `ResolveFenceposts`: (surge, unavailable) for `desired` replicas; a missing
/// value counts as 0; both 0 ⇒ unavailable 1.
pub fn resolve_fenceposts(
    max_surge: Option<&IntOrString>,
    max_unavailable: Option<&IntOrString>,
    desired: i32,
) -> Result<(i32, i32), String> {
    let zero = IntOrString::Int(0);
    let surge = scaled_value(max_surge.unwrap_or(&zero), desired, true)?;
    let unavailable = scaled_value(max_unavailable.unwrap_or(&zero), desired, false)?;
    if surge == 0 && unavailable == 0 {
        return Ok((0, 1));
    }
    Ok((surge, unavailable))
}

/// The resolved pair of a RollingUpdate deployment; upstream ignores a resolution error
/// here ("caught by validation") and uses (0, 0).
fn resolved(d: &Deployment) -> (i32, i32) {
    let ru = d.spec.strategy.rolling_update.as_ref();
    resolve_fenceposts(
        ru.and_then(|r| r.max_surge.as_ref()),
        ru.and_then(|r| r.max_unavailable.as_ref()),
        d.replicas(),
    )
    .unwrap_or((0, 0))
}

/// D-07 `MaxSurge`: the resolved surge for RollingUpdate, 0 otherwise (not capped).
pub fn max_surge(d: &Deployment) -> i32 {
    if !d.is_rolling_update() {
        return 0;
    }
    resolved(d).0
}

/// D-07 `MaxUnavailable`: 0 for Recreate or zero replicas, else the resolved value
/// capped at `spec.replicas`.
pub fn max_unavailable(d: &Deployment) -> i32 {
    if !d.is_rolling_update() || d.replicas() == 0 {
        return 0;
    }
    resolved(d).1.min(d.replicas())
}

/// D-08: `R + MaxSurge`.
pub fn max_replicas(d: &Deployment) -> i32 {
    d.replicas().wrapping_add(max_surge(d))
}

/// D-08: `R − MaxUnavailable`.
pub fn min_available(d: &Deployment) -> i32 {
    d.replicas().wrapping_sub(max_unavailable(d))
}
