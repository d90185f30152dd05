// The operator's Deployment controller against the dev server, with its ReplicaSet
// controller and the fake kubelet: a Deployment gets its ReplicaSet (upstream's name:
// the Deployment's name, "-", the pod-template-hash) and pods; a new image rolls out
// within maxSurge/maxUnavailable (checked on every pod change) to a complete status;
// scaling mid-rollout; pause; a Conflict on the status write; --controllers replicaset;
// the ReplicaDeployment custom resource over ReplicaPools.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { controllerOf, devServer, FAST_LEASE, killAll, operator, pods, podsPath, poolPath, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const deployPath = (ns, name = "") => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ""}`;
const rdPath = (ns, name = "") => `/apis/replicore.dev/v1alpha1/namespaces/${ns}/replicadeployments${name ? `/${name}` : ""}`;

function deployment(name, replicas, { image = "nginx:1.27", maxSurge = "25%", maxUnavailable = "25%", apiVersion = "apps/v1", kind = "Deployment", paused } = {}) {
  const labels = { app: name };
  return {
    apiVersion,
    kind,
    metadata: { name },
    spec: {
      replicas,
      ...(paused !== undefined ? { paused } : {}),
      selector: { matchLabels: labels },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable } },
      template: { metadata: { labels }, spec: { containers: [{ name: "main", image }] } },
    },
  };
}

async function start(kubelet = { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 30, nodes: 3 }, args = []) {
  const dev = await devServer({ kubelet });
  servers.push(dev);
  const op = operator(dev.url, args);
  ops.push(op);
  await op.waitLog("operator running");
  return { dev, api: dev.api, server: dev.server, op };
}

/** The ReplicaSets (items) of namespace `ns` controlled by the object of `uid`. */
async function ownedSets(api, path, uid) {
  return (await api.get(path)).items.filter((rs) => controllerOf(rs)?.uid === uid);
}

function condition(o, type) {
  return (o.status?.conditions ?? []).find((c) => c.type === type);
}

/** Complete: every replica updated, ready and available, the generation observed, NewReplicaSetAvailable. */
function complete(d, replicas) {
  const s = d.status ?? {};
  return (
    s.observedGeneration === d.metadata.generation &&
    s.replicas === replicas &&
    s.updatedReplicas === replicas &&
    s.readyReplicas === replicas &&
    s.availableReplicas === replicas &&
    (s.unavailableReplicas ?? 0) === 0 &&
    condition(d, "Progressing")?.reason === "NewReplicaSetAvailable" &&
    condition(d, "Available")?.status === "True"
  );
}

/**
 * Records, on every pod change in `ns` (the dev server's own watch, in this process), the
 * pod count and the ready count; returns {max, minReady, stop}.
 */
