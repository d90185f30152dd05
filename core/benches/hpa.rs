//! The autoscaler's sync on upstream's benchmark inputs (`benches/data/hpa-{100,1000,10000}-pods`:
//! an HPA with three metrics, cpu utilization, memory average value and a Pods metric,
//! over 100 / 1,000 / 10,000 ready pods, 20 remembered recommendations; the same inputs
//! upstream's `BenchmarkHPAReconcile` times, `../shared/bench/README.md`).
//!
//! Each iteration is the whole step machine: `HpaSync::new` on the input (the HPA parsed
//! beforehand, as upstream's informer cache holds it), then every call answered with an
//! answer prepared outside the loop (the mapping, the Scale, the pod list, the three metric
//! responses; the last two read from their JSON text as a host hands them over), to the
//! status write. Upstream's loop likewise builds each metric map anew.
//!
//! `cargo bench -p replicore --bench hpa` prints criterion's figures, then one line per
//! size with the median of its own timing loop beside upstream's quiet median on this
//! machine (`upstream / engine` = how many times faster). `HPA_BENCH_PODS=1000` limits
//! that summary to one size (for a profiler).
//!
//! `hpa_forecast/1h_100replicas`: the autoscaling forecast of one hour at 15 s syncs (241
//! whole syncs, the pod model and its samples built for each) of an HPA holding about 100
//! replicas under a load cycling between 80 and 120 pods at target (issue target: 20 ms).

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use replicore::hpa::{
    forecast, GroupResource, HpaAnswer, HpaCall, HpaForecastInput, HpaSync, HpaSyncInput,
};
use serde_json::{json, Value};

/// Upstream's quiet medians on this machine (ns per `reconcileAutoscaler`, client-go
/// fakes; `../shared/bench/README.md`).
const UPSTREAM_NS: [(usize, f64); 3] =
    [(100, 330_746.0), (1000, 3_338_656.0), (10000, 57_825_336.0)];

fn case(pods: usize) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("benches/data/hpa-{pods}-pods.json.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("bench data"))
        .read_to_string(&mut text)
        .expect("gzip");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("json");
    cases.into_iter().next().expect("one case")
}

/// The input and the answers of one sync, in call order.
struct Prepared {
    input: HpaSyncInput,
    mappings: HpaAnswer,
    scale: HpaAnswer,
    pods: HpaAnswer,
    metrics: Vec<HpaAnswer>,
}

/// An answer read from its JSON text, as a host's binding reads it (`replicore::input`):
/// the pods' and samples' heap parts lie in the order the text lists them. (Converted
/// from a parsed `serde_json::Value` instead, they lay scattered between the freed
/// nodes of that value, which made the 10,000-pod sync about twice as slow.)
fn answer(value: Value) -> HpaAnswer {
    let text = serde_json::to_vec(&value).expect("json");
    replicore::input::from_json(&text).expect("answer")
}

