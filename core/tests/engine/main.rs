//! The engine's integration tests in one binary (one link instead of one per file): the
//! rule tests per family (`rules_*`, `deployment_rules`), the property tests
//! (`properties`, `deployment_properties`, `hpa_properties`), bad input (`bad_input*`,
//! `hpa_bad_input`), digests, the store, `explain` (feature `explain`) and the benchmark
//! reference check. Each file is a module; the
//! shared helpers are the modules beside this directory.
//!
//! `cargo test -p replicore --test engine [FILTER]`, e.g. `--test engine rules_sync::`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../deployment_support/mod.rs"]
mod deployment_support;
#[path = "../prop_support/mod.rs"]
mod prop_support;
#[path = "../shapes/mod.rs"]
mod shapes;

mod bad_input;
mod bad_input_shapes;
mod bench_reference;
mod deployment_explain;
mod deployment_forecast;
mod deployment_properties;
mod deployment_rules;
mod digest;
#[cfg(feature = "explain")]
mod explain;
mod hpa_bad_input;
mod hpa_forecast;
mod hpa_properties;
mod properties;
#[cfg(feature = "explain")]
mod report;
mod rules_availability;
mod rules_claim;
mod rules_event_correlation;
mod rules_events;
mod rules_expectations;
mod rules_pods;
mod rules_rank;
mod rules_selector;
mod rules_slowstart;
mod rules_status;
mod rules_sync;
mod rules_time_config;
mod store;
mod wire_forms;
