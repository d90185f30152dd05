//! What `replicore explain` prints for a snapshot (`kubectl get deploy,rs,pods -o json`):
//! its Deployments (if any), then its ReplicaSets, and on request each Deployment's
//! rollout played forward (the forecast). One function makes the value and one renders
//! the text: the CLI (through wasm) and `examples/explain.rs` print the same.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Config;
use crate::deployment::explain::{explain_deployments, list_items, DeploymentsExplanation};
use crate::deployment::forecast::{
    forecast_over, render_forecast, FailureModel, Forecast, ForecastOptions,
};
use crate::deployment::model::{Deployment, Rs, Wire};
use crate::error::{Error, Result};
use crate::explain::{explain_json, report_text, ExplainOptions, Explanation};
use crate::model::ObjectMeta;
use crate::model::Pod;
use crate::time::Time;

/// The forecast asked for: every field defaults to [`ForecastOptions::at`]'s.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ForecastRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// The seed of the start-up jitter.
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// From creation to ready, in seconds.
    pub startup_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// A seeded extra delay per pod, in seconds.
    pub startup_jitter_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Which pods fail.
    pub failure: Option<FailureModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Time resolution, in seconds.
    pub interval_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Stop each forecast after this long, in seconds.
    pub max_seconds: Option<f64>,
}

impl ForecastRequest {
    /// The forecast's options from `now`, refusing durations that are not finite and
    /// positive (a negative start-up or a zero interval has no meaning).
    pub fn options(&self, now: Time) -> Result<ForecastOptions> {
        let mut o = ForecastOptions::at(now);
        let seconds = |v: Option<f64>, field: &str, zero_ok: bool, default: f64| match v {
            None => Ok(default),
            Some(s) if s.is_finite() && (s > 0.0 || (zero_ok && s == 0.0)) => Ok(s),
            Some(s) => Err(Error::Malformed {
                path: format!("forecast.{field}"),
                message: format!(
                    "must be a {} number of seconds (got {s})",
                    if zero_ok {
                        "finite, non-negative"
                    } else {
                        "finite, positive"
                    }
                ),
            }),
        };
        o.startup_seconds = seconds(
            self.startup_seconds,
            "startupSeconds",
            true,
            o.startup_seconds,
        )?;
        o.startup_jitter_seconds = seconds(
            self.startup_jitter_seconds,
            "startupJitterSeconds",
            true,
            o.startup_jitter_seconds,
        )?;
        o.interval_seconds = seconds(
            self.interval_seconds,
            "intervalSeconds",
            false,
            o.interval_seconds,
        )?;
        o.max_seconds = seconds(self.max_seconds, "maxSeconds", false, o.max_seconds)?;
        if let Some(seed) = self.seed {
            o.seed = seed;
        }
        if let Some(FailureModel::NeverReadyFraction { fraction }) = &self.failure {
            if !(0.0..=1.0).contains(fraction) {
                return Err(Error::Malformed {
                    path: "forecast.failure.fraction".into(),
                    message: format!("must be between 0 and 1 (got {fraction})"),
                });
            }
        }
        if let Some(failure) = &self.failure {
            o.failure = failure.clone();
        }
        Ok(o)
    }
}

/// The options of a report: [`ExplainOptions`]'s fields and, to forecast, a
/// [`ForecastRequest`]. (Spelled out rather than flattened: serde's flatten would lose the
/// field path of an error, `options.now`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReportOptions {
    /// The controller clock.
    pub now: Time,
    /// Preview a scale-down of each explained ReplicaSet to this many replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub replicas: Option<i32>,
    /// Explain only the ReplicaSet with this name (or `namespace/name`), and no
    /// Deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub owner: Option<String>,
    /// Explain (and forecast) only the Deployment with this name (or `namespace/name`),
    /// with the ReplicaSets it controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub deployment: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The controller's configuration.
    pub config: Config,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Forecast each Deployment's rollout, with these options.
    pub forecast: Option<ForecastRequest>,
}

impl ReportOptions {
    /// Explain only, with these options.
    pub fn explain(explain: ExplainOptions) -> Self {
        ReportOptions {
            now: explain.now,
            replicas: explain.replicas,
            owner: explain.owner,
            deployment: None,
            config: explain.config,
            forecast: None,
        }
    }

    /// The options of the ReplicaSet part.
    pub fn explain_options(&self) -> ExplainOptions {
        ExplainOptions {
            now: self.now,
            replicas: self.replicas,
            owner: self.owner.clone(),
            config: self.config.clone(),
        }
    }
}

/// A snapshot explained: its Deployments, its ReplicaSets, the forecasts asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The Deployments explained (`None` when the snapshot has none).
    pub deployments: Option<DeploymentsExplanation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The ReplicaSets explained (`None` when a snapshot of Deployments has no ReplicaSet yet).
    pub replica_sets: Option<Explanation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    /// The rollout forecasts asked for.
    pub forecasts: Vec<Forecast>,
}

impl Report {
    /// The report as data: for a snapshot of ReplicaSets alone (no Deployment, no
    /// forecast), the ReplicaSet explanation itself, as `explain --json` always printed.
    pub fn to_json_value(&self) -> Result<Value> {
        let plain = self.deployments.is_none() && self.forecasts.is_empty();
        let value = match (&self.replica_sets, plain) {
            (Some(rs), true) => serde_json::to_value(rs),
            _ => serde_json::to_value(self),
        };
        value.map_err(|e| Error::Malformed {
            path: String::new(),
            message: format!("cannot be written as JSON: {e}"),
        })
    }
}

