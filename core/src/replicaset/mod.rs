//! The ReplicaSet controller's decisions (rules R-xx, S-xx, C-x): one sync of an owner
//! as a sans-I/O protocol. [`plan()`] says what to do, the host makes the API calls, and
//! [`complete`](complete()) says what the results mean; [`handlers`] say what a watch event asks
//! for, and a [`Store`] keeps a streaming host's objects between syncs.
//!
//! Where each rule lives (the same file names as [`crate::deployment`] and
//! [`crate::hpa`] for the same jobs):
//!
//! | file | rules |
//! | --- | --- |
//! | `protocol.rs` | the values of the protocol: [`SyncPlan`], [`Manage`], [`Completion`], … (no rule) |
//! | `plan.rs` | S-1..S-9: the plan; which pods are looked at (through [`owner`]), the claim pass and what its results mean (R-30..R-33) |
//! | `manage.rs` | §9 `manageReplicas`: the diff, the burst, creates and deletes, expectations recorded and given back (R-51, R-54, R-58, R-59) |
//! | [`slowstart`] | C-2, R-52: the batches and where slow start stops |
//! | [`rank`] | R-70..R-74: which pods a scale-down deletes first |
//! | `complete.rs` | S-9..S-15: the call results, the status write, the requeue |
//! | [`status`] | R-80..R-86: the status written and whether to write it |
//! | [`availability`] | R-83, S-14: when to look again for availability |
//! | [`owner`] | R-20..R-22, R-34, R-45: the pods a sync looks at, the related pods |
//! | [`template`] | §9a: the pod a create sends |
//! | [`handlers`] | R-90..R-95: watch events |
//! | `events.rs` | R-61: the event each pod call records, its reason and message |
//! | `digest.rs` | the per-pod values ranking compares, computed once per pod ([`PodDigest`], [`Pods`]) |
//! | `store.rs` | the objects of a host that streams watch events ([`Store`]) |
//!
//! The rules the controllers share (selectors, ControllerRef claiming, pod predicates,
//! expectations) are in [`crate::selector`], [`crate::claim`], [`crate::pods`] and
//! [`crate::expectations`].

pub mod availability;
mod complete;
pub(crate) mod digest;
mod events;
pub mod handlers;
mod manage;
pub mod owner;
mod plan;
mod protocol;
pub mod rank;
pub mod slowstart;
pub mod status;
mod store;
pub mod template;

pub use complete::complete;
pub use digest::{Digested, PodDigest, Pods};
pub use events::{create_event, delete_event};
pub use handlers::{on_owner_event, on_pod_event, EventDecision, OwnerEvent, PodEvent};
#[cfg(feature = "explain")]
pub(crate) use plan::claimed_pods;
pub use plan::plan;
#[cfg(any(test, feature = "plan-counter"))]
pub use plan::plans_made;
pub use protocol::{
    AdoptionFacts, Completion, CreatePlan, DeletePlan, Event, Halt, Idle, Manage, PlanBasis,
    PodTally, Requeue, Reserve, SyncPlan, Victim,
};
pub use rank::{RankRule, RankedPod};
pub use store::{OwnerChange, PodChange, Snapshot, Store, StoreSize, SyncContext};
