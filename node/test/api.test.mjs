// The package entries (import "replicore" and "replicore/explain": the npm workspace link,
// Node condition → dist/node.js, dist/explain-node.js): Dates accepted, errors with
// code/path, an instance that survives garbage.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as replicore from "replicore";
import * as explainEntry from "replicore/explain";
import { NOW, cluster } from "./helpers.mjs";

const { isReplicoreError, plan, rankPods, onPodEvent, complete } = replicore;
const { explain, explainJson } = explainEntry;

/** A copy with every timestamp client-node types as Date (metadata, conditions, container states) as a Date. */
function withDates(o) {
  const timeKeys = new Set(["creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastProbeTime", "startTime", "startedAt", "finishedAt"]);
  return JSON.parse(JSON.stringify(o), (k, v) => (timeKeys.has(k) && typeof v === "string" ? new Date(v) : v));
}

function syncInputs(list) {
  const owners = list.items.filter((i) => i.kind === "ReplicaSet");
  const pods = list.items.filter((i) => i.kind === "Pod");
  return owners.map((owner) => ({ now: NOW, owner, otherOwners: owners.filter((o) => o !== owner), pods }));
}

test("the package entry is the Node build", () => {
  assert.equal(typeof replicore.version(), "string");
  assert.equal(typeof plan, "function");
});

test("Date objects give the same plan as the string form", () => {
  const strings = syncInputs(cluster());
  const dates = syncInputs(withDates(cluster()));
  assert.ok(dates[0].pods[0].metadata.creationTimestamp instanceof Date);
  for (const [i, input] of strings.entries()) {
    const a = plan(input);
    const b = plan({ ...dates[i], now: new Date(NOW) });
    assert.deepStrictEqual(b, a, `plan of ${input.owner.metadata.name}`);
    // The plan made from Dates completes like the other one.
    const outcome = {
      claims: { liveOwner: a.needsOwnerRecheck ? { found: input.owner } : undefined, results: a.claims.map(() => ({ result: "ok" })) },
      creates: a.manage.action === "create" ? Array.from({ length: a.manage.count }, () => ({ result: "ok" })) : [],
      deletes: a.manage.action === "delete" ? a.manage.victims.map(() => ({ result: "ok" })) : [],
    };
    assert.deepStrictEqual(complete(b, outcome), complete(a, outcome));
  }
  const web = strings.find((s) => s.owner.metadata.name === "web-7d9f8b6c5d");
  const webDates = dates.find((s) => s.owner.metadata.name === "web-7d9f8b6c5d");
  assert.deepStrictEqual(rankPods(webDates.pods, { now: new Date(NOW) }), rankPods(web.pods, { now: NOW }));
  assert.deepStrictEqual(explain(withDates(cluster()), { now: new Date(NOW), replicas: 3 }), explainJson(JSON.stringify(cluster()), { now: NOW, replicas: 3 }));
});

test("a single V1Pod-like object with a Date creationTimestamp", () => {
  const owner = {
    metadata: { name: "web", namespace: "shop", uid: "rs-1" },
    spec: { replicas: 0, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } } } },
  };
  const pod = (creationTimestamp) => ({
    metadata: { name: "web-a", namespace: "shop", uid: "pod-1", labels: { app: "web" }, creationTimestamp, ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "rs-1", controller: true }] },
    spec: { nodeName: "n1" },
    status: { phase: "Running" },
  });
  const a = plan({ now: NOW, owner, pods: [pod("2026-11-21T04:00:00Z")] });
  const b = plan({ now: NOW, owner, pods: [pod(new Date("2026-11-21T04:00:00Z"))] });
  assert.deepStrictEqual(b, a);
  assert.equal(a.manage.action, "delete");
});

test("client-node objects (ObjectSerializer) give the same plan", async (t) => {
  // client-node 2.0.1's index needs Node 22 (undici zstd); its serializer module loads anywhere.
  let S;
  try {
    ({ ObjectSerializer: S } = await import("@kubernetes/client-node/dist/gen/models/ObjectSerializer.js"));
  } catch (e) {
    t.skip(`cannot load client-node's ObjectSerializer: ${e.message}`);
    return;
  }
  const list = cluster();
  const typed = { ...list, items: list.items.map((i) => S.deserialize(i, i.kind === "Pod" ? "V1Pod" : "V1ReplicaSet")) };
  assert.ok(typed.items[0].metadata.creationTimestamp instanceof Date);
  const strings = syncInputs(list);
  for (const [i, input] of syncInputs(typed).entries()) {
    assert.deepStrictEqual(plan({ ...input, now: new Date(NOW) }), plan(strings[i]));
  }
  assert.deepStrictEqual(explain(typed, { now: NOW, replicas: 3 }), explainJson(JSON.stringify(list), { now: NOW, replicas: 3 }));
});

