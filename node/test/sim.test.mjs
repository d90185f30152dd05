// The simulator through the package entry (`import { Simulator } from "replicore/sim"`):
// the typed wrapper over the wasm class. Scaling shows slow start, scale-down deletes
// the engine's ranking, a scenario from `scenario()` (as it would travel in a URL)
// replays to the same state, and bad input throws errors with code and path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "replicore/sim";
import { isReplicoreError } from "replicore";
import { explain } from "replicore/explain";
import { cluster } from "./helpers.mjs";

function createBatches(sim) {
  return sim
    .trace()
    .filter((e) => e.kind === "sync" && e.sync.action === "create")
    .map((e) => e.sync.batches.map((b) => b.size));
}

test("scaling 0 → 10 creates in slow-start batches 1, 2, 4, 3", () => {
  const sim = new Simulator({ seed: 1, replicas: 0, nodes: 3 });
  sim.advance(1000);
  sim.setReplicas(10);
  sim.advance(30_000);
  assert.deepEqual(createBatches(sim), [[1, 2, 4, 3]]);
  const st = sim.state();
  assert.equal(st.owner.counts.active, 10);
  assert.equal(st.owner.counts.ready, 10);
  assert.equal(st.owner.status.readyReplicas, 10, "the controller wrote the status");
  assert.ok(st.pods.every((p) => p.node !== null && p.phase === "Running" && p.ready && p.owner === "web"));
  assert.deepEqual(st.nodes.map((n) => n.name), ["node-1", "node-2", "node-3"]);
  assert.equal(st.nodes.reduce((n, node) => n + node.pods.length, 0), 10);
  const h = sim.history();
  assert.deepEqual(h[0], { t: 0, desired: 0, current: 0, ready: 0, available: 0, terminating: 0 });
  assert.equal(h.at(-1).current, 10);
  assert.ok(h.every((s, i) => i === 0 || s.t >= h[i - 1].t), "samples in time order");
});

test("a quota stops slow start, sets ReplicaFailure and records FailedCreate events", () => {
  const sim = new Simulator({ seed: 2, replicas: 10, quota: 5 });
  sim.advance(0);
  const [first] = sim.trace().filter((e) => e.kind === "sync" && e.sync.action === "create");
  assert.deepEqual(first.sync.batches.map((b) => [b.size, b.ok, b.failed]), [[1, 1, 0], [2, 2, 0], [4, 2, 2]]);
  assert.match(first.sync.batches[2].errors[0], /exceeded quota/);
  const st = sim.state();
  assert.equal(st.owner.replicaFailure?.reason, "FailedCreate");
  assert.ok(st.events.some((e) => e.reason === "FailedCreate" && e.type === "Warning"));
  assert.equal(st.owner.expectationsSatisfied, false, "the 5 creations are not observed yet");
  sim.setQuota(null);
  sim.advance(60_000);
  assert.equal(sim.state().owner.counts.active, 10);
  assert.equal(sim.state().owner.replicaFailure, null);
});

test("scale-down deletes the pods the preview and the ranking named, first to go first", () => {
  const sim = new Simulator({ seed: 3, replicas: 6 });
  sim.advance(20_000);
  const cheap = sim.state().pods[4].name;
  sim.editPod(cheap, { deletionCost: -100 });
  const preview = sim.preview(2);
  assert.equal(preview.victims.length, 4);
  assert.equal(preview.victims[0].name, cheap);
  assert.equal(preview.victims[0].rule, "deletionCost");
  assert.deepEqual(preview.victims.map((v) => v.name), sim.ranking().pods.slice(0, 4).map((p) => p.name));
  sim.setReplicas(2);
  sim.advance(100);
  const deleted = sim
    .trace()
    .filter((e) => e.kind === "sync" && e.sync.action === "delete")
    .flatMap((e) => e.sync.victims.filter((v) => v.ok).map((v) => v.name));
  assert.deepEqual(deleted, preview.victims.map((v) => v.name));
  // With PodDeletionCost off the annotation does not decide.
  assert.ok(sim.ranking({ PodDeletionCost: false }).pods.every((p) => p.rule !== "deletionCost"));
});

test("LogarithmicScaleDown off switches to the pre-1.31 order", () => {
  const sim = new Simulator({ seed: 4, replicas: 5 });
  sim.advance(20_000);
  sim.setFeatureGates({ LogarithmicScaleDown: false });
  const st = sim.state();
  assert.equal(st.config.featureGates.LogarithmicScaleDown, false);
  assert.equal(st.config.emulationVersion, "1.30");
  const rules = sim.ranking().pods.map((p) => p.rule);
  assert.ok(!rules.includes("readyTimeUid") && !rules.includes("creationTimeUid"), rules.join());
});

test("a scenario travels as JSON (a URL) and replays to the same state and trace", () => {
  const a = new Simulator({ seed: 5, replicas: 3, faults: { watchDrop: 0.1, createFailure: 0.2 } });
  a.advance(3_000);
  a.setReplicas(7);
  a.step();
  a.killPod(a.state().pods[0].name);
  a.advance(40_000);
  const url = `https://example.invalid/#${encodeURIComponent(JSON.stringify(a.scenario()))}`;
  const b = new Simulator(decodeURIComponent(url.split("#")[1]));
  b.advance(a.state().t);
  assert.deepEqual(b.state(), a.state());
  assert.deepEqual(b.trace(), a.trace());
  assert.deepEqual(b.history(), a.history());
});

