// The operator's throughput and memory on the dev server (issue 18 point 6), beside
// kube-controller-manager's figures: OWNERS ReplicaSets scaled from 0 to PODS pods in all
// (creates/s, the operator's RSS), then POD_EVENTS_PER_SECOND readiness flips for
// EVENT_SECONDS (sync latency p50/p99 from the operator's histogram), then scaled down to
// a fifth (the RSS that stays). Prints one JSON object.
//
//   npm --workspace tools run bench:operator                      # 10k pods, QPS 1000
//   PODS=50000 node tools/bench/operator.mjs                       # manual, larger
//   QPS=20 BURST=30 PODS=2000 node tools/bench/operator.mjs        # kcm's default QPS
//
// env: PODS (10000), OWNERS (100), QPS (1000), BURST (QPS), WORKERS (5, kcm's
// --concurrent-replicaset-syncs), POD_EVENTS_PER_SECOND (100), EVENT_SECONDS (20),
// TIMEOUT_SECONDS (600), SCALE_DOWN (1; 0 skips the scale-down to a fifth), LOG_LEVEL (warn; the
// operator's --log-level, its lines go to /dev/null), NO_TRANSFORM=1 (keep whole pods in the informer, for comparison),
// OPERATOR_NODE_ARGS (Node flags of the operator; default: the `node` command's flags in
// tools/deploy/deployment.yaml, the shipped V8 heap sizing; "none" for Node's defaults),
// OPERATOR_ENV ("none": without the manifest's environment, e.g. MALLOC_MMAP_THRESHOLD_).
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DevServer } from "../dist/devserver/server.js";
import { operatorEnv, shippedNodeCommand } from "../test/operator-helpers.mjs";
import { benchReplicaSet, cpuSeconds, freePort, mib, ownerNames, rssBytes, sleep, waitFor as waitUntil } from "./proc.mjs";

const env = (k, d) => (process.env[k] === undefined || process.env[k] === "" ? d : Number(process.env[k]));
const PODS = env("PODS", 10000);
const OWNERS = env("OWNERS", 100);
const QPS = process.env.QPS === "none" ? "none" : env("QPS", 1000);
const BURST = env("BURST", QPS === "none" ? 0 : Math.max(1, QPS));
const WORKERS = env("WORKERS", 5);
const EVENTS_PER_S = env("POD_EVENTS_PER_SECOND", 100);
const EVENT_SECONDS = env("EVENT_SECONDS", 20);
const TIMEOUT_MS = env("TIMEOUT_SECONDS", 600) * 1000;
// OPERATOR_CLI: another build's dist/cli.js (e.g. an older commit's, for a before/after;
// with QPS=none for a build without --kube-api-qps).
const cli = process.env.OPERATOR_CLI ?? fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const NS = "bench";


const waitFor = (fn, what) => waitUntil(fn, what, TIMEOUT_MS);

/** The operator's metrics as {name{labels}: value}. */
async function metrics(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = {};
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line === "") continue;
    const i = line.lastIndexOf(" ");
    out[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return out;
}

/** The sync-duration histogram's buckets (le -> cumulative count) of result="ok". */
function buckets(m) {
  const out = [];
  for (const [k, v] of Object.entries(m)) {
    const x = /^replicore_sync_duration_seconds_bucket\{le="([^"]+)",result="ok"\}$/.exec(k);
    if (x) out.push([x[1] === "+Inf" ? Infinity : Number(x[1]), v]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** A quantile of the observations between two histogram snapshots (linear within a bucket), ms. */
function quantile(before, after, q) {
  const diff = after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)]);
  const total = diff[diff.length - 1][1];
  if (total === 0) return null;
  const want = q * total;
  let lo = 0;
  let prev = 0;
  for (const [le, n] of diff) {
    if (n >= want) {
      if (le === Infinity) return lo * 1000;
      return (lo + ((want - prev) / Math.max(1, n - prev)) * (le - lo)) * 1000;
    }
    lo = le;
    prev = n;
  }
  return null;
}

