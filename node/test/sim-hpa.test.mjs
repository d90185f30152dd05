// HPAs in the simulator through the package entry: the scenario's `hpa`, the HPA syncs
// (`hpaSyncs()`, the trace's `hpaSync` entries, `state().hpa`), the live `setLoad`, and
// the engine's forecast equal to the run when the kubelet plays the forecast's pod model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "replicore/sim";
import { hpaForecast } from "replicore";
import { cpuHpa } from "./helpers.mjs";

const hpa = cpuHpa(2, 10);
const load = { kind: "spike", base: 2, peak: 9, atSeconds: 60, durationSeconds: 600 };

/** A settled Deployment of 2 whose kubelet plays the forecast's pod model (Running at 5 s, Ready at 30 s). */
function scenario(seed) {
  return {
    seed,
    deployment: { replicas: 2, settled: true },
    delays: { watch: 0, schedule: 0, start: 5000, ready: 25000, terminate: 0 },
    hpa: { hpa, load },
  };
}

test("the run equals the engine's forecast of the same input, sync for sync", () => {
  const sim = new Simulator(scenario(4));
  sim.advance(1_200_000);
  const run = sim.hpaSyncs().map((s) => s.step);
  const forecast = hpaForecast({
    hpa,
    load,
    seed: 4,
    initialReplicas: 2,
    durationSeconds: 1200,
    pods: { createDelaySeconds: 0, runningSeconds: 5, readySeconds: 30 },
  });
  assert.equal(run.length, 81);
  assert.deepEqual(run, forecast.steps);
  assert.ok(run.some((s) => s.rescaledTo === 9));
});

test("HPA syncs appear in the trace and the state; setLoad changes the load live", () => {
  const sim = new Simulator({ ...scenario(5), delays: undefined });
  sim.advance(30_000);
  const traced = sim.trace().filter((e) => e.kind === "hpaSync");
  assert.deepEqual(traced.map((e) => e.t), [0, 15_000, 30_000]);
  assert.deepEqual(traced.map((e) => e.sync), sim.hpaSyncs());
  const st = sim.state();
  assert.equal(st.hpa.key, "default/web");
  assert.equal(st.hpa.load, 2);
  assert.ok(st.hpa.conditions.some((c) => c.type === "AbleToScale"));
  sim.setLoad({ kind: "step", from: 6, to: 6, atSeconds: 0 });
  sim.advance(15_000);
  const last = sim.hpaSyncs().at(-1);
  assert.equal(last.step.load, 6);
  // 6 wanted; without `behavior` the scale-up limit is max(2 × 2, 4) = 4 per sync.
  assert.equal(last.step.desiredReplicas, 4);
  assert.equal(last.step.limitedBy, "ScaleUpLimit");
  assert.equal(last.step.rescaledTo, 4);
  assert.equal(sim.state().deployment.replicas, 4);
  assert.equal(sim.scenario().edits[0].op, "setLoad");
});

test("an HPA without a Deployment, or with a bad load, throws with its path", () => {
  assert.throws(() => new Simulator({ seed: 1, replicas: 2, hpa: { hpa, load } }), (e) => e.path === "hpa");
  assert.throws(
    () => new Simulator({ ...scenario(1), hpa: { hpa, load: { kind: "step", from: -1, to: 2, atSeconds: 0 } } }),
    (e) => e.path === "hpa.load.from",
  );
});
