//! Which pods count, and what each requests (H-76..H-81, H-95): the pod grouping of the
//! replica calculator (ready, unready, missing, ignored, with the CPU start-up rules),
//! the requests a utilization is a percentage of, and the ready-pod count the Object
//! and External value targets multiply by.

use std::cell::RefCell;

use crate::fxhash::FxHashMap;
use crate::replicaset::digest::same_bytes;
use crate::time::{Duration, Time};

use super::model::HpaPod;

/// Go's zero time (`0001-01-01T00:00:00Z`) in nanoseconds since the Unix epoch: what an
/// absent timestamp compares as.
const GO_ZERO_NANOS: i128 = -62_135_596_800 * 1_000_000_000;

/// An instant as upstream compares it: an absent one is Go's zero time.
pub(crate) fn go_nanos(t: Option<Time>) -> i128 {
    t.map_or(GO_ZERO_NANOS, |t| i128::from(t.unix_nanos()))
}

/// One pod's sample (upstream `PodMetric`): milli-value, when it was taken, over what
/// window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    pub value: i64,
    pub timestamp: Option<Time>,
    pub window: Duration,
}

/// The pods a sync lists, deduplicated by name as the informer's indexer keys them (a
/// later pod of a name replaces the earlier one, at the earlier one's place), and the
/// index of their names: the names side by side in one buffer (a probe reads no pod) and
/// an open-addressing table of (hash, position) probed linearly.
#[derive(Clone, Debug, Default)]
pub struct PodNames {
    /// (the name's hash, its position + 1); a position of 0 is an empty slot.
    slots: Vec<(u32, u32)>,
    /// Every name, in position order; `ends[i]` is where the i-th ends.
    bytes: String,
    ends: Vec<u32>,
    /// The hashes of the names appended and not yet indexed ([`PodNames::append`]).
    unindexed: Vec<u32>,
    /// For each sample of the list attached last, in list order, one more than the
    /// position it named (0: none): the next metric's list, usually in the same order,
    /// is checked against it first.
    last: RefCell<Vec<u32>>,
}

/// A pod name's hash, its 64 bits folded into the 32 the index keeps.
fn name_hash(name: &str) -> u32 {
    let h = crate::fxhash::hash_bytes(0, name.as_bytes());
    (h ^ (h >> 32)) as u32
}

impl PodNames {
    /// An empty index with room for `pods` names.
    pub(crate) fn with_capacity(pods: usize) -> PodNames {
        // At most 3/4 full once every name is in (a linear probe finds a name in about
        // two reads there); with 10,000 pods the table is then 128 KiB, not 256.
        let size = (pods + pods / 3 + 1).next_power_of_two().max(2);
        PodNames {
            slots: vec![(0, 0); size],
            bytes: String::with_capacity(pods * 24),
            ends: Vec::with_capacity(pods),
            unindexed: Vec::with_capacity(pods),
            last: RefCell::default(),
        }
    }

    /// Indexes the next listed pod's name: its position, and whether it is new (a pod of
    /// a name seen before replaces that one, at its place).
    pub(crate) fn insert(&mut self, name: &str) -> (usize, bool) {
        if self.ends.len() * 4 >= self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let hash = name_hash(name);
        let mut at = hash as usize & mask;
        let kept = self.ends.len();
        loop {
            let Some(&(h, pos)) = self.slots.get(at) else {
                return (kept, false);
            };
            if pos == 0 {
                if let Some(slot) = self.slots.get_mut(at) {
                    *slot = (hash, kept as u32 + 1);
                }
                self.bytes.push_str(name);
                self.ends.push(self.bytes.len() as u32);
                return (kept, true);
            }
            let pos = pos as usize - 1;
            if h == hash
                && self
                    .name(pos)
                    .is_some_and(|n| same_bytes(n.as_bytes(), name.as_bytes()))
            {
                return (pos, false);
            }
            at = (at + 1) & mask;
        }
    }

