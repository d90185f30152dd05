//! A kube-rs-shaped host loop around the engine, with no cluster: the objects are
//! k8s-openapi types built in code, as a kube-rs controller holds them in its reflector
//! stores. Watch events go through `on_pod_event` / `on_owner_event` (keys to enqueue,
//! expectation observations); each key is synced with `plan` → API calls → `complete`.
//! The "API server" here is a map that names pods and a kubelet that makes them Ready.
//!
//! ```sh
//! cargo run -p replicore --features k8s-openapi --example kube_host
//! ```
//!
//! The host converts its typed objects with `TryFrom` (feature `k8s-openapi`): no JSON
//! round trip on the way in. In a real controller, `Cluster` is a `kube::Client`, the
//! stores are `kube::runtime::reflector::Store`s and the events come from `watcher`.

use std::collections::{BTreeMap, VecDeque};

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::jiff::Timestamp;

use replicore::model::{Pod, ReplicaSet};
use replicore::{
    complete, on_owner_event, on_pod_event, plan, CallResult, Config, EventDecision, Expectations,
    Manage, OwnerEvent, PodEvent, Requeue, SyncInput, SyncOutcome, Time,
};

type Error = Box<dyn std::error::Error>;

/// The cluster as the host sees it: reflector stores of typed objects, and the API
/// calls that change them (which come back as watch events).
struct Cluster {
    now: i64,
    replica_sets: BTreeMap<String, apps::ReplicaSet>,
    pods: BTreeMap<String, core::Pod>,
    created: u64,
    events: VecDeque<Watch>,
}

/// A watch event as `kube::runtime::watcher` delivers it (old object kept for updates).
enum Watch {
    PodAdded(core::Pod),
    PodUpdated(core::Pod, core::Pod),
    PodDeleted(core::Pod),
    OwnerUpdated(apps::ReplicaSet, apps::ReplicaSet),
}

fn time(seconds: i64) -> Option<meta::Time> {
    Timestamp::from_second(seconds).ok().map(meta::Time)
}

fn key(m: &meta::ObjectMeta) -> String {
    format!(
        "{}/{}",
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default()
    )
}

impl Cluster {
    /// POST a pod: the engine's pod body, named and stamped as the API server would.
    fn create_pod(&mut self, body: &serde_json::Value) -> CallResult {
        let mut pod: core::Pod = match serde_json::from_value(body.clone()) {
            Ok(pod) => pod,
            Err(e) => return api_error("BadRequest", 400, &e.to_string()),
        };
        self.created += 1;
        let prefix = pod.metadata.generate_name.clone().unwrap_or_default();
        let name = format!("{prefix}{:05}", self.created);
        pod.metadata.name = Some(name.clone());
        pod.metadata.uid = Some(format!("pod-uid-{}", self.created));
        pod.metadata.creation_timestamp = time(self.now);
        pod.status = Some(core::PodStatus {
            phase: Some("Pending".into()),
            ..Default::default()
        });
        self.pods.insert(key(&pod.metadata), pod.clone());
        self.events.push_back(Watch::PodAdded(pod));
        CallResult::Ok { name: Some(name) }
    }

    /// DELETE a pod (no grace period in this toy API server).
    fn delete_pod(&mut self, namespace: &str, name: &str) -> CallResult {
        match self.pods.remove(&format!("{namespace}/{name}")) {
            Some(pod) => {
                self.events.push_back(Watch::PodDeleted(pod));
                CallResult::Ok { name: None }
            }
            None => api_error("NotFound", 404, "pod not found"),
        }
    }

    /// The kubelet: every Pending pod starts and becomes Ready.
    fn kubelet(&mut self) {
        let now = self.now;
        for pod in self.pods.values_mut() {
            let old = pod.clone();
            let Some(status) = pod.status.as_mut() else {
                continue;
            };
            if status.phase.as_deref() != Some("Pending") {
                continue;
            }
            status.phase = Some("Running".into());
            status.conditions = Some(vec![core::PodCondition {
                type_: "Ready".into(),
                status: "True".into(),
                last_transition_time: time(now),
                ..Default::default()
            }]);
            self.events.push_back(Watch::PodUpdated(old, pod.clone()));
        }
    }
}

fn api_error(reason: &str, code: u16, message: &str) -> CallResult {
    CallResult::Error(replicore::ApiError {
        reason: reason.into(),
        message: message.into(),
        code: Some(code),
        causes: Vec::new(),
    })
}

/// The controller's state beside the stores: the work queue and the expectations.
#[derive(Default)]
struct Controller {
    queue: VecDeque<String>,
    expectations: BTreeMap<String, Expectations>,
}

impl Controller {
    fn take(&mut self, decision: EventDecision, now: Time) {
        for o in decision.observations {
            let e = self.expectations.remove(&o.owner_key).unwrap_or_default();
            self.expectations
                .insert(o.owner_key, o.change.apply(e, now));
        }
        for k in decision.enqueue {
            if !self.queue.contains(&k) {
                self.queue.push_back(k);
            }
        }
    }

