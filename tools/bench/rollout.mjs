// The operator's rollout pace on the dev server beside kube-controller-manager's (issue 27
// point 2): kcm's rollout scenarios, pods ready 2 s after binding (the dev server's kubelet),
// the operator at kcm's client defaults (--kube-api-qps 20 --kube-api-burst 30, per
// controller). Per scenario: the time from the change to a complete rollout (the
// Deployment's status: every replica updated and available, no old one, as `kubectl
// rollout status` waits for), the peak pod count and spec sum, the fewest available pods,
// and the states the ReplicaSets settled in (old+new spec.replicas, each held ≥ 300 ms),
// printed beside kcm's figures on a real API server; then the operator's requests and
// 409 Conflicts by client and write (its metrics). Prints a table, then one JSON object.
//
//   node tools/bench/rollout.mjs                    # every scenario (about 2 minutes)
//   SCENARIOS=a,recreate node tools/bench/rollout.mjs
//
// env: SCENARIOS (all), QPS (20), BURST (30), READY_MS (2000), OPERATOR_ARGS (extra flags).
//
// On a real API server instead (../shared/realapi's plane, by hand; docs/operator.md):
// REALAPI_KUBECONFIG=$RUN/admin.kubeconfig plays the same scenarios there, with a kubelet
// of its own here (each new pod bound to a node, Running and Ready READY_MS after; marked
// for deletion, it is made Succeeded and deleted at once), and CONTROLLER=kcm measures a
// kube-controller-manager already running on that plane (--controllers
// replicaset,deployment) instead of starting the operator.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { DevServer } from "../dist/devserver/server.js";
import { connect } from "./kube-http.mjs";

const QPS = process.env.QPS ?? "20";
const BURST = process.env.BURST ?? "30";
const READY_MS = Number(process.env.READY_MS ?? 2000);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SAMPLE_MS = 25;
const SETTLED_MS = 300;

// kube-controller-manager v1.36.2 on a real kube-apiserver, the same pod model (issue 27).
const KCM = {
  a: "4.3–4.8 s, 10 → 8+5 → 3+10 → 0+10, peak 13, min 8",
  "surge-0": "20.6–20.7 s, one pod per 2 s wave, min 9",
  "unavailable-0": "8.3–8.4 s, min 10",
  recreate: "3.2–3.3 s",
  "scale-up": "6.0–6.5 s, 8:5 → 15:10, peak spec sum 25",
  undo: "4.4–4.5 s",
  history: "4.3–4.8 s each image",
};

function deployment(name, replicas, strategy, image, extra = {}) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, strategy, template: { metadata: { labels }, spec: { containers: [{ name: "main", image }] } }, ...extra },
  };
}

const rolling = (maxSurge, maxUnavailable) => ({ type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable } });

/**
 * The dev server with its kubelet, or a real API server (REALAPI_KUBECONFIG) with the
 * kubelet below: {call, list, get, target (the operator's connection flags), close}.
 */
