// One API client per controller, as kube-controller-manager's NewClient(name): each with
// its own token bucket at --kube-api-qps/--kube-api-burst, its own user agent and its own
// request metrics. Two controllers busy at once each keep to their own rate, so together
// they send more than one bucket could.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { devServer, killAll, operator, pods, replicaSet, rsPath, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const QPS = 10;
const BURST = 1;

function deployment(name) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "main", image: "nginx" }] } } },
  };
}

test("each controller has its own client: own user agent, own token bucket (both at the full rate at once), own request metrics", async (t) => {
  const requests = [];
  const dev = await devServer({ onRequest: (r) => requests.push(r) });
  servers.push(dev);
  const { api } = dev;
  await api.post(rsPath("rate"), replicaSet("big", 0));
  const op = operator(dev.url, ["--no-leader-elect", "--kube-api-qps", String(QPS), "--kube-api-burst", String(BURST)]);
  ops.push(op);
  await op.waitLog("operator running");
  await waitFor(() => op.syncs("rate/big").length > 0, "the first sync");

  // Work for both at once, far more than a few seconds of either's bucket: 80 pod creates
  // for the ReplicaSet controller, 30 new Deployments (a ReplicaSet create and status
  // writes each) for the Deployment controller.
  const t0 = performance.now();
  await Promise.all([
    api.patch(`${rsPath("rate", "big")}/scale`, { spec: { replicas: 80 } }),
    ...Array.from({ length: 30 }, (_, i) => api.post("/apis/apps/v1/namespaces/rate/deployments", deployment(`d${i}`))),
  ]);
  await waitFor(async () => (await pods(api, "rate")).length === 80, "80 pods", 60000);
  await waitFor(async () => (await api.get("/apis/apps/v1/namespaces/rate/replicasets")).items.length === 31, "30 ReplicaSets of the Deployments", 60000);

  // Who sent what: every request of the operator names its client (the test's own calls
  // are undici's "node").
  const byAgent = new Map();
  for (const r of requests) {
    if (r.at < t0 || r.userAgent === "node") continue;
    byAgent.set(r.userAgent, [...(byAgent.get(r.userAgent) ?? []), r.at]);
  }
  const known = ["replicore/deployment-controller", "replicore/replicaset-controller", "replicore/shared-informers"];
  assert.deepEqual([...byAgent.keys()].filter((a) => !known.includes(a)), [], "only the operator's named clients");
  const rs = byAgent.get("replicore/replicaset-controller") ?? [];
  const dep = byAgent.get("replicore/deployment-controller") ?? [];
  assert.ok(rs.length >= 80, `the ReplicaSet controller's requests: ${rs.length}`);
  assert.ok(dep.length >= 60, `the Deployment controller's requests: ${dep.length}`);

  // A window in which both were busy (each had seconds of work queued): from 1 s after the
  // work arrived, 3 s long. A token bucket lets through at most BURST + QPS·W requests in
  // any window W; the slack of 2 covers the time between a token and the server's arrival.
  const W = 3;
  const from = t0 + 1000;
  const inWindow = (ts) => ts.filter((t) => t >= from && t < from + W * 1000).length;
  const most = BURST + QPS * W;
  const [a, b] = [inWindow(rs), inWindow(dep)];
  t.diagnostic(`in ${W} s: replicaset-controller ${a} requests, deployment-controller ${b} (each bucket allows ${most})`);
  assert.ok(a <= most + 2 && b <= most + 2, `each within its bucket: ${a} and ${b} requests in ${W} s, at most ${most}`);
  // Each kept (at least 70% of) its own rate at the same time: together more than one
  // bucket allows, which one client shared by both could not send.
  const least = Math.floor(0.7 * QPS * W);
  assert.ok(a >= least && b >= least, `both at their own rate at once: ${a} and ${b} requests in ${W} s, each at least ${least}`);
  assert.ok(a + b > most + 2, `together ${a + b} requests in ${W} s: more than one bucket's ${most}`);

  // The metrics: requests by client, the rate limiter's waits by client.
  const text = await (await fetch(`${op.metricsUrl()}/metrics`)).text();
  const value = (re) => Number(re.exec(text)?.[1] ?? NaN);
  assert.ok(value(/^replicore_api_requests_total\{controller="replicaset-controller",method="POST",code="201"\} (\d+)/m) >= 80, "pod creates under replicaset-controller");
  assert.ok(value(/^replicore_api_requests_total\{controller="deployment-controller",method="POST",code="201"\} (\d+)/m) >= 30, "ReplicaSet creates under deployment-controller");
  assert.ok(value(/^replicore_api_rate_limiter_duration_seconds_count\{controller="replicaset-controller"\} (\d+)/m) >= 80);
  assert.ok(value(/^replicore_api_rate_limiter_duration_seconds_count\{controller="deployment-controller"\} (\d+)/m) >= 60);
  assert.match(text, /^replicore_api_rate_limiter_duration_seconds_count\{controller="shared-informers"\} \d+/m);
  op.kill("SIGTERM");
  await op.exited;
});
