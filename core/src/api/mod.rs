//! The object model and the wire: what crosses the boundary between a host and the
//! engine. The Kubernetes objects the controllers read and write ([`model`], parsed
//! field by field through [`objects`], or converted from `k8s_openapi` by
//! `from_k8s`), the inputs and their checks ([`input`]), what the host reports back
//! ([`outcome`]), the configuration ([`config`]), errors that name their field path
//! ([`error`], [`jsonpath`]), instants and durations ([`time`]), `resource.Quantity`
//! ([`quantity`]), the fields of a pod the engine reads ([`pod_fields`]) and the
//! TypeScript-only helper types (`ts`).
//!
//! These modules are re-exported at the crate root (`replicore::model`,
//! `replicore::time`, …); this folder only groups their source.

pub mod config;
pub mod error;
#[cfg(feature = "k8s-openapi")]
pub mod from_k8s;
pub mod input;
pub(crate) mod jsonpath;
pub mod model;
pub mod objects;
pub mod outcome;
pub mod pod_fields;
pub mod quantity;
pub mod time;
#[cfg(feature = "ts")]
pub mod ts;
