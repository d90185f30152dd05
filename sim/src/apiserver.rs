//! The simulated API server: an in-memory store of owners and pods with a global
//! resourceVersion, `generateName`, graceful deletion, and the failures a create can meet
//! (a pod-count quota, an admission rejection). Every write returns the change the watch
//! will carry.

use std::collections::BTreeMap;

use replicore::deployment::model::{Deployment, Wire};
use replicore::model::{Pod, ReplicaSet};
use replicore::outcome::ApiError;
use replicore::pods;
use replicore::time::Time;

use super::rng::Rng;

/// The grace period of a delete: the pod spec's default `terminationGracePeriodSeconds`.
pub const TERMINATION_GRACE_SECONDS: i64 = 30;

/// What a watch event carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    Pod(Box<Pod>),
    Owner(Box<ReplicaSet>),
    Deployment(Box<Wire<Deployment>>),
}

impl Object {
    pub fn key(&self) -> String {
        match self {
            Object::Pod(p) => p.key(),
            Object::Owner(o) => o.metadata.key(),
            Object::Deployment(d) => d.metadata.key(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Updated,
    Deleted,
}

/// One write, as the watch reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub kind: ChangeKind,
    pub object: Object,
    pub rv: u64,
}

/// How a create may be refused, decided by the caller's fault draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Allow,
    Reject,
}

#[derive(Clone, Debug, Default)]
pub struct ApiServer {
    pub owners: BTreeMap<String, ReplicaSet>,
    pub pods: BTreeMap<String, Pod>,
    /// Deployments, as wire objects (what a GET returns).
    pub deployments: BTreeMap<String, Wire<Deployment>>,
    rv: u64,
    /// Max non-terminated pods per namespace (a ResourceQuota on `pods`).
    pub quota: Option<u32>,
}

/// A UUID-shaped identifier drawn from the seeded RNG.
pub fn new_uid(rng: &mut Rng) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        ((b >> 48) & 0x3fff) | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

impl ApiServer {
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    fn bump(&mut self) -> u64 {
        self.rv += 1;
        self.rv
    }

    /// Stores an owner as given (import or scenario), stamping a resourceVersion.
    pub fn put_owner(&mut self, mut rs: ReplicaSet) -> Change {
        let rv = self.bump();
        rs.metadata.resource_version = Some(rv.to_string());
        let kind = if self.owners.contains_key(&rs.metadata.key()) {
            ChangeKind::Updated
        } else {
            ChangeKind::Added
        };
        self.owners.insert(rs.metadata.key(), rs.clone());
        Change {
            kind,
            object: Object::Owner(Box::new(rs)),
            rv,
        }
    }

    /// Stores a pod as given (import), stamping a resourceVersion.
    pub fn put_pod(&mut self, mut pod: Pod) -> Change {
        let rv = self.bump();
        pod.metadata.resource_version = Some(rv.to_string());
        let kind = if self.pods.contains_key(&pod.key()) {
            ChangeKind::Updated
        } else {
            ChangeKind::Added
        };
        self.pods.insert(pod.key(), pod.clone());
        Change {
            kind,
            object: Object::Pod(Box::new(pod)),
            rv,
        }
    }