    /// Appends the next listed pod's name without indexing it (the pass over the pods
    /// calls this; [`PodNames::index_unique`] indexes the appended names after it).
    /// Probing the table while each pod is read finds its slot gone from the caches,
    /// pushed out by the pods' own reads; built afterwards in one tight loop, the probes
    /// overlap.
    /// Its position is returned.
    pub(crate) fn append(&mut self, name: &str) -> usize {
        self.unindexed.push(name_hash(name));
        self.bytes.push_str(name);
        self.ends.push(self.bytes.len() as u32);
        self.ends.len() - 1
    }

    /// Indexes the names [`PodNames::append`] added (the names before them are indexed
    /// already); `false` when one repeats an earlier one (the index is then incomplete:
    /// the caller starts again with [`PodNames::insert`], which keeps the later pod of a
    /// name).
    pub(crate) fn index_unique(&mut self) -> bool {
        while self.ends.len() * 4 >= self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let hashes = std::mem::take(&mut self.unindexed);
        let first = self.ends.len().saturating_sub(hashes.len());
        for (pos, &hash) in (first..).zip(&hashes) {
            let mut at = hash as usize & mask;
            loop {
                let Some(&(h, seen)) = self.slots.get(at) else {
                    return false;
                };
                if seen == 0 {
                    if let Some(slot) = self.slots.get_mut(at) {
                        *slot = (hash, pos as u32 + 1);
                    }
                    break;
                }
                if h == hash && self.name(seen as usize - 1) == self.name(pos) {
                    return false;
                }
                at = (at + 1) & mask;
            }
        }
        true
    }

    /// Doubles the table (a caller that sized it right never gets here).
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(2);
        let mask = size - 1;
        let mut slots = vec![(0, 0); size];
        for &(h, pos) in self.slots.iter().filter(|s| s.1 != 0) {
            let mut at = h as usize & mask;
            while slots.get(at).is_some_and(|s: &(u32, u32)| s.1 != 0) {
                at = (at + 1) & mask;
            }
            if let Some(slot) = slots.get_mut(at) {
                *slot = (h, pos);
            }
        }
        self.slots = slots;
    }

    /// Deduplicates `items` by `name` in place (see above) and indexes them.
    pub fn dedupe<'n, T: Copy>(items: &mut Vec<T>, name: impl Fn(T) -> &'n str) -> PodNames {
        let mut names = PodNames::with_capacity(items.len());
        for i in 0..items.len() {
            let Some(&item) = items.get(i) else { break };
            let (at, _) = names.insert(name(item));
            if let Some(to) = items.get_mut(at) {
                *to = item;
            }
        }
        items.truncate(names.ends.len());
        names
    }

    /// The name at a position.
    pub(crate) fn name(&self, i: usize) -> Option<&str> {
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)? as usize,
            None => 0,
        };
        self.bytes.get(start..*self.ends.get(i)? as usize)
    }

    /// The position of the pod named `name`.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let hash = name_hash(name);
        let mut at = hash as usize & mask;
        loop {
            let &(h, pos) = self.slots.get(at)?;
            if pos == 0 {
                return None;
            }
            let pos = pos as usize - 1;
            if h == hash
                && self
                    .name(pos)
                    .is_some_and(|n| same_bytes(n.as_bytes(), name.as_bytes()))
            {
                return Some(pos);
            }
            at = (at + 1) & mask;
        }
    }
}

/// One metric's samples (H-99/H-100, later duplicates winning): those of the listed pods
/// by position, and the values of the pods not listed ("superfluous", kept by H-79: they
/// count in the plain average and the number of samples, H-87/H-92, not in the
/// utilization, H-83).
#[derive(Clone, Debug, Default)]
pub(crate) struct Samples<'a> {
    by_pod: Vec<Option<Sample>>,
    superfluous: FxHashMap<&'a str, i64>,
    /// How many entries `by_pod` holds.
    held: usize,
}

