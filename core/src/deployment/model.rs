//! The Deployment object and the constants of the Deployment controller (D-01..D-04).
//!
//! Objects the controller writes back (the deployment, its ReplicaSets) are kept twice: as
//! typed fields the rules read, and as the wire JSON they arrived in ([`Wire`]), so a
//! write sends the whole object (every field the engine does not model included) with
//! only the fields the controller changes replaced.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::model::{LabelSelector, ObjectMeta, ReplicaSet, StringMap};
use crate::time::{self, Time};

/// D-01: the revision annotation of a deployment and its ReplicaSets.
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
/// D-01: the revisions an RS served before it was rolled back to.
pub const REVISION_HISTORY_ANNOTATION: &str = "deployment.kubernetes.io/revision-history";
/// D-01: `spec.replicas` of the deployment when the RS was last scaled.
pub const DESIRED_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/desired-replicas";
/// D-01: `spec.replicas + maxSurge` of the deployment when the RS was last scaled.
pub const MAX_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/max-replicas";
/// D-01: the deprecated rollback request (`extensions/v1beta1` `spec.rollbackTo`).
pub const ROLLBACK_TO_ANNOTATION: &str = "deprecated.deployment.rollback.to";
/// D-01: kubectl's last applied configuration.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// D-01: the label that tells the ReplicaSets of one deployment apart.
pub const HASH_LABEL: &str = "pod-template-hash";
/// D-04 / D-33: the revision-history annotation's length limit.
pub const MAX_REVISION_HISTORY_CHARS: usize = 2000;
/// D-04: `progressDeadlineSeconds` / `revisionHistoryLimit` meaning "none".
pub const UNLIMITED: i32 = i32::MAX;

/// D-02: annotations never copied from a deployment to its ReplicaSets.
pub const ANNOTATIONS_NOT_COPIED: [&str; 6] = [
    LAST_APPLIED_ANNOTATION,
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    ROLLBACK_TO_ANNOTATION,
];

/// D-02: is `key` one of the annotations a deployment keeps to itself?
pub(crate) fn skip_copy_annotation(key: &str) -> bool {
    ANNOTATIONS_NOT_COPIED.contains(&key)
}

/// Condition types and reasons (D-03).
pub mod reason {
    /// Condition type: the rollout progresses (or stopped progressing).
    pub const PROGRESSING: &str = "Progressing";
    /// Condition type: the Deployment has its minimum available replicas.
    pub const AVAILABLE: &str = "Available";
    /// Condition type: a ReplicaSet could not be created or scaled.
    pub const REPLICA_FAILURE: &str = "ReplicaFailure";
    /// Reason: the new ReplicaSet was updated.
    pub const RS_UPDATED: &str = "ReplicaSetUpdated";
    /// Reason: creating the new ReplicaSet failed.
    pub const FAILED_RS_CREATE: &str = "ReplicaSetCreateError";
    /// Reason: the new ReplicaSet was created.
    pub const NEW_RS_CREATED: &str = "NewReplicaSetCreated";
    /// Reason: the new ReplicaSet was found.
    pub const FOUND_NEW_RS: &str = "FoundNewReplicaSet";
    /// Reason: the new ReplicaSet is available; the rollout is complete.
    pub const NEW_RS_AVAILABLE: &str = "NewReplicaSetAvailable";
    /// Reason: the progress deadline passed.
    pub const TIMED_OUT: &str = "ProgressDeadlineExceeded";
    /// Reason: the Deployment is paused.
    pub const PAUSED: &str = "DeploymentPaused";
    /// Reason: the Deployment was resumed.
    pub const RESUMED: &str = "DeploymentResumed";
    /// Reason: the minimum of available replicas is met.
    pub const MIN_AVAILABLE: &str = "MinimumReplicasAvailable";
    /// Reason: the minimum of available replicas is not met.
    pub const MIN_UNAVAILABLE: &str = "MinimumReplicasUnavailable";
}

/// A typed object together with the JSON it was read from. Serializes as the wire JSON;
/// deserializes from JSON into both. Both parts are shared (`Arc`): a copy costs two
/// reference counts, and the first change to a copy's typed part copies that part.
#[derive(Clone, Debug, PartialEq)]
pub struct Wire<T> {
    /// The object as read.
    pub typed: Arc<T>,
    /// The JSON it was read from.
    pub wire: Arc<Value>,
}

impl<T> Deref for Wire<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.typed
    }
}

impl<T: Clone> DerefMut for Wire<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.typed)
    }
}

impl<T> Wire<T> {
    /// The typed part and a wire object for it.
    pub fn new(typed: T, wire: Value) -> Self {
        Wire {
            typed: Arc::new(typed),
            wire: Arc::new(wire),
        }
    }
}

impl<T: serde::de::DeserializeOwned> Wire<T> {
    /// Reads a wire object (a JSON object), naming the field path of any error.
    pub fn from_value(wire: Value) -> crate::Result<Self> {
        let typed = crate::input::from_value(wire.clone())?;
        Ok(Wire::new(typed, wire))
    }
}

