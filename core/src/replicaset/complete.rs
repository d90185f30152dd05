//! The completion of a sync (S-9..S-15, `syncReplicaSet` after `manageReplicas`):
//! what the host's call results mean: the expectation corrections, the events, the
//! status to write (through [`super::status`]) and the requeue.

use super::availability;
use super::events;
use super::manage::create_failed;
use super::plan::AfterClaims;
use super::protocol::{Completion, CreatePlan, Halt, Idle, Manage, Requeue, SyncPlan};
use super::slowstart::{self, SLOW_START_INITIAL_BATCH_SIZE};
use super::status::{self, StatusContext};
use crate::error::{Error, Result};
use crate::expectations::ExpectationsChange;
use crate::outcome::{CallResult, SyncOutcome};

impl Completion {
    /// S-11..S-15: the requeue once the status write's result is known (`Err` = the
    /// final write error after the retry).
    pub fn requeue_after_status_write(&self, write: std::result::Result<(), String>) -> Requeue {
        match write {
            Err(e) => Requeue::RateLimited { error: e },
            Ok(()) => self.requeue.clone(),
        }
    }
}

fn outcome_len(path: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::Outcome {
            path: path.into(),
            message: format!("{got} results for {want} planned calls"),
        })
    }
}

/// S-9..S-15: what the host's results mean: expectation corrections, the status to
/// write, events, the error and the requeue.
pub fn complete(plan: &SyncPlan, outcome: &SyncOutcome) -> Result<Completion> {
    let mut done = Completion {
        manage: Manage::Nothing { why: Idle::Halted },
        created: 0,
        create_calls: 0,
        create_batches: Vec::new(),
        deleted: 0,
        expectations: Vec::new(),
        status: None,
        error: None,
        requeue: Requeue::Done,
        events: Vec::new(),
    };
    if plan.halt.is_some() {
        // A halted sync makes no call at all.
        outcome_len("claims.results", outcome.claims.results.len(), 0)?;
        outcome_len("creates", outcome.creates.len(), 0)?;
        outcome_len("deletes", outcome.deletes.len(), 0)?;
        if plan.halt == Some(Halt::StaleCache) {
            done.requeue = Requeue::RateLimited {
                error: format!(
                    "{}: the cache has not yet observed this controller's writes",
                    plan.key
                ),
            };
        }
        return Ok(done);
    }
    // S-7, R-33
    let (tally, manage) = match plan.after_claims(&outcome.claims)? {
        AfterClaims::Failed(errors) => {
            // no manage step runs after a failed claim.
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), 0)?;
            let error = aggregate(&errors);
            done.manage = Manage::Nothing {
                why: Idle::ClaimFailed,
            };
            done.requeue = Requeue::RateLimited {
                error: error.clone(),
            };
            done.error = Some(error);
            return Ok(done);
        }
        AfterClaims::Proceed { tally, manage } => (tally, manage),
    };

    // S-9: the manage outcome.
    let mut manage_error: Option<String> = None;
    match &manage {
        Manage::Nothing { .. } => {
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), 0)?;
        }
        Manage::Create(c) => {
            outcome_len("deletes", outcome.deletes.len(), 0)?;
            let (successes, error) = judge_creates(c, &outcome.creates, &mut done)?;
            let skipped = c.count.saturating_sub(successes);
            if skipped > 0 {
                done.expectations.push(ExpectationsChange::LowerCreations {
                    count: skipped as i64,
                });
            }
            manage_error = error;
        }
        Manage::Delete(d) => {
            outcome_len("creates", outcome.creates.len(), 0)?;
            outcome_len("deletes", outcome.deletes.len(), d.victims.len())?;
            for (v, r) in d.victims.iter().zip(&outcome.deletes) {
                let key = format!("{}/{}", v.namespace, v.name);
                done.events.extend(events::delete_event(&v.name, r));
                match r {
                    CallResult::Ok { .. } => done.deleted += 1,
                    CallResult::Error(e) => {
                        done.expectations
                            .push(ExpectationsChange::DeletionObserved { key });
                        if !e.is_not_found() {
                            manage_error.get_or_insert_with(|| {
                                format!("unable to delete pods: {}", e.message)
                            });
                        }
                    }
                    CallResult::Skipped => {
                        return Err(Error::Outcome {
                            path: "deletes".into(),
                            message: format!(
                            "the deletion of {} was skipped; every planned delete must be issued",
                            crate::error::capped(&key)
                        ),
                        })
                    }
                }
            }
        }
    }
    done.manage = manage;

    // S-10: status over the claimed pods, from the plan's tally of them.
    let basis = &plan.basis;
    let owner_rs = &basis.owner;
    let new_status = status::finish(
        owner_rs,
        tally.count,
        status::Counts {
            fully: tally.fully_labeled,
            ready: tally.ready,
            available: tally.available,
        },
        basis.terminating,
        StatusContext {
            gates: &basis.config.feature_gates,
            owner_kind: &basis.config.owner_kind,
            manage_error: manage_error.as_deref(),
            now: plan.now,
            wall_clock: plan.now,
        },
    );
    // S-11, R-85, R-86
    if status::needs_write(owner_rs, &new_status) {
        done.status = Some(status::to_write(owner_rs, new_status.clone()));
    }
    // S-13, S-14
    done.requeue = match &manage_error {
        Some(e) => Requeue::RateLimited { error: e.clone() },
        None => match availability::requeue_after_next_check(
            &new_status,
            tally.available_at.map(|t| t.since(plan.now)),
            owner_rs.spec.min_ready_seconds,
        ) {
            Some(after) => Requeue::After { after },
            None => Requeue::Done,
        },
    };
    done.error = manage_error;
    Ok(done)
}

/// R-52..R-54: slow start over the create results. Returns (successes, first error).
fn judge_creates(
    c: &CreatePlan,
    results: &[CallResult],
    done: &mut Completion,
) -> Result<(usize, Option<String>)> {
    if let Some(why) = &c.refused {
        outcome_len("creates", results.len(), 0)?;
        done.create_batches = vec![1.min(c.count)];
        return Ok((0, Some(why.clone())));
    }
    let run = slowstart::run(c.count, SLOW_START_INITIAL_BATCH_SIZE, |i| {
        results.get(i).is_none_or(create_failed)
    });
    outcome_len("creates", results.len(), run.calls)?;
    done.create_batches = run.batches;
    done.create_calls = run.calls;
    let mut first_error = None;
    for r in results {
        done.events.extend(events::create_event(r));
        match r {
            CallResult::Ok { .. } => done.created += 1,
            CallResult::Error(e) if e.is_namespace_terminating() => {}
            CallResult::Error(e) => {
                first_error.get_or_insert_with(|| e.message.clone());
            }
            CallResult::Skipped => {
                return Err(Error::Outcome {
                    path: "creates".into(),
                    message: "a create call was skipped; report every call of a started batch"
                        .into(),
                })
            }
        }
    }
    Ok((run.successes, first_error))
}

/// `utilerrors.NewAggregate(...).Error()`.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}
