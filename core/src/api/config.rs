//! What a host configures: burst size, owner kind and the feature gates that change
//! decisions (C-1, §16), with the defaults of Kubernetes v1.36.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Upstream's `BurstReplicas` (C-1): creates or deletes issued per sync at most.
pub const DEFAULT_BURST_REPLICAS: usize = 500;

/// The API group/version and kind of the owner the engine manages (upstream parametrises
/// the same controller for ReplicaSets and ReplicationControllers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OwnerKind {
    /// The owner's `apiVersion`, as `apps/v1`.
    pub api_version: String,
    /// The owner's `kind`, as `ReplicaSet`.
    pub kind: String,
}

impl OwnerKind {
    /// apps/v1 ReplicaSet, the default owner.
    pub fn replica_set() -> Self {
        OwnerKind {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
        }
    }

    /// apps/v1 Deployment.
    pub fn deployment() -> Self {
        OwnerKind {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
        }
    }

    /// v1 ReplicationController (whose status has no `terminatingReplicas`).
    pub fn replication_controller() -> Self {
        OwnerKind {
            api_version: "v1".into(),
            kind: "ReplicationController".into(),
        }
    }

    /// `EnableStatusTerminatingReplicas`: true for every kind but ReplicationController.
    pub fn reports_terminating_replicas(&self) -> bool {
        self.kind != "ReplicationController"
    }
}

/// The kinds the Deployment controller works with: the Deployment it syncs (named in the
/// controller references of its ReplicaSets) and the ReplicaSets it creates, adopts and
/// reads pods through (named in the controller references of their pods). By default
/// apps/v1's; a host that runs the controller on custom resources (a Deployment-shaped
/// resource whose ReplicaSets are another resource) names them here, as it names the
/// ReplicaSet controller's owner in [`Config::owner_kind`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct DeploymentKinds {
    /// The kind of the object the Deployment controller syncs (apps/v1 Deployment unless
    /// given).
    #[cfg_attr(feature = "ts", ts(as = "Option<OwnerKind>", optional))]
    pub deployment: OwnerKind,
    /// The kind of the ReplicaSets it creates and adopts (apps/v1 ReplicaSet unless given).
    #[cfg_attr(feature = "ts", ts(as = "Option<OwnerKind>", optional))]
    pub replica_set: OwnerKind,
}

impl DeploymentKinds {
    /// Checks that each kind has its apiVersion and kind.
    pub fn validate(&self) -> Result<(), Error> {
        for (path, k) in [
            ("kinds.deployment", &self.deployment),
            ("kinds.replicaSet", &self.replica_set),
        ] {
            if k.kind.is_empty() || k.api_version.is_empty() {
                return Err(Error::Config {
                    path: path.into(),
                    message: "apiVersion and kind are required".into(),
                });
            }
        }
        Ok(())
    }

    /// apps/v1's kinds (the state of a sync omits them then).
    pub fn is_default(&self) -> bool {
        *self == DeploymentKinds::default()
    }
}

impl Default for DeploymentKinds {
    fn default() -> Self {
        DeploymentKinds {
            deployment: OwnerKind::deployment(),
            replica_set: OwnerKind::replica_set(),
        }
    }
}

impl Default for OwnerKind {
    fn default() -> Self {
        OwnerKind::replica_set()
    }
}

/// The feature gates that change the controller's decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "PascalCase", default)]
pub struct FeatureGates {
    /// R-72 rule 4 (beta, on since 1.22).
    pub pod_deletion_cost: bool,
    /// R-72 rules 6 and 8 (GA and locked on since 1.31).
    pub logarithmic_scale_down: bool,
    /// `status.terminatingReplicas` (beta, on since 1.35).
    pub deployment_replica_set_terminating_replicas: bool,
    /// S-2: the stale-cache guard (beta, on since 1.36).
    pub stale_controller_consistency_replica_set: bool,
}

impl FeatureGates {
    /// R-81, S-8: whether terminating pods are counted for an owner of `kind`: behind
    /// the DeploymentReplicaSetTerminatingReplicas gate, and never for a
    /// ReplicationController. The one test for sync, status and explain.
    pub(crate) fn counts_terminating(&self, kind: &OwnerKind) -> bool {
        self.deployment_replica_set_terminating_replicas && kind.reports_terminating_replicas()
    }
}

impl Default for FeatureGates {
    fn default() -> Self {
        FeatureGates::for_version(1, 36)
    }
}

impl FeatureGates {
    /// The gate defaults of Kubernetes `major.minor` (§16).
    pub fn for_version(major: u32, minor: u32) -> Self {
        let at_least = |m: u32| major > 1 || (major == 1 && minor >= m);
        FeatureGates {
            pod_deletion_cost: at_least(22),
            logarithmic_scale_down: at_least(22),
            deployment_replica_set_terminating_replicas: at_least(35),
            stale_controller_consistency_replica_set: at_least(36),
        }
    }
}

/// Engine configuration. `Config::default()` is kube-controller-manager v1.36.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// C-1: the most creates or deletes one sync issues ([`DEFAULT_BURST_REPLICAS`] unless
    /// given).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub burst_replicas: usize,
    /// The kind the ReplicaSet controller manages, named in the controller references of
    /// its pods (apps/v1 ReplicaSet unless given).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub owner_kind: OwnerKind,
    /// Each gate defaults on its own: a host names the gates it sets.
    #[cfg_attr(
        feature = "ts",
        ts(as = "crate::ts::Partial<FeatureGates>", optional = nullable)
    )]
    pub feature_gates: FeatureGates,
    /// The Kubernetes version whose behaviour is emulated, as `"1.30"`; `None` = 1.36.
    /// LogarithmicScaleDown can only be off when emulating a version before 1.31.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub emulation_version: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            burst_replicas: DEFAULT_BURST_REPLICAS,
            owner_kind: OwnerKind::default(),
            feature_gates: FeatureGates::default(),
            emulation_version: None,
        }
    }
}

impl Config {
    /// A configuration pinned to the gate defaults of Kubernetes `1.minor`.
    pub fn for_version(minor: u32) -> Self {
        Config {
            feature_gates: FeatureGates::for_version(1, minor),
            emulation_version: (minor != 36).then(|| format!("1.{minor}")),
            ..Config::default()
        }
    }

    /// Checks the combination; every entry point calls this first.
    pub fn validate(&self) -> Result<(), Error> {
        if self.burst_replicas == 0 {
            return Err(Error::Config {
                path: "config.burstReplicas".into(),
                message: "must be at least 1".into(),
            });
        }
        if self.owner_kind.kind.is_empty() || self.owner_kind.api_version.is_empty() {
            return Err(Error::Config {
                path: "config.ownerKind".into(),
                message: "apiVersion and kind are required".into(),
            });
        }
        let (major, minor) = self.version()?;
        let locked = major > 1 || minor >= 31;
        if locked && !self.feature_gates.logarithmic_scale_down {
            return Err(Error::Config {
                path: "config.featureGates.LogarithmicScaleDown".into(),
                message: format!(
                    "is locked to true in {major}.{minor}; set emulationVersion below 1.31 to turn it off"
                ),
            });
        }
        Ok(())
    }

    fn version(&self) -> Result<(u32, u32), Error> {
        let Some(v) = &self.emulation_version else {
            return Ok((1, 36));
        };
        let bad = || Error::Config {
            path: "config.emulationVersion".into(),
            message: format!("{} is not a version like \"1.30\"", crate::error::quoted(v)),
        };
        let (a, b) = v.trim_start_matches('v').split_once('.').ok_or_else(bad)?;
        Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
    }
}
