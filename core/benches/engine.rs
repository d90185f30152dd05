//! Criterion benchmarks of the engine on the upstream benchmark input
//! (`benches/data/pods-10k.json.gz`: 10,300 pods, 10,000 of them owned by the ReplicaSet
//! in `benches/data/replicaset.json`), plus generated 1k and 100k inputs built from it.
//!
//! Run with `cargo bench -p replicore --bench engine`; a subset with e.g.
//! `cargo bench -p replicore --bench engine -- rank/`.
//!
//! Groups (sizes = pods owned by the ReplicaSet; every input also holds 300 pods the
//! selector does not match):
//! - `parse/10k`: the decompressed `PodList` JSON bytes → a `Pods` list (each pod with
//!   its digest, as every parse into the engine makes it).
//! - `rank/{1k,10k,100k}`: `rank::deletion_order_of` the active owned pods, related = the
//!   same, the pods digested when they entered (parsed, or upserted into the store);
//!   `rank_from_pods/10k`: `rank::deletion_order` from bare `&Pod`s, which digests each pod
//!   first; `rank_explained/10k`: every pod with its rule and facts.
//! - `pods_to_delete/10k`: `rank::pods_to_delete_of` with n = 4928 (the reference's diff).
//! - `status/10k`: `status::calculate_of` over the active owned pods (digested).
//! - `plan/{1k,10k,100k}`: `plan` with `spec.replicas` = N/2 (a delete plan of
//!   min(diff, 500) victims); the input is built beforehand.
//! - `plan_scale_up/10k`: `plan` with `spec.replicas` 20000 (a create plan of 500).
//! - `json_to_plan/10k`: the bytes of a `SyncInput` (RS + 10,300 wire-shaped pods) →
//!   `SyncInput::from_json` → `plan`.
//! - `json_skip/10k`: the same bytes checked as UTF-8 and read by serde_json into nothing
//!   (`IgnoredAny`): the floor of any reading of them with serde_json, which
//!   `json_to_plan` starts from.
//! - `template_hash`: `deployment::hash::pod_template_hash` of the ReplicaSet's pod
//!   template (JSON → go-spew text → FNV-1a → label value), with a collision count.
//! - `refuse/{deep,keys}/{10k,100k,1M}`: `SyncInput::from_json` refusing bad input of
//!   10 KB, 100 KB and 1 MB (`tests/shapes`): `deep`, an unknown field nested half the
//!   size deep then `"now": 1`; `keys`, 100 levels of keys of size/200 bytes over many
//!   short members, then `"cacheIsFresh": 1`. Linear: 1 MB takes about 10× 100 KB.
//!   `refuse/hpa_{deep,keys}/…`: the same bytes refused by `HpaSyncInput::from_json`.

use std::cell::OnceCell;
use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use replicore::config::FeatureGates;
use replicore::replicaset::rank;
use replicore::replicaset::status::{self, StatusContext};
use replicore::{
    plan, Config, Digested, Manage, OwnerKind, Pod, Pods, ReplicaSet, SyncInput, Time,
    DEFAULT_BURST_REPLICAS,
};
use serde::Deserialize;

#[path = "../tests/shapes/mod.rs"]
mod shapes;

/// The `v1.PodList` shape: only `items` is read.
#[derive(Deserialize)]
struct PodList {
    items: Pods,
}

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `generatedAt` of `reference-10k.json`: the instant the data is relative to.
fn now() -> Time {
    Time::parse("2026-11-21T04:43:13Z")
        .expect("valid timestamp")
        .expect("not zero")
}

struct Base {
    /// The decompressed PodList JSON.
    json: Vec<u8>,
    rs: ReplicaSet,
    pods: Vec<Pod>,
}

fn load() -> Base {
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(data("pods-10k.json.gz").as_slice())
        .read_to_end(&mut json)
        .expect("gunzip pods-10k.json.gz");
    let list: PodList = replicore::input::from_json(&json).expect("PodList");
    let rs: ReplicaSet =
        replicore::input::from_json(&data("replicaset.json")).expect("replicaset.json");
    Base {
        json,
        rs,
        pods: list.items.into_vec(),
    }
}

