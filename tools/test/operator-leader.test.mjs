// Leader election: two operators, one Lease.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { devServer, killAll, operator, pods, replicaSet, rsPath, sleep, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const leasePath = "/apis/coordination.k8s.io/v1/namespaces/replicore-system/leases/replicore-operator";

/** Every write request of an operator: its own "synced" lines that wrote something, and its creates/adoptions. */
const wrote = (op) => op.syncs().filter((s) => s.statusWritten || s.created > 0 || s.deleted > 0).length + op.find("adopted pod").length;

test("two operators with client-go's default lease (15 s / 10 s / 2 s): one holds the Lease and writes; SIGKILL hands over within the lease duration", async () => {
  // The real timings: this test is about them (about 20 s).
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api } = dev;
  await api.post(rsPath("shop"), replicaSet("web", 3));
  const a = operator(dev.url, ["--identity", "op-a"], { lease: [], name: "a" });
  ops.push(a);
  await a.waitLog("leader election: acquired the lease");
  const b = operator(dev.url, ["--identity", "op-b"], { lease: [], name: "b" });
  ops.push(b);
  await b.waitLog("leader election: waiting for the lease");
  await waitFor(async () => (await api.get(rsPath("shop", "web"))).status?.readyReplicas === 3, "3 ready");

  // B keeps waiting while A renews; only A acts.
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 5 } });
  await waitFor(async () => (await api.get(rsPath("shop", "web"))).status?.readyReplicas === 5, "5 ready");
  await sleep(2500); // more than one retry period of B
  let lease = await api.get(leasePath);
  assert.equal(lease.spec.holderIdentity, "op-a");
  assert.equal(lease.spec.leaseDurationSeconds, 15);
  assert.equal(b.find("leader election: acquired the lease").length, 0);
  assert.equal(b.find("operator running").length, 0);
  assert.equal(wrote(b), 0);
  assert.ok(wrote(a) > 0);

  // A dies without releasing the lease; B takes over once it has not been renewed for 15 s.
  const lastRenew = Date.parse(lease.spec.renewTime);
  await waitFor(async () => Date.parse((await api.get(leasePath)).spec.renewTime) > lastRenew, "a renewal by A");
  a.kill("SIGKILL");
  await a.exited;
  const renewedAt = Date.parse((await api.get(leasePath)).spec.renewTime);
  await b.waitLog("leader election: acquired the lease", {}, 30000);
  lease = await api.get(leasePath);
  assert.equal(lease.spec.holderIdentity, "op-b");
  assert.equal(lease.spec.leaseTransitions, 1);
  const handover = Date.parse(lease.spec.acquireTime) - renewedAt;
  // B counts 15 s from when it saw A's last renewal (at most one retry period of 2 s x 1.2 later).
  assert.ok(handover >= 15000 - 2400, `B acquired ${handover} ms after A's last renewal, before the lease expired`);
  assert.ok(handover <= 15000 + 2 * 2400 + 1000, `B acquired ${handover} ms after A's last renewal`);

  // B acts now.
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 2 } });
  await waitFor(async () => (await pods(api, "shop")).length === 2, "2 pods");
  await waitFor(() => wrote(b) > 0, "B's sync");
});

test("SIGTERM: in-flight work finishes, the lease is released, the standby takes over at once", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api, server } = dev;
  await api.post(rsPath("shop"), replicaSet("web", 0));
  const lease = ["--lease-duration", "20s", "--renew-deadline", "15s", "--retry-period", "500ms"];
  const a = operator(dev.url, ["--identity", "op-a"], { lease, name: "a" });
  ops.push(a);
  await a.waitLog("operator running");
  const b = operator(dev.url, ["--identity", "op-b"], { lease, name: "b" });
  ops.push(b);
  await b.waitLog("leader election: waiting for the lease");

  // A sync in flight (slow creates) when SIGTERM arrives: it completes before A exits.
  server.faults.set({ latencyMs: 100 });
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 40 } });
  await waitFor(() => server.stats.podCreates.ok >= 3, "creates under way", 30000, 5);
  a.kill("SIGTERM");
  assert.deepEqual(await a.exited, { code: 0, signal: null });
  const aSync = a.syncs("shop/web").find((s) => s.action === "create");
  assert.ok(aSync, "A finished its creating sync before exiting");
  assert.equal(aSync.createCalls, server.stats.podCreates.ok, "every call A started was answered and counted");
  assert.ok(a.find("leader election: released the lease").length === 1, a.raw.slice(-6).join("\n"));

  // B does not wait 20 s for an expired lease: the released one is free.
  server.faults.set({ latencyMs: 0 });
  await b.waitLog("leader election: acquired the lease", {}, 5000);
  await waitFor(async () => (await pods(api, "shop")).length === 40, "40 pods (B finished the job)");
});

test("a leader that cannot renew stops all work (and exits) before the lease expires for the standby", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api, server } = dev;
  await api.post(rsPath("shop"), replicaSet("web", 2));
  const lease = ["--lease-duration", "4s", "--renew-deadline", "3s", "--retry-period", "500ms"];
  const a = operator(dev.url, ["--identity", "op-a"], { lease, name: "a" });
  ops.push(a);
  await a.waitLog("operator running");
  await waitFor(async () => (await pods(api, "shop")).length === 2, "2 pods");
  const b = operator(dev.url, ["--identity", "op-b"], { lease, name: "b" });
  ops.push(b);
  await b.waitLog("leader election: waiting for the lease");

  // The API server stops answering Lease requests: A cannot renew.
  server.faults.set({ rules: [{ resource: "leases", status: 503 }] });
  const exit = await a.exited;
  assert.deepEqual(exit, { code: 1, signal: null });
  const lost = a.find("lost the lease: all work stopped; exiting")[0];
  assert.ok(lost);
  server.faults.set({ rules: [] });

  const acquired = await b.waitLog("leader election: acquired the lease", {}, 15000);
  // A stopped before B started; every log line of A (its writes included) is older than B's lease.
  assert.ok(Date.parse(lost.ts) < Date.parse(acquired.ts));
  assert.ok(a.logs.every((l) => Date.parse(l.ts) < Date.parse(acquired.ts)));
  const held = await api.get(leasePath);
  assert.equal(held.spec.holderIdentity, "op-b");
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 3 } });
  await waitFor(async () => (await pods(api, "shop")).length === 3, "3 pods, made by B");
});
