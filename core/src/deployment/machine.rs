//! The sans-I/O shape of one `syncDeployment(key)`: a step machine.
//!
//! Upstream's sync makes sequential, dependent writes (a create may answer
//! AlreadyExists and switch to the collision path; a failed scale ends the sync). The
//! engine therefore names one API call at a time ([`Step::Call`]); the host makes it and
//! reports the result ([`DeploymentSync::report`]); at the end the engine says what the
//! sync amounted to ([`Step::Done`]: events, error, requeue).
//!
//! The machine's state is its input and the results reported so far, both plain data
//! (serde, camelCase), so a host may serialize it between steps. [`DeploymentSync::next`]
//! replays the (pure, deterministic) sync from the start: the first k calls get the k
//! reported results, the (k+1)-th suspends the run and becomes the next step. The rule
//! code is therefore ordinary sequential code, each API call a `?`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{DeploymentKinds, FeatureGates};
use crate::error::{Error, Result};
use crate::model::Pod;
use crate::outcome::{ApiError, ResultKind, ResultWire};
use crate::time::{Duration, Time};

use super::model::{Deployment, Rs, Wire};

/// Everything one sync decides from: the informer cache at an instant.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSyncInput {
    /// The controller clock: new condition times, progress deadline, requeue.
    pub now: Time,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<FeatureGates>", optional))]
    /// The feature gates in force.
    pub feature_gates: FeatureGates,
    /// The Deployment and ReplicaSet kinds (apps/v1's unless the host names others).
    #[serde(default, skip_serializing_if = "DeploymentKinds::is_default")]
    #[cfg_attr(feature = "ts", ts(as = "Option<DeploymentKinds>", optional))]
    pub kinds: DeploymentKinds,
    /// The work-queue key synced: `namespace/name`.
    pub key: String,
    /// The deployment as the cache holds it; `None` (absent or null) when the cache has
    /// none of that key (D-10).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<KubeObject>", optional = nullable))]
    pub deployment: Option<Wire<Deployment>>,
    /// The ReplicaSets the cache holds (any namespace; the engine picks).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Vec<KubeObject>"))]
    pub replica_sets: Vec<Rs>,
    /// The pods the cache holds (only Recreate reads them, D-61).
    #[cfg_attr(feature = "ts", ts(as = "Vec<KubeObject>"))]
    pub pods: Vec<Pod>,
}

/// The wire form of [`DeploymentSyncInput`]: objects read as JSON first, then each
/// converted with its own path.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireInput {
    now: Time,
    #[serde(default)]
    feature_gates: FeatureGates,
    #[serde(default, deserialize_with = "crate::objects::object")]
    kinds: DeploymentKinds,
    key: String,
    #[serde(default)]
    deployment: Option<Value>,
    #[serde(default)]
    replica_sets: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "crate::objects::objects")]
    pods: Vec<Pod>,
}

impl WireInput {
    fn convert(self) -> Result<DeploymentSyncInput> {
        self.kinds.validate()?;
        let deployment = match self.deployment {
            None | Some(Value::Null) => None,
            Some(v) => Some(Wire::from_value(v).map_err(|e| e.under("deployment"))?),
        };
        let replica_sets = self
            .replica_sets
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, v)| Wire::from_value(v).map_err(|e| e.under(&format!("replicaSets[{i}]"))))
            .collect::<Result<Vec<Rs>>>()?;
        Ok(DeploymentSyncInput {
            now: self.now,
            feature_gates: self.feature_gates,
            kinds: self.kinds,
            key: self.key,
            deployment,
            replica_sets,
            pods: self.pods,
        })
    }
}

impl<'de> Deserialize<'de> for DeploymentSyncInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        WireInput::deserialize(d)?
            .convert()
            .map_err(serde::de::Error::custom)
    }
}

impl DeploymentSyncInput {
    /// Parses a sync input from JSON text, naming the field path of any error.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        crate::input::from_json::<WireInput>(bytes)?.convert()
    }

    /// Parses a sync input from a JSON value, naming the field path of any error.
    pub fn from_value(value: Value) -> Result<Self> {
        crate::input::from_value::<WireInput>(value)?.convert()
    }
}

/// TypeScript only: a Kubernetes object (or a patch) as JSON, which the engine reads as a
/// JSON value and validates itself (errors name the field path). Typed loosely on
/// purpose: `@kubernetes/client-node`'s `V1Deployment`, `V1ReplicaSet` and `V1Pod` are
/// assignable to it as they are (a class has no index signature, so a stricter
/// `Record<string, unknown>` would refuse them), and an object the engine sends is
/// assignable to them; a restated Kubernetes schema would be a second copy of the API's.
#[cfg(feature = "ts")]
#[derive(ts_rs::TS)]
#[ts(type = "{ [key: string]: any }")]
pub struct KubeObject;

