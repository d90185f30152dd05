// The Deployment controller through the package: the recorded deployment-sync vectors
// played through runDeploymentSync against a host that answers as the vectors' fake
// clientset does (DEPLOYMENT.md; the native judge is tests/src/lib.rs, FakeApi), the
// pure state functions equal to the class, a mid-sync state that survives structuredClone
// and a JSON round trip, the event handlers, and bad inputs refused with a
// ReplicoreError while the module keeps working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import * as replicore from "replicore";
import { vectorsDir } from "./helpers.mjs";

const {
  DeploymentSyncRun,
  deploymentKeysForPodDeleted,
  deploymentKeysForReplicaSetEvent,
  deploymentQueueAction,
  deploymentSyncNext,
  deploymentSyncReport,
  deploymentSyncStart,
  isReplicoreError,
  runDeploymentSync,
} = replicore;

const cases = JSON.parse(gunzipSync(readFileSync(`${vectorsDir}/deployment/deployment-sync.json.gz`)).toString("utf8"));

/** The engine's part of a vector's input. */
function engineInput(input) {
  const { now, featureGates, key, deployment, replicaSets, pods } = input;
  return { now, featureGates, key, deployment, replicaSets: replicaSets ?? [], pods: pods ?? [] };
}

/** verb, resource, subresource of a call (client-go's terms, as the vectors record them). */
const target = {
  getDeployment: ["get", "deployments", ""],
  patchReplicaSet: ["patch", "replicasets", ""],
  createReplicaSet: ["create", "replicasets", ""],
  updateReplicaSet: ["update", "replicasets", ""],
  deleteReplicaSet: ["delete", "replicasets", ""],
  updateDeployment: ["update", "deployments", ""],
  updateDeploymentStatus: ["update", "deployments", "status"],
};

/** The API error the fake answers for a failure kind (DEPLOYMENT.md). */
function apiError(kind, resource, name) {
  const kindName = resource === "deployments" ? "Deployment" : "ReplicaSet";
  const table = {
    Conflict: ["Conflict", `Operation cannot be fulfilled on ${resource}.apps "${name}": the object has been modified; please apply your changes to the latest version and try again`, 409],
    Forbidden: ["Forbidden", `${resource}.apps "${name}" is forbidden: exceeded quota: compute-resources`, 403],
    NamespaceTerminating: ["Forbidden", `${resource}.apps "${name}" is forbidden: unable to create new content in namespace because it is being terminated`, 403, ["NamespaceTerminating"]],
    NotFound: ["NotFound", `${resource}.apps "${name}" not found`, 404],
    AlreadyExists: ["AlreadyExists", `${resource}.apps "${name}" already exists`, 409],
    Invalid: ["Invalid", `${kindName}.apps "${name}" is invalid`, 422],
  };
  const [reason, message, code, causes] = table[kind] ?? ["InternalError", "Internal error occurred: etcdserver: request timed out", 500];
  return { result: "error", reason, message, code, ...(causes ? { causes } : {}) };
}

/** The vectors' fake clientset: injected failures, AlreadyExists for names it holds, the live deployment for a GET. */
function fakeApi(input) {
  const names = new Set([...(input.replicaSets ?? []), ...(input.apiOnlyReplicaSets ?? [])].map((rs) => `${rs.metadata?.namespace ?? ""}/${rs.metadata?.name ?? ""}`));
  const failures = (input.failures ?? []).map((spec) => ({ spec, seen: 0 }));
  const actions = [];
  const host = (call) => {
    const [verb, resource, subresource] = target[call.call];
    const key = `${call.namespace}/${call.name}`;
    let injected;
    for (const f of failures) {
      const s = f.spec;
      if (s.verb === verb && s.resource === resource && (s.subresource ?? "") === subresource && (s.name === undefined || s.name === call.name)) {
        f.seen++;
        if (f.seen === s.onCall && injected === undefined) injected = s.error;
      }
    }
    let result;
    if (injected !== undefined) result = apiError(injected, resource, call.name);
    else if (call.call === "getDeployment") result = { result: "ok", object: input.apiDeployment ?? input.deployment };
    else if (call.call === "createReplicaSet" && names.has(key)) result = apiError("AlreadyExists", resource, call.name);
    else result = { result: "ok" };
    if (call.call === "createReplicaSet" && result.result === "ok") names.add(key);
    actions.push({ verb, resource, subresource, namespace: call.namespace, name: call.name, result: result.result === "ok" ? "ok" : result.reason });
    return result;
  };
  return { host, actions };
}