impl<'a> Samples<'a> {
    /// The samples of `list` attached to `pods`: the k-th sample is first taken as the
    /// pod's that the k-th sample of the list attached before named (the k-th pod for
    /// the first list), and found on the name index when the names differ.
    pub(crate) fn attach(
        pods: &[&HpaPod],
        names: &PodNames,
        list: impl Iterator<Item = (&'a str, Sample)>,
    ) -> Samples<'a> {
        let mut out = Samples {
            by_pod: vec![None; pods.len()],
            ..Samples::default()
        };
        let mut scratch = Vec::new();
        let mut last = names.last.try_borrow_mut();
        let last = last.as_deref_mut().unwrap_or(&mut scratch);
        let first = last.is_empty();
        if first {
            last.reserve(list.size_hint().0);
        }
        for (k, (name, sample)) in list.enumerate() {
            let guess = if first {
                Some(k)
            } else {
                last.get(k).and_then(|&p| (p as usize).checked_sub(1))
            };
            let at = match guess {
                Some(g)
                    if names
                        .name(g)
                        .is_some_and(|n| same_bytes(n.as_bytes(), name.as_bytes())) =>
                {
                    Some(g)
                }
                _ => names.find(name),
            };
            let seen = at.map_or(0, |i| i as u32 + 1);
            match last.get_mut(k) {
                Some(slot) => *slot = seen,
                None => last.push(seen),
            }
            match at {
                Some(i) => out.set(i, sample),
                None => {
                    out.superfluous.insert(name, sample.value);
                }
            }
        }
        out
    }

    pub(crate) fn get(&self, i: usize) -> Option<&Sample> {
        self.by_pod.get(i).and_then(Option::as_ref)
    }

    pub(crate) fn set(&mut self, i: usize, sample: Sample) {
        if let Some(slot) = self.by_pod.get_mut(i) {
            if slot.replace(sample).is_none() {
                self.held += 1;
            }
        }
    }

    pub(crate) fn remove(&mut self, i: usize) {
        if self.by_pod.get_mut(i).and_then(Option::take).is_some() {
            self.held -= 1;
        }
    }

    /// How many samples, superfluous ones included (upstream's `len(metrics)`).
    pub(crate) fn len(&self) -> usize {
        self.held + self.superfluous.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The listed pods' samples, by position.
    pub(crate) fn listed(&self) -> &[Option<Sample>] {
        &self.by_pod
    }

    /// Every sample's value, superfluous ones included.
    pub(crate) fn values(&self) -> impl Iterator<Item = i64> + '_ {
        self.by_pod
            .iter()
            .flatten()
            .map(|s| s.value)
            .chain(self.superfluous.values().copied())
    }
}

/// H-76: the pods of a listing by class; `ready` is a count, the others positions in the
/// listing.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Groups {
    pub ready: usize,
    pub unready: Vec<usize>,
    pub missing: Vec<usize>,
    pub ignored: Vec<usize>,
}

/// What the CPU readiness test (H-77) needs besides the pod.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Startup {
    pub cpu_initialization: Duration,
    pub readiness_delay: Duration,
    pub now: Time,
}

/// What grouping (H-76, H-77) and the ready-pod count (H-95) read of a pod, read once
/// per sync: the metrics then walk these records instead of the pods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PodFacts {
    class: Class,
    /// Running and Ready (H-95).
    running_ready: bool,
    /// The first Ready condition: its status and its transition time (absent: Go's zero
    /// time, [`go_nanos`]). Kept as read, not widened to `i128`: with 10,000 pods the
    /// record's size is what the passes over the records cost.
    ready: Option<(ReadyStatus, Option<Time>)>,
    /// The start time.
    start: Option<Time>,
}

/// A pod's class before its sample is looked at (H-76).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Terminating or Failed.
    Ignored,
    Pending,
    Counted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadyStatus {
    True,
    False,
    Other,
}