/// One API call the host makes for the engine. Objects are full wire objects (JSON)
/// the host can POST/PUT as they are.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "call",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ApiCall {
    /// `GET apps/v1 deployments/{name}` (uncached): the re-check before the first
    /// adoption (D-21). Answer with the object.
    GetDeployment {
        /// The Deployment's namespace.
        namespace: String,
        /// The Deployment's name.
        name: String,
    },
    /// `PATCH replicasets/{name}`: adopt or release (D-21).
    PatchReplicaSet {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        /// The patch's content type (`application/strategic-merge-patch+json`).
        patch_type: String,
        #[cfg_attr(feature = "ts", ts(as = "KubeObject"))]
        /// The patch body.
        patch: Value,
    },
    /// `POST replicasets` (D-34). Answer with the created object (or nothing: the sent
    /// one is used).
    CreateReplicaSet {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        #[cfg_attr(feature = "ts", ts(as = "KubeObject"))]
        /// The object to send.
        object: Value,
    },
    /// `PUT replicasets/{name}` (D-30, D-47). Answer with the updated object (optional).
    UpdateReplicaSet {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        #[cfg_attr(feature = "ts", ts(as = "KubeObject"))]
        /// The object to send.
        object: Value,
    },
    /// `DELETE replicasets/{name}` (D-70).
    DeleteReplicaSet {
        /// The ReplicaSet's namespace.
        namespace: String,
        /// The ReplicaSet's name.
        name: String,
    },
    /// `PUT deployments/{name}` (rollback, D-93).
    UpdateDeployment {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        #[cfg_attr(feature = "ts", ts(as = "KubeObject"))]
        /// The object to send.
        object: Value,
    },
    /// `PUT deployments/{name}/status`.
    UpdateDeploymentStatus {
        /// The object's namespace.
        namespace: String,
        /// The object's name.
        name: String,
        #[cfg_attr(feature = "ts", ts(as = "KubeObject"))]
        /// The object to send.
        object: Value,
    },
}

impl ApiCall {
    /// The HTTP-level verb: `get`, `patch`, `create`, `update`, `delete`.
    pub fn verb(&self) -> &'static str {
        match self {
            ApiCall::GetDeployment { .. } => "get",
            ApiCall::PatchReplicaSet { .. } => "patch",
            ApiCall::CreateReplicaSet { .. } => "create",
            ApiCall::UpdateReplicaSet { .. }
            | ApiCall::UpdateDeployment { .. }
            | ApiCall::UpdateDeploymentStatus { .. } => "update",
            ApiCall::DeleteReplicaSet { .. } => "delete",
        }
    }

    /// `deployments` or `replicasets`.
    pub fn resource(&self) -> &'static str {
        match self {
            ApiCall::GetDeployment { .. }
            | ApiCall::UpdateDeployment { .. }
            | ApiCall::UpdateDeploymentStatus { .. } => "deployments",
            _ => "replicasets",
        }
    }

    /// `status` for the status subresource, else empty.
    pub fn subresource(&self) -> &'static str {
        match self {
            ApiCall::UpdateDeploymentStatus { .. } => "status",
            _ => "",
        }
    }

    /// The namespace of the object the call is about.
    pub fn namespace(&self) -> &str {
        match self {
            ApiCall::GetDeployment { namespace, .. }
            | ApiCall::PatchReplicaSet { namespace, .. }
            | ApiCall::CreateReplicaSet { namespace, .. }
            | ApiCall::UpdateReplicaSet { namespace, .. }
            | ApiCall::DeleteReplicaSet { namespace, .. }
            | ApiCall::UpdateDeployment { namespace, .. }
            | ApiCall::UpdateDeploymentStatus { namespace, .. } => namespace,
        }
    }

    /// The name of the object the call is about.
    pub fn name(&self) -> &str {
        match self {
            ApiCall::GetDeployment { name, .. }
            | ApiCall::PatchReplicaSet { name, .. }
            | ApiCall::CreateReplicaSet { name, .. }
            | ApiCall::UpdateReplicaSet { name, .. }
            | ApiCall::DeleteReplicaSet { name, .. }
            | ApiCall::UpdateDeployment { name, .. }
            | ApiCall::UpdateDeploymentStatus { name, .. } => name,
        }
    }

    /// The object sent (create/update), if any.
    pub fn object(&self) -> Option<&Value> {
        match self {
            ApiCall::CreateReplicaSet { object, .. }
            | ApiCall::UpdateReplicaSet { object, .. }
            | ApiCall::UpdateDeployment { object, .. }
            | ApiCall::UpdateDeploymentStatus { object, .. } => Some(object),
            _ => None,
        }
    }
}

