//! The new ReplicaSet: syncing its annotations and revision, creating it, and the hash
//! collision path (D-27, D-30..D-35).

use serde_json::{json, Value};

use crate::config::DeploymentKinds;
use crate::error::Error;

use super::events::{self, go_quote};
use super::hash::pod_template_hash;
use super::lookup::{equal_ignore_hash, find_new_and_old, rs_template};
use super::machine::{ApiCall, Ctx, Flow, Run, SyncError};
use super::model::{
    reason, Deployment, Rs, Wire, HASH_LABEL, MAX_REVISION_HISTORY_CHARS, RECREATE,
    REVISION_ANNOTATION, ROLLING_UPDATE,
};
use super::revision::{max_revision, set_deployment_revision, set_new_rs_annotations};
use super::scale::{as_sent, or_fail, returned};
use super::status::{new_condition, set_condition, update_status};
use super::strategy::{max_replicas, scaled_value};

/// D-27: `<deployment>-<hash>`, the deployment name cut so the whole fits in 253.
pub fn replica_set_name(deployment: &str, hash: &str) -> String {
    let max = 253usize.saturating_sub(1 + hash.len());
    if deployment.len() > max && max > 0 {
        let mut cut = max;
        while !deployment.is_char_boundary(cut) {
            cut -= 1;
        }
        return format!("{}-{hash}", deployment.get(..cut).unwrap_or(deployment));
    }
    format!("{deployment}-{hash}")
}

/// D-51 / D-32 `NewRSNewReplicas`: how many replicas the new RS should have.
pub(crate) fn new_rs_new_replicas(
    d: &Deployment,
    all: &[&Rs],
    new_rs_size: i32,
) -> Result<i32, String> {
    let r = d.replicas();
    match d.spec.strategy.type_.as_str() {
        ROLLING_UPDATE => {
            let surge = d
                .spec
                .strategy
                .rolling_update
                .as_ref()
                .and_then(|ru| ru.max_surge.as_ref())
                .ok_or_else(|| String::from("nil value for IntOrString"))?;
            let surge = scaled_value(surge, r, true)?;
            let current = all
                .iter()
                .fold(0i32, |a, rs| a.wrapping_add(rs.spec.desired()));
            let max_total = r.wrapping_add(surge);
            if current >= max_total {
                return Ok(new_rs_size);
            }
            let up = max_total
                .wrapping_sub(current)
                .min(r.wrapping_sub(new_rs_size));
            Ok(new_rs_size.wrapping_add(up))
        }
        RECREATE => Ok(r),
        other => Err(format!("deployment type {other} isn't supported")),
    }
}

/// D-26 + D-30..D-35 `getAllReplicaSetsAndSyncRevision`: (new RS, all old RSs). With
/// `create`, a missing new RS is created.
pub(crate) fn find_and_sync_revision(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    rs_list: &mut [Rs],
    create: bool,
) -> Run<(Option<Rs>, Vec<Rs>)> {
    let (new, old) = find_new_and_old(d, rs_list);
    let existing = new.and_then(|i| rs_list.get(i).cloned());
    let new_rs = new_replica_set(ctx, d, existing, &old, create)?;
    Ok((new_rs, old))
}

fn new_replica_set(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    existing: Option<Rs>,
    old: &[Rs],
    create: bool,
) -> Run<Option<Rs>> {
    let new_revision = max_revision(old).wrapping_add(1);
    if let Some(existing) = existing {
        return sync_existing(ctx, d, existing, new_revision).map(Some);
    }
    if !create {
        return Ok(None);
    }
    create_new(ctx, d, old, new_revision).map(Some)
}

/// D-30: the existing new RS's annotations and minReadySeconds, then the deployment's
/// revision and FoundNewReplicaSet condition.
fn sync_existing(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    existing: Rs,
    new_revision: i64,
) -> Run<Rs> {
    let mut copy = existing;
    let annotations_updated = set_new_rs_annotations(
        d,
        &mut copy.metadata,
        new_revision,
        true,
        max_replicas(d),
        MAX_REVISION_HISTORY_CHARS,
    );
    let min_ready_differs = copy.spec.min_ready_seconds != d.spec.min_ready_seconds;
    if annotations_updated || min_ready_differs {
        copy.spec.min_ready_seconds = d.spec.min_ready_seconds;
        let copy = as_sent(copy);
        let r = ctx.call(ApiCall::UpdateReplicaSet {
            namespace: copy.metadata.namespace.clone(),
            name: copy.metadata.name.clone(),
            object: Value::clone(&copy.wire),
        })?;
        return match r {
            Ok(object) => returned(ctx, copy, object),
            Err(e) => Err(Flow::Fail(SyncError::api(&e))),
        };
    }
    let revision = copy
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(REVISION_ANNOTATION))
        .cloned()
        .unwrap_or_default();
    let mut needs_update = set_deployment_revision(d, &revision);
    if d.has_progress_deadline() && d.status.condition(reason::PROGRESSING).is_none() {
        let c = new_condition(
            reason::PROGRESSING,
            "True",
            reason::FOUND_NEW_RS,
            format!("Found new replica set {}", go_quote(&copy.metadata.name)),
            ctx.now,
        );
        set_condition(&mut d.status, c);
        needs_update = true;
    }
    if needs_update {
        or_fail(update_status(ctx, d)?)?;
    }
    Ok(copy)
}

