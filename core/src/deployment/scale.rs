//! Scaling events and proportional scaling (D-40..D-47).

use serde_json::Value;

use super::events;
use super::lookup::{by_creation, by_size_newer, by_size_older, is_active};
use super::machine::{ApiCall, Ctx, Flow, Run, SyncError};
use super::model::{
    annotations_mut, replica_set_wire, Deployment, Rs, Wire, DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
};
use super::revision::{
    atoi_annotation, non_negative_i32_annotation, replicas_annotations_need_update,
    set_replicas_annotations,
};
use super::strategy::{max_replicas, max_surge};

/// A failed write's error ends the sync (`return err`).
pub(crate) fn or_fail<T>(r: Result<T, SyncError>) -> Run<T> {
    r.map_err(Flow::Fail)
}

/// The RS a write returned (the host's object, or the one sent).
pub(crate) fn returned(ctx: &Ctx<'_>, sent: Rs, object: Option<serde_json::Value>) -> Run<Rs> {
    match object {
        None => Ok(sent),
        Some(v) => Wire::from_value(v).map_err(|e| {
            Flow::Bad(e.under(&format!(
                "results[{}].object",
                ctx.made_so_far().saturating_sub(1)
            )))
        }),
    }
}

/// The RS as it will be sent: its wire object brought up to date with the typed fields.
pub(crate) fn as_sent(rs: Rs) -> Rs {
    let wire = replica_set_wire(&rs);
    Wire {
        typed: rs.typed,
        wire: std::sync::Arc::new(wire),
    }
}

/// D-47 `scaleReplicaSet`: (scaled, the RS after the call). Lazy mode does nothing when
/// the size is right; forced mode still refreshes the replicas annotations.
pub(crate) fn scale_replica_set(
    ctx: &mut Ctx<'_>,
    rs: &Rs,
    new_scale: i32,
    d: &Deployment,
    forced: bool,
) -> Run<Result<(bool, Rs), SyncError>> {
    let old_scale = rs.spec.desired();
    if !forced && old_scale == new_scale {
        return Ok(Ok((false, rs.clone())));
    }
    let size_changes = old_scale != new_scale;
    let (desired, max) = (d.replicas(), max_replicas(d));
    if !size_changes && !replicas_annotations_need_update(&rs.metadata, desired, max) {
        return Ok(Ok((false, rs.clone())));
    }
    let mut copy = rs.clone();
    copy.spec.replicas = Some(new_scale);
    set_replicas_annotations(annotations_mut(&mut copy.metadata), desired, max);
    let copy = as_sent(copy);
    let r = ctx.call(ApiCall::UpdateReplicaSet {
        namespace: copy.metadata.namespace.clone(),
        name: copy.metadata.name.clone(),
        object: Value::clone(&copy.wire),
    })?;
    match r {
        Err(e) => Ok(Err(SyncError::api(&e))),
        Ok(object) => {
            let after = returned(ctx, copy, object)?;
            if size_changes {
                events::scaled(ctx, &after.metadata.name, old_scale, new_scale);
            }
            Ok(Ok((size_changes, after)))
        }
    }
}

/// D-41 `isScalingEvent` over the RSs found: an active one whose desired-replicas
/// annotation is a valid count other than `spec.replicas`.
pub fn is_scaling_event(d: &Deployment, new_rs: Option<&Rs>, old: &[Rs]) -> bool {
    old.iter()
        .chain(new_rs)
        .filter(|rs| is_active(rs))
        .filter_map(|rs| non_negative_i32_annotation(&rs.metadata, DESIRED_REPLICAS_ANNOTATION))
        .any(|desired| desired != d.replicas())
}

