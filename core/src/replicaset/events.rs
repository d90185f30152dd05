//! Event reasons and messages the ReplicaSet controller records on its owner: one event
//! per create and delete call, recorded when the call returns (R-61: `SuccessfulCreate` /
//! `FailedCreate`, `SuccessfulDelete` / `FailedDelete`; a create refused because the
//! namespace is terminating records none, R-53, nor a delete of a pod already gone), and
//! the reasons of the ReplicaFailure condition (C-8), which reuse the two failure reasons.

use super::protocol::Event;
use crate::outcome::CallResult;

pub(crate) use crate::controller::event_correlation::{NORMAL, WARNING};

pub(crate) const SUCCESSFUL_CREATE: &str = "SuccessfulCreate";
pub(crate) const FAILED_CREATE: &str = "FailedCreate";
pub(crate) const SUCCESSFUL_DELETE: &str = "SuccessfulDelete";
pub(crate) const FAILED_DELETE: &str = "FailedDelete";

fn event(type_: &str, reason: &str, message: String) -> Event {
    Event {
        type_: type_.into(),
        reason: reason.into(),
        message,
    }
}

/// the event a create call records on its owner, or `None`. Upstream's pod
/// control records it as soon as the call returns, before the sync goes on: a host that
/// sends a batch's creates at once records each one's event when its answer comes (the
/// order and the timing the event recorder's queue sees). [`Completion::events`] holds
/// the same events in call order, for a host that records them after the sync.
///
/// [`Completion::events`]: super::Completion::events
pub fn create_event(result: &CallResult) -> Option<Event> {
    match result {
        CallResult::Ok { name } => Some(created(name.as_deref().unwrap_or(""))),
        CallResult::Error(e) if e.is_namespace_terminating() => None,
        CallResult::Error(e) => Some(create_failed(&e.message)),
        CallResult::Skipped => None,
    }
}

/// the event the delete of pod `pod` (a victim's name) records on its owner, or
/// `None` (a pod already gone records none), when the call returns; as
/// [`create_event`].
pub fn delete_event(pod: &str, result: &CallResult) -> Option<Event> {
    match result {
        CallResult::Ok { .. } => Some(deleted(pod)),
        CallResult::Error(e) if e.is_not_found() => None,
        CallResult::Error(e) => Some(delete_failed(&e.message)),
        CallResult::Skipped => None,
    }
}

/// A create call succeeded (`name`: the pod's name as the API server gave it).
fn created(name: &str) -> Event {
    event(NORMAL, SUCCESSFUL_CREATE, format!("Created pod: {name}"))
}

/// A create call failed (other than the namespace terminating, R-53).
fn create_failed(error: &str) -> Event {
    event(WARNING, FAILED_CREATE, format!("Error creating: {error}"))
}

/// A delete call succeeded.
fn deleted(name: &str) -> Event {
    event(NORMAL, SUCCESSFUL_DELETE, format!("Deleted pod: {name}"))
}

/// A delete call failed other than with NotFound.
fn delete_failed(error: &str) -> Event {
    event(WARNING, FAILED_DELETE, format!("Error deleting: {error}"))
}
