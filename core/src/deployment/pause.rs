//! Paused / resumed conditions (D-80, D-81).

use super::machine::{Ctx, Run};
use super::model::{reason, Deployment, Wire};
use super::scale::or_fail;
use super::status::{new_condition, set_condition, update_status};

/// D-80 `checkPausedConditions`: the Progressing=Unknown condition that says paused or
/// resumed; written when it changes.
pub(crate) fn check_paused_conditions(ctx: &mut Ctx<'_>, d: &mut Wire<Deployment>) -> Run<()> {
    if !paused_condition_change(d, ctx) {
        return Ok(());
    }
    or_fail(update_status(ctx, d)?)
}

/// Sets the condition when it must change; true when it did.
fn paused_condition_change(d: &mut Deployment, ctx: &Ctx<'_>) -> bool {
    if !d.has_progress_deadline() {
        return false;
    }
    let current = d
        .status
        .condition(reason::PROGRESSING)
        .map(|c| c.reason.clone());
    if current.as_deref() == Some(reason::TIMED_OUT) {
        return false;
    }
    let paused_exists = current.as_deref() == Some(reason::PAUSED);
    let condition = if d.spec.paused && !paused_exists {
        new_condition(
            reason::PROGRESSING,
            "Unknown",
            reason::PAUSED,
            "Deployment is paused".into(),
            ctx.now,
        )
    } else if !d.spec.paused && paused_exists {
        new_condition(
            reason::PROGRESSING,
            "Unknown",
            reason::RESUMED,
            "Deployment is resumed".into(),
            ctx.now,
        )
    } else {
        return false;
    };
    set_condition(&mut d.status, condition);
    true
}
