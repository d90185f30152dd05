//! The manage step (§9, `manageReplicas`): the difference between the pods the owner
//! has and wants, cut to the burst, as creates in slow-start batches
//! (R-51..R-53, through [`super::slowstart`]) or deletes of the ranked victims
//! (R-56..R-58); the expectations recorded before acting and those taken off when a
//! host stops partway.

use super::digest::Digested;
use super::plan::{victims, ReserveSource};
use super::protocol::{CreatePlan, DeletePlan, Idle, Manage, PlanBasis, PodTally, Victim};
use super::slowstart::{self, SLOW_START_INITIAL_BATCH_SIZE};
use super::template;
use crate::expectations::ExpectationsChange;
use crate::outcome::CallResult;
use crate::time::Time;

impl PlanBasis {
    /// §9: manageReplicas when `claimed` active pods are claimed; `rank(n)` gives the
    /// `n` victims of a scale-down.
    pub(super) fn manage(&self, claimed: usize, rank: impl FnOnce(usize) -> Vec<Victim>) -> Manage {
        let owner = &self.owner;
        if !self.needs_sync {
            return Manage::Nothing {
                why: Idle::ExpectationsPending,
            };
        }
        if owner.metadata.deletion_timestamp.is_some() {
            return Manage::Nothing {
                why: Idle::OwnerTerminating,
            };
        }
        let burst = self.config.burst_replicas;
        let diff = claimed as i64 - i64::from(owner.spec.desired());
        if diff < 0 {
            //
            let count = usize::try_from(-diff).unwrap_or(usize::MAX).min(burst);
            return Manage::Create(CreatePlan {
                count,
                batches: slowstart::batch_sizes(count, SLOW_START_INITIAL_BATCH_SIZE),
                pod: template::pod_from_template(owner, &self.config.owner_kind),
                expectations: ExpectationsChange::ExpectCreations {
                    count: count as i64,
                },
                refused: (!template::has_labels(owner))
                    .then(|| "unable to create pods, no labels".to_owned()),
            });
        }
        if diff > 0 {
            // R-55..R-58
            let n = usize::try_from(diff).unwrap_or(usize::MAX).min(burst);
            let victims = rank(n);
            let keys = victims
                .iter()
                .map(|v| format!("{}/{}", v.namespace, v.name))
                .collect();
            return Manage::Delete(DeletePlan {
                victims,
                expectations: ExpectationsChange::ExpectDeletions { keys },
            });
        }
        Manage::Nothing { why: Idle::InSync }
    }

    /// The tally of the claimed pods when the adoptions marked `true` went through.
    pub(super) fn tally_with(&self, adopted: &[bool]) -> PodTally {
        let mut t = self.claimed.clone();
        for (f, _) in self.adoptions.iter().zip(adopted).filter(|(_, ok)| **ok) {
            t.add(f);
        }
        t
    }

    /// The manage step when only some adoptions went through: over the reserve's pods
    /// (a scale-down), or from the counts alone.
    pub(super) fn manage_with(&self, adopted: &[bool], now: Time) -> Manage {
        let failed: Vec<usize> = self
            .adoptions
            .iter()
            .zip(adopted)
            .filter(|(_, ok)| !**ok)
            .map(|(f, _)| f.pod_index)
            .collect();
        let count = self.tally_with(adopted).count;
        self.manage(count, |n| {
            let Some(reserve) = &self.reserve else {
                return Vec::new();
            };
            let claimed: Vec<usize> = reserve
                .candidate_indices
                .iter()
                .copied()
                .filter(|i| !failed.contains(i))
                .collect();
            let related: Vec<Digested> = reserve.related.digested().collect();
            victims(
                &now,
                &self.config,
                &claimed,
                &ReserveSource(reserve),
                &related,
                n,
            )
        })
    }
}

impl CreatePlan {
    /// How many calls the next batch has, given the results so far (in call order);
    /// `None` when slow start is over.
    pub fn next_batch(&self, results_so_far: &[CallResult]) -> Option<usize> {
        if self.refused.is_some() {
            return None;
        }
        let failed: Vec<bool> = results_so_far.iter().map(create_failed).collect();
        crate::replicaset::slowstart::next_batch(&self.batches, &failed)
    }
}

/// a NamespaceTerminating rejection counts as success.
pub(super) fn create_failed(r: &CallResult) -> bool {
    match r {
        CallResult::Error(e) => !e.is_namespace_terminating(),
        CallResult::Ok { .. } => false,
        CallResult::Skipped => true,
    }
}

impl Manage {
    /// for a manage step the host stops partway (e.g. it lost leadership):
    /// what to take off the expectations recorded before the first call, given the
    /// results of the calls made (in call order). A create step lowers the creations by
    /// those not attempted and those that failed (a NamespaceTerminating rejection counts
    /// as made, R-53; any other error, a timeout included, is lowered as upstream lowers
    /// it); a delete step observes every victim whose delete did not succeed.
    pub fn abandoned(&self, results: &[CallResult]) -> Vec<ExpectationsChange> {
        match self {
            Manage::Nothing { .. } => Vec::new(),
            Manage::Create(c) => {
                let made = if c.refused.is_some() {
                    0
                } else {
                    results.iter().filter(|r| !create_failed(r)).count()
                };
                let lower = c.count.saturating_sub(made);
                if lower == 0 {
                    Vec::new()
                } else {
                    vec![ExpectationsChange::LowerCreations {
                        count: lower as i64,
                    }]
                }
            }
            Manage::Delete(d) => d
                .victims
                .iter()
                .enumerate()
                .filter(|(i, _)| !matches!(results.get(*i), Some(CallResult::Ok { .. })))
                .map(|(_, v)| ExpectationsChange::DeletionObserved {
                    key: format!("{}/{}", v.namespace, v.name),
                })
                .collect(),
        }
    }

    /// Expectations to record before acting.
    pub fn expectations(&self) -> Option<&ExpectationsChange> {
        match self {
            Manage::Nothing { .. } => None,
            Manage::Create(c) => Some(&c.expectations),
            Manage::Delete(d) => Some(&d.expectations),
        }
    }
}
