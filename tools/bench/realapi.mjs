// The ReplicaSet controller's cost on a real kube-apiserver (issue 27 point 5): OWNERS
// ReplicaSets scaled from 0 to PODS pods in all, then down to a fifth, on a plane started
// by ../shared/realapi/start.sh (see tools/bench/realapi.sh, which starts a fresh plane per
// run and calls this script). The controller is either Replicore's operator (started here,
// `--controllers replicaset`, the shipped Node flags) or kube-controller-manager (already
// started by the wrapper; its pid in KCM_PID). Prints one JSON object: time to PODS pods,
// creates/s, the controller's CPU while creating, the writes the API server answered
// meanwhile (by verb and resource), its peak RSS, its RSS after the
// scale-down, and the Events written.
//
//   KUBECONFIG=$RUN/admin.kubeconfig CONTROLLER=operator node tools/bench/realapi.mjs
//   KUBECONFIG=$RUN/admin.kubeconfig CONTROLLER=kcm KCM_PID=$(cat $RUN/kcm.pid) node tools/bench/realapi.mjs
//
// env: PODS (10000), OWNERS (20), QPS (1000, the controller's --kube-api-qps and -burst;
// the wrapper gives kube-controller-manager the same), SETTLE_SECONDS (10: the wait
// after the scale-down before its RSS is read), TIMEOUT_SECONDS (600), OPERATOR_NODE_ARGS
// (Node flags of the operator; default the shipped ones, "none" for Node's defaults),
// OPERATOR_ENV ("none": without the manifest's environment, e.g. MALLOC_MMAP_THRESHOLD_),
// OPERATOR_CLI (another build's dist/cli.js), CPU_PROF=DIR (the operator runs under
// --cpu-prof, its profile written to DIR), OPERATOR_OUT=FILE (the operator's standard output,
// e.g. with OPERATOR_NODE_ARGS="... --trace-gc"), EVENTS_OUT=FILE (the Events written, with their
// reasons, counts and timestamps, as JSON).
import { spawn } from "node:child_process";
import { openSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { operatorEnv, shippedNodeCommand } from "../test/operator-helpers.mjs";
import { connect } from "./kube-http.mjs";
import { benchReplicaSet, cpuSeconds, freePort, mib, ownerNames, rssBytes, sleep, waitFor as waitUntil } from "./proc.mjs";

const env = (k, d) => (process.env[k] === undefined || process.env[k] === "" ? d : Number(process.env[k]));
const PODS = env("PODS", 10000);
const OWNERS = env("OWNERS", 20);
const QPS = env("QPS", 1000);
const SETTLE_MS = env("SETTLE_SECONDS", 10) * 1000;
const TIMEOUT_MS = env("TIMEOUT_SECONDS", 600) * 1000;
const CONTROLLER = process.env.CONTROLLER ?? "operator";
const KUBECONFIG = process.env.KUBECONFIG;
if (!KUBECONFIG) throw new Error("KUBECONFIG: the plane's admin.kubeconfig");
if (CONTROLLER !== "operator" && CONTROLLER !== "kcm") throw new Error(`CONTROLLER ${CONTROLLER}: operator or kcm`);
const cli = process.env.OPERATOR_CLI ?? fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const NS = process.env.NS ?? "bench";


const waitFor = (fn, what) => waitUntil(fn, what, TIMEOUT_MS);

// -- the plane, through the admin kubeconfig --------------------------------------------------
const { call, must, watch } = await connect(KUBECONFIG);

/** Counts the namespace's pods from a watch (events told apart by their type only). */
function watchPods(resourceVersion) {
  const state = { count: 0, lastAdded: 0, errors: 0 };
  const w = watch(`/api/v1/namespaces/${NS}/pods`, resourceVersion, (line) => {
    if (line.startsWith('{"type":"ADDED"')) {
      state.count++;
      state.lastAdded = performance.now();
    } else if (line.startsWith('{"type":"DELETED"')) state.count--;
    else if (line.startsWith('{"type":"ERROR"')) state.errors++;
  });
  return Object.assign(state, { close: () => w.close(), reopened: () => w.reopened });
}

/** How many Events the namespace holds, their reasons, how many combine similar ones, and the occurrences they count. */
async function events() {
  const reasons = {};
  let total = 0;
  let combined = 0;
  let counted = 0;
  let cont = "";
  const all = [];
  do {
    const page = await must("GET", `/api/v1/namespaces/${NS}/events?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`);
    for (const e of page.items) {
      total++;
      reasons[e.reason] = (reasons[e.reason] ?? 0) + 1;
      if (e.message?.startsWith("(combined from similar events)")) combined++;
      counted += e.count ?? 1;
      if (process.env.EVENTS_OUT) all.push({ object: e.involvedObject?.name, reason: e.reason, count: e.count, first: e.firstTimestamp, last: e.lastTimestamp, created: e.metadata?.creationTimestamp, message: e.message });
    }
    cont = page.metadata.continue;
  } while (cont);
  if (process.env.EVENTS_OUT) writeFileSync(process.env.EVENTS_OUT, JSON.stringify({ phases, events: all }, null, 1));
  return { total, reasons, combined, counted };
}

const ns = await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
if (ns.status >= 300 && ns.status !== 409) throw new Error(`namespace ${NS}: ${ns.status}`);
const names = ownerNames(OWNERS);
const rsPath = (name = "") => `/apis/apps/v1/namespaces/${NS}/replicasets${name ? `/${name}` : ""}`;
for (const name of names) await must("POST", rsPath(), benchReplicaSet(name));

// -- the controller --------------------------------------------------------------------------
let pid;
let op;
let opUrl;
let nodeFlags = null;
// The operator's environment: the manifest's (MALLOC_MMAP_THRESHOLD_) over this process's.
const opEnv = operatorEnv();
if (CONTROLLER === "kcm") {
  pid = Number(process.env.KCM_PID);
  if (!pid) throw new Error("KCM_PID: kube-controller-manager's pid");
} else {
  const port = await freePort();
  const shipped = shippedNodeCommand()
    .filter((item) => item.startsWith("--"))
    .join(" ");
  nodeFlags = process.env.OPERATOR_NODE_ARGS === "none" ? "" : (process.env.OPERATOR_NODE_ARGS ?? shipped);
  const flags = nodeFlags.split(" ").filter((a) => a !== "");
  if (process.env.CPU_PROF) flags.push("--cpu-prof", `--cpu-prof-dir=${process.env.CPU_PROF}`);
  // --expose-gc: the operator's /debug/gc collects, then reports the live heap (read last).
  flags.push("--expose-gc");
  const args = [cli, "operator", "--kubeconfig", KUBECONFIG, "--controllers", "replicaset", "--no-leader-elect", "--metrics-port", String(port), "--log-level", "warn", "--kube-api-qps", String(QPS), "--kube-api-burst", String(QPS)];
  const out = process.env.OPERATOR_OUT ? openSync(process.env.OPERATOR_OUT, "w") : "ignore";
  op = spawn(process.execPath, [...flags, ...args], { stdio: ["ignore", out, "inherit"], env: opEnv });
  pid = op.pid;
  opUrl = `http://127.0.0.1:${port}`;
  await waitFor(() => fetch(`${opUrl}/readyz`).then((r) => r.ok, () => false), "the operator to be ready");
}
await sleep(2000);
const idle = rssBytes(pid);
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 100);