/** What a run amounted to, in the vectors' terms. */
function outcome(done, actions) {
  return {
    actions,
    events: done.events,
    error: done.error !== null,
    requeueAfterSeconds: done.requeue.kind === "after" ? Math.trunc(done.requeue.after) : null,
    requeueRateLimited: done.requeue.kind === "rateLimited",
  };
}

/** An expected outcome (the vector's `expect` or one of its `alternatives`) in the form `outcome` gives. */
function expected(want) {
  let actions = want.actions.map((a) => ({ verb: a.verb, resource: a.resource, subresource: a.subresource ?? "", namespace: a.namespace, name: a.name, result: a.result }));
  if (want.claimPatchesUnordered) actions = claimSorted(actions);
  return { actions, events: want.events, error: want.error, requeueAfterSeconds: want.requeueAfterSeconds, requeueRateLimited: want.requeueRateLimited };
}

/**
 * The claim phase (the leading run of `get deployments` / `patch replicasets`) sorted:
 * upstream makes it in informer-map order, and the vectors compare it as a multiset.
 */
function claimSorted(actions) {
  let n = 0;
  while (n < actions.length && ((actions[n].verb === "get" && actions[n].resource === "deployments") || (actions[n].verb === "patch" && actions[n].resource === "replicasets"))) n++;
  const key = (a) => `${a.name} ${JSON.stringify(a)}`;
  return [...actions.slice(0, n).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)), ...actions.slice(n)];
}

/** The run's outcome against the vector: equal to `expect` or to one of the `alternatives`. */
function judge(c, got) {
  const wants = [c.expect, ...(c.alternatives ?? [])].map((w) => ({ ...w, claimPatchesUnordered: c.expect.claimPatchesUnordered }));
  for (const w of wants.slice(1)) {
    const g = w.claimPatchesUnordered ? { ...got, actions: claimSorted(got.actions) } : got;
    try {
      assert.deepEqual(g, expected(w));
      return;
    } catch {
      // the next alternative
    }
  }
  const g = c.expect.claimPatchesUnordered ? { ...got, actions: claimSorted(got.actions) } : got;
  assert.deepEqual(g, expected(wants[0]), c.name);
}

test("every recorded deployment-sync vector through runDeploymentSync: calls, events, error, requeue", async () => {
  assert.equal(cases.length, 500);
  let calls = 0;
  for (const c of cases) {
    const api = fakeApi(c.input);
    const done = await runDeploymentSync(engineInput(c.input), api.host);
    assert.equal(done.calls, api.actions.length, c.name);
    judge(c, outcome(done, api.actions));
    calls += done.calls;
  }
  assert.ok(calls >= 1000, `${calls} calls`);
});

test("deploymentReadsPods: every vector whose deployment reads no pods syncs the same without them", async () => {
  let without = 0;
  let recreate = 0;
  for (const c of cases) {
    const input = engineInput(c.input);
    if (!input.deployment) continue;
    if (replicore.deploymentReadsPods(input.deployment)) {
      recreate++;
      assert.equal(input.deployment.spec?.strategy?.type, "Recreate", c.name);
      continue;
    }
    const a = fakeApi(c.input);
    const withPods = await runDeploymentSync(input, a.host);
    const b = fakeApi(c.input);
    const noPods = await runDeploymentSync({ ...input, pods: [] }, b.host);
    assert.deepEqual(noPods, withPods, c.name);
    assert.deepEqual(b.actions, a.actions, c.name);
    without++;
  }
  assert.ok(without >= 300 && recreate >= 20, `${without} without pods, ${recreate} Recreate`);
  assert.throws(() => replicore.deploymentReadsPods(7), (e) => replicore.isReplicoreError(e) && e.path === "deployment");
});

