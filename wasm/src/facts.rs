//! The engine's facts for hosts that show pods and rankings (the playground): pod facts,
//! the rank rules' texts, the deletion-cost annotation's key. Conversion only.

use replicore::explain::facts::{pod_facts_json, rank_rule_texts};
use replicore::pods::DELETION_COST_ANNOTATION;
use replicore::Config;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::convert::{self, error, optional, to_js, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { PodFacts, RankRule } from "../generated/index.js";
"#;

/// `podFacts(listJson, configJson?)`: every pod of a snapshot (what `explain` reads) with
/// the engine's facts: ready, active, terminating, restarts, deletion cost, owner.
#[wasm_bindgen(js_name = podFacts, unchecked_return_type = "PodFacts[]")]
pub fn pod_facts(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<unknown>")] list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Config> | undefined")] config: JsValue,
) -> JsResult {
    let config: Config = optional(&config, "config")?;
    let bytes = convert::json_bytes(&list, "")?;
    let facts = pod_facts_json(&bytes, &config.owner_kind).map_err(|e| error(&e))?;
    to_js(&facts)
}

/// `rankRuleTexts()`: each rank rule's text, by rule name (`deletionCost`, …).
#[wasm_bindgen(js_name = rankRuleTexts, unchecked_return_type = "Record<RankRule, string>")]
pub fn rank_rule_texts_js() -> JsResult {
    let mut map = Map::new();
    for (rule, text) in rank_rule_texts() {
        if let Value::String(name) = serde_json::to_value(rule).unwrap_or(Value::Null) {
            map.insert(name, Value::String(text.to_owned()));
        }
    }
    to_js(&map)
}

/// `deletionCostAnnotation()`: the annotation key whose value orders pods on scale-down.
#[wasm_bindgen(js_name = deletionCostAnnotation)]
pub fn deletion_cost_annotation() -> String {
    DELETION_COST_ANNOTATION.to_owned()
}
