//! The HorizontalPodAutoscaler controller (`replicore::hpa`) for JS: one sync's step
//! machine over its plain state (`hpaSyncStart`, `hpaSyncNext`, `hpaSyncReport`), and the
//! same machine kept in wasm memory (`HpaSyncRun`), which folds each answer in once; the
//! autoscaling forecast (`hpaForecast`); what pods report under a load curve (`podsUsage`).
//! Conversion and error mapping only.

use replicore::hpa::{HpaAnswer, HpaSync, HpaSyncInput, HpaSyncState};
use wasm_bindgen::prelude::*;

use crate::convert::{error, json_bytes, object, to_js, to_json_text, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { HpaAnswer, HpaForecast, HpaForecastInput, HpaStep, HpaSyncInput, HpaSyncState, PodsUsage, PodsUsageInput } from "../generated/index.js";
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