fn is_owned(rs: &ReplicaSet, p: &Pod) -> bool {
    p.metadata
        .controller_ref()
        .is_some_and(|r| r.uid == rs.metadata.uid)
}

/// The active pods controlled by `rs`, input order.
fn active_owned<'a>(rs: &ReplicaSet, pods: &'a [Pod]) -> Vec<&'a Pod> {
    pods.iter()
        .filter(|p| is_owned(rs, p) && replicore::pods::is_active(p))
        .collect()
}

/// A deterministic Fisher–Yates shuffle (xorshift64*), so generated inputs are not
/// ordered by copy.
fn shuffle<T>(items: &mut [T], mut seed: u64) {
    for i in (1..items.len()).rev() {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let r = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        items.swap(i, (r % (i as u64 + 1)) as usize);
    }
}

/// A fresh random-looking UUID for copy `copy` of the pod with `uid`, as the API server
/// would assign (a suffix would give every copy the original's 16-byte UID prefix, which
/// no real cluster has).
fn copy_uid(uid: &str, copy: usize) -> String {
    let mut seed = uid.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    }) ^ (copy as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let (a, b) = (next(), next());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        (b >> 48) & 0x3fff | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

/// `owned` pods controlled by the RS plus the 300 non-matching pods of the 10k input.
/// Fewer than 10,000: the first `owned` owned pods, their nodes folded onto
/// proportionally fewer nodes. More: copies of the 10,000 with suffixed names and node
/// names (so nodes grow in proportion) and fresh UIDs, shuffled.
fn generated(base: &Base, owned: usize) -> Vec<Pod> {
    let (mine, others): (Vec<&Pod>, Vec<&Pod>) =
        base.pods.iter().partition(|p| is_owned(&base.rs, p));
    let mut out: Vec<Pod> = Vec::with_capacity(owned + others.len());
    if owned <= mine.len() {
        let mut nodes: Vec<&str> = mine
            .iter()
            .map(|p| p.node_name())
            .filter(|n| !n.is_empty())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        let keep = (nodes.len() * owned).div_ceil(mine.len()).max(1);
        for p in mine.iter().take(owned) {
            let mut p = (*p).clone();
            if let Some(node) = p.spec.node_name.as_mut().filter(|n| !n.is_empty()) {
                let i = nodes.binary_search(&node.as_str()).unwrap_or(0);
                *node = nodes.get(i % keep).copied().unwrap_or_default().to_owned();
            }
            out.push(p);
        }
    } else {
        for copy in 0..owned.div_ceil(mine.len()) {
            for p in &mine {
                if out.len() == owned {
                    break;
                }
                let mut p = (*p).clone();
                if copy > 0 {
                    p.metadata.name = format!("{}-c{copy}", p.metadata.name);
                    p.metadata.uid = copy_uid(&p.metadata.uid, copy);
                    if let Some(node) = p.spec.node_name.as_mut().filter(|n| !n.is_empty()) {
                        *node = format!("{node}-c{copy}");
                    }
                }
                out.push(p);
            }
        }
    }
    out.extend(others.into_iter().cloned());
    shuffle(&mut out, 0x9e37_79b9_7f4a_7c15 ^ owned as u64);
    out
}

/// The sync input of one size, with `spec.replicas` set.
fn sync_input(rs: &ReplicaSet, pods: Vec<Pod>, replicas: i32) -> SyncInput {
    let mut owner = rs.clone();
    owner.spec.replicas = Some(replicas);
    SyncInput {
        now: now(),
        owner,
        other_owners: Vec::new(),
        pods: pods.into(),
        expectations: Default::default(),
        cache_is_fresh: true,
    }
}

/// The bytes of a `SyncInput` holding the RS (replicas 5000) and every pod of the
/// PodList exactly as the API wrote it (managedFields, containers, ...).
fn sync_input_json(base: &Base) -> Vec<u8> {
    let mut list: serde_json::Value = serde_json::from_slice(&base.json).expect("PodList");
    let items = list
        .get_mut("items")
        .map(serde_json::Value::take)
        .expect("items");
    let mut owner: serde_json::Value =
        serde_json::from_slice(&data("replicaset.json")).expect("RS");
    if let Some(spec) = owner.get_mut("spec") {
        spec["replicas"] = 5000.into();
    }
    let input = serde_json::json!({
        "now": "2026-11-21T04:43:13Z",
        "owner": owner,
        "pods": items,
    });
    serde_json::to_vec(&input).expect("serialize")
}

fn label(owned: usize) -> String {
    if owned >= 1000 && owned % 1000 == 0 {
        format!("{}k", owned / 1000)
    } else {
        owned.to_string()
    }
}

/// Inputs built on first use, so a filtered run (`-- rank/10k`) builds only what it needs.
struct Inputs<'a> {
    base: &'a Base,
    /// Owned pods per size, and the size's pods (built on first use).
    sizes: [(usize, OnceCell<Vec<Pod>>); 3],
    plans: [OnceCell<SyncInput>; 3],
    scale_up: OnceCell<SyncInput>,
    json: OnceCell<Vec<u8>>,
}

