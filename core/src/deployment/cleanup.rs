//! Cleanup of old ReplicaSets by `revisionHistoryLimit` (D-70).

use super::lookup::{go_sort, revision_less};
use super::machine::{ApiCall, Ctx, Flow, Run, SyncError};
use super::model::{Deployment, Rs};

/// D-70: which old RSs to delete, in order (the first `count − limit` by revision that
/// are empty and observed).
pub(crate) fn to_delete<'a>(old: &'a [Rs], d: &Deployment) -> Vec<&'a Rs> {
    let Some(limit) = d
        .spec
        .revision_history_limit
        .filter(|_| d.has_revision_history_limit())
    else {
        return Vec::new();
    };
    let mut cleanable: Vec<&Rs> = old
        .iter()
        .filter(|rs| rs.metadata.deletion_timestamp.is_none())
        .collect();
    let excess = i64::try_from(cleanable.len()).unwrap_or(i64::MAX) - i64::from(limit);
    if excess <= 0 {
        return Vec::new();
    }
    go_sort(&mut cleanable, |a, b| revision_less(a, b));
    cleanable
        .into_iter()
        .take(usize::try_from(excess).unwrap_or(usize::MAX))
        .filter(|rs| {
            rs.status.replicas == 0
                && rs.spec.desired() == 0
                && rs.metadata.generation.unwrap_or(0) <= rs.status.observed_generation
                && rs.metadata.deletion_timestamp.is_none()
        })
        .collect()
}

/// D-70 `cleanupDeployment`: delete them; NotFound is fine, any other error ends it.
pub(crate) fn cleanup(ctx: &mut Ctx<'_>, old: &[Rs], d: &Deployment) -> Run<()> {
    for rs in to_delete(old, d) {
        let r = ctx.call(ApiCall::DeleteReplicaSet {
            namespace: rs.metadata.namespace.clone(),
            name: rs.metadata.name.clone(),
        })?;
        if let Err(e) = r {
            if !e.is_not_found() {
                return Err(Flow::Fail(SyncError::api(&e)));
            }
        }
    }
    Ok(())
}
