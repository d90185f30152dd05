// Shared by the operator and dev-server tests: an in-process dev server, operator
// processes (dist/cli.js operator) with their JSON logs, a small API client, polling.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DevServer } from "../dist/devserver/server.js";
import { cli, controllerOf, repo } from "./helpers.mjs";

export { repo, cli, controllerOf };

/** Starts a dev server in this process: {server, url, api, close}. */
export async function devServer(options = {}) {
  const server = new DevServer({ port: 0, ...options });
  const url = await server.listen();
  const api = client(url);
  return { server, url, api, close: () => server.close() };
}

/** A minimal JSON client: api.get(path), api.post(path, body), api.patch(path, body, type), … */
export function client(url) {
  const call = async (method, path, body, contentType = "application/json") => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  };
  const ok = async (method, path, body, contentType) => {
    const r = await call(method, path, body, contentType);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return {
    call,
    get: (p) => ok("GET", p),
    post: (p, b) => ok("POST", p, b),
    put: (p, b) => ok("PUT", p, b),
    patch: (p, b, type = "application/merge-patch+json") => ok("PATCH", p, b, type),
    del: (p, b) => ok("DELETE", p, b),
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value (returned), or fails after `timeoutMs`. */
export async function waitFor(fn, what, timeoutMs = 30000, everyMs = 50) {
  const until = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await sleep(everyMs);
  }
}

/**
 * Short lease timings, for a test that waits for a dead operator's lease to expire. The
 * others keep client-go's defaults (15 s / 10 s / 2 s): a single operator never waits for
 * them, and the long renew deadline rides out a loaded machine.
 */
export const FAST_LEASE = ["--lease-duration", "6s", "--renew-deadline", "5s", "--retry-period", "1s"];

/**
 * Spawns `replicore operator --server URL --metrics-port 0 --metrics-host 127.0.0.1 …ARGS`
 * (no --server when ARGS has --kubeconfig; no --metrics-host when `metricsHost` is null;
 * `--kube-api-qps 0`, no client-side rate limit, unless ARGS sets one: the tests are about
 * the controller, not about waiting 50 ms per request); collects its JSON log lines.
 */
export function operator(url, args = [], { lease = [], name = "op", metricsHost = "127.0.0.1" } = {}) {
  const connect = args.includes("--kubeconfig") ? [] : ["--server", url];
  const host = metricsHost === null ? [] : ["--metrics-host", metricsHost];
  const qps = args.includes("--kube-api-qps") ? [] : ["--kube-api-qps", "0"];
  const child = spawn(process.execPath, [cli, "operator", ...connect, "--metrics-port", "0", ...host, ...qps, ...lease, ...args], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs = [];
  const raw = [];
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      raw.push(line);
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: "<not json>", line });
      }
    }
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (c) => (stderr += c));
  // "close" (not "exit"): every line of its output has been read by then.
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const op = {
    name,
    child,
    logs,
    raw,
    exited,
    get stderr() {
      return stderr;
    },
    /** Log lines with this msg (and matching fields). */
    find: (msg, fields = {}) => logs.filter((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v)),
    waitLog: (msg, fields = {}, timeoutMs = 30000) =>
      waitFor(
        () => op.find(msg, fields)[0] ?? (child.exitCode !== null ? Promise.reject(new Error(`operator ${name} exited: ${stderr}${raw.slice(-5).join("\n")}`)) : undefined),
        `operator ${name} to log ${msg} ${JSON.stringify(fields)}`,
        timeoutMs,
      ),
    metricsUrl: () => op.find("serving metrics and health")[0]?.url,
    kill: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    /** The operator's own syncs of `key` ("synced" log lines). */
    syncs: (key) => logs.filter((l) => l.msg === "synced" && (key === undefined || l.key === key)),
    /** The last log lines, for a failure message. */
    tail: (n = 12) => raw.slice(-n).join("\n"),
  };
  return op;
}

/**
 * Spawns `replicore dev-server --port 0 …ARGS` in its own process (for kubectl, which
 * runs synchronously): resolves with {child, url} once it has printed its address.
 */
export async function devServerProcess(args = []) {
  const child = spawn(process.execPath, [cli, "dev-server", "--port", "0", ...args], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8");
    child.stdout.once("data", (line) => resolve(JSON.parse(line).url));
    child.once("exit", (code) => reject(new Error(`dev-server exited (${code})`)));
  });
  return { child, url };
}

/** Kills every operator still running (test cleanup). */
export async function killAll(ops) {
  await Promise.all(ops.map((o) => o.kill("SIGKILL")));
}

// -- objects -------------------------------------------------------------------------------

