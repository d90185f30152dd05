//! The simulated API server: an in-memory store of owners and pods with a global
//! resourceVersion, `generateName`, graceful deletion, and the failures a create can meet
//! (a pod-count quota, an admission rejection). Every write returns the change the watch
//! will carry.

use std::collections::BTreeMap;

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
}

impl Object {
    pub fn key(&self) -> String {
        match self {
            Object::Pod(p) => p.key(),
            Object::Owner(o) => o.metadata.key(),
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
            let candidate = format!("{prefix}{}", rng.name_suffix(5));
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
            Object::Owner(_) => Err(ApiError::new("InternalError", "unreachable")),
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
}
