// The engine-side Store: plans from it equal the stateless plans over the same objects,
// events are decided against the stored state, and bad objects are refused alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Store, plan, complete, manageAfterClaims, isReplicoreError } from "replicore";
import { NOW, cluster } from "./helpers.mjs";

function objects() {
  const list = cluster();
  return {
    owners: list.items.filter((i) => i.kind === "ReplicaSet"),
    pods: list.items.filter((i) => i.kind === "Pod"),
  };
}

function filled() {
  const { owners, pods } = objects();
  const store = new Store();
  for (const o of owners) store.upsertOwner(o);
  for (const p of pods) store.upsertPod(p);
  return { store, owners, pods };
}

/** Pod indices refer to each input's own pod list: compare plans without them. */
function withoutIndices(p) {
  return JSON.parse(JSON.stringify(p), (k, v) => (k === "podIndex" || k === "candidateIndices" ? undefined : v));
}

function okOutcome(p, owner) {
  return {
    claims: { liveOwner: p.needsOwnerRecheck ? { found: owner } : undefined, results: p.claims.map(() => ({ result: "ok" })) },
    creates: p.manage.action === "create" ? Array.from({ length: p.manage.count }, () => ({ result: "ok" })) : [],
    deletes: p.manage.action === "delete" ? p.manage.victims.map(() => ({ result: "ok" })) : [],
  };
}

test("planFor equals plan over the same objects, and completes the same", () => {
  const { store, owners, pods } = filled();
  assert.deepStrictEqual(store.size(), { owners: owners.length, pods: pods.length });
  for (const owner of owners) {
    const { namespace, name } = owner.metadata;
    const fromStore = store.planFor(namespace, name, { now: NOW });
    const others = owners.filter((o) => o !== owner && o.metadata.namespace === namespace);
    const whole = plan({ now: NOW, owner, otherOwners: others, pods });
    assert.deepStrictEqual(withoutIndices(fromStore), withoutIndices(whole), `plan of ${name}`);
    const outcome = okOutcome(whole, owner);
    assert.deepStrictEqual(store.complete(fromStore, outcome), complete(whole, outcome), `completion of ${name}`);
    // A plan is a value: completing it again gives the same answer.
    assert.deepStrictEqual(store.complete(fromStore, outcome), complete(whole, outcome), `completion of ${name}, again`);
  }
  store.free();
});

test("a plan keeps its snapshot while the store takes events", () => {
  const { store } = filled();
  const p = store.planFor("shop", "web-7d9f8b6c5d", { now: NOW });
  assert.equal(p.manage.action, "delete");
  const victim = p.manage.victims[0];
  // The victim's deletion is observed before the sync completes: the plan still judges
  // the outcome of its own calls.
  const gone = store.onPodEvent({ type: "deleted", object: { metadata: { namespace: "shop", name: victim.name, uid: victim.uid } } });
  assert.equal(gone.observations.length, 0, "the minimal tombstone has no controller ref");
  const done = store.complete(p, { deletes: p.manage.victims.map(() => ({ result: "ok" })) });
  assert.equal(done.deleted, p.manage.victims.length);
  const again = store.planFor("shop", "web-7d9f8b6c5d", { now: NOW });
  assert.equal(again.owned, p.owned - 1);
});

test("events are decided against the stored previous state, then applied", () => {
  const { store, owners, pods } = filled();
  const owned = pods.find((p) => p.metadata.ownerReferences?.some((r) => r.controller && r.name === "web-7d9f8b6c5d"));
  const before = store.size().pods;
  const d = store.onPodEvent({ type: "deleted", object: owned });
  assert.deepStrictEqual(d.enqueue, ["shop/web-7d9f8b6c5d"]);
  assert.deepStrictEqual(d.observations, [
    { ownerKey: "shop/web-7d9f8b6c5d", change: { op: "deletionObserved", key: `shop/${owned.metadata.name}` } },
  ]);
  assert.equal(store.size().pods, before - 1);
  const added = store.onPodEvent({ type: "added", object: owned });
  assert.deepStrictEqual(added.enqueue, ["shop/web-7d9f8b6c5d"]);
  assert.deepStrictEqual(added.observations[0].change, { op: "creationObserved" });
  assert.equal(store.size().pods, before);
  // A resync (same resourceVersion) asks for nothing.
  assert.deepStrictEqual(store.onPodEvent({ type: "updated", object: owned }).enqueue, []);
  // Owner events: a new owner is enqueued; a deleted one drops its expectations.
  const rs = owners[0];
  assert.deepStrictEqual(store.onOwnerEvent({ type: "updated", object: rs }).enqueue, [`${rs.metadata.namespace}/${rs.metadata.name}`]);
  const del = store.onOwnerEvent({ type: "deleted", object: rs });
  assert.deepStrictEqual(del.observations[0].change, { op: "delete" });
  assert.throws(() => store.planFor(rs.metadata.namespace, rs.metadata.name, { now: NOW }), (e) => isReplicoreError(e) && e.code === "NOT_FOUND" && e.path === "owner");
});

