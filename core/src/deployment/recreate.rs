//! The Recreate rollout (D-60..D-62).

use crate::error::Error;
use crate::model::Pod;

use super::cleanup::cleanup;
use super::lookup::is_active;
use super::machine::{Ctx, Flow, Run};
use super::model::{Deployment, Rs, Wire};
use super::newrs::find_and_sync_revision;
use super::scale::{or_fail, scale_replica_set};
use super::status::{is_complete, sync_rollout_status};

/// D-60..D-62 `rolloutRecreate`.
pub(crate) fn rollout_recreate(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    rs_list: &mut [Rs],
    pod_map: &[(String, Vec<&Pod>)],
) -> Run<()> {
    let (mut new_rs, mut old) = find_and_sync_revision(ctx, d, rs_list, false)?;
    // D-60: scale every active old RS to 0 (the status still reads the cached ones).
    let mut scaled_down = false;
    for rs in old.iter().filter(|rs| is_active(rs)) {
        if or_fail(scale_replica_set(ctx, rs, 0, d, false)?)?.0 {
            scaled_down = true;
        }
    }
    if scaled_down || old_pods_running(new_rs.as_ref(), &old, pod_map) {
        let all: Vec<&Rs> = old.iter().chain(new_rs.as_ref()).collect();
        return sync_rollout_status(ctx, &all, new_rs.as_ref(), d);
    }
    // D-62: create the new RS now that the old pods are gone, and scale it up.
    if new_rs.is_none() {
        (new_rs, old) = find_and_sync_revision(ctx, d, rs_list, true)?;
    }
    let Some(new) = new_rs.as_ref() else {
        return Err(Flow::Bad(Error::Missing {
            path: "deployment (new ReplicaSet)".into(),
        }));
    };
    or_fail(scale_replica_set(ctx, new, d.replicas(), d, false)?)?;
    if is_complete(d, &d.status) {
        cleanup(ctx, &old, d)?;
    }
    let all: Vec<&Rs> = old.iter().chain(new_rs.as_ref()).collect();
    sync_rollout_status(ctx, &all, new_rs.as_ref(), d)
}

/// D-61 `oldPodsRunning`: an old RS reports replicas, or a pod of the pod map outside the
/// new RS is not Succeeded/Failed.
pub(crate) fn old_pods_running(
    new_rs: Option<&Rs>,
    old: &[Rs],
    pod_map: &[(String, Vec<&Pod>)],
) -> bool {
    let reported = old
        .iter()
        .fold(0i32, |a, rs| a.wrapping_add(rs.status.replicas));
    if reported > 0 {
        return true;
    }
    pod_map
        .iter()
        .filter(|(uid, _)| new_rs.is_none_or(|n| &n.metadata.uid != uid))
        .flat_map(|(_, pods)| pods)
        .any(|p| !matches!(p.phase(), "Succeeded" | "Failed"))
}

/// Used by the D-114 handler: is the deployment a Recreate one?
pub fn is_recreate(d: &Deployment) -> bool {
    d.spec.strategy.type_ == super::model::RECREATE
}
