// The operator's client-side rate limit (--kube-api-qps / --kube-api-burst), a token
// bucket as client-go's: on a fake clock, then end to end on the dev server.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TokenBucket } from "../dist/operator/ratelimit.js";
import { devServer, killAll, operator, pods, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

test("token bucket: a burst at once, then one token per 1/qps, first come first served", () => {
  let now = 0;
  const b = new TokenBucket({ qps: 20, burst: 30 }, () => now);
  const waits = Array.from({ length: 32 }, () => b.reserve());
  assert.deepEqual(waits.slice(0, 30), Array(30).fill(0));
  assert.deepEqual(waits.slice(30).map((w) => Math.round(w)), [50, 100]);
  // After a quiet second, 20 tokens again (less the two borrowed ones); never more than the burst.
  now = 1000;
  const next = Array.from({ length: 19 }, () => b.reserve());
  assert.equal(next.filter((w) => w === 0).length, 18);
  now = 1_000_000;
  assert.equal(Array.from({ length: 31 }, () => b.reserve()).filter((w) => w === 0).length, 30);
  // qps 0: no limit.
  const free = new TokenBucket({ qps: 0, burst: 1 }, () => 0);
  assert.deepEqual(Array.from({ length: 100 }, () => free.reserve()).filter((w) => w > 0), []);
  assert.throws(() => new TokenBucket({ qps: 10, burst: 0 }), /burst/);
});

test("--kube-api-qps 5 --kube-api-burst 1: the operator's requests keep to the rate; the flags are checked", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api, server } = dev;
  await api.post(rsPath("shop"), replicaSet("web", 0));
  const op = operator(dev.url, ["--no-leader-elect", "--kube-api-qps", "5", "--kube-api-burst", "1"]);
  ops.push(op);
  await op.waitLog("operator running");
  await waitFor(() => op.syncs("shop/web").length > 0, "the first sync");
  // When the server stored each created pod.
  const created = [];
  server.store.watchers.add({ resource: "/pods", send: (e) => e.type === "ADDED" && created.push(performance.now()), close: () => {} });
  await api.patch(`${rsPath("shop", "web")}/scale`, { spec: { replicas: 12 } });
  await waitFor(async () => (await pods(api, "shop")).length === 12, "12 pods", 60000);
  // 12 creates (and the events and status writes between them) through one token per
  // 200 ms with a bucket of 1: the server cannot have stored them faster.
  assert.equal(created.length, 12);
  const span = created[11] - created[0];
  assert.ok(span >= 11 * 200 - 50, `12 creates within ${Math.round(span)} ms at 5 requests per second`);
  op.kill("SIGTERM");
  await op.exited;

  for (const bad of [["--kube-api-qps", "-1"], ["--kube-api-burst", "0"]]) {
    const o = operator(dev.url, ["--no-leader-elect", ...bad]);
    ops.push(o);
    const exit = await o.exited;
    assert.notEqual(exit.code, 0);
    assert.match(o.stderr, new RegExp(bad[0]));
  }
});
