//! # replicore
//!
//! The decisions of kube-controller-manager's scaling controllers (the ReplicaSet and
//! Deployment controllers; the HorizontalPodAutoscaler's are to follow) as a pure engine:
//! snapshots in, decisions out, no I/O, no clock, no global state. The host makes the API
//! calls and reports their results; the engine says what they mean.
//!
//! **ReplicaSet.** Given the owner, the pods and the expectations at an instant `now`,
//! [`plan`] says which pods to adopt or release, how many to create in which slow-start
//! batches, which to delete and why those; the host makes the API calls and hands their
//! results to [`complete`], which says what status to write, how to correct the
//! expectations, which events to record and when to look again. [`on_pod_event`] and
//! [`on_owner_event`] say what a watch event asks for. Each rule family lives in one
//! module: [`selector`], [`owner`], [`claim`], [`expectations`], [`slowstart`], [`rank`],
//! [`status`], [`availability`], [`events`], [`sync`]. Hosts that stream watch events
//! keep their objects in a [`Store`] and plan from it.
//!
//! **Deployment.** [`deployment`] holds one `syncDeployment(key)` as a step machine
//! ([`deployment::DeploymentSync`]) that names each API call and takes its result, then
//! says what the sync amounted to.
//!
//! **Shared.** [`event_correlation`] says how the recorder writes the events a sync
//! records (create, patch or drop, as client-go's `EventCorrelator`); [`config`] holds
//! the burst size, the owner kind and the feature gates.
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

pub mod availability;
pub mod claim;
pub mod config;
pub mod deployment;
pub mod digest;
pub mod error;
pub mod event_correlation;
pub mod events;
pub mod expectations;
#[cfg(feature = "explain")]
pub mod explain;
#[cfg(feature = "explain")]
pub mod facts;
#[cfg(feature = "k8s-openapi")]
pub mod from_k8s;
mod fxhash;
pub mod hpa;
pub mod input;
mod jsonpath;
pub mod model;
pub mod objects;
pub mod outcome;
pub mod owner;
pub mod pod_fields;
pub mod pods;
pub mod quantity;
pub mod quota;
pub mod rank;
#[cfg(feature = "explain")]
pub mod report;
pub mod rng;
pub mod selector;
pub mod slowstart;
pub mod sort;
pub mod status;
pub mod store;
pub mod sync;
pub mod template;
pub mod time;
#[cfg(feature = "ts")]
pub mod ts;
mod words;
pub mod workqueue;

pub use config::{Config, FeatureGates, OwnerKind, DEFAULT_BURST_REPLICAS};
pub use digest::{Digested, PodDigest, Pods};
pub use error::{Error, Result};
pub use event_correlation::{
    correlate as correlate_event, Correlation, EventCorrelator, EventToRecord,
};
pub use events::{on_owner_event, on_pod_event, EventDecision, OwnerEvent, PodEvent};
pub use expectations::{Expectations, ExpectationsChange, ExpectationsRecord, EXPECTATIONS_TTL};
pub use input::SyncInput;
pub use model::{LabelSelector, Pod, ReplicaSet, ReplicaSetStatus};
pub use outcome::{ApiError, CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
pub use rank::{RankRule, RankedPod};
pub use selector::Selector;
pub use store::{OwnerChange, PodChange, Snapshot, Store, SyncContext};
pub use sync::{
    complete, plan, Completion, CreatePlan, DeletePlan, Event, Halt, Idle, Manage, Requeue,
    SyncPlan, Victim,
};
pub use time::{Duration, Time};
