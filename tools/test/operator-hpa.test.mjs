// The operator's HorizontalPodAutoscaler controller against the dev server, with the
// Deployment and ReplicaSet controllers and the fake kubelet: an HPA on a Deployment
// scales it from its pods' CPU within min/max (the legacy 2x/4 cap on the way up), and
// down only after the stabilization window; with the metrics API down or partial, the
// scale subresource failing, status conflicts, it holds and then converges; a leader
// SIGKILLed mid-scale is replaced by one that keeps the policy's period
// (--hpa-memory annotation); the flags and their engine defaults; the same faults through
// the dev server's own metrics API (its load model, fault rules and pods without metrics).
//
// In the first four tests the pod metrics (metrics.k8s.io/v1beta1 PodMetricsList) come
// from a stub in this file, for values exact to the millicore: a
// small HTTP proxy in front of the dev server that answers the metrics API from a load
// the test sets (CPU shared evenly by the selected running pods) and can fail it (503) or
// leave pods out, and forwards every other request (watches included) to the dev server.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, request as httpRequest } from "node:http";
import { assertOneLineError, run } from "./helpers.mjs";
import { deployment as deploymentObject, devServer, FAST_LEASE, killAll, operator, pods, sleep, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const deployPath = (ns, name = "") => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ""}`;
const hpaPath = (ns, name = "") => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ""}`;
const KUBELET = { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 20, nodes: 3 };
const MEMORY_ANNOTATION = "replicore.dev/hpa-memory";

/** A Deployment whose pods request 100m CPU each. */
const deployment = (name, replicas) => deploymentObject(name, replicas, { resources: { requests: { cpu: "100m" } } });

/** An autoscaling/v2 HPA on Deployment `target` at `percent` % CPU. */
function hpa(name, target, min, max, { percent = 50, behavior } = {}) {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: target },
      minReplicas: min,
      maxReplicas: max,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: percent } } }],
      ...(behavior ? { behavior } : {}),
    },
  };
}

/**
 * The metrics stub: a proxy to the dev server at `target` answering
 * /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods?labelSelector=… from `state`:
 * `cpuMilli` shared evenly by the selected Running pods, `missing` pods (the first by
 * name) left out, or `fail` (an HTTP status) for every request.
 */