    /// Delivers the cluster's pending watch events (converted once, field by field).
    fn watch(&mut self, cluster: &mut Cluster, config: &Config) -> Result<(), Error> {
        let owners = cluster
            .replica_sets
            .values()
            .map(ReplicaSet::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        let now = Time::from_unix_seconds(cluster.now);
        while let Some(event) = cluster.events.pop_front() {
            let decision = match &event {
                Watch::PodAdded(p) => on_pod_event(
                    PodEvent::Added(&Pod::try_from(p)?),
                    &owners,
                    &config.owner_kind,
                ),
                Watch::PodUpdated(old, new) => on_pod_event(
                    PodEvent::Updated {
                        old: &Pod::try_from(old)?,
                        new: &Pod::try_from(new)?,
                    },
                    &owners,
                    &config.owner_kind,
                ),
                Watch::PodDeleted(p) => on_pod_event(
                    PodEvent::Deleted(&Pod::try_from(p)?),
                    &owners,
                    &config.owner_kind,
                ),
                Watch::OwnerUpdated(old, new) => on_owner_event(OwnerEvent::Updated {
                    old: &ReplicaSet::try_from(old)?,
                    new: &ReplicaSet::try_from(new)?,
                }),
            };
            self.take(decision, now);
        }
        Ok(())
    }

    /// One `syncReplicaSet(key)`: plan from the stores, make the calls, complete.
    fn sync(&mut self, key: &str, cluster: &mut Cluster, config: &Config) -> Result<(), Error> {
        let Some(kube_owner) = cluster.replica_sets.get(key) else {
            return Ok(());
        };
        let now = Time::from_unix_seconds(cluster.now);
        let input = SyncInput {
            now,
            owner: ReplicaSet::try_from(kube_owner)?,
            other_owners: Vec::new(),
            pods: cluster
                .pods
                .values()
                .map(Pod::try_from)
                .collect::<Result<Vec<_>, _>>()?
                .into(),
            expectations: self.expectations.get(key).cloned().unwrap_or_default(),
            cache_is_fresh: true,
        };
        let plan = plan(&input, config)?;
        // No orphans or strays here, so no claims; a real host patches plan.claims first.
        let mut outcome = SyncOutcome::default();
        let mut expectations = input.expectations.clone();
        match plan.manage_after(&outcome.claims)? {
            Manage::Create(create) => {
                expectations = create.expectations.apply(expectations, now);
                while let Some(n) = create.next_batch(&outcome.creates) {
                    for _ in 0..n {
                        outcome.creates.push(cluster.create_pod(&create.pod));
                    }
                }
                println!(
                    "{key}: created {} in batches {:?}",
                    create.count, create.batches
                );
            }
            Manage::Delete(delete) => {
                expectations = delete.expectations.apply(expectations, now);
                for v in &delete.victims {
                    outcome
                        .deletes
                        .push(cluster.delete_pod(&v.namespace, &v.name));
                    println!("{key}: deleted {} ({:?})", v.name, v.rule);
                }
            }
            Manage::Nothing { why } => println!("{key}: nothing to do ({why:?})"),
        }
        let done = complete(&plan, &outcome)?;
        for change in &done.expectations {
            expectations = change.apply(expectations, now);
        }
        self.expectations.insert(key.to_owned(), expectations);
        for e in &done.events {
            println!("{key}: event {} {}: {}", e.type_, e.reason, e.message);
        }
        if let (Some(status), Some(rs)) = (&done.status, cluster.replica_sets.get_mut(key)) {
            // PUT /status: the engine's status into the typed object.
            rs.status = Some(apps::ReplicaSetStatus {
                replicas: status.replicas,
                fully_labeled_replicas: Some(status.fully_labeled_replicas),
                ready_replicas: Some(status.ready_replicas),
                available_replicas: Some(status.available_replicas),
                terminating_replicas: status.terminating_replicas,
                observed_generation: Some(status.observed_generation),
                conditions: None,
            });
            println!(
                "{key}: status replicas={} ready={} available={}",
                status.replicas, status.ready_replicas, status.available_replicas
            );
        }
        if let Requeue::After { after } = done.requeue_after_status_write(Ok(())) {
            println!("{key}: requeue after {after}");
        }
        Ok(())
    }
}

fn web(replicas: i32) -> apps::ReplicaSet {
    let labels: BTreeMap<String, String> = [("app".to_owned(), "web".to_owned())].into();
    apps::ReplicaSet {
        metadata: meta::ObjectMeta {
            name: Some("web".into()),
            namespace: Some("shop".into()),
            uid: Some("rs-web".into()),
            generation: Some(1),
            creation_timestamp: time(1_795_236_000),
            ..Default::default()
        },
        spec: Some(apps::ReplicaSetSpec {
            replicas: Some(replicas),
            selector: meta::LabelSelector {
                match_labels: Some(labels.clone()),
                match_expressions: None,
            },
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta::ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(core::PodSpec {
                    containers: vec![core::Container {
                        name: "nginx".into(),
                        image: Some("nginx:1.27".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        status: None,
    }
}

fn main() -> Result<(), Error> {
    let config = Config::default();
    let mut cluster = Cluster {
        now: 1_795_236_012,
        replica_sets: BTreeMap::from([("shop/web".to_owned(), web(3))]),
        pods: BTreeMap::new(),
        created: 0,
        events: VecDeque::new(),
    };
    let mut controller = Controller::default();
    controller.queue.push_back("shop/web".into());

    for step in 0..8 {
        if step == 4 {
            // kubectl scale rs web --replicas=1
            let old = cluster
                .replica_sets
                .get("shop/web")
                .cloned()
                .unwrap_or_default();
            let mut new = old.clone();
            if let Some(spec) = new.spec.as_mut() {
                spec.replicas = Some(1);
            }
            new.metadata.generation = Some(2);
            cluster.replica_sets.insert("shop/web".into(), new.clone());
            cluster.events.push_back(Watch::OwnerUpdated(old, new));
        }
        controller.watch(&mut cluster, &config)?;
        while let Some(key) = controller.queue.pop_front() {
            controller.sync(&key, &mut cluster, &config)?;
        }
        cluster.now += 5;
        cluster.kubelet();
    }
    let names: Vec<_> = cluster.pods.keys().collect();
    println!("pods at the end: {names:?}");
    Ok(())
}