function watchBounds(server, ns) {
  const seen = { max: 0, minReady: Infinity, changes: 0 };
  const watcher = {
    resource: "/pods",
    namespace: ns,
    send: () => {
      const all = server.store.list("/pods", ns);
      const ready = all.filter((p) => (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")).length;
      seen.max = Math.max(seen.max, all.length);
      seen.minReady = Math.min(seen.minReady, ready);
      seen.changes++;
    },
    close: () => {},
  };
  server.store.watchers.add(watcher);
  return { seen, stop: () => server.store.watchers.delete(watcher) };
}

test("a Deployment gets its ReplicaSet, named <deployment>-<pod-template-hash>, and its pods; the status is complete", async () => {
  const { api, op } = await start();
  await api.post(deployPath("shop"), deployment("web", 3));
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("shop", "web"));
    return complete(o, 3) ? o : undefined;
  }, "the Deployment complete at 3 replicas").catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  const sets = await ownedSets(api, rsPath("shop"), d.metadata.uid);
  assert.equal(sets.length, 1);
  const [rs] = sets;
  const hash = rs.metadata.labels["pod-template-hash"];
  assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/, "a pod-template-hash of safe-encoded characters");
  assert.equal(rs.metadata.name, `web-${hash}`);
  assert.equal(rs.spec.selector.matchLabels["pod-template-hash"], hash);
  assert.equal(rs.spec.template.metadata.labels["pod-template-hash"], hash);
  assert.equal(rs.metadata.annotations["deployment.kubernetes.io/revision"], "1");
  assert.equal(d.metadata.annotations["deployment.kubernetes.io/revision"], "1");
  assert.deepEqual(controllerOf(rs), { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: d.metadata.uid, controller: true, blockOwnerDeletion: true });
  const ps = await pods(api, "shop");
  assert.equal(ps.length, 3);
  for (const p of ps) assert.equal(controllerOf(p)?.uid, rs.metadata.uid);
  // The engine's event, recorded as the deployment-controller.
  const events = await waitFor(async () => {
    const es = (await api.get("/api/v1/namespaces/shop/events")).items.filter((e) => e.involvedObject.kind === "Deployment" && e.reason === "ScalingReplicaSet");
    return es.length > 0 ? es : undefined;
  }, "a ScalingReplicaSet event");
  assert.equal(events[0].source.component, "deployment-controller");
  assert.match(events[0].message, new RegExp(`^Scaled up replica set web-${hash} from 0 to 3$`));
  // Metrics of the Deployment controller on the operator's metrics server.
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_deployment_syncs_total\{result="ok"\} [1-9]\d*$/m);
  assert.match(metrics, /^replicore_deployment_workqueue_depth \d+$/m);
  assert.match(metrics, /^replicore_deployment_sync_duration_seconds_count\{result="ok"\} [1-9]\d*$/m);
  assert.match(metrics, /^replicore_deployment_api_calls_total\{call="createReplicaSet",result="ok"\} 1$/m);
  // One pod cache and one ReplicaSet cache, shared by both controllers.
  assert.equal(op.find("deployment caches synced")[0].sharedWithReplicaSetController, true);
  assert.match(metrics, /^replicore_informer_objects\{informer="Deployment"\} 1$/m);
  assert.doesNotMatch(metrics, /informer="deployment\/Pod"/);
});

test("a new image rolls out within maxSurge 25% / maxUnavailable 25% of 10 (never above 13 pods, never below 8 ready) to completion", async () => {
  const { api, server, op } = await start();
  await api.post(deployPath("roll"), deployment("web", 10));
  const first = await waitFor(async () => {
    const o = await api.get(deployPath("roll", "web"));
    return complete(o, 10) ? o : undefined;
  }, "the first rollout complete", 60000);
  const bounds = watchBounds(server, "roll");
  await api.patch(deployPath("roll", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } }, "application/strategic-merge-patch+json");
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("roll", "web"));
    return o.metadata.generation > first.metadata.generation && complete(o, 10) ? o : undefined;
  }, "the rollout of nginx:1.28 complete", 60000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  bounds.stop();
  assert.ok(bounds.seen.changes > 20, `the rollout was observed (${bounds.seen.changes} pod changes)`);
  assert.ok(bounds.seen.max <= 13, `never more than 10 + 3 pods (saw ${bounds.seen.max})`);
  assert.ok(bounds.seen.minReady >= 8, `never fewer than 10 - 2 ready (saw ${bounds.seen.minReady})`);
  assert.equal(d.metadata.annotations["deployment.kubernetes.io/revision"], "2");
  const sets = await ownedSets(api, rsPath("roll"), d.metadata.uid);
  assert.equal(sets.length, 2);
  const fresh = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.28");
  const old = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.27");
  assert.equal(fresh.spec.replicas, 10);
  assert.equal(old.spec.replicas, 0);
  assert.equal(fresh.metadata.annotations["deployment.kubernetes.io/revision"], "2");
  const ps = await pods(api, "roll");
  assert.equal(ps.length, 10);
  assert.ok(ps.every((p) => controllerOf(p)?.uid === fresh.metadata.uid));
  assert.match(condition(d, "Progressing").message, new RegExp(`^ReplicaSet "${fresh.metadata.name}" has successfully progressed\\.$`));
});

