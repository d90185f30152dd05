// The operator against the dev server: scale 0 -> 1200 in slow-start batches with the
// fake kubelet making pods ready, then scale down 30 -> 10 deleting exactly the engine's
// 20 highest-ranked pods.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { rankPods } from "replicore";
import { controllerOf, devServer, killAll, operator, pods, podsPath, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

/** Slow start as upstream does it: batches 1, 2, 4, … each capped by what is left. */
function slowStartBatches(count) {
  const out = [];
  for (let size = 1, left = count; left > 0; size *= 2) {
    const n = Math.min(size, left);
    out.push(n);
    left -= n;
  }
  return out;
}

test("scale 0 -> 1200: slow-start batches capped at 500 per sync, exactly 1200 pods, status from the fake kubelet", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 20, nodes: 4 } });
  servers.push(dev);
  const { api, server } = dev;
  // 1 ms per request, so the server sees the calls of a batch overlap.
  server.faults.set({ latencyMs: 1 });
  await api.post(rsPath("shop"), replicaSet("web", 0));
  const op = operator(dev.url, ["--workers", "3"]);
  ops.push(op);
  await op.waitLog("operator running");
  await waitFor(() => op.syncs("shop/web").length > 0, "the first sync of shop/web");

  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 1200 } });
  const rs = await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    const s = o.status ?? {};
    return s.replicas === 1200 && s.readyReplicas === 1200 && s.availableReplicas === 1200 && s.observedGeneration === o.metadata.generation ? o : undefined;
  }, "status replicas/ready/available 1200", 120000).catch((e) => {
    throw new Error(`${e.message}\nserver: ${JSON.stringify(server.stats.podCreates)}\noperator:\n${op.tail()}`);
  });
  assert.equal(rs.status.fullyLabeledReplicas, 1200);

  // Exactly 1200 pods, every one created by the operator and owned by the ReplicaSet.
  const all = await pods(api, "shop");
  assert.equal(all.length, 1200);
  assert.equal(server.stats.podCreates.ok, 1200, "no create beyond the 1200");
  assert.equal(server.stats.podCreates.failed, 0);
  for (const p of all) assert.equal(controllerOf(p)?.uid, rs.metadata.uid);

  // Every sync that created: at most 500 calls, in batches 1, 2, 4, … (calls within a batch concurrent).
  const creating = op.syncs("shop/web").filter((s) => s.action === "create");
  assert.ok(creating.length >= 3, `at least three creating syncs (500 + 500 + 200), got ${creating.length}`);
  let total = 0;
  for (const s of creating) {
    assert.ok(s.createCalls <= 500, `a sync made ${s.createCalls} calls`);
    assert.deepEqual(s.createBatches, slowStartBatches(s.createCalls));
    total += s.created;
  }
  assert.equal(total, 1200);
  assert.deepEqual(creating.slice(0, 2).map((s) => s.createCalls), [500, 500]);
  assert.deepEqual(creating[0].createBatches, [1, 2, 4, 8, 16, 32, 64, 128, 245]);
  assert.ok(server.stats.podCreates.maxInFlight > 1, "the calls of a batch are concurrent");
  assert.ok(server.stats.podCreates.maxInFlight <= 256, `never more than one batch in flight (max ${server.stats.podCreates.maxInFlight})`);

  // SuccessfulCreate events for the owner, as kube-controller-manager's recorder writes
  // them: 9 Events, then one combined Event patched on; the ReplicaSet's burst of 25 is
  // then spent and the other 1175 are dropped (see operator-events.test.mjs).
  const created = () => api.get("/api/v1/namespaces/shop/events").then((r) => r.items.filter((e) => e.reason === "SuccessfulCreate" && e.involvedObject.uid === rs.metadata.uid));
  const events = await waitFor(async () => {
    const es = await created();
    return es.reduce((n, e) => n + e.count, 0) === 25 ? es : undefined;
  }, "SuccessfulCreate counts summing to 25");
  assert.equal(events.length, 10);
  assert.deepEqual(events.map((e) => e.count).sort((a, b) => a - b), [1, 1, 1, 1, 1, 1, 1, 1, 1, 16]);

  // The metrics count the creates.
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_pod_creates_total\{result="ok"\} 1200$/m);
  assert.match(metrics, /^replicore_sync_duration_seconds_count\{result="ok"\} \d+$/m);
  assert.match(metrics, /^replicore_workqueue_depth \d+$/m);
  assert.equal((await fetch(`${op.metricsUrl()}/healthz`)).status, 200);

  op.kill("SIGTERM");
  assert.deepEqual(await op.exited, { code: 0, signal: null });
});

