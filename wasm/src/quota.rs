//! The `pods` quota rule for the dev-server's fake API server. Conversion only.

use replicore::{Pod, Time};
use wasm_bindgen::prelude::*;

use crate::convert::{any, objects};

/// `podQuotaUsed(podsJson, nowJson)`: how many of the pods a `pods` ResourceQuota charges
/// at `now` (kube-apiserver's `QuotaV1Pod`: not terminal, not terminating past its grace
/// period).
#[wasm_bindgen(js_name = podQuotaUsed)]
pub fn pod_quota_used(
    #[wasm_bindgen(unchecked_param_type = "JsonInput<KubeObject[]>")] pods: JsValue,
    #[wasm_bindgen(unchecked_param_type = "JsonInput<Time>")] now: JsValue,
) -> Result<u32, JsValue> {
    let pods: Vec<Pod> = objects(&pods, "pods")?;
    let now: Time = any(&now, "now")?;
    let n = replicore::quota::used(&pods, now);
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}
