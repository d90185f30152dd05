//! The RollingUpdate rollout (D-50..D-54).

use super::cleanup::cleanup;
use super::lookup::{by_creation, is_active};
use super::machine::{Ctx, Flow, Run, SyncError};
use super::model::{Deployment, Rs, Wire};
use super::newrs::{find_and_sync_revision, new_rs_new_replicas};
use super::scale::{or_fail, scale_replica_set};
use super::status::{is_complete, sync_rollout_status};
use super::strategy::min_available;
use crate::error::Error;

/// D-50 `rolloutRolling`.
pub(crate) fn rollout_rolling(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    rs_list: &mut [Rs],
) -> Run<()> {
    let (new_rs, old) = find_and_sync_revision(ctx, d, rs_list, true)?;
    let Some(new_rs) = new_rs else {
        return Err(Flow::Bad(Error::Missing {
            path: "deployment (new ReplicaSet)".into(),
        }));
    };
    let all: Vec<&Rs> = old.iter().chain(std::iter::once(&new_rs)).collect();
    if reconcile_new(ctx, &all, &new_rs, d)? {
        return sync_rollout_status(ctx, &all, Some(&new_rs), d);
    }
    let active_old: Vec<Rs> = old.iter().filter(|rs| is_active(rs)).cloned().collect();
    if reconcile_old(ctx, &all, active_old, &new_rs, d)? {
        return sync_rollout_status(ctx, &all, Some(&new_rs), d);
    }
    if is_complete(d, &d.status) {
        cleanup(ctx, &old, d)?;
    }
    sync_rollout_status(ctx, &all, Some(&new_rs), d)
}

/// D-51 `reconcileNewReplicaSet`: scale the new RS towards `spec.replicas` within
/// `R + maxSurge`.
fn reconcile_new(ctx: &mut Ctx<'_>, all: &[&Rs], new_rs: &Rs, d: &Deployment) -> Run<bool> {
    let (r, size) = (d.replicas(), new_rs.spec.desired());
    if size == r {
        return Ok(false);
    }
    if size > r {
        return Ok(or_fail(scale_replica_set(ctx, new_rs, r, d, false)?)?.0);
    }
    let count = new_rs_new_replicas(d, all, size).map_err(|e| Flow::Fail(SyncError::new(e)))?;
    Ok(or_fail(scale_replica_set(ctx, new_rs, count, d, false)?)?.0)
}

/// D-52 `reconcileOldReplicaSets`. Errors of the two scale-down passes are swallowed.
fn reconcile_old(
    ctx: &mut Ctx<'_>,
    all: &[&Rs],
    active_old: Vec<Rs>,
    new_rs: &Rs,
    d: &Deployment,
) -> Run<bool> {
    let old_count = active_old
        .iter()
        .fold(0i32, |a, rs| a.wrapping_add(rs.spec.desired()));
    if old_count == 0 {
        return Ok(false);
    }
    let all_count = all
        .iter()
        .fold(0i32, |a, rs| a.wrapping_add(rs.spec.desired()));
    let new_unavailable = new_rs
        .spec
        .desired()
        .wrapping_sub(new_rs.status.available_replicas);
    let max_scaled_down = all_count
        .wrapping_sub(min_available(d))
        .wrapping_sub(new_unavailable);
    if max_scaled_down <= 0 {
        return Ok(false);
    }
    let (active_old, cleaned) = match cleanup_unhealthy(ctx, active_old, d, max_scaled_down)? {
        Ok(x) => x,
        Err(_) => return Ok(false),
    };
    let mut all2: Vec<&Rs> = active_old.iter().collect();
    all2.push(new_rs);
    let scaled = match scale_down_old(ctx, &all2, active_old.clone(), d)? {
        Ok(n) => n,
        Err(_) => return Ok(false),
    };
    Ok(cleaned.wrapping_add(scaled) > 0)
}

/// D-53 `cleanupUnhealthyReplicas`: scale old RSs down by their unavailable replicas,
/// oldest first, up to `max_cleanup`.
fn cleanup_unhealthy(
    ctx: &mut Ctx<'_>,
    mut old: Vec<Rs>,
    d: &Deployment,
    max_cleanup: i32,
) -> Run<Result<(Vec<Rs>, i32), SyncError>> {
    crate::sort::sort_by(&mut old, by_creation);
    let mut total = 0i32;
    for i in 0..old.len() {
        if total >= max_cleanup {
            break;
        }
        let Some(target) = old.get(i) else {
            break;
        };
        let (size, available) = (target.spec.desired(), target.status.available_replicas);
        if size == 0 || size == available {
            continue;
        }
        let down = max_cleanup
            .wrapping_sub(total)
            .min(size.wrapping_sub(available));
        let new_count = size.wrapping_sub(down);
        if new_count > size {
            return Ok(Err(SyncError::new(format!(
                "when cleaning up unhealthy replicas, got invalid request to scale down {}/{} {size} -> {new_count}",
                target.metadata.namespace, target.metadata.name
            ))));
        }
        let updated = match scale_replica_set(ctx, target, new_count, d, false)? {
            Ok((_, rs)) => rs,
            Err(e) => return Ok(Err(e)),
        };
        total = total.wrapping_add(down);
        if let Some(slot) = old.get_mut(i) {
            *slot = updated;
        }
    }
    Ok(Ok((old, total)))
}

/// D-54 `scaleDownOldReplicaSetsForRollingUpdate`: scale old RSs down, oldest first, by
/// the availability above `R − maxUnavailable`.
fn scale_down_old(
    ctx: &mut Ctx<'_>,
    all: &[&Rs],
    mut old: Vec<Rs>,
    d: &Deployment,
) -> Run<Result<i32, SyncError>> {
    let min_available = min_available(d);
    let available = all
        .iter()
        .fold(0i32, |a, rs| a.wrapping_add(rs.status.available_replicas));
    if available <= min_available {
        return Ok(Ok(0));
    }
    crate::sort::sort_by(&mut old, by_creation);
    let budget = available.wrapping_sub(min_available);
    let mut total = 0i32;
    for target in &old {
        if total >= budget {
            break;
        }
        let size = target.spec.desired();
        if size == 0 {
            continue;
        }
        let down = size.min(budget.wrapping_sub(total));
        let new_count = size.wrapping_sub(down);
        if new_count > size {
            return Ok(Err(SyncError::new(format!(
                "when scaling down old RS, got invalid request to scale down {}/{} {size} -> {new_count}",
                target.metadata.namespace, target.metadata.name
            ))));
        }
        if let Err(e) = scale_replica_set(ctx, target, new_count, d, false)? {
            return Ok(Err(e));
        }
        total = total.wrapping_add(down);
    }
    Ok(Ok(total))
}
