// Crash and restart in the middle of a slow start; dropped watches and 410 Gone.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { FAST_LEASE, controllerOf, devServer, killAll, operator, pods, podsPath, replicaSet, rsPath, sleep, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

test("SIGKILL mid slow start, restart: converges to exactly 600 with at most one burst of extra creations", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api, server } = dev;
  server.faults.set({ latencyMs: 40 });
  const rs = await api.post(rsPath("shop"), replicaSet("web", 600));
  const first = operator(dev.url, [], { name: "first", lease: FAST_LEASE });
  ops.push(first);
  await waitFor(() => server.stats.podCreates.ok >= 60, "60 pods created", 60000, 5);
  first.kill("SIGKILL");
  await first.exited;
  const atCrash = server.stats.podCreates.ok;
  assert.ok(atCrash < 600, `killed in the middle (${atCrash} created)`);
  assert.equal(first.syncs("shop/web").filter((s) => s.action === "create").length, 0, "the first sync had not finished");

  server.faults.set({ latencyMs: 0 });
  const second = operator(dev.url, [], { name: "second", lease: FAST_LEASE });
  ops.push(second);
  await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    return o.status?.replicas === 600 && (await pods(api, "shop")).length === 600;
  }, "600 pods and status replicas 600", 60000);
  // The restarted operator waited for the dead one's lease, then counted what existed.
  assert.ok(second.find("leader election: acquired the lease").length === 1);
  const extra = server.stats.podCreates.ok - 600;
  assert.ok(extra >= 0 && extra <= 500, `extra creations: ${extra}`);
  const all = await pods(api, "shop");
  assert.ok(all.every((p) => controllerOf(p)?.uid === rs.metadata.uid));
});

test("dropped watches and 410 Gone: the operator re-lists and loses no update", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api, server } = dev;
  await api.post(rsPath("shop"), replicaSet("web", 4));
  const op = operator(dev.url);
  ops.push(op);
  await waitFor(async () => (await api.get(rsPath("shop", "web"))).status?.readyReplicas === 4, "4 ready");
  const listsBefore = op.find("listed").length;

  // While the watches are down: a pod disappears, the owner is scaled, and the server
  // forgets the history (a resume from the old version gets 410 Gone).
  assert.ok(server.dropWatches("reset") >= 2);
  const victim = (await pods(api, "shop"))[0].metadata.name;
  await api.del(podsPath("shop", victim));
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 7 } });
  server.store.compact();

  await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    const ps = await pods(api, "shop");
    return o.status?.replicas === 7 && o.status?.readyReplicas === 7 && ps.length === 7 && !ps.some((p) => p.metadata.name === victim);
  }, "7 ready pods after the re-list", 30000);
  assert.ok(op.find("watch failed, restarting").length >= 2, "both watches restarted");
  assert.ok(op.find("listed").length >= listsBefore + 2, "both informers re-listed after 410 Gone");

  // A clean close (no error) resumes from the last version without a re-list.
  const lists = op.find("listed").length;
  server.dropWatches("close");
  await sleep(200);
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 5 } });
  await waitFor(async () => (await pods(api, "shop")).length === 5 && (await api.get(rsPath("shop", "web"))).status?.replicas === 5, "5 pods");
  assert.equal(op.find("listed").length, lists);
});
