//! The Deployment controller's decisions (D-xx rules).

mod go_layout;
pub mod hash;
