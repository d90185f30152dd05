//! The scheduler and the kubelets: a new pod is bound to the least-loaded node, starts
//! (phase Running), becomes Ready, each after its delay; some pods crash-loop (restart
//! counts rise, never Ready) or flap (Ready comes and goes); a terminating pod goes away
//! after its grace period. Every step is a write to the API server, seen by the watch.

use crate::Change;
use replicore::model::{ContainerStatus, Pod, PodCondition};
use replicore::time::Time;

use super::trace::{KubeletChange, What};
use super::{Ev, Simulator};

/// What the kubelet model does with one pod.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PodLife {
    pub crash_loop: bool,
    pub flapping: bool,
    /// Runs but never becomes Ready (a failing template).
    pub never_ready: bool,
    /// A user edited phase or readiness: the model leaves the pod alone (but still
    /// removes it once terminating).
    pub pinned: bool,
}

/// A kubelet/scheduler step for one pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Schedule,
    Start,
    Ready,
    Crash,
    Flap,
    Gone,
}

/// Sets the Ready condition (transition time only when the status changes).
pub fn set_ready(pod: &mut Pod, ready: bool, now: Time) {
    let status = if ready { "True" } else { "False" };
    match pod
        .status
        .conditions
        .iter_mut()
        .find(|c| c.type_ == "Ready")
    {
        Some(c) if c.status == status => {}
        Some(c) => {
            c.status = status.into();
            c.last_transition_time = Some(now);
        }
        None => pod.status.conditions.push(PodCondition {
            type_: "Ready".into(),
            status: status.into(),
            last_transition_time: Some(now),
        }),
    }
}

/// Sets the restart count of the pod's (first) container.
pub fn set_restarts(pod: &mut Pod, restarts: i32) {
    match pod.status.container_statuses.first_mut() {
        Some(c) => c.restart_count = restarts,
        None => pod.status.container_statuses.push(ContainerStatus {
            name: "app".into(),
            restart_count: restarts,
        }),
    }
}

impl Simulator {
    /// A pod appeared in the store (created by the controller): draw its fate, schedule it.
    pub(super) fn kubelet_created(&mut self, pod: &Pod) {
        let mut life = PodLife {
            crash_loop: self.rng.chance(self.faults.crash_loop),
            flapping: self.rng.chance(self.faults.readiness_flap),
            never_ready: false,
            pinned: false,
        };
        let failure = self.failure_of(pod);
        Simulator::apply_failure(&mut life, failure);
        self.lives.insert(pod.uid().to_owned(), life);
        let d = self.delays.schedule.draw(&mut self.rng);
        self.kubelet_after(pod, d, Action::Schedule);
    }

    /// A pod got a deletionTimestamp: it goes away after its grace period.
    pub(super) fn kubelet_terminating(&mut self, pod: &Pod) {
        let d = self.delays.terminate.draw(&mut self.rng);
        self.kubelet_after(pod, d, Action::Gone);
    }

    pub(super) fn kubelet_after(&mut self, pod: &Pod, delay: u64, action: Action) {
        let t = self.clock.now().saturating_add(delay);
        self.agenda.at(
            t,
            Ev::Kubelet {
                key: pod.key(),
                uid: pod.uid().to_owned(),
                action,
            },
        );
    }

    /// Non-terminated pods bound to `node`.
    pub(super) fn node_load(&self, node: &str) -> usize {
        self.api
            .pods
            .values()
            .filter(|p| {
                p.node_name() == node
                    && p.metadata.deletion_timestamp.is_none()
                    && !replicore::pods::is_terminal(p)
            })
            .count()
    }

    /// One kubelet step: the pod written through the API server and the step traced;
    /// `None` when the pod is gone.
    fn kubelet_write(
        &mut self,
        key: &str,
        pod: &Pod,
        change: KubeletChange,
        node: Option<String>,
        f: impl FnOnce(&mut Pod),
    ) -> Option<Change> {
        let c = self.api.update_pod(key, f)?;
        self.record(What::Kubelet {
            pod: pod.name().to_owned(),
            change,
            node,
        });
        Some(c)
    }

