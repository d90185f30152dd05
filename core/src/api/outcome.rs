//! What the host reports back: the result of each API call it made for a plan.

use serde::{Deserialize, Serialize};

use crate::model::ReplicaSet;

/// An error answer of the API server (`metav1.Status` of a failed call).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ApiError {
    /// The `StatusReason`: `NotFound`, `Conflict`, `Forbidden`, `Invalid`, `InternalError`…
    #[serde(default)]
    pub reason: String,
    /// The error text, as `err.Error()` prints it.
    #[serde(default)]
    pub message: String,
    /// HTTP status code, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// The `details.causes[].reason` values (e.g. `NamespaceTerminating`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
}

impl ApiError {
    /// An error with `reason` and `message`, no code and no causes.
    pub fn new(reason: &str, message: impl Into<String>) -> Self {
        ApiError {
            reason: reason.into(),
            message: message.into(),
            code: None,
            causes: Vec::new(),
        }
    }

    /// `apierrors.IsNotFound`.
    pub fn is_not_found(&self) -> bool {
        self.reason == "NotFound" || self.code == Some(404)
    }

    /// `apierrors.IsInvalid`.
    pub fn is_invalid(&self) -> bool {
        self.reason == "Invalid" || self.code == Some(422)
    }

    /// `HasStatusCause(err, NamespaceTerminating)`.
    pub fn is_namespace_terminating(&self) -> bool {
        self.causes.iter().any(|c| c == "NamespaceTerminating")
    }
}

/// The result of one API call: `{"result": "ok", "name"?}`, `{"result": "error",
/// "reason", "message", "code"?, "causes"?}` or `{"result": "skipped"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "result", rename_all = "camelCase", from = "ResultWire")]
pub enum CallResult {
    /// The call succeeded; for a create, `name` is the created pod's name.
    Ok {
        /// For a create, the created pod's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        name: Option<String>,
    },
    /// The API answered with an error.
    Error(ApiError),
    /// The call was not made (an adoption after a failed owner re-check).
    Skipped,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum ResultKind {
    Ok,
    Error,
    Skipped,
}

/// The wire form of [`CallResult`] and of the Deployment controller's `ApiResult`, read
/// as one flat object: an internally tagged enum would buffer every value first (slower,
/// and a second deserializer in the wasm binary).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultWire {
    pub(crate) result: ResultKind,
    #[serde(default)]
    name: Option<String>,
    /// The object an `ApiResult` carries.
    #[serde(default)]
    pub(crate) object: Option<serde_json::Value>,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    code: Option<u16>,
    #[serde(default)]
    causes: Vec<String>,
}

impl ResultWire {
    /// The error the wire carries (for `result: "error"`).
    pub(crate) fn api_error(self) -> ApiError {
        ApiError {
            reason: self.reason,
            message: self.message,
            code: self.code,
            causes: self.causes,
        }
    }
}

impl From<ResultWire> for CallResult {
    fn from(w: ResultWire) -> Self {
        match w.result {
            ResultKind::Ok => CallResult::Ok { name: w.name },
            ResultKind::Error => CallResult::Error(w.api_error()),
            ResultKind::Skipped => CallResult::Skipped,
        }
    }
}

impl CallResult {
    /// A success that created nothing named.
    pub fn ok() -> Self {
        CallResult::Ok { name: None }
    }

    /// A create that succeeded with the pod named `name`.
    pub fn created(name: impl Into<String>) -> Self {
        CallResult::Ok {
            name: Some(name.into()),
        }
    }

    /// An API error with `reason` and `message`.
    pub fn error(reason: &str, message: impl Into<String>) -> Self {
        CallResult::Error(ApiError::new(reason, message))
    }

    /// The API error, when the call failed.
    pub fn as_error(&self) -> Option<&ApiError> {
        match self {
            CallResult::Error(e) => Some(e),
            _ => None,
        }
    }
}

/// the live (uncached) read of the owner made before the first adoption.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum LiveOwner {
    /// The API server returned the owner.
    #[serde(deserialize_with = "crate::objects::object")]
    Found(#[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))] Box<ReplicaSet>),
    /// The read failed with this error.
    Failed(ApiError),
}

/// The results of the claim patches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ClaimOutcome {
    /// The live read of the owner, when the plan asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub live_owner: Option<LiveOwner>,
    /// One result per planned claim, in the plan's order.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub results: Vec<CallResult>,
}

/// Everything the host did for a plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncOutcome {
    /// The results of the claim patches.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub claims: ClaimOutcome,
    /// One result per create call, in the order the calls were issued.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub creates: Vec<CallResult>,
    /// One result per planned deletion, in the plan's order.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub deletes: Vec<CallResult>,
}