test("scaling mid-rollout: the rollout completes at the new size", async () => {
  const { api, op } = await start({ scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 150, nodes: 3 });
  await api.post(deployPath("grow"), deployment("web", 6, { maxSurge: 1, maxUnavailable: 0 }));
  const first = await waitFor(async () => {
    const o = await api.get(deployPath("grow", "web"));
    return complete(o, 6) ? o : undefined;
  }, "the first rollout complete", 60000);
  await api.patch(deployPath("grow", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } }, "application/strategic-merge-patch+json");
  // Mid-way: the new ReplicaSet exists and the old one still has pods.
  await waitFor(async () => {
    const sets = await ownedSets(api, rsPath("grow"), first.metadata.uid);
    const fresh = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.28");
    const old = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.27");
    return fresh && old && (fresh.status?.readyReplicas ?? 0) >= 1 && old.spec.replicas >= 2;
  }, "the rollout under way", 60000);
  await api.patch(`${deployPath("grow", "web")}/scale`, { spec: { replicas: 9 } });
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("grow", "web"));
    return o.spec.replicas === 9 && complete(o, 9) ? o : undefined;
  }, "the rollout complete at 9", 60000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  const sets = await ownedSets(api, rsPath("grow"), d.metadata.uid);
  const fresh = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.28");
  assert.equal(fresh.spec.replicas, 9);
  assert.ok(sets.filter((s) => s !== fresh).every((s) => s.spec.replicas === 0));
  assert.equal((await pods(api, "grow")).length, 9);
});

test("pause: a template change makes no ReplicaSet until resumed; then it rolls out", async () => {
  const { api } = await start();
  await api.post(deployPath("hold"), deployment("web", 2));
  const first = await waitFor(async () => {
    const o = await api.get(deployPath("hold", "web"));
    return complete(o, 2) ? o : undefined;
  }, "the first rollout complete");
  await api.patch(deployPath("hold", "web"), { spec: { paused: true } });
  const changed = await api.patch(deployPath("hold", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } }, "application/strategic-merge-patch+json");
  // The controller has synced the paused Deployment at its new generation ...
  const paused = await waitFor(async () => {
    const o = await api.get(deployPath("hold", "web"));
    return o.status?.observedGeneration === changed.metadata.generation ? o : undefined;
  }, "the paused generation observed");
  assert.equal(condition(paused, "Progressing")?.reason, "DeploymentPaused");
  // ... and made no ReplicaSet for the new template.
  let sets = await ownedSets(api, rsPath("hold"), first.metadata.uid);
  assert.equal(sets.length, 1);
  assert.equal(sets[0].spec.template.spec.containers[0].image, "nginx:1.27");
  await api.patch(deployPath("hold", "web"), { spec: { paused: false } });
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("hold", "web"));
    return o.spec.paused === false && complete(o, 2) && o.metadata.annotations["deployment.kubernetes.io/revision"] === "2" ? o : undefined;
  }, "the rollout after resume complete", 60000);
  sets = await ownedSets(api, rsPath("hold"), d.metadata.uid);
  assert.equal(sets.length, 2);
  assert.equal(sets.find((s) => s.spec.replicas === 2).spec.template.spec.containers[0].image, "nginx:1.28");
});

test("Recreate: the new template's pods only once every old pod is gone (the pod deletions enqueue the Deployment, D-114)", async () => {
  const { api, server, op } = await start();
  const d0 = deployment("web", 4);
  d0.spec.strategy = { type: "Recreate" };
  await api.post(deployPath("redo"), d0);
  const first = await waitFor(async () => {
    const o = await api.get(deployPath("redo", "web"));
    return complete(o, 4) ? o : undefined;
  }, "the first rollout complete");
  // On every pod change: the pods never belong to two ReplicaSets at once.
  let mixed = 0;
  const watcher = {
    resource: "/pods",
    namespace: "redo",
    send: () => {
      const owners = new Set(server.store.list("/pods", "redo").map((p) => controllerOf(p)?.uid));
      if (owners.size > 1) mixed++;
    },
    close: () => {},
  };
  server.store.watchers.add(watcher);
  await api.patch(deployPath("redo", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } }, "application/strategic-merge-patch+json");
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("redo", "web"));
    return o.metadata.generation > first.metadata.generation && complete(o, 4) ? o : undefined;
  }, "the Recreate rollout complete", 60000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  server.store.watchers.delete(watcher);
  assert.equal(mixed, 0, "old and new pods never together");
  const sets = await ownedSets(api, rsPath("redo"), d.metadata.uid);
  assert.equal(sets.length, 2);
  assert.equal(sets.find((s) => s.spec.replicas === 4).spec.template.spec.containers[0].image, "nginx:1.28");
  assert.ok((await pods(api, "redo")).every((p) => p.spec.containers[0].image === "nginx:1.28"));
});