/// What the API answered to one [`ApiCall`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum ApiResult {
    /// Success; `object` is the object the server returned (for a GET it is required;
    /// for writes it may be omitted, and the object sent is used).
    Ok {
        /// The object the server returned, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(as = "Option<KubeObject>"))]
        object: Option<Value>,
    },
    /// The API answered with an error (`reason` is the `StatusReason`: `NotFound`,
    /// `AlreadyExists`, `Conflict`, `Invalid`, …).
    Error(ApiError),
}

impl ApiResult {
    /// A success without an object.
    pub fn ok() -> Self {
        ApiResult::Ok { object: None }
    }
}

/// Read as one flat object (the wire form [`CallResult`](crate::outcome::CallResult)
/// shares), not through serde's buffer for internally tagged enums.
impl<'de> Deserialize<'de> for ApiResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        crate::objects::converted::<_, ResultWire, _, &str>(d, |w| match w.result {
            ResultKind::Ok => Ok(ApiResult::Ok { object: w.object }),
            ResultKind::Error => Ok(ApiResult::Error(w.api_error())),
            ResultKind::Skipped => Err("an API result is \"ok\" or \"error\", not \"skipped\""),
        })
    }
}

/// An event the controller records on the deployment (D-100).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentEvent {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Why (`ScalingReplicaSet`, …).
    pub reason: String,
    /// The message.
    pub message: String,
}

/// The error `syncDeployment` returned.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncError {
    /// `err.Error()`.
    pub message: String,
    /// The error carries the `NamespaceTerminating` cause: the key is forgotten, not
    /// retried (D-115).
    #[serde(default)]
    pub namespace_terminating: bool,
}

impl SyncError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        SyncError {
            message: message.into(),
            namespace_terminating: false,
        }
    }

    pub(crate) fn api(e: &ApiError) -> Self {
        SyncError {
            message: e.message.clone(),
            namespace_terminating: e.is_namespace_terminating(),
        }
    }
}

/// The progress check's own requeue (D-78), apart from the error requeue.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ProgressRequeue {
    /// No requeue of its own.
    None,
    /// `queue.AddAfter(key, after)`.
    After {
        /// How long to wait.
        after: Duration,
    },
    /// `queue.AddRateLimited(key)`: the deadline is (about to be) exceeded.
    RateLimited,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum ProgressRequeueKind {
    None,
    After,
    RateLimited,
}

/// The wire form of [`ProgressRequeue`], read as one flat object.
#[derive(Deserialize)]
struct ProgressRequeueWire {
    kind: ProgressRequeueKind,
    after: Option<Duration>,
}

impl<'de> Deserialize<'de> for ProgressRequeue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        crate::objects::converted::<_, ProgressRequeueWire, _, String>(d, |w| match w.kind {
            ProgressRequeueKind::None => Ok(ProgressRequeue::None),
            ProgressRequeueKind::After => Ok(ProgressRequeue::After {
                after: crate::objects::required(w.after, r#"kind "after""#, "after")?,
            }),
            ProgressRequeueKind::RateLimited => Ok(ProgressRequeue::RateLimited),
        })
    }
}

/// What the sync amounted to.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncDone {
    /// Events recorded on the deployment, in order.
    pub events: Vec<DeploymentEvent>,
    /// The error returned: the host requeues the key rate-limited (up to 15 retries)
    /// unless it is `namespaceTerminating` (D-115).
    pub error: Option<SyncError>,
    /// The progress check's requeue (D-78).
    pub requeue: ProgressRequeue,
    /// API calls made.
    pub calls: usize,
}

impl SyncDone {
    /// D-115: should the work queue forget the key's backoff?
    pub fn forget(&self) -> bool {
        self.error.as_ref().is_none_or(|e| e.namespace_terminating)
    }
}

/// The next thing to do.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum Step {
    /// Make this call and [`DeploymentSync::report`] its result.
    Call {
        /// The call.
        call: ApiCall,
    },
    /// The sync is over.
    Done {
        /// What the sync amounted to.
        done: SyncDone,
    },
}

/// The step machine of one sync: the input and the results reported so far.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSync {
    /// The sync's input.
    pub input: DeploymentSyncInput,
    #[serde(default)]
    /// The results of the calls made so far, in order.
    pub results: Vec<ApiResult>,
}

impl DeploymentSync {
    /// A machine at its first step. Refuses input the sync cannot run on.
    pub fn new(input: DeploymentSyncInput) -> Result<Self> {
        super::sync::validate(&input)?;
        Ok(DeploymentSync {
            input,
            results: Vec::new(),
        })
    }

    /// The next step: replays the sync with the reported results.
    pub fn next(&self) -> Result<Step> {
        run(&self.input, &self.results, None)
    }