async function plane() {
  const kubeconfig = process.env.REALAPI_KUBECONFIG;
  if (!kubeconfig) {
    const server = new DevServer({ port: 0, kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: READY_MS, nodes: 3 } });
    const url = await server.listen();
    const call = async (method, path, body, type = "application/json") => {
      const res = await fetch(url + path, { method, headers: body ? { "Content-Type": type } : {}, body: body ? JSON.stringify(body) : undefined });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    return {
      call,
      get: async (resource, ns, name) => server.store.get(resource, ns, name),
      list: async (resource, ns) => server.store.list(resource, ns),
      target: ["--server", url],
      close: () => server.close(),
    };
  }
  const k = await connect(kubeconfig);
  const paths = { "apps/deployments": "/apis/apps/v1/namespaces/NS/deployments", "apps/replicasets": "/apis/apps/v1/namespaces/NS/replicasets", "/pods": "/api/v1/namespaces/NS/pods" };
  // The kubelet: bind each new pod, Running and Ready READY_MS later; a pod marked for
  // deletion is made terminal and deleted at once (its containers "stopped").
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const seenPods = new Set();
  const pods = await k.must("GET", "/api/v1/pods?limit=1");
  const kubelet = k.watch("/api/v1/pods", pods.metadata.resourceVersion, (line) => {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      return;
    }
    const p = e.object;
    if (e.type === "DELETED" || !p?.metadata) return;
    const { namespace, name, uid } = p.metadata;
    const at = `/api/v1/namespaces/${namespace}/pods/${name}`;
    if (p.metadata.deletionTimestamp) {
      // As a kubelet does once the containers stopped: the terminal status, then the
      // delete without grace (the API server deletes a terminal pod at once).
      if (p.status?.phase === "Succeeded") return;
      const stopped = { status: { phase: "Succeeded", conditions: [{ type: "Ready", status: "False", lastTransitionTime: now() }] } };
      void k.call("PATCH", `${at}/status`, stopped, "application/merge-patch+json").then(() => k.call("DELETE", at, { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0, preconditions: { uid } }));
      return;
    }
    if (p.spec?.nodeName || seenPods.has(uid)) return;
    seenPods.add(uid);
    void k.call("POST", `${at}/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { apiVersion: "v1", kind: "Node", name: "node-1" } }).then(() =>
      setTimeout(() => {
        const t = now();
        void k.call(
          "PATCH",
          `${at}/status`,
          {
            status: {
              phase: "Running",
              startTime: t,
              conditions: [
                { type: "PodScheduled", status: "True", lastTransitionTime: t },
                { type: "Initialized", status: "True", lastTransitionTime: t },
                { type: "ContainersReady", status: "True", lastTransitionTime: t },
                { type: "Ready", status: "True", lastTransitionTime: t },
              ],
              containerStatuses: (p.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image, imageID: "", ready: true, restartCount: 0, started: true, state: { running: { startedAt: t } } })),
            },
          },
          "application/merge-patch+json",
        );
      }, READY_MS),
    );
  });
  return {
    call: async (method, path, body, type) => {
      const ns = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
      if (ns && method === "POST") await k.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      return k.must(method, path, body, type);
    },
    get: async (resource, ns, name) => {
      const r = await k.call("GET", `${paths[resource].replace("NS", ns)}/${name}`);
      return r.status === 200 ? r.body : undefined;
    },
    list: async (resource, ns) => (await k.must("GET", paths[resource].replace("NS", ns))).items,
    target: ["--kubeconfig", kubeconfig],
    close: async () => kubelet.close(),
  };
}

async function main() {
  const server = await plane();
  const call = server.call;
  const depPath = (ns, name = "") => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ""}`;
  const probe = createServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const metricsPort = probe.address().port;
  await new Promise((r) => probe.close(r));
  const kcm = process.env.CONTROLLER === "kcm";
  const op = kcm ? undefined : spawn(process.execPath, [cli, "operator", ...server.target, "--no-leader-elect", "--metrics-port", String(metricsPort), "--kube-api-qps", QPS, "--kube-api-burst", BURST, ...(process.env.OPERATOR_ARGS ?? "").split(" ").filter(Boolean)], { stdio: ["ignore", "pipe", "inherit"] });
  // The Deployment syncs' calls, from the operator's log, to tell the Conflicts' sources apart.
  const statusConflicts = { afterOwnWrite: 0, firstWrite: 0 };
  let buf = "";
  op?.stdout.setEncoding("utf8").on("data", (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.includes('"deployment synced"')) continue;
      const calls = JSON.parse(line).calls ?? [];
      const statusWrites = calls.filter((c) => c.startsWith("updateDeploymentStatus "));
      if (!statusWrites.at(-1)?.endsWith(": Conflict")) continue;
      // A Conflict after this sync's own successful status write: getNewReplicaSet's
      // discarded answer (upstream's). On the sync's first status write: the cache had
      // not seen the last write yet.
      if (statusWrites.length > 1) statusConflicts.afterOwnWrite++;
      else statusConflicts.firstWrite++;
    }
  });

  /** The state of namespace `ns` now, from the server. */
  const state = async (ns, name) => {
    const d = await server.get("apps/deployments", ns, name);
    // New: the ReplicaSet of the Deployment's image (each scenario changes only the image).
    const image = (o) => o?.spec?.template?.spec?.containers?.[0]?.image;
    const sets = await server.list("apps/replicasets", ns);
    let newSpec = 0;
    let oldSpec = 0;
    for (const rs of sets) {
      if (image(rs) === image(d)) newSpec += rs.spec?.replicas ?? 0;
      else oldSpec += rs.spec?.replicas ?? 0;
    }
    const pods = (await server.list("/pods", ns)).filter((p) => !p.metadata?.deletionTimestamp);
    const ready = pods.filter((p) => (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")).length;
    const s = d?.status ?? {};
    const r = d?.spec?.replicas ?? 0;
    const complete =
      (s.observedGeneration ?? 0) >= (d?.metadata?.generation ?? 1) && s.updatedReplicas === r && s.replicas === r && s.availableReplicas === r && (s.unavailableReplicas ?? 0) === 0;
    return { newSpec, oldSpec, pods: pods.length, ready, complete, sets: sets.length };
  };

  /** Waits until the rollout of ns/name is complete, sampling; `during(sample)` may act. */
  const measure = async (ns, name, during = () => {}) => {
    const t0 = performance.now();
    let peak = 0;
    let peakSpec = 0;
    let minReady = Infinity;
    const states = [];
    let last;
    for (;;) {
      const s = await state(ns, name);
      const now = performance.now();
      peak = Math.max(peak, s.pods);
      peakSpec = Math.max(peakSpec, s.newSpec + s.oldSpec);
      minReady = Math.min(minReady, s.ready);
      const key = `${s.oldSpec}+${s.newSpec}`;
      if (last?.key !== key) last = { key, since: now, counted: false };
      else if (!last.counted && now - last.since >= SETTLED_MS) {
        last.counted = true;
        if (states.at(-1) !== key) states.push(key);
      }
      await during(s);
      if (s.complete && now - t0 > 100) {
        if (states.at(-1) !== key) states.push(key);
        return { seconds: Math.round((now - t0) / 100) / 10, peakPods: peak, peakSpecSum: peakSpec, minAvailable: minReady, states, replicaSets: s.sets };
      }
      if (now - t0 > 120_000) throw new Error(`${ns}/${name}: not complete after 120 s (${JSON.stringify(s)})`);
      await sleep(SAMPLE_MS);
    }
  };

  /** A Deployment at v1, complete before the scenario starts. */
  const ready = async (ns, d) => {
    await call("POST", depPath(ns), d);
    await measure(ns, d.metadata.name);
    return d;
  };
  const setImage = (ns, name, image) => call("PATCH", depPath(ns, name), { spec: { template: { spec: { containers: [{ name: "main", image }] } } } }, "application/strategic-merge-patch+json");

  const scenarios = {
    a: async () => {
      await ready("a", deployment("web", 10, rolling("25%", "25%"), "web:v1"));
      await setImage("a", "web", "web:v2");
      return measure("a", "web");
    },
    "surge-0": async () => {
      await ready("surge-0", deployment("web", 10, rolling(0, 1), "web:v1"));
      await setImage("surge-0", "web", "web:v2");
      return measure("surge-0", "web");
    },
    "unavailable-0": async () => {
      await ready("unavailable-0", deployment("web", 10, rolling(3, 0), "web:v1"));
      await setImage("unavailable-0", "web", "web:v2");
      return measure("unavailable-0", "web");
    },
    recreate: async () => {
      await ready("recreate", deployment("web", 6, { type: "Recreate" }, "web:v1"));
      await setImage("recreate", "web", "web:v2");
      return measure("recreate", "web");
    },
    "scale-up": async () => {
      await ready("scale-up", deployment("web", 10, rolling("25%", "25%"), "web:v1"));
      await setImage("scale-up", "web", "web:v2");
      let scaled = false;
      // kcm's run: scaled to 20 once the first wave stands at 8 old + 5 new.
      return measure("scale-up", "web", async (s) => {
        if (!scaled && s.oldSpec === 8 && s.newSpec === 5) {
          scaled = true;
          await call("PATCH", `${depPath("scale-up", "web")}/scale`, { spec: { replicas: 20 } }, "application/merge-patch+json");
        }
      });
    },
    undo: async () => {
      await ready("undo", deployment("web", 10, rolling("25%", "25%"), "web:v1"));
      await setImage("undo", "web", "web:v2");
      await measure("undo", "web");
      // kubectl rollout undo: the previous ReplicaSet's template, copied client-side.
      await setImage("undo", "web", "web:v1");
      return measure("undo", "web");
    },
    history: async () => {
      await ready("history", deployment("web", 10, rolling("25%", "25%"), "web:v1", { revisionHistoryLimit: 2 }));
      const each = [];
      for (const v of [2, 3, 4, 5, 6]) {
        await setImage("history", "web", `web:v${v}`);
        each.push(await measure("history", "web"));
      }
      // Cleanup runs once a rollout is complete: give it a moment, then count.
      await sleep(1000);
      return { seconds: each.map((e) => e.seconds), peakPods: Math.max(...each.map((e) => e.peakPods)), minAvailable: Math.min(...each.map((e) => e.minAvailable)), replicaSets: (await state("history", "web")).sets, states: each.at(-1).states };
    },
  };

  const chosen = (process.env.SCENARIOS ?? Object.keys(scenarios).join(",")).split(",").map((s) => s.trim());
  const results = {};
  const api = {};
  try {
    await sleep(1500); // the operator's informers
    for (const name of chosen) {
      if (!scenarios[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(", ")}`);
      results[name] = await scenarios[name]();
      const r = results[name];
      const secs = Array.isArray(r.seconds) ? r.seconds.map((s) => `${s} s`).join(", ") : `${r.seconds} s`;
      const extra = name === "history" ? `, ${r.replicaSets} ReplicaSets left` : `, states ${r.states.join(" → ")}`;
      console.log(`${name.padEnd(14)} ${secs}, peak ${r.peakPods} pods${r.peakSpecSum !== undefined ? ` (spec sum ${r.peakSpecSum})` : ""}, min ${r.minAvailable} available${extra}\n${"".padEnd(14)} kcm: ${KCM[name]}`);
    }
    // What the operator's clients sent, and which writes answered 409, over all scenarios.
    const text = kcm ? "" : await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const m of text.matchAll(/^replicore_api_(requests|conflicts)_total\{controller="([^"]+)",([^}]*)\} (\d+)$/gm)) {
      const [, kind, controller, labels, n] = m;
      const by = ((api[controller] ??= {})[kind] ??= {});
      const label = kind === "conflicts" ? /write="([^"]+)"/.exec(labels)[1] : /method="([^"]+)"/.exec(labels)[1];
      by[label] = (by[label] ?? 0) + Number(n);
    }
    for (const [controller, { requests = {}, conflicts = {} }] of Object.entries(api)) {
      const list = (o) => Object.entries(o).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
      console.log(`${controller.padEnd(22)} requests: ${list(requests)}; 409 Conflicts: ${list(conflicts)}`);
    }
    console.log(
      `Deployment status 409s: ${statusConflicts.afterOwnWrite} after the sync's own status write (getNewReplicaSet discards its answer, as upstream), ${statusConflicts.firstWrite} on a sync's first status write (the cache behind the server)`,
    );
  } finally {
    op?.kill("SIGTERM");
    await server.close();
  }
  console.log(JSON.stringify({ qps: Number(QPS), burst: Number(BURST), readyMs: READY_MS, results, api, statusConflicts }));
  setTimeout(() => process.exit(0), 300).unref();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