// -- 0 -> PODS ---------------------------------------------------------------------------------
const list = await must("GET", `/api/v1/namespaces/${NS}/pods?limit=1`);
const pods = watchPods(list.metadata.resourceVersion);
const per = Math.floor(PODS / OWNERS);
const scale = (n, replicas) => must("PATCH", `${rsPath(n)}/scale`, { spec: { replicas } }, "application/merge-patch+json");
// The API server's own count of the writes it answered, by verb and resource (its
// `apiserver_request_total`): read before and after the creation, the difference is
// what the controller (and the 20 scale patches above) spent tokens on.
const writesSoFar = async () => {
  const r = await call("GET", "/metrics");
  const text = typeof r.body === "string" ? r.body : "";
  const counts = {};
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const label = (k) => new RegExp(`(?:^|,)${k}="([^"]*)"`).exec(m[1])?.[1] ?? "";
    const verb = label("verb");
    if (!["POST", "PUT", "PATCH", "DELETE"].includes(verb)) continue;
    const sub = label("subresource");
    const key = `${verb} ${label("resource")}${sub ? `/${sub}` : ""}`;
    counts[key] = (counts[key] ?? 0) + Number(m[2]);
  }
  return counts;
};
const writes0 = await writesSoFar();
const cpu0 = cpuSeconds(pid);
const t0 = performance.now();
const phases = { createFrom: new Date().toISOString() };
await Promise.all(names.map((n, i) => scale(n, per + (i < PODS - per * OWNERS ? 1 : 0))));
await waitFor(() => pods.count >= PODS, () => `${PODS} pods (the watch saw ${pods.count}; reopened ${pods.reopened()}, errors ${pods.errors})`);
const createSeconds = (pods.lastAdded - t0) / 1000;
const createCpu = cpuSeconds(pid) - cpu0;
const writes1 = await writesSoFar();
const writesWhileCreating = Object.fromEntries(
  Object.entries(writes1)
    .map(([k, v]) => [k, v - (writes0[k] ?? 0)])
    .filter(([, v]) => v > 0)
    .sort(),
);
const statusDone = async () => {
  const rs = await must("GET", rsPath());
  return rs.items.every((o) => (o.status?.replicas ?? 0) === o.spec.replicas && o.status?.observedGeneration === o.metadata.generation);
};
await waitFor(statusDone, "every ReplicaSet's status");
const settledSeconds = (performance.now() - t0) / 1000;
const settledCpu = cpuSeconds(pid) - cpu0;
const rssAfterCreate = rssBytes(pid);

