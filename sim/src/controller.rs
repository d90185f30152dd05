//! The ReplicaSet controller loop around the engine: one worker takes a key from the
//! work queue, builds the engine's input from the informer cache and the expectations,
//! runs `sync::plan`, makes the calls against the simulated API server (claims, creates in
//! slow-start batches, deletions), hands the results to `sync::complete`, applies the
//! expectation corrections, writes the status, and requeues as the completion says.

use std::collections::BTreeMap;

use replicore::claim::ClaimKind;
use replicore::config::Config;
use replicore::expectations::Expectations;
use replicore::input::SyncInput;
use replicore::model::ReplicaSet;
use replicore::outcome::{CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
use replicore::pods;
use replicore::{Completion, Halt, Idle, Manage, Requeue};

use super::apiserver::Admission;
use super::clock::ms_of;
use super::trace::{
    Batch, ClaimTrace, Planned, QueueOp, SyncInputSummary, SyncTrace, VictimTrace, What,
};
use super::{Ev, SimEvent, Simulator, EVENTS_CAPACITY};
use replicore::outcome::ApiError;

/// The controller's own state: configuration, expectations, the queue, and the resource
/// versions of its own writes per owner (S-2's consistency record).
#[derive(Clone, Debug, Default)]
pub struct Controller {
    pub config: Config,
    pub expectations: BTreeMap<String, Expectations>,
    pub queue: super::queue::WorkQueue,
    /// Owner key → (newest pod write, newest owner write) made for it.
    pub written: BTreeMap<String, (u64, u64)>,
}

impl Controller {
    pub fn expectations_of(&self, key: &str) -> Expectations {
        self.expectations.get(key).cloned().unwrap_or_default()
    }

    fn set_expectations(&mut self, key: &str, e: Expectations) {
        if e.record().is_some() {
            self.expectations.insert(key.to_owned(), e);
        } else {
            self.expectations.remove(key);
        }
    }
}

impl Simulator {
    pub(super) fn queue_add(&mut self, key: &str) {
        self.ctrl.queue.add(key);
        self.record(What::Queue {
            op: QueueOp::Add,
            key: key.to_owned(),
            delay_ms: None,
        });
    }

    pub(super) fn queue_add_after(&mut self, key: &str, delay: u64, op: QueueOp) {
        let now = self.clock.now();
        if let Some(t) = self.ctrl.queue.add_after(key, delay, now) {
            self.agenda.at(t, Ev::QueueFire(key.to_owned()));
        }
        self.record(What::Queue {
            op,
            key: key.to_owned(),
            delay_ms: Some(delay),
        });
    }

    /// `Forget` after a successful sync (traced when it resets a backoff).
    fn queue_forget(&mut self, key: &str) {
        if self.ctrl.queue.failures(key) > 0 {
            self.record(What::Queue {
                op: QueueOp::Forget,
                key: key.to_owned(),
                delay_ms: None,
            });
        }
        self.ctrl.queue.forget(key);
    }

    fn queue_rate_limited(&mut self, key: &str) {
        let now = self.clock.now();
        let delay = self.ctrl.queue.when(key, now);
        self.queue_add_after(key, delay, QueueOp::AddRateLimited);
    }

    /// Schedules the worker when keys are waiting.
    pub(super) fn kick(&mut self) {
        if self.ctrl.queue.ready_len() > 0 && !self.worker_pending {
            self.worker_pending = true;
            let now = self.clock.now();
            self.agenda.at(now, Ev::Work);
        }
    }

    /// `processNextWorkItem`: one key, one sync.
    pub(super) fn work(&mut self) {
        self.worker_pending = false;
        let Some(key) = self.ctrl.queue.get() else {
            return;
        };
        let requeue = self.sync(&key);
        match requeue {
            Requeue::Done => self.queue_forget(&key),
            Requeue::After { after } => {
                self.queue_forget(&key);
                self.queue_add_after(&key, ms_of(after), QueueOp::AddAfter);
            }
            Requeue::RateLimited { .. } => self.queue_rate_limited(&key),
        }
        self.ctrl.queue.done(&key);
    }

    /// `syncReplicaSet(key)` with the engine deciding; returns what to do with the key.
    fn sync(&mut self, key: &str) -> Requeue {
        let now = self.clock.now_instant();
        let gates = self.ctrl.config.feature_gates;
        // S-2: the consistency record against what the informers have synced.
        let (pod_w, owner_w) = self.ctrl.written.get(key).copied().unwrap_or((0, 0));
        let cache_is_fresh = pod_w <= self.informer.pod_rv && owner_w <= self.informer.owner_rv;
        // S-3: an owner gone from the cache: forget it.
        let Some(owner) = self.informer.owners.get(key).cloned() else {
            self.ctrl.expectations.remove(key);
            self.ctrl.written.remove(key);
            return Requeue::Done;
        };
        let other_owners: Vec<ReplicaSet> = self
            .informer
            .owners
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .map(|(_, rs)| rs.clone())
            .collect();
        let expectations = self.ctrl.expectations_of(key);
        // The cache's pods are lent to the input (a sync changes the store, never the
        // cache) and taken back after.
        let input = SyncInput {
            now,
            owner,
            other_owners,
            pods: self.informer.pods.take(),
            expectations: expectations.clone(),
            cache_is_fresh: cache_is_fresh || !gates.stale_controller_consistency_replica_set,
        };
        let config = self.ctrl.config.clone();
        let mut trace = SyncTrace {
            key: key.to_owned(),
            input: SyncInputSummary {
                desired: input.owner.spec.desired(),
                cached_pods: input.pods.len(),
                active: 0,
                expectations: expectations.record().cloned(),
                cache_is_fresh: input.cache_is_fresh,
            },
            full_input: self.keep_inputs.then(|| Box::new(input.clone())),
            action: "nothing",
            why: None,
            planned: None,
            batches: None,
            victims: None,
            claims: Vec::new(),
            expectations_recorded: None,
            expectations_corrections: Vec::new(),
            status: None,
            error: None,
            requeue: Requeue::Done,
            events: Vec::new(),
        };
        let result = self.run_sync(&input, &config, &mut trace);
        self.informer.pods.restore(input.pods);
        let requeue = match result {
            Ok(r) => r,
            Err(e) => {
                let error = e.to_string();
                trace.error = Some(error.clone());
                Requeue::RateLimited { error }
            }
        };
        trace.requeue = requeue.clone();
        let t = self.clock.now();
        for ev in &trace.events {
            if self.events.len() >= EVENTS_CAPACITY {
                self.events.pop_front();
            }
            self.events.push_back(SimEvent {
                t,
                at: now,
                owner: key.to_owned(),
                event: ev.clone(),
            });
        }
        self.record(What::Sync {
            sync: Box::new(trace),
        });
        requeue
    }

    fn note_pod_write(&mut self, key: &str, rv: u64) {
        let w = self.ctrl.written.entry(key.to_owned()).or_insert((0, 0));
        w.0 = w.0.max(rv);
    }

    fn run_sync(
        &mut self,
        input: &SyncInput,
        config: &Config,
        trace: &mut SyncTrace,
    ) -> replicore::Result<Requeue> {
        let key = trace.key.clone();
        let now = input.now;
        let plan = replicore::plan(input, config)?;
        trace.input.active = plan.owned;
        if let Some(halt) = &plan.halt {
            trace.why = Some(match halt {
                Halt::StaleCache => "staleCache".to_owned(),
                Halt::InvalidSelector { .. } => "invalidSelector".to_owned(),
            });
        }

        // 1. Claims.
        let mut claims = ClaimOutcome::default();
        if !plan.claims.is_empty() {
            let mut allowed = true;
            if plan.needs_owner_recheck {
                let live = match self.api.owners.get(&key) {
                    Some(rs) => LiveOwner::Found(Box::new(rs.clone())),
                    None => LiveOwner::Failed(ApiError {
                        reason: "NotFound".into(),
                        message: format!(
                            "replicasets.apps \"{}\" not found",
                            input.owner.metadata.name
                        ),
                        code: Some(404),
                        causes: Vec::new(),
                    }),
                };
                allowed = plan.adoption_allowed(&live).is_ok();
                claims.live_owner = Some(live);
            }
            for c in &plan.claims {
                let pod_key = format!("{}/{}", c.namespace, c.name);
                let result = if c.kind == ClaimKind::Adopt && !allowed {
                    CallResult::Skipped
                } else {
                    let owner = &input.owner;
                    let kind = c.kind;
                    let uid_ok = self
                        .api
                        .pods
                        .get(&pod_key)
                        .is_some_and(|p| p.uid() == c.uid);
                    let change = if uid_ok {
                        self.api.update_pod(&pod_key, |p| match kind {
                            ClaimKind::Adopt => {
                                p.metadata
                                    .owner_references
                                    .retain(|r| r.controller != Some(true));
                                p.metadata.owner_references.push(
                                    replicore::model::OwnerReference {
                                        api_version: config.owner_kind.api_version.clone(),
                                        kind: config.owner_kind.kind.clone(),
                                        name: owner.metadata.name.clone(),
                                        uid: owner.metadata.uid.clone(),
                                        controller: Some(true),
                                        block_owner_deletion: Some(true),
                                    },
                                );
                            }
                            ClaimKind::Release => {
                                p.metadata
                                    .owner_references
                                    .retain(|r| r.uid != owner.metadata.uid);
                            }
                        })
                    } else {
                        None
                    };
                    match change {
                        Some(ch) => {
                            self.note_pod_write(&key, ch.rv);
                            self.publish(ch);
                            CallResult::ok()
                        }
                        None => CallResult::Error(ApiError {
                            reason: "NotFound".into(),
                            message: format!("pods \"{}\" not found", c.name),
                            code: Some(404),
                            causes: Vec::new(),
                        }),
                    }
                };
                trace.claims.push(ClaimTrace {
                    kind: match c.kind {
                        ClaimKind::Adopt => "adopt",
                        ClaimKind::Release => "release",
                    },
                    name: c.name.clone(),
                    ok: matches!(result, CallResult::Ok { .. }),
                });
                claims.results.push(result);
            }
        }
        let manage = plan.manage_after(&claims)?;
        let mut outcome = SyncOutcome {
            claims,
            ..SyncOutcome::default()
        };

        // 2. Manage: record the expectations, then act.
        if let Some(change) = manage.expectations() {
            let e = change.apply(self.ctrl.expectations_of(&key), now);
            self.ctrl.set_expectations(&key, e);
            trace.expectations_recorded = Some(change.clone());
        }
        match &manage {
            Manage::Nothing { why } => {
                trace.action = "nothing";
                if trace.why.is_none() {
                    trace.why = Some(idle_name(*why).to_owned());
                }
            }
            Manage::Create(create) => {
                trace.action = "create";
                trace.planned = Some(Planned {
                    count: create.count,
                    batches: create.batches.clone(),
                });
                let mut batches = Vec::new();
                while let Some(n) = create.next_batch(&outcome.creates) {
                    let mut batch = Batch {
                        size: n,
                        ok: 0,
                        failed: 0,
                        errors: Vec::new(),
                        created: Vec::new(),
                    };
                    for _ in 0..n {
                        let admission = if self.rng.chance(self.faults.create_failure) {
                            Admission::Reject
                        } else {
                            Admission::Allow
                        };
                        match self
                            .api
                            .create_pod(&create.pod, now, &mut self.rng, admission)
                        {
                            Ok((pod, change)) => {
                                batch.ok += 1;
                                batch.created.push(pod.name().to_owned());
                                self.note_pod_write(&key, change.rv);
                                self.publish(change);
                                self.kubelet_created(&pod);
                                outcome.creates.push(CallResult::created(pod.name()));
                            }
                            Err(e) => {
                                batch.failed += 1;
                                batch.errors.push(e.message.clone());
                                outcome.creates.push(CallResult::Error(e));
                            }
                        }
                    }
                    batches.push(batch);
                }
                trace.batches = Some(batches);
            }
            Manage::Delete(delete) => {
                trace.action = "delete";
                let mut victims = Vec::new();
                for v in &delete.victims {
                    let pod_key = format!("{}/{}", v.namespace, v.name);
                    let result = match self.api.delete_pod(&pod_key, Some(&v.uid), now) {
                        Ok((change, gone)) => {
                            if let crate::apiserver::Object::Pod(p) = &change.object {
                                if !gone {
                                    let p = (**p).clone();
                                    self.kubelet_terminating(&p);
                                }
                            }
                            self.note_pod_write(&key, change.rv);
                            self.publish(change);
                            CallResult::ok()
                        }
                        Err(e) => CallResult::Error(e),
                    };
                    victims.push(VictimTrace {
                        name: v.name.clone(),
                        rule: v.rule,
                        facts: v.facts.clone(),
                        ok: matches!(result, CallResult::Ok { .. }),
                        error: result.as_error().map(|e| e.message.clone()),
                    });
                    outcome.deletes.push(result);
                }
                trace.victims = Some(victims);
            }
        }

        // 3. What it means.
        let done: Completion = replicore::complete(&plan, &outcome)?;
        let mut e = self.ctrl.expectations_of(&key);
        for change in &done.expectations {
            e = change.apply(e, now);
        }
        self.ctrl.set_expectations(&key, e);
        trace.expectations_corrections = done.expectations.clone();
        trace.events = done.events.clone();
        trace.error = done.error.clone();
        if let Some(status) = &done.status {
            let status = status.clone();
            if let Some(change) = self.api.update_owner(&key, |rs| rs.status = status.clone()) {
                let w = self.ctrl.written.entry(key.clone()).or_insert((0, 0));
                w.1 = w.1.max(change.rv);
                self.publish(change);
            }
            trace.status = Some(status);
        }
        Ok(done.requeue_after_status_write(Ok(())))
    }
}

fn idle_name(i: Idle) -> &'static str {
    match i {
        Idle::InSync => "inSync",
        Idle::ExpectationsPending => "expectationsPending",
        Idle::OwnerTerminating => "ownerTerminating",
        Idle::ClaimFailed => "claimFailed",
        Idle::Halted => "halted",
    }
}

/// Active pods of an owner in a pod list (by controller reference UID).
pub fn owned_active<'a>(
    owner: &ReplicaSet,
    pods: impl Iterator<Item = &'a replicore::model::Pod>,
) -> Vec<&'a replicore::model::Pod> {
    pods.filter(|p| {
        p.metadata
            .controller_ref()
            .is_some_and(|r| r.uid == owner.metadata.uid)
            && pods::is_active(p)
    })
    .collect()
}
