//! The mutators: what each [`Edit`] does to the running simulation.

use replicore::error::{capped, quoted, Error, Result};
use replicore::pods::DELETION_COST_ANNOTATION;

use super::kubelet::{set_ready, set_restarts, Action};
use super::scenario::Edit;
use super::Simulator;

impl Simulator {
    /// The key of the owner named `owner` (`name` or `namespace/name`; `None`: the
    /// primary owner); an unknown name is an error at `path`.
    pub(super) fn owner_key_at(&self, owner: Option<&str>, path: &str) -> Result<String> {
        let Some(name) = owner else {
            return Ok(self.primary_key().to_owned());
        };
        let found = self
            .owner_keys
            .iter()
            .find(|k| k.as_str() == name || k.rsplit('/').next() == Some(name));
        found.cloned().ok_or_else(|| Error::Malformed {
            path: path.into(),
            message: format!("no owner {} in the simulation", quoted(name)),
        })
    }

    fn pod_key_of(&self, pod: &str, namespace: Option<&str>) -> Result<String> {
        let ns = match namespace {
            Some(ns) => ns.to_owned(),
            None => self
                .api
                .owners
                .get(self.primary_key())
                .map_or_else(|| "default".to_owned(), |o| o.metadata.namespace.clone()),
        };
        let key = format!("{ns}/{pod}");
        if self.api.pods.contains_key(&key) {
            Ok(key)
        } else {
            Err(Error::Malformed {
                path: "edit.pod".into(),
                message: format!("no pod {} in the simulation", capped(&key)),
            })
        }
    }

