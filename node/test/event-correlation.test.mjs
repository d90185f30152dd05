// The event correlator through the npm API: the class (state in wasm memory) and the pure
// function over a state value agree; bad input is a ReplicoreError with code and path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventCorrelator, correlateEvent, isReplicoreError } from "../dist/node.js";

const failure = {
  involvedObject: { kind: "ReplicaSet", namespace: "shop", name: "web", uid: "u1", apiVersion: "apps/v1" },
  type: "Warning",
  reason: "FailedCreate",
  message: "Error creating: quota",
  source: { component: "replicaset-controller" },
};

test("a hundred identical failures: one create, 24 patches, 75 drops; the state round-trips", () => {
  const c = new EventCorrelator();
  let state = null;
  const t0 = Date.parse("2026-11-24T01:00:00Z");
  const actions = { create: 0, patch: 0, drop: 0 };
  let last;
  for (let i = 0; i < 100; i++) {
    const now = new Date(t0 + i);
    const d = c.correlate(failure, now);
    const r = correlateEvent(state, failure, now.toISOString());
    assert.deepEqual(r.decision, d);
    state = r.state;
    actions[d.action]++;
    if (d.action !== "drop") last = d;
  }
  assert.deepEqual(actions, { create: 1, patch: 24, drop: 75 });
  assert.equal(last.action, "patch");
  assert.deepEqual(last.patch, { count: 25, lastTimestamp: "2026-11-24T01:00:00Z", message: "Error creating: quota" });
  assert.equal(last.event.metadata.name, `web.${(BigInt(t0) * 1_000_000n).toString(16)}`);
  assert.deepEqual(c.state(), state);
  assert.deepEqual(c.size(), { aggregates: 1, observations: 1, spam: 1 });
  // A correlator made from the state decides as the original: 5 minutes on, a token.
  const later = new Date(t0 + 300_100);
  const copy = new EventCorrelator(state);
  assert.deepEqual(copy.correlate(failure, later), c.correlate(failure, later));
  copy.free();
  c.free();
});

test("bad input is a ReplicoreError naming the field", () => {
  const c = new EventCorrelator();
  for (const [call, path] of [
    [() => c.correlate({ ...failure, type: "Info" }, new Date()), "event.type"],
    [() => c.correlate({ ...failure, involvedObject: 3 }, new Date()), "event.involvedObject"],
    [() => c.correlate(failure, "yesterday"), "now"],
    [() => new EventCorrelator({ spam: [{ key: "k", tokens: "NaN", last: "2026-01-01T00:00:00Z" }] }), "state.spam[0].tokens"],
  ]) {
    assert.throws(call, (e) => isReplicoreError(e) && e.path.startsWith(path.split("[")[0]), path);
  }
  c.free();
});
