// A pod the engine cannot read, in the middle of the watch stream: logged, skipped, and
// every owner (in its namespace and elsewhere) keeps being managed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { devServer, killAll, operator, pods, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

test("malformed pods in the watch stream are logged and skipped; other owners keep being managed", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api } = dev;
  await api.post(rsPath("a"), replicaSet("web", 2));
  await api.post(rsPath("a"), replicaSet("api", 1));
  await api.post(rsPath("b"), replicaSet("web", 2));
  const op = operator(dev.url);
  ops.push(op);
  const ready = async (ns, name, n) => {
    const o = await api.get(rsPath(ns, name));
    return o.status?.readyReplicas === n && o.status?.replicas === n;
  };
  await waitFor(async () => (await ready("a", "web", 2)) && (await ready("a", "api", 1)) && (await ready("b", "web", 2)), "all owners ready");

  // Stored as given (no validation): a pod matching a/web with a timestamp that is not
  // RFC 3339, and one whose label value is a number.
  await api.post("/_replicore/raw/core/pods", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "bad-time", namespace: "a", uid: "bad-1", labels: { app: "web" }, creationTimestamp: "yesterday" },
    spec: {},
    status: { phase: "Running" },
  });
  await api.post("/_replicore/raw/core/pods", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "bad-label", namespace: "a", uid: "bad-2", labels: { app: 5 } },
    spec: {},
  });
  // (Each is skipped on every event: added, then the fake kubelet's updates.)
  const skipped = await waitFor(() => {
    const lines = op.find("skipping a pod the engine cannot read");
    return new Set(lines.map((l) => l.name)).size === 2 ? lines : undefined;
  }, "both malformed pods skipped");
  assert.deepEqual([...new Set(skipped.map((l) => l.name))].sort(), ["bad-label", "bad-time"]);
  assert.match(skipped.find((l) => l.name === "bad-time").error, /yesterday/);

  // Every owner is still managed, the one in the malformed pods' namespace included.
  for (const [ns, name, n] of [["a", "web", 4], ["a", "api", 3], ["b", "web", 1]]) {
    await api.patch(`${rsPath(ns, name)}/scale`, { spec: { replicas: n } });
  }
  await waitFor(async () => (await ready("a", "web", 4)) && (await ready("a", "api", 3)) && (await ready("b", "web", 1)), "every owner at its new scale");
  assert.equal((await pods(api, "a", "app=api")).length, 3);
  assert.equal((await pods(api, "b")).length, 1);
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_errors_total\{where="malformed"\} [2-9]/m);
});
