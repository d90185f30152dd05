// Sums a V8 .cpuprofile (`node --cpu-prof`) by where the time went: each sample counts
// for the nearest frame, from the leaf up, whose function or file matches a rule below
// (JSON.parse of a watch line counts as watch decoding, undici's parser as the HTTP
// client, a wasm function as the engine). Used for the operator's breakdown in
// docs/performance.md:
//
//   OPERATOR_NODE_ARGS="--max-semi-space-size=4 --heap-growing-percent=20 --cpu-prof --cpu-prof-dir=/tmp/prof" \
//     EVENT_SECONDS=0 SCALE_DOWN=0 node tools/bench/operator.mjs
//   node tools/bench/profile-categories.mjs "$(ls -S /tmp/prof/*.cpuprofile | head -1)"
//
// A second argument FROM-TO (seconds since the profile's start) keeps the samples in that
// window (e.g. only the creates of tools/bench/realapi.mjs).
//
// The profile samples wall time while the thread runs JavaScript, so its seconds are not
// CPU seconds on a loaded machine: read the shares.
import { readFileSync } from "node:fs";
const prof = JSON.parse(readFileSync(process.argv[2], "utf8"));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const rules = [
  ["GC", (f, u) => f === "(garbage collector)"],
  ["idle", (f, u) => f === "(idle)"],
  ["startup (module loading, compile)", (f, u) => /modules\/esm|modules\/cjs|bootstrap\/realm|compileSourceTextModule|compileFunction/.test(u + " " + f)],
  ["logging (log.js)", (f, u) => u.includes("operator/log.js")],
  ["event recorder", (f, u) => u.includes("operator/recorder.js") || /EventCorrelator|correlat/i.test(f)],
  ["pod trim (transform.js)", (f, u) => u.includes("operator/transform.js")],
  ["engine in wasm", (f, u) => u.startsWith("wasm://")],
  ["wasm boundary (pod-json writers, UTF-8 encode, glue, JSON.parse of results)", (f, u) => /node\/dist\/(pod-json|json-text|api|wasm\/replicore_wasm)\.js/.test(u) || f === "encode" || f === "encodeUtf8String"],
  ["watch decoding (lines, JSON.parse: operator/watch.ts, or client-node's Watch)", (f, u) => u.includes("client-node/dist/watch.js") || u.includes("operator/watch.js") || u.includes("readline")],
  ["informer (client-node ListWatch, operator/informer.ts)", (f, u) => u.includes("client-node/dist/cache.js") || u.includes("operator/informer.js")],
  ["client-node request path (ObjectSerializer, generated API, middleware, config)", (f, u) => u.includes("client-node/dist/")],
  ["HTTP client (undici, sockets, operator/http.ts)", (f, u) => u.includes("undici/") || u.startsWith("node:net") || u.includes("operator/http.js") || f === "writev" || f === "writeLatin1String" || f === "writeUtf8String" || u.includes("stream_base_commons")],
  ["controller, queue, workers, metrics", (f, u) => /operator\/(.+\/)?(controller|queue|worker|engine|ratelimit|metrics|clients|kube|metadata|memory)\.js/.test(u) || u.includes("prom-client")],
  ["web/node streams", (f, u) => u.includes("webstreams") || u.includes("internal/streams")],
];
const byCat = new Map();
let total = 0;
const dt = prof.timeDeltas;
// FROM-TO (seconds since the profile's start): only the samples in that window.
const [from, to] = (process.argv[3] ?? "0-Infinity").split("-").map(Number);
let at = 0;
for (let i = 0; i < prof.samples.length; i++) {
  at += dt[i] ?? 0;
  if (at / 1e6 < from || at / 1e6 >= to) continue;
  let cat = "other (Node internals: promises, timers, events)";
  for (let id = prof.samples[i]; id !== undefined; id = parent.get(id)) {
    const cf = nodes.get(id).callFrame;
    const r = rules.find(([, m]) => m(cf.functionName, cf.url));
    if (r) { cat = r[0]; break; }
  }
  byCat.set(cat, (byCat.get(cat) ?? 0) + (dt[i] ?? 0));
  total += dt[i] ?? 0;
}
const busy = total - (byCat.get("idle") ?? 0);
console.log(`sampled ${(total / 1e6).toFixed(1)} s, not idle ${(busy / 1e6).toFixed(1)} s`);
for (const [c, t] of [...byCat].sort((a, b) => b[1] - a[1])) if (c !== "idle") console.log(`${(t / 1e6).toFixed(2).padStart(6)} s ${((100 * t) / busy).toFixed(1).padStart(5)} %  ${c}`);
