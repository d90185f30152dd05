//! Event reasons and messages the ReplicaSet controller records on its owner: one event
//! per create and delete call (`SuccessfulCreate` / `FailedCreate`, `SuccessfulDelete` /
//! `FailedDelete`; a create refused because the namespace is terminating records none,
//! R-53), and the reasons of the ReplicaFailure condition (C-8), which reuse the two
//! failure reasons.

use super::protocol::Event;

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

/// A create call succeeded (`name`: the pod's name as the API server gave it).
pub(crate) fn created(name: &str) -> Event {
    event(NORMAL, SUCCESSFUL_CREATE, format!("Created pod: {name}"))
}

/// A create call failed (other than the namespace terminating, R-53).
pub(crate) fn create_failed(error: &str) -> Event {
    event(WARNING, FAILED_CREATE, format!("Error creating: {error}"))
}

/// A delete call succeeded.
pub(crate) fn deleted(name: &str) -> Event {
    event(NORMAL, SUCCESSFUL_DELETE, format!("Deleted pod: {name}"))
}

/// A delete call failed other than with NotFound.
pub(crate) fn delete_failed(error: &str) -> Event {
    event(WARNING, FAILED_DELETE, format!("Error deleting: {error}"))
}
