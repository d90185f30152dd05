// Events as kube-controller-manager's recorder writes them (client-go's EventCorrelator,
// decided by the engine): a scale-up 0 -> 20 and a scale-down 20 -> 5 of one ReplicaSet
// leave on the server what upstream leaves there, every repeat written as a strategic
// merge PATCH and the events past the per-object burst of 25 dropped.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { devServer, killAll, operator, pods, replicaSet, rsPath, sleep, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const COMBINED = "(combined from similar events): ";

/** The Events about `uid` by reason: objects, and the sum of their counts. */
async function eventsOf(api, ns, uid) {
  const items = (await api.get(`/api/v1/namespaces/${ns}/events`)).items.filter((e) => e.involvedObject?.uid === uid);
  const by = (reason) => {
    const of = items.filter((e) => e.reason === reason);
    return { objects: of, count: of.reduce((n, e) => n + (e.count ?? 0), 0) };
  };
  return { items, created: by("SuccessfulCreate"), deleted: by("SuccessfulDelete") };
}

test("each create's Event is recorded when its call returns, before the sync's later batches (R-61, as upstream's pod control)", async () => {
  // Every request takes 50 ms; slow start sends 15 creates in batches of 1, 2, 4 and 8.
  // The first create's Event is written while batches 2..4 are still to come, so it is
  // stored before the last pod: its resourceVersion (one counter for every object of the
  // dev-server) is lower. Recorded after the sync, every Event would come after every pod.
  const dev = await devServer();
  servers.push(dev);
  const { api } = dev;
  dev.server.faults.set({ latencyMs: 50 });
  const rs = await api.post(rsPath("shop"), replicaSet("web", 15));
  const op = operator(dev.url);
  ops.push(op);
  await waitFor(async () => (await eventsOf(api, "shop", rs.metadata.uid)).created.count === 15, "15 SuccessfulCreate counted");
  const rv = (o) => Number(o.metadata.resourceVersion);
  const lastPod = Math.max(...(await pods(api, "shop")).map(rv));
  const firstEvent = Math.min(...(await eventsOf(api, "shop", rs.metadata.uid)).created.objects.filter((e) => e.count === 1).map(rv));
  assert.ok(firstEvent < lastPod, `the first Event (rv ${firstEvent}) is stored before the last pod (rv ${lastPod})`);
});

test("scale 0 -> 20 -> 5 writes the Events upstream writes: 20 SuccessfulCreate (9 + one combined, count 11), 5 SuccessfulDelete, 10 deletes dropped", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api } = dev;
  const rs = await api.post(rsPath("shop"), replicaSet("web", 20));
  const op = operator(dev.url);
  ops.push(op);
  await waitFor(async () => (await api.get(rsPath("shop", "web"))).status?.replicas === 20, "status replicas 20");
  await waitFor(async () => (await eventsOf(api, "shop", rs.metadata.uid)).created.count === 20, "20 SuccessfulCreate counted");

  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 5 } });
  await waitFor(async () => (await api.get(rsPath("shop", "web"))).status?.replicas === 5, "status replicas 5");
  assert.equal((await pods(api, "shop")).length, 5);
  await waitFor(async () => (await eventsOf(api, "shop", rs.metadata.uid)).deleted.count >= 5, "5 SuccessfulDelete");
  // Whatever else would be written is written by now (the writes are serial and local).
  await sleep(500);

  const { items, created, deleted } = await eventsOf(api, "shop", rs.metadata.uid);
  // Creates: the first 9 messages are Events of their own; the 10th is a new combined
  // Event, and the 11th..20th count on it (PATCH count 2..11, the message of the last).
  assert.equal(created.count, 20);
  assert.equal(created.objects.length, 10);
  const combined = created.objects.filter((e) => e.message.startsWith(COMBINED));
  assert.equal(combined.length, 1);
  assert.equal(combined[0].count, 11);
  assert.match(combined[0].message, /^\(combined from similar events\): Created pod: web-/);
  for (const e of created.objects.filter((e) => !e.message.startsWith(COMBINED))) {
    assert.equal(e.count, 1);
    assert.match(e.message, /^Created pod: web-/);
  }
  // Deletes: 5 Events (tokens 21..25 of the ReplicaSet's bucket); the other 10 dropped.
  assert.equal(deleted.count, 5);
  assert.equal(deleted.objects.length, 5);
  assert.ok(deleted.objects.every((e) => e.count === 1 && /^Deleted pod: web-/.test(e.message)));
  assert.equal(items.length, 15, JSON.stringify(items.map((e) => [e.reason, e.count, e.message])));

  // Every Event as client-go writes it.
  for (const e of items) {
    assert.equal(e.type, "Normal");
    assert.deepEqual(e.source, { component: "replicaset-controller" });
    assert.equal(e.involvedObject.kind, "ReplicaSet");
    assert.equal(e.involvedObject.apiVersion, "apps/v1");
    assert.equal(e.involvedObject.name, "web");
    assert.equal(e.involvedObject.namespace, "shop");
    assert.equal(e.metadata.namespace, "shop");
    assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
    assert.ok(e.firstTimestamp <= e.lastTimestamp);
    assert.equal(e.reportingComponent, e.message.startsWith(COMBINED) ? "" : "replicaset-controller");
  }
  const warned = op.logs.filter((l) => l.msg === "event not recorded");
  assert.deepEqual(warned, []);

  op.kill("SIGTERM");
  assert.deepEqual(await op.exited, { code: 0, signal: null });
});

