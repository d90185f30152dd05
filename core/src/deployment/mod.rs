//! The Deployment controller's decisions (`spec/deployment-semantics.md`, rules D-xx),
//! as a step machine ([`DeploymentSync`]): the engine names each API call, the host
//! makes it and reports the result, until the engine says what the sync amounted to.
//!
//! One module per rule family: [`model`] (objects, constants D-01..D-04), [`strategy`]
//! (D-05..D-08), `claim.rs` (D-20..D-24), `lookup.rs` (D-25, D-26), [`revision`]
//! (D-28..D-33), [`newrs`] (D-27, D-30..D-35), [`scale`] (D-40..D-47), `rolling.rs`
//! (D-50..D-54), [`recreate`] (D-60..D-62), `cleanup.rs` (D-70), `status.rs`
//! (D-71..D-78), `pause.rs` (D-80), [`rollback`] (D-90..D-93), `events.rs` (D-100),
//! [`handlers`] (D-110..D-115), [`hash`] (D-27), and the driver `sync.rs` (D-10..D-19)
//! with the step machine `machine.rs` ([`DeploymentSync`]). The modules named as files
//! are the controller's machinery, reached through the step machine; the linked ones
//! are public because hosts call them directly (the simulator, the wasm binding).
//! Built on the step machine: [`explain`] (what the next sync would do, and why) and
//! [`forecast`] (a rollout played forward in time), and [`limiting`] (which rule decided
//! or limited a rollout step, for every host that plays one).
//!
//! ```
//! use replicore::deployment::{run_sync, ApiResult, DeploymentSyncInput, ProgressRequeue};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let input = DeploymentSyncInput::from_json(br#"{
//!   "now": "2026-11-24T01:00:00Z", "key": "default/web",
//!   "deployment": {"metadata": {"name": "web", "namespace": "default", "uid": "d1"},
//!     "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
//!              "template": {"metadata": {"labels": {"app": "web"}}},
//!              "strategy": {"type": "Recreate"}}}
//! }"#)?;
//! let mut calls = Vec::new();
//! let done = run_sync(input, |call| { calls.push(call.clone()); ApiResult::ok() })?;
//! assert_eq!(calls[0].verb(), "create");
//! assert!(done.error.is_none());
//! # Ok(())
//! # }
//! ```

mod claim;
mod cleanup;
mod events;
pub mod explain;
pub mod forecast;
pub mod handlers;
pub mod hash;
pub mod limiting;
mod lookup;
mod machine;
pub mod model;
pub mod newrs;
mod pause;
pub(crate) mod play;
pub mod recreate;
pub mod revision;
pub mod rollback;
mod rolling;
pub mod scale;
mod status;
pub mod strategy;
mod sync;

#[cfg(feature = "ts")]
pub use machine::KubeObject;
pub use machine::{
    run_sync, ApiCall, ApiResult, DeploymentEvent, DeploymentSync, DeploymentSyncInput,
    ProgressRequeue, Step, SyncDone, SyncError,
};
pub use model::{Deployment, DeploymentCondition, DeploymentSpec, DeploymentStatus, Rs, Wire};

#[cfg(test)]
mod tests;
