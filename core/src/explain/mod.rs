//! Explanations (feature `explain`): what the next sync of each controller in a
//! `kubectl get deploy,rs,pods -o json` snapshot would do, and why, in words a person
//! reads. Nothing here decides: every answer comes from running the controllers' own
//! rules ([`crate::replicaset`], [`crate::deployment`]) on the snapshot.
//!
//! - [`replicaset`] (re-exported here): each ReplicaSet's next sync and its scale-down
//!   order, with the deciding rule;
//! - [`report`]: the whole `replicore explain` report (Deployments, ReplicaSets and the
//!   rollout forecast) as a value and as text;
//! - [`facts`]: what a host shows about each pod, as the rules read it.

pub mod facts;
pub mod replicaset;
pub mod report;

pub use replicaset::*;