/// Explains the snapshot in `bytes` (a v1 List as kubectl prints it, or one object).
pub fn report(bytes: &[u8], options: &ReportOptions) -> Result<Report> {
    let now = options.now;
    // One reading of the text for the Deployments and the forecasts (the ReplicaSet part
    // reads it with its own typed reader).
    let list: Value = crate::input::from_json_any(bytes)?;
    let all = list_items(&list)?.unwrap_or(std::slice::from_ref(&list));
    let narrowed = match &options.deployment {
        Some(wanted) => Some(narrowed_to_deployment(all, wanted)?),
        None => None,
    };
    let items = narrowed.as_deref().unwrap_or(all);
    // Explaining one ReplicaSet (`owner`) leaves the Deployments out.
    let deployments = if options.owner.is_some() && options.deployment.is_none() {
        explain_deployments(&[], now)?
    } else {
        explain_deployments(items, now)?
    };
    let has_deployments = !deployments.deployments.is_empty();
    let narrowed_text = match &narrowed {
        Some(items) => Some(
            serde_json::to_vec(
                &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}),
            )
            .map_err(|e| Error::Malformed {
                path: String::new(),
                message: format!("cannot be written as JSON: {e}"),
            })?,
        ),
        None => None,
    };
    let replica_sets = match explain_json(
        narrowed_text.as_deref().unwrap_or(bytes),
        &options.explain_options(),
    ) {
        // The Deployments explained above are not "ignored" by this report: the
        // ReplicaSet part counts only the items no part read.
        Ok(mut x) => {
            x.ignored = x.ignored.saturating_sub(deployments.deployments.len());
            Some(x)
        }
        // A snapshot of Deployments without ReplicaSets yet has nothing else to explain.
        Err(Error::Missing { .. }) if has_deployments => None,
        Err(e) => return Err(e),
    };
    let forecasts = match &options.forecast {
        None => Vec::new(),
        Some(request) => forecasts(items, &request.options(now)?)?,
    };
    Ok(Report {
        deployments: has_deployments.then_some(deployments),
        replica_sets,
        forecasts,
    })
}

/// The snapshot's items narrowed to the Deployment `wanted` names: that Deployment, the
/// ReplicaSets whose controller reference is it (D-20: orphans it might adopt are left
/// out), and every other item but Deployments and ReplicaSets (the pods).
fn narrowed_to_deployment(items: &[Value], wanted: &str) -> Result<Vec<Value>> {
    let meta = |i: usize, v: &Value| -> Result<ObjectMeta> {
        crate::input::from_value(v.get("metadata").cloned().unwrap_or(Value::Null))
            .map_err(|e| e.under(&format!("items[{i}].metadata")))
    };
    let kind = |v: &Value| v.get("kind").and_then(Value::as_str).map(str::to_owned);
    let mut found: Option<ObjectMeta> = None;
    let mut names = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if kind(item).as_deref() == Some("Deployment") {
            let m = meta(i, item)?;
            names.push(m.key());
            if found.is_none() && m.is_named(wanted) {
                found = Some(m);
            }
        }
    }
    let Some(deployment) = found else {
        return Err(Error::Config {
            path: "deployment".into(),
            message: format!(
                "no Deployment named {} in the input; it has {}",
                crate::error::quoted(wanted),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ),
        });
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let keep = match kind(item).as_deref() {
            Some("Deployment") => meta(i, item)?.key() == deployment.key(),
            Some("ReplicaSet") => {
                let m = meta(i, item)?;
                m.namespace == deployment.namespace
                    && m.controller_ref().is_some_and(|o| o.uid == deployment.uid)
            }
            _ => true,
        };
        if keep {
            out.push(item.clone());
        }
    }
    Ok(out)
}

/// The forecast of every Deployment of the snapshot, over the snapshot's ReplicaSets and
/// pods.
fn forecasts(items: &[Value], options: &ForecastOptions) -> Result<Vec<Forecast>> {
    let of_kind = |kind: &'static str| {
        items
            .iter()
            .enumerate()
            .filter(move |(_, v)| v.get("kind").and_then(Value::as_str) == Some(kind))
    };
    let at = |i: usize| format!("items[{i}]");
    let replica_sets = of_kind("ReplicaSet")
        .map(|(i, v)| Rs::from_value(v.clone()).map_err(|e| e.under(&at(i))))
        .collect::<Result<Vec<_>>>()?;
    let pods = of_kind("Pod")
        .map(|(i, v)| crate::input::from_value::<Pod>(v.clone()).map_err(|e| e.under(&at(i))))
        .collect::<Result<Vec<_>>>()?;
    let out = of_kind("Deployment")
        .map(|(i, d)| {
            let d = Wire::<Deployment>::from_value(d.clone()).map_err(|e| e.under(&at(i)))?;
            forecast_over(d, replica_sets.clone(), &pods, options).map_err(|e| e.under(&at(i)))
        })
        .collect::<Result<Vec<_>>>()?;
    if out.is_empty() {
        return Err(Error::Missing {
            path: "items".into(),
        });
    }
    Ok(out)
}

/// The report as text: the Deployments, the ReplicaSets, then the forecasts.
pub fn render(report: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &report.deployments {
        parts.push(d.text.clone());
    }
    if let Some(rs) = &report.replica_sets {
        parts.push(report_text(rs));
    }
    parts.extend(report.forecasts.iter().map(render_forecast));
    parts.join("\n")
}