impl PodFacts {
    /// What grouping reads of `pod`.
    pub fn of(pod: &HpaPod) -> PodFacts {
        let phase = pod.status.phase.as_str();
        let class = if pod.metadata.deletion_timestamp.is_some() || phase == "Failed" {
            Class::Ignored
        } else if phase == "Pending" {
            Class::Pending
        } else {
            Class::Counted
        };
        let ready = pod.ready_condition().map(|c| {
            let status = match c.status.as_str() {
                "True" => ReadyStatus::True,
                "False" => ReadyStatus::False,
                _ => ReadyStatus::Other,
            };
            (status, c.last_transition_time)
        });
        PodFacts {
            class,
            running_ready: phase == "Running" && pod.is_ready(),
            ready,
            start: pod.status.start_time,
        }
    }
}

/// H-76: classifies every listed pod, in this order: terminating or Failed → ignored;
/// Pending → unready; no sample → missing; for `cpu` only, H-77 → unready; else ready.
pub(crate) fn group(
    pods: &[PodFacts],
    samples: &Samples<'_>,
    resource: &str,
    startup: Startup,
) -> Groups {
    let cpu = resource == "cpu";
    let mut g = Groups::default();
    for (name, pod) in pods.iter().enumerate() {
        match pod.class {
            Class::Ignored => {
                g.ignored.push(name);
                continue;
            }
            Class::Pending => {
                g.unready.push(name);
                continue;
            }
            Class::Counted => {}
        }
        let Some(sample) = samples.get(name) else {
            g.missing.push(name);
            continue;
        };
        if cpu && cpu_sample_unready(pod, sample, startup) {
            g.unready.push(name);
            continue;
        }
        g.ready += 1;
    }
    g
}

/// H-77: is this pod's CPU sample left out as a start-up artefact?
pub(crate) fn cpu_sample_unready(pod: &PodFacts, sample: &Sample, startup: Startup) -> bool {
    cpu_unready_why(pod, sample, startup).is_some()
}

/// Why H-77 leaves a pod's CPU sample out (explain's words for the same test).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuUnready {
    /// No Ready condition, or no start time.
    NoReadinessOrStart,
    /// Inside the CPU initialization period and Ready is False.
    InitializingNotReady,
    /// Inside the CPU initialization period and the sample's window began before the
    /// last readiness change.
    InitializingStaleSample,
    /// Past the initialization period, Ready is False and it never became ready within
    /// the initial readiness delay.
    NeverReady,
}

/// H-77, with the branch that decided.
pub(crate) fn cpu_unready_why(
    pod: &PodFacts,
    sample: &Sample,
    startup: Startup,
) -> Option<CpuUnready> {
    let (Some((ready, transition)), Some(start)) = (pod.ready, pod.start) else {
        return Some(CpuUnready::NoReadinessOrStart);
    };
    let (transition, start) = (go_nanos(transition), i128::from(start.unix_nanos()));
    let not_ready = ready == ReadyStatus::False;
    let now = i128::from(startup.now.unix_nanos());
    if start + i128::from(startup.cpu_initialization.as_nanos()) > now {
        // Still initializing: unready, or no full window since the last readiness change.
        if not_ready {
            return Some(CpuUnready::InitializingNotReady);
        }
        (go_nanos(sample.timestamp) < transition + i128::from(sample.window.as_nanos()))
            .then_some(CpuUnready::InitializingStaleSample)
    } else {
        // Past initialization: left out only if it never became ready since it started.
        (not_ready && start + i128::from(startup.readiness_delay.as_nanos()) > transition)
            .then_some(CpuUnready::NeverReady)
    }
}

/// H-95: pods in phase Running with a Ready condition that is True (terminating ones
/// included).
pub(crate) fn ready_count(pods: &[PodFacts]) -> i64 {
    pods.iter().filter(|p| p.running_ready).count() as i64
}

