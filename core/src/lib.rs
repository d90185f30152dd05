//! # replicore
//!
//! The decisions of kube-controller-manager's scaling controllers (the ReplicaSet,
//! Deployment and HorizontalPodAutoscaler controllers) as a pure engine: snapshots in,
//! decisions out, no I/O, no clock, no global state. The host makes the API calls and
//! reports their results; the engine says what they mean.
//!
//! **ReplicaSet** ([`replicaset`]). Given the owner, the pods and the expectations at an
//! instant `now`, [`plan`] says which pods to adopt or release, how many to create in
//! which slow-start batches, which to delete and why those; the host makes the API calls
//! and hands their results to [`complete`], which says what status to write, how to
//! correct the expectations, which events to record and when to look again.
//! [`on_pod_event`] and [`on_owner_event`] say what a watch event asks for. Hosts that
//! stream watch events keep their objects in a [`Store`] and plan from it.
//!
//! **Deployment** ([`deployment`]). One `syncDeployment(key)` as a step machine
//! ([`deployment::DeploymentSync`]) that names each API call and takes its result, then
//! says what the sync amounted to.
//!
//! **HorizontalPodAutoscaler** ([`hpa`]). One `reconcileAutoscaler` as a step machine
//! ([`hpa::HpaSync`]): the target's scale, its pods and metrics in, the replica count, the
//! status and the events out, with the controller's memory carried between syncs.
//!
//! **Shared.** What the controllers share (upstream's `pkg/controller`): label
//! [`selector`]s, ControllerRef [`claim`]ing, the pod predicates of [`pods`],
//! [`expectations`], how the recorder writes events ([`event_correlation`], as
//! client-go's `EventCorrelator`), the pods a [`quota`] charges and the [`workqueue`]'s
//! rate-limiter numbers. The object model and the wire: [`model`], [`input`],
//! [`outcome`], [`config`] (burst size, owner kinds, feature gates), [`error`], [`time`],
//! [`quantity`]. With feature `explain`, module `explain` says in words what each
//! controller's next sync would do.
//!
//! Rules are cited by id (`R-72`, `D-51`, `EC-02`, …). The repository's
//! `docs/rules.md` states each one and names the function that implements it;
//! `docs/architecture.md` describes the two protocols, the data flow from a host through
//! wasm into this crate, and the invariants; `docs/embedding.md` shows the engine from
//! Rust and JavaScript.
//!
//! ```
//! use replicore::{plan, Config, Manage, SyncInput};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let input = SyncInput::from_json(br#"{
//!   "now": "2026-11-21T04:40:12Z",
//!   "owner": {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
//!             "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
//!                      "template": {"metadata": {"labels": {"app": "web"}}}}},
//!   "pods": []
//! }"#)?;
//! let config = Config::default();
//! let plan = plan(&input, &config)?;
//! assert!(matches!(&plan.manage, Manage::Create(c) if c.count == 3 && c.batches == [1, 2]));
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::todo,
        clippy::unimplemented
    )
)]

// Every public item is documented and nothing is `pub` that cannot be reached
// (`missing_docs`, `unreachable_pub` above); machinery only the crate uses is `pub(crate)`.
mod api;
mod controller;
pub mod deployment;
#[cfg(feature = "explain")]
pub mod explain;
pub mod hpa;
pub mod replicaset;
mod util;

#[cfg(feature = "k8s-openapi")]
pub use api::from_k8s;
#[cfg(feature = "ts")]
pub use api::ts;
pub use api::{config, error, input, model, objects, outcome, pod_fields, quantity, time};
pub use controller::{claim, event_correlation, expectations, pods, quota, selector, workqueue};
pub(crate) use util::{fxhash, words};
pub use util::{rng, sort};

// The rule tests of crate-private machinery live next to it (`#[cfg(test)] mod tests`);
// they share the integration tests' fixture builders and name the crate as those do.
#[cfg(test)]
extern crate self as replicore;
#[cfg(test)]
#[allow(unreachable_pub, missing_docs)]
#[path = "../tests/common/mod.rs"]
mod common;
#[cfg(test)]
#[allow(unreachable_pub, missing_docs)]
#[path = "../tests/deployment_support/mod.rs"]
mod deployment_support;

pub use config::{Config, DeploymentKinds, FeatureGates, OwnerKind, DEFAULT_BURST_REPLICAS};
pub use error::{Error, Result};
pub use event_correlation::{
    correlate as correlate_event, Correlation, EventCorrelator, EventToRecord,
};
pub use expectations::{
    Expectations, ExpectationsChange, ExpectationsRecord, ExpectationsTable, EXPECTATIONS_TTL,
};
pub use input::SyncInput;
pub use model::{LabelSelector, Pod, ReplicaSet, ReplicaSetStatus};
pub use outcome::{ApiError, CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
pub use replicaset::{
    complete, on_owner_event, on_pod_event, plan, Completion, CreatePlan, DeletePlan, Digested,
    Event, EventDecision, Halt, Idle, Manage, OwnerChange, OwnerEvent, PodChange, PodDigest,
    PodEvent, Pods, RankRule, RankedPod, Requeue, Snapshot, Store, SyncContext, SyncPlan, Victim,
};
pub use selector::Selector;
pub use time::{Duration, Time};