    /// The `pods` usage of a namespace: the pods kube-apiserver's quota evaluator charges
    /// at `now` (the engine's rule, [`replicore::quota`]).
    pub fn quota_used(&self, namespace: &str, now: Time) -> u32 {
        let n = replicore::quota::used(
            self.pods.values().filter(|p| p.namespace() == namespace),
            now,
        );
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// `POST /api/v1/namespaces/{ns}/pods` with the engine's pod: quota, admission, then
    /// `generateName` and a UID; the pod starts Pending and unscheduled.
    pub fn create_pod(
        &mut self,
        body: &serde_json::Value,
        now: Time,
        rng: &mut Rng,
        admission: Admission,
    ) -> Result<(Pod, Change), ApiError> {
        // (The same deserializer as every other Pod read: one instantiation in the binary.)
        let mut pod: Pod = replicore::input::from_value(body.clone()).map_err(|e| ApiError {
            reason: "BadRequest".into(),
            message: format!("the pod body is not a Pod: {e}"),
            code: Some(400),
            causes: Vec::new(),
        })?;
        let prefix = pod.metadata.generate_name.clone().unwrap_or_default();
        let ns = pod.namespace().to_owned();
        if let Some(limit) = self.quota {
            let used = self.quota_used(&ns, now);
            if used >= limit {
                return Err(ApiError {
                    reason: "Forbidden".into(),
                    message: format!(
                        "pods \"{prefix}\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods={used}, limited: pods={limit}"
                    ),
                    code: Some(403),
                    causes: Vec::new(),
                });
            }
        }
        if admission == Admission::Reject {
            return Err(ApiError {
                reason: "InternalError".into(),
                message: "Internal error occurred: failed calling webhook \"admission.sim.replicore\": injected failure".into(),
                code: Some(500),
                causes: Vec::new(),
            });
        }
        let mut name = String::new();
        for _ in 0..16 {
            let candidate = format!(
                "{prefix}{}",
                rng.name_suffix(replicore::rng::NAME_SUFFIX_LEN)
            );
            if !self.pods.contains_key(&format!("{ns}/{candidate}")) {
                name = candidate;
                break;
            }
        }
        if name.is_empty() {
            return Err(ApiError {
                reason: "AlreadyExists".into(),
                message: format!("pods \"{prefix}\" already exists"),
                code: Some(409),
                causes: Vec::new(),
            });
        }
        pod.metadata.name = name;
        pod.metadata.uid = new_uid(rng);
        pod.metadata.creation_timestamp = Some(now);
        pod.metadata.deletion_timestamp = None;
        pod.spec.node_name = None;
        pod.status = Default::default();
        pod.status.phase = Some("Pending".into());
        let change = self.put_pod(pod);
        match &change.object {
            Object::Pod(p) => Ok(((**p).clone(), change)),
            _ => Err(ApiError::new("InternalError", "unreachable")),
        }
    }

    /// A write to a pod (kubelet, scheduler, a user's edit). `None` when it is gone.
    pub fn update_pod(&mut self, key: &str, f: impl FnOnce(&mut Pod)) -> Option<Change> {
        let rv = self.rv + 1;
        let pod = self.pods.get_mut(key)?;
        f(pod);
        pod.metadata.resource_version = Some(rv.to_string());
        let pod = pod.clone();
        self.rv = rv;
        Some(Change {
            kind: ChangeKind::Updated,
            object: Object::Pod(Box::new(pod)),
            rv,
        })
    }

    /// `DELETE` of a pod with a UID precondition. Unscheduled and terminal pods go at once;
    /// others get a deletionTimestamp (graceful termination; the kubelet removes them).
    /// Returns the change and whether the pod is gone already.
    pub fn delete_pod(
        &mut self,
        key: &str,
        uid: Option<&str>,
        now: Time,
    ) -> Result<(Change, bool), ApiError> {
        let not_found = || ApiError {
            reason: "NotFound".into(),
            message: format!(
                "pods \"{}\" not found",
                key.rsplit('/').next().unwrap_or(key)
            ),
            code: Some(404),
            causes: Vec::new(),
        };
        let pod = self.pods.get(key).ok_or_else(not_found)?;
        if uid.is_some_and(|u| u != pod.uid()) {
            return Err(ApiError {
                reason: "Conflict".into(),
                message: format!(
                    "Precondition failed: UID in precondition: {}, UID in object meta: {}",
                    uid.unwrap_or(""),
                    pod.uid()
                ),
                code: Some(409),
                causes: Vec::new(),
            });
        }
        if pod.node_name().is_empty() || pods::is_terminal(pod) {
            return self
                .remove_pod(key)
                .map(|c| (c, true))
                .ok_or_else(not_found);
        }
        if pod.metadata.deletion_timestamp.is_some() {
            // Already terminating: the call succeeds and changes nothing.
            let rv = self.rv;
            return Ok((
                Change {
                    kind: ChangeKind::Updated,
                    object: Object::Pod(Box::new(pod.clone())),
                    rv,
                },
                false,
            ));
        }
        // A graceful delete: the timestamp and the grace period, as kube-apiserver sets
        // them (the pod's terminationGracePeriodSeconds, 30 s by default).
        self.update_pod(key, |p| {
            p.metadata.deletion_timestamp = Some(now);
            p.metadata.deletion_grace_period_seconds = Some(TERMINATION_GRACE_SECONDS);
        })
        .map(|c| (c, false))
        .ok_or_else(not_found)
    }

    /// The pod leaves the store (termination finished).
    pub fn remove_pod(&mut self, key: &str) -> Option<Change> {
        let mut pod = self.pods.remove(key)?;
        let rv = self.bump();
        pod.metadata.resource_version = Some(rv.to_string());
        Some(Change {
            kind: ChangeKind::Deleted,
            object: Object::Pod(Box::new(pod)),
            rv,
        })
    }

    /// A write to an owner (spec by a user, status by the controller).
    pub fn update_owner(&mut self, key: &str, f: impl FnOnce(&mut ReplicaSet)) -> Option<Change> {
        let rv = self.rv + 1;
        let rs = self.owners.get_mut(key)?;
        f(rs);
        rs.metadata.resource_version = Some(rv.to_string());
        let rs = rs.clone();
        self.rv = rv;
        Some(Change {
            kind: ChangeKind::Updated,
            object: Object::Owner(Box::new(rs)),
            rv,
        })
    }

    /// The owner leaves the store (a Deployment's history cleanup, D-70).
    pub fn remove_owner(&mut self, key: &str) -> Option<Change> {
        let mut rs = self.owners.remove(key)?;
        let rv = self.bump();
        rs.metadata.resource_version = Some(rv.to_string());
        Some(Change {
            kind: ChangeKind::Deleted,
            object: Object::Owner(Box::new(rs)),
            rv,
        })
    }

    /// `POST replicasets`: the name as sent (AlreadyExists when taken), a UID, the
    /// creation time, generation 1, an empty status.
    pub fn create_owner(
        &mut self,
        object: &serde_json::Value,
        now: Time,
        rng: &mut Rng,
    ) -> Result<(ReplicaSet, Change), ApiError> {
        let mut rs: ReplicaSet = parse_body(object, "ReplicaSet")?;
        let key = rs.metadata.key();
        if self.owners.contains_key(&key) {
            return Err(ApiError {
                reason: "AlreadyExists".into(),
                message: format!("replicasets.apps \"{}\" already exists", rs.metadata.name),
                code: Some(409),
                causes: Vec::new(),
            });
        }
        rs.metadata.uid = new_uid(rng);
        rs.metadata.creation_timestamp = Some(now);
        rs.metadata.deletion_timestamp = None;
        rs.metadata.generation = Some(1);
        rs.status = Default::default();
        let change = self.put_owner(rs);
        match &change.object {
            Object::Owner(rs) => Ok(((**rs).clone(), change)),
            _ => Err(ApiError::new("InternalError", "unreachable")),
        }
    }

    /// `PUT replicasets/{name}`: spec and metadata as sent, the status kept; the
    /// resourceVersion sent must be the stored one (409 Conflict otherwise); the
    /// generation moves when the spec changes.
    pub fn replace_owner(
        &mut self,
        key: &str,
        object: &serde_json::Value,
    ) -> Result<Change, ApiError> {
        let sent: ReplicaSet = parse_body(object, "ReplicaSet")?;
        let stored = self
            .owners
            .get(key)
            .ok_or_else(|| not_found("replicasets.apps", key))?;
        check_version(
            sent.metadata.resource_version.as_deref(),
            stored.metadata.resource_version.as_deref(),
            "replicasets.apps",
            key,
        )?;
        let bump = sent.spec != stored.spec;
        let generation = stored.metadata.generation.unwrap_or(0);
        let (uid, created, status) = (
            stored.metadata.uid.clone(),
            stored.metadata.creation_timestamp,
            stored.status.clone(),
        );
        self.update_owner(key, move |rs| {
            *rs = sent;
            rs.metadata.uid = uid;
            rs.metadata.creation_timestamp = created;
            rs.metadata.generation = Some(if bump { generation + 1 } else { generation });
            rs.status = status;
        })
        .ok_or_else(|| not_found("replicasets.apps", key))
    }

    /// `PATCH replicasets/{name}`: the Deployment controller's adopt/release strategic
    /// merge patches — owner references merged by UID (`$patch: delete` removes one),
    /// with the object's UID as precondition.
    pub fn patch_owner(
        &mut self,
        key: &str,
        patch: &serde_json::Value,
    ) -> Result<Change, ApiError> {
        let stored = self
            .owners
            .get(key)
            .ok_or_else(|| not_found("replicasets.apps", key))?;
        let meta = patch.get("metadata");
        if let Some(uid) = meta
            .and_then(|m| m.get("uid"))
            .and_then(serde_json::Value::as_str)
        {
            if uid != stored.metadata.uid {
                return Err(ApiError {
                    reason: "Conflict".into(),
                    message: format!(
                        "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                        stored.metadata.uid
                    ),
                    code: Some(409),
                    causes: Vec::new(),
                });
            }
        }
        let mut refs = stored.metadata.owner_references.clone();
        let patched = meta
            .and_then(|m| m.get("ownerReferences"))
            .and_then(serde_json::Value::as_array);
        for r in patched.into_iter().flatten() {
            let uid = r
                .get("uid")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("");
            refs.retain(|x| x.uid != uid);
            if r.get("$patch").and_then(serde_json::Value::as_str) != Some("delete") {
                refs.push(parse_body(r, "OwnerReference")?);
            }
        }
        self.update_owner(key, move |rs| rs.metadata.owner_references = refs)
            .ok_or_else(|| not_found("replicasets.apps", key))
    }

    /// Stores a deployment (wire JSON) as given, stamping a resourceVersion.
    pub fn put_deployment(&mut self, mut wire: serde_json::Value) -> replicore::Result<Change> {
        let rv = self.rv + 1;
        set_field(
            &mut wire,
            &["metadata", "resourceVersion"],
            rv.to_string().into(),
        );
        let d: Wire<Deployment> = Wire::from_value(wire)?;
        self.rv = rv;
        let key = d.metadata.key();
        let kind = if self.deployments.contains_key(&key) {
            ChangeKind::Updated
        } else {
            ChangeKind::Added
        };
        self.deployments.insert(key, d.clone());
        Ok(Change {
            kind,
            object: Object::Deployment(Box::new(d)),
            rv,
        })
    }

    /// `PUT deployments/{name}` (`status`: the status subresource): the resourceVersion
    /// sent must be the stored one. The main resource keeps the stored status and moves
    /// the generation when the spec changes; the subresource changes only the status.
    pub fn replace_deployment(
        &mut self,
        key: &str,
        object: &serde_json::Value,
        status: bool,
    ) -> Result<Change, ApiError> {
        let stored = self
            .deployments
            .get(key)
            .ok_or_else(|| not_found("deployments.apps", key))?;
        let sent_rv = object
            .get("metadata")
            .and_then(|m| m.get("resourceVersion"))
            .and_then(serde_json::Value::as_str);
        check_version(
            sent_rv,
            stored.metadata.resource_version.as_deref(),
            "deployments.apps",
            key,
        )?;
        let stored_wire = stored.wire.as_ref().clone();
        let stored_field = |path: &[&str]| {
            path.iter()
                .try_fold(&stored_wire, |v, p| v.get(*p))
                .cloned()
                .unwrap_or(serde_json::Value::Null)
        };
        let mut w = object.clone();
        let generation = stored.metadata.generation.unwrap_or(0);
        if status {
            // The status strategy keeps the stored spec and labels; the rest of the
            // metadata (the revision annotation, D-30) is written as sent.
            set_field(&mut w, &["spec"], stored_field(&["spec"]));
            set_field(
                &mut w,
                &["metadata", "labels"],
                stored_field(&["metadata", "labels"]),
            );
            set_field(&mut w, &["metadata", "generation"], generation.into());
        } else {
            set_field(&mut w, &["status"], stored_field(&["status"]));
            let bump = object.get("spec") != stored_wire.get("spec");
            set_field(
                &mut w,
                &["metadata", "generation"],
                (if bump { generation + 1 } else { generation }).into(),
            );
        }
        for field in ["uid", "creationTimestamp"] {
            set_field(
                &mut w,
                &["metadata", field],
                stored_field(&["metadata", field]),
            );
        }
        let wire = w;
        self.put_deployment(wire).map_err(|e| ApiError {
            reason: "Invalid".into(),
            message: e.to_string(),
            code: Some(422),
            causes: Vec::new(),
        })
    }

    /// A user's write to a deployment's wire object (`kubectl scale`, `set image`, …):
    /// the generation moves when the spec changes. `None` when there is no such
    /// deployment or the result is not a Deployment.
    pub fn edit_deployment(
        &mut self,
        key: &str,
        f: impl FnOnce(&mut serde_json::Value),
    ) -> replicore::Result<Option<Change>> {
        let Some(stored) = self.deployments.get(key) else {
            return Ok(None);
        };
        let mut wire = stored.wire.as_ref().clone();
        f(&mut wire);
        if wire.get("spec") != stored.wire.get("spec") {
            let generation = stored.metadata.generation.unwrap_or(0);
            set_field(
                &mut wire,
                &["metadata", "generation"],
                (generation + 1).into(),
            );
        }
        self.put_deployment(wire).map(Some)
    }
}

fn parse_body<T: serde::de::DeserializeOwned>(
    body: &serde_json::Value,
    kind: &str,
) -> Result<T, ApiError> {
    replicore::input::from_value(body.clone()).map_err(|e| ApiError {
        reason: "BadRequest".into(),
        message: format!("the body is not a {kind}: {e}"),
        code: Some(400),
        causes: Vec::new(),
    })
}

fn not_found(resource: &str, key: &str) -> ApiError {
    ApiError {
        reason: "NotFound".into(),
        message: format!(
            "{resource} \"{}\" not found",
            key.rsplit('/').next().unwrap_or(key)
        ),
        code: Some(404),
        causes: Vec::new(),
    }
}

/// Optimistic concurrency: a resourceVersion sent must be the stored one.
fn check_version(
    sent: Option<&str>,
    stored: Option<&str>,
    resource: &str,
    key: &str,
) -> Result<(), ApiError> {
    match sent {
        Some(v) if !v.is_empty() && Some(v) != stored => Err(ApiError {
            reason: "Conflict".into(),
            message: format!(
                "Operation cannot be fulfilled on {resource} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                key.rsplit('/').next().unwrap_or(key)
            ),
            code: Some(409),
            causes: Vec::new(),
        }),
        _ => Ok(()),
    }
}

/// Sets `path` in a JSON object, making the objects on the way.
pub fn set_field(doc: &mut serde_json::Value, path: &[&str], value: serde_json::Value) {
    let Some((last, parents)) = path.split_last() else {
        *doc = value;
        return;
    };
    let mut at = doc;
    for p in parents {
        if !at.is_object() {
            *at = serde_json::Value::Object(Default::default());
        }
        let Some(map) = at.as_object_mut() else {
            return;
        };
        at = map
            .entry((*p).to_owned())
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
    }
    if !at.is_object() {
        *at = serde_json::Value::Object(Default::default());
    }
    if let Some(map) = at.as_object_mut() {
        map.insert((*last).to_owned(), value);
    }
}
