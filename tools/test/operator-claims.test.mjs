// Adoption and release, on the sample custom resource ReplicaPool (replicore.dev/v1alpha1).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { controllerOf, devServer, killAll, operator, pods, podsPath, poolPath, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const orphan = (name, labels) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec: { containers: [{ name: "main", image: "nginx" }] } });

test("ReplicaPool: matching orphans are adopted, an owned pod whose labels stop matching is released", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 } });
  servers.push(dev);
  const { api } = dev;
  const pool = await api.post(
    poolPath("batch"),
    replicaSet("pool", 3, { labels: { app: "pool" }, apiVersion: "replicore.dev/v1alpha1", kind: "ReplicaPool" }),
  );
  await api.post(podsPath("batch"), orphan("orphan-a", { app: "pool" }));
  await api.post(podsPath("batch"), orphan("orphan-b", { app: "pool", extra: "x" }));
  await api.post(podsPath("batch"), orphan("stranger", { app: "other" }));

  const op = operator(dev.url, ["--owner", "replicore.dev/v1alpha1/ReplicaPool"]);
  ops.push(op);
  await op.waitLog("operator running");

  // Two adopted, one created: three pods owned by the pool, the stranger left alone.
  const owned = await waitFor(async () => {
    const all = await pods(api, "batch");
    const mine = all.filter((p) => controllerOf(p)?.uid === pool.metadata.uid);
    return mine.length === 3 ? all : undefined;
  }, "three pods owned by the pool");
  for (const name of ["orphan-a", "orphan-b"]) {
    const p = owned.find((x) => x.metadata.name === name);
    assert.deepEqual(controllerOf(p), {
      apiVersion: "replicore.dev/v1alpha1",
      kind: "ReplicaPool",
      name: "pool",
      uid: pool.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
  }
  assert.equal(controllerOf(owned.find((x) => x.metadata.name === "stranger")), undefined);
  assert.equal(op.find("adopted pod").length, 2);
  const created = owned.filter((p) => !["orphan-a", "orphan-b", "stranger"].includes(p.metadata.name));
  assert.equal(created.length, 1);
  assert.equal(controllerOf(created[0]).kind, "ReplicaPool");

  // orphan-a's labels stop matching: released (its reference removed), a replacement made.
  await api.patch(podsPath("batch", "orphan-a"), { metadata: { labels: { app: "elsewhere" } } });
  await waitFor(async () => {
    const a = await api.get(podsPath("batch", "orphan-a"));
    return (a.metadata.ownerReferences ?? []).length === 0;
  }, "orphan-a released");
  await waitFor(async () => {
    const mine = (await pods(api, "batch")).filter((p) => controllerOf(p)?.uid === pool.metadata.uid);
    return mine.length === 3 && !mine.some((p) => p.metadata.name === "orphan-a");
  }, "three owned pods again, without orphan-a");
  assert.equal(op.find("released pod").length, 1);
  const status = await waitFor(async () => {
    const o = await api.get(poolPath("batch", "pool"));
    return o.status?.replicas === 3 && o.status?.readyReplicas === 3 ? o.status : undefined;
  }, "pool status 3/3");
  assert.equal(status.fullyLabeledReplicas, 3);
});

test("ReplicaSet: an orphan carrying a non-controller owner reference is adopted and keeps it (strategic merge)", async () => {
  const dev = await devServer();
  servers.push(dev);
  const { api } = dev;
  const rs = await api.post(rsPath("shop"), replicaSet("web", 1));
  const bundle = { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: "uid-bundle" };
  await api.post(podsPath("shop"), { ...orphan("tagged", { app: "web" }), metadata: { name: "tagged", labels: { app: "web" }, ownerReferences: [bundle] } });

  const op = operator(dev.url);
  ops.push(op);
  await op.waitLog("operator running");
  const adopted = await waitFor(async () => {
    const p = await api.get(podsPath("shop", "tagged"));
    return controllerOf(p) ? p : undefined;
  }, "the tagged orphan adopted");
  // The controller reference merged in by uid beside the pod's own reference.
  assert.deepEqual(adopted.metadata.ownerReferences, [
    bundle,
    { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);
  // Adopted, so nothing is created: the ReplicaSet has its one pod.
  const status = await waitFor(async () => {
    const o = await api.get(rsPath("shop", "web"));
    return o.status?.replicas === 1 ? o.status : undefined;
  }, "status.replicas 1");
  assert.equal(status.replicas, 1);
  assert.equal((await pods(api, "shop")).length, 1);
  assert.equal(op.find("adopted pod").length, 1);
});
