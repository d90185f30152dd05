//! Claiming ReplicaSets and building the pod map (D-20..D-24). The ControllerRef rules
//! themselves (adopt / release / ignore) are the ReplicaSet controller's, shared through
//! `crate::claim::verdict_of` and its patches.

use crate::claim::{
    adopt_patch_of, controlled_by, release_patch_of, verdict_of, Verdict, STRATEGIC_MERGE_PATCH,
};
use crate::model::{ObjectMeta, Pod};
use crate::selector::Selector;
use crate::time::Time;

use super::machine::{ApiCall, Ctx, Flow, Run, SyncError};
use super::model::{Deployment, Rs, Wire};

/// Go's `%v` of a `metav1.Time` (`2026-11-23 23:15:59 +0000 UTC`).
pub(crate) fn go_time(t: Time) -> String {
    let rfc = t.to_rfc3339();
    // "2026-11-23T23:15:59Z" or with a fraction before the Z.
    let body = rfc.trim_end_matches('Z');
    format!("{} +0000 UTC", body.replacen('T', " ", 1))
}

/// D-20..D-22 `ClaimReplicaSets`: the deployment's ReplicaSets, in cache order, as the
/// cache holds them (D-23). Adoptions and releases are API calls; any failure fails the
/// claim with all errors aggregated.
pub(crate) fn claim_replica_sets(
    ctx: &mut Ctx<'_>,
    d: &Wire<Deployment>,
    all: &[Rs],
) -> Run<Vec<Rs>> {
    let meta = &d.metadata;
    let selector = Selector::compile(d.spec.selector.as_ref()).map_err(|e| {
        Flow::Fail(SyncError::new(format!(
            "deployment {}/{} has invalid label selector: {}",
            meta.namespace, meta.name, e.0
        )))
    })?;
    let mut claimed = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    // The live re-check, made once before the first adoption.
    let mut can_adopt: Option<Result<(), String>> = None;
    for rs in all
        .iter()
        .filter(|rs| rs.metadata.namespace == meta.namespace)
    {
        let m = &rs.metadata;
        let matches = selector.matches(m.labels.as_ref());
        match verdict_of(m, meta, matches, controlled_by(m, meta)) {
            Verdict::Ignored => {}
            Verdict::Claimed => claimed.push(rs.clone()),
            Verdict::Release => {
                let r = ctx.call(ApiCall::PatchReplicaSet {
                    namespace: m.namespace.clone(),
                    name: m.name.clone(),
                    patch_type: STRATEGIC_MERGE_PATCH.into(),
                    patch: release_patch_of(&meta.uid, &m.uid),
                })?;
                if let Err(e) = r {
                    if !e.is_not_found() && !e.is_invalid() {
                        errors.push(e.message);
                    }
                }
            }
            Verdict::Adopt => {
                let allowed = match &can_adopt {
                    Some(a) => a.clone(),
                    None => {
                        let a = recheck(ctx, d)?;
                        can_adopt = Some(a.clone());
                        a
                    }
                };
                if let Err(why) = allowed {
                    errors.push(format!(
                        "can't adopt ReplicaSet {}/{} ({}): {why}",
                        m.namespace, m.name, m.uid
                    ));
                    continue;
                }
                let r = ctx.call(ApiCall::PatchReplicaSet {
                    namespace: m.namespace.clone(),
                    name: m.name.clone(),
                    patch_type: STRATEGIC_MERGE_PATCH.into(),
                    patch: adopt_patch_of(meta, &ctx.kinds.deployment, &m.uid),
                })?;
                match r {
                    Ok(_) => claimed.push(rs.clone()),
                    Err(e) if e.is_not_found() => {}
                    Err(e) => errors.push(e.message),
                }
            }
        }
    }
    match errors.len() {
        0 => Ok(claimed),
        1 => Err(Flow::Fail(SyncError::new(errors.concat()))),
        _ => Err(Flow::Fail(SyncError::new(format!(
            "[{}]",
            errors.join(", ")
        )))),
    }
}

/// D-21 `RecheckDeletionTimestamp` with the deployment's live GET.
fn recheck(ctx: &mut Ctx<'_>, d: &Wire<Deployment>) -> Run<Result<(), String>> {
    let meta = &d.metadata;
    let r = ctx.call(ApiCall::GetDeployment {
        namespace: meta.namespace.clone(),
        name: meta.name.clone(),
    })?;
    let live: ObjectMeta = match r {
        Err(e) => {
            return Ok(Err(format!(
                "can't recheck DeletionTimestamp: {}",
                e.message
            )))
        }
        Ok(None) => meta.clone(),
        Ok(Some(object)) => {
            let live: Wire<Deployment> = Wire::from_value(object).map_err(|e| {
                Flow::Bad(e.under(&format!("results[{}].object", ctx.made_so_far() - 1)))
            })?;
            live.metadata.clone()
        }
    };
    if live.uid != meta.uid {
        return Ok(Err(format!(
            "can't recheck DeletionTimestamp: original Deployment {}/{} is gone: got uid {}, wanted {}",
            meta.namespace, meta.name, live.uid, meta.uid
        )));
    }
    if let Some(t) = live.deletion_timestamp {
        return Ok(Err(format!(
            "{}/{} has just been deleted at {}",
            live.namespace,
            live.name,
            go_time(t)
        )));
    }
    Ok(Ok(()))
}

/// D-24 `getPodMapForDeployment`: per claimed RS (by UID), the pods of its namespace
/// whose controller reference is that RS (`rs_kind`, name and UID).
pub(crate) fn pod_map<'p>(
    claimed: &[Rs],
    pods: &'p [Pod],
    rs_kind: &str,
) -> Vec<(String, Vec<&'p Pod>)> {
    claimed
        .iter()
        .map(|rs| {
            let m = &rs.metadata;
            let owned = pods
                .iter()
                .filter(|p| {
                    p.metadata.namespace == m.namespace
                        && p.metadata.controller_ref().is_some_and(|r| {
                            r.kind == rs_kind && r.name == m.name && r.uid == m.uid
                        })
                })
                .collect();
            (m.uid.clone(), owned)
        })
        .collect()
}