test("an async host: the same result as a synchronous one", async () => {
  const c = cases.find((k) => k.expect.actions.length >= 3);
  const sync = fakeApi(c.input);
  const a = await runDeploymentSync(engineInput(c.input), sync.host);
  const later = fakeApi(c.input);
  const b = await runDeploymentSync(engineInput(c.input), (call) => new Promise((resolve) => setImmediate(() => resolve(later.host(call)))));
  assert.deepEqual(b, a);
  assert.deepEqual(later.actions, sync.actions);
});

/** Plays a sync with the pure functions over the plain state; `between` may replace the state after each report. */
function playPure(c, between = (s) => s) {
  const api = fakeApi(c.input);
  let state = deploymentSyncStart(engineInput(c.input));
  for (;;) {
    const step = deploymentSyncNext(state);
    if (step.step === "done") return { done: step.done, actions: api.actions, state };
    state = between(deploymentSyncReport(state, api.host(step.call)));
  }
}

test("the pure state functions give what the class gives, and the class's state is the same value", () => {
  for (const c of cases.filter((_, i) => i % 10 === 0)) {
    const pure = playPure(c);
    const api = fakeApi(c.input);
    const run = new DeploymentSyncRun(engineInput(c.input));
    try {
      let step;
      while ((step = run.next()).step === "call") run.report(api.host(step.call));
      assert.deepEqual(step.done, pure.done, c.name);
      assert.deepEqual(api.actions, pure.actions, c.name);
      assert.deepEqual(run.state(), pure.state, c.name);
    } finally {
      run.free();
    }
  }
});

test("a mid-sync state survives structuredClone and a JSON round trip, in both forms", () => {
  const multi = cases.filter((c) => c.expect.actions.length >= 2).slice(0, 20);
  assert.ok(multi.length > 0);
  for (const c of multi) {
    const straight = playPure(c);
    assert.deepEqual(playPure(c, (s) => structuredClone(s)).done, straight.done, c.name);
    assert.deepEqual(playPure(c, (s) => JSON.parse(JSON.stringify(s))).done, straight.done, c.name);
    // The class: stop after the first call, resume from a cloned state.
    const api = fakeApi(c.input);
    const first = new DeploymentSyncRun(engineInput(c.input));
    const step = first.next();
    assert.equal(step.step, "call");
    first.report(api.host(step.call));
    const state = first.state();
    first.free();
    for (const copy of [structuredClone(state), JSON.parse(JSON.stringify(state))]) {
      const resumed = DeploymentSyncRun.fromState(copy);
      const rest = fakeApi(c.input);
      rest.host(step.call); // the fake's own counters, as the first run left them
      try {
        let s;
        while ((s = resumed.next()).step === "call") resumed.report(rest.host(s.call));
        assert.deepEqual(s.done, straight.done, c.name);
      } finally {
        resumed.free();
      }
    }
  }
});

test("client-node style input: Dates in the objects and in now give the same sync", async () => {
  const c = cases.find((k) => k.input.deployment && k.expect.events.length > 0);
  const timeKeys = new Set(["creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime"]);
  const withDates = JSON.parse(JSON.stringify(engineInput(c.input)), (k, v) => (timeKeys.has(k) && typeof v === "string" ? new Date(v) : v));
  withDates.now = new Date(c.input.now);
  const a = await runDeploymentSync(engineInput(c.input), fakeApi(c.input).host);
  const b = await runDeploymentSync(withDates, fakeApi(c.input).host);
  assert.deepEqual(b, a);
});

/** The error `f` threw, checked to be a ReplicoreError. */
function refused(f) {
  try {
    f();
  } catch (e) {
    assert.ok(isReplicoreError(e), `not a ReplicoreError: ${e}`);
    assert.ok(e.code.length > 0 && e.path.length > 0, e.message);
    return e;
  }
  assert.fail("not refused");
}

/** A new RollingUpdate deployment and no ReplicaSet: the sync creates one, then writes the status. */
function fresh(maxSurge) {
  return {
    now: "2026-11-24T01:00:00Z",
    key: "default/web",
    deployment: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default", uid: "d1", generation: 1 },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "web:1" }] } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable: 0 } },
      },
    },
    replicaSets: [],
    pods: [],
  };
}

