//! The HorizontalPodAutoscaler controller (`replicore::hpa`) for JS: one sync's step
//! machine over its plain state (`hpaSyncStart`, `hpaSyncNext`, `hpaSyncReport`), and the
//! same machine kept in wasm memory (`HpaSyncRun`), which folds each answer in once; the
//! autoscaling forecast (`hpaForecast`); what pods report under a load curve (`podsUsage`);
//! the settings' defaults and the metrics client's reading of the metrics APIs' answers,
//! for hosts that make the calls.
//! Conversion and error mapping only.

use replicore::hpa::{client, HpaAnswer, HpaSync, HpaSyncInput, HpaSyncState, MetricQuery};
use wasm_bindgen::prelude::*;

use crate::convert::{any, error, json_bytes, object, to_js, to_json_text, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { HpaAnswer, HpaConfig, HpaForecast, HpaForecastInput, HpaStep, HpaSyncInput, HpaSyncState, MetricQuery, MetricResponse, PodsUsage, PodsUsageInput } from "../generated/index.js";
"#;

fn start(input: &JsValue) -> Result<HpaSync, JsValue> {
    let bytes = json_bytes(input, "")?;
    HpaSyncInput::from_json(&bytes)
        .map(HpaSync::new)
        .map_err(|e| error(&e))
}

fn state_from(state: &JsValue) -> Result<HpaSync, JsValue> {
    let bytes = json_bytes(state, "sync")?;
    HpaSyncState::from_json(&bytes)
        .and_then(HpaSync::from_state)
        .map_err(|e| error(&e.under("sync")))
}

/// `hpaSyncStart(inputJson)`: the machine's plain state at its first step, as JSON text.
#[wasm_bindgen(js_name = hpaSyncStart, unchecked_return_type = "JsonText<HpaSyncState>")]
pub fn hpa_sync_start(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaSyncInput>")] input: JsValue,
) -> JsResult {
    to_json_text(&start(&input)?.state())
}

/// `hpaSyncNext(stateJson)`: the next step (a call to make, or done).
#[wasm_bindgen(js_name = hpaSyncNext, unchecked_return_type = "HpaStep")]
pub fn hpa_sync_next(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaSyncState>")] state: JsValue,
) -> JsResult {
    to_js(&state_from(&state)?.next())
}

/// `hpaSyncReport(stateJson, answerJson)`: the state with the answer to the call the last
/// step named, as JSON text.
#[wasm_bindgen(js_name = hpaSyncReport, unchecked_return_type = "JsonText<HpaSyncState>")]
pub fn hpa_sync_report(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaSyncState>")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaAnswer>")] answer: JsValue,
) -> JsResult {
    let mut sync = state_from(&state)?;
    let answer: HpaAnswer = object(&answer, "answer")?;
    sync.report(answer).map_err(|e| error(&e))?;
    to_json_text(&sync.state())
}

/// One sync's machine in wasm memory. A refused argument changes nothing.
#[wasm_bindgen(js_name = HpaSyncRun)]
pub struct JsHpaSyncRun {
    sync: HpaSync,
}

#[wasm_bindgen(js_class = HpaSyncRun)]
impl JsHpaSyncRun {
    /// `new HpaSyncRun(inputJson)`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaSyncInput>")] input: JsValue,
    ) -> Result<JsHpaSyncRun, JsValue> {
        Ok(JsHpaSyncRun {
            sync: start(&input)?,
        })
    }

    /// `HpaSyncRun.fromState(stateJson)`: a machine at a state `state()` gave.
    #[wasm_bindgen(js_name = fromState)]
    pub fn from_state(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaSyncState>")] state: JsValue,
    ) -> Result<JsHpaSyncRun, JsValue> {
        Ok(JsHpaSyncRun {
            sync: state_from(&state)?,
        })
    }

    /// `next()`: the next step (a call to make, or done).
    #[wasm_bindgen(unchecked_return_type = "HpaStep")]
    pub fn next(&self) -> JsResult {
        to_js(&self.sync.next())
    }

    /// `report(answerJson)`: the answer to the call the last step named.
    pub fn report(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaAnswer>")] answer: JsValue,
    ) -> Result<(), JsValue> {
        let answer: HpaAnswer = object(&answer, "answer")?;
        self.sync.report(answer).map_err(|e| error(&e))
    }

    /// `state()`: the plain state (`{input, answers}`), as JSON text.
    #[wasm_bindgen(unchecked_return_type = "JsonText<HpaSyncState>")]
    pub fn state(&self) -> JsResult {
        to_json_text(&self.sync.state())
    }
}

