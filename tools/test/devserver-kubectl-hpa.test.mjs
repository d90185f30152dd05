// A kubectl session with the operator's HorizontalPodAutoscaler controller (issue 26): the
// dev server with its kubelet's load model, the operator running all three controllers,
// Debian's kubectl 1.20: `kubectl autoscale deploy web --cpu-percent=50 --min=2 --max=10`,
// the load raised through /_replicore/load, `kubectl get hpa` showing the target and the
// replicas rising to max, the load dropped, the scale-down to min after the (shortened)
// stabilization window, `kubectl describe hpa` showing the conditions and the events.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, devServerProcess, kubectlIn, kubectlMinor, kubectlPath, operator, waitFor, WEB_YAML } from "./operator-helpers.mjs";

const kubectl = kubectlPath();
const tmp = mkdtempSync(join(tmpdir(), "replicore-kubectl-hpa-"));
const children = [];
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});


/** The load of every `app=web` pod together, in millicores, from now on. */
async function setLoad(url, millis) {
  const r = await fetch(`${url}/_replicore/load`, { method: "PUT", body: JSON.stringify({ loads: [{ namespace: "default", selector: "app=web", curve: { kind: "step", from: millis, to: millis, atSeconds: 0 } }] }) });
  assert.equal(r.status, 200, await r.text());
}

test("kubectl autoscale with the operator: load up, get hpa shows the replicas rising to max; load down, scale-down to min after the window; describe hpa", { skip: kubectl ? false : "no kubectl (run scripts/setup.sh)" }, async () => {
  const WINDOW = 10;
  const { ok } = kubectlIn(kubectl, tmp, 30000);
  const { child: server, url } = await devServerProcess(["--kubelet", "--ready-delay", "200", "--kubeconfig-out", join(tmp, "kubeconfig")]);
  children.push(server);
  const api = client(url);
  const op = operator(url, ["--kubeconfig", join(tmp, "kubeconfig"), "--horizontal-pod-autoscaler-sync-period", "1s", "--horizontal-pod-autoscaler-downscale-stabilization", `${WINDOW}s`]);
  children.push(op.child);
  await op.waitLog("operator running");

  writeFileSync(join(tmp, "web.yaml"), WEB_YAML);
  ok("apply", "-f", join(tmp, "web.yaml"));
  await setLoad(url, 100);
  assert.match(ok("autoscale", "deploy", "web", "--cpu-percent=50", "--min=2", "--max=10"), /^horizontalpodautoscaler.autoscaling\/web autoscaled$/m);
  // 100m over 2 pods: 25 % of the request, at min already.
  const idle = await waitFor(() => {
    const t = ok("get", "hpa");
    return /^web\s+Deployment\/web\s+cpu: 25%\/50%\s+2\s+10\s+2\s+\S+\s*$/m.test(t) ? t : undefined;
  }, "kubectl get hpa: cpu 25%/50% at 2 replicas", 60000, 300);

  // 1000m: 250 % at 2 pods; up (4, the legacy cap of 2 x 2, then 8, then 10) to max.
  await setLoad(url, 1000);
  const tables = [];
  const seen = [];
  await waitFor(() => {
    const t = ok("get", "hpa");
    const m = /^web\s+Deployment\/web\s+cpu: (\S+)\/50%\s+2\s+10\s+(\d+)\s+\S+\s*$/m.exec(t);
    if (m && (seen.length === 0 || seen[seen.length - 1] !== Number(m[2]))) {
      seen.push(Number(m[2]));
      tables.push(t);
    }
    return m && m[2] === "10" && m[1] === "50%";
  }, "kubectl get hpa: 10 replicas at cpu 50%/50%", 120000, 200);
  assert.ok(seen.every((n, i) => n <= 10 && (i === 0 || n > seen[i - 1])), `the replicas rose, never above 10: ${seen.join(" → ")}`);
  assert.equal(seen[0], 2);

  // 100m: 5 % at 10 pods. Down to min 2, only once the window's recommendations of 10 are old.
  const dropped = Date.now();
  await setLoad(url, 100);
  await waitFor(async () => (await api.get("/apis/apps/v1/namespaces/default/deployments/web")).spec.replicas < 10, "the scale-down", 120000, 100);
  const after = Date.now() - dropped;
  assert.ok(after >= (WINDOW - 1) * 1000 - 500, `scaled down ${after} ms after the load dropped; the window is ${WINDOW} s`);
  const down = await waitFor(() => {
    const t = ok("get", "hpa");
    return /^web\s+Deployment\/web\s+cpu: \d+%\/50%\s+2\s+10\s+2\s+\S+\s*$/m.test(t) ? t : undefined;
  }, "kubectl get hpa: 2 replicas", 60000, 300);

  const described = ok("describe", "hpa", "web");
  assert.match(described, /^Reference:\s+Deployment\/web$/m);
  assert.match(described, /^Min replicas:\s+2$/m);
  assert.match(described, /^Max replicas:\s+10$/m);
  if (kubectlMinor(kubectl) >= 23) {
    assert.match(described, /^\s+AbleToScale\s+True\s+\S+/m);
    assert.match(described, /^\s+ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)$/m);
  } else {
    // kubectl 1.20 reads autoscaling/v1: the target, the current utilization, and the
    // conditions in their annotation.
    assert.match(described, /^Target CPU utilization:\s+50%$/m);
    assert.match(described, /^Current CPU utilization:\s+\d+%$/m);
    assert.match(described, /autoscaling\.alpha\.kubernetes\.io\/conditions:\s*\n\s+\[\{"type":"AbleToScale","status":"True"/);
  }
  assert.match(described, /SuccessfulRescale\s+.*New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
  // The last step up may carry no reason, as upstream's: the metric proposed no more than
  // the current count (new pods' samples not used yet) and the window's earlier
  // recommendation of 10 raised it (the reason is set before the stabilization).
  assert.match(described, /SuccessfulRescale\s+.*New size: 10; reason:/);
  assert.match(described, /SuccessfulRescale\s+.*New size: 2; reason: All metrics below target/);
  assert.match(described, /horizontal-pod-autoscaler/);
  process.stdout.write(`kubectl get hpa (idle):\n${idle}kubectl get hpa (rising):\n${tables.join("")}kubectl get hpa (after the window):\n${down}kubectl describe hpa web:\n${described}`);
});
