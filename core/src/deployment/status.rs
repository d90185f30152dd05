//! Deployment status: calculation, conditions, progress deadline and requeue
//! (D-71..D-78).

use crate::config::FeatureGates;
use crate::time::{Duration, Time};

use super::events::go_quote;
use super::machine::{ApiCall, Ctx, Flow, ProgressRequeue, Run, SyncError};
use super::model::{
    deployment_wire, reason, Deployment, DeploymentCondition, DeploymentStatus, Rs, Wire,
};
use super::strategy::min_available;

/// A condition with both times `now` (`NewDeploymentCondition`).
pub(crate) fn new_condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: String,
    now: Time,
) -> DeploymentCondition {
    DeploymentCondition {
        type_: type_.into(),
        status: status.into(),
        last_update_time: Some(now),
        last_transition_time: Some(now),
        reason: reason.into(),
        message,
    }
}

/// D-77 `SetDeploymentCondition`: same status and reason ⇒ unchanged; same status ⇒
/// replaced keeping lastTransitionTime; else replaced. The new one goes last.
pub(crate) fn set_condition(status: &mut DeploymentStatus, mut condition: DeploymentCondition) {
    if let Some(current) = status.condition(&condition.type_) {
        if current.status == condition.status && current.reason == condition.reason {
            return;
        }
        if current.status == condition.status {
            condition.last_transition_time = current.last_transition_time;
        }
    }
    remove_condition(status, &condition.type_);
    status.conditions.push(condition);
}

/// `RemoveDeploymentCondition`: order of the others kept.
pub(crate) fn remove_condition(status: &mut DeploymentStatus, type_: &str) {
    status.conditions.retain(|c| c.type_ != type_);
}

/// D-73 `GetTerminatingReplicaCountForReplicaSets`.
fn terminating(all: &[&Rs]) -> Option<i32> {
    let mut sum = 0i32;
    for rs in all {
        match rs.status.terminating_replicas {
            None if rs.status.observed_generation == 0 => {}
            None => return None,
            Some(n) => sum = sum.wrapping_add(n),
        }
    }
    Some(sum)
}

fn sum(all: &[&Rs], f: impl Fn(&Rs) -> i32) -> i32 {
    all.iter().fold(0i32, |a, rs| a.wrapping_add(f(rs)))
}

/// D-73 `calculateStatus`.
pub(crate) fn calculate_status(
    all: &[&Rs],
    new_rs: Option<&Rs>,
    d: &Deployment,
    gates: &FeatureGates,
    now: Time,
) -> DeploymentStatus {
    let available = sum(all, |rs| rs.status.available_replicas);
    let total = sum(all, |rs| rs.spec.desired());
    let mut status = DeploymentStatus {
        observed_generation: d.metadata.generation.unwrap_or(0),
        replicas: sum(all, |rs| rs.status.replicas),
        updated_replicas: new_rs.map_or(0, |rs| rs.status.replicas),
        ready_replicas: sum(all, |rs| rs.status.ready_replicas),
        available_replicas: available,
        unavailable_replicas: total.wrapping_sub(available).max(0),
        terminating_replicas: None,
        conditions: d.status.conditions.clone(),
        collision_count: d.status.collision_count,
    };
    if gates.deployment_replica_set_terminating_replicas {
        status.terminating_replicas = terminating(all);
    }
    let condition = if available >= min_available(d) {
        new_condition(
            reason::AVAILABLE,
            "True",
            reason::MIN_AVAILABLE,
            "Deployment has minimum availability.".into(),
            now,
        )
    } else {
        new_condition(
            reason::AVAILABLE,
            "False",
            reason::MIN_UNAVAILABLE,
            "Deployment does not have minimum availability.".into(),
            now,
        )
    };
    set_condition(&mut status, condition);
    status
}

/// D-74 `DeploymentComplete`.
pub(crate) fn is_complete(d: &Deployment, s: &DeploymentStatus) -> bool {
    let r = d.replicas();
    s.updated_replicas == r
        && s.replicas == r
        && s.available_replicas == r
        && s.observed_generation >= d.metadata.generation.unwrap_or(0)
}

/// D-75 `DeploymentProgressing`.
pub(crate) fn is_progressing(d: &Deployment, s: &DeploymentStatus) -> bool {
    let old = &d.status;
    let old_old = old.replicas.wrapping_sub(old.updated_replicas);
    let new_old = s.replicas.wrapping_sub(s.updated_replicas);
    s.updated_replicas > old.updated_replicas
        || new_old < old_old
        || s.ready_replicas > old.ready_replicas
        || s.available_replicas > old.available_replicas
}

fn deadline(d: &Deployment) -> Duration {
    Duration::from_seconds(i64::from(d.spec.progress_deadline_seconds.unwrap_or(0)))
}

/// D-76 `DeploymentTimedOut` on the new status's Progressing condition.
pub(crate) fn is_timed_out(d: &Deployment, s: &DeploymentStatus, now: Time) -> bool {
    if !d.has_progress_deadline() {
        return false;
    }
    let Some(c) = s.condition(reason::PROGRESSING) else {
        return false;
    };
    if c.reason == reason::NEW_RS_AVAILABLE {
        return false;
    }
    if c.reason == reason::TIMED_OUT {
        return true;
    }
    match c.last_update_time {
        // Go's zero time plus the deadline is long before now.
        None => true,
        Some(from) => from.plus(deadline(d)) < now,
    }
}