async function metricsProxy(target) {
  const state = { cpuMilli: 0, missing: 0, fail: 0, asked: 0, custom: {}, external: {}, customAsked: [] };
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://stub");
    const m = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/.exec(url.pathname);
    if (m) {
      state.asked++;
      void podMetrics(target, state, m[1], url.searchParams.get("labelSelector") ?? "").then(
        ([status, body]) => {
          res.writeHead(status, { "Content-Type": "application/json" });
          res.end(JSON.stringify(body));
        },
        (e) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
      return;
    }
    const custom = /^\/apis\/(custom|external)\.metrics\.k8s\.io\/v1beta[12]\/namespaces\/([^/]+)\/(?:pods\/\*\/)?([^/]+)$/.exec(url.pathname);
    if (custom) {
      state.customAsked.push(`${custom[1]} ${url.pathname}`);
      void customMetrics(target, state, custom[1], custom[2], custom[3], url.searchParams.get("labelSelector") ?? "").then(([status, body]) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      });
      return;
    }
    const t = new URL(target);
    const up = httpRequest({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      // A watch's headers before its first event (the informer waits for them).
      res.flushHeaders();
      ur.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
    res.on("close", () => up.destroy());
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  servers.push({ close });
  return { url, state };
}

async function podMetrics(target, state, ns, selector) {
  if (state.fail) {
    const status = { kind: "Status", apiVersion: "v1", status: "Failure", code: state.fail, reason: "ServiceUnavailable", message: "the server is currently unable to handle the request (get pods.metrics.k8s.io)" };
    return [state.fail, status];
  }
  const q = selector ? `?labelSelector=${encodeURIComponent(selector)}` : "";
  const list = await (await fetch(`${target}/api/v1/namespaces/${ns}/pods${q}`)).json();
  const running = list.items.filter((p) => p.status?.phase === "Running" && !p.metadata.deletionTimestamp).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const each = running.length === 0 ? 0 : Math.round(state.cpuMilli / running.length);
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const items = running.slice(state.missing).map((p) => ({
    metadata: { name: p.metadata.name, namespace: ns, labels: p.metadata.labels, creationTimestamp: now },
    timestamp: now,
    window: "1s",
    containers: [{ name: "main", usage: { cpu: `${each}m`, memory: "10Mi" } }],
  }));
  return [200, { kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", metadata: {}, items }];
}

/**
 * custom.metrics.k8s.io (every pod's METRIC, `pods/*` in the path: `state.custom[METRIC]`
 * in milli-units shared by the selected Running pods, one MetricValue each) and
 * external.metrics.k8s.io (`METRIC`: one value, `state.external[METRIC]`, its
 * `metricLabels` left empty as some adapters answer), in the lists those APIs answer.
 */
async function customMetrics(target, state, api, ns, metric, selector) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  if (api === "external") {
    if (!(metric in state.external)) return [404, { kind: "Status", apiVersion: "v1", status: "Failure", code: 404, reason: "NotFound", message: `no metric ${metric}` }];
    return [200, { kind: "ExternalMetricValueList", apiVersion: "external.metrics.k8s.io/v1beta1", metadata: {}, items: [{ metricName: metric, metricLabels: {}, timestamp: now, value: `${state.external[metric]}m` }] }];
  }
  const q = selector ? `?labelSelector=${encodeURIComponent(selector)}` : "";
  const list = await (await fetch(`${target}/api/v1/namespaces/${ns}/pods${q}`)).json();
  const running = list.items.filter((p) => p.status?.phase === "Running" && !p.metadata.deletionTimestamp);
  const each = running.length === 0 ? 0 : Math.round((state.custom[metric] ?? 0) / running.length);
  const items = running.map((p) => ({
    describedObject: { kind: "Pod", namespace: ns, name: p.metadata.name, apiVersion: "/v1" },
    metric: { name: metric },
    timestamp: now,
    windowSeconds: 30,
    value: `${each}m`,
  }));
  return [200, { kind: "MetricValueList", apiVersion: "custom.metrics.k8s.io/v1beta2", metadata: {}, items }];
}

/** Samples the Deployment's spec.replicas every 25 ms: [{at, replicas}] (changes only). */
function sampler(api, ns, name) {
  const seen = [];
  let stop = false;
  const done = (async () => {
    while (!stop) {
      try {
        const d = await api.get(deployPath(ns, name));
        const r = d.spec.replicas;
        if (seen.length === 0 || seen[seen.length - 1].replicas !== r) seen.push({ at: Date.now(), replicas: r });
      } catch {
        // the server is busy: sample again
      }
      await sleep(25);
    }
  })();
  return { seen, stop: () => ((stop = true), done) };
}

const condition = (h, type) => (h.status?.conditions ?? []).find((c) => c.type === type);

async function hpaEvents(api, ns, name) {
  return (await api.get(`/api/v1/namespaces/${ns}/events`)).items.filter((e) => e.involvedObject.kind === "HorizontalPodAutoscaler" && e.involvedObject.name === name);
}

/** The pods of the Deployment that are Ready. */
async function readyPods(api, ns) {
  return (await pods(api, ns, "app=web")).filter((p) => (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"));
}

async function start(args, { name = "op", lease } = {}) {
  const dev = await devServer({ kubelet: KUBELET });
  servers.push(dev);
  const stub = await metricsProxy(dev.url);
  const op = operator(stub.url, args, { name, ...(lease ? { lease } : {}) });
  ops.push(op);
  await op.waitLog("operator running");
  return { dev, api: dev.api, server: dev.server, stub, op };
}

test("an HPA on a Deployment: up from its pods' CPU to max (the legacy cap on the way), never above; down to min only after the stabilization window", async () => {
  const WINDOW = 6;
  const { api, stub, op } = await start(["--no-leader-elect", "--horizontal-pod-autoscaler-sync-period", "1s", "--horizontal-pod-autoscaler-downscale-stabilization", `${WINDOW}s`]);
  await api.post(deployPath("auto"), deployment("web", 2));
  await waitFor(async () => (await readyPods(api, "auto")).length === 2, "2 ready pods");
  const s = sampler(api, "auto", "web");
  await api.post(hpaPath("auto"), hpa("web", "web", 2, 6));
  // 20 % of the request: below target, at min already: nothing to do.
  stub.state.cpuMilli = 40;
  await waitFor(async () => condition(await api.get(hpaPath("auto", "web")), "ScalingActive")?.status === "True", "ScalingActive True");
  assert.deepEqual(s.seen.map((x) => x.replicas), [2]);

  // 600m shared by the pods: 300 % at 2 pods, twice what 6 pods could bring down to 50 %.
  stub.state.cpuMilli = 600;
  await waitFor(async () => (await api.get(deployPath("auto", "web"))).spec.replicas === 6 && (await readyPods(api, "auto")).length === 6, "6 ready replicas", 60000);
  const up = await waitFor(async () => {
    const h = await api.get(hpaPath("auto", "web"));
    return h.status?.currentReplicas === 6 && h.status?.desiredReplicas === 6 ? h : undefined;
  }, "the HPA's status at 6");
  assert.equal(condition(up, "AbleToScale").status, "True");
  assert.equal(condition(up, "ScalingLimited").reason, "TooManyReplicas");
  assert.equal(up.status.currentMetrics[0].resource.name, "cpu");
  assert.ok(up.status.lastScaleTime);
  // Events are written after the scale and the status, by their own sink.
  const rescales = await waitFor(async () => {
    const r = (await hpaEvents(api, "auto", "web")).filter((e) => e.reason === "SuccessfulRescale");
    return r.some((e) => /^New size: 6; reason: /.test(e.message)) ? r : undefined;
  }, "the rescale events to 6");
  // Without a behavior the first step is capped at max(2 x 2, 4) = 4 (H-04), then max 6.
  assert.match(rescales[0].message, /^New size: 4; reason: cpu resource utilization \(percentage of request\) above target$/);
  assert.ok(rescales.some((e) => /^New size: 6; reason: /.test(e.message)));
  assert.equal(rescales[0].source.component, "horizontal-pod-autoscaler");

  // Load dropped: 10 % of the request. Down to min 2, but not before the window's
  // recommendations (6, made up to one sync period before the drop) have aged out.
  const dropped = Date.now();
  stub.state.cpuMilli = 60;
  await waitFor(() => s.seen.some((x) => x.at >= dropped && x.replicas === 2), "scaled down to 2", 60000);
  await s.stop();
  const down = s.seen.find((x) => x.at >= dropped && x.replicas < 6);
  assert.ok(down.at - dropped >= (WINDOW - 1) * 1000 - 500, `scaled down ${down.at - dropped} ms after the load dropped, window ${WINDOW} s`);
  assert.ok(
    s.seen.every((x) => x.replicas >= 2 && x.replicas <= 6),
    `never outside 2..6: ${JSON.stringify(s.seen.map((x) => x.replicas))}`,
  );
  // Events are written after the scale, from the recorder's queue: wait for it.
  const downEvent = await waitFor(
    async () => (await hpaEvents(api, "auto", "web")).find((e) => e.reason === "SuccessfulRescale" && /^New size: 2; reason: All metrics below target$/.test(e.message)),
    "a SuccessfulRescale event to 2",
  );
  assert.ok(downEvent, "a SuccessfulRescale event to 2");

  // Its own metrics, client and shared pod cache.
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_hpa_syncs_total\{result="ok"\} [1-9]\d*$/m);
  assert.match(metrics, /^replicore_hpa_desired_replicas\{namespace="auto",hpa="web"\} 2$/m);
  assert.match(metrics, /^replicore_hpa_workqueue_depth \d+$/m);
  assert.match(metrics, /^replicore_hpa_api_calls_total\{call="fetchMetric",result="ok"\} [1-9]\d*$/m);
  assert.match(metrics, /^replicore_hpa_rescales_total\{direction="up"\} 2$/m);
  assert.match(metrics, /^replicore_api_requests_total\{controller="horizontal-pod-autoscaler",method="PUT",code="200"\} [1-9]\d*$/m);
  assert.equal(op.find("horizontal-pod-autoscaler caches synced")[0].sharedPods, true);
  assert.deepEqual(op.find("operator running")[0].controllers, ["replicaset", "deployment", "horizontalpodautoscaling"]);
});

test("faults: the metrics API down holds the scale; scale read/write failures and status conflicts are retried each period; partial metrics hold a scale-down; then it converges", async () => {
  const { api, server, stub, op } = await start(["--no-leader-elect", "--horizontal-pod-autoscaler-sync-period", "1s", "--horizontal-pod-autoscaler-downscale-stabilization", "3s"]);
  await api.post(deployPath("faults"), deployment("web", 2));
  await waitFor(async () => (await readyPods(api, "faults")).length === 2, "2 ready pods");
  const s = sampler(api, "faults", "web");
  await api.post(hpaPath("faults"), hpa("web", "web", 2, 5));

  // The metrics API answers 503 under a load that would scale up: nothing moves, the
  // HPA says why.
  stub.state.fail = 503;
  stub.state.cpuMilli = 500;
  const failing = await waitFor(async () => {
    const h = await api.get(hpaPath("faults", "web"));
    return condition(h, "ScalingActive")?.reason === "FailedGetResourceMetric" ? h : undefined;
  }, "ScalingActive FailedGetResourceMetric");
  assert.equal(condition(failing, "ScalingActive").status, "False");
  assert.match(condition(failing, "ScalingActive").message, /unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request/);
  const asked = stub.state.asked;
  await waitFor(() => stub.state.asked >= asked + 3, "three more failed syncs");
  assert.equal((await api.get(deployPath("faults", "web"))).spec.replicas, 2);
  assert.ok((await hpaEvents(api, "faults", "web")).some((e) => e.reason === "FailedGetResourceMetric" && e.type === "Warning"));

  // The metrics back, but the scale subresource fails to read twice and to write twice,
  // and the status write conflicts three times: each is an event or a retry one period
  // later, and the HPA still gets to max.
  server.faults.set({
    rules: [
      { verb: "get", resource: "deployments", subresource: "scale", status: 500, times: 2 },
      { verb: "update", resource: "deployments", subresource: "scale", status: 500, times: 2 },
      { verb: "update", resource: "horizontalpodautoscalers", subresource: "status", status: 409, times: 3 },
    ],
  });
  stub.state.fail = 0;
  await waitFor(async () => {
    const h = await api.get(hpaPath("faults", "web"));
    return h.status?.currentReplicas === 5 && h.status?.desiredReplicas === 5 && (await readyPods(api, "faults")).length === 5;
  }, "5 ready replicas and the status at 5", 60000);
  const events = await hpaEvents(api, "faults", "web");
  assert.ok(events.some((e) => e.reason === "FailedGetScale"), "FailedGetScale recorded");
  assert.ok(events.some((e) => e.reason === "FailedRescale"), "FailedRescale recorded");
  assert.deepEqual(server.faults.view().rules.map((r) => r.failed), [2, 2, 3], "every injected fault was met");
  const metrics = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  assert.match(metrics, /^replicore_api_conflicts_total\{controller="horizontal-pod-autoscaler",write="update horizontalpodautoscalers\/status"\} 3$/m);
  server.faults.clear();

  // Load dropped to 10 %, but two of the five pods have no metrics: on a scale-down the
  // engine takes them at 100 % of their request (46 % on average, within the tolerance of
  // 50 %), so the HPA holds at 5. With every pod measured again it scales down to min.
  stub.state.missing = 2;
  stub.state.cpuMilli = 50;
  const held = stub.state.asked;
  await waitFor(() => stub.state.asked >= held + 6, "six syncs with partial metrics");
  assert.equal((await api.get(deployPath("faults", "web"))).spec.replicas, 5);
  stub.state.missing = 0;
  await waitFor(() => s.seen.some((x) => x.replicas === 2 && s.seen.indexOf(x) > 0), "down to min 2", 60000);
  await s.stop();
  assert.ok(
    s.seen.every((x) => x.replicas >= 2 && x.replicas <= 5),
    `never outside 2..5: ${JSON.stringify(s.seen.map((x) => x.replicas))}`,
  );
  // Up once to 4 (the cap), once to 5, down once to 2: no flapping through the faults.
  assert.deepEqual(
    s.seen.map((x) => x.replicas),
    [2, 4, 5, 2],
  );
});

test("a leader SIGKILLed mid-scale: the new leader reads the memory annotation and keeps the scale-up policy's period (1 pod per 20 s) across the failover", async () => {
  const PERIOD = 20;
  const args = ["--horizontal-pod-autoscaler-sync-period", "1s", "--hpa-memory", "annotation"];
  const { dev, api, stub, op: first } = await start(args, { name: "first", lease: FAST_LEASE });
  const second = operator(stub.url, args, { name: "second", lease: FAST_LEASE });
  ops.push(second);
  await api.post(deployPath("ha"), deployment("web", 2));
  await waitFor(async () => (await readyPods(api, "ha")).length === 2, "2 ready pods");
  const s = sampler(api, "ha", "web");
  const behavior = { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 1, periodSeconds: PERIOD }] } };
  stub.state.cpuMilli = 800;
  await api.post(hpaPath("ha"), hpa("web", "web", 2, 6, { behavior }));
  // The first leader adds one pod, writes its memory to the HPA, and dies.
  const scaled = (await waitFor(() => s.seen.find((x) => x.replicas === 3), "scaled to 3")).at;
  const annotated = await waitFor(async () => {
    const text = (await api.get(hpaPath("ha", "web"))).metadata.annotations?.[MEMORY_ANNOTATION];
    return text && JSON.parse(text).scaleUpEvents?.length === 1 ? JSON.parse(text) : undefined;
  }, "the memory annotation with the scale-up event");
  assert.equal(annotated.scaleUpEvents[0].replicaChange, 1);
  first.kill("SIGKILL");
  await first.exited;

  // The second takes the lease, reads the memory, and adds the next pod only once the
  // period since the first one's has passed (upstream's new leader starts without it).
  await second.waitLog("leader election: acquired the lease", {}, 30000);
  await second.waitLog("hpa memory read from the annotation", { key: "ha/web" });
  const next = (await waitFor(() => s.seen.find((x) => x.replicas === 4), "scaled to 4", 60000)).at;
  await s.stop();
  assert.ok(next - scaled >= (PERIOD - 1) * 1000, `the second pod ${next - scaled} ms after the first, the policy's period ${PERIOD} s`);
  assert.deepEqual(
    s.seen.map((x) => x.replicas),
    [2, 3, 4],
  );
  await second.waitLog("hpa synced", { key: "ha/web", rescaledTo: 4 });
  void dev;
});

test("flags: the HPA settings default to the engine's; bad values are usage errors; --controllers horizontalpodautoscaling alone has its own pod cache", async () => {
  const help = run(["operator", "--help"]);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--horizontal-pod-autoscaler-sync-period D\n\s+how often each HPA is synced \(default 15s\)/);
  assert.match(help.stdout, /--horizontal-pod-autoscaler-tolerance F\n\s+the ratio change that is no change \(default 0\.1\)/);
  assert.match(help.stdout, /look-back window of a scale-down \(default 300s\)/);
  assert.match(help.stdout, /skipped this long \(default 300s\)/);
  assert.match(help.stdout, /\(default 30s\)/);
  assertOneLineError(run(["operator", "--server", "http://127.0.0.1:1", "--hpa-memory", "etcd"]), { status: 2, match: /--hpa-memory: expected process or annotation, got 'etcd'/ });
  assertOneLineError(run(["operator", "--server", "http://127.0.0.1:1", "--horizontal-pod-autoscaler-sync-period", "1500ms"]), { status: 2, match: /expected whole seconds/ });
  assertOneLineError(run(["operator", "--server", "http://127.0.0.1:1", "--controllers", "hpa"]), { status: 2, match: /horizontalpodautoscaling/ });

  const { api, stub, op } = await start(["--no-leader-elect", "--controllers", "horizontalpodautoscaling", "--horizontal-pod-autoscaler-sync-period", "1s"]);
  assert.deepEqual(op.find("operator running")[0].controllers, ["horizontalpodautoscaling"]);
  assert.equal(op.find("horizontal-pod-autoscaler caches synced")[0].sharedPods, false);
  // No Deployment controller: the HPA scales the Deployment's spec; nothing makes pods.
  await api.post(deployPath("solo"), deployment("web", 1));
  stub.state.cpuMilli = 0;
  await api.post(hpaPath("solo"), hpa("web", "web", 3, 4));
  // Below minReplicas: raised to 3 whatever the metrics say (H-43).
  await waitFor(async () => (await api.get(deployPath("solo", "web"))).spec.replicas === 3, "raised to min 3");
  await waitFor(async () => (await api.get(hpaPath("solo", "web"))).status?.desiredReplicas === 3, "desired 3 in the status");
  // The event is written after the scale and the status (its own sink, one at a time).
  let events = [];
  await waitFor(async () => (events = await hpaEvents(api, "solo", "web")).length > 0, "the rescale event");
  assert.equal(events[0].reason, "SuccessfulRescale");
  assert.equal(events[0].message, "New size: 3; reason: Current number of replicas below Spec.MinReplicas");
});

