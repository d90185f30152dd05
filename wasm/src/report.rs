//! The explain report (`explainText`, `explainReport`): the engine's one report
//! (`replicore::explain::report`: the Deployments, the ReplicaSets, the forecasts asked for) and
//! its one renderer, which the CLI prints; and the autoscaler's "why N?"
//! (`explainHpa`, `replicore::hpa::explain`). Conversion only.

use replicore::explain::report::{render, report, ReportOptions};
use wasm_bindgen::prelude::*;

use crate::convert::{self, error, object, to_json_text, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { ExplainOptions, Explanation, HpaExplainInput, HpaExplanation, ReportOptions } from "../generated/index.js";
"#;

fn made(list: &JsValue, options: &JsValue) -> Result<replicore::explain::report::Report, JsValue> {
    let options: ReportOptions = object(options, "options")?;
    let bytes = convert::json_bytes(list, "")?;
    report(&bytes, &options).map_err(|e| error(&e))
}

/// `explainText(listJson, optionsJson)`: the plain-text report of `replicore explain`.
#[wasm_bindgen(js_name = explainText)]
pub fn explain_text(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<unknown>")] list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ReportOptions>")] options: JsValue,
) -> Result<String, JsValue> {
    made(&list, &options).map(|r| render(&r))
}

/// `explainReport(listJson, optionsJson)`: the same report as data (JSON text).
///
/// ReplicaSets alone give an [`replicore::explain::Explanation`]; with Deployments or a
/// forecast, `{deployments, replicaSets, forecasts}` (not typed further).
#[wasm_bindgen(
    js_name = explainReport,
    unchecked_return_type = "JsonText<Explanation | Record<string, unknown>>"
)]
pub fn explain_report(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<unknown>")] list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<ReportOptions>")] options: JsValue,
) -> JsResult {
    let value = made(&list, &options)?
        .to_json_value()
        .map_err(|e| error(&e))?;
    to_json_text(&value)
}

/// `explainHpa(inputJson)`: why the HPA's next sync decides what it decides (data, with
/// its text in `text`), as JSON text.
#[wasm_bindgen(js_name = explainHpa, unchecked_return_type = "JsonText<HpaExplanation>")]
pub fn explain_hpa(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<HpaExplainInput>")] input: JsValue,
) -> JsResult {
    let bytes = convert::json_bytes(&input, "")?;
    let e = replicore::hpa::explain_hpa_json(&bytes).map_err(|e| error(&e))?;
    to_json_text(&e)
}
