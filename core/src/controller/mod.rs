//! What the controllers share (upstream's `pkg/controller` and the client-go and
//! kube-apiserver rules they run on): label selectors ([`selector`], R-10..R-13),
//! ControllerRef claiming ([`claim`], R-30..R-33, used by the ReplicaSet controller for
//! pods and by the Deployment controller for ReplicaSets), the pod predicates
//! ([`pods`], R-01..R-07), expectations ([`expectations`], R-40..R-46), how the recorder
//! writes events ([`event_correlation`], EC-01..EC-09), which pods a quota charges
//! ([`quota`]) and the work queue's rate-limiter numbers ([`workqueue`]).
//!
//! These modules are re-exported at the crate root (`replicore::selector`, …); this
//! folder only groups their source.

pub mod claim;
pub mod event_correlation;
pub mod expectations;
pub mod pods;
pub mod quota;
pub mod selector;
pub mod workqueue;