impl<T> Serialize for Wire<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.wire.serialize(s)
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Wire<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = Value::deserialize(d)?;
        Wire::from_value(wire).map_err(serde::de::Error::custom)
    }
}

/// A ReplicaSet as the Deployment controller reads and writes it.
pub type Rs = Wire<ReplicaSet>;

/// `intstr.IntOrString`: `3` or `"25%"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum IntOrString {
    /// A count.
    Int(i32),
    /// A count or a percentage (`"25%"`).
    Str(String),
}

/// Read by a visitor of its own rather than serde's `untagged`, which buffers the value
/// (serde's `Content`) and tries each variant in turn: the same values are accepted, an
/// int32 or a string, and a refusal names the value found.
impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IntOrStringVisitor;
        impl serde::de::Visitor<'_> for IntOrStringVisitor {
            type Value = IntOrString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an int32 or a string (IntOrString)")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::Str(v.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<IntOrString, E> {
                Ok(IntOrString::Str(v))
            }
        }
        d.deserialize_any(IntOrStringVisitor)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// `RollingUpdateDeployment`.
pub struct RollingUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `maxUnavailable` (D-05..D-07).
    pub max_unavailable: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `maxSurge` (D-05, D-06).
    pub max_surge: Option<IntOrString>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// `DeploymentStrategy`.
pub struct Strategy {
    /// `RollingUpdate` or `Recreate`; anything else fails the sync (D-19).
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    /// `rollingUpdate`: the rolling update's bounds.
    pub rolling_update: Option<RollingUpdate>,
}

/// The rolling update strategy type.
pub const ROLLING_UPDATE: &str = "RollingUpdate";
/// The recreate strategy type.
pub const RECREATE: &str = "Recreate";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// `DeploymentSpec`.
pub struct DeploymentSpec {
    /// Defaulted to 1 by the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// `None` selects nothing; `{}` selects everything (D-11).
    #[serde(
        default,
        deserialize_with = "crate::objects::opt_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub selector: Option<LabelSelector>,
    /// The pod template, kept as wire JSON (hashed, compared and copied as a whole).
    #[serde(default)]
    pub template: Value,
    #[serde(default, deserialize_with = "crate::objects::object")]
    /// How old pods are replaced by new ones.
    pub strategy: Strategy,
    #[serde(default)]
    /// Seconds a ready pod waits before it counts as available.
    pub min_ready_seconds: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Old ReplicaSets to keep (D-70; `None` or [`UNLIMITED`]: no cleanup).
    pub revision_history_limit: Option<i32>,
    #[serde(default)]
    /// A paused Deployment scales but does not roll out (D-80).
    pub paused: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Seconds before a stalled rollout is reported (D-04, D-75).
    pub progress_deadline_seconds: Option<i32>,
}

/// `DeploymentCondition`, serialized as Go writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentCondition {
    #[serde(rename = "type")]
    /// The condition type ([`reason::PROGRESSING`], …).
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt"
    )]
    /// When the condition was last updated.
    pub last_update_time: Option<Time>,
    #[serde(
        default,
        deserialize_with = "time::deserialize_opt",
        serialize_with = "time::serialize_opt"
    )]
    /// When its status last changed.
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    /// Why, in one word.
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    /// Why, in words.
    pub message: String,
}

/// `DeploymentStatus`, serialized with Go's `omitempty` rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStatus {
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i64>", optional))]
    /// The generation the status was computed for.
    pub observed_generation: i64,
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i32>", optional))]
    /// `status.replicas` summed over its ReplicaSets.
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i32>", optional))]
    /// `status.replicas` of the new ReplicaSet.
    pub updated_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i32>", optional))]
    /// `status.readyReplicas` summed over its ReplicaSets.
    pub ready_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i32>", optional))]
    /// `status.availableReplicas` summed over its ReplicaSets.
    pub available_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<i32>", optional))]
    /// The ReplicaSets' `spec.replicas` summed, less the available pods (never negative).
    pub unavailable_replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `status.terminatingReplicas` summed over its ReplicaSets (with the feature gate; `None` otherwise).
    pub terminating_replicas: Option<i32>,
    #[serde(
        default,
        deserialize_with = "crate::objects::objects",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<DeploymentCondition>>", optional))]
    /// The conditions.
    pub conditions: Vec<DeploymentCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Hash collisions met naming the new ReplicaSet (D-27).
    pub collision_count: Option<i32>,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

impl DeploymentStatus {
    /// `GetDeploymentCondition`.
    pub fn condition(&self, type_: &str) -> Option<&DeploymentCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// A `apps/v1` Deployment: the fields the controller reads and writes.
pub struct Deployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `apiVersion`.
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `kind`.
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "crate::objects::object")]
    /// `metadata`.
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "crate::objects::object")]
    /// `spec`.
    pub spec: DeploymentSpec,
    #[serde(default, deserialize_with = "crate::objects::object")]
    /// `status`.
    pub status: DeploymentStatus,
}

