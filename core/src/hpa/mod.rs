//! The HorizontalPodAutoscaler controller's decisions (`docs/rules.md`, rules H-xx):
//! from the target's scale, its pods, their metrics and the controller's memory, how
//! many replicas the target should have, within tolerance, stabilization windows, rate
//! policies and min/max; the status, conditions and events; the new memory.
//!
//! One module per rule family: [`model`] (objects, defaults, configuration: H-01..H-21),
//! [`pods`] (pod grouping and requests: H-76..H-81, H-95), [`calculator`] (the replica
//! calculator: H-82..H-98, H-139..H-150), `metrics.rs` (one metric's query, proposal,
//! status and failure; the max over metrics: H-62..H-75), `memory.rs` (recommendations
//! and scale events: H-104, H-108, H-110, H-117..H-122), `normalize.rs` (legacy and
//! behavior paths: H-104..H-118), `status.rs` (conditions and the status write:
//! H-123..H-130), `events.rs` (H-131..H-133), and the driver [`machine`] (one
//! `reconcileAutoscaler` as a step machine: H-31..H-61, H-134). [`forecast`](mod@forecast) plays the
//! machine forward over a load curve on a seeded pod model (no rule of its own); [`load`]
//! is that model's demand (the curves and what each pod reports), shared with the
//! simulator and the dev-server's kubelet.
//!
//! ```
//! use replicore::hpa::{run_sync, HpaAnswer, HpaCall, HpaSyncInput, GroupResource};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let input = HpaSyncInput::from_json(br#"{
//!   "now": "2026-11-27T12:00:00Z",
//!   "hpa": {"metadata": {"name": "web", "namespace": "default"},
//!           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
//!                    "minReplicas": 1, "maxReplicas": 10,
//!                    "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
//!                                 "target": {"type": "AverageValue", "averageValue": "10"}}}]}}
//! }"#)?;
//! let done = run_sync(input, |call| match call {
//!     HpaCall::ResolveTarget { .. } => HpaAnswer::Mappings {
//!         resources: vec![GroupResource { group: "apps".into(), resource: "deployments".into() }],
//!     },
//!     HpaCall::GetScale { .. } => HpaAnswer::Scale { scale: serde_json::from_str(
//!         r#"{"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}}"#).unwrap() },
//!     HpaCall::ListPods { .. } => HpaAnswer::Pods { pods: Default::default() },
//!     HpaCall::FetchMetric { .. } => HpaAnswer::Metric { response: serde_json::from_str(
//!         r#"{"externalValues": [60000]}"#).unwrap() },
//!     _ => HpaAnswer::Ok,
//! })?;
//! // 60 items of queue at 10 per pod: 6 replicas (the legacy cap allows 4 from 2).
//! assert_eq!(done.rescaled_to, Some(4));
//! # Ok(())
//! # }
//! ```

pub mod calculator;
pub mod client;
mod events;
pub mod explain;
pub mod forecast;
pub mod load;
pub mod machine;
mod memory;
mod metrics;
pub mod model;
mod normalize;
pub mod pods;
mod status;

pub use calculator::Tolerances;
pub use events::HpaEvent;
pub use explain::{explain_hpa, explain_hpa_json, render_hpa, HpaExplainInput, HpaExplanation};
pub use forecast::{
    forecast, HpaForecast, HpaForecastInput, HpaForecastStep, HpaForecastTotals, LoadCurve,
    LoadPoint, PodModel, Shortfall,
};
pub use machine::{
    run_sync, GroupResource, HpaAnswer, HpaCall, HpaStep, HpaSync, HpaSyncDone, HpaSyncInput,
    HpaSyncState, RegisteredHpa,
};
pub use memory::{HpaMemory, Recommendation, ScaleEvent};
pub use metrics::MetricQuery;
pub use model::{
    HorizontalPodAutoscaler, HpaConfig, HpaGates, HpaStatus, MetricResponse, PodMetric,
    HPA_POD_FIELDS,
};
