// Quota failures: pod creates answered 403 Forbidden (exceeded quota) once 5 pods exist.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { devServer, killAll, operator, pods, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

test("403 quota after 5 pods: slow start stops after the failing batch, expectations lowered, ReplicaFailure and FailedCreate, resumes once lifted", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api, server } = dev;
  server.faults.set({ podQuota: { limit: 5, namespace: "shop" } });
  await api.post(rsPath("shop"), replicaSet("web", 20));
  const op = operator(dev.url);
  ops.push(op);

  // The first sync: batches 1 (ok), 2 (ok), 4 (2 ok, 2 forbidden), then no more calls.
  const first = await waitFor(() => op.syncs("shop/web").find((s) => s.action === "create"), "the first creating sync");
  assert.equal(first.createCalls, 7);
  assert.deepEqual(first.createBatches, [1, 2, 4]);
  assert.equal(first.created, 5);
  assert.equal(first.requeue, "rateLimited");
  assert.match(first.error, /exceeded quota/);
  // 20 expected; 13 never attempted and 2 failed are taken off: only the 5 created remain
  // expected, so the next sync need not wait for the 5-minute expectations timeout.
  const lowered = first.expectationChanges.filter((c) => c.op === "lowerCreations").reduce((n, c) => n + c.count, 0);
  const failedObserved = first.expectationChanges.filter((c) => c.op === "creationObserved").length;
  assert.equal(lowered + failedObserved, 15, JSON.stringify(first.expectationChanges));
  assert.ok(first.expectations.add <= 5, JSON.stringify(first.expectations));

  // Later syncs keep trying (rate limited), each stopping after its first failing batch.
  await waitFor(() => op.syncs("shop/web").filter((s) => s.action === "create").length >= 3, "retries");
  for (const s of op.syncs("shop/web").filter((s) => s.action === "create").slice(1)) {
    assert.deepEqual(s.createBatches, [1]);
    assert.equal(s.created, 0);
  }
  assert.equal((await pods(api, "shop")).length, 5);

  // The owner says why, and the events say it too.
  const rs = await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    return (o.status?.conditions ?? []).some((c) => c.type === "ReplicaFailure") ? o : undefined;
  }, "the ReplicaFailure condition");
  const cond = rs.status.conditions.find((c) => c.type === "ReplicaFailure");
  assert.equal(cond.status, "True");
  assert.equal(cond.reason, "FailedCreate");
  assert.match(cond.message, /exceeded quota/);
  // (Events are written one at a time after the sync; repeats may count on one Event.)
  const events = await waitFor(async () => {
    const es = (await api.get("/api/v1/namespaces/shop/events")).items;
    return es.filter((e) => e.reason === "FailedCreate").reduce((n, e) => n + e.count, 0) >= 2 && es.filter((e) => e.reason === "SuccessfulCreate").length >= 5 ? es : undefined;
  }, "FailedCreate and SuccessfulCreate events");
  const failed = events.filter((e) => e.reason === "FailedCreate");
  assert.ok(failed.every((e) => e.type === "Warning" && /exceeded quota/.test(e.message) && e.involvedObject.name === "web"));
  assert.equal(events.filter((e) => e.reason === "SuccessfulCreate").length, 5);

  // Quota lifted: creation resumes and converges; the condition goes away.
  server.faults.set({ podQuota: null });
  await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    return o.status?.replicas === 20 && !(o.status.conditions ?? []).some((c) => c.type === "ReplicaFailure");
  }, "20 replicas and no ReplicaFailure", 60000);
  assert.equal((await pods(api, "shop")).length, 20);
  assert.equal(server.stats.podCreates.ok, 20);
});