test("errors carry code and path", () => {
  const list = cluster();
  const cases = [
    [() => plan({ now: NOW, owner: list.items[0], pods: [{ metadata: { name: "x", namespace: "shop", creationTimestamp: "soon" } }] }), "MALFORMED", "pods[0].metadata.creationTimestamp"],
    [() => plan({ now: "yesterday", owner: list.items[0] }), "MALFORMED", "now"],
    [() => plan({ now: NOW, owner: { metadata: { namespace: "shop" } } }), "MISSING", "owner.metadata.name"],
    [() => explainJson(JSON.stringify(list), { now: NOW, replicas: -1 }), "NEGATIVE", "replicas"],
    [() => explainJson(JSON.stringify(list), { now: NOW, owner: "nope" }), "INVALID_CONFIG", "owner"],
    [() => explain({ kind: "List", items: [] }, { now: NOW }), "MISSING", "items"],
    [() => rankPods([{ metadata: { name: "a", namespace: "x" } }, { metadata: { name: "a", namespace: "x" } }], { now: NOW }), "DUPLICATE_POD", "pods[1].metadata.name"],
    [() => plan({ now: NOW, owner: list.items[0] }, { burstReplicas: 0 }), "INVALID_CONFIG", "config.burstReplicas"],
  ];
  for (const [call, code, path] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof Error);
      assert.ok(isReplicoreError(e), `${e.message} is a ReplicoreError`);
      assert.equal(e.code, code, e.message);
      assert.equal(e.path, path, e.message);
      assert.ok(e.message.length > 0);
      return true;
    });
  }
  assert.equal(isReplicoreError(new Error("x")), false);
});

test("the instance keeps working after garbage input", () => {
  const list = cluster();
  const good = () => explain(list, { now: NOW, replicas: 3 });
  const expected = good();
  const garbage = [
    () => plan(null),
    () => plan(42),
    () => plan("x"),
    () => plan({}),
    () => plan({ now: NOW, owner: 5 }),
    () => plan({ now: NOW, owner: {}, pods: [null] }),
    () => plan({ now: NOW, owner: list.items[0], pods: [{ metadata: { name: 5 } }] }),
    () => explain(null, { now: NOW }),
    () => explain([1, "two", null], { now: NOW }),
    () => explainJson("{".repeat(10000), { now: NOW }),
    () => explainJson("\u0000\u0001", { now: NOW }),
    () => rankPods(null, { now: NOW }),
    () => rankPods([{ status: { conditions: "no" } }], { now: NOW }),
    () => onPodEvent({ type: "exploded", object: {} }, []),
    () => replicore.applyExpectations({ add: "x" }, [], NOW),
    () => replicore.nextBatch(null, null),
    () => replicore.createEvent({ result: "maybe" }),
    () => replicore.deleteEvent(5, { result: "ok" }),
    () => replicore.selectorMatches({ matchExpressions: [{ key: "a", operator: "Gt" }] }, {}),
  ];
  for (const g of garbage) {
    assert.throws(g, (e) => e instanceof Error, String(g));
    assert.deepStrictEqual(good(), expected, `still working after ${g}`);
  }
});