test("a store event's old is not sent: the store decides from its own previous state", () => {
  const { store, pods } = filled();
  const owned = pods.find((p) => p.metadata.ownerReferences?.some((r) => r.controller && r.name === "web-7d9f8b6c5d"));
  // An `old` that has no JSON form (a BigInt) would be refused if it were written.
  const unwritable = { metadata: { name: 1n } };
  const a = store.onPodEvent({ type: "updated", object: owned, old: unwritable });
  const b = store.onPodEvent({ type: "updated", object: owned });
  assert.deepStrictEqual(a, b);
  assert.deepStrictEqual(a.enqueue, []);
  const { owners } = objects();
  assert.deepStrictEqual(store.onOwnerEvent({ type: "updated", object: owners[0], old: unwritable }).enqueue, [`${owners[0].metadata.namespace}/${owners[0].metadata.name}`]);
});

test("bad objects are refused with code and path, and the store keeps working", () => {
  const { store } = filled();
  const size = store.size();
  const bad = [
    [() => store.upsertPod({ metadata: { namespace: "shop" } }), "MISSING", "pod.metadata.name"],
    [() => store.upsertPod({ metadata: { name: "x", creationTimestamp: "yesterday" } }), "MALFORMED", "pod.metadata.creationTimestamp"],
    [() => store.upsertPod([]), "MALFORMED", "pod"],
    [() => store.upsertPodJson("{"), "SYNTAX", "pod"],
    [() => store.upsertOwner({ metadata: { name: "r", namespace: "shop" } }), "MISSING", "owner.metadata.uid"],
    [() => store.onPodEvent({ type: "exploded", object: {} }), "MALFORMED", "event.type"],
    [() => store.planFor("shop", "web-7d9f8b6c5d", { now: "soon" }), "MALFORMED", "options.now"],
    [() => new Store({ burstReplicas: -1 }), "MALFORMED", "config.burstReplicas"],
    [() => new Store({ featureGates: { LogarithmicScaleDown: false } }), "INVALID_CONFIG", undefined],
  ];
  for (const [call, code, path] of bad) {
    assert.throws(call, (e) => {
      assert.ok(isReplicoreError(e), `${e}`);
      assert.equal(e.code, code, e.message);
      if (path) assert.equal(e.path, path, e.message);
      return true;
    });
  }
  assert.deepStrictEqual(store.size(), size);
  assert.throws(() => store.complete({ key: "x" }, {}), (e) => isReplicoreError(e) && e.code === "MISSING" && e.path.startsWith("plan."));
  // A cycle through a field the engine reads is refused in JS before it crosses.
  const cyclic = { metadata: { name: "c", namespace: "shop", labels: {} } };
  cyclic.metadata.labels.self = cyclic;
  assert.throws(() => store.upsertPod(cyclic), (e) => e.code === "MALFORMED" && e.path === "pod");
  assert.deepStrictEqual(store.size(), size);
  const p = store.planFor("shop", "web-7d9f8b6c5d", { now: NOW });
  assert.equal(p.key, "shop/web-7d9f8b6c5d");
  // A newer planFor of the same owner leaves the older plan whole: it is a value.
  store.planFor("shop", "web-7d9f8b6c5d", { now: NOW });
  const done = store.complete(p, { deletes: p.manage.victims.map(() => ({ result: "ok" })) });
  assert.equal(done.deleted, p.manage.victims.length);
  // An outcome that does not fit the plan is refused, naming the field.
  assert.throws(() => store.complete(p, {}), (e) => isReplicoreError(e) && e.code === "OUTCOME_MISMATCH" && e.path === "outcome.deletes");
});

test("a plan is a value: through structuredClone or JSON it completes identically", () => {
  const { store, owners, pods } = filled();
  for (const owner of owners) {
    const { namespace, name } = owner.metadata;
    const others = owners.filter((o) => o !== owner && o.metadata.namespace === namespace);
    for (const p of [store.planFor(namespace, name, { now: NOW }), plan({ now: NOW, owner, otherOwners: others, pods })]) {
      const outcome = okOutcome(p, owner);
      const want = complete(p, outcome);
      for (const copy of [structuredClone(p), JSON.parse(JSON.stringify(p))]) {
        assert.deepStrictEqual(copy, p);
        assert.deepStrictEqual(complete(copy, outcome), want, `completion of a copied plan of ${name}`);
        assert.deepStrictEqual(store.complete(copy, outcome), want, `store completion of a copied plan of ${name}`);
        assert.deepStrictEqual(manageAfterClaims(copy, outcome.claims), p.manage);
      }
    }
  }
  store.free();
});
