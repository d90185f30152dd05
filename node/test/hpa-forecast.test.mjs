// The autoscaling forecast through the package (hpaForecast): same seed same result, a
// step load scales up within the scale-up policy per period and never above max, a drop
// scales down only once the stabilization window has passed, a rollout partway takes the
// HPA's writes on both ReplicaSets, of two metrics the one reading more load drives the
// count, bad input is refused with a ReplicoreError naming the field while the module
// keeps working, a sync asked for (explainAtSeconds) comes explained. The decisions are the
// engine's HPA sync (core/src/hpa/forecast.rs); the Rust tests are
// core/tests/engine/hpa_forecast.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as replicore from "replicore";
import { cpuHpa } from "./helpers.mjs";

const { hpaForecast, isReplicoreError } = replicore;

const hpa = (behavior) => cpuHpa(2, 20, behavior);

const stepUp = (seed) => ({
  hpa: hpa({ scaleUp: { policies: [{ type: "Pods", value: 4, periodSeconds: 60 }] } }),
  load: { kind: "step", from: 4, to: 40, atSeconds: 120 },
  initialReplicas: 4,
  durationSeconds: 900,
  seed,
});

test("same seed, same forecast; another seed, other samples", () => {
  const a = hpaForecast(stepUp(7));
  const b = hpaForecast(stepUp(7));
  assert.deepEqual(a, b);
  assert.equal(a.steps.length, 61);
  const c = hpaForecast(stepUp(8));
  assert.notDeepEqual(
    a.steps.map((s) => s.utilization),
    c.steps.map((s) => s.utilization),
  );
});

test("explainAtSeconds explains that sync as explainHpa does, and changes nothing else", () => {
  const plain = hpaForecast(stepUp(3));
  assert.equal(plain.explanation, undefined);
  const f = hpaForecast({ ...stepUp(3), explainAtSeconds: 135 });
  assert.deepEqual(f.steps, plain.steps);
  const step = plain.steps.find((s) => s.seconds === 135);
  const e = f.explanation;
  assert.equal(e.desiredReplicas, step.desiredReplicas);
  assert.equal(e.rescaleTo, step.rescaledTo);
  assert.equal(e.limit.reason, step.limitedBy);
  assert.equal(e.memory.given, true);
  assert.match(e.text, /^HorizontalPodAutoscaler default\/web → Deployment\/web/);
});

test("a step up scales within the policy per period and never above max", () => {
  const f = hpaForecast({ ...stepUp(1), start: new Date("2026-11-27T12:00:00Z") });
  let before = 4;
  const ups = [];
  for (const s of f.steps) {
    if (s.rescaledTo == null) continue;
    ups.push({ t: s.seconds, change: s.rescaledTo - before });
    before = s.rescaledTo;
  }
  assert.equal(ups[0].t, 120, "the first sync after the step scales up");
  for (const { t } of ups) {
    const added = ups.filter((u) => u.t > t - 60 && u.t <= t && u.change > 0).reduce((n, u) => n + u.change, 0);
    assert.ok(added <= 4, `${added} pods added in the 60 s to ${t}`);
  }
  for (const s of f.steps) {
    assert.ok(s.replicas <= 20 && s.pods <= 20 && s.desiredReplicas <= 20, JSON.stringify(s));
  }
  assert.ok(f.steps.some((s) => s.limitedBy === "ScaleUpLimit"));
  assert.equal(f.steps.at(-1).replicas, 20);
  assert.equal(f.steps.at(-1).limitedBy, "TooManyReplicas");
  assert.equal(f.totals.directionChanges, 0);
  assert.equal(f.shortfalls.length, 1);
});

test("a drop scales down only after the stabilization window", () => {
  for (const window of [60, 300]) {
    const f = hpaForecast({
      hpa: hpa({ scaleDown: { stabilizationWindowSeconds: window } }),
      load: { kind: "step", from: 16, to: 3, atSeconds: 300 },
      initialReplicas: 16,
      durationSeconds: 1200,
      seed: 3,
    });
    const downs = f.steps.filter((s) => s.rescaledTo != null && s.rescaledTo < s.currentReplicas);
    assert.ok(downs.length > 0);
    const first = downs[0].seconds;
    // The last high recommendation (285 s) leaves the window `window` seconds later.
    assert.ok(first >= 300 + window - 15 && first <= 300 + window + 15, `window ${window}: down at ${first}`);
    for (const s of f.steps.filter((s) => s.seconds >= 300 && s.seconds < first)) {
      assert.equal(s.limitedBy, "ScaleDownStabilized");
    }
    assert.equal(f.totals.secondsUnderCapacity, 0);
  }
});