fn prepare(pods: usize) -> Prepared {
    let c = case(pods);
    let i = &c["input"];
    let input = HpaSyncInput::from_value(json!({
        "now": i["now"], "featureGates": i["featureGates"], "config": i["config"], "key": i["key"],
        "hpa": i["hpa"], "memory": i["memory"],
    }))
    .expect("input");
    Prepared {
        input,
        mappings: HpaAnswer::Mappings {
            resources: vec![GroupResource {
                group: "apps".into(),
                resource: "deployments".into(),
            }],
        },
        scale: HpaAnswer::Scale {
            scale: serde_json::from_value(i["scale"].clone()).expect("scale"),
        },
        pods: answer(json!({"answer": "pods", "pods": i["pods"]})),
        metrics: i["metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .map(|m| answer(json!({"answer": "metric", "response": m})))
            .collect(),
    }
}

/// One whole sync; returns the replicas written to the status (to keep it alive).
fn sync(p: &Prepared) -> usize {
    let mut s = HpaSync::new(p.input.clone());
    while let Some(call) = s.pending() {
        let answer = match call {
            HpaCall::ResolveTarget { .. } => p.mappings.clone(),
            HpaCall::GetScale { .. } => p.scale.clone(),
            HpaCall::ListPods { .. } => p.pods.clone(),
            HpaCall::FetchMetric { index, .. } => p.metrics[*index].clone(),
            _ => HpaAnswer::Ok,
        };
        s.report(answer).expect("answer fits");
    }
    s.into_done()
        .map_or(0, |d| d.events.len() + d.status.desired_replicas as usize)
}

fn hpa(c: &mut Criterion) {
    let mut group = c.benchmark_group("hpa_sync");
    group
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    // Each size's answers are read once and kept for both timings, as upstream's informer
    // cache is filled once before its loop. (Read again for the summary after the other
    // sizes' answers were dropped, the 10,000 pods' small allocations landed in the holes
    // those left, scattered over the heap, and the sync at that size paid for the misses.)
    // The largest is read first, into a heap no other size has used: read last, part of
    // its pods went into the holes the smaller sizes' parsed JSON left (10,000 ÷ 1,000:
    // 11.9–14.0 × in five runs, 10.8–13.0 × in four read largest first).
    let mut prepared: Vec<(usize, Prepared)> = UPSTREAM_NS
        .iter()
        .rev()
        .map(|&(pods, _)| (pods, prepare(pods)))
        .collect();
    prepared.reverse();
    for (pods, p) in &prepared {
        group.bench_function(format!("{pods}"), |b| b.iter(|| black_box(sync(p))));
    }
    group.finish();
    summary(&prepared);
}

/// One hour at 15 s syncs around 100 replicas.
fn forecast_input() -> HpaForecastInput {
    HpaForecastInput::from_value(json!({
        "hpa": {"metadata": {"name": "web", "namespace": "default"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                         "minReplicas": 10, "maxReplicas": 200,
                         "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                             "target": {"type": "Utilization", "averageUtilization": 60}}}],
                         "behavior": {"scaleDown": {"stabilizationWindowSeconds": 120}}}},
        "load": {"kind": "dailyCycle", "min": 80, "max": 120, "periodSeconds": 1800},
        "initialReplicas": 100,
        "durationSeconds": 3600,
        "seed": 1
    }))
    .expect("forecast input")
}

fn hpa_forecast(c: &mut Criterion) {
    let input = forecast_input();
    let mut group = c.benchmark_group("hpa_forecast");
    group
        .measurement_time(Duration::from_secs(5))
        .sample_size(20);
    group.bench_function("1h_100replicas", |b| {
        b.iter(|| black_box(forecast(&input).expect("forecast").totals.rescales))
    });
    group.finish();
    let mut per = Vec::new();
    for _ in 0..15 {
        let start = Instant::now();
        black_box(forecast(&input).expect("forecast"));
        per.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    per.sort_by(f64::total_cmp);
    let f = forecast(&input).expect("forecast");
    println!(
        "hpa forecast, 1 h at 15 s, ~100 replicas ({} syncs, {} rescales, peak {} pods): {:.2} ms median (target 20 ms)",
        f.totals.syncs,
        f.totals.rescales,
        f.totals.peak_pods,
        per[per.len() / 2]
    );
}

/// This thread's CPU time so far (Linux: `/proc/thread-self/schedstat`), in ns: unlike
/// the wall time it leaves out the time other processes held the core.
fn thread_cpu_ns() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The median of 15 timed batches, per sync, beside upstream's figure (wall time, and
/// this thread's CPU time where the system tells it).
fn summary(prepared: &[(usize, Prepared)]) {
    let mut engine_1k = 0.0;
    let only: Option<usize> = std::env::var("HPA_BENCH_PODS")
        .ok()
        .and_then(|v| v.parse().ok());
    for (&(pods, upstream), (_, p)) in UPSTREAM_NS.iter().zip(prepared) {
        if only.is_some_and(|o| o != pods) {
            continue;
        }
        let batch = (2_000_000 / pods).max(1);
        let mut per = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..15 {
            let start = Instant::now();
            let cpu_start = thread_cpu_ns();
            for _ in 0..batch {
                black_box(sync(p));
            }
            per.push(start.elapsed().as_nanos() as f64 / batch as f64);
            if let (Some(a), Some(b)) = (cpu_start, thread_cpu_ns()) {
                cpu.push((b - a) / batch as f64);
            }
        }
        per.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        let median = per[per.len() / 2];
        if pods == 1000 {
            engine_1k = median;
        }
        let linear = if pods == 10000 && engine_1k > 0.0 {
            format!(
                ", {:.1}x the 1,000-pod time (upstream 17x)",
                median / engine_1k
            )
        } else {
            String::new()
        };
        let cpu = cpu
            .get(cpu.len() / 2)
            .map_or(String::new(), |c| format!(", CPU {:.1} µs", c / 1000.0));
        println!(
            "hpa sync, {pods:>5} pods: {:>9.1} µs median{cpu} (upstream {:>8.1} µs: {:.0}x faster{linear})",
            median / 1000.0,
            upstream / 1000.0,
            upstream / median
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().configure_from_args();
    targets = hpa, hpa_forecast
}
criterion_main!(benches);
