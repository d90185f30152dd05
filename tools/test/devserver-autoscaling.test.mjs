// The dev server's autoscaling: HPAs in autoscaling/v2 and v1 (one stored form, converted
// as kube-apiserver converts), `kubectl get hpa`'s columns, the scale subresource, the
// metrics API (metrics.k8s.io/v1beta1) fed by the kubelet's load model and its control
// endpoint, and Debian's kubectl 1.20 (`kubectl autoscale`, `kubectl get hpa`, `kubectl top`).
import { test, after, describe } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, repo } from "./helpers.mjs";
import { devServer, kubectlIn, kubectlMinor, kubectlPath, waitFor, WEB_YAML } from "./operator-helpers.mjs";

const servers = [];
const children = [];
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.close()));
});

async function start(options) {
  const dev = await devServer(options);
  servers.push(dev);
  return dev;
}

const KUBELET = { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 2 };
const TABLE = { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" };
const hpaPath = (version, ns, name = "") => `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ""}`;
const metricsPath = (ns, name = "") => `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods${name ? `/${name}` : ""}`;
const target = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

const v1Hpa = (spec = {}) => ({ apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata: { name: "web" }, spec: { scaleTargetRef: target, maxReplicas: 10, ...spec } });

const pod = (name, { labels = { app: "web" }, cpu = "200m", memory = "64Mi" } = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, labels },
  spec: { containers: [{ name: "app", image: "x", resources: { requests: { cpu, memory } } }] },
});

// A v2 HPA with what v1 cannot hold: other metrics, a behavior, conditions and every current metric.
const richSpec = {
  scaleTargetRef: target,
  minReplicas: 2,
  maxReplicas: 10,
  metrics: [
    { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } } },
    { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } },
    { type: "Pods", pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "10" } } },
    {
      type: "Object",
      object: { metric: { name: "hits" }, describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" }, target: { type: "Value", value: "2k" } },
    },
    { type: "External", external: { metric: { name: "queue", selector: { matchLabels: { q: "jobs" } } }, target: { type: "AverageValue", averageValue: "30" } } },
  ],
  behavior: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: "Pods", value: 1, periodSeconds: 30 }] } },
};
const richStatus = {
  observedGeneration: 1,
  currentReplicas: 3,
  desiredReplicas: 4,
  currentMetrics: [
    { type: "Resource", resource: { name: "memory", current: { averageValue: "80Mi" } } },
    { type: "Resource", resource: { name: "cpu", current: { averageValue: "120m", averageUtilization: 60 } } },
    { type: "Pods", pods: { metric: { name: "rps" }, current: { averageValue: "12" } } },
  ],
  conditions: [
    { type: "AbleToScale", status: "True", lastTransitionTime: "2026-11-27T12:00:00Z", reason: "ReadyForNewScale", message: "recommended size matches current size" },
    { type: "ScalingActive", status: "True", lastTransitionTime: "2026-11-27T12:00:00Z", reason: "ValidMetricFound", message: "the HPA was able to successfully calculate a replica count" },
  ],
};