// Every time in the fixture sits in the middle of its log2 bucket (1.5 x 2^k seconds ago),
// so the ranking does not depend on the seconds between this test's clock and the
// operator's. Pods are stored as given (the raw control endpoint), creation times included.
function podFixture(i, now, owner) {
  const kinds = ["unscheduled", "pending", "notReady", "ready"];
  const kind = kinds[i % 4];
  const ago = (k) => new Date(now - 1.5 * 2 ** k * 1000).toISOString();
  const ready = kind === "ready";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `api-${String(i).padStart(2, "0")}`,
      namespace: "shop",
      uid: `00000000-0000-0000-0000-0000000000${String(i).padStart(2, "0")}`,
      creationTimestamp: ago(12 + (i % 5)),
      labels: { app: "api" },
      ...(i % 7 === 0 ? { annotations: { "controller.kubernetes.io/pod-deletion-cost": String((i % 3) * 10 - 10) } } : {}),
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "api", uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...(kind === "unscheduled" ? {} : { nodeName: `node-${(i % 3) + 1}` }), containers: [{ name: "main", image: "nginx" }] },
    status: {
      phase: kind === "unscheduled" || kind === "pending" ? "Pending" : "Running",
      conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: ago(4 + (i % 9)) }],
      containerStatuses: [{ name: "main", ready, restartCount: i % 5 }],
    },
  };
}

test("scale down 30 -> 10 deletes exactly the engine's 20 highest-ranked pods", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api } = dev;
  const rs = await api.post(rsPath("shop"), replicaSet("api", 30));
  const now = Date.now();
  for (let i = 0; i < 30; i++) await api.post("/_replicore/raw/core/pods", podFixture(i, now, rs));
  const before = await pods(api, "shop");
  assert.equal(before.length, 30);
  // A ReplicaSet without a controller has no related pods upstream
  // (getIndirectlyRelatedPods), so no pod counts as co-located.
  const ranked = rankPods(before, { now: new Date(), related: [] });
  const expected = ranked
    .slice(0, 20)
    .map((r) => r.name)
    .sort();
  // The fixture exercises more than one rule.
  assert.ok(new Set(ranked.map((r) => r.rule)).size >= 4, JSON.stringify(ranked.map((r) => r.rule)));

  const op = operator(dev.url);
  ops.push(op);
  await op.waitLog("operator running");
  await waitFor(async () => (await api.get(rsPath("shop", "api"))).status?.replicas === 30, "status replicas 30");
  await api.patch(`${rsPath("shop", "api")}/scale`, { spec: { replicas: 10 } });
  await waitFor(async () => (await api.get(rsPath("shop", "api"))).status?.replicas === 10, "status replicas 10");

  const left = (await pods(api, "shop")).map((p) => p.metadata.name);
  const deleted = before.map((p) => p.metadata.name).filter((n) => !left.includes(n)).sort();
  assert.equal(left.length, 10);
  assert.deepEqual(deleted, expected);
  const deleting = op.syncs("shop/api").filter((s) => s.action === "delete");
  assert.equal(deleting.length, 1, "one sync deletes all 20 (burst 500)");
  assert.deepEqual([...deleting[0].deletedPods].sort(), expected);
  // 20 SuccessfulDelete: 9 Events, and the 10th..20th combined into one (count 11).
  const events = await waitFor(async () => {
    const es = (await api.get("/api/v1/namespaces/shop/events")).items.filter((e) => e.reason === "SuccessfulDelete");
    return es.reduce((n, e) => n + e.count, 0) === 20 ? es : undefined;
  }, "SuccessfulDelete counts summing to 20");
  assert.equal(events.length, 10);
  assert.equal(events.filter((e) => e.message.startsWith("(combined from similar events): Deleted pod: ")).length, 1);
});
