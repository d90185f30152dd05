// `replicore explain hpa/NAME`: "why N?" for a HorizontalPodAutoscaler, from JSON files
// (`kubectl get hpa,deploy,rs,pods -o json` and a metrics API's answer) and from a
// cluster (the dev-server, which has no metrics APIs: there the explanation says the
// resource metrics API could not be read). The words are the engine's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { explainHpa } from "replicore/full";
import { cli, repo, run, runAsync, assertOneLineError, devKubeconfig } from "./helpers.mjs";
import { devServer } from "./operator-helpers.mjs";

const NOW = "2026-11-27T12:00:00Z";
const objects = join(repo, "examples/hpa.json");
const podMetrics = join(repo, "examples/hpa-pod-metrics.json");

test("explain hpa/NAME -f … --metrics …: per metric, the pods, the policy that limits, the memory range", () => {
  const r = run(["explain", "hpa/web", "-f", objects, "--metrics", podMetrics, "--now", NOW]);
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /^HorizontalPodAutoscaler shop\/web → Deployment\/web \(min 2, max 12, behavior path\)$/m);
  assert.match(out, /current 181% of request \(average 907m\), ratio 3\.017 \(outside tolerance\)/);
  assert.match(out, /pods: 3 ready, 1 unready, 1 missing, 0 ignored/);
  assert.match(out, /unready web-6c9f8d7b5-d2kfp: inside the CPU initialization period and not Ready/);
  assert.match(out, /missing web-6c9f8d7b5-e5hvn: no cpu sample/);
  assert.match(out, /missing pods assumed at 0 \(the ratio is above 1\)/);
  assert.match(out, /up policy Pods 2 per 60s: from 5 at the period's start, allows 7 {2}← limits/);
  assert.match(out, /^ {2}desired replicas: 7$/m);
  assert.match(out, /write the scale of Deployment\/web: 5 → 7 replicas/);
  assert.match(out, /could make it anything from 5 to 9/);
  // The text is the engine's: the same as the package's explainHpa of the same input.
  const input = { now: NOW, hpa: "web", objects: JSON.parse(readFileSync(objects, "utf8")), metrics: [JSON.parse(readFileSync(podMetrics, "utf8"))] };
  assert.equal(out, explainHpa(input).text);
  // --json is the explanation as data.
  const j = run(["explain", "hpa/web", "-f", objects, "--metrics", podMetrics, "--now", NOW, "--json"]);
  assert.equal(j.status, 0, j.stderr);
  const e = JSON.parse(j.stdout);
  assert.equal(e.desiredReplicas, 7);
  assert.equal(e.limit.reason, "ScaleUpLimit");
  assert.deepEqual([e.memory.range.low, e.memory.range.high], [5, 9]);
  // With the memory given there is no range.
  const tmp = mkdtempSync(join(tmpdir(), "replicore-hpa-"));
  const memory = join(tmp, "memory.json");
  writeFileSync(memory, JSON.stringify({ recommendations: [], scaleUpEvents: [{ replicaChange: 2, timestamp: "2026-11-27T11:59:30Z" }], scaleDownEvents: [] }));
  const held = run(["explain", "hpa/web", "-f", objects, "--metrics", podMetrics, "--memory", memory, "--now", NOW, "--json"]);
  assert.equal(held.status, 0, held.stderr);
  const h = JSON.parse(held.stdout);
  // Two pods added 30 s ago use the policy's 2 per 60 s: held at 5.
  assert.equal(h.desiredReplicas, 5);
  assert.equal(h.memory.given, true);
  assert.equal(h.memory.range, undefined);
});

test("explain hpa/NAME without the metrics: the metric fails as upstream's client says", () => {
  const r = run(["explain", "hpa/web", "-f", objects, "--now", NOW]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /no proposal: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API/);
  assert.match(r.stdout, /note: metric 0: no answer of metrics.k8s.io was given/);
  assert.match(r.stdout, /ScalingActive=False FailedGetResourceMetric/);
});

test("explain hpa/NAME: bad input is one line", () => {
  assertOneLineError(run(["explain", "hpa/nope", "-f", objects, "--now", NOW]), { status: 1, match: /hpa\/nope: no HorizontalPodAutoscaler named nope; the objects hold shop\/web/ });
  assertOneLineError(run(["explain", "hpa/web", "-f", objects, "--now", "soon"]), { status: 2, match: /--now: / });
  assertOneLineError(run(["explain", "hpa/web", "-f", objects, "--replicas", "3"]), { status: 2, match: /--replicas does not go with hpa\/NAME/ });
  assertOneLineError(run(["explain", "-f", objects, "--metrics", podMetrics]), { status: 2, match: /--metrics and --memory go with hpa\/NAME/ });
});

test("explain hpa/NAME from a cluster (the dev-server: the HPA, the Deployment's scale, the pods; no metrics API)", async () => {
  const { url, api, close } = await devServer();
  try {
    const list = JSON.parse(readFileSync(objects, "utf8"));
    await api.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    for (const item of list.items) {
      const { status, ...rest } = item;
      const meta = { ...rest.metadata };
      delete meta.uid;
      delete meta.ownerReferences;
      const path = { HorizontalPodAutoscaler: "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers", Deployment: "/apis/apps/v1/namespaces/shop/deployments", Pod: "/api/v1/namespaces/shop/pods" }[item.kind];
      const created = await api.post(path, { ...rest, metadata: meta });
      if (status) await api.put(`${path}/${meta.name}/status`, { ...created, status });
    }
    const { kubeconfig } = devKubeconfig(url, "replicore-hpa-live-");
    const r = await runAsync(process.execPath, [cli, "explain", "hpa/web", "-n", "shop", "--kubeconfig", kubeconfig, "--now", NOW]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^HorizontalPodAutoscaler shop\/web → Deployment\/web/m);
    assert.match(r.stdout, /scale: 5 replicas \(status 5\), selector app=web/);
    assert.match(r.stdout, /no proposal: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: /);
    // Nothing was written: the dev-server's Deployment still has 5 replicas.
    assert.equal((await api.get("/apis/apps/v1/namespaces/shop/deployments/web")).spec.replicas, 5);
    const missing = await runAsync(process.execPath, [cli, "explain", "hpa/nope", "-n", "shop", "--kubeconfig", kubeconfig, "--now", NOW]);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `replicore: hpa/nope: no HorizontalPodAutoscaler named "nope" in namespace shop on ${url}\n`);
  } finally {
    await close();
  }
});
