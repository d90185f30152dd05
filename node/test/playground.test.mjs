// "replicore/playground": the page's API over the playground's module, the full module's
// size build with the exports the page does not call removed (scripts/build.sh,
// playground_module; the list in scripts/playground-exports.json). Every function and
// Simulator method the entry offers is called here against that very module, so an export
// the list left out fails here ("... is not a function") rather than in a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as playground from "replicore/playground";
import { NOW, cluster, cpuHpa } from "./helpers.mjs";

const wasm = (name) => readFileSync(new URL(`../dist/wasm-full/${name}`, import.meta.url));
const exportsOf = (bytes) => WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);

test("the entry offers the page's functions, and nothing of the engine surface the module lacks", () => {
  const offered = Object.keys(playground).sort();
  assert.deepEqual(offered, [
    "Simulator",
    "deletionCostAnnotation",
    "deploymentObjectKeys",
    "explain",
    "explainHpa",
    "explainJson",
    "explainReport",
    "explainText",
    "hpaForecast",
    "isReplicoreError",
    "podFacts",
    "rankRuleTexts",
    "version",
  ]);
});

test("the playground's module is the full module's size build less the exports the page does not call", () => {
  const full = wasm("replicore_full_small_bg.wasm");
  const page = wasm("replicore_playground_bg.wasm");
  const fullExports = exportsOf(full);
  const pageExports = exportsOf(page);
  assert.deepEqual(pageExports.filter((n) => !fullExports.includes(n)), []);
  for (const gone of ["plan", "complete", "store_new", "eventcorrelator_new", "hpasyncrun_new", "deploymentsyncrun_new", "podQuotaUsed"]) {
    assert.ok(!pageExports.includes(gone), `${gone} is removed`);
  }
  for (const kept of ["simulator_new", "explainReport", "hpaForecast", "memory"]) assert.ok(pageExports.includes(kept), `${kept} is kept`);
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  assert.ok(gz(page) < gz(full) * 0.9, `${gz(page)} B against ${gz(full)} B after gzip -9`);
});

test("every function of the entry answers against the playground's module", () => {
  const list = cluster();
  assert.match(playground.version(), /^\d+\.\d+\.\d+/);
  assert.equal(typeof playground.deletionCostAnnotation(), "string");
  assert.ok(Object.keys(playground.rankRuleTexts()).length > 0);
  assert.equal(playground.deploymentObjectKeys().podTemplateHashLabel, "pod-template-hash");
  assert.ok(playground.podFacts(JSON.stringify(list)).length > 0);
  assert.ok(playground.explain(list, { now: NOW }).owners.length > 0);
  assert.ok(playground.explainJson(JSON.stringify(list), { now: NOW }).owners.length > 0);
  assert.match(playground.explainText(JSON.stringify(list), { now: NOW }), /ReplicaSet/);
  assert.ok(playground.explainReport(JSON.stringify(list), { now: NOW }));
  const hpa = cpuHpa(2, 20);
  const forecast = playground.hpaForecast({ hpa, load: { kind: "step", from: 4, to: 40, atSeconds: 120 }, initialReplicas: 4, durationSeconds: 300, seed: 1 });
  assert.ok(forecast.steps.length > 0);
  const why = playground.explainHpa({
    now: NOW,
    objects: { kind: "List", items: [hpa, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas: 2, selector: { matchLabels: { app: "web" } } } }] },
    metrics: [{ kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", items: [] }],
  });
  assert.ok(why);
  // A refused input is the engine's error, and the instance stays usable.
  let refused;
  try {
    playground.explainJson("{", { now: NOW });
  } catch (e) {
    refused = e;
  }
  assert.ok(playground.isReplicoreError(refused));
  assert.match(playground.version(), /^\d/);
});

test("every Simulator method answers against the playground's module", () => {
  const sim = new playground.Simulator({ seed: 7, replicas: 3, nodes: 2 });
  assert.equal(typeof sim.step(), "boolean");
  sim.advance(5_000);
  sim.apply({ op: "setReplicas", replicas: 2 });
  sim.advance(5_000);
  assert.ok(sim.state());
  assert.ok(Array.isArray(sim.trace(0)));
  assert.ok(Array.isArray(sim.history()));
  assert.ok(Array.isArray(sim.deploymentHistory()));
  assert.ok(Array.isArray(sim.hpaSyncs()));
  assert.ok(sim.ranking(undefined, undefined));
  assert.ok(sim.preview(1, undefined, undefined));
  assert.ok(sim.scenario());
  sim.free();
});
