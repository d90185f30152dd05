//! Rollback by the deprecated `rollbackTo` annotation (D-90..D-93).

use serde_json::Value;

use super::events::{self, go_quote};
use super::lookup::{equal_ignore_hash, rs_template};
use super::machine::{ApiCall, Ctx, Flow, Run, SyncError};
use super::model::{deployment_wire, Deployment, Rs, Wire, HASH_LABEL, ROLLBACK_TO_ANNOTATION};
use super::newrs::find_and_sync_revision;
use super::revision::{last_revision, parse_int64, revision, set_deployment_annotations_to};

/// D-90 `getRollbackTo`: the requested revision, when the annotation is a non-empty
/// decimal integer.
pub(crate) fn rollback_to(d: &Deployment) -> Option<i64> {
    let v = d.annotation(ROLLBACK_TO_ANNOTATION)?;
    if v.is_empty() {
        return None;
    }
    parse_int64(v)
}

/// D-90..D-93 `rollback`.
pub(crate) fn rollback(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>, rs_list: &mut [Rs]) -> Run<()> {
    let (new_rs, old) = find_and_sync_revision(ctx, d, rs_list, true)?;
    let all: Vec<&Rs> = old.iter().chain(new_rs.as_ref()).collect();
    let mut target = rollback_to(d).unwrap_or(0);
    if target == 0 {
        target = last_revision(all.iter().copied());
        if target == 0 {
            events::rollback_warning(
                ctx,
                events::ROLLBACK_REVISION_NOT_FOUND,
                "Unable to find last revision.".into(),
            );
            return clear_rollback_to(ctx, d);
        }
    }
    if let Some(rs) = all.iter().find(|rs| revision(&rs.metadata) == Some(target)) {
        let performed = rollback_to_template(ctx, d, rs)?;
        if performed {
            events::rolled_back(ctx, &d.metadata.name.clone(), target);
        }
        return Ok(());
    }
    events::rollback_warning(
        ctx,
        events::ROLLBACK_REVISION_NOT_FOUND,
        "Unable to find the revision to rollback to.".into(),
    );
    clear_rollback_to(ctx, d)
}

/// D-91 `rollbackToTemplate`: copy the RS's template (without the hash label) and
/// annotations into the deployment, unless the template is already the deployment's.
fn rollback_to_template(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>, rs: &Rs) -> Run<bool> {
    let template = rs_template(rs);
    let performed = !equal_ignore_hash(&d.spec.template, template);
    if performed {
        d.spec.template = without_hash_label(template);
        set_deployment_annotations_to(d, &rs.metadata);
    } else {
        events::rollback_warning(
            ctx,
            events::ROLLBACK_TEMPLATE_UNCHANGED,
            format!(
                "The rollback revision contains the same template as current deployment {}",
                go_quote(&d.metadata.name)
            ),
        );
    }
    clear_rollback_to(ctx, d)?;
    Ok(performed)
}

/// `SetFromReplicaSetTemplate`: the template with the hash label removed (an empty label
/// map is omitted, as Go writes it). `kubectl rollout undo` copies a revision's template
/// the same way, client-side.
pub fn without_hash_label(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(meta) = t.get_mut("metadata").and_then(Value::as_object_mut) {
        let empty = match meta.get_mut("labels").and_then(Value::as_object_mut) {
            Some(labels) => {
                labels.remove(HASH_LABEL);
                labels.is_empty()
            }
            None => false,
        };
        if empty {
            meta.remove("labels");
        }
    }
    t
}

/// D-93 `updateDeploymentAndClearRollbackTo`: drop the annotation and update the
/// deployment (not its status).
fn clear_rollback_to(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>) -> Run<()> {
    if let Some(a) = d.metadata.annotations.as_mut() {
        a.remove(ROLLBACK_TO_ANNOTATION);
    }
    let r = ctx.call(ApiCall::UpdateDeployment {
        namespace: d.metadata.namespace.clone(),
        name: d.metadata.name.clone(),
        object: deployment_wire(d),
    })?;
    r.map(|_| ()).map_err(|e| Flow::Fail(SyncError::api(&e)))
}