    /// Reports the result of the call the last [`DeploymentSync::next`] named.
    pub fn report(&mut self, result: ApiResult) -> Result<()> {
        self.results.push(result);
        Ok(())
    }
}

/// One run of the sync: the first calls get `results`, the later ones `answer` (when
/// given) or else the first unanswered call suspends the run and becomes the step.
fn run<'a>(
    input: &'a DeploymentSyncInput,
    results: &'a [ApiResult],
    answer: Option<&'a mut dyn FnMut(&ApiCall) -> ApiResult>,
) -> Result<Step> {
    {
        let mut ctx = Ctx::new(input, results);
        ctx.answer = answer;
        let outcome = super::sync::sync_deployment(&mut ctx, input);
        let error = match outcome {
            Ok(()) => None,
            Err(Flow::Fail(e)) => Some(e),
            Err(Flow::Suspend(call)) => return Ok(Step::Call { call: *call }),
            Err(Flow::Bad(e)) => return Err(e),
        };
        if ctx.made < results.len() {
            return Err(Error::Outcome {
                path: format!("results[{}]", ctx.made),
                message: format!(
                    "{} results reported, the sync made {} calls",
                    results.len(),
                    ctx.made
                ),
            });
        }
        Ok(Step::Done {
            done: SyncDone {
                events: ctx.events,
                error,
                requeue: ctx.requeue,
                calls: ctx.made,
            },
        })
    }
}

/// Runs a whole sync against a host that answers each call at once: the same sync as
/// the step machine's (same calls, same results), in one run instead of one replay per
/// call.
pub fn run_sync(
    input: DeploymentSyncInput,
    mut answer: impl FnMut(&ApiCall) -> ApiResult,
) -> Result<SyncDone> {
    super::sync::validate(&input)?;
    match run(&input, &[], Some(&mut answer))? {
        Step::Done { done } => Ok(done),
        // Unreachable: with an answerer no call suspends the run.
        Step::Call { call } => Err(Error::Outcome {
            path: "results".into(),
            message: format!("the {} call was not answered", call.verb()),
        }),
    }
}

/// Why a run of the sync stopped before its end.
#[derive(Debug)]
pub(crate) enum Flow {
    /// The next call has no result yet.
    Suspend(Box<ApiCall>),
    /// The sync returned this error (upstream's `return err`).
    Fail(SyncError),
    /// The input cannot be synced (where upstream would panic).
    Bad(Error),
}

impl From<Error> for Flow {
    fn from(e: Error) -> Self {
        Flow::Bad(e)
    }
}

pub(crate) type Run<T> = std::result::Result<T, Flow>;

/// The replaying API and the sync's side outputs.
pub(crate) struct Ctx<'a> {
    pub now: Time,
    pub gates: FeatureGates,
    pub kinds: &'a DeploymentKinds,
    /// The informer's ReplicaSets (the AlreadyExists path reads it, D-34).
    pub cache: &'a [Rs],
    results: &'a [ApiResult],
    /// Answers the calls past `results` at once (a whole run, [`run_sync`]).
    answer: Option<&'a mut dyn FnMut(&ApiCall) -> ApiResult>,
    made: usize,
    pub events: Vec<DeploymentEvent>,
    pub requeue: ProgressRequeue,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(input: &'a DeploymentSyncInput, results: &'a [ApiResult]) -> Self {
        Ctx {
            now: input.now,
            gates: input.feature_gates,
            kinds: &input.kinds,
            cache: &input.replica_sets,
            results,
            answer: None,
            made: 0,
            events: Vec::new(),
            requeue: ProgressRequeue::None,
        }
    }

    /// Makes `call`: its reported result, or a suspension when there is none yet.
    pub(crate) fn call(
        &mut self,
        call: ApiCall,
    ) -> Run<std::result::Result<Option<Value>, ApiError>> {
        let result = match (self.results.get(self.made), self.answer.as_mut()) {
            (Some(ApiResult::Ok { object }), _) => Ok(object.clone()),
            (Some(ApiResult::Error(e)), _) => Err(e.clone()),
            (None, Some(answer)) => match answer(&call) {
                ApiResult::Ok { object } => Ok(object),
                ApiResult::Error(e) => Err(e),
            },
            (None, None) => return Err(Flow::Suspend(Box::new(call))),
        };
        self.made += 1;
        Ok(result)
    }

    /// Calls made so far in this run.
    pub(crate) fn made_so_far(&self) -> usize {
        self.made
    }

    pub(crate) fn event(&mut self, type_: &str, reason: &str, message: String) {
        self.events.push(DeploymentEvent {
            type_: type_.into(),
            reason: reason.into(),
            message,
        });
    }
}