impl<'a> Inputs<'a> {
    fn new(base: &'a Base) -> Self {
        Inputs {
            base,
            sizes: [1_000, 10_000, 100_000].map(|n| (n, OnceCell::new())),
            plans: Default::default(),
            scale_up: OnceCell::new(),
            json: OnceCell::new(),
        }
    }

    fn pods(&self, size: usize) -> &[Pod] {
        let (n, cell) = self.sizes.get(size).expect("size index");
        cell.get_or_init(|| {
            let pods = if *n == 10_000 {
                self.base.pods.clone()
            } else {
                generated(self.base, *n)
            };
            eprintln!(
                "input {}: {} pods, {} active owned",
                label(*n),
                pods.len(),
                active_owned(&self.base.rs, &pods).len()
            );
            pods
        })
    }

    /// A delete plan's input: `spec.replicas` = half the owned pods.
    fn plan_input(&self, size: usize) -> &SyncInput {
        let cell = self.plans.get(size).expect("size index");
        cell.get_or_init(|| {
            let pods = self.pods(size).to_vec();
            let rs = &self.base.rs;
            let owned = pods.iter().filter(|p| is_owned(rs, p)).count();
            let input = sync_input(rs, pods, (owned / 2) as i32);
            let config = Config::default();
            let probe = plan(&input, &config).expect("plan");
            assert!(
                matches!(&probe.manage, Manage::Delete(d) if !d.victims.is_empty()),
                "expected a delete plan"
            );
            drop(probe);
            input
        })
    }

    fn scale_up_input(&self) -> &SyncInput {
        self.scale_up.get_or_init(|| {
            let input = sync_input(&self.base.rs, self.base.pods.clone(), 20_000);
            let config = Config::default();
            let probe = plan(&input, &config).expect("plan");
            assert!(
                matches!(&probe.manage, Manage::Create(c) if c.count == DEFAULT_BURST_REPLICAS),
                "expected a create plan of one burst"
            );
            drop(probe);
            input
        })
    }

    fn json(&self) -> &[u8] {
        self.json.get_or_init(|| sync_input_json(self.base))
    }
}