/// `hpaForecast(inputJson)`: the autoscaling forecast (`replicore::hpa::forecast`), the
/// engine's sync played over a load curve on a seeded pod model.
#[wasm_bindgen(js_name = hpaForecast, unchecked_return_type = "HpaForecast")]
pub fn hpa_forecast(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaForecastInput>")] input: JsValue,
) -> JsResult {
    let bytes = json_bytes(&input, "")?;
    let forecast = replicore::hpa::forecast::forecast_json(&bytes).map_err(|e| error(&e))?;
    to_js(&forecast)
}

/// `podsUsage(inputJson)`: what each pod reports at one moment of a load curve
/// (`replicore::hpa::load::pods_usage`), the dev-server's pod metrics.
#[wasm_bindgen(js_name = podsUsage, unchecked_return_type = "PodsUsage")]
pub fn pods_usage(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<PodsUsageInput>")] input: JsValue,
) -> JsResult {
    let bytes = json_bytes(&input, "")?;
    let usage = replicore::hpa::load::pods_usage_json(&bytes).map_err(|e| error(&e))?;
    to_js(&usage)
}

/// `hpaDefaultConfig()`: the HPA controller's settings when a host sets none
/// (kube-controller-manager's flag defaults, H-01), for hosts that show or document them.
#[wasm_bindgen(js_name = hpaDefaultConfig, unchecked_return_type = "HpaConfig")]
pub fn hpa_default_config() -> JsResult {
    to_js(&replicore::hpa::HpaConfig::default())
}

/// `hpaMetricResponse(queryJson, answersJson)`: the answer to a `fetchMetric` call from the
/// metrics APIs' raw answers to that query (`PodMetricsList`, `MetricValueList`,
/// `ExternalMetricValueList`, or `{api, error}`), as the REST metrics client reads them
/// (`replicore::hpa::client`, H-99..H-102).
#[wasm_bindgen(js_name = hpaMetricResponse, unchecked_return_type = "MetricResponse")]
pub fn hpa_metric_response(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<MetricQuery>")] query: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<unknown[]>")] answers: JsValue,
) -> JsResult {
    let query: MetricQuery = object(&query, "query")?;
    let answers: Vec<serde_json::Value> = any(&answers, "answers")?;
    to_js(&client::metric_response(&query, &answers, &[]))
}

/// `hpaMetricSelector(queryJson)`: the query's metric selector as the API's query text
/// (`""` for none), as the metrics client sends it.
#[wasm_bindgen(js_name = hpaMetricSelector)]
pub fn hpa_metric_selector(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<MetricQuery>")] query: JsValue,
) -> Result<String, JsValue> {
    let query: MetricQuery = object(&query, "query")?;
    Ok(client::metric_selector_text(&query))
}

/// `hpaPodFields()`: the fields of a pod the autoscaler reads
/// (`replicore::hpa::HPA_POD_FIELDS`), as `podFields()` gives the ReplicaSet engine's: a
/// host's pod cache may keep only these.
#[wasm_bindgen(js_name = hpaPodFields, unchecked_return_type = "FieldTree")]
pub fn hpa_pod_fields() -> JsResult {
    to_js(&replicore::hpa::HPA_POD_FIELDS)
}
