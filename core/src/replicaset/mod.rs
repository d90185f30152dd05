//! The ReplicaSet controller's decisions (rules R-xx, S-xx).

pub mod availability;
pub mod digest;
pub mod handlers;
pub mod owner;
pub mod plan;
pub mod rank;
pub mod slowstart;
pub mod status;
pub mod store;
pub mod template;