const dev = new DevServer({ port: 0, watchWindow: 100000, kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 100 } });
const url = await dev.listen();
let podCount = 0;
let lastAdded = 0;
dev.store.watchers.add({
  resource: "/pods",
  send: (e) => {
    if (e.type === "ADDED") {
      podCount++;
      lastAdded = performance.now();
    } else if (e.type === "DELETED") podCount--;
  },
  close: () => {},
});
const names = ownerNames(OWNERS);
const rsPath = (name = "") => `/apis/apps/v1/namespaces/${NS}/replicasets${name ? `/${name}` : ""}`;
const call = (method, path, body, type = "application/json") =>
  fetch(url + path, { method, headers: { "Content-Type": type }, body: JSON.stringify(body) }).then((r) => {
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status}`);
    return r.json();
  });
for (const name of names) await call("POST", rsPath(), benchReplicaSet(name));

const port = await freePort();
const args = [cli, "operator", "--server", url, "--no-leader-elect", "--metrics-port", String(port), "--metrics-host", "127.0.0.1", "--log-level", process.env.LOG_LEVEL ?? "warn"];
if (QPS !== "none") args.push("--kube-api-qps", String(QPS), "--kube-api-burst", String(BURST));
args.push("--workers", String(WORKERS));
// The shipped Node flags: the flags of the container's `node` command in
// tools/deploy/deployment.yaml.
const shippedFlags = shippedNodeCommand()
  .filter((item) => item.startsWith("--"))
  .join(" ");
const flagText = process.env.OPERATOR_NODE_ARGS === "none" ? "" : (process.env.OPERATOR_NODE_ARGS ?? shippedFlags);
const flags = flagText.split(" ").filter((a) => a !== "");
// The operator's environment: the manifest's (MALLOC_MMAP_THRESHOLD_) over this process's.
const opEnv = operatorEnv(process.env.NO_TRANSFORM ? { REPLICORE_NO_POD_TRANSFORM: "1" } : {});
// Where the idle RSS comes from: Node alone, and Node with the operator's modules
// imported (client-node, the engine's wasm), with the same flags, before any object.
const rssOf = (code) => Number(execFileSync(process.execPath, [...flags, "--input-type=module", "-e", `${code}; console.log(process.memoryUsage().rss)`], { encoding: "utf8", env: opEnv }).trim());
const bareNodeRss = rssOf("");
const importedRss = rssOf(`await import(${JSON.stringify(new URL("../dist/operator/command.js", import.meta.url).href)})`);
// --expose-gc: the operator's /debug/gc collects, then reports the live heap.
const nodeArgs = ["--expose-gc", ...flags];
const live = async () => {
  const r = await fetch(`${opUrl}/debug/gc`);
  if (!r.ok) return null;
  const m = await r.json();
  return { rssMiB: mib(m.rss), heapUsedMiB: mib(m.heapUsed), externalMiB: mib(m.external), wasmMemoryMiB: mib(m.wasmMemory) };
};
const op = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ["ignore", "ignore", "inherit"], env: opEnv });
const opUrl = `http://127.0.0.1:${port}`;
await waitFor(() => fetch(`${opUrl}/readyz`).then((r) => r.ok, () => false), "the operator to be ready");
await sleep(500);
const idle = rssBytes(op.pid);

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(op.pid))), 100);

// -- 0 -> PODS -------------------------------------------------------------------------------
const per = Math.floor(PODS / OWNERS);
const cpu0 = cpuSeconds(op.pid);
const serverCpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(names.map((n, i) => call("PATCH", `${rsPath(n)}/scale`, { spec: { replicas: per + (i < PODS - per * OWNERS ? 1 : 0) } }, "application/merge-patch+json")));
await waitFor(() => podCount >= PODS, `${PODS} pods`);
const createSeconds = (lastAdded - t0) / 1000;
const createCpuSeconds = cpuSeconds(op.pid) - cpu0;
const serverCpu = process.cpuUsage(serverCpu0);
const readyAll = () =>
  names.every((n) => {
    const o = dev.store.get("apps/replicasets", NS, n);
    return (o.status?.readyReplicas ?? 0) === o.spec.replicas && o.status?.observedGeneration === o.metadata.generation;
  });
await waitFor(readyAll, "every ReplicaSet's status ready");
const readySeconds = (performance.now() - t0) / 1000;
await sleep(2000);
const afterCreate = await metrics(opUrl);
const rssAfterCreate = rssBytes(op.pid);
const liveAfterCreate = await live();

// -- POD_EVENTS_PER_SECOND readiness flips ----------------------------------------------------
const podsNow = dev.store.list("/pods");
const before = buckets(await metrics(opUrl));
const syncsBefore = Object.entries(afterCreate).filter(([k]) => k.startsWith("replicore_sync_duration_seconds_count")).reduce((n, [, v]) => n + v, 0);
let flips = 0;
const e0 = performance.now();
const flip = (pod) => {
  const p = structuredClone(pod);
  const ready = (p.status?.conditions ?? []).find((c) => c.type === "Ready");
  if (!ready) return;
  ready.status = ready.status === "True" ? "False" : "True";
  ready.lastTransitionTime = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  dev.store.put("/pods", p, "MODIFIED");
  flips++;
};
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
while (performance.now() - e0 < EVENT_SECONDS * 1000) {
  const due = Math.floor(((performance.now() - e0) / 1000) * EVENTS_PER_S);
  while (flips < due) {
    const p = podsNow[Math.floor(rand() * podsNow.length)];
    const current = dev.store.get("/pods", p.metadata.namespace, p.metadata.name);
    if (current) flip(current);
    else flips++;
  }
  await sleep(10);
}
const eventSeconds = (performance.now() - e0) / 1000;
await sleep(1000);
const afterEvents = await metrics(opUrl);
const after = buckets(afterEvents);
const syncsAfter = Object.entries(afterEvents).filter(([k]) => k.startsWith("replicore_sync_duration_seconds_count")).reduce((n, [, v]) => n + v, 0);

