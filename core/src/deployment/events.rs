//! Event reasons and texts the Deployment controller records (D-100, D-03).

use super::machine::Ctx;

pub(crate) use crate::controller::event_correlation::{NORMAL, WARNING};

pub(crate) const SCALING_REPLICA_SET: &str = "ScalingReplicaSet";
pub(crate) const SELECTING_ALL: &str = "SelectingAll";
pub(crate) const RS_CREATE_ERROR: &str = "ReplicaSetCreateError";
pub(crate) const ROLLBACK_DONE: &str = "DeploymentRollback";
pub(crate) const ROLLBACK_REVISION_NOT_FOUND: &str = "DeploymentRollbackRevisionNotFound";
pub(crate) const ROLLBACK_TEMPLATE_UNCHANGED: &str = "DeploymentRollbackTemplateUnchanged";

/// Go's `%q` of a plain string (names, messages): quoted with `"` and `\` escaped.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// D-11.
pub(crate) fn selecting_all(ctx: &mut Ctx<'_>) {
    ctx.event(
        WARNING,
        SELECTING_ALL,
        "This deployment is selecting all pods. A non-empty selector is required.".into(),
    );
}

/// D-34 / D-47: `Scaled up|down replica set <name> from <a> to <b>`.
pub(crate) fn scaled(ctx: &mut Ctx<'_>, name: &str, from: i32, to: i32) {
    let way = if from < to { "up" } else { "down" };
    ctx.event(
        NORMAL,
        SCALING_REPLICA_SET,
        format!("Scaled {way} replica set {name} from {from} to {to}"),
    );
}

/// D-34: the create failure's message (also the Progressing condition's).
pub(crate) fn failed_create_message(name: &str, error: &str) -> String {
    format!(
        "Failed to create new replica set {}: {error}",
        go_quote(name)
    )
}

/// D-90 / D-91 warnings.
pub(crate) fn rollback_warning(ctx: &mut Ctx<'_>, reason: &str, message: String) {
    ctx.event(WARNING, reason, message);
}

/// D-91: the rollback was made.
pub(crate) fn rolled_back(ctx: &mut Ctx<'_>, deployment: &str, revision: i64) {
    ctx.event(
        NORMAL,
        ROLLBACK_DONE,
        format!(
            "Rolled back deployment {} to revision {revision}",
            go_quote(deployment)
        ),
    );
}