fn benches(c: &mut Criterion) {
    let base = load();
    let inputs = Inputs::new(&base);
    let now = now();
    let gates = FeatureGates::default();
    let config = Config::default();
    let kind = OwnerKind::replica_set();
    let rs = &base.rs;
    let active10k = active_owned(rs, &base.pods);

    // parse: PodList JSON bytes → Vec<Pod>.
    {
        let mut g = c.benchmark_group("parse");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .measurement_time(Duration::from_secs(6))
            .throughput(Throughput::Bytes(base.json.len() as u64));
        g.bench_function("10k", |b| {
            b.iter(|| {
                let list: PodList =
                    replicore::input::from_json(black_box(&base.json)).expect("PodList");
                list.items.len()
            })
        });
        g.finish();
    }

    // The active owned pods of the 10k input, digested as they are when parsed.
    let digested10k: Pods = active10k.iter().map(|p| (*p).clone()).collect();
    let dig10k: Vec<Digested> = digested10k.digested().collect();

    // rank: every active owned pod, related = the same; pods digested when they entered
    // (parsed into a `Pods` list, or upserted into the store).
    {
        let mut g = c.benchmark_group("rank");
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        for (size, (n, _)) in inputs.sizes.iter().enumerate() {
            if *n > 50_000 {
                g.sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .measurement_time(Duration::from_secs(8));
            }
            g.bench_function(BenchmarkId::from_parameter(label(*n)), |b| {
                let active: Pods = active_owned(rs, inputs.pods(size))
                    .into_iter()
                    .cloned()
                    .collect();
                let dig: Vec<Digested> = active.digested().collect();
                b.iter(|| rank::deletion_order_of(black_box(&dig), black_box(&dig), now, &gates))
            });
        }
        g.finish();
    }

    // rank_from_pods: the same ranking from bare `&Pod`s, digesting every pod first.
    {
        let mut g = c.benchmark_group("rank_from_pods");
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        g.bench_function("10k", |b| {
            b.iter(|| {
                rank::deletion_order(black_box(&active10k), black_box(&active10k), now, &gates)
            })
        });
        g.finish();
    }

    // rank_explained: the same order, every pod with its rule and facts.
    {
        let mut g = c.benchmark_group("rank_explained");
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        g.bench_function("10k", |b| {
            b.iter(|| {
                rank::pods_to_delete_of(
                    black_box(&dig10k),
                    black_box(&dig10k),
                    dig10k.len(),
                    now,
                    &gates,
                )
            })
        });
        g.finish();
    }

    // pods_to_delete: the reference's diff.
    {
        let mut g = c.benchmark_group("pods_to_delete");
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        g.bench_function("10k", |b| {
            b.iter(|| {
                rank::pods_to_delete_of(black_box(&dig10k), black_box(&dig10k), 4928, now, &gates)
            })
        });
        g.finish();
    }

    // status: calculateStatus over the active owned pods.
    {
        let mut g = c.benchmark_group("status");
        g.sample_size(30).measurement_time(Duration::from_secs(3));
        let ctx = StatusContext {
            gates: &gates,
            owner_kind: &kind,
            manage_error: None,
            now,
            wall_clock: now,
        };
        g.bench_function("10k", |b| {
            b.iter(|| status::calculate_of(black_box(rs), black_box(&dig10k), 0, ctx))
        });
        g.finish();
    }

    // plan: a delete plan (spec.replicas = N/2; 500 victims at 10k and 100k).
    {
        let mut g = c.benchmark_group("plan");
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        for (size, (n, _)) in inputs.sizes.iter().enumerate() {
            if *n > 50_000 {
                g.sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .measurement_time(Duration::from_secs(10));
            }
            g.bench_function(BenchmarkId::from_parameter(label(*n)), |b| {
                let input = inputs.plan_input(size);
                b.iter(|| plan(black_box(input), &config).expect("plan"))
            });
        }
        g.finish();
    }

    // plan_scale_up: a create plan (spec.replicas 20000 → 500 creates).
    {
        let mut g = c.benchmark_group("plan_scale_up");
        g.sample_size(30).measurement_time(Duration::from_secs(6));
        g.bench_function("10k", |b| {
            let input = inputs.scale_up_input();
            b.iter(|| plan(black_box(input), &config).expect("plan"))
        });
        g.finish();
    }

    // json_to_plan: SyncInput bytes → SyncInput::from_json → plan.
    {
        let mut g = c.benchmark_group("json_to_plan");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .measurement_time(Duration::from_secs(8));
        g.bench_function("10k", |b| {
            let json = inputs.json();
            b.iter(|| {
                let input = SyncInput::from_json(black_box(json)).expect("SyncInput");
                let p = plan(&input, &config).expect("plan");
                match &p.manage {
                    Manage::Delete(d) => d.victims.len(),
                    _ => 0,
                }
            })
        });
        g.finish();
    }

    // json_skip: the same bytes, read by serde_json without keeping anything.
    {
        let mut g = c.benchmark_group("json_skip");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(20)
            .measurement_time(Duration::from_secs(6));
        g.bench_function("10k", |b| {
            let json = inputs.json();
            b.iter(|| {
                let text = std::str::from_utf8(black_box(json)).expect("UTF-8");
                serde_json::from_str::<serde::de::IgnoredAny>(text).expect("JSON")
            })
        });
        g.finish();
    }

    // template_hash: the pod-template-hash of the ReplicaSet's (realistic) pod template.
    let rs_json: serde_json::Value =
        serde_json::from_slice(&data("replicaset.json")).expect("replicaset.json");
    let template = &rs_json["spec"]["template"];
    c.bench_function("template_hash", |b| {
        b.iter(|| replicore::deployment::hash::pod_template_hash(black_box(template), Some(3)))
    });

    // deployment_sync/1new_10old: one whole Deployment sync (every call answered ok) of a
    // rolling update in progress: a new RS and 10 old ones, all with the realistic
    // template above (the old ones with another image); 10 RS writes and a status write.
    // The step machine replays the sync once per call.
    {
        let input = deployment_sync_input(template);
        let mut g = c.benchmark_group("deployment_sync");
        // The input is cloned outside the measurement (run_sync takes it by value; the
        // clone of 11 templates is about a third of the loop otherwise).
        g.bench_function("1new_10old", |b| {
            b.iter_batched(
                || input.clone(),
                |input| {
                    replicore::deployment::run_sync(black_box(input), |_| {
                        replicore::deployment::ApiResult::ok()
                    })
                    .expect("a sync")
                },
                BatchSize::SmallInput,
            )
        });
        g.finish();
    }

    // refuse: bad input refused in time linear in its size.
    {
        let mut g = c.benchmark_group("refuse");
        g.sampling_mode(SamplingMode::Flat).sample_size(20);
        type Shape = fn(usize) -> Vec<u8>;
        let shapes: [(&str, Shape); 2] = [
            ("deep", shapes::deep_nesting),
            ("keys", shapes::long_nested_keys),
        ];
        for (name, shape) in shapes {
            for (label, size) in [("10k", 10_000), ("100k", 100_000), ("1M", 1_000_000)] {
                let text = shape(size);
                g.throughput(Throughput::Bytes(text.len() as u64));
                g.bench_function(BenchmarkId::new(name, label), |b| {
                    b.iter(|| SyncInput::from_json(black_box(&text)).expect_err("refused"))
                });
                // The same bytes as an HPA sync input (`hpa` missing, found at the end).
                g.bench_function(BenchmarkId::new(format!("hpa_{name}"), label), |b| {
                    b.iter(|| {
                        replicore::hpa::HpaSyncInput::from_json(black_box(&text))
                            .expect_err("refused")
                    })
                });
            }
        }
        g.finish();
    }
}