// -- PODS -> PODS / 5 --------------------------------------------------------------------------
const keep = Math.floor(PODS / 5);
const perDown = Math.floor(keep / OWNERS);
const d0 = performance.now();
phases.deleteFrom = new Date().toISOString();
const dcpu0 = cpuSeconds(pid);
await Promise.all(names.map((n) => scale(n, perDown)));
await waitFor(() => pods.count <= perDown * OWNERS, () => `${perDown * OWNERS} pods (the watch saw ${pods.count}; reopened ${pods.reopened()}, errors ${pods.errors})`);
const deleteSeconds = (performance.now() - d0) / 1000;
const deleteCpu = cpuSeconds(pid) - dcpu0;
await waitFor(statusDone, "every ReplicaSet's status after the scale-down");
await sleep(SETTLE_MS);
const rssAfterDown = rssBytes(pid);
clearInterval(sampler);
pods.close();
let dropped = null;
let collected = null;
if (op) {
  const r = await fetch(`${opUrl}/debug/gc`);
  if (r.ok) {
    const m = await r.json();
    await sleep(1000);
    collected = { rssMiB: mib(rssBytes(pid)), heapUsedMiB: mib(m.heapUsed), heapTotalMiB: mib(m.heapTotal), externalMiB: mib(m.external), wasmMemoryMiB: mib(m.wasmMemory) };
  }
  const text = await (await fetch(`${opUrl}/metrics`)).text();
  dropped = Number(/^replicore_events_dropped_total(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? 0);
}
const ev = await events();

console.log(
  JSON.stringify(
    {
      controller: CONTROLLER,
      pods: PODS,
      owners: OWNERS,
      qps: QPS,
      nodeFlags,
      mallocMmapThreshold: CONTROLLER === "kcm" ? undefined : (opEnv.MALLOC_MMAP_THRESHOLD_ ?? null),
      createSeconds: Number(createSeconds.toFixed(1)),
      createsPerSecond: Math.round(PODS / createSeconds),
      cpuSecondsWhileCreating: Number(createCpu.toFixed(1)),
      writesWhileCreating,
      cpuMsPerCreatedPod: Number(((createCpu / PODS) * 1000).toFixed(3)),
      statusSettledSeconds: Number(settledSeconds.toFixed(1)),
      cpuSecondsToSettled: Number(settledCpu.toFixed(1)),
      deletesPerSecond: Math.round((PODS - perDown * OWNERS) / deleteSeconds),
      cpuSecondsWhileDeleting: Number(deleteCpu.toFixed(1)),
      rssMiB: { idle: mib(idle), peak: mib(peak), afterCreate: mib(rssAfterCreate), afterScaleDownToAFifth: mib(rssAfterDown) },
      events: ev.total,
      eventReasons: ev.reasons,
      eventsCombined: ev.combined,
      eventOccurrences: ev.counted,
      eventsDropped: dropped,
      afterScaleDownCollected: collected,
      watchReopened: pods.reopened(),
    },
    null,
    1,
  ),
);
if (op) {
  op.kill("SIGTERM");
  await new Promise((r) => op.on("close", r));
}