test("pods that never become ready: the sync requeued at the progress deadline reports ProgressDeadlineExceeded", async () => {
  // No kubelet: the pods stay Pending; after the last pod event nothing enqueues the
  // Deployment but the engine's requeue at the deadline.
  const { api, op } = await start(null);
  const d0 = deployment("web", 2);
  d0.spec.progressDeadlineSeconds = 2;
  await api.post(deployPath("stuck"), d0);
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("stuck", "web"));
    return condition(o, "Progressing")?.reason === "ProgressDeadlineExceeded" ? o : undefined;
  }, "ProgressDeadlineExceeded", 30000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  const progressing = condition(d, "Progressing");
  assert.equal(progressing.status, "False");
  assert.match(progressing.message, /^ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$/);
  assert.equal(d.status.unavailableReplicas, 2);
  const syncs = op.find("deployment synced").filter((l) => l.key === "stuck/web");
  assert.ok(syncs.some((l) => /^after \d/.test(l.requeue)), "a sync asked to be requeued before the deadline");
});

test("a Conflict on the status write ends that sync with the error; the retry writes the status (no lost update)", async () => {
  const { api, server, op } = await start();
  // The first two status writes of the Deployment answer 409.
  // (A sync from a cache that has not seen the controller's own last status write gets
  // a real Conflict too; the injected ones carry their own message.)
  const injected = 'Operation cannot be fulfilled on deployments.apps "web": injected conflict';
  server.faults.add({ verb: "update", resource: "deployments", subresource: "status", status: 409, times: 2, message: injected });
  await api.post(deployPath("race"), deployment("web", 3));
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("race", "web"));
    return complete(o, 3) ? o : undefined;
  }, "the Deployment complete despite the conflicts", 60000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  // The log line of the sync whose status write succeeded may trail the write itself.
  await waitFor(() => {
    const ls = op.find("deployment synced").filter((l) => l.key === "race/web");
    const last = ls.findLastIndex((l) => l.error === injected);
    return last >= 0 && ls.slice(last + 1).some((l) => l.calls.includes("updateDeploymentStatus web"));
  }, "a status write after the injected conflicts, in the log");
  const syncs = op.find("deployment synced").filter((l) => l.key === "race/web");
  const conflicted = syncs.filter((l) => (l.calls ?? []).some((c) => c === "updateDeploymentStatus web: Conflict"));
  assert.equal(syncs.filter((l) => l.error === injected).length, 2, op.tail(30));
  for (const l of conflicted) {
    // The sync ends at the failed write with its error; the queue retries it (D-115).
    assert.equal(l.calls.at(-1), "updateDeploymentStatus web: Conflict");
    assert.match(l.error, /^Operation cannot be fulfilled on deployments/);
    assert.equal(l.queue, "requeueRateLimited");
  }
  // After the last injected Conflict, a retry wrote the status.
  const lastInjected = syncs.findLastIndex((l) => l.error === injected);
  assert.ok(
    syncs.slice(lastInjected + 1).some((l) => l.calls.includes("updateDeploymentStatus web")),
    JSON.stringify(syncs.slice(lastInjected)),
  );
  assert.equal(server.faults.view().rules[0].failed, 2);
  assert.equal(d.status.observedGeneration, d.metadata.generation);
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  const conflicts = Number(/^replicore_deployment_api_calls_total\{call="updateDeploymentStatus",result="Conflict"\} (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(conflicts >= conflicted.length && conflicts >= 2, `the Conflicts counted (${conflicts})`);
  assert.match(metrics, /^replicore_deployment_syncs_total\{result="error"\} [2-9]\d*$/m);
  // The same 409s by client and write (docs/operator.md#conflicts).
  const byWrite = Number(/^replicore_api_conflicts_total\{controller="deployment-controller",write="update deployments\/status"\} (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(byWrite >= 2 && byWrite === conflicts, `409s on update deployments/status: ${byWrite} (the calls: ${conflicts})`);
  assert.doesNotMatch(metrics, /^replicore_api_conflicts_total\{controller="replicaset-controller",write="update deployments\/status"\}/m);
});

test("--controllers replicaset: Deployments are left alone, ReplicaSets are managed", async () => {
  const { api, op } = await start(undefined, ["--controllers", "replicaset"]);
  assert.deepEqual(op.find("operator running")[0].controllers, ["replicaset"]);
  await api.post(deployPath("solo"), deployment("web", 2));
  await api.post(rsPath("solo"), replicaSet("plain", 2));
  // The ReplicaSet controller has acted on the plain ReplicaSet (created after the Deployment) ...
  await waitFor(async () => (await api.get(rsPath("solo", "plain"))).status?.readyReplicas === 2, "the plain ReplicaSet ready");
  // ... and nothing acted on the Deployment.
  const d = await api.get(deployPath("solo", "web"));
  assert.deepEqual(d.status ?? {}, {});
  assert.equal((await api.get(rsPath("solo"))).items.length, 1);
  assert.equal(op.find("deployment synced").length, 0);
  assert.equal(op.find("deployment caches synced").length, 0);
});

test("--controllers deployment: its own informers; the ReplicaSet is made and scaled, its pods are the ReplicaSet controller's (not running)", async () => {
  const { api, op } = await start(undefined, ["--controllers", "deployment"]);
  assert.equal(op.find("deployment caches synced")[0].sharedWithReplicaSetController, false);
  await api.post(deployPath("alone"), deployment("web", 3));
  const rs = await waitFor(async () => (await api.get(rsPath("alone"))).items.find((r) => r.spec.replicas === 3), "the ReplicaSet scaled to 3");
  assert.equal(rs.metadata.name, `web-${rs.metadata.labels["pod-template-hash"]}`);
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("alone", "web"));
    return o.status?.observedGeneration === o.metadata.generation ? o : undefined;
  }, "the status written");
  assert.equal(d.status.replicas ?? 0, 0, "no pods: the ReplicaSet controller does not run");
  assert.equal(d.status.updatedReplicas ?? 0, 0);
  assert.equal((await pods(api, "alone")).length, 0);
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_informer_objects\{informer="Deployment"\} 1$/m);
  assert.match(metrics, /^replicore_informer_objects\{informer="deployment\/ReplicaSet"\} 1$/m);
});