/// D-78 `requeueStuckDeployment`.
pub(crate) fn requeue_stuck(d: &Deployment, s: &DeploymentStatus, now: Time) -> ProgressRequeue {
    let Some(c) = d.status.condition(reason::PROGRESSING) else {
        return ProgressRequeue::None;
    };
    if !d.has_progress_deadline() || is_complete(d, s) || c.reason == reason::TIMED_OUT {
        return ProgressRequeue::None;
    }
    let after = match c.last_update_time {
        Some(t) => t.plus(deadline(d)).since(now),
        None => Duration::from_nanos(i64::MIN),
    };
    if after < Duration::from_seconds(1) {
        return ProgressRequeue::RateLimited;
    }
    ProgressRequeue::After {
        after: Duration::from_nanos(after.as_nanos().saturating_add(1_000_000_000)),
    }
}

/// `UpdateStatus` of the deployment as the sync holds it.
pub(crate) fn update_status(ctx: &mut Ctx<'_>, d: &Wire<Deployment>) -> Run<Result<(), SyncError>> {
    let r = ctx.call(ApiCall::UpdateDeploymentStatus {
        namespace: d.metadata.namespace.clone(),
        name: d.metadata.name.clone(),
        object: deployment_wire(d),
    })?;
    Ok(r.map(|_| ()).map_err(|e| SyncError::api(&e)))
}

/// A status write whose error ends the sync.
fn write_status(ctx: &mut Ctx<'_>, d: &Wire<Deployment>) -> Run<()> {
    update_status(ctx, d)?.map_err(Flow::Fail)
}

/// D-71 `syncDeploymentStatus`: write the calculated status when it differs.
pub(crate) fn sync_deployment_status(
    ctx: &mut Ctx<'_>,
    all: &[&Rs],
    new_rs: Option<&Rs>,
    d: &mut Wire<Deployment>,
) -> Run<()> {
    let status = calculate_status(all, new_rs, d, &ctx.gates, ctx.now);
    if d.status == status {
        return Ok(());
    }
    d.status = status;
    write_status(ctx, d)
}

/// D-72 `getReplicaFailures`: the new RS's ReplicaFailure conditions, else all RSs'.
fn replica_failures(all: &[&Rs], new_rs: Option<&Rs>) -> Vec<DeploymentCondition> {
    let of = |rs: &Rs| -> Vec<DeploymentCondition> {
        rs.status
            .conditions
            .iter()
            .flatten()
            .filter(|c| c.type_ == reason::REPLICA_FAILURE)
            .map(|c| DeploymentCondition {
                type_: c.type_.clone(),
                status: c.status.clone(),
                last_update_time: c.last_transition_time,
                last_transition_time: c.last_transition_time,
                reason: c.reason.clone(),
                message: c.message.clone(),
            })
            .collect()
    };
    let from_new = new_rs.map(of).unwrap_or_default();
    if !from_new.is_empty() {
        return from_new;
    }
    all.iter().flat_map(|rs| of(rs)).collect()
}

/// D-72 `syncRolloutStatus`.
pub(crate) fn sync_rollout_status(
    ctx: &mut Ctx<'_>,
    all: &[&Rs],
    new_rs: Option<&Rs>,
    d: &mut Wire<Deployment>,
) -> Run<()> {
    let now = ctx.now;
    let mut status = calculate_status(all, new_rs, d, &ctx.gates, now);
    if !d.has_progress_deadline() {
        remove_condition(&mut status, reason::PROGRESSING);
    }
    let current = d.status.condition(reason::PROGRESSING).cloned();
    let already_complete = status.replicas == status.updated_replicas
        && current
            .as_ref()
            .is_some_and(|c| c.reason == reason::NEW_RS_AVAILABLE);
    if d.has_progress_deadline() && !already_complete {
        let subject = match new_rs {
            Some(rs) => format!("ReplicaSet {}", go_quote(&rs.metadata.name)),
            None => format!("Deployment {}", go_quote(&d.metadata.name)),
        };
        if is_complete(d, &status) {
            let c = new_condition(
                reason::PROGRESSING,
                "True",
                reason::NEW_RS_AVAILABLE,
                format!("{subject} has successfully progressed."),
                now,
            );
            set_condition(&mut status, c);
        } else if is_progressing(d, &status) {
            let mut c = new_condition(
                reason::PROGRESSING,
                "True",
                reason::RS_UPDATED,
                format!("{subject} is progressing."),
                now,
            );
            if let Some(cur) = &current {
                if cur.status == "True" {
                    c.last_transition_time = cur.last_transition_time;
                }
                remove_condition(&mut status, reason::PROGRESSING);
            }
            set_condition(&mut status, c);
        } else if is_timed_out(d, &status, now) {
            let c = new_condition(
                reason::PROGRESSING,
                "False",
                reason::TIMED_OUT,
                format!("{subject} has timed out progressing."),
                now,
            );
            set_condition(&mut status, c);
        }
    }
    match replica_failures(all, new_rs).into_iter().next() {
        Some(c) => set_condition(&mut status, c),
        None => remove_condition(&mut status, reason::REPLICA_FAILURE),
    }
    if d.status == status {
        ctx.requeue = requeue_stuck(d, &status, now);
        return Ok(());
    }
    d.status = status;
    write_status(ctx, d)
}
