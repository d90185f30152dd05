// The dev server's REST subset: discovery, create/get/list/watch with resourceVersions
// (410 Gone), patches with preconditions, status and scale subresources with conflicts,
// garbage collection, fault injection, the fake kubelet, and the command line.
import { test, after, describe } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { devServer, podsPath, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";
import { run } from "./helpers.mjs";

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function start(options) {
  const dev = await devServer(options);
  servers.push(dev);
  return dev;
}

const pod = (name, labels = { app: "web" }, extra = {}) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, labels, ...extra }, spec: { containers: [{ name: "c", image: "x" }] } });

/** Reads a watch for `ms` milliseconds: the events received. */
function watchFor(url, path, ms) {
  return new Promise((resolve, reject) => {
    const events = [];
    let buf = "";
    const req = request(url + path, (res) => {
      res.setEncoding("utf8");
      res.on("data", (c) => {
        buf += c;
        let i;
        while ((i = buf.indexOf("\n")) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
        }
      });
      res.on("end", () => resolve({ status: res.statusCode, events, ended: true }));
    });
    req.on("error", reject);
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve({ events, ended: false });
    }, ms);
  });
}

describe("REST", () => {
  test("discovery: /version, /api, /apis, resource lists with subresources", async () => {
    const { api } = await start();
    assert.equal((await api.get("/version")).major, "1");
    assert.deepEqual((await api.get("/api")).versions, ["v1"]);
    const groups = (await api.get("/apis")).groups.map((g) => g.name);
    for (const g of ["apps", "coordination.k8s.io", "events.k8s.io", "replicore.dev"]) assert.ok(groups.includes(g), g);
    const apps = await api.get("/apis/apps/v1");
    const names = apps.resources.map((r) => r.name);
    assert.deepEqual(names.filter((n) => n.startsWith("replicasets")), ["replicasets", "replicasets/status", "replicasets/scale"]);
    assert.equal(apps.resources.find((r) => r.name === "replicasets/scale").kind, "Scale");
    assert.ok((await api.get("/apis/replicore.dev/v1alpha1")).resources.some((r) => r.kind === "ReplicaPool"));
    assert.ok((await api.get("/api/v1")).resources.some((r) => r.name === "pods/status"));
  });

  test("a generated name that is taken is generated again (RetryGenerateName), up to 8 tries", async () => {
    const { api } = await start();
    const random = Math.random;
    try {
      // Every suffix the same ("bbbbb") for the first two names, then random again.
      let calls = 0;
      Math.random = () => (calls++ < 10 ? 0 : random());
      const body = { apiVersion: "v1", kind: "Pod", metadata: { generateName: "web-" }, spec: {} };
      const a = await api.post(podsPath("ns"), body);
      const b = await api.post(podsPath("ns"), body);
      assert.equal(a.metadata.name, "web-bbbbb");
      assert.match(b.metadata.name, /^web-[a-z0-9]{5}$/);
      assert.notEqual(b.metadata.name, a.metadata.name);
      // A suffix that stays taken for all 8 tries: 409 AlreadyExists, as kube-apiserver.
      Math.random = () => 0;
      const c = await api.call("POST", podsPath("ns"), body);
      assert.equal(c.status, 409);
      assert.equal(c.body.reason, "AlreadyExists");
    } finally {
      Math.random = random;
    }
  });

  test("create with generateName, get, AlreadyExists, list by label selector", async () => {
    const { api } = await start();
    const a = await api.post(podsPath("ns"), { apiVersion: "v1", kind: "Pod", metadata: { generateName: "web-", labels: { app: "web" } }, spec: {} });
    assert.match(a.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(a.metadata.namespace, "ns");
    assert.match(a.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.equal(a.status.phase, "Pending");
    assert.deepEqual(await api.get(podsPath("ns", a.metadata.name)), a);
    await api.post(podsPath("ns"), pod("other", { app: "db" }));
    const dup = await api.call("POST", podsPath("ns"), pod("other"));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, "AlreadyExists");
    const missing = await api.call("GET", podsPath("ns", "nope"));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, "NotFound");
    const list = await api.get(`${podsPath("ns")}?labelSelector=${encodeURIComponent("app in (web,api)")}`);
    assert.deepEqual(list.items.map((p) => p.metadata.name), [a.metadata.name]);
    assert.equal(list.kind, "PodList");
    assert.ok(Number(list.metadata.resourceVersion) >= Number(a.metadata.resourceVersion));
    const noName = await api.call("POST", podsPath("ns"), { apiVersion: "v1", kind: "Pod", metadata: {}, spec: {} });
    assert.equal(noName.status, 422);
  });

  test("watch: resumes from a resourceVersion; an expired one gets a 410 ERROR event", async () => {
    const { api, url, server } = await start();
    const first = await api.post(podsPath("ns"), pod("a"));
    const rv = first.metadata.resourceVersion;
    await api.post(podsPath("ns"), pod("b"));
    await api.patch(podsPath("ns", "a"), { metadata: { labels: { app: "web", v: "2" } } });
    await api.del(podsPath("ns", "b"));
    const resumed = await watchFor(url, `${podsPath("ns")}?watch=1&resourceVersion=${rv}`, 300);
    assert.deepEqual(resumed.events.map((e) => [e.type, e.object.metadata.name]), [["ADDED", "b"], ["MODIFIED", "a"], ["DELETED", "b"]]);
    // A selector turns a label change into ADDED/DELETED for the watcher.
    const selected = await watchFor(url, `${podsPath("ns")}?watch=true&resourceVersion=${rv}&labelSelector=v%3D2`, 300);
    assert.deepEqual(selected.events.map((e) => [e.type, e.object.metadata.name]), [["ADDED", "a"]]);
    server.store.compact();
    const gone = await watchFor(url, `${podsPath("ns")}?watch=1&resourceVersion=${rv}`, 1000);
    assert.equal(gone.ended, true);
    assert.equal(gone.events.length, 1);
    assert.equal(gone.events[0].type, "ERROR");
    assert.equal(gone.events[0].object.code, 410);
    assert.equal(gone.events[0].object.reason, "Expired");
  });

  test("merge and strategic-merge patches of ownerReferences, with UID and resourceVersion preconditions", async () => {
    const { api } = await start();
    const p = await api.post(podsPath("ns"), pod("p"));
    const ref = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "rs-uid", controller: true, blockOwnerDeletion: true };
    const adopted = await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [ref], uid: p.metadata.uid } });
    assert.deepEqual(adopted.metadata.ownerReferences, [ref]);
    const wrongUid = await api.call("PATCH", podsPath("ns", "p"), { metadata: { labels: { x: "y" }, uid: "someone-else" } }, "application/merge-patch+json");
    assert.equal(wrongUid.status, 409);
    assert.match(wrongUid.body.message, /Precondition failed: UID/);
    const staleRv = await api.call("PATCH", podsPath("ns", "p"), { metadata: { labels: { x: "y" }, resourceVersion: p.metadata.resourceVersion } }, "application/merge-patch+json");
    assert.equal(staleRv.status, 409);
    await api.patch(podsPath("ns", "p"), { metadata: { ownerReferences: [{ ...ref, uid: "other", name: "other", controller: false }] } }, "application/strategic-merge-patch+json");
    assert.equal((await api.get(podsPath("ns", "p"))).metadata.ownerReferences.length, 2, "strategic merge adds by uid");
    const released = await api.patch(
      podsPath("ns", "p"),
      { metadata: { ownerReferences: [{ $patch: "delete", uid: "rs-uid" }], uid: p.metadata.uid } },
      "application/strategic-merge-patch+json",
    );
    assert.deepEqual(released.metadata.ownerReferences.map((r) => r.uid), ["other"]);
    const jsonPatch = await api.patch(podsPath("ns", "p"), [{ op: "add", path: "/metadata/labels/z", value: "1" }], "application/json-patch+json");
    assert.equal(jsonPatch.metadata.labels.z, "1");
    const unknown = await api.call("PATCH", podsPath("ns", "p"), {}, "application/json");
    assert.equal(unknown.status, 415);
  });

  test("status and scale subresources; resourceVersion conflicts", async () => {
    const { api } = await start();
    const rs = await api.post(rsPath("ns"), replicaSet("web", 2));
    assert.equal(rs.metadata.generation, 1);
    const withStatus = await api.put(`${rsPath("ns", "web")}/status`, { ...rs, spec: { ...rs.spec, replicas: 9 }, status: { replicas: 2 } });
    assert.equal(withStatus.status.replicas, 2);
    assert.equal(withStatus.spec.replicas, 2, "the status subresource leaves the spec alone");
    const conflict = await api.call("PUT", `${rsPath("ns", "web")}/status`, { ...rs, status: { replicas: 3 } });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.reason, "Conflict");
    const updated = await api.put(rsPath("ns", "web"), { ...withStatus, spec: { ...withStatus.spec, replicas: 3 }, status: { replicas: 99 } });
    assert.equal(updated.status.replicas, 2, "the main resource leaves the status alone");
    assert.equal(updated.metadata.generation, 2);
    const scale = await api.get(`${rsPath("ns", "web")}/scale`);
    assert.deepEqual(scale.spec, { replicas: 3 });
    assert.equal(scale.status.selector, "app=web");
    const stale = await api.call("PUT", `${rsPath("ns", "web")}/scale`, { ...scale, metadata: { ...scale.metadata, resourceVersion: rs.metadata.resourceVersion }, spec: { replicas: 5 } });
    assert.equal(stale.status, 409);
    await api.put(`${rsPath("ns", "web")}/scale`, { ...scale, spec: { replicas: 5 } });
    await api.patch(`${rsPath("ns", "web")}/scale`, { spec: { replicas: 6 } });
    assert.equal((await api.get(rsPath("ns", "web"))).spec.replicas, 6);
    const negative = await api.call("PATCH", `${rsPath("ns", "web")}/scale`, { spec: { replicas: -1 } }, "application/merge-patch+json");
    assert.equal(negative.status, 422);
  });

  test("deleting an owner deletes its dependents (background), or orphans them", async () => {
    const { api } = await start();
    const rs = await api.post(rsPath("ns"), replicaSet("web", 1));
    const ref = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: rs.metadata.uid, controller: true };
    await api.post(podsPath("ns"), pod("owned", { app: "web" }, { ownerReferences: [ref] }));
    await api.post(podsPath("ns"), pod("free"));
    await api.del(rsPath("ns", "web"));
    assert.deepEqual((await api.get(podsPath("ns"))).items.map((p) => p.metadata.name), ["free"]);
    const rs2 = await api.post(rsPath("ns"), replicaSet("web", 1));
    await api.post(podsPath("ns"), pod("kept", { app: "web" }, { ownerReferences: [{ ...ref, uid: rs2.metadata.uid }] }));
    await api.del(rsPath("ns", "web"), { propagationPolicy: "Orphan" });
    assert.deepEqual((await api.get(podsPath("ns", "kept"))).metadata.ownerReferences, []);
    const pre = await api.call("DELETE", podsPath("ns", "kept"), { preconditions: { uid: "wrong" } });
    assert.equal(pre.status, 409);
    // The collector follows references as they are now: one added by a later patch
    // (adoption) counts, one patched away (release) does not.
    const rs3 = await api.post(rsPath("ns"), replicaSet("web", 1));
    const ref3 = { ...ref, uid: rs3.metadata.uid };
    await api.post(podsPath("ns"), pod("adopted", { app: "web" }));
    await api.patch(podsPath("ns", "adopted"), { metadata: { ownerReferences: [ref3] } });
    await api.post(podsPath("ns"), pod("released", { app: "web" }, { ownerReferences: [ref3] }));
    await api.patch(podsPath("ns", "released"), { metadata: { ownerReferences: null } });
    await api.del(rsPath("ns", "web"));
    assert.deepEqual((await api.get(podsPath("ns"))).items.map((p) => p.metadata.name).sort(), ["free", "kept", "released"]);
  });
});