test("an invalid maxSurge: upstream's sync error for \"abc%\" and \"150\", a field-path error for a value of the wrong type", async () => {
  const ok = () => ({ result: "ok" });
  let done = await runDeploymentSync(fresh("abc%"), ok);
  assert.deepEqual(done.error, { message: 'invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax', namespaceTerminating: false });
  assert.equal(done.calls, 0);
  done = await runDeploymentSync(fresh("150"), ok);
  assert.equal(done.error?.message, "invalid value for IntOrString: invalid type: string is not a percentage");
  for (const v of [1.5, true, { a: 1 }]) {
    await assert.rejects(runDeploymentSync(fresh(v), ok), (e) => isReplicoreError(e) && e.code === "MALFORMED" && e.path === "deployment.spec.strategy.rollingUpdate.maxSurge");
  }
  done = await runDeploymentSync(fresh("25%"), ok);
  assert.equal(done.error, null);
  assert.equal(done.events[0]?.message, "Scaled up replica set web-78c95bb4f from 0 to 2");
});

test("bad inputs give a ReplicoreError with code and path, and the module keeps working", async () => {
  const good = fresh("25%");
  const known = JSON.stringify(deploymentSyncNext(deploymentSyncStart(good)));
  let deep = [];
  for (let i = 0; i < 20_000; i++) deep = [deep];
  const wrongType = fresh(1.5);
  const sp = "deployment.spec.strategy.rollingUpdate.maxSurge";
  const done0 = { events: [], error: null, requeue: { kind: "none" }, calls: 0 };
  const table = [
    [() => deploymentSyncStart(5), "MALFORMED", "."],
    [() => deploymentSyncStart(null), "MALFORMED", "."],
    [() => deploymentSyncStart([good]), "MALFORMED", "."],
    [() => deploymentSyncStart({ ...good, now: Symbol("now") }), "MISSING", "now"],
    [() => deploymentSyncStart({ ...good, now: "yesterday" }), "MALFORMED", "now"],
    [() => deploymentSyncStart({ ...good, key: 7 }), "MALFORMED", "key"],
    [() => deploymentSyncStart({ ...good, replicaSets: [{ metadata: { name: "x", generation: 1n } }] }), "MALFORMED", "."],
    [() => deploymentSyncStart({ ...good, pods: deep }), "MALFORMED", "."],
    [() => deploymentSyncStart({ ...good, replicaSets: [5] }), "MALFORMED", "replicaSets[0]"],
    [() => deploymentSyncStart(wrongType), "MALFORMED", sp],
    [() => new DeploymentSyncRun(wrongType), "MALFORMED", sp],
    [() => deploymentSyncNext({ input: wrongType }), "MALFORMED", `sync.input.${sp}`],
    [() => deploymentSyncNext({ results: [] }), "MISSING", "sync.input"],
    [() => deploymentSyncNext({ input: good, results: [{ result: "maybe" }] }), "MALFORMED", "sync.results[0].result"],
    [() => deploymentSyncNext({ input: good, results: Array(50).fill({ result: "ok" }) }), "OUTCOME_MISMATCH", "sync.results[3]"],
    [() => deploymentSyncReport(deploymentSyncStart(good), { result: 1n }), "MALFORMED", "result"],
    [() => deploymentSyncReport(deploymentSyncStart(good), "ok"), "MALFORMED", "result"],
    [() => DeploymentSyncRun.fromState(Symbol("s")), "MALFORMED", "sync"],
    [() => deploymentKeysForReplicaSetEvent({ type: "moved", object: {} }, []), "MALFORMED", "event.type"],
    [() => deploymentKeysForReplicaSetEvent({ type: "updated", object: {} }, []), "MISSING", "event.old"],
    [() => deploymentKeysForReplicaSetEvent({ type: "added", object: {} }, [7]), "MALFORMED", "deployments[0]"],
    [() => deploymentKeysForPodDeleted(null, [], [], []), "MALFORMED", "pod"],
    [() => deploymentQueueAction({ events: [] }, 1), "MISSING", "done.requeue"],
    [() => deploymentQueueAction(done0, -1), "MALFORMED", "requeues"],
    [() => deploymentQueueAction(done0, 2n), "MALFORMED", "requeues"],
  ];
  for (const [f, code, path] of table) {
    const e = refused(f);
    assert.deepEqual([e.code, e.path], [code, path], e.message);
    assert.equal(JSON.stringify(deploymentSyncNext(deploymentSyncStart(good))), known, `after: ${e.message}`);
  }
  // An instance stays usable after a refused report, and the refusal changed nothing.
  const run = new DeploymentSyncRun(good);
  try {
    const before = JSON.stringify(run.state());
    refused(() => run.report({ result: Symbol("x") }));
    refused(() => run.report([1, 2]));
    assert.equal(JSON.stringify(run.state()), before);
    assert.equal(JSON.stringify(run.next()), known);
  } finally {
    run.free();
  }
  // runDeploymentSync rejects with the ReplicoreError; a host's own exception is rethrown as it is.
  await assert.rejects(runDeploymentSync(wrongType, () => ({ result: "ok" })), (err) => isReplicoreError(err) && err.path === sp);
  await assert.rejects(runDeploymentSync(good, () => ({ result: "perhaps" })), (err) => isReplicoreError(err) && err.path === "result.result");
  const mine = new Error("host down");
  await assert.rejects(runDeploymentSync(good, () => { throw mine; }), (err) => err === mine);
});

