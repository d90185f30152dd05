// The dev server's patches as kube-apiserver applies them (issue 15 point 4): strategic
// merge patch merges metadata.ownerReferences by uid (its patch merge key), so an
// adoption keeps a pod's non-controller references, and `$patch: delete` removes one by
// uid; a JSON merge patch (RFC 7386) replaces lists and deletes on null.
import { test, after, describe } from "node:test";
import assert from "node:assert/strict";
import { mergePatch, strategicMergePatch } from "../dist/devserver/patch.js";
import { devServer, podsPath } from "./operator-helpers.mjs";

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function start() {
  const dev = await devServer();
  servers.push(dev);
  return dev;
}

const SMP = "application/strategic-merge-patch+json";
const MERGE = "application/merge-patch+json";

/** A non-controller owner reference (e.g. a bundle the pod belongs to) and a ReplicaSet's controller reference. */
const bundleRef = { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: "uid-bundle" };
const rsRef = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "uid-web", controller: true, blockOwnerDeletion: true };

async function podWithBundle(api, name = "p") {
  return api.post(podsPath("ns"), {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "web", keep: "yes" }, ownerReferences: [bundleRef] },
    spec: { containers: [{ name: "c", image: "x" }] },
  });
}

describe("strategic merge patch of ownerReferences (merge key uid)", () => {
  test("the adoption patch adds the controller beside a non-controller reference", async () => {
    const { api } = await start();
    const p = await podWithBundle(api);
    // The engine's adoption body (ownerRefControllerPatch), with the pod-UID precondition.
    const adopted = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [rsRef], uid: p.metadata.uid } }, SMP);
    assert.deepEqual(adopted.metadata.ownerReferences, [bundleRef, rsRef]);
    assert.deepEqual(adopted.metadata.labels, { app: "web", keep: "yes" });
  });

  test("an element with a uid already in the list merges into it", async () => {
    const { api } = await start();
    await podWithBundle(api);
    const merged = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [{ uid: "uid-bundle", blockOwnerDeletion: true }] } }, SMP);
    assert.deepEqual(merged.metadata.ownerReferences, [{ ...bundleRef, blockOwnerDeletion: true }]);
  });

  test("$patch: delete removes the reference with that uid and keeps the others", async () => {
    const { api } = await start();
    const p = await podWithBundle(api);
    await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [rsRef] } }, SMP);
    // The engine's release body (GenerateDeleteOwnerRefStrategicMergeBytes).
    const released = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [{ $patch: "delete", uid: "uid-web" }], uid: p.metadata.uid } }, SMP);
    assert.deepEqual(released.metadata.ownerReferences, [bundleRef]);
    const again = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [{ $patch: "delete", uid: "uid-gone" }] } }, SMP);
    assert.deepEqual(again.metadata.ownerReferences, [bundleRef], "deleting an absent uid changes nothing");
  });

  test("a second controller reference is refused (422), as ValidateOwnerReferences does", async () => {
    const { api } = await start();
    await podWithBundle(api);
    await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [rsRef] } }, SMP);
    const other = { ...rsRef, name: "other", uid: "uid-other" };
    const r = await api.call("PATCH", podsPath("ns", "p"), { metadata: { ownerReferences: [other] } }, SMP);
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, "Invalid");
    assert.match(r.body.message, /Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/web and ReplicaSet\/other/);
    assert.deepEqual((await api.get(podsPath("ns", "p"))).metadata.ownerReferences, [bundleRef, rsRef]);
  });
});

describe("JSON merge patch (RFC 7386)", () => {
  test("a list in the patch replaces the pod's list: the non-controller reference is gone", async () => {
    const { api } = await start();
    await podWithBundle(api);
    const replaced = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [rsRef] } }, MERGE);
    assert.deepEqual(replaced.metadata.ownerReferences, [rsRef]);
  });

  test("null deletes a member; objects merge member by member", async () => {
    const { api } = await start();
    await podWithBundle(api);
    const out = await api.patch(podsPath("ns", "p"), { metadata: { labels: { keep: null, added: "1" }, ownerReferences: null } }, MERGE);
    assert.deepEqual(out.metadata.labels, { app: "web", added: "1" });
    assert.equal(out.metadata.ownerReferences, undefined);
  });

  test("the RFC's examples (appendix A)", () => {
    const cases = [
      [{ a: "b" }, { a: "c" }, { a: "c" }],
      [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
      [{ a: "b" }, { a: null }, {}],
      [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
      [{ a: ["b"] }, { a: "c" }, { a: "c" }],
      [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
      [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
      [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
      [["a", "b"], ["c", "d"], ["c", "d"]],
      [{ a: "b" }, ["c"], ["c"]],
      [{ a: "foo" }, null, null],
      [{ a: "foo" }, "bar", "bar"],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: "b", c: null }, { a: "b" }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, want] of cases) {
      assert.deepEqual(mergePatch(structuredClone(target), patch), want, `${JSON.stringify(target)} + ${JSON.stringify(patch)}`);
    }
  });

  test("the same ownerReferences patch: strategic merge keeps, merge patch replaces", () => {
    const pod = { metadata: { ownerReferences: [bundleRef] } };
    const patch = { metadata: { ownerReferences: [rsRef] } };
    assert.deepEqual(strategicMergePatch(structuredClone(pod), patch).metadata.ownerReferences, [bundleRef, rsRef]);
    assert.deepEqual(mergePatch(structuredClone(pod), patch).metadata.ownerReferences, [rsRef]);
  });
});