    /// Applies one edit now. Checks come first: a refused edit changes nothing.
    pub(super) fn apply_edit(&mut self, edit: &Edit) -> Result<()> {
        let now = self.clock.now_instant();
        match edit {
            Edit::SetReplicas { replicas, owner } => {
                let key = self.owner_key_at(owner.as_deref(), "edit.owner")?;
                let r = *replicas;
                if let Some(c) = self.api.update_owner(&key, |rs| {
                    rs.spec.replicas = Some(r);
                    rs.metadata.generation = Some(rs.metadata.generation.unwrap_or(0) + 1);
                }) {
                    self.publish(c);
                }
            }
            Edit::SetQuota { quota } => self.api.quota = *quota,
            Edit::SetFeatureGates { feature_gates } => {
                let mut config = self.ctrl.config.clone();
                feature_gates.apply(&mut config.feature_gates);
                unlock_for_pre_131(&mut config);
                config.validate().map_err(|e| e.under("edit"))?;
                self.ctrl.config = config;
            }
            Edit::SetConfig { config: patch } => {
                let mut config = self.ctrl.config.clone();
                if let Some(b) = patch.burst_replicas {
                    config.burst_replicas = b;
                }
                if let Some(v) = &patch.emulation_version {
                    config.emulation_version = Some(v.clone());
                }
                if let Some(g) = &patch.feature_gates {
                    g.apply(&mut config.feature_gates);
                }
                unlock_for_pre_131(&mut config);
                config.validate().map_err(|e| e.under("edit"))?;
                self.ctrl.config = config;
            }
            Edit::SetFaults { faults } => self.faults = faults.clone(),
            Edit::SetDelays { delays } => {
                self.delays = self.delays.merged(delays);
                self.schedule_resync();
            }
            Edit::EditPod {
                pod,
                namespace,
                phase,
                ready,
                restarts,
                deletion_cost,
            } => {
                let key = self.pod_key_of(pod, namespace.as_deref())?;
                let Some(c) = self.api.update_pod(&key, |p| {
                    if let Some(phase) = phase {
                        p.status.phase = Some(phase.clone());
                    }
                    if let Some(ready) = ready {
                        set_ready(p, *ready, now);
                    }
                    if let Some(r) = restarts {
                        set_restarts(p, *r);
                    }
                    match deletion_cost {
                        Some(Some(cost)) => {
                            p.metadata
                                .annotations
                                .get_or_insert_with(Default::default)
                                .insert(DELETION_COST_ANNOTATION.to_owned(), cost.to_string());
                        }
                        Some(None) => {
                            if let Some(a) = p.metadata.annotations.as_mut() {
                                a.remove(DELETION_COST_ANNOTATION);
                            }
                        }
                        None => {}
                    }
                }) else {
                    return Ok(());
                };
                if phase.is_some() || ready.is_some() {
                    if let super::apiserver::Object::Pod(p) = &c.object {
                        self.lives.entry(p.uid().to_owned()).or_default().pinned = true;
                    }
                }
                self.publish(c);
            }
            Edit::AddNode { node } => {
                if self.nodes.iter().any(|n| n == node) {
                    return Err(Error::Malformed {
                        path: "edit.node".into(),
                        message: format!("node {} already exists", quoted(node)),
                    });
                }
                self.nodes.push(node.clone());
                let waiting: Vec<_> = self
                    .api
                    .pods
                    .values()
                    .filter(|p| p.node_name().is_empty() && p.metadata.deletion_timestamp.is_none())
                    .cloned()
                    .collect();
                for p in waiting {
                    self.kubelet_after(&p, 0, Action::Schedule);
                }
            }
            Edit::RemoveNode { node } => {
                if !self.nodes.iter().any(|n| n == node) {
                    return Err(Error::Malformed {
                        path: "edit.node".into(),
                        message: format!("no node {} in the simulation", quoted(node)),
                    });
                }
                self.nodes.retain(|n| n != node);
                // The node is lost: its pods fail, and the pod GC removes them.
                let lost: Vec<String> = self
                    .api
                    .pods
                    .values()
                    .filter(|p| p.node_name() == node)
                    .map(|p| p.key())
                    .collect();
                for key in lost {
                    let Some(c) = self.api.update_pod(&key, |p| {
                        p.status.phase = Some("Failed".into());
                        set_ready(p, false, now);
                        if p.metadata.deletion_timestamp.is_none() {
                            p.metadata.deletion_timestamp = Some(now);
                        }
                    }) else {
                        continue;
                    };
                    if let super::apiserver::Object::Pod(p) = &c.object {
                        let p = (**p).clone();
                        self.kubelet_terminating(&p);
                    }
                    self.publish(c);
                }
            }
            Edit::SetImage { image, fail } => self.set_image(image, *fail)?,
            Edit::FailTemplate { failure } => self.fail_template(*failure)?,
            Edit::ScaleDeployment { replicas } => self.scale_deployment(*replicas)?,
            Edit::PauseDeployment => self.pause_deployment(true)?,
            Edit::ResumeDeployment => self.pause_deployment(false)?,
            Edit::UndoDeployment { revision } => self.undo_deployment(*revision)?,
            Edit::SetLoad { load, metrics } => self.set_load(load, metrics.as_deref())?,
            Edit::KillPod { pod, namespace } => {
                let key = self.pod_key_of(pod, namespace.as_deref())?;
                match self.api.delete_pod(&key, None, now) {
                    Ok((c, gone)) => {
                        if let (false, super::apiserver::Object::Pod(p)) = (gone, &c.object) {
                            let p = (**p).clone();
                            self.kubelet_terminating(&p);
                        }
                        self.publish(c);
                    }
                    Err(e) => {
                        return Err(Error::Malformed {
                            path: "edit.pod".into(),
                            message: e.message,
                        })
                    }
                }
            }
        }
        Ok(())
    }
}

/// Turning LogarithmicScaleDown off is only possible when emulating 1.30 or earlier:
/// the simulator then emulates 1.30 (what a user toggling the gate means).
fn unlock_for_pre_131(config: &mut replicore::config::Config) {
    if config.feature_gates.logarithmic_scale_down {
        return;
    }
    let locked = match &config.emulation_version {
        None => true,
        Some(v) => v
            .trim_start_matches('v')
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
            .is_none_or(|(a, b)| a > 1 || b >= 31),
    };
    if locked {
        config.emulation_version = Some("1.30".into());
    }
}