test("ReplicaDeployment over ReplicaPools (--owner ReplicaPool --deployment-owner ReplicaDeployment): a pool per template, a rollout, the status", async () => {
  const { api, op } = await start(undefined, ["--owner", "replicore.dev/v1alpha1/ReplicaPool", "--deployment-owner", "replicore.dev/v1alpha1/ReplicaDeployment"]);
  await api.post(rdPath("crd"), deployment("web", 2, { apiVersion: "replicore.dev/v1alpha1", kind: "ReplicaDeployment", maxSurge: 1, maxUnavailable: 0 }));
  const first = await waitFor(async () => {
    const o = await api.get(rdPath("crd", "web"));
    return complete(o, 2) ? o : undefined;
  }, "the ReplicaDeployment complete at 2", 60000).catch((e) => {
    throw new Error(`${e.message}\n${op.tail()}`);
  });
  assert.equal(first.metadata.annotations["deployment.kubernetes.io/revision"], "1", "the revision annotation written beside the status");
  const [pool] = await ownedSets(api, poolPath("crd"), first.metadata.uid);
  assert.equal(pool.kind, "ReplicaPool");
  assert.equal(pool.metadata.name, `web-${pool.metadata.labels["pod-template-hash"]}`);
  assert.deepEqual(controllerOf(pool), { apiVersion: "replicore.dev/v1alpha1", kind: "ReplicaDeployment", name: "web", uid: first.metadata.uid, controller: true, blockOwnerDeletion: true });
  const ps = await pods(api, "crd");
  assert.equal(ps.length, 2);
  for (const p of ps) assert.deepEqual([controllerOf(p).kind, controllerOf(p).uid], ["ReplicaPool", pool.metadata.uid]);
  // No apps/v1 ReplicaSet anywhere.
  assert.equal((await api.get(rsPath("crd"))).items.length, 0);

  await api.patch(rdPath("crd", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } });
  const d = await waitFor(async () => {
    const o = await api.get(rdPath("crd", "web"));
    return o.metadata.generation > first.metadata.generation && complete(o, 2) ? o : undefined;
  }, "the ReplicaDeployment rollout complete", 60000);
  const pools = await ownedSets(api, poolPath("crd"), d.metadata.uid);
  assert.equal(pools.length, 2);
  assert.equal(pools.find((p) => p.spec.replicas === 2).spec.template.spec.containers[0].image, "nginx:1.28");
  assert.equal(d.metadata.annotations["deployment.kubernetes.io/revision"], "2");
  assert.ok((await pods(api, "crd")).every((p) => p.spec.containers[0].image === "nginx:1.28"));
  void podsPath;
});

