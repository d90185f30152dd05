// The operator's compaction after its caches shrink (tools/src/operator/memory.ts): one
// full collection when the cached objects fall by a quarter and by at least minDrop
// below their peak since the last one; none for a small or slow dip, none without `gc`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor } from "../dist/operator/memory.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function harness(o = {}) {
  let cached = 0;
  const calls = [];
  const lines = [];
  const c = new Compactor({
    cached: () => cached,
    log: { ...quiet, info: (msg, fields) => lines.push([msg, fields]) },
    collect: () => calls.push(cached),
    compacted: () => calls.push("metric"),
    ...o,
  });
  return { c, calls, lines, set: (n) => (cached = n) };
}

test("a scale-down to a fifth is compacted once, then not again until the caches grow and fall anew", () => {
  const h = harness();
  for (const n of [0, 2000, 10000]) {
    h.set(n);
    assert.equal(h.c.check(), false, `growing to ${n}`);
  }
  h.set(8000); // a fifth off the peak: not a quarter
  assert.equal(h.c.check(), false);
  h.set(2000);
  assert.equal(h.c.check(), true);
  assert.deepEqual(h.calls, [2000, "metric"]);
  assert.equal(h.lines.length, 1);
  assert.equal(h.lines[0][1].cachedPeak, 10000);
  assert.equal(h.lines[0][1].cached, 2000);
  // The peak is now 2,000: staying there, or falling by less than minDrop, is no reason.
  assert.equal(h.c.check(), false);
  h.set(1200);
  assert.equal(h.c.check(), false, "800 below the new peak is less than 1,000");
  h.set(6000);
  assert.equal(h.c.check(), false);
  h.set(4400);
  assert.equal(h.c.check(), true, "a quarter and 1,600 below 6,000");
  assert.equal(h.calls.filter((x) => x !== "metric").length, 2);
});

test("a small cache never compacts (minDrop), and the thresholds are options", () => {
  const h = harness();
  h.set(900);
  h.c.check();
  h.set(0);
  assert.equal(h.c.check(), false, "all 900 gone is still under 1,000");
  const k = harness({ minDrop: 10, minShare: 0.5 });
  k.set(100);
  k.c.check();
  k.set(60);
  assert.equal(k.c.check(), false, "40 % off is under half");
  k.set(50);
  assert.equal(k.c.check(), true);
});

test("without gc (no --expose-gc) the compactor does nothing and starts no timer", () => {
  const h = harness({ collect: undefined });
  h.set(10000);
  h.c.check();
  h.set(0);
  assert.equal(h.c.check(), false);
  h.c.start();
  h.c.stop();
  assert.deepEqual(h.calls, []);
});
