//! The conformance judge for JavaScript (feature `judge`): the runner's judge
//! (`replicore-tests`) compiled into its own module, so `replicore conform` and the
//! native `conformance` binary give one verdict. Conversion only: the host reads the
//! vector files and hands each file's cases over as JSON text.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// The kinds the judge knows, in report order.
#[wasm_bindgen(js_name = judgeKinds)]
pub fn judge_kinds() -> Vec<String> {
    replicore_tests::KINDS
        .iter()
        .map(|k| (*k).to_owned())
        .collect()
}

/// Judges one vector file's cases (`casesJson`: a JSON array) as kind `kind` (a case
/// naming its own kind is judged as that kind). Returns JSON text
/// `{kind, passed, failures: [{case, field, expected, got}]}`.
#[wasm_bindgen(js_name = judgeCases)]
pub fn judge_cases(kind: &str, cases_json: &str) -> Result<String, JsError> {
    let cases: Vec<Value> = serde_json::from_str(cases_json)
        .map_err(|e| JsError::new(&format!("{kind}: not a JSON array of cases: {e}")))?;
    let report = replicore_tests::run_kind(kind, &cases);
    let failures: Vec<Value> = report
        .failures
        .iter()
        .map(|f| json!({"case": f.case, "field": f.field, "expected": f.expected, "got": f.got}))
        .collect();
    Ok(json!({"kind": report.kind, "passed": report.passed, "failures": failures}).to_string())
}
