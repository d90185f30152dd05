// The operator's work queue and rate limiter (client-go's semantics and defaults).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ControllerRateLimiter, DEFAULT_RATE_LIMITS, WorkQueue } from "../dist/operator/queue.js";

test("defaults: per-key backoff 5 ms doubling to 1000 s, overall 10 qps with a burst of 100", () => {
  assert.deepEqual(DEFAULT_RATE_LIMITS, { baseDelayMs: 5, maxDelayMs: 1_000_000, qps: 10, burst: 100 });
  let now = 0;
  const limiter = new ControllerRateLimiter(DEFAULT_RATE_LIMITS, () => now);
  const delays = Array.from({ length: 8 }, () => limiter.when("a"));
  assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 640]);
  for (let i = 0; i < 30; i++) limiter.when("a");
  assert.equal(limiter.when("a"), 1_000_000, "capped at 1000 s");
  assert.equal(limiter.numRequeues("a"), 39);
  limiter.forget("a");
  assert.equal(limiter.when("a"), 5);

  // The bucket: 100 tokens (40 used above), then one every 100 ms.
  const fresh = new ControllerRateLimiter(DEFAULT_RATE_LIMITS, () => now);
  for (let i = 0; i < 100; i++) assert.equal(fresh.when(`k${i}`), 5);
  assert.equal(fresh.when("k100"), 100);
  assert.equal(fresh.when("k101"), 200);
  now = 1000; // ten tokens back, two of them owed
  assert.equal(fresh.when("k102"), 5);
});

test("a key is queued once, never handed to two workers at once, and re-queued when added while processed", async () => {
  const q = new WorkQueue();
  q.add("a");
  q.add("a");
  q.add("b");
  assert.equal(q.length, 2);
  const first = await q.get();
  assert.equal(first, "a");
  q.add("a"); // while processed: remembered, not handed out
  assert.equal(await q.get(), "b");
  let handed;
  const waiting = q.get().then((k) => (handed = k));
  await new Promise((r) => setImmediate(r));
  assert.equal(handed, undefined, "a is still being processed");
  q.done("a");
  await waiting;
  assert.equal(handed, "a");
  assert.ok(q.isProcessing("a"));
  q.done("a");
  q.done("b");
  assert.equal(q.length, 0);
});

test("addAfter keeps the earliest time per key; shutDown releases waiting workers", async () => {
  const q = new WorkQueue();
  q.addAfter("x", 10_000);
  q.addAfter("x", 20);
  q.addAfter("x", 5_000);
  const t = performance.now();
  assert.equal(await q.get(), "x");
  assert.ok(performance.now() - t < 4_000);
  q.done("x");
  const waiting = q.get();
  q.shutDown();
  assert.equal(await waiting, undefined);
  q.add("y");
  assert.equal(await q.get(), undefined);
});
