//! Plumbing without a rule of its own: the seeded random source ([`rng`]), the one
//! comparison sort ([`sort`]), a fast hasher for the engine's short-lived maps
//! (`fxhash`) and the words of the reports (`words`).

pub(crate) mod fxhash;
pub mod rng;
pub mod sort;
pub(crate) mod words;
