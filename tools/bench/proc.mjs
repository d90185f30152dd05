// What the operator benchmarks read of a process and share: its CPU and RSS from /proc,
// a free port, waiting for a condition, and their ReplicaSets. Used by operator.mjs and
// realapi.mjs.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const mib = (bytes) => Math.round(bytes / 1048576);

/** User + system CPU seconds of a process (0 once it is gone). */
export function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** A process's resident set size in bytes (0 once it is gone). */
export function rssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * Polls `fn` every 50 ms until it returns something truthy (and returns that), or throws
 * after `timeoutMs`; `what` (text, or a function giving it at the time) names the wait.
 */
export async function waitFor(fn, what, timeoutMs) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (performance.now() > until) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await sleep(50);
  }
}

/** The benchmarks' owners: `rs-000`, `rs-001`, … (`count` of them). */
export const ownerNames = (count) => Array.from({ length: count }, (_, i) => `rs-${String(i).padStart(3, "0")}`);

/** A benchmark's ReplicaSet `name` at 0 replicas, selecting `app: name` (pods of one nginx container). */
export function benchReplicaSet(name) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, labels },
    spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "main", image: "nginx" }] } } },
  };
}