test("5xx on ReplicaSet writes, then the leader SIGKILLed mid-rollout: the standby takes the Lease and completes it within the surge bound", async () => {
  const dev = await devServer({ kubelet: { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 200, nodes: 3 } });
  servers.push(dev);
  const { api, server } = dev;
  const a = operator(dev.url, [], { lease: FAST_LEASE, name: "a" });
  ops.push(a);
  await a.waitLog("operator running");
  const b = operator(dev.url, [], { lease: FAST_LEASE, name: "b" });
  ops.push(b);
  await b.waitLog("serving metrics and health");
  await api.post(deployPath("ha"), deployment("web", 8, { maxSurge: 2, maxUnavailable: 1 }));
  const first = await waitFor(async () => {
    const o = await api.get(deployPath("ha", "web"));
    return complete(o, 8) ? o : undefined;
  }, "the first rollout complete", 60000);
  const bounds = watchBounds(server, "ha");
  // Three ReplicaSet updates (the scaling steps) answer 503 first.
  server.faults.add({ verb: "update", resource: "replicasets", status: 503, times: 3 });
  await api.patch(deployPath("ha", "web"), { spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.28" }] } } } }, "application/strategic-merge-patch+json");
  await waitFor(async () => {
    const sets = await ownedSets(api, rsPath("ha"), first.metadata.uid);
    const fresh = sets.find((s) => s.spec.template.spec.containers[0].image === "nginx:1.28");
    return fresh && (fresh.status?.readyReplicas ?? 0) >= 2 && fresh.spec.replicas < 8;
  }, "the rollout under way", 60000);
  assert.equal(server.faults.view().rules[0].failed, 3, "the 503s were answered");
  await a.kill("SIGKILL");
  await b.waitLog("operator running", {}, 60000);
  const d = await waitFor(async () => {
    const o = await api.get(deployPath("ha", "web"));
    return o.metadata.generation > first.metadata.generation && complete(o, 8) ? o : undefined;
  }, "the rollout completed by the new leader", 60000).catch((e) => {
    throw new Error(`${e.message}\n${b.tail()}`);
  });
  bounds.stop();
  assert.ok(bounds.seen.max <= 10, `never more than 8 + 2 pods (saw ${bounds.seen.max})`);
  assert.ok(bounds.seen.minReady >= 7, `never fewer than 8 - 1 ready (saw ${bounds.seen.minReady})`);
  assert.ok(b.find("deployment synced").some((l) => l.key === "ha/web"), "the new leader synced the Deployment");
  const sets = await ownedSets(api, rsPath("ha"), d.metadata.uid);
  assert.equal(sets.length, 2);
  assert.equal(sets.find((s) => s.spec.replicas === 8).spec.template.spec.containers[0].image, "nginx:1.28");
  assert.equal((await pods(api, "ha")).length, 8);
});