/// H-80/H-81: each listed pod's request of `resource` in milli-units, by position (all
/// pods, ignored and unready ones included); the first pod that lacks one fails the metric.
/// `known`: the same, read when the pods were listed ([`Requested`]), when it holds them.
pub(crate) fn requests(
    pods: &[&HpaPod],
    known: &[Requested],
    container: &str,
    resource: &str,
    pod_level_gate: bool,
) -> Result<Vec<i64>, String> {
    let column = known.iter().find(|k| {
        k.resource == resource && k.container == container && k.values.len() == pods.len()
    });
    let mut out = Vec::with_capacity(pods.len());
    for (i, pod) in pods.iter().enumerate() {
        let request = match column.and_then(|c| c.values.get(i)) {
            Some(Some(request)) => *request,
            _ => pod_request(pod, container, resource, pod_level_gate)?,
        };
        out.push(request);
    }
    Ok(out)
}

/// The requests of one (resource, container) a utilization metric divides by, read for
/// every listed pod while the pods are listed (then each pod is read once per sync, not
/// once more per metric); `None` where the pod lacks one (the error is made again when a
/// metric needs it).
#[derive(Clone, Debug, Default)]
pub struct Requested {
    pub(crate) resource: String,
    pub(crate) container: String,
    pub(crate) values: Vec<Option<i64>>,
}

/// H-80/H-81: one pod's request of `resource` in milli-units.
pub(crate) fn pod_request(
    pod: &HpaPod,
    container: &str,
    resource: &str,
    pod_level_gate: bool,
) -> Result<i64, String> {
    if pod_level_gate && container.is_empty() && has_pod_level_requests(pod) {
        pod_level_request(pod, resource)
    } else {
        container_request(pod, container, resource)
    }
}