/// D-42 `FindActiveOrLatest`. Sorts `old` newest first, in place (as upstream does).
pub(crate) fn find_active_or_latest(new_rs: Option<&Rs>, old: &mut [Rs]) -> Option<Rs> {
    if new_rs.is_none() && old.is_empty() {
        return None;
    }
    crate::sort::sort_by(old, |a, b| by_creation(b, a));
    let active: Vec<&Rs> = old
        .iter()
        .chain(new_rs)
        .filter(|rs| is_active(rs))
        .collect();
    match active.as_slice() {
        [] => new_rs.or(old.first()).cloned(),
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// D-43 `IsSaturated`.
pub fn is_saturated(d: &Deployment, rs: Option<&Rs>) -> bool {
    let Some(rs) = rs else {
        return false;
    };
    let Some(desired) = atoi_annotation(&rs.metadata, DESIRED_REPLICAS_ANNOTATION) else {
        return false;
    };
    let r = d.replicas();
    rs.spec.desired() == r && desired as i32 == r && rs.status.available_replicas == r
}

/// `integer.RoundToInt32`: half away from zero, by truncation.
fn round_to_i32(a: f64) -> i32 {
    if a < 0.0 {
        (a - 0.5) as i32
    } else {
        (a + 0.5) as i32
    }
}

/// D-45 `getReplicaSetFraction`.
pub fn fraction(rs: &Rs, d: &Deployment) -> i32 {
    let size = rs.spec.desired();
    if d.replicas() == 0 {
        return size.wrapping_neg();
    }
    let max_now = max_replicas(d);
    let before = match non_negative_i32_annotation(&rs.metadata, MAX_REPLICAS_ANNOTATION) {
        Some(n) if n != 0 => n,
        _ => d.status.replicas,
    };
    if before == 0 {
        return 0;
    }
    let scaled = f64::from(size.wrapping_mul(max_now)) / f64::from(before);
    round_to_i32(scaled).wrapping_sub(size)
}

/// D-45 `GetReplicaSetProportion`.
pub fn proportion(rs: &Rs, d: &Deployment, to_add: i32, added: i32) -> i32 {
    if rs.spec.desired() == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let f = fraction(rs, d);
    let allowed = to_add.wrapping_sub(added);
    if to_add > 0 {
        f.min(allowed)
    } else {
        f.max(allowed)
    }
}

/// D-44..D-46: the new sizes of the active RSs (in the order they are written).
pub fn proportional_sizes(d: &Deployment, active: &mut [Rs]) -> Vec<i32> {
    let total = active
        .iter()
        .fold(0i32, |a, rs| a.wrapping_add(rs.spec.desired()));
    let allowed = if d.replicas() > 0 {
        d.replicas().wrapping_add(max_surge(d))
    } else {
        0
    };
    let to_add = allowed.wrapping_sub(total);
    if to_add > 0 {
        crate::sort::sort_by(active, by_size_newer);
    } else if to_add < 0 {
        crate::sort::sort_by(active, by_size_older);
    }
    let mut added = 0i32;
    let mut sizes: Vec<i32> = active
        .iter()
        .map(|rs| {
            if to_add == 0 {
                return rs.spec.desired();
            }
            let p = proportion(rs, d, to_add, added);
            added = added.wrapping_add(p);
            rs.spec.desired().wrapping_add(p)
        })
        .collect();
    if to_add != 0 {
        if let Some(first) = sizes.first_mut() {
            *first = first.wrapping_add(to_add.wrapping_sub(added)).max(0);
        }
    }
    sizes
}

/// D-42..D-47 `scale`.
pub(crate) fn scale(
    ctx: &mut Ctx<'_>,
    d: &Deployment,
    new_rs: Option<&Rs>,
    old: &mut [Rs],
) -> Run<()> {
    if let Some(target) = find_active_or_latest(new_rs, old) {
        if target.spec.desired() == d.replicas() {
            return Ok(());
        }
        or_fail(scale_replica_set(ctx, &target, d.replicas(), d, false)?)?;
        return Ok(());
    }
    if is_saturated(d, new_rs) {
        for rs in old.iter().filter(|rs| is_active(rs)) {
            or_fail(scale_replica_set(ctx, rs, 0, d, false)?)?;
        }
        return Ok(());
    }
    if d.is_rolling_update() {
        let mut active: Vec<Rs> = old
            .iter()
            .chain(new_rs)
            .filter(|rs| is_active(rs))
            .cloned()
            .collect();
        let sizes = proportional_sizes(d, &mut active);
        for (rs, size) in active.iter().zip(sizes) {
            or_fail(scale_replica_set(ctx, rs, size, d, true)?)?;
        }
    }
    Ok(())
}