test("the shipped cluster imports as the initial state", () => {
  const list = cluster();
  const sim = new Simulator({ seed: 6, cluster: list });
  const st = sim.state();
  assert.equal(st.owners.length, list.items.filter((i) => i.kind === "ReplicaSet").length);
  assert.equal(st.pods.length, list.items.filter((i) => i.kind === "Pod").length);
  assert.ok(st.pods.every((p) => p.ageMs >= 0));
  // Each owner's ranking and preview, by name.
  const explained = explain(list, { now: st.now, replicas: 3 });
  for (const o of st.owners) {
    const preview = sim.preview(3, undefined, o.key);
    const expected = explained.owners.find((x) => x.name === o.name)?.scaleDown?.victims.map((v) => v.name) ?? [];
    assert.deepEqual(preview.victims.map((v) => v.name), expected, o.key);
    assert.equal(sim.ranking(undefined, o.name).pods.length, o.counts.active);
  }
  assert.throws(() => sim.ranking(undefined, "nobody"), (e) => isReplicoreError(e) && e.path === "owner");
});

test("bad input throws errors with code and path; the instance stays usable", () => {
  assert.throws(() => new Simulator({ seed: 1, faults: { watchDrop: 2 } }), (e) => isReplicoreError(e) && e.path === "faults.watchDrop");
  assert.throws(() => new Simulator("{"), (e) => isReplicoreError(e) && e.code === "SYNTAX");
  const sim = new Simulator({ seed: 7, replicas: 2 });
  assert.throws(() => sim.killPod("ghost"), (e) => isReplicoreError(e) && e.path === "edit.pod");
  assert.throws(() => sim.setReplicas(-1), (e) => isReplicoreError(e) && e.code === "NEGATIVE");
  assert.throws(() => sim.advance(1.5), (e) => isReplicoreError(e) && e.path === "ms");
  assert.equal(sim.scenario().edits, undefined, "failed edits are not recorded");
  sim.advance(10_000);
  assert.equal(sim.state().owner.counts.active, 2);
});

test("a Deployment rolls out through the engine: 25%/25% of 10 keeps ≤ 13 pods and ≥ 8 available; undo returns to the first ReplicaSet", () => {
  const sim = new Simulator({ seed: 11, deployment: { replicas: 10 } });
  sim.advance(60_000);
  let d = sim.state().deployment;
  assert.equal(d.complete, true);
  assert.deepEqual([d.maxSurge, d.maxUnavailable, d.maxPods, d.minAvailable], [3, 2, 13, 8]);
  const first = d.lanes[0].name;
  const from = sim.state().t;
  sim.setImage("web:v2");
  sim.advance(120_000);
  d = sim.state().deployment;
  assert.equal(d.complete, true);
  assert.deepEqual(d.lanes.map((l) => [l.revision, l.desired, l.counts.available]), [[1, 0, 0], [2, 10, 10]]);
  const rollout = sim.deploymentHistory().filter((s) => s.t >= from);
  assert.equal(Math.max(...rollout.map((s) => s.pods)), 13);
  assert.equal(Math.min(...rollout.map((s) => s.available)), 8);
  const syncs = sim.trace().filter((e) => e.kind === "deploymentSync").map((e) => e.sync);
  assert.ok(syncs.some((s) => s.rule.includes("D-54")), "each sync names its limiting rule");
  assert.equal(d.status.conditions.find((c) => c.type === "Progressing").reason, "NewReplicaSetAvailable");
  sim.undoDeployment();
  sim.advance(120_000);
  d = sim.state().deployment;
  const back = d.lanes.find((l) => l.name === first);
  assert.deepEqual([back.revision, back.desired, back.counts.available], [3, 10, 10]);
  // The scenario with its edits replays to the same run.
  const replay = new Simulator(JSON.stringify(sim.scenario()));
  replay.advance(sim.state().t);
  assert.deepEqual(replay.state(), sim.state());
});

test("a failing template with maxUnavailable 0 stalls with ProgressDeadlineExceeded; pause stops a rollout", () => {
  const sim = new Simulator({ seed: 12, deployment: { replicas: 4, maxSurge: 1, maxUnavailable: 0, progressDeadlineSeconds: 30 } });
  sim.advance(60_000);
  sim.setImage("web:broken", "neverReady");
  sim.advance(120_000);
  const d = sim.state().deployment;
  const progressing = d.status.conditions.find((c) => c.type === "Progressing");
  assert.deepEqual([progressing.status, progressing.reason], ["False", "ProgressDeadlineExceeded"]);
  assert.deepEqual(d.lanes.map((l) => [l.desired, l.counts.available]), [[4, 4], [1, 0]]);
  assert.throws(() => new Simulator({ seed: 1, replicas: 1 }).scaleDeployment(2), (e) => isReplicoreError(e));
  const paused = new Simulator({ seed: 13, deployment: { replicas: 3 } });
  paused.advance(30_000);
  paused.pauseDeployment(true);
  paused.setImage("web:v2");
  paused.advance(60_000);
  assert.equal(paused.state().deployment.lanes.length, 1);
  paused.pauseDeployment(false);
  paused.advance(60_000);
  assert.equal(paused.state().deployment.complete, true);
  assert.equal(paused.state().deployment.lanes.length, 2);
});
