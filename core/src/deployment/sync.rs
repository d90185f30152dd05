//! The sync driver: `syncDeployment(key)` step by step (D-10..D-19), and the `sync` /
//! `syncStatusOnly` paths (D-14, D-40).

use crate::error::{Error, Result};
use crate::model::LabelSelector;

use super::claim::{claim_replica_sets, pod_map};
use super::cleanup::cleanup;
use super::events;
use super::machine::{Ctx, DeploymentSyncInput, Flow, Run, SyncError};
use super::model::{Deployment, Rs, Wire, RECREATE, ROLLING_UPDATE};
use super::newrs::find_and_sync_revision;
use super::pause::check_paused_conditions;
use super::recreate::rollout_recreate;
use super::rollback::{rollback, rollback_to};
use super::rolling::rollout_rolling;
use super::scale::{is_scaling_event, scale};
use super::status::{sync_deployment_status, update_status};

/// `cache.SplitMetaNamespaceKey`: `name` or `namespace/name`.
pub(crate) fn split_key(key: &str) -> std::result::Result<(&str, &str), String> {
    let parts: Vec<&str> = key.split('/').collect();
    match parts.as_slice() {
        [name] => Ok(("", name)),
        [namespace, name] => Ok((namespace, name)),
        _ => Err(format!("unexpected key format: {key:?}")),
    }
}

/// What the sync cannot run on (where upstream would panic): a RollingUpdate deployment
/// without `rollingUpdate`.
pub(crate) fn validate(input: &DeploymentSyncInput) -> Result<()> {
    if let Some(d) = &input.deployment {
        if d.spec.strategy.type_ == ROLLING_UPDATE && d.spec.strategy.rolling_update.is_none() {
            return Err(Error::Missing {
                path: "deployment.spec.strategy.rollingUpdate".into(),
            });
        }
    }
    Ok(())
}

/// D-11: exactly `{}` (a nil selector is not "empty").
fn selects_everything(selector: Option<&LabelSelector>) -> bool {
    selector.is_some_and(|s| s.match_labels.is_none() && s.match_expressions.is_none())
}

/// D-10..D-19 `syncDeployment`.
pub(crate) fn sync_deployment(ctx: &mut Ctx<'_>, input: &DeploymentSyncInput) -> Run<()> {
    let (namespace, name) = split_key(&input.key).map_err(|e| Flow::Fail(SyncError::new(e)))?;
    // D-10: not in the cache ⇒ nothing to do.
    let Some(cached) = input
        .deployment
        .as_ref()
        .filter(|d| d.metadata.namespace == namespace && d.metadata.name == name)
    else {
        return Ok(());
    };
    let mut d: Wire<Deployment> = cached.clone();
    // D-11
    if selects_everything(d.spec.selector.as_ref()) {
        events::selecting_all(ctx);
        let generation = d.metadata.generation.unwrap_or(0);
        if d.status.observed_generation < generation {
            d.status.observed_generation = generation;
            let _ = update_status(ctx, &d)?;
        }
        return Ok(());
    }
    // D-12, D-13
    let mut rs_list = claim_replica_sets(ctx, &d, &input.replica_sets)?;
    let pods = pod_map(&rs_list, &input.pods, &input.kinds.replica_set.kind);
    // D-14
    if d.metadata.deletion_timestamp.is_some() {
        return sync_status_only(ctx, &mut d, &mut rs_list);
    }
    // D-15, D-16
    check_paused_conditions(ctx, &mut d)?;
    if d.spec.paused {
        return sync(ctx, &mut d, &mut rs_list);
    }
    // D-17
    if rollback_to(&d).is_some() {
        return rollback(ctx, &mut d, &mut rs_list);
    }
    // D-18
    let (new_rs, old) = find_and_sync_revision(ctx, &mut d, &mut rs_list, false)?;
    if is_scaling_event(&d, new_rs.as_ref(), &old) {
        return sync(ctx, &mut d, &mut rs_list);
    }
    // D-19
    match d.spec.strategy.type_.as_str() {
        RECREATE => rollout_recreate(ctx, &mut d, &mut rs_list, &pods),
        ROLLING_UPDATE => rollout_rolling(ctx, &mut d, &mut rs_list),
        other => Err(Flow::Fail(SyncError::new(format!(
            "unexpected deployment strategy type: {other}"
        )))),
    }
}

/// D-14 `syncStatusOnly`.
fn sync_status_only(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>, rs_list: &mut [Rs]) -> Run<()> {
    let (new_rs, old) = find_and_sync_revision(ctx, d, rs_list, false)?;
    let all: Vec<&Rs> = old.iter().chain(new_rs.as_ref()).collect();
    sync_deployment_status(ctx, &all, new_rs.as_ref(), d)
}

/// D-40 `sync`: scale (paused or scaling event), cleanup when paused, simple status.
fn sync(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>, rs_list: &mut [Rs]) -> Run<()> {
    let (new_rs, mut old) = find_and_sync_revision(ctx, d, rs_list, false)?;
    scale(ctx, d, new_rs.as_ref(), &mut old)?;
    if d.spec.paused && rollback_to(d).is_none() {
        cleanup(ctx, &old, d)?;
    }
    let all: Vec<&Rs> = old.iter().chain(new_rs.as_ref()).collect();
    sync_deployment_status(ctx, &all, new_rs.as_ref(), d)
}