impl Deployment {
    /// `spec.replicas`, defaulted to 1 as the API server does.
    pub fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }

    /// Whether the strategy is `RollingUpdate`.
    pub fn is_rolling_update(&self) -> bool {
        self.spec.strategy.type_ == ROLLING_UPDATE
    }

    /// D-04 `HasProgressDeadline`.
    pub fn has_progress_deadline(&self) -> bool {
        self.spec
            .progress_deadline_seconds
            .is_some_and(|s| s != UNLIMITED)
    }

    /// D-04 `HasRevisionHistoryLimit`.
    pub fn has_revision_history_limit(&self) -> bool {
        self.spec
            .revision_history_limit
            .is_some_and(|s| s != UNLIMITED)
    }

    /// The annotation `key`, if set.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .map(String::as_str)
    }
}

/// The deployment as written back: the wire object with the annotations, the template
/// and the status the sync holds.
pub(crate) fn deployment_wire(d: &Wire<Deployment>) -> Value {
    // Copied without `spec.template` and `status`, which are replaced below (a template
    // is most of a deployment's size).
    // (The maps are filled by `extend`, which inserts: `collect` into a map sorts, and
    // each call site would carry a sort of its own in the wasm module.)
    let mut wire = match d.wire.as_ref() {
        Value::Object(fields) => {
            let mut copy = serde_json::Map::new();
            copy.extend(fields.iter().filter(|(k, _)| k.as_str() != "status").map(
                |(k, v)| match (k.as_str(), v) {
                    ("spec", Value::Object(spec)) => {
                        let mut kept = serde_json::Map::new();
                        kept.extend(
                            spec.iter()
                                .filter(|(k, _)| k.as_str() != "template")
                                .map(|(k, v)| (k.clone(), v.clone())),
                        );
                        (k.clone(), Value::Object(kept))
                    }
                    _ => (k.clone(), v.clone()),
                },
            ));
            Value::Object(copy)
        }
        _ => Value::Object(Default::default()),
    };
    set_path(
        &mut wire,
        &["metadata", "annotations"],
        d.metadata
            .annotations
            .as_ref()
            .map(|a| serde_json::to_value(a).unwrap_or(Value::Null)),
    );
    set_path(
        &mut wire,
        &["spec", "template"],
        Some(d.spec.template.clone()),
    );
    set_path(
        &mut wire,
        &["status"],
        Some(serde_json::to_value(&d.status).unwrap_or(Value::Null)),
    );
    wire
}

/// The ReplicaSet as written back: the wire object with the replicas, minReadySeconds
/// and annotations the sync holds.
pub(crate) fn replica_set_wire(rs: &Rs) -> Value {
    let mut wire = Value::clone(&rs.wire);
    if !wire.is_object() {
        wire = Value::Object(Default::default());
    }
    set_path(
        &mut wire,
        &["metadata", "annotations"],
        rs.metadata
            .annotations
            .as_ref()
            .map(|a| serde_json::to_value(a).unwrap_or(Value::Null)),
    );
    set_path(
        &mut wire,
        &["spec", "replicas"],
        rs.spec.replicas.map(Value::from),
    );
    set_path(
        &mut wire,
        &["spec", "minReadySeconds"],
        (rs.spec.min_ready_seconds != 0).then(|| Value::from(rs.spec.min_ready_seconds)),
    );
    wire
}

/// Sets (or, with `None`, removes) the field at `path`, creating objects on the way.
pub(crate) fn set_path(root: &mut Value, path: &[&str], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = root;
    for key in parents {
        let Some(obj) = at.as_object_mut() else {
            return;
        };
        let entry = obj
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        if !entry.is_object() {
            *entry = Value::Object(Default::default());
        }
        at = entry;
    }
    if let Some(obj) = at.as_object_mut() {
        match value {
            Some(v) => {
                obj.insert(last.to_string(), v);
            }
            None => {
                obj.remove(*last);
            }
        }
    }
}

/// The annotations of `meta`, created empty when absent (Go's `if m == nil { m = map }`).
pub(crate) fn annotations_mut(meta: &mut ObjectMeta) -> &mut StringMap {
    meta.annotations.get_or_insert_with(StringMap::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_or_string_reads_an_int32_or_a_string() {
        let read =
            |text: &str| serde_json::from_str::<IntOrString>(text).map_err(|e| e.to_string());
        assert_eq!(read("3"), Ok(IntOrString::Int(3)));
        assert_eq!(read("-2147483648"), Ok(IntOrString::Int(i32::MIN)));
        assert_eq!(read(r#""25%""#), Ok(IntOrString::Str("25%".into())));
        for refused in ["2147483648", "-2147483649", "1.5", "true", "[]", "{}"] {
            let err = read(refused).err().unwrap_or_default();
            assert!(err.contains("an int32 or a string"), "{refused}: {err}");
        }
        // Round trip: ints as numbers, strings as strings.
        let both = [IntOrString::Int(7), IntOrString::Str("10%".into())];
        let text = serde_json::to_string(&both).unwrap_or_default();
        assert_eq!(text, r#"[7,"10%"]"#);
        assert_eq!(
            serde_json::from_str::<Vec<IntOrString>>(&text).ok(),
            Some(both.to_vec())
        );
    }
}
