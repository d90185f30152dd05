// Every export of the package, and every method of Store and Simulator, answers any JS
// value with a value or a ReplicoreError (an Error with string `code` and `path`): 10,000
// seeded random calls with values of every kind (wrong types, BigInt, Symbol, invalid
// Dates, missing options, cycles, deep arrays, hand-edited plans, near-valid objects with
// one field broken). After each throw, the instance that threw still answers a known call
// with the known answer, and a failed call changed nothing (for the simulator: not its
// clock, specs or recorded edits; events already due may have run). Not timed: the seed fixes the
// calls, so a failure replays (FUZZ_SEED and FUZZ_CALLS override them; FUZZ_TIMES=1
// prints the time spent per call).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as replicore from "replicore";
import * as explainEntry from "replicore/explain";
import * as simEntry from "replicore/sim";
import { NOW, cluster, prng } from "./helpers.mjs";

const { Store, isReplicoreError } = replicore;
const { Simulator } = simEntry;

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const CALLS = Number(process.env.FUZZ_CALLS ?? 10_000);


const list = cluster();
const owners = list.items.filter((i) => i.kind === "ReplicaSet");
const pods = list.items.filter((i) => i.kind === "Pod");
const owner = owners[0];
const input = { now: NOW, owner, otherOwners: owners.slice(1), pods };
const scaleUp = { now: NOW, owner: { ...owner, spec: { ...owner.spec, replicas: 9 } }, pods: [] };
const scenario = { seed: 7, replicas: 3, nodes: 2 };
// A Deployment of the cluster's owner, its sync input, and a sync's end.
const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: owner.metadata.namespace, uid: "dep-web" },
  spec: { replicas: 3, selector: owner.spec.selector, template: owner.spec.template, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } } },
};
const depInput = { now: NOW, key: `${owner.metadata.namespace}/web`, deployment, replicaSets: owners, pods };
const syncDone = { events: [], error: { message: "boom", namespaceTerminating: false }, requeue: { kind: "none" }, calls: 1 };

// Shared structures of the kinds JSON cannot take.
const cyclic = { kind: "List", items: [] };
cyclic.items.push(cyclic);
let deepArray = [];
for (let i = 0; i < 20_000; i++) deepArray = [deepArray];
let deepObject = {};
for (let i = 0; i < 20_000; i++) deepObject = { a: deepObject };
const throwingGetter = Object.defineProperty({}, "now", { enumerable: true, get: () => { throw new Error("getter"); } });
const throwingToJSON = { toJSON() { throw new TypeError("toJSON"); } };
const bigString = "x".repeat(1 << 20);

/** JSON text of a (mutated) value, or "" when it has none. */
function text(v) {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

function run(seed) {
  const rnd = prng(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (xs) => xs[int(xs.length)];

  const scalars = [
    undefined, null, true, false, 0, -0, 1, -1, 3, 1.5, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 1e308, -1e308,
    0n, 1n, -1n, 2n ** 64n, Symbol("s"), Symbol.iterator,
    "", "x", "shop", "default", "web", NOW, "yesterday", "{}", "[]", "null", "{\"now\":", "\u0000", "\ud800", bigString,
    new Date(NOW), new Date(NaN), new Date(8.64e15), () => 1, function named() {}, new Uint8Array([123, 125]), new Uint8Array(0),
    new Map([["a", 1]]), new Set([1]), /re/, new Error("e"), Object.create(null), cyclic, deepArray, deepObject, throwingGetter, throwingToJSON,
  ];
  // Values the calls expect, to break one field at a time.
  const valid = [input, scaleUp, owner, pods, pods[0], list, { now: NOW }, { now: new Date(NOW) }, { type: "added", object: pods[0] }, { type: "updated", object: owner, old: owner }, scenario, { op: "setReplicas", replicas: 2 }, { burstReplicas: 3 }, [{ result: "ok" }], { add: 1, del: 0, timestamp: NOW }, [{ op: "set", add: 1, del: 0 }], { matchLabels: { app: "web" } }, { app: "web" }, depInput, deployment, syncDone, { input: depInput, results: [{ result: "ok" }] }];

  function value(depth = 0) {
    const r = rnd();
    if (r < 0.45 || depth > 3) return pick(scalars);
    if (r < 0.6) return Array.from({ length: int(4) }, () => value(depth + 1));
    if (r < 0.75) return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(["now", "owner", "pods", "metadata", "spec", "type", "object", "op", "replicas", "x"]), value(depth + 1)]));
    return mutate(pick(valid), depth);
  }

  /** A structured copy of `v` with one field (at some depth) replaced by a random value. */
  function mutate(v, depth) {
    if (typeof v !== "object" || v === null || depth > 4) return value(depth + 1);
    const copy = Array.isArray(v) ? [...v] : { ...v };
    const keys = Object.keys(copy);
    if (keys.length === 0) return copy;
    const k = pick(keys);
    copy[k] = rnd() < 0.5 ? value(depth + 1) : mutate(copy[k], depth + 1);
    if (rnd() < 0.2) delete copy[pick(keys)];
    return copy;
  }

  return { rnd, int, pick, value, mutate };
}