// -- scale down to a fifth (SCALE_DOWN=0 skips it) ----------------------------------------------
const keep = Math.floor(PODS / 5);
const perDown = Math.floor(keep / OWNERS);
const scaleDown = env("SCALE_DOWN", 1) !== 0;
let deleteSeconds = null;
if (scaleDown) {
  const d0 = performance.now();
  await Promise.all(names.map((n) => call("PATCH", `${rsPath(n)}/scale`, { spec: { replicas: perDown } }, "application/merge-patch+json")));
  await waitFor(() => podCount <= perDown * OWNERS, `${perDown * OWNERS} pods`);
  deleteSeconds = (performance.now() - d0) / 1000;
  await sleep(5000);
}
const afterDown = scaleDown ? await metrics(opUrl) : {};
const rssAfterDown = scaleDown ? rssBytes(op.pid) : 0;
const liveAfterDown = scaleDown ? await live() : null;
clearInterval(sampler);

const result = {
  pods: PODS,
  owners: OWNERS,
  qps: QPS,
  burst: BURST,
  workers: WORKERS,
  podTransform: !process.env.NO_TRANSFORM,
  nodeFlags: flagText,
  mallocMmapThreshold: opEnv.MALLOC_MMAP_THRESHOLD_ ?? null,
  createSeconds: Number(createSeconds.toFixed(1)),
  createsPerSecond: Math.round(PODS / createSeconds),
  operatorCpuSecondsWhileCreating: Number(createCpuSeconds.toFixed(1)),
  devServerCpuSecondsWhileCreating: Number(((serverCpu.user + serverCpu.system) / 1e6).toFixed(1)),
  allReadySeconds: Number(readySeconds.toFixed(1)),
  rssMiB: { bareNode: mib(bareNodeRss), modulesImported: mib(importedRss), idle: mib(idle), peak: mib(peak), afterCreate: mib(rssAfterCreate), afterScaleDownToAFifth: mib(rssAfterDown) },
  // kube-controller-manager: 146 MB at 10,000 pods, 14.6 kB per pod all told.
  rssPerStoredPodKB: { peak: Number((peak / PODS / 1000).toFixed(1)), aboveIdle: Number(((rssAfterCreate - idle) / PODS / 1000).toFixed(1)) },
  afterCreate: {
    heapUsedMiB: mib(afterCreate["nodejs_heap_size_used_bytes"]),
    heapTotalMiB: mib(afterCreate["nodejs_heap_size_total_bytes"]),
    externalMiB: mib(afterCreate["nodejs_external_memory_bytes"]),
    wasmMemoryMiB: mib(afterCreate["replicore_wasm_memory_bytes"]),
    cachedPods: afterCreate['replicore_informer_objects{informer="Pod"}'],
  },
  afterCreateCollected: liveAfterCreate,
  afterScaleDownCollected: liveAfterDown,
  deletesPerSecond: deleteSeconds === null ? null : Math.round((PODS - perDown * OWNERS) / deleteSeconds),
  failedDeletes: afterDown['replicore_pod_deletes_total{result="error"}'] ?? null,
  afterScaleDown: {
    heapUsedMiB: mib(afterDown["nodejs_heap_size_used_bytes"]),
    wasmMemoryMiB: mib(afterDown["replicore_wasm_memory_bytes"]),
    cachedPods: afterDown['replicore_informer_objects{informer="Pod"}'],
  },
  podEvents: { perSecond: Math.round(flips / eventSeconds), seconds: Number(eventSeconds.toFixed(1)), syncs: syncsAfter - syncsBefore },
  syncLatencyMs: { p50: Number(quantile(before, after, 0.5)?.toFixed(2)), p99: Number(quantile(before, after, 0.99)?.toFixed(2)) },
  server: { podCreates: dev.stats.podCreates },
};
console.log(JSON.stringify(result, null, 1));
op.kill("SIGTERM");
await new Promise((r) => op.on("close", r));
await dev.close();
