//! The seeded cluster simulator as a JS class (`new Simulator(scenarioJson)`): conversion
//! and error mapping only; everything is the `replicore-sim` crate. Object arguments are JSON
//! text; results are plain objects (`SimState`, `TraceEntry[]`, …), typed with the
//! declarations generated from the simulator's Rust types (node/src/generated/).

use replicore_sim::scenario::GatesPatch;
use replicore_sim::{Edit, Scenario};
use wasm_bindgen::prelude::*;

use crate::convert::{count, error, message_error, number, object, opt_string, to_js, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_SIM_TYPES: &str = r#"
import type { DeploymentSample, HpaSyncTrace, Sample, ScalePreview, Scenario, SimRanking, SimState, TraceEntry } from "../generated/index.js";
"#;

/// The largest whole number a JS number holds exactly (2^53 − 1).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// A whole number of 0..=2^53−1 from a JS number.
fn whole(value: &JsValue, path: &str) -> Result<u64, JsValue> {
    let value = number(value, path)?;
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= MAX_SAFE {
        Ok(value as u64)
    } else {
        Err(message_error(
            "MALFORMED",
            path,
            &format!("{path}: expected a whole number from 0 to 2^53-1, got {value}"),
        ))
    }
}

/// A simulated cluster running the ReplicaSet controller (and, for a Deployment
/// scenario, the Deployment controller) on the engine.
#[wasm_bindgen]
pub struct Simulator {
    inner: replicore_sim::Simulator,
}

fn gates(value: &JsValue) -> Result<Option<GatesPatch>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    object(value, "featureGates").map(Some)
}

#[wasm_bindgen]
impl Simulator {
    /// `new Simulator(scenarioJson)`: the simulation at virtual time 0.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: JsValue) -> Result<Simulator, JsValue> {
        let scenario: Scenario = object(&scenario, "")?;
        // `scenario()` gives the seed back as a JS number: it must be one exactly.
        if scenario.seed > MAX_SAFE as u64 {
            return Err(message_error(
                "MALFORMED",
                "seed",
                "seed: above 2^53-1, the largest whole number JavaScript holds",
            ));
        }
        replicore_sim::Simulator::new(scenario)
            .map(|inner| Simulator { inner })
            .map_err(|e| error(&e))
    }

    /// Processes the next event; false when nothing is scheduled.
    pub fn step(&mut self) -> bool {
        self.inner.step()
    }

    /// Processes every event up to `now + ms`; returns how many ran.
    pub fn advance(&mut self, ms: JsValue) -> Result<f64, JsValue> {
        let ms = whole(&ms, "ms")?;
        let ran = self.inner.try_advance(ms).map_err(|e| error(&e))?;
        Ok(ran as f64)
    }

    /// Applies an edit (JSON text of an `Edit`) now.
    pub fn apply(&mut self, edit: JsValue) -> Result<(), JsValue> {
        let edit: Edit = object(&edit, "edit")?;
        self.inner.apply(edit).map_err(|e| error(&e))
    }

    /// A snapshot (`SimState`).
    #[wasm_bindgen(unchecked_return_type = "SimState")]
    pub fn state(&self) -> JsResult {
        to_js(&self.inner.state())
    }

    /// Trace entries with `seq >= since` (default 0).
    #[wasm_bindgen(unchecked_return_type = "TraceEntry[]")]
    pub fn trace(&self, since: JsValue) -> JsResult {
        let since = if since.is_undefined() || since.is_null() {
            0
        } else {
            whole(&since, "since")?
        };
        let entries: Vec<_> = self.inner.trace(since).collect();
        to_js(&entries)
    }

    /// The timeline samples (`Sample[]`).
    #[wasm_bindgen(unchecked_return_type = "Sample[]")]
    pub fn history(&self) -> JsResult {
        let samples: Vec<_> = self.inner.history().collect();
        to_js(&samples)
    }

    /// The Deployment's ReplicaSets as lanes over virtual time (`DeploymentSample[]`;
    /// empty unless the scenario has a Deployment).
    #[wasm_bindgen(js_name = deploymentHistory, unchecked_return_type = "DeploymentSample[]")]
    pub fn deployment_history(&self) -> JsResult {
        let samples: Vec<_> = self.inner.deployment_history().collect();
        to_js(&samples)
    }

    /// The HPA's syncs in order (`HpaSyncTrace[]`; empty unless the scenario has an HPA):
    /// each one's `step` is the forecast's step of the same sync.
    #[wasm_bindgen(js_name = hpaSyncs, unchecked_return_type = "HpaSyncTrace[]")]
    pub fn hpa_syncs(&self) -> JsResult {
        let syncs: Vec<_> = self.inner.hpa_syncs().collect();
        to_js(&syncs)
    }

    /// The engine's scale-down order of an owner's pods (`SimRanking`; default the
    /// primary owner), under the current gates with `featureGatesJson` (optional) laid
    /// over them.
    #[wasm_bindgen(unchecked_return_type = "SimRanking")]
    pub fn ranking(&self, feature_gates: JsValue, owner: JsValue) -> JsResult {
        let owner = opt_string(&owner, "owner")?;
        let g = gates(&feature_gates)?;
        match owner {
            None => to_js(&self.inner.ranking(g.as_ref())),
            Some(o) => to_js(
                &self
                    .inner
                    .ranking_for(&o, g.as_ref())
                    .map_err(|e| error(&e))?,
            ),
        }
    }

    /// What a scale of an owner (default the primary owner) to `replicas` would delete
    /// now (`ScalePreview`).
    #[wasm_bindgen(unchecked_return_type = "ScalePreview")]
    pub fn preview(&self, replicas: JsValue, feature_gates: JsValue, owner: JsValue) -> JsResult {
        let owner = opt_string(&owner, "owner")?;
        let replicas = count(&replicas, "replicas", i32::MAX as usize)?;
        let replicas = i32::try_from(replicas).unwrap_or(i32::MAX);
        let g = gates(&feature_gates)?;
        match owner {
            None => to_js(&self.inner.preview(replicas, g.as_ref())),
            Some(o) => to_js(
                &self
                    .inner
                    .preview_for(&o, replicas, g.as_ref())
                    .map_err(|e| error(&e))?,
            ),
        }
    }

    /// The scenario with every edit applied so far (replays to this run).
    #[wasm_bindgen(unchecked_return_type = "Scenario")]
    pub fn scenario(&self) -> JsResult {
        to_js(&self.inner.scenario())
    }
}
