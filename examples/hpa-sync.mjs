import { runHpaSync } from "replicore";
const hpa = {
  metadata: { name: "web", namespace: "shop" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 2, maxReplicas: 10,
    metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }],
  },
};
const pod = (name) => ({
  metadata: { name, namespace: "shop", labels: { app: "web" } },
  spec: { containers: [{ name: "app", resources: { requests: { cpu: "200m" } } }] },
  status: { phase: "Running", startTime: "2026-11-27T11:00:00Z",
            conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-27T11:00:20Z" }] },
});
const pods = ["web-a", "web-b", "web-c"].map(pod);
const done = await runHpaSync({ now: "2026-11-27T12:00:00Z", hpa }, (call) => {
  console.log("call:", call.call, call.call === "updateScale" ? call.replicas : "");
  switch (call.call) {
    case "resolveTarget": return { answer: "mappings", resources: [{ group: "apps", resource: "deployments" }] };
    case "getScale": return { answer: "scale", scale: { spec: { replicas: 3 }, status: { replicas: 3, selector: "app=web" } } };
    case "listPods": return { answer: "pods", pods };
    case "fetchMetric": return { answer: "metric", response: { timestamp: "2026-11-27T11:59:45Z",
      podMetrics: pods.map((p) => ({ pod: p.metadata.name, value: 180, timestamp: "2026-11-27T11:59:45Z", windowMillis: 15000 })) } };
    default: return { answer: "ok" };
  }
});
console.log(JSON.stringify({ rescaledTo: done.rescaledTo, events: done.events, memory: done.memory,
  conditions: done.status.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`) }, null, 1));
