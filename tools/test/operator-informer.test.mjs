// The operator's pod informer keeps one copy of each pod, with only the fields the engine
// reads (issue 18 point 6): the object client-node's ListWatch caches, the one the
// informer's map holds and hands to its subscribers (both controllers share the informer)
// and the one its events carry are the same object, and it has none of a pod's other
// fields (managedFields, container specs, volumes…).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { clients, loadKubeConfig } from "../dist/operator/kube.js";
import { Informer } from "../dist/operator/informer.js";
import { trimPod } from "../dist/operator/transform.js";
import { makeLogger } from "../dist/operator/log.js";
import { devServer, podsPath, waitFor } from "./operator-helpers.mjs";

const servers = [];
const informers = [];
after(async () => {
  await Promise.all(informers.map((i) => i.stop()));
  await Promise.all(servers.map((s) => s.close()));
});

const pod = (name) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    labels: { app: "web" },
    annotations: { "controller.kubernetes.io/pod-deletion-cost": "5" },
    managedFields: [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:spec": {} } }],
  },
  spec: {
    containers: [{ name: "c", image: "registry.k8s.io/pause:3.10", env: [{ name: "BIG", value: "x".repeat(4096) }] }],
    volumes: [{ name: "v", emptyDir: {} }],
  },
});

test("one trimmed copy of each pod, shared by the ListWatch cache, the informer and its subscribers", async () => {
  const dev = await devServer();
  servers.push(dev);
  await dev.api.post(podsPath("ns"), pod("listed"));
  const kc = loadKubeConfig({ server: dev.url });
  const { core } = clients(kc);
  const seen = [];
  const informer = new Informer({
    name: "Pod",
    kc,
    path: "/api/v1/pods",
    list: () => core.listPodForAllNamespaces(),
    transform: trimPod,
    log: makeLogger("error", {}, () => {}),
    onEvent: (e) => seen.push(e),
  });
  informers.push(informer);
  const shared = [];
  informer.subscribe((e) => shared.push(e));
  await informer.start();
  await dev.api.post(podsPath("ns"), pod("watched"));
  await waitFor(() => informer.get("ns/watched"), "the watched pod in the cache");
  await dev.api.patch(podsPath("ns", "watched"), { metadata: { labels: { app: "web", tier: "x" } } }, "application/merge-patch+json");
  await waitFor(() => informer.get("ns/watched")?.metadata?.labels?.tier === "x", "the update in the cache");

  for (const name of ["listed", "watched"]) {
    const cached = informer.get(`ns/${name}`);
    assert.ok(cached, name);
    // The one copy: the same object in ListWatch's cache, the informer's map and the last event.
    assert.equal(informer["lw"].get(name, "ns"), cached, `${name}: ListWatch caches the informer's object, not a second copy`);
    const last = seen.filter((e) => e.object.metadata.name === name).at(-1);
    assert.equal(last.object, cached, `${name}: the event carries the cached object`);
    assert.equal(shared.filter((e) => e.object.metadata.name === name).at(-1).object, cached, `${name}: a subscriber gets the same object`);
    // Trimmed: what the engine reads, and the resourceVersion.
    assert.equal(cached.metadata.managedFields, undefined);
    assert.equal(cached.spec.volumes, undefined);
    assert.equal(JSON.stringify(cached).includes("x".repeat(4096)), false, "container specs are not kept");
    assert.equal(cached.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"], "5");
    assert.match(cached.metadata.resourceVersion, /^\d+$/);
  }
  const update = seen.find((e) => e.type === "updated" && e.object.metadata.name === "watched");
  assert.ok(update, "the update was delivered");
  assert.notEqual(update.old, update.object, "the previous object is the one replaced, not kept beside it");
  assert.equal(update.old.metadata.labels.tier, undefined);
  assert.equal(informer.size(), 2);
});