test("the event handlers: keys for ReplicaSet events and pod deletions, the queue action", () => {
  const c = cases.find((k) => k.input.deployment && (k.input.replicaSets ?? []).some((rs) => (rs.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === k.input.deployment.metadata.uid)));
  const d = c.input.deployment;
  const key = `${d.metadata.namespace}/${d.metadata.name}`;
  const owned = c.input.replicaSets.find((rs) => (rs.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === d.metadata.uid));
  assert.deepEqual(deploymentKeysForReplicaSetEvent({ type: "added", object: owned }, [d]), [key]);
  assert.deepEqual(deploymentKeysForReplicaSetEvent({ type: "deleted", object: owned }, [d]), [key]);
  assert.deepEqual(deploymentKeysForReplicaSetEvent({ type: "added", object: owned }, []), []);
  // Same resourceVersion: nothing (D-112).
  assert.deepEqual(deploymentKeysForReplicaSetEvent({ type: "updated", object: owned, old: owned }, [d]), []);
  const bumped = { ...owned, metadata: { ...owned.metadata, resourceVersion: `${owned.metadata.resourceVersion ?? "1"}9` } };
  assert.deepEqual(deploymentKeysForReplicaSetEvent({ type: "updated", object: bumped, old: owned }, [d]), [key]);

  // D-114: a Recreate deployment is enqueued once its ReplicaSets have no pod left.
  const recreate = { ...d, spec: { ...d.spec, strategy: { type: "Recreate" } } };
  const pod = {
    metadata: { name: "p-1", namespace: owned.metadata.namespace, uid: "p-1", ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: owned.metadata.name, uid: owned.metadata.uid, controller: true }] },
  };
  const sibling = { ...pod, metadata: { ...pod.metadata, name: "p-2", uid: "p-2" } };
  assert.deepEqual(deploymentKeysForPodDeleted(pod, [owned], [recreate], []), [key]);
  assert.deepEqual(deploymentKeysForPodDeleted(pod, [owned], [recreate], [sibling]), []);
  const rollingD = { ...d, spec: { ...d.spec, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } };
  assert.deepEqual(deploymentKeysForPodDeleted(pod, [owned], [rollingD], []), [], "only a Recreate deployment");

  // D-115.
  const ok = { events: [], error: null, requeue: { kind: "none" }, calls: 1 };
  const failed = { ...ok, error: { message: "boom", namespaceTerminating: false } };
  const terminating = { ...ok, error: { message: "gone", namespaceTerminating: true } };
  assert.equal(deploymentQueueAction(ok, 20), "forget");
  assert.equal(deploymentQueueAction(terminating, 0), "forget");
  assert.equal(deploymentQueueAction(failed, 14), "requeueRateLimited");
  assert.equal(deploymentQueueAction(failed, 15), "drop");
});