    pub(super) fn kubelet(&mut self, key: &str, uid: &str, action: Action) {
        let Some(pod) = self.api.pods.get(key).filter(|p| p.uid() == uid).cloned() else {
            return;
        };
        let now = self.clock.now_instant();
        let life = self.lives.get(uid).copied().unwrap_or_default();
        if action == Action::Gone {
            if let Some(c) = self.api.remove_pod(key) {
                self.lives.remove(uid);
                self.record(What::Kubelet {
                    pod: pod.name().to_owned(),
                    change: KubeletChange::Gone,
                    node: pod.spec.node_name.clone(),
                });
                self.publish(c);
            }
            return;
        }
        if pod.metadata.deletion_timestamp.is_some()
            || life.pinned
            || replicore::pods::is_terminal(&pod)
        {
            return;
        }
        let (change, next) = match action {
            Action::Schedule => {
                if !pod.node_name().is_empty() {
                    return;
                }
                let Some(node) = self.nodes.iter().min_by_key(|n| self.node_load(n)).cloned()
                else {
                    // No node: Pending until one is added.
                    return;
                };
                let Some(c) = self.kubelet_write(
                    key,
                    &pod,
                    KubeletChange::Scheduled,
                    Some(node.clone()),
                    |p| p.spec.node_name = Some(node),
                ) else {
                    return;
                };
                (c, Some(Action::Start))
            }
            Action::Start => {
                let Some(c) = self.kubelet_write(
                    key,
                    &pod,
                    KubeletChange::Running,
                    pod.spec.node_name.clone(),
                    |p| {
                        p.status.phase = Some("Running".into());
                        let r = replicore::pods::max_container_restarts(p);
                        set_restarts(p, r);
                        set_ready(p, false, now);
                    },
                ) else {
                    return;
                };
                (
                    c,
                    if life.crash_loop {
                        Some(Action::Crash)
                    } else if life.never_ready {
                        None
                    } else {
                        Some(Action::Ready)
                    },
                )
            }
            Action::Ready => {
                let Some(c) = self.kubelet_write(
                    key,
                    &pod,
                    KubeletChange::Ready,
                    pod.spec.node_name.clone(),
                    |p| set_ready(p, true, now),
                ) else {
                    return;
                };
                (c, life.flapping.then_some(Action::Flap))
            }
            Action::Crash => {
                let Some(c) = self.kubelet_write(
                    key,
                    &pod,
                    KubeletChange::Restarted,
                    pod.spec.node_name.clone(),
                    |p| {
                        let r = replicore::pods::max_container_restarts(p).saturating_add(1);
                        set_restarts(p, r);
                        set_ready(p, false, now);
                    },
                ) else {
                    return;
                };
                (c, Some(Action::Crash))
            }
            Action::Flap => {
                let ready = !replicore::pods::is_ready(&pod);
                let Some(c) = self.kubelet_write(
                    key,
                    &pod,
                    if ready {
                        KubeletChange::Ready
                    } else {
                        KubeletChange::NotReady
                    },
                    pod.spec.node_name.clone(),
                    |p| set_ready(p, ready, now),
                ) else {
                    return;
                };
                (c, Some(Action::Flap))
            }
            Action::Gone => return,
        };
        self.publish(change);
        if let Some(next) = next {
            let d = match next {
                Action::Start => self.delays.start,
                Action::Ready => self.delays.ready,
                Action::Crash => self.delays.crash,
                Action::Flap => self.delays.flap,
                Action::Schedule => self.delays.schedule,
                Action::Gone => self.delays.terminate,
            }
            .draw(&mut self.rng);
            self.kubelet_after(&pod, d, next);
        }
    }

    /// The model's first step for a pod present at the start (an imported pod): only
    /// Pending pods move on; terminating ones go away.
    pub(super) fn kubelet_adopt_initial(&mut self, pod: &Pod) {
        self.lives.insert(pod.uid().to_owned(), PodLife::default());
        if pod.metadata.deletion_timestamp.is_some() {
            self.kubelet_terminating(pod);
        } else if pod.phase() == "Pending" || pod.phase().is_empty() {
            let (action, d) = if pod.node_name().is_empty() {
                (Action::Schedule, self.delays.schedule)
            } else {
                (Action::Start, self.delays.start)
            };
            let d = d.draw(&mut self.rng);
            self.kubelet_after(pod, d, action);
        }
    }
}
