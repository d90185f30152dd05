//! Event correlation (`replicore::event_correlation`) for JS: the correlator's state as a
//! class kept in wasm memory (`EventCorrelator`), and the pure form over a state value
//! (`correlateEvent`). Conversion and error mapping only.

use replicore::event_correlation::{correlate, Correlated, Event, EventCorrelator, EventToRecord};
use replicore::Time;
use wasm_bindgen::prelude::*;

use crate::convert::{any, error, object, optional, to_js, to_json_text, JsResult};

/// A state from JSON text; `undefined`/`null` is a fresh recorder's.
fn state_from(value: &JsValue) -> Result<EventCorrelator, JsValue> {
    optional(value, "state")
}

/// The recorder's correlator in wasm memory: one per event recorder, fed every event in
/// the order recorded.
#[wasm_bindgen(js_name = EventCorrelator)]
pub struct JsEventCorrelator {
    state: EventCorrelator,
}

#[wasm_bindgen(js_class = EventCorrelator)]
impl JsEventCorrelator {
    /// `new EventCorrelator(stateJson?)`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "JsonInput<EventCorrelatorState> | undefined")]
        state: JsValue,
    ) -> Result<JsEventCorrelator, JsValue> {
        Ok(JsEventCorrelator {
            state: state_from(&state)?,
        })
    }

    /// `correlate(eventJson, nowJson)`: create, patch or drop; a refused event changes
    /// nothing.
    #[wasm_bindgen(unchecked_return_type = "Correlation")]
    pub fn correlate(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<EventToRecord>")] event: JsValue,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
    ) -> JsResult {
        let event: EventToRecord = object(&event, "event")?;
        let now: Time = any(&now, "now")?;
        let decision = self.state.correlate(&event, now).map_err(|e| error(&e))?;
        to_js(&decision)
    }

    /// `written(eventJson)`: the Event the server returned for a create or patch.
    pub fn written(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "JsonInput<RecordedEvent | KubeObject>")]
        event: JsValue,
    ) -> Result<(), JsValue> {
        let event: Event = object(&event, "event")?;
        self.state.written(&event);
        Ok(())
    }

    /// `state()`: the state as JSON text.
    #[wasm_bindgen(unchecked_return_type = "JsonText<EventCorrelatorState>")]
    pub fn state(&self) -> JsResult {
        to_json_text(&self.state)
    }

    /// `size()`: entries per cache.
    #[wasm_bindgen(unchecked_return_type = "EventCorrelatorSize")]
    pub fn size(&self) -> JsResult {
        to_js(&self.state.size())
    }
}

/// `correlateEvent(stateJson|null, eventJson, nowJson)`: `{decision, state}` as JSON text.
#[wasm_bindgen(js_name = correlateEvent, unchecked_return_type = "JsonText<Correlated>")]
pub fn correlate_event(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<EventCorrelatorState> | undefined")]
    state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<EventToRecord>")] event: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
) -> JsResult {
    let state = state_from(&state)?;
    let event: EventToRecord = object(&event, "event")?;
    let now: Time = any(&now, "now")?;
    let (decision, state) = correlate(state, &event, now).map_err(|e| error(&e))?;
    to_json_text(&Correlated { decision, state })
}
