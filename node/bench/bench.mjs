#!/usr/bin/env node
// wasm benchmarks of the replicore package in Node, on the upstream 10k input and on
// generated 1k and 100k inputs built the same way as the native criterion benches.
//
//   npm --prefix node run bench              # a table: median and spread per benchmark
//   npm --prefix node run bench -- --json    # {"name": median_ms, ...}
//   npm --prefix node run bench -- rank      # only benchmarks whose name contains "rank"
//
// Sizes are pods owned by the ReplicaSet; every input also holds 300 pods it does not
// match. Plans scale the ReplicaSet to half its pods (a delete plan of 500 victims).
import { deploymentObjectKeys, hpaForecast, plan, planJson, rankPods, Store } from "replicore";
import { explainReport } from "replicore/explain";
import { NOW, activeOwned, label, loadBase, owner, podsOfSize } from "./data.mjs";
import { line, measure } from "./measure.mjs";

const args = process.argv.slice(2);
const json = args.includes("--json");
const filters = args.filter((a) => !a.startsWith("--"));
const wanted = (name) => filters.length === 0 || filters.some((f) => name.includes(f));
const log = (s) => (json ? process.stderr.write(`${s}\n`) : console.log(s));

const base = loadBase();
const results = {};
function bench(name, f, opts) {
  if (!wanted(name)) return;
  const r = measure(f, opts);
  results[name] = r.median;
  log(line(name, r));
}

// The rollout forecast of a 1,000-replica 25%/25% Deployment (10 s start-up), the
// snapshot of the native `forecast/1000_replicas` bench, through `explainReport` (which
// also explains the Deployment and its ReplicaSet: an upper bound on the forecast alone).
function forecastSnapshot() {
  // The controller's own label and annotation keys, from the engine.
  const keys = deploymentObjectKeys();
  const revision = { [keys.revisionAnnotation]: "1" };
  const template = (image, hash) => ({
    metadata: { labels: hash ? { app: "web", [keys.podTemplateHashLabel]: hash } : { app: "web" } },
    spec: { containers: [{ name: "web", image }] },
  });
  const owner = { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "d-uid", controller: true, blockOwnerDeletion: true };
  const old = template("web:v1", "old1");
  return JSON.stringify({
    kind: "List",
    items: [
      {
        kind: "Deployment", apiVersion: "apps/v1",
        metadata: { name: "web", namespace: "default", uid: "d-uid", generation: 2, annotations: revision },
        spec: { replicas: 1000, selector: { matchLabels: { app: "web" } }, template: template("web:v2"), strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } }, progressDeadlineSeconds: 600 },
        status: { observedGeneration: 1, replicas: 1000, updatedReplicas: 1000, availableReplicas: 1000 },
      },
      {
        kind: "ReplicaSet", apiVersion: "apps/v1",
        metadata: { name: "web-old1", namespace: "default", uid: "rs-old1", generation: 1, creationTimestamp: "2026-11-20T00:00:00Z", labels: old.metadata.labels, annotations: revision, ownerReferences: [owner] },
        spec: { replicas: 1000, selector: { matchLabels: old.metadata.labels }, template: old },
        status: { replicas: 1000, readyReplicas: 1000, availableReplicas: 1000 },
      },
    ],
  });
}

log(`replicore wasm benchmarks (Node ${process.version}); sizes = owned pods (+300 unmatched)`);
if (wanted("forecast(explainReport)/1000_replicas")) {
  const snapshot = forecastSnapshot();
  const options = { now: "2026-11-24T01:00:00Z", forecast: {} };
  const done = explainReport(snapshot, options);
  if (done.forecasts?.[0]?.end?.kind !== "complete") throw new Error(`the bench's rollout does not complete: ${JSON.stringify(done.forecasts?.[0]?.end)}`);
  bench("forecast(explainReport)/1000_replicas", () => explainReport(snapshot, options), { runs: 30 });
}
// The autoscaling forecast of the native `hpa_forecast/1h_100replicas` bench: one hour at
// 15 s syncs of an HPA holding about 100 replicas (issue target: 3x the native time).
if (wanted("hpaForecast/1h_100replicas")) {
  const input = {
    hpa: {
      metadata: { name: "web", namespace: "default" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 10, maxReplicas: 200,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 120 } },
      },
    },
    load: { kind: "dailyCycle", min: 80, max: 120, periodSeconds: 1800 },
    initialReplicas: 100, durationSeconds: 3600, seed: 1,
  };
  bench("hpaForecast/1h_100replicas", () => hpaForecast(input), { runs: 20 });
}
for (const n of [1_000, 10_000]) {
  const needs = (prefix) => wanted(`${prefix}/${label(n)}`);
  if (!["rankPods", "plan(objects)", "planJson(text)", "store.planFor", "store.upsertPod", "store.upsertPodJson"].some(needs)) continue;
  const pods = podsOfSize(base, n);
  const rs = owner(base.rs, Math.floor(n / 2));
  const input = { now: NOW, owner: rs, pods };
  if (n <= 10_000) {
    const active = activeOwned(base.rs, pods);
    bench(`rankPods/${label(n)}`, () => rankPods(active, { now: NOW }), { runs: n > 1000 ? 10 : 30 });
    bench(`plan(objects)/${label(n)}`, () => plan(input), { runs: n > 1000 ? 10 : 30 });
    const text = JSON.stringify(input);
    bench(`planJson(text)/${label(n)}`, () => planJson(text), { runs: n > 1000 ? 10 : 30 });
  }
  const store = new Store();
  store.upsertOwner(rs);
  for (const p of pods) store.upsertPod(p);
  bench(`store.planFor/${label(n)}`, () => {
    store.planFor(rs.metadata.namespace, rs.metadata.name, { now: NOW });
  });
  // One upsertPod, on average over every pod of the input (replacing the stored ones).
  if (n === 10_000) {
    for (const [name, pass] of [
      ["store.upsertPod", () => { for (const p of pods) store.upsertPod(p); }],
      ["store.upsertPodJson", (() => { const texts = pods.map((p) => JSON.stringify(p)); return () => { for (const t of texts) store.upsertPodJson(t); }; })()],
    ]) {
      const perPod = `${name}/${label(n)} (per pod)`;
      if (!wanted(perPod)) continue;
      const r = measure(pass, { runs: 10, warmup: 1 });
      const scale = (v) => v / pods.length;
      const one = { ...r, median: scale(r.median), p10: scale(r.p10), p90: scale(r.p90) };
      results[perPod] = one.median;
      log(line(perPod, one));
    }
  }
  store.free();
}

// Filling one store with 50k pods (JSON text), per pod for each 10k: flat when wasm
// memory grows geometrically (wasm/src/heap.rs); with dlmalloc's growth alone the last
// 10k took about a millisecond per pod, each memory growth starting a full GC of the JS
// heap.
if (wanted("store.fill")) {
  const n = 50_000;
  let texts = podsOfSize(base, n).map((p) => JSON.stringify(p));
  const store = new Store();
  store.upsertOwner(owner(base.rs, n / 2));
  const chunk = 10_000;
  for (let from = 0; from < texts.length; from += chunk) {
    const part = texts.slice(from, from + chunk);
    const r = measure(() => { for (const t of part) store.upsertPodJson(t); }, { runs: 1, warmup: 0 });
    const per = r.median / part.length;
    const name = `store.fill/50k (per pod, ${label(from) || 0}→${label(from + part.length)})`;
    results[name] = per;
    log(line(name, { ...r, median: per, p10: per, p90: per }));
  }
  texts = null;
  store.free();
}

if (json) console.log(JSON.stringify(results, null, 2));