/// forecast/1000_replicas: the forecast of a 1,000-replica rollout (25%/25%, 10 s
/// start-up) from an old ReplicaSet of 1,000 available replicas to completion.
fn forecast_bench(c: &mut Criterion) {
    use serde_json::json;
    let template = |image: &str, hash: Option<&str>| {
        let mut labels = json!({"app": "web"});
        if let Some(h) = hash {
            labels["pod-template-hash"] = json!(h);
        }
        json!({"metadata": {"labels": labels},
               "spec": {"containers": [{"name": "web", "image": image}]}})
    };
    let d = json!({
        "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": 1000, "selector": {"matchLabels": {"app": "web"}},
            "template": template("web:v2", None),
            "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 1, "replicas": 1000, "updatedReplicas": 1000,
            "availableReplicas": 1000}
    });
    let old_template = template("web:v1", Some("old1"));
    let old = json!({
        "metadata": {"name": "web-old1", "namespace": "default", "uid": "rs-old1",
            "generation": 1, "creationTimestamp": "2026-11-20T00:00:00Z",
            "labels": old_template["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": 1000, "selector": {"matchLabels": old_template["metadata"]["labels"]},
            "template": old_template},
        "status": {"replicas": 1000, "readyReplicas": 1000, "availableReplicas": 1000}
    });
    let now = replicore::Time::parse("2026-11-24T01:00:00Z")
        .expect("a time")
        .expect("not zero");
    let options = replicore::deployment::forecast::ForecastOptions::at(now);
    let rss = vec![old];
    let mut g = c.benchmark_group("forecast");
    g.bench_function("1000_replicas", |b| {
        b.iter(|| {
            replicore::deployment::forecast::forecast(black_box(&d), black_box(&rss), &[], &options)
                .expect("a forecast")
        })
    });
    g.finish();
}