describe("autoscaling/v1 and autoscaling/v2", () => {
  test("discovery lists both versions (v2 preferred) with their status subresources", async () => {
    const { api } = await start();
    const group = await api.get("/apis/autoscaling");
    assert.deepEqual(
      group.versions.map((v) => v.version),
      ["v2", "v1"],
    );
    assert.equal(group.preferredVersion.version, "v2");
    for (const v of ["v1", "v2"]) {
      const list = await api.get(`/apis/autoscaling/${v}`);
      assert.deepEqual(
        list.resources.map((r) => r.name),
        ["horizontalpodautoscalers", "horizontalpodautoscalers/status"],
      );
      assert.deepEqual(list.resources[0].shortNames, ["hpa"]);
    }
  });

  test("a v1 HPA is stored as v2: its CPU target a Resource metric, minReplicas and the 80 % default", async () => {
    const { api } = await start();
    const created = await api.post(hpaPath("v1", "shop"), v1Hpa({ minReplicas: 2, targetCPUUtilizationPercentage: 50 }));
    assert.equal(created.apiVersion, "autoscaling/v1");
    assert.deepEqual(created.spec, { scaleTargetRef: target, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    assert.deepEqual(created.status, { currentReplicas: 0, desiredReplicas: 0 });
    assert.equal(created.metadata.annotations, undefined);
    const v2 = await api.get(hpaPath("v2", "shop", "web"));
    assert.equal(v2.apiVersion, "autoscaling/v2");
    assert.deepEqual(v2.spec.metrics, [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }]);
    assert.equal(v2.spec.minReplicas, 2);

    await api.post(hpaPath("v1", "shop"), { ...v1Hpa(), metadata: { name: "plain" } });
    const plain = await api.get(hpaPath("v2", "shop", "plain"));
    assert.equal(plain.spec.minReplicas, 1);
    assert.deepEqual(plain.spec.metrics, [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }]);
    // …and v1 shows the default back as its one field.
    assert.equal((await api.get(hpaPath("v1", "shop", "plain"))).spec.targetCPUUtilizationPercentage, 80);
  });

  test("what v1 cannot hold rides in the round-trip annotations, in v1's field names", async () => {
    const { api } = await start();
    const hpa = await api.post(hpaPath("v2", "shop"), { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "web", annotations: { team: "a" } }, spec: richSpec });
    await api.put(hpaPath("v2", "shop", "web") + "/status", { ...hpa, status: richStatus });
    const v1 = await api.get(hpaPath("v1", "shop", "web"));
    assert.deepEqual(v1.spec, { scaleTargetRef: target, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    assert.deepEqual(v1.status, { observedGeneration: 1, currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 60 });
    const a = v1.metadata.annotations;
    assert.equal(a.team, "a");
    // The other metrics, in order, without the CPU utilization; the Object's targetValue as v1 writes it.
    assert.equal(
      a["autoscaling.alpha.kubernetes.io/metrics"],
      JSON.stringify([
        { type: "Resource", resource: { name: "memory", targetAverageValue: "100Mi" } },
        { type: "Pods", pods: { metricName: "rps", targetAverageValue: "10" } },
        { type: "Object", object: { target: { kind: "Ingress", name: "main", apiVersion: "networking.k8s.io/v1" }, metricName: "hits", targetValue: "2k" } },
        { type: "External", external: { metricName: "queue", metricSelector: { matchLabels: { q: "jobs" } }, targetAverageValue: "30" } },
      ]),
    );
    // Every current metric, the CPU one too (its raw value is kept).
    assert.deepEqual(JSON.parse(a["autoscaling.alpha.kubernetes.io/current-metrics"]), [
      { type: "Resource", resource: { name: "memory", currentAverageValue: "80Mi" } },
      { type: "Resource", resource: { name: "cpu", currentAverageUtilization: 60, currentAverageValue: "120m" } },
      { type: "Pods", pods: { metricName: "rps", currentAverageValue: "12" } },
    ]);
    assert.deepEqual(JSON.parse(a["autoscaling.alpha.kubernetes.io/conditions"]), richStatus.conditions);
    // The behavior, defaulted when stored, with Go's field names (upstream marshals its internal type).
    assert.deepEqual(JSON.parse(a["autoscaling.alpha.kubernetes.io/behavior"]), {
      ScaleUp: {
        StabilizationWindowSeconds: 0,
        SelectPolicy: "Max",
        Policies: [
          { Type: "Pods", Value: 4, PeriodSeconds: 15 },
          { Type: "Percent", Value: 100, PeriodSeconds: 15 },
        ],
        Tolerance: null,
      },
      ScaleDown: { StabilizationWindowSeconds: 60, SelectPolicy: "Max", Policies: [{ Type: "Pods", Value: 1, PeriodSeconds: 30 }], Tolerance: null },
    });

    // Written back through v1 (maxReplicas changed), the v2 object is the same but for it;
    // the CPU metric comes after the annotated ones, as upstream orders them.
    const before = await api.get(hpaPath("v2", "shop", "web"));
    await api.put(hpaPath("v1", "shop", "web"), { ...v1, spec: { ...v1.spec, maxReplicas: 12 } });
    const afterPut = await api.get(hpaPath("v2", "shop", "web"));
    assert.equal(afterPut.spec.maxReplicas, 12);
    assert.deepEqual(afterPut.metadata.annotations, { team: "a" });
    const cpuLast = [before.spec.metrics[0], ...before.spec.metrics.slice(2), before.spec.metrics[1]];
    assert.deepEqual(afterPut.spec.metrics, cpuLast);
    assert.deepEqual(afterPut.spec.behavior, before.spec.behavior);
    assert.deepEqual(afterPut.status, before.status);
    assert.equal(afterPut.metadata.generation, before.metadata.generation + 1);

    // A status write through v1 restores the conditions and metrics from its annotations.
    const v1Again = await api.get(hpaPath("v1", "shop", "web"));
    await api.put(hpaPath("v1", "shop", "web") + "/status", { ...v1Again, status: { ...v1Again.status, currentReplicas: 5 } });
    const status = (await api.get(hpaPath("v2", "shop", "web"))).status;
    assert.equal(status.currentReplicas, 5);
    assert.deepEqual(status.conditions, richStatus.conditions);
    assert.deepEqual(status.currentMetrics, richStatus.currentMetrics);
  });

  test("v1's conversions: an Object metric with an average, a broken annotation ignored, a merge patch", async () => {
    const { api } = await start();
    const annotations = {
      "autoscaling.alpha.kubernetes.io/metrics": JSON.stringify([
        { type: "Object", object: { target: { kind: "Service", name: "s" }, metricName: "m", targetValue: "0", averageValue: "5" } },
        { type: "External", external: { metricName: "e", targetValue: "7" } },
      ]),
      "autoscaling.alpha.kubernetes.io/behavior": "{not json",
    };
    await api.post(hpaPath("v1", "shop"), { ...v1Hpa({ targetCPUUtilizationPercentage: 70 }), metadata: { name: "web", annotations } });
    const v2 = await api.get(hpaPath("v2", "shop", "web"));
    assert.deepEqual(v2.spec.metrics, [
      // A zero targetValue beside an average is not kept.
      { type: "Object", object: { describedObject: { kind: "Service", name: "s" }, target: { type: "AverageValue", averageValue: "5" }, metric: { name: "m" } } },
      { type: "External", external: { metric: { name: "e" }, target: { type: "Value", value: "7" } } },
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
    ]);
    assert.equal(v2.spec.behavior, undefined);
    assert.equal(v2.metadata.annotations, undefined);
    const patched = await api.patch(hpaPath("v1", "shop", "web"), { spec: { targetCPUUtilizationPercentage: 40 } });
    assert.equal(patched.apiVersion, "autoscaling/v1");
    assert.equal(patched.spec.targetCPUUtilizationPercentage, 40);
    const metrics = (await api.get(hpaPath("v2", "shop", "web"))).spec.metrics;
    assert.equal(metrics.length, 3);
    assert.equal(metrics[2].resource.target.averageUtilization, 40);
  });

  test("list and watch in either version convert; a bad HPA is refused with 422", async () => {
    const { api, url } = await start();
    const ac = new AbortController();
    const res = await fetch(`${url}${hpaPath("v1", "shop")}?watch=true`, { signal: ac.signal });
    const reader = res.body.getReader();
    await api.post(hpaPath("v2", "shop"), { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "web" }, spec: richSpec });
    let text = "";
    while (!text.includes("\n")) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const event = JSON.parse(text.split("\n")[0]);
    assert.equal(event.type, "ADDED");
    assert.equal(event.object.apiVersion, "autoscaling/v1");
    assert.equal(event.object.spec.targetCPUUtilizationPercentage, 50);
    const v1List = await api.get(hpaPath("v1", "shop"));
    assert.equal(v1List.apiVersion, "autoscaling/v1");
    assert.equal(v1List.items[0].apiVersion, "autoscaling/v1");
    assert.equal((await api.get(hpaPath("v2", "shop"))).items[0].apiVersion, "autoscaling/v2");

    const bad = await api.call("POST", hpaPath("v1", "shop"), { ...v1Hpa({ minReplicas: 5, maxReplicas: 3 }), metadata: { name: "bad" } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /spec\.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`/);
  });

  test("kubectl get hpa's table: REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS, AGE", async () => {
    const { api, url } = await start();
    const hpa = await api.post(hpaPath("v1", "shop"), v1Hpa({ minReplicas: 2, targetCPUUtilizationPercentage: 50 }));
    const get = async (version) => (await fetch(`${url}${hpaPath(version, "shop")}`, { headers: TABLE })).json();
    const t = await get("v1");
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
    );
    assert.deepEqual(t.rows[0].cells.slice(0, 6), ["web", "Deployment/web", "cpu: <unknown>/50%", "2", 10, 0]);
    await api.put(hpaPath("v1", "shop", "web") + "/status", { ...hpa, status: { currentReplicas: 3, desiredReplicas: 3, currentCPUUtilizationPercentage: 12 } });
    assert.deepEqual((await get("v2")).rows[0].cells.slice(0, 6), ["web", "Deployment/web", "cpu: 12%/50%", "2", 10, 3]);

    await api.post(hpaPath("v2", "shop"), { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "rich" }, spec: richSpec });
    const rich = (await get("v2")).rows.find((r) => r.cells[0] === "rich");
    assert.equal(rich.cells[2], "memory: <unknown>/100Mi, cpu: <unknown>/50% + 3 more...");
  });
});

describe("the scale subresource", () => {
  test("GET, PUT and PATCH .../scale of a Deployment and a ReplicaSet (autoscaling/v1 Scale, the selector as text)", async () => {
    const { api } = await start();
    const selector = { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }] };
    const template = { metadata: { labels: { app: "web", tier: "a" } }, spec: { containers: [{ name: "c", image: "x" }] } };
    await api.post("/apis/apps/v1/namespaces/shop/deployments", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2, selector, template } });
    await api.post("/apis/apps/v1/namespaces/shop/replicasets", { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "rs" }, spec: { replicas: 1, selector, template } });
    for (const [path, replicas] of [
      ["/apis/apps/v1/namespaces/shop/deployments/web", 2],
      ["/apis/apps/v1/namespaces/shop/replicasets/rs", 1],
    ]) {
      const scale = await api.get(`${path}/scale`);
      assert.equal(scale.kind, "Scale");
      assert.equal(scale.apiVersion, "autoscaling/v1");
      assert.deepEqual(scale.spec, { replicas });
      assert.equal(scale.status.selector, "app=web,tier in (a,b)");
      const put = await api.put(`${path}/scale`, { ...scale, spec: { replicas: 4 } });
      assert.equal(put.spec.replicas, 4);
      assert.equal((await api.get(path)).spec.replicas, 4);
      const patched = await api.patch(`${path}/scale`, { spec: { replicas: 6 } });
      assert.equal(patched.spec.replicas, 6);
      assert.equal((await api.get(path)).spec.replicas, 6);
      const stale = await api.call("PUT", `${path}/scale`, { ...scale, spec: { replicas: 1 } });
      assert.equal(stale.status, 409);
    }
  });
});

describe("metrics.k8s.io from the kubelet's load model", () => {
  async function loaded(load, kubelet = KUBELET) {
    const dev = await start({ kubelet, load });
    for (const name of ["web-1", "web-2"]) await dev.api.post("/api/v1/namespaces/shop/pods", pod(name));
    await dev.api.post("/api/v1/namespaces/shop/pods", pod("db-1", { labels: { app: "db" }, cpu: "1", memory: "1Gi" }));
    return dev;
  }
  const cpuOf = (list) => Object.fromEntries(list.items.map((m) => [m.metadata.name, m.containers[0].usage.cpu]));

  test("discovery: the group, its version, pods and nodes", async () => {
    const { api } = await start({ kubelet: KUBELET });
    const groups = await api.get("/apis");
    const metrics = groups.groups.find((g) => g.name === "metrics.k8s.io");
    assert.equal(metrics.preferredVersion.groupVersion, "metrics.k8s.io/v1beta1");
    const list = await api.get("/apis/metrics.k8s.io/v1beta1");
    assert.deepEqual(
      list.resources.map((r) => [r.name, r.kind, r.namespaced, r.verbs]),
      [
        ["nodes", "NodeMetrics", false, ["get", "list"]],
        ["pods", "PodMetrics", true, ["get", "list"]],
      ],
    );
    // Without the kubelet there is no metrics API.
    const plain = await start();
    assert.equal((await plain.api.get("/apis")).groups.some((g) => g.name === "metrics.k8s.io"), false);
    assert.equal((await plain.api.call("GET", metricsPath("shop"))).status, 404);
  });

  test("PodMetrics as metrics-server answers: the Ready pods share the demand, memory half the request", async () => {
    const { api } = await loaded({ loads: [{ namespace: "shop", selector: "app=web", curve: { kind: "step", from: 500, to: 500, atSeconds: 0 } }] });
    await waitFor(async () => (await api.get(metricsPath("shop"))).items.length === 3, "three pods with metrics");
    const list = await api.get(metricsPath("shop"));
    assert.equal(list.kind, "PodMetricsList");
    assert.equal(list.apiVersion, "metrics.k8s.io/v1beta1");
    const web1 = list.items.find((m) => m.metadata.name === "web-1");
    assert.equal(web1.kind, "PodMetrics");
    assert.equal(web1.metadata.namespace, "shop");
    assert.deepEqual(web1.metadata.labels, { app: "web" });
    assert.match(web1.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(web1.window, "15s");
    assert.deepEqual(web1.containers, [{ name: "app", usage: { cpu: "250m", memory: "32Mi" } }]);
    // db-1 matches no load: Ready, no demand.
    assert.deepEqual(cpuOf(list), { "db-1": "0", "web-1": "250m", "web-2": "250m" });
    assert.equal(list.items.find((m) => m.metadata.name === "db-1").containers[0].usage.memory, "512Mi");

    const selected = await api.get(`${metricsPath("shop")}?labelSelector=app%3Dweb`);
    assert.deepEqual(
      selected.items.map((m) => m.metadata.name),
      ["web-1", "web-2"],
    );
    assert.equal((await api.get(metricsPath("shop", "web-2"))).containers[0].usage.cpu, "250m");
    const missing = await api.call("GET", metricsPath("shop", "nope"));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'podmetrics.metrics.k8s.io "shop/nope" not found');
    assert.equal((await api.get("/apis/metrics.k8s.io/v1beta1/pods")).items.length, 3);

    const nodes = await api.get("/apis/metrics.k8s.io/v1beta1/nodes");
    assert.equal(nodes.kind, "NodeMetricsList");
    assert.deepEqual(
      nodes.items.map((n) => n.metadata.name),
      ["node-1", "node-2"],
    );
    const total = nodes.items.reduce((s, n) => s + Number(n.usage.cpu.replace(/m$/, "")), 0);
    assert.equal(total, 500);
    assert.equal((await api.get("/apis/metrics.k8s.io/v1beta1/nodes/node-1")).kind, "NodeMetrics");
  });

  test("/_replicore/load changes the demand live; a bad curve is refused with its field", async () => {
    const { api } = await loaded({ loads: [{ namespace: "shop", selector: "app=web", curve: { kind: "step", from: 200, to: 200, atSeconds: 0 } }] });
    await waitFor(async () => (await api.get(metricsPath("shop"))).items.length === 3, "three pods with metrics");
    assert.deepEqual(cpuOf(await api.get(`${metricsPath("shop")}?labelSelector=app%3Dweb`)), { "web-1": "100m", "web-2": "100m" });

    const view = await api.put("/_replicore/load", { loads: [{ namespace: "shop", selector: "app=web", curve: { kind: "step", from: 1800, to: 0, atSeconds: 3600 } }] });
    assert.equal(view.loads[0].demandMillis, 1800);
    assert.equal(view.loads[0].pods, 2);
    assert.deepEqual(cpuOf(await api.get(`${metricsPath("shop")}?labelSelector=app%3Dweb`)), { "web-1": "900m", "web-2": "900m" });

    // POST adds a load (or replaces the one of the same namespace and selector).
    await api.post("/_replicore/load", { namespace: "shop", selector: "app=db", curve: { kind: "step", from: 2000, to: 2000, atSeconds: 0 } });
    const got = await api.get("/_replicore/load");
    assert.deepEqual(
      got.loads.map((l) => [l.selector, l.demandMillis]),
      [
        ["app=web", 1800],
        ["app=db", 2000],
      ],
    );
    assert.deepEqual(cpuOf(await api.get(metricsPath("shop"))), { "db-1": "2", "web-1": "900m", "web-2": "900m" });

    const bad = await api.call("PUT", "/_replicore/load", { loads: [{ namespace: "shop", selector: "app=web", curve: { kind: "ramp", from: 1, to: 2, startSeconds: 10, endSeconds: 5 } }] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /loads\[0\]\.curve: .*endSeconds/);
    const notList = await api.call("PUT", "/_replicore/load", { loads: 5 });
    assert.equal(notList.status, 400);
    assert.match(notList.body.message, /^loads: must be a list/);
    // withoutMetrics: partial metrics, as when metrics-server has not scraped a pod yet.
    await api.put("/_replicore/load", { withoutMetrics: "app=db" });
    assert.deepEqual(Object.keys(cpuOf(await api.get(metricsPath("shop")))), ["web-1", "web-2"]);
    await api.del("/_replicore/load");
    assert.deepEqual(cpuOf(await api.get(metricsPath("shop"))), { "db-1": "0", "web-1": "0", "web-2": "0" });
  });

  test("a Running pod not yet Ready reports its CPU request, a Pending one nothing", async () => {
    const { api } = await loaded({ loads: [{ namespace: "shop", selector: "app=web", curve: { kind: "step", from: 900, to: 900, atSeconds: 0 } }] }, { ...KUBELET, readyDelayMs: 60_000 });
    await waitFor(async () => (await api.get(metricsPath("shop"))).items.length === 3, "three running pods");
    assert.deepEqual(cpuOf(await api.get(metricsPath("shop"))), { "db-1": "1", "web-1": "200m", "web-2": "200m" });
    const pending = await start({ kubelet: { ...KUBELET, scheduleDelayMs: 60_000 } });
    await pending.api.post("/api/v1/namespaces/shop/pods", pod("web-1"));
    assert.deepEqual((await pending.api.get(metricsPath("shop"))).items, []);
  });

  test("fault rules fail the metrics API by resource pods.metrics.k8s.io", async () => {
    const { api } = await loaded({});
    await api.put("/_replicore/faults", { rules: [{ resource: "pods.metrics.k8s.io", verb: "list", status: 503, times: 1 }] });
    assert.equal((await api.call("GET", metricsPath("shop"))).status, 503);
    assert.equal((await api.call("GET", metricsPath("shop"))).status, 200);
  });

  test("the command line: --load needs --kubelet; a malformed one is a usage error", async () => {
    const { run } = await import("./helpers.mjs");
    const r = run(["dev-server", "--load", "default/app=web=800"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--load, --load-file and --load-noise need --kubelet/);
    const bad = run(["dev-server", "--kubelet", "--load", "app=web"]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /expected NAMESPACE\/SELECTOR=CURVE/);
  });
});

const kubectl = kubectlPath();

test("kubectl (Debian's 1.20, or KUBECTL): autoscale, get hpa, describe hpa, top pods, top nodes", { skip: kubectl ? false : "no kubectl (run scripts/setup.sh)" }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "replicore-autoscaling-"));
  const { ok } = kubectlIn(kubectl, tmp, 30000);
  const server = spawn(process.execPath, [cli, "dev-server", "--port", "0", "--kubelet", "--load", "default/app=web=600", "--kubeconfig-out", join(tmp, "kubeconfig")], {
    cwd: repo,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(server);
  const url = await new Promise((resolve, reject) => {
    server.stdout.setEncoding("utf8");
    server.stdout.once("data", (line) => resolve(JSON.parse(line).url));
    server.once("exit", (code) => reject(new Error(`dev-server exited (${code})`)));
  });
  const container = (indent) =>
    ["containers:", "- name: app", "  image: nginx", "  resources:", "    requests:", "      cpu: 200m", "      memory: 64Mi"].map((l) => `${indent}${l}\n`).join("");
  const pods = ["web-a", "web-b"].map((name) => `---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n    app: web\nspec:\n${container("  ")}`);
  writeFileSync(join(tmp, "web.yaml"), WEB_YAML + pods.join(""));
  ok("create", "-f", join(tmp, "web.yaml"));
  assert.match(ok("autoscale", "deploy", "web", "--cpu-percent=50", "--min=2", "--max=10"), /^horizontalpodautoscaler.autoscaling\/web autoscaled$/m);
  const table = ok("get", "hpa");
  assert.match(table, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
  assert.match(table, /^web\s+Deployment\/web\s+cpu: <unknown>\/50%\s+2\s+10\s+0\s+\S+$/m);
  const v2 = await (await fetch(`${url}/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web`)).json();
  assert.deepEqual(v2.spec.metrics, [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }]);

  await waitFor(() => /web-b/.test(ok("top", "pods")), "kubectl top pods to list both pods", 30000, 300);
  const top = ok("top", "pods");
  assert.match(top, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/m);
  assert.match(top, /^web-a\s+300m\s+32Mi\s*$/m);
  assert.match(top, /^web-b\s+300m\s+32Mi\s*$/m);
  // The kubelet's nodes (4 CPUs each): the pods' sum, as a percentage of allocatable.
  const nodes = ok("top", "nodes");
  // kubectl 1.20 heads the percentages CPU% and MEMORY%, later ones CPU(%) and MEMORY(%).
  assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU(?:%|\(%\))\s+MEMORY\(bytes\)\s+MEMORY(?:%|\(%\))\s*$/m);
  assert.match(nodes, /^node-1\s+300m\s+7%\s+32Mi\s+0%\s*$/m);
  assert.match(nodes, /^node-3\s+0m\s+0%\s+0Mi\s+0%\s*$/m);
  await fetch(`${url}/_replicore/load`, { method: "PUT", body: JSON.stringify({ loads: [{ namespace: "default", selector: "app=web", curve: { kind: "step", from: 100, to: 100, atSeconds: 0 } }] }) });
  assert.match(ok("top", "pods", "-l", "app=web"), /^web-a\s+50m\s+32Mi\s*$/m);
  // A controller's status write (as the operator's would be) through v2: get and describe show it.
  const hpaV2 = `${url}/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web`;
  const status = {
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageValue: "150m", averageUtilization: 75 } } }],
    conditions: [{ type: "AbleToScale", status: "True", lastTransitionTime: "2026-11-27T15:00:00Z", reason: "ReadyForNewScale", message: "recommended size matches current size" }],
  };
  const put = await fetch(`${hpaV2}/status`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ...v2, status }) });
  assert.equal(put.status, 200);
  assert.match(ok("get", "hpa"), /^web\s+Deployment\/web\s+cpu: 75%\/50%\s+2\s+10\s+2\s+\S+\s*$/m);
  const described = ok("describe", "hpa", "web");
  if (kubectlMinor(kubectl) >= 23) {
    assert.match(described, /resource cpu on pods\s+\(as a percentage of request\):\s+75% \(150m\) \/ 50%/);
    assert.match(described, /^\s+AbleToScale\s+True\s+ReadyForNewScale\s+recommended size matches current size\s*$/m);
  } else {
    // kubectl 1.20 describes through autoscaling/v1 (its v2beta2 is not served): the
    // current utilization and the conditions in their annotation.
    assert.match(described, /^Current CPU utilization:\s+75%$/m);
    assert.match(described, /^Target CPU utilization:\s+50%$/m);
    assert.match(described, /autoscaling\.alpha\.kubernetes\.io\/conditions:\s*\n\s+\[\{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-27T15:00:00Z","reason":"ReadyForNewScale"/);
  }
  process.stdout.write(`kubectl get hpa:\n${table}kubectl top pods:\n${top}kubectl describe hpa web:\n${described}`);
});