test("against the dev server's own metrics API (its load model): its 503 fault holds the scale; pods left without metrics hold a scale-down; then up to max and down to min", async () => {
  const dev = await devServer({ kubelet: KUBELET });
  servers.push(dev);
  const { api, server } = dev;
  const load = async ({ millis, withoutMetrics }) => {
    const body = {
      ...(millis !== undefined ? { loads: [{ namespace: "own", selector: "app=web", curve: { kind: "step", from: millis, to: millis, atSeconds: 0 } }] } : {}),
      ...(withoutMetrics !== undefined ? { withoutMetrics } : {}),
    };
    const r = await api.call("PUT", "/_replicore/load", body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  const op = operator(dev.url, [
    "--no-leader-elect",
    "--horizontal-pod-autoscaler-sync-period",
    "1s",
    "--horizontal-pod-autoscaler-downscale-stabilization",
    "3s",
    // The dev server's samples cover 15 s: used as soon as a pod is Ready.
    "--horizontal-pod-autoscaler-cpu-initialization-period",
    "0s",
  ]);
  ops.push(op);
  await op.waitLog("operator running");
  await api.post(deployPath("own"), deployment("web", 2));
  await waitFor(async () => (await readyPods(api, "own")).length === 2, "2 ready pods");
  const s = sampler(api, "own", "web");
  const syncs = () => op.find("hpa synced", { key: "own/web" }).length;
  await load({ millis: 100 });
  await api.post(hpaPath("own"), hpa("web", "web", 2, 4));
  // 50m a pod: at target.
  await waitFor(async () => (await api.get(hpaPath("own", "web"))).status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 50, "50 % in the status");

  // The metrics API answers 503 (the dev server's fault rule) under a load that would scale up.
  server.faults.set({ rules: [{ verb: "list", resource: "pods.metrics.k8s.io", status: 503 }] });
  await load({ millis: 600 });
  await waitFor(async () => condition(await api.get(hpaPath("own", "web")), "ScalingActive")?.reason === "FailedGetResourceMetric", "ScalingActive FailedGetResourceMetric");
  const before = syncs();
  await waitFor(() => syncs() >= before + 3, "three more syncs");
  assert.equal((await api.get(deployPath("own", "web"))).spec.replicas, 2);
  server.faults.clear();
  await waitFor(async () => (await readyPods(api, "own")).length === 4 && (await api.get(hpaPath("own", "web"))).status?.currentReplicas === 4, "up to max 4", 60000);

  // Two pods left without a sample, the load down to 40m (20 % on the two measured): on a
  // scale-down the engine takes the missing ones at 100 % of their request (60 % on
  // average, above target: the direction flips), so the HPA holds at 4.
  const [a, b] = (await pods(api, "own", "app=web")).map((p) => p.metadata.name);
  for (const name of [a, b]) await api.patch(`/api/v1/namespaces/own/pods/${name}`, { metadata: { labels: { metrics: "none" } } });
  await load({ millis: 40, withoutMetrics: "metrics=none" });
  const partial = syncs();
  await waitFor(() => syncs() >= partial + 5, "five syncs with partial metrics");
  assert.equal((await api.get(deployPath("own", "web"))).spec.replicas, 4);
  await load({ withoutMetrics: "" });
  await waitFor(() => s.seen.some((x, i) => i > 0 && x.replicas === 2), "down to min 2", 60000);
  await s.stop();
  assert.deepEqual(
    s.seen.map((x) => x.replicas),
    [2, 4, 2],
  );
});

test("custom and external metrics on a ReplicaSet: the operator asks custom.metrics.k8s.io and external.metrics.k8s.io as upstream's clients do, scales the ReplicaSet's scale subresource by the larger proposal, and a missing external metric is the HPA's error", async () => {
  const { api, stub, op } = await start(["--no-leader-elect", "--horizontal-pod-autoscaler-sync-period", "1s"]);
  const rsPath = (name = "") => `/apis/apps/v1/namespaces/cm/replicasets${name ? `/${name}` : ""}`;
  await api.post(rsPath(), {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "queue" },
    spec: { replicas: 2, selector: { matchLabels: { app: "queue" } }, template: { metadata: { labels: { app: "queue" } }, spec: { containers: [{ name: "main", image: "worker" }] } } },
  });
  await waitFor(async () => (await pods(api, "cm", "app=queue")).filter((p) => p.status?.phase === "Running").length === 2, "2 running pods");
  // Pods metric: 10 requests a second a pod at target; External: 30 messages per pod.
  stub.state.custom.requests_per_second = 20_000; // 20 in all: 10 a pod, at target
  stub.state.external.queue_messages = 60_000; // 60: 2 pods at 30
  const spec = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "queue" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "ReplicaSet", name: "queue" },
      minReplicas: 1,
      maxReplicas: 8,
      metrics: [
        { type: "Pods", pods: { metric: { name: "requests_per_second" }, target: { type: "AverageValue", averageValue: "10" } } },
        { type: "External", external: { metric: { name: "queue_messages", selector: { matchLabels: { queue: "jobs" } } }, target: { type: "AverageValue", averageValue: "30" } } },
      ],
    },
  };
  await api.post("/apis/autoscaling/v2/namespaces/cm/horizontalpodautoscalers", spec);
  const status = async () => (await api.get("/apis/autoscaling/v2/namespaces/cm/horizontalpodautoscalers/queue")).status ?? {};
  await waitFor(async () => (await status()).currentMetrics?.length === 2, "both metrics in the status");
  assert.equal((await api.get(rsPath("queue"))).spec.replicas, 2);
  // The paths upstream's REST clients ask (the external one with its metric selector).
  assert.ok(stub.state.customAsked.some((a) => a === "custom /apis/custom.metrics.k8s.io/v1beta2/namespaces/cm/pods/*/requests_per_second"), stub.state.customAsked.join("\n"));
  assert.ok(stub.state.customAsked.some((a) => a === "external /apis/external.metrics.k8s.io/v1beta1/namespaces/cm/queue_messages"), stub.state.customAsked.join("\n"));

  // The queue grows to 150 messages: 5 pods by the external metric, 2 by the Pods one;
  // the larger wins, capped by the legacy scale-up limit (max(2 × 2, 4) = 4), then 5.
  stub.state.external.queue_messages = 150_000;
  await waitFor(async () => (await api.get(rsPath("queue"))).spec.replicas === 5, "the ReplicaSet scaled to 5 by the external metric", 60000);
  const s = await status();
  const external = s.currentMetrics.find((m) => m.type === "External");
  assert.equal(external.external.metric.name, "queue_messages");
  assert.ok(["30", "37500m", "50", "75"].includes(external.external.current.averageValue), JSON.stringify(external));
  assert.ok(op.find("hpa synced", { key: "cm/queue" }).length > 0);

  // The external metric gone: ScalingActive False (FailedGetExternalMetric), no scale change.
  delete stub.state.external.queue_messages;
  await waitFor(async () => (await status()).conditions?.some((c) => c.type === "ScalingActive" && c.status === "False" && c.reason === "FailedGetExternalMetric"), "ScalingActive False FailedGetExternalMetric");
  assert.equal((await api.get(rsPath("queue"))).spec.replicas, 5);
});