/**
 * A proxy to `target` that resets the connection of the first `resets` event POSTs (a
 * transport failure, not an answer from the server); everything else passes through.
 */
async function resettingProxy(target, resets) {
  const up = new URL(target);
  const server = createServer((req, res) => {
    if (req.method === "POST" && /\/events(\?|$)/.test(req.url) && resets > 0) {
      resets--;
      req.socket.destroy();
      return;
    }
    const fwd = request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      // A watch's headers go out at once, as the API server sends them: the operator
      // waits for the first answer of each watch before it starts.
      res.flushHeaders();
      r.pipe(res);
    });
    fwd.on("error", () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    left: () => resets,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

test("an event the server could not be reached for is sent again (client-go: up to 12 tries, 10 s apart, the first wait random)", async () => {
  const dev = await devServer();
  servers.push(dev);
  const proxy = await resettingProxy(dev.url, 1);
  servers.push(proxy);
  const { api } = dev;
  const rs = await api.post(rsPath("shop"), replicaSet("one", 1));
  const op = operator(proxy.url);
  ops.push(op);
  await op.waitLog("event write failed; will retry", { reason: "SuccessfulCreate", tries: 1 });
  assert.equal(proxy.left(), 0);
  const [event] = await waitFor(async () => {
    const es = (await eventsOf(api, "shop", rs.metadata.uid)).created.objects;
    return es.length ? es : undefined;
  }, "the SuccessfulCreate Event, after the retry", 15000);
  assert.equal(event.count, 1);
  assert.match(event.message, /^Created pod: one-/);
  assert.deepEqual(op.find("event not recorded"), []);
  op.kill("SIGTERM");
  assert.deepEqual(await op.exited, { code: 0, signal: null });
});

test("events past the queue's 1000 are dropped: each counted in replicore_events_dropped_total, logged once per interval, not once per event", async () => {
  const { EventRecorder } = await import("../dist/operator/recorder.js");
  const { Metrics } = await import("../dist/operator/metrics.js");
  const { makeLogger } = await import("../dist/operator/log.js");
  const lines = [];
  const log = makeLogger("info", {}, (l) => lines.push(JSON.parse(l)));
  const metrics = new Metrics();
  // An API server that never answers: the first write stays in flight, the rest queue.
  const never = () => new Promise(() => {});
  const clients = { core: { createNamespacedEvent: never, patchNamespacedEvent: never } };
  const recorder = new EventRecorder(clients, log, metrics, "replicaset-controller", 200);
  const rs = { kind: "ReplicaSet", apiVersion: "apps/v1", namespace: "shop", name: "web", uid: "u1" };
  const record = (i) => recorder.record(rs, { type: "Normal", reason: i % 2 ? "SuccessfulCreate" : "SuccessfulDelete", message: `event ${i}` }, "replicaset-controller");
  const dropped = async () => (await metrics.eventsDropped.get()).values.find((v) => v.labels.controller === "replicaset-controller")?.value ?? 0;
  const droppedLines = () => lines.filter((l) => l.msg === "events not recorded: too many queued events");

  for (let i = 0; i < 1000; i++) record(i);
  assert.equal(await dropped(), 0);
  assert.deepEqual(droppedLines(), []);
  // 500 more: all dropped and counted; the first logged at once, the rest at the interval's end.
  for (let i = 1000; i < 1500; i++) record(i);
  assert.equal(await dropped(), 500);
  assert.equal(droppedLines().length, 1);
  assert.equal(droppedLines()[0].events, 1);
  await sleep(300);
  assert.equal(droppedLines().length, 2, JSON.stringify(droppedLines()));
  assert.equal(droppedLines()[1].events, 499);
  assert.deepEqual(droppedLines()[1].byReason, { SuccessfulCreate: 250, SuccessfulDelete: 249 });
  // A quiet interval ends it: no line for nothing, and the next drop is logged at once.
  await sleep(500);
  assert.equal(droppedLines().length, 2);
  record(1500);
  assert.equal(droppedLines().length, 3);
  assert.equal(await dropped(), 501);
  assert.equal(lines.filter((l) => l.level === "warn").length, 3, "no other warnings");
});