test("10,000 random calls over every export answer with a value or a ReplicoreError", async () => {
  const g = run(SEED);
  const { int, pick, value, mutate, rnd } = g;
  const arg = (good) => (rnd() < 0.5 && good !== undefined ? (rnd() < 0.5 ? good : mutate(good, 0)) : value());

  // The known calls and their answers, checked after every throw.
  const knownPlan = () => replicore.plan(input);
  const expectedPlan = JSON.stringify(knownPlan());
  const knownExplain = () => explainEntry.explain(list, { now: NOW, replicas: 1 });
  const expectedExplain = JSON.stringify(knownExplain());
  const store = new Store();
  for (const o of owners) store.upsertOwner(o);
  for (const p of pods) store.upsertPod(p);
  const storeView = () => JSON.stringify([store.size(), store.planFor(owner.metadata.namespace, owner.metadata.name, { now: NOW })]);
  const sim = new Simulator(scenario);
  sim.advance(5_000);
  // A failed edit may have run the events already due at this instant (the simulator
  // runs them before any edit); the clock, the owners' specs and the recorded edits must
  // not change. The trace's tail and the history must still read.
  const simView = () => {
    const state = sim.state();
    const n = state.traceLength;
    assert.equal(sim.trace(Math.max(0, n - 3)).length, Math.min(n, 3));
    assert.ok(Array.isArray(sim.history()));
    return JSON.stringify([state.t, state.owners.map((o) => o.desired), sim.scenario().edits?.length ?? 0]);
  };


  // Plans to hand back: real ones, of this module and of the store, and edited copies.
  const made = () => {
    const p = pick([() => replicore.plan(input), () => replicore.plan(scaleUp), () => store.planFor("shop", pick(owners).metadata.name, { now: NOW })])();
    if (rnd() < 0.3) {
      const r = rnd();
      if (r < 0.25) p.claims = value();
      else if (r < 0.5) delete p.manage;
      else if (r < 0.75) p.manage = value();
      else Object.setPrototypeOf(p, null);
    }
    return p;
  };
  const planArg = () => (rnd() < 0.6 ? made() : value());

  const api = {
    version: () => replicore.version(),
    wasmMemoryBytes: () => replicore.wasmMemoryBytes(),
    podFields: () => replicore.podFields(),
    plan: () => replicore.plan(arg(input), arg(undefined)),
    planJson: () => replicore.planJson(rnd() < 0.3 ? text(mutate(input, 0)) : value(), arg(undefined)),
    adoptionAllowed: () => replicore.adoptionAllowed(planArg(), arg({ found: owner })),
    manageAfterClaims: () => replicore.manageAfterClaims(planArg(), arg({ results: [], liveOwner: { found: owner } })),
    complete: () => replicore.complete(planArg(), arg({ creates: [], deletes: [] })),
    completeInput: () => replicore.completeInput(arg(input), arg({ creates: [] }), arg(undefined)),
    abandonedExpectations: () => replicore.abandonedExpectations(arg(pick([() => replicore.plan(scaleUp).manage, () => replicore.plan(input).manage])()), arg([{ result: "ok" }])),
    nextBatch: () => replicore.nextBatch(arg({ count: 3, batches: [1, 2] }), arg([{ result: "ok" }])),
    createEvent: () => replicore.createEvent(arg(pick([() => ({ result: "ok", name: "web-1" }), () => ({ result: "error", reason: "Forbidden", message: "no" })])())),
    deleteEvent: () => replicore.deleteEvent(arg("web-1"), arg({ result: "error", reason: "NotFound", message: "gone", code: 404 })),
    rankPods: () => replicore.rankPods(arg(pods), arg({ now: NOW })),
    onPodEvent: () => replicore.onPodEvent(arg({ type: "added", object: pods[0] }), arg(owners), arg(undefined)),
    onOwnerEvent: () => replicore.onOwnerEvent(arg({ type: "added", object: owner })),
    applyExpectations: () => replicore.applyExpectations(arg({ add: 1, del: 0, timestamp: NOW }), arg([{ op: "delete" }]), arg(NOW)),
    podQuotaUsed: () => replicore.podQuotaUsed(arg(pods), arg(NOW)),
    expectationsSatisfied: () => replicore.expectationsSatisfied(arg({ add: 0, del: 0, timestamp: NOW }), arg(new Date(NOW))),
    selectorMatches: () => replicore.selectorMatches(arg({ matchLabels: { app: "web" } }), arg({ app: "web" })),
    calculateStatus: () => replicore.calculateStatus(arg({ now: NOW, owner, activePods: pods }), arg(undefined)),
    slowStart: () => replicore.slowStart(arg(5), arg(1), arg([2])),
    upstreamLess: () => replicore.upstreamLess(arg(pods[0]), arg(0), arg(pods[1]), arg(1), arg({ now: NOW })),
    isReplicoreError: () => replicore.isReplicoreError(value()),
    correlateEvent: () => replicore.correlateEvent(arg(null), arg(recordable), arg(NOW)),
    EventCorrelator: () => {
      const c = new replicore.EventCorrelator(arg(null));
      try {
        for (const [name, f] of Object.entries(correlatorMethods)) if (name !== "free") f(c);
      } finally {
        c.free();
      }
    },
    Store: () => new Store(arg({ burstReplicas: 2 })).free(),
    ExpectationsTable: () => {
      const t = new replicore.ExpectationsTable();
      const view = () => JSON.stringify([t.size(), t.get("shop/a")]);
      try {
        t.apply("shop/a", [{ op: "expectDeletions", keys: ["shop/p0", "shop/p1"] }], NOW);
        for (const [name, f] of Object.entries(tableMethods)) {
          if (name === "free") continue;
          const before = view();
          try {
            f(t);
          } catch (e) {
            if (!isReplicoreError(e)) throw e;
            assert.equal(view(), before, `a refused ExpectationsTable.${name} changed the table`);
          }
        }
      } finally {
        t.free();
      }
    },
    deploymentSyncStart: () => replicore.deploymentSyncStart(arg(depInput)),
    deploymentSyncNext: () => replicore.deploymentSyncNext(arg(depState)),
    deploymentSyncReport: () => replicore.deploymentSyncReport(arg(depState), arg({ result: "ok" })),
    DeploymentSyncRun: () => {
      const r = rnd() < 0.3 ? replicore.DeploymentSyncRun.fromState(arg(depState)) : new replicore.DeploymentSyncRun(arg(depInput));
      try {
        for (const [name, f] of Object.entries(syncRunMethods)) if (name !== "free") f(r);
      } finally {
        r.free();
      }
    },
    // Async: its rejections are collected and checked after the loop.
    runDeploymentSync: () => {
      rejections.push(replicore.runDeploymentSync(arg(depInput), () => arg({ result: "ok" })).then(() => undefined, (e) => e));
    },
    deploymentKeysForReplicaSetEvent: () => replicore.deploymentKeysForReplicaSetEvent(arg({ type: "added", object: owner }), arg([deployment])),
    deploymentKeysForPodDeleted: () => replicore.deploymentKeysForPodDeleted(arg(pods[0]), arg(owners), arg([deployment]), arg(pods)),
    deploymentQueueAction: () => replicore.deploymentQueueAction(arg(syncDone), arg(3)),
    deploymentReadsPods: () => replicore.deploymentReadsPods(arg(deployment)),
    deploymentObjectKeys: () => replicore.deploymentObjectKeys(),
    controllerQueueLimits: () => replicore.controllerQueueLimits(),
    generatedNameAlphabet: () => replicore.generatedNameAlphabet(),
    defaultConfig: () => replicore.defaultConfig(),
    generatedNameSuffixLength: () => replicore.generatedNameSuffixLength(),
    hpaSyncStart: () => replicore.hpaSyncStart(arg(hpaInput)),
    hpaSyncNext: () => replicore.hpaSyncNext(arg(hpaState)),
    hpaSyncReport: () => replicore.hpaSyncReport(arg(hpaState), arg({ answer: "mappings", resources: [{ group: "apps", resource: "deployments" }] })),
    HpaSyncRun: () => {
      const r = new replicore.HpaSyncRun(arg(hpaInput));
      try {
        r.next();
        r.report(arg({ answer: "mappings", resources: [{ group: "apps", resource: "deployments" }] }));
        r.state();
      } finally {
        r.free();
      }
    },
    runHpaSync: () => {
      rejections.push(replicore.runHpaSync(arg(hpaInput), () => arg({ answer: "ok" })).then(() => undefined, (e) => e));
    },
    hpaForecast: () => replicore.hpaForecast(arg(undefined)),
    hpaDefaultConfig: () => replicore.hpaDefaultConfig(),
    hpaPodFields: () => replicore.hpaPodFields(),
    hpaMetricResponse: () => replicore.hpaMetricResponse(arg({ api: "resource", namespace: "shop", selector: "app=web", resource: "cpu" }), arg([{ kind: "PodMetricsList", items: [] }])),
    hpaMetricSelector: () => replicore.hpaMetricSelector(arg({ api: "external", namespace: "shop", metric: "queue", metricSelector: { matchLabels: { q: "a" } } })),
    podsUsage: () => replicore.podsUsage(arg({ load: { kind: "step", from: 100, to: 500, atSeconds: 5 }, atSeconds: 10, noise: 0.1, pods })),
  };
  const hpaInput = {
    now: NOW,
    hpa: { metadata: { name: "web", namespace: "shop" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5 } },
  };
  const hpaState = replicore.hpaSyncStart(hpaInput);
  // A snapshot for "why N?": the HPA, its Deployment, the external metric's answer.
  const hpaExplainInput = {
    now: NOW,
    objects: { kind: "List", items: [{ kind: "HorizontalPodAutoscaler", ...hpaInput.hpa }, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 2, selector: { matchLabels: { app: "web" } } } }] },
    metrics: [{ kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", items: [] }],
  };
  // The "replicore/explain" entry (the explain report and pod facts), over the full module.
  const explainApi = {
    explain: () => explainEntry.explain(arg(list), arg({ now: NOW })),
    explainText: () => explainEntry.explainText(rnd() < 0.3 ? JSON.stringify(list) : value(), arg({ now: NOW })),
    explainReport: () => explainEntry.explainReport(rnd() < 0.3 ? JSON.stringify(list) : value(), arg(rnd() < 0.5 ? { now: NOW } : { now: NOW, forecast: {} })),
    podFacts: () => explainEntry.podFacts(rnd() < 0.3 ? JSON.stringify(list) : value(), arg(undefined)),
    rankRuleTexts: () => explainEntry.rankRuleTexts(),
    deletionCostAnnotation: () => explainEntry.deletionCostAnnotation(),
    explainJson: () => explainEntry.explainJson(rnd() < 0.3 ? JSON.stringify(list) : value(), arg({ now: NOW, replicas: 1 })),
    isReplicoreError: () => explainEntry.isReplicoreError(value()),
    explainHpa: () => explainEntry.explainHpa(arg(hpaExplainInput)),
  };
  const depState = replicore.deploymentSyncStart(depInput);
  const rejections = [];
  const syncRunMethods = {
    next: (r) => r.next(),
    report: (r) => r.report(arg({ result: "ok" })),
    state: (r) => r.state(),
    free: () => new replicore.DeploymentSyncRun(depInput).free(),
  };
  const storeMethods = {
    upsertOwner: (s) => s.upsertOwner(arg(owner)),
    deleteOwner: (s) => s.deleteOwner(arg("nowhere"), arg("none")),
    upsertPod: (s) => s.upsertPod(arg(pods[0])),
    upsertPodJson: (s) => s.upsertPodJson(rnd() < 0.3 ? text(mutate(pods[0], 0)) : value()),
    deletePod: (s) => s.deletePod(arg("nowhere"), arg("none")),
    onPodEvent: (s) => s.onPodEvent(arg({ type: "updated", object: pods[0] })),
    onOwnerEvent: (s) => s.onOwnerEvent(arg({ type: "updated", object: owner })),
    planFor: (s) => s.planFor(arg("shop"), arg(owner.metadata.name), arg({ now: NOW })),
    adoptionAllowed: (s) => s.adoptionAllowed(planArg(), arg({ found: owner })),
    manageAfterClaims: (s) => s.manageAfterClaims(planArg(), arg({ results: [], liveOwner: { found: owner } })),
    complete: (s) => s.complete(planArg(), arg({ creates: [], deletes: [] })),
    release: (s) => s.release(planArg()),
    size: (s) => s.size(),
    free: () => new Store().free(),
  };
  const recordable = { involvedObject: { kind: "ReplicaSet", namespace: "shop", name: owner.metadata.name, uid: owner.metadata.uid, apiVersion: "apps/v1" }, type: "Normal", reason: "SuccessfulCreate", message: "Created pod: web-1" };
  const tableMethods = {
    apply: (t) => t.apply(arg("shop/a"), arg([{ op: "deletionObserved", key: "shop/p0" }]), arg(NOW)),
    get: (t) => t.get(arg("shop/a")),
    satisfied: (t) => t.satisfied(arg("shop/a"), arg(NOW)),
    remove: (t) => t.remove(arg("shop/b")),
    size: (t) => t.size(),
    free: () => new replicore.ExpectationsTable().free(),
  };
  const correlatorMethods = {
    correlate: (c) => c.correlate(arg(recordable), arg(NOW)),
    written: (c) => c.written(arg({})),
    state: (c) => c.state(),
    size: (c) => c.size(),
    free: () => new replicore.EventCorrelator().free(),
  };
  const simMethods = {
    step: (s) => s.step(),
    advance: (s) => s.advance(rnd() < 0.3 ? int(2000) : value()),
    apply: (s) => s.apply(arg({ op: "setReplicas", replicas: 2 })),
    setReplicas: (s) => s.setReplicas(arg(2), arg(undefined)),
    setQuota: (s) => s.setQuota(arg(5)),
    setFeatureGates: (s) => s.setFeatureGates(arg({ PodDeletionCost: true })),
    setConfig: (s) => s.setConfig(arg({ burstReplicas: 3 })),
    setFaults: (s) => s.setFaults(arg({ createFailure: 0.1 })),
    setDelays: (s) => s.setDelays(arg({ watch: 10 })),
    editPod: (s) => s.editPod(arg("web-0"), arg({ ready: false })),
    addNode: (s) => s.addNode(arg("node-9")),
    removeNode: (s) => s.removeNode(arg("node-9")),
    killPod: (s) => s.killPod(arg("web-0"), arg(undefined)),
    setImage: (s) => s.setImage(arg("web:v2"), arg(undefined)),
    failTemplate: (s) => s.failTemplate(arg("neverReady")),
    scaleDeployment: (s) => s.scaleDeployment(arg(3)),
    pauseDeployment: (s) => s.pauseDeployment(arg(true)),
    undoDeployment: (s) => s.undoDeployment(arg(undefined)),
    deploymentHistory: (s) => s.deploymentHistory(),
    setLoad: (s) => s.setLoad(arg({ kind: "step", from: 1, to: 3, atSeconds: 0 }), arg(undefined)),
    hpaSyncs: (s) => s.hpaSyncs(),
    state: (s) => s.state(),
    trace: (s) => s.trace(arg(0)),
    history: (s) => s.history(),
    ranking: (s) => s.ranking(arg(undefined), arg(undefined)),
    preview: (s) => s.preview(arg(1), arg(undefined), arg(undefined)),
    scenario: (s) => s.scenario(),
    free: () => new Simulator(scenario).free(),
    Simulator: () => new Simulator(rnd() < 0.3 ? text(mutate(scenario, 0)) : arg(scenario)).free(),
  };

  // Every export and every method is in the tables: a new one must be fuzzed too.
  const functions = (m) => Object.keys(m).filter((k) => typeof m[k] === "function").sort();
  assert.deepEqual(functions(replicore), Object.keys(api).sort(), "every export of replicore is fuzzed");
  assert.deepEqual(functions(explainEntry), Object.keys(explainApi).sort(), "every export of replicore/explain is fuzzed");
  assert.deepEqual(functions(simEntry), ["Simulator"]);
  const methods = (C) => Object.getOwnPropertyNames(C.prototype).filter((k) => k !== "constructor").sort();
  assert.deepEqual(methods(Store), Object.keys(storeMethods).sort(), "every Store method is fuzzed");
  assert.deepEqual(methods(Simulator), Object.keys(simMethods).filter((k) => k !== "Simulator").sort(), "every Simulator method is fuzzed");
  assert.deepEqual(methods(replicore.EventCorrelator), Object.keys(correlatorMethods).sort(), "every EventCorrelator method is fuzzed");
  assert.deepEqual(methods(replicore.ExpectationsTable), Object.keys(tableMethods).sort(), "every ExpectationsTable method is fuzzed");
  assert.deepEqual(methods(replicore.DeploymentSyncRun), Object.keys(syncRunMethods).sort(), "every DeploymentSyncRun method is fuzzed");

  const calls = [
    ...Object.entries(api).map(([name, f]) => ({ name, kind: "api", f })),
    ...Object.entries(explainApi).map(([name, f]) => ({ name: `explain.${name}`, kind: "explain", f })),
    ...Object.entries(storeMethods).map(([name, f]) => ({ name: `Store.${name}`, kind: "store", f })),
    ...Object.entries(simMethods).map(([name, f]) => ({ name: `Simulator.${name}`, kind: "sim", f })),
  ];
  const time = {};
  const counts = { calls: 0, returned: 0, threw: 0, byCode: {} };
  for (let i = 0; i < CALLS; i++) {
    const c = pick(calls);
    const t0 = performance.now();
    const before = c.kind === "store" ? storeView() : c.kind === "sim" ? simView() : undefined;
    counts.calls++;
    try {
      c.f(c.kind === "store" ? store : sim);
      counts.returned++;
    } catch (e) {
      counts.threw++;
      const ok = isReplicoreError(e) && e.code.length > 0 && e.path.length > 0;
      assert.ok(ok, `call ${i} (${c.name}) threw something else than a ReplicoreError: ${e?.name}: ${String(e?.message).slice(0, 300)}`);
      assert.ok(e.message.length < 2_000, `call ${i} (${c.name}): a ${e.message.length}-character message`);
      counts.byCode[e.code] = (counts.byCode[e.code] ?? 0) + 1;
      assert.notEqual(e.code, "INTERNAL", `call ${i} (${c.name}): ${e.message}`);
      // The instance that threw still answers, and the failed call changed nothing.
      if (c.kind === "store") assert.equal(storeView(), before, `call ${i} (${c.name}) changed the store`);
      else if (c.kind === "sim") assert.equal(simView(), before, `call ${i} (${c.name}) changed the simulator`);
      assert.equal(JSON.stringify(knownPlan()), expectedPlan, `plan() after call ${i} (${c.name})`);
      if (c.kind === "explain") assert.equal(JSON.stringify(knownExplain()), expectedExplain, `explain() after call ${i} (${c.name})`);
    }
    // A valid call may change the store or the simulator; both must go on answering.
    if (c.kind === "store") storeView();
    if (c.kind === "sim") simView();
    time[c.name] = (time[c.name] ?? 0) + performance.now() - t0;
  }
  if (process.env.FUZZ_TIMES) console.log(Object.entries(time).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ${v.toFixed(0)}ms`).join(", "));
  console.log(`fuzz: seed ${SEED}, ${counts.calls} calls, ${counts.returned} returned, ${counts.threw} threw ReplicoreErrors ${JSON.stringify(counts.byCode)}`);
  // runDeploymentSync's rejections: ReplicoreErrors too (the host here never throws).
  for (const e of await Promise.all(rejections)) {
    if (e === undefined) continue;
    assert.ok(isReplicoreError(e) && e.code !== "INTERNAL", `runDeploymentSync rejected with something else: ${e?.name}: ${String(e?.message).slice(0, 300)}`);
  }
  assert.equal(counts.calls, CALLS);
  assert.ok(counts.threw > CALLS / 10 && counts.returned > CALLS / 10, JSON.stringify(counts));
});

test("the shapes that took quadratic time are refused at the bad field, with capped messages", () => {
  const thrown = (f) => {
    try {
      f();
    } catch (e) {
      assert.ok(isReplicoreError(e), String(e));
      return e;
    }
    assert.fail("not refused");
  };
  // {"a":[[[…20,000 deep…]]],"now":1}: 68 s natively and 6 s through planJson before.
  const deep = `{"a":${"[".repeat(20_000)}${"]".repeat(20_000)},"now":1}`;
  let e = thrown(() => replicore.planJson(deep));
  assert.deepEqual([e.code, e.path], ["MALFORMED", "now"]);
  // Long nested keys in an item, then a type error: explain hung 21 s on 2.5 MB.
  const D = 100;
  const L = 2_500_000 / (2 * D);
  let text = '{"kind":"List","items":[{"kind":"ReplicaSet","metadata":{"name":"web","namespace":"default","uid":"u1"},"spec":{"replicas":1,"minReadySeconds":"x"},"x":';
  for (let i = 0; i < D; i++) text += `{"${"k".repeat(L)}":`;
  text += `{${Array.from({ length: 100_000 }, (_, i) => `"m${i}":1`).join(",")}}${"}".repeat(D)}}]}`;
  e = thrown(() => explainEntry.explainJson(text, { now: NOW }));
  assert.deepEqual([e.code, e.path], ["MALFORMED", "items[0].spec.minReadySeconds"]);
  // A 5 MB value is quoted with its first 200 characters and its length.
  e = thrown(() => replicore.plan({ ...input, now: "x".repeat(5 << 20) }));
  assert.equal(e.message, `now: invalid RFC 3339 timestamp "${"x".repeat(200)}…" (5242880 bytes)`);
  e = thrown(() => new Store().deletePod("default", 5));
  assert.deepEqual([e.code, e.path], ["MALFORMED", "name"]);
});