/// The resources pod-level requests may name: cpu, memory and hugepages.
fn supported_pod_level(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

fn has_pod_level_requests(pod: &HpaPod) -> bool {
    pod.spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .is_some_and(|r| r.keys().any(|k| supported_pod_level(k.as_str())))
}

/// H-80: the sum over the containers and the restartable init containers (or the named
/// one alone) of each one's milli request.
fn container_request(pod: &HpaPod, container: &str, resource: &str) -> Result<i64, String> {
    let name = &pod.metadata.name;
    let candidates = pod.spec.containers.iter().chain(
        pod.spec
            .init_containers
            .iter()
            .filter(|c| c.is_restartable()),
    );
    let mut total: i64 = 0;
    for c in candidates {
        if container.is_empty() || container == c.name {
            let q = c.request(resource).ok_or_else(|| {
                format!(
                    "missing request for {resource} in container {} of Pod {name}",
                    c.name
                )
            })?;
            total = total.wrapping_add(q.milli_value());
        }
        if container == c.name {
            return Ok(total);
        }
    }
    if !container.is_empty() {
        return Err(format!("container {container} not found in Pod {name}"));
    }
    Ok(total)
}

/// H-81: the effective pod request (containers and sidecars, maxed with the init
/// containers' peak, replaced by the pod-level value, plus the overhead), exact, then in
/// milli-units.
fn pod_level_request(pod: &HpaPod, resource: &str) -> Result<i64, String> {
    let get = |c: &super::model::Container| c.request(resource).map(|q| q.nanos());
    let add = |a: Option<i128>, b: Option<i128>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    };
    let max = |a: Option<i128>, b: Option<i128>| match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (a, b) => a.or(b),
    };
    let mut total = pod
        .spec
        .containers
        .iter()
        .fold(None, |acc, c| add(acc, get(c)));
    let mut sidecars: Option<i128> = None;
    let mut init_peak: Option<i128> = None;
    for c in &pod.spec.init_containers {
        let during = if c.is_restartable() {
            total = add(total, get(c));
            sidecars = add(sidecars, get(c));
            sidecars
        } else {
            add(get(c), sidecars)
        };
        init_peak = max(init_peak, during);
    }
    total = max(total, init_peak);
    if let Some(q) = pod
        .spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get(resource))
    {
        if supported_pod_level(resource) {
            total = Some(q.nanos());
        }
    }
    if let Some(o) = pod.spec.overhead.as_ref().and_then(|o| o.get(resource)) {
        total = add(total, Some(o.nanos()));
    }
    total.map(crate::quantity::nanos_to_milli).ok_or_else(|| {
        format!(
            "missing pod-level request for {resource} in Pod {}",
            pod.metadata.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: Time = Time::from_unix_seconds(1_800_000_000);

    fn at(s: i64) -> String {
        NOW.plus(Duration::from_seconds(-s)).to_rfc3339()
    }

    fn pod(v: serde_json::Value) -> HpaPod {
        serde_json::from_value(v).unwrap()
    }

    fn startup() -> Startup {
        Startup {
            cpu_initialization: Duration::from_seconds(120),
            readiness_delay: Duration::from_seconds(10),
            now: NOW,
        }
    }

    fn sample(taken_ago: i64, window: i64) -> Samples<'static> {
        let mut s = none();
        s.set(
            0,
            Sample {
                value: 100,
                timestamp: Some(NOW.plus(Duration::from_seconds(-taken_ago))),
                window: Duration::from_seconds(window),
            },
        );
        s
    }

    /// No sample for the one pod of [`class`].
    fn none() -> Samples<'static> {
        let p = pod(json!({"metadata": {"name": "p"}}));
        Samples::attach(&[&p], &PodNames::default(), std::iter::empty())
    }

    fn class(p: &HpaPod, samples: &Samples<'_>, resource: &str) -> &'static str {
        let g = group(&[PodFacts::of(p)], samples, resource, startup());
        match (g.ready, g.unready.len(), g.missing.len(), g.ignored.len()) {
            (1, 0, 0, 0) => "ready",
            (0, 1, 0, 0) => "unready",
            (0, 0, 1, 0) => "missing",
            (0, 0, 0, 1) => "ignored",
            _ => "?",
        }
    }

    fn running(start_ago: i64, ready: &str, transition_ago: i64) -> HpaPod {
        pod(
            json!({"metadata": {"name": "p"}, "status": {"phase": "Running", "startTime": at(start_ago),
            "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": at(transition_ago)}]}}),
        )
    }

    #[test]
    fn h76_h77_pods_are_grouped_as_upstream_groups_them() {
        // RT-22, row by row.
        let succeeded = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Succeeded"}}));
        assert_eq!(class(&succeeded, &sample(0, 60), "memory"), "ready");
        let no_condition = pod(
            json!({"metadata": {"name": "p"}, "status": {"phase": "Running", "startTime": at(60)}}),
        );
        assert_eq!(class(&no_condition, &sample(0, 60), "cpu"), "unready");
        assert_eq!(
            class(&running(60, "True", 30), &sample(0, 30), "cpu"),
            "ready"
        );
        assert_eq!(
            class(&running(60, "True", 30), &sample(0, 60), "cpu"),
            "unready"
        );
        assert_eq!(
            class(&running(600, "False", 594), &sample(0, 60), "cpu"),
            "unready"
        );
        assert_eq!(
            class(&running(180, "True", 180), &sample(120, 60), "cpu"),
            "ready"
        );
        assert_eq!(
            class(&running(600, "False", 540), &sample(0, 60), "cpu"),
            "ready"
        );
        // start + delay is not strictly after the transition: ready.
        assert_eq!(
            class(&running(600, "False", 590), &sample(0, 60), "cpu"),
            "ready"
        );
        assert_eq!(class(&running(600, "True", 600), &none(), "cpu"), "missing");
        let pending = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Pending"}}));
        assert_eq!(class(&pending, &sample(0, 60), "cpu"), "unready");
        let deleting = pod(
            json!({"metadata": {"name": "p", "deletionTimestamp": at(1)}, "status": {"phase": "Running"}}),
        );
        assert_eq!(class(&deleting, &sample(0, 60), "cpu"), "ignored");
        let failed = pod(json!({"metadata": {"name": "p"}, "status": {"phase": "Failed"}}));
        assert_eq!(class(&failed, &sample(0, 60), "cpu"), "ignored");
        // H-78: for any other resource readiness is not consulted.
        assert_eq!(
            class(&running(60, "False", 30), &sample(0, 60), "memory"),
            "ready"
        );
    }

    fn named(name: &str, phase: &str) -> HpaPod {
        pod(json!({"metadata": {"name": name}, "status": {"phase": phase}}))
    }

    fn plain(value: i64) -> Sample {
        Sample {
            value,
            timestamp: None,
            window: Duration::from_seconds(60),
        }
    }

    #[test]
    fn h59_listed_pods_are_deduplicated_by_name_the_later_one_at_the_earlier_place() {
        let (a1, b, a2, c) = (
            named("a", "Pending"),
            named("b", "Running"),
            named("a", "Running"),
            named("c", "Running"),
        );
        let mut listed = vec![&a1, &b, &a2, &c];
        let names = PodNames::dedupe(&mut listed, |p| p.metadata.name.as_str());
        let got: Vec<(&str, &str)> = listed
            .iter()
            .map(|p| (p.metadata.name.as_str(), p.status.phase.as_str()))
            .collect();
        assert_eq!(got, [("a", "Running"), ("b", "Running"), ("c", "Running")]);
        assert_eq!(names.find("a"), Some(0));
        assert_eq!(names.find("c"), Some(2));
        assert_eq!(names.find("d"), None);
        assert_eq!(PodNames::default().find("a"), None);
        // Names appended, then indexed at once: found where appended; a repeat refused.
        let index = |names: &[&str]| {
            let mut index = PodNames::with_capacity(names.len());
            for n in names {
                index.append(n);
            }
            (index.index_unique(), index)
        };
        let (unique, appended) = index(&["a", "b", "c"]);
        assert!(unique);
        assert_eq!(
            ["c", "a", "b", "d"].map(|n| appended.find(n)),
            [Some(2), Some(0), Some(1), None]
        );
        assert!(!index(&["a", "b", "a"]).0);
        // An index that grows as names come keeps finding every one.
        let mut grown = PodNames::default();
        for i in 0..100 {
            assert_eq!(grown.insert(&format!("p{i}")), (i, true));
        }
        assert_eq!(grown.insert("p7"), (7, false));
        for i in 0..100 {
            assert_eq!(grown.find(&format!("p{i}")), Some(i));
        }
        // Many names: every one found where it was kept.
        let many: Vec<HpaPod> = (0..1000)
            .map(|i| named(&format!("web-{}-c{}", i % 700, i % 7), "Running"))
            .collect();
        let mut listed: Vec<&HpaPod> = many.iter().collect();
        let names = PodNames::dedupe(&mut listed, |p| p.metadata.name.as_str());
        assert_eq!(listed.len(), 700);
        for (i, p) in listed.iter().enumerate() {
            assert_eq!(names.find(&p.metadata.name), Some(i));
        }
    }

    #[test]
    fn h79_h99_samples_attach_to_listed_pods_later_duplicates_winning_others_kept() {
        let (a, b) = (named("a", "Running"), named("b", "Running"));
        let mut listed = vec![&a, &b];
        let names = PodNames::dedupe(&mut listed, |p| p.metadata.name.as_str());
        let list = [
            ("b", plain(1)),
            ("x", plain(10)),
            ("b", plain(2)),
            ("x", plain(20)),
            ("y", plain(100)),
        ];
        let mut s = Samples::attach(&listed, &names, list.into_iter());
        assert_eq!(s.get(0), None);
        assert_eq!(s.get(1).map(|s| s.value), Some(2));
        assert_eq!(s.len(), 3);
        let mut values: Vec<i64> = s.values().collect();
        values.sort_unstable();
        assert_eq!(values, [2, 20, 100]);
        s.set(0, plain(5));
        s.set(0, plain(6));
        assert_eq!(s.len(), 4);
        s.remove(1);
        s.remove(1);
        assert_eq!(s.len(), 3);
        assert_eq!(s.listed(), [Some(plain(6)), None]);
        // The next list is checked against the positions the last one named: the same
        // order, another order, names dropped or unknown, all attach by name.
        let again = [("b", plain(3)), ("a", plain(4))];
        let s = Samples::attach(&listed, &names, again.into_iter());
        assert_eq!(s.listed(), [Some(plain(4)), Some(plain(3))]);
        let swapped = [("a", plain(7)), ("z", plain(8)), ("b", plain(9))];
        let s = Samples::attach(&listed, &names, swapped.into_iter());
        assert_eq!(s.listed(), [Some(plain(7)), Some(plain(9))]);
        assert_eq!(s.len(), 3);
        let short = [("b", plain(1))];
        let s = Samples::attach(&listed, &names, short.into_iter());
        assert_eq!(s.listed(), [None, Some(plain(1))]);
    }

    fn request(v: serde_json::Value, container: &str, gate: bool) -> Result<i64, String> {
        let p = pod(v);
        requests(&[&p], &[], container, "cpu", gate).map(|r| r[0])
    }

    #[test]
    fn h80_h81_requests_sum_containers_and_sidecars_or_take_the_pod_level_value() {
        // RT-23.
        let two = json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "container1", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "container2", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(two.clone(), "", true), Ok(150));
        assert_eq!(request(two, "container1", true), Ok(100));
        let pod_level = json!({"metadata": {"name": "p"}, "spec": {"resources": {"requests": {"cpu": "800m"}},
            "containers": [{"name": "container1"}, {"name": "container2", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(pod_level.clone(), "", true), Ok(800));
        assert_eq!(
            request(pod_level, "", false),
            Err("missing request for cpu in container container1 of Pod p".into())
        );
        let init = json!({"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}],
            "initContainers": [{"name": "plain", "resources": {"requests": {"cpu": "20m"}}},
                               {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}]}});
        assert_eq!(request(init, "", true), Ok(150));
        let one = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app",
            "resources": {"requests": {"cpu": "100m"}}}]}});
        assert_eq!(
            request(one, "non-existent-container", true),
            Err("container non-existent-container not found in Pod p".into())
        );
        // T-14: pod-level requests add the overhead, container sums do not.
        let overhead = json!({"metadata": {"name": "p"}, "spec": {"resources": {"requests": {"cpu": "1"}},
            "overhead": {"cpu": "250m"}, "containers": [{"name": "app"}]}});
        assert_eq!(request(overhead, "", true), Ok(1250));
        // Any resource name is a key (cpu and memory held without a text), written back
        // in name order.
        let other = pod(
            json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app",
            "resources": {"requests": {"memory": "1Ki", "example.com/gpu": "2", "cpu": "1"}}}]}}),
        );
        assert_eq!(
            requests(&[&other], &[], "", "example.com/gpu", true),
            Ok(vec![2000])
        );
        assert_eq!(
            requests(&[&other], &[], "", "memory", true),
            Ok(vec![1_024_000])
        );
        // Read while listing: the column's values are taken as they are; a pod without
        // one fails with the same text as when read now.
        let column = |resource: &str, value| Requested {
            resource: resource.into(),
            container: String::new(),
            values: vec![value],
        };
        assert_eq!(
            requests(&[&other], &[column("memory", Some(7))], "", "memory", true),
            Ok(vec![7])
        );
        let bare =
            pod(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app"}]}}));
        assert_eq!(
            requests(&[&bare], &[column("cpu", None)], "", "cpu", true),
            Err("missing request for cpu in container app of Pod p".into())
        );
        // A later duplicate name wins, as in a map.
        let twice: super::super::model::ResourceList =
            serde_json::from_str(r#"{"memory": "1", "cpu": "2", "memory": "3"}"#).unwrap();
        assert_eq!(twice.get("memory").map(|q| q.milli_value()), Some(3000));
        assert_eq!(
            serde_json::to_string(&twice).unwrap(),
            r#"{"cpu":"2","memory":"3"}"#
        );
        assert_eq!(
            serde_json::to_value(&other.spec.containers[0].resources).unwrap(),
            json!({"requests": {"cpu": "1", "example.com/gpu": "2", "memory": "1Ki"}})
        );
    }
}