export function replicaSet(name, replicas, { labels = { app: name }, minReadySeconds, apiVersion = "apps/v1", kind = "ReplicaSet" } = {}) {
  return {
    apiVersion,
    kind,
    metadata: { name, labels },
    spec: {
      replicas,
      ...(minReadySeconds !== undefined ? { minReadySeconds } : {}),
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "main", image: "nginx" }] } },
    },
  };
}

/** A Deployment of `replicas` pods running `image`, with a `strategy` and container `resources` if given. */
export function deployment(name, replicas, { image = "nginx", strategy, resources } = {}) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      ...(strategy ? { strategy } : {}),
      template: { metadata: { labels }, spec: { containers: [{ name: "main", image, ...(resources ? { resources } : {}) }] } },
    },
  };
}

export const rsPath = (ns, name = "") => `/apis/apps/v1/namespaces/${ns}/replicasets${name ? `/${name}` : ""}`;
export const poolPath = (ns, name = "") => `/apis/replicore.dev/v1alpha1/namespaces/${ns}/replicapools${name ? `/${name}` : ""}`;
export const podsPath = (ns, name = "") => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ""}`;

/** The pods of namespace `ns` (from the server). */
export async function pods(api, ns, labelSelector) {
  const q = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : "";
  return (await api.get(podsPath(ns) + q)).items;
}

/** Where Debian's kubectl 1.20 is: $KUBECTL, the copy scripts/setup.sh unpacks, or PATH. */
export function kubectlPath() {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const unpacked = `${repo}target/kubernetes-client/usr/bin/kubectl`;
  if (existsSync(unpacked)) return unpacked;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(`${dir}/kubectl`)) return `${dir}/kubectl`;
  }
  return undefined;
}

/** A Deployment `web` of 2 pods (`app: web`) requesting 200m of CPU and 64Mi each, as kubectl applies it. */
export const WEB_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: nginx
        resources:
          requests:
            cpu: 200m
            memory: 64Mi
`;

/**
 * The minor version of a kubectl client (20 for Debian's 1.20). kubectl before 1.23
 * describes an HPA through autoscaling/v2beta2, which a v1.36 API server (and the dev
 * server) no longer serves, so it falls back to v1: the conditions then show only in
 * the `autoscaling.alpha.kubernetes.io/conditions` annotation.
 */
export function kubectlMinor(kubectl) {
  const r = spawnSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 30000 });
  const minor = Number.parseInt(JSON.parse(r.stdout || "{}").clientVersion?.minor ?? "", 10);
  return Number.isFinite(minor) ? minor : 0;
}

/**
 * kubectl with the kubeconfig `dir/kubeconfig` (and its cache in `dir`): `k(...args)`
 * returns the process's result, `ok(...args)` asserts exit 0 and returns stdout.
 * Synchronous: for a dev server in another process.
 */
export function kubectlIn(kubectl, dir, timeoutMs) {
  const k = (...args) => {
    const r = spawnSync(kubectl, ["--kubeconfig", join(dir, "kubeconfig"), "--cache-dir", join(dir, "cache"), ...args], { encoding: "utf8", timeout: timeoutMs });
    if (r.error) throw r.error;
    return r;
  };
  const ok = (...args) => {
    const r = k(...args);
    assert.equal(r.status, 0, `kubectl ${args.join(" ")}:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  return { k, ok };
}

/**
 * The container's `node` command in tools/deploy/deployment.yaml, item by item:
 * `["node", ...flags, "/usr/local/bin/replicore"]` (empty when the manifest has none).
 */
export function shippedNodeCommand() {
  const deployment = readFileSync(join(repo, "tools/deploy/deployment.yaml"), "utf8");
  const command = /command:\n((?:[ \t]*(?:#.*|- .*)\n)+)/.exec(deployment)?.[1] ?? "";
  return command
    .split("\n")
    .map((line) => /^\s*- (\S+)/.exec(line)?.[1])
    .filter((item) => item !== undefined);
}

/**
 * The container's plain environment variables in tools/deploy/deployment.yaml (those with
 * a `value:`, not a `valueFrom:`), as an object: what the benches give the operator's
 * process beside the shipped Node flags.
 */
export function shippedEnv() {
  const deployment = readFileSync(join(repo, "tools/deploy/deployment.yaml"), "utf8");
  const env = {};
  for (const m of deployment.matchAll(/^\s*- name: (\S+)\n\s*value: "?([^"\n]*)"?$/gm)) env[m[1]] = m[2];
  return env;
}

/**
 * The environment a bench gives the operator's process: its own, over the manifest's plain
 * variables ([`shippedEnv`]); with OPERATOR_ENV=none, its own alone.
 */
export function operatorEnv(extra = {}) {
  const shipped = process.env.OPERATOR_ENV === "none" ? {} : shippedEnv();
  return { ...shipped, ...process.env, ...extra };
}