describe("faults", () => {
  test("pod quota: 403 Forbidden once the limit is reached, lifted at runtime", async () => {
    const { api } = await start();
    await api.call("PUT", "/_replicore/faults", { podQuota: { limit: 1 } });
    await api.post(podsPath("ns"), pod("a"));
    const r = await api.call("POST", podsPath("ns"), pod("b"));
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, "Forbidden");
    assert.match(r.body.message, /exceeded quota: pod-quota, requested: pods=1, used: pods=1, limited: pods=1/);
    await api.call("PUT", "/_replicore/faults", { podQuota: null });
    await api.post(podsPath("ns"), pod("b"));
  });

  test("rules: status codes, counts, Retry-After on 429; latency; bad rules are refused", async () => {
    const { api, server } = await start();
    await api.call("POST", "/_replicore/faults", { verb: "create", resource: "pods", status: 500, times: 1 });
    await api.call("POST", "/_replicore/faults", { verb: "list", resource: "pods", status: 429, after: 1, times: 1, retryAfterSeconds: 3 });
    const failed = await api.call("POST", podsPath("ns"), pod("a"));
    assert.equal(failed.status, 500);
    assert.equal(failed.body.reason, "InternalError");
    await api.post(podsPath("ns"), pod("a"));
    assert.equal((await api.call("GET", podsPath("ns"))).status, 200);
    const limited = await api.call("GET", podsPath("ns"));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "3");
    assert.equal((await api.call("GET", podsPath("ns"))).status, 200);
    const bad = await api.call("POST", "/_replicore/faults", { status: 200 });
    assert.equal(bad.status, 400);
    await api.call("PUT", "/_replicore/faults", { latencyMs: 150 });
    const t = performance.now();
    await api.get(podsPath("ns"));
    assert.ok(performance.now() - t >= 140);
    assert.equal(server.faults.latencyMs, 150);
    await api.call("DELETE", "/_replicore/faults");
    assert.equal(server.faults.latencyMs, 0);
  });

  test("dropping watches ends open watch connections", async () => {
    const { api, url } = await start();
    const watching = watchFor(url, `${podsPath("ns")}?watch=1`, 3000);
    await waitFor(async () => (await api.get("/_replicore/stats")).watches.open === 1, "the watch open");
    const r = await api.call("POST", "/_replicore/watches/drop", { mode: "close" });
    assert.deepEqual(r.body, { dropped: 1 });
    assert.equal((await watching).ended, true);
  });
});

