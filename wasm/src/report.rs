//! The explain report as text (`explainText`): the engine's one renderer
//! (`replicore::explain::report_text`), which the CLI prints. Conversion only.

use replicore::explain::{explain_json, report_text, ExplainOptions};
use wasm_bindgen::prelude::*;

use crate::convert::{self, error, object};

/// `explainText(listJson, optionsJson)`: the plain-text report of `explain`.
#[wasm_bindgen(js_name = explainText)]
pub fn explain_text(list: JsValue, options: JsValue) -> Result<String, JsValue> {
    let options: ExplainOptions = object(&options, "options")?;
    let bytes = convert::json_bytes(&list, "")?;
    let explanation = explain_json(&bytes, &options).map_err(|e| error(&e))?;
    Ok(report_text(&explanation))
}