/// D-32: the new RS object (replicas still 0).
fn build_new(d: &Deployment, hash: &str, kinds: &DeploymentKinds) -> Run<Rs> {
    let mut template = d.spec.template.clone();
    if !template.is_object() {
        template = json!({});
    }
    let mut labels = template
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.insert(HASH_LABEL.into(), Value::from(hash));
    super::model::set_path(
        &mut template,
        &["metadata", "labels"],
        Some(Value::Object(labels.clone())),
    );
    let Some(selector) = d.spec.selector.as_ref() else {
        return Err(Flow::Bad(Error::Missing {
            path: "deployment.spec.selector".into(),
        }));
    };
    let mut selector = selector.clone();
    selector
        .match_labels
        .get_or_insert_with(Default::default)
        .insert(HASH_LABEL.into(), hash.into());
    let kind = &kinds.deployment;
    let rs_kind = &kinds.replica_set;
    let m = &d.metadata;
    let wire = json!({
        "apiVersion": rs_kind.api_version,
        "kind": rs_kind.kind,
        "metadata": {
            "name": replica_set_name(&m.name, hash),
            "namespace": m.namespace,
            "labels": labels,
            "ownerReferences": [{
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "name": m.name,
                "uid": m.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        },
        "spec": {
            "replicas": 0,
            "minReadySeconds": d.spec.min_ready_seconds,
            "selector": selector,
            "template": template,
        },
        "status": {"replicas": 0},
    });
    Wire::from_value(wire).map_err(Flow::Bad)
}

/// D-32..D-35: create the new RS; AlreadyExists ⇒ reuse our own or count a collision.
fn create_new(
    ctx: &mut Ctx<'_>,
    d: &mut Wire<Deployment>,
    old: &[Rs],
    new_revision: i64,
) -> Run<Rs> {
    let hash = pod_template_hash(&d.spec.template, d.status.collision_count)
        .map_err(|e| Flow::Bad(e.under("deployment.spec.template")))?;
    let mut new_rs = build_new(d, &hash, ctx.kinds)?;
    let all: Vec<&Rs> = old.iter().chain(std::iter::once(&new_rs)).collect();
    let replicas = new_rs_new_replicas(d, &all, 0).map_err(|e| Flow::Fail(SyncError::new(e)))?;
    new_rs.spec.replicas = Some(replicas);
    set_new_rs_annotations(
        d,
        &mut new_rs.metadata,
        new_revision,
        false,
        max_replicas(d),
        MAX_REVISION_HISTORY_CHARS,
    );
    let new_rs = as_sent(new_rs);
    let name = new_rs.metadata.name.clone();
    let namespace = new_rs.metadata.namespace.clone();
    let r = ctx.call(ApiCall::CreateReplicaSet {
        namespace: namespace.clone(),
        name: name.clone(),
        object: Value::clone(&new_rs.wire),
    })?;
    let (created, already_exists) = match r {
        Ok(object) => (returned(ctx, new_rs, object)?, false),
        Err(e) if e.reason == "AlreadyExists" => {
            let Some(cached) = ctx
                .cache
                .iter()
                .find(|rs| rs.metadata.namespace == namespace && rs.metadata.name == name)
                .cloned()
            else {
                return Err(Flow::Fail(SyncError::new(format!(
                    "replicaset.apps {} not found",
                    go_quote(&name)
                ))));
            };
            let ours = cached
                .metadata
                .controller_ref()
                .is_some_and(|r| r.uid == d.metadata.uid);
            if ours && equal_ignore_hash(&d.spec.template, rs_template(&cached)) {
                (cached, true)
            } else {
                let count = d.status.collision_count.unwrap_or(0).wrapping_add(1);
                d.status.collision_count = Some(count);
                let _ = update_status(ctx, d)?;
                return Err(Flow::Fail(SyncError::api(&e)));
            }
        }
        Err(e) if e.is_namespace_terminating() => return Err(Flow::Fail(SyncError::api(&e))),
        Err(e) => {
            let message = events::failed_create_message(&name, &e.message);
            if d.has_progress_deadline() {
                let c = new_condition(
                    reason::PROGRESSING,
                    "False",
                    reason::FAILED_RS_CREATE,
                    message.clone(),
                    ctx.now,
                );
                set_condition(&mut d.status, c);
                let _ = update_status(ctx, d)?;
            }
            ctx.event(events::WARNING, events::RS_CREATE_ERROR, message);
            return Err(Flow::Fail(SyncError::api(&e)));
        }
    };
    if !already_exists && replicas > 0 {
        events::scaled(ctx, &created.metadata.name, 0, replicas);
    }
    let mut needs_update = set_deployment_revision(d, &new_revision.to_string());
    if !already_exists && d.has_progress_deadline() {
        let c = new_condition(
            reason::PROGRESSING,
            "True",
            reason::NEW_RS_CREATED,
            format!(
                "Created new replica set {}",
                go_quote(&created.metadata.name)
            ),
            ctx.now,
        );
        set_condition(&mut d.status, c);
        needs_update = true;
    }
    if needs_update {
        or_fail(update_status(ctx, d)?)?;
    }
    Ok(created)
}