test("deeply nested or cyclic objects are refused without breaking the instance", async () => {
  // In a child process, so that a poisoned instance could not affect the other tests.
  const { spawnSync } = await import("node:child_process");
  const script = `
    import { plan } from "replicore";
    import { explain } from "replicore/explain";
    const now = "2026-11-21T05:00:00Z";
    const deep = {}; let cur = deep; for (let i = 0; i < 5000; i++) { cur.x = {}; cur = cur.x; }
    const owner = (spec) => ({ metadata: { name: "a", namespace: "b", uid: "u" }, spec: { replicas: 1, selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec } } });
    const cyclic = { kind: "List", items: [] }; cyclic.items.push(cyclic);
    for (const f of [() => plan({ now, owner: owner(deep) }), () => explain(cyclic, { now })]) {
      try { f(); } catch (e) { if (e.code === undefined) { console.log(e.name + ": " + e.message); process.exit(1); } }
      plan({ now, owner: owner({}) });
    }`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: new URL(".", import.meta.url), encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test("the engine's defaults a host asks for are the ones it applies", () => {
  const owner = cluster().items.find((i) => i.kind === "ReplicaSet");
  const defaults = replicore.defaultConfig();
  // A scale-up far past the burst: one sync creates burstReplicas pods, with the defaults
  // given or with no configuration at all.
  const input = { now: NOW, owner: { ...owner, spec: { ...owner.spec, replicas: 100_000 } }, pods: [] };
  const unset = plan(input);
  assert.equal(unset.manage.action, "create");
  assert.equal(unset.manage.count, defaults.burstReplicas);
  assert.deepEqual(plan(input, defaults), unset);
  assert.deepEqual(defaults.ownerKind, { apiVersion: "apps/v1", kind: "ReplicaSet" });
  // Generated names: the alphabet and the suffix length of Kubernetes' name generator.
  assert.equal(replicore.generatedNameAlphabet(), "bcdfghjklmnpqrstvwxz2456789");
  assert.equal(replicore.generatedNameSuffixLength(), 5);
});

test("the package cuts a value in its own messages where the engine cuts it in its", () => {
  const long = "x".repeat(1000);
  // The engine's message: a value it cannot read, quoted and cut.
  const owner = cluster().items.find((i) => i.kind === "ReplicaSet");
  let engineShown;
  assert.throws(() => plan({ now: long, owner }), (e) => {
    assert.ok(isReplicoreError(e), e.message);
    engineShown = /"(x+)…"/.exec(e.message)?.[1].length;
    return true;
  });
  // The package's message: a getter that throws before anything reaches the engine.
  const getter = Object.defineProperty({}, "now", { enumerable: true, get: () => { throw new Error(long); } });
  assert.throws(() => plan(getter), (e) => {
    assert.ok(isReplicoreError(e), e.message);
    assert.equal(e.code, "MALFORMED");
    const cut = /(x+)… \((\d+) characters\)$/.exec(e.message);
    assert.ok(cut, e.message);
    assert.equal(cut[1].length, engineShown, e.message);
    assert.equal(Number(cut[2]), long.length, e.message);
    return true;
  });
  assert.equal(engineShown, 200);
});

test("ExpectationsTable keeps each owner's expectations by key, as applyExpectations computes them", () => {
  const table = new replicore.ExpectationsTable();
  try {
    const changes = [
      [{ op: "expectDeletions", keys: ["shop/p0", "shop/p1", "shop/p2"] }],
      [{ op: "deletionObserved", key: "shop/p1" }],
      [{ op: "deletionObserved", key: "shop/unknown" }],
      [{ op: "deletionObserved", key: "shop/p0" }],
    ];
    let value = null;
    for (const c of changes) {
      table.apply("shop/web", c, NOW);
      value = replicore.applyExpectations(value, c, NOW);
      assert.deepStrictEqual(table.get("shop/web"), value);
    }
    assert.equal(table.get("shop/web").del, 1);
    assert.deepStrictEqual(table.get("shop/web").deletionKeys, ["shop/p2"]);
    assert.equal(table.satisfied("shop/web", NOW), false);
    assert.equal(table.satisfied("shop/other", NOW), true, "no record is satisfied (R-40)");
    table.apply("shop/web", [{ op: "deletionObserved", key: "shop/p2" }], NOW);
    assert.equal(table.satisfied("shop/web", NOW), true);
    assert.equal(table.size(), 1);

    // Refused arguments say where, and change nothing.
    const before = JSON.stringify(table.get("shop/web"));
    for (const bad of [
      () => table.apply(5, [{ op: "delete" }], NOW),
      () => table.apply("shop/web", [{ op: "explode" }], NOW),
      () => table.apply("shop/web", [{ op: "delete" }], "yesterday"),
      () => table.get(null),
    ]) {
      assert.throws(bad, (e) => replicore.isReplicoreError(e) && e.path !== undefined, String(bad));
      assert.equal(JSON.stringify(table.get("shop/web")), before);
    }
    assert.equal(table.remove("shop/web"), true);
    assert.equal(table.remove("shop/web"), false);
    assert.equal(table.get("shop/web"), null);
    assert.equal(table.size(), 0);
  } finally {
    table.free();
  }
});

test("each pod call's event is the one the completion lists for it, in call order (R-61)", () => {
  const owner = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "web", namespace: "shop", uid: "u-1" }, spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } } };
  const p = plan({ now: NOW, owner, pods: [] });
  assert.equal(p.manage.action, "create");
  const results = [];
  for (let n = replicore.nextBatch(p.manage, results); n !== null; n = replicore.nextBatch(p.manage, results)) {
    for (let i = 0; i < n; i++) {
      const k = results.length;
      results.push(k === 1 ? { result: "error", reason: "Forbidden", message: "exceeded quota", code: 403 } : { result: "ok", name: `web-${k}` });
    }
  }
  const each = results.map((r) => replicore.createEvent(r));
  assert.deepStrictEqual(each[0], { type: "Normal", reason: "SuccessfulCreate", message: "Created pod: web-0" });
  assert.deepStrictEqual(each[1], { type: "Warning", reason: "FailedCreate", message: "Error creating: exceeded quota" });
  assert.deepStrictEqual(complete(p, { creates: results }).events, each.filter((e) => e !== undefined));
  const terminating = { result: "error", reason: "Forbidden", message: "being terminated", code: 403, causes: ["NamespaceTerminating"] };
  assert.equal(replicore.createEvent(terminating), undefined);
  assert.deepStrictEqual(replicore.deleteEvent("web-0", { result: "ok" }), { type: "Normal", reason: "SuccessfulDelete", message: "Deleted pod: web-0" });
  assert.equal(replicore.deleteEvent("web-0", { result: "error", reason: "NotFound", message: "gone", code: 404 }), undefined);
});