/// A RollingUpdate deployment of 30 replicas (surge 25%, unavailable 25%) with its new
/// RS at 30 (all available) and 10 old RSs of 2 each (all available): the old RSs are
/// all scaled to 0 (10 RS updates), then the status is written (11 calls).
fn deployment_sync_input(
    template: &serde_json::Value,
) -> replicore::deployment::DeploymentSyncInput {
    use serde_json::json;
    let owner = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
        "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]);
    let mut labels = template["metadata"]["labels"].clone();
    let rs =
        |name: &str, image: &str, spec: i32, available: i32, revision: usize, minute: usize| {
            let mut t = template.clone();
            if image != "current" {
                t["spec"]["containers"][0]["image"] = json!(image);
            }
            t["metadata"]["labels"]["pod-template-hash"] = json!(name);
            json!({
                "metadata": {"name": format!("web-{name}"), "namespace": "default",
                    "uid": format!("uid-{name}"), "generation": 2,
                    "creationTimestamp": format!("2026-11-21T03:{minute:02}:00Z"),
                    "labels": t["metadata"]["labels"],
                    "annotations": {"deployment.kubernetes.io/revision": revision.to_string(),
                        "deployment.kubernetes.io/desired-replicas": "30",
                        "deployment.kubernetes.io/max-replicas": "38"},
                    "ownerReferences": owner},
                "spec": {"replicas": spec, "selector": {"matchLabels": t["metadata"]["labels"]},
                    "template": t},
                "status": {"replicas": spec, "readyReplicas": available,
                    "availableReplicas": available, "observedGeneration": 2,
                    "terminatingReplicas": 0}
            })
        };
    let mut rss = vec![rs("new0", "current", 10, 10, 11, 50)];
    for i in 0..10 {
        rss.push(rs(
            &format!("old{i}"),
            &format!("example/old:{i}"),
            2,
            1,
            i + 1,
            i,
        ));
    }
    if let Some(l) = labels.as_object_mut() {
        l.remove("pod-template-hash");
    }
    let mut dtemplate = template.clone();
    dtemplate["metadata"]["labels"] = labels.clone();
    replicore::deployment::DeploymentSyncInput::from_value(json!({
        "now": "2026-11-21T04:43:13Z",
        "key": "default/web",
        "deployment": {
            "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 2,
                "annotations": {"deployment.kubernetes.io/revision": "11"}},
            "spec": {"replicas": 30, "selector": {"matchLabels": labels}, "template": dtemplate,
                "strategy": {"type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
            "status": {"observedGeneration": 2, "replicas": 50, "updatedReplicas": 30}
        },
        "replicaSets": rss,
        "pods": []
    }))
    .expect("a deployment sync input")
}

criterion_group! {
    name = engine;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = benches, forecast_bench
}
criterion_main!(engine);