test("the fake kubelet schedules, runs and readies created pods", async () => {
  const { api } = await start({ kubelet: { scheduleDelayMs: 0, runDelayMs: 10, readyDelayMs: 10, nodes: 2 } });
  await api.post(podsPath("ns"), pod("a"));
  await api.post(podsPath("ns"), pod("b"));
  const ready = await waitFor(async () => {
    const items = (await api.get(podsPath("ns"))).items;
    return items.every((p) => p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True")) ? items : undefined;
  }, "both ready");
  assert.deepEqual(ready.map((p) => p.spec.nodeName).sort(), ["node-1", "node-2"]);
  for (const p of ready) {
    assert.equal(p.status.phase, "Running");
    assert.equal(p.status.containerStatuses[0].ready, true);
  }
});

test("replicore dev-server: --help, bad options", () => {
  const help = run(["dev-server", "--help"]);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--kubelet/);
  assert.match(help.stdout, /--pod-quota N/);
  const bad = run(["dev-server", "--fail", "nonsense"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^replicore: --fail nonsense: expected verb:resource:status/);
  const badNum = run(["dev-server", "--latency", "-3"]);
  assert.equal(badNum.status, 2);
  assert.match(badNum.stderr, /--latency: expected a whole number/);
  const op = run(["operator", "--owner", "ReplicaSet"]);
  assert.equal(op.status, 2);
  assert.match(op.stderr, /--owner ReplicaSet: expected group\/version\/Kind/);
});