// The Deployment at 10 replicas with a rollout partway (old 6, new 4; maxSurge 2,
// maxUnavailable 0; new pods Ready 60 s after creation), the load stepping from 10 to 16
// pods at target at 60 s.
const rolloutPartway = (seed) => ({
  hpa: hpa({ scaleUp: { policies: [{ type: "Pods", value: 4, periodSeconds: 60 }] } }),
  load: { kind: "step", from: 10, to: 16, atSeconds: 60 },
  initialReplicas: 10,
  rollout: { maxSurge: 2, maxUnavailable: 0, partway: { old: 6, new: 4 }, pods: { readySeconds: 60 } },
  durationSeconds: 900,
  seed,
});

test("a rollout partway takes the HPA's scale-up on both ReplicaSets and completes", () => {
  const f = hpaForecast(rolloutPartway(2));
  assert.deepEqual(f, hpaForecast(rolloutPartway(2)));
  assert.deepEqual([f.steps[0].newReplicas, f.steps[0].oldReplicas], [6, 6]);
  // At 60 s the just-Ready and the Pending new pods count at 0 % for a scale-up: the
  // ratio falls inside the tolerance; the HPA writes at 75 s.
  const at60 = f.steps.find((s) => s.seconds === 60);
  assert.equal(at60.rescaledTo, undefined);
  assert.equal(at60.scalingLimited, "DesiredWithinRange");
  const write = f.steps.find((s) => s.rescaledTo != null);
  assert.deepEqual([write.seconds, write.rescaledTo], [75, 14]);
  // The Deployment controller splits the new count over both ReplicaSets.
  const next = f.steps.find((s) => s.seconds === 90);
  assert.ok(next.oldReplicas > write.oldReplicas && next.newReplicas > write.newReplicas, JSON.stringify(next));
  const last = f.steps.at(-1);
  assert.equal(last.oldReplicas, 0);
  assert.equal(last.newReplicas, last.replicas);
  assert.ok(f.totals.rolloutSeconds > 60 && f.totals.rolloutSeconds < 900, JSON.stringify(f.totals));
});

test("of two metrics, the one reading more load drives the count", () => {
  const two = (factor) =>
    hpaForecast({
      hpa: {
        ...hpa(undefined),
        spec: {
          ...hpa(undefined).spec,
          metrics: [
            { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } },
            { type: "Pods", pods: { metric: { name: "requests_per_second" }, target: { type: "AverageValue", averageValue: "10" } } },
          ],
        },
      },
      load: { kind: "step", from: 4, to: 8, atSeconds: 60 },
      metrics: [{}, { factor }],
      pods: { noise: 0 },
      initialReplicas: 4,
      durationSeconds: 600,
      seed: 4,
    });
  assert.equal(two(1).steps.at(-1).replicas, 8);
  const heavy = two(1.5).steps.at(-1);
  assert.equal(heavy.replicas, 12);
  assert.deepEqual(
    heavy.metrics.map((m) => [m.name, m.load]),
    [
      ["cpu", 8],
      ["requests_per_second", 12],
    ],
  );
  assert.equal(heavy.metrics[1].averageValue, "10");
});

test("bad input is refused with its path and the module keeps working", () => {
  for (const [patch, path] of [
    [{ load: { kind: "points", points: [] } }, "load.points"],
    [{ pods: { noise: 2 } }, "pods.noise"],
    [{ load: { kind: "sine" } }, "load"],
    [{ metrics: [{ factor: -1 }] }, "metrics[0].factor"],
    [{ rollout: { partway: { old: -1, new: 2 } } }, "rollout.partway.old"],
  ]) {
    assert.throws(
      () => hpaForecast({ ...stepUp(1), ...patch }),
      (e) => isReplicoreError(e) && e.path.startsWith(path),
    );
  }
  assert.throws(() => hpaForecast(null), (e) => isReplicoreError(e));
  assert.equal(hpaForecast(stepUp(1)).steps.length, 61);
});
