// Shared by the tests: where things are (the CLI's helpers are in tools/test/helpers.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const clusterFile = `${repo}examples/cluster.json`;
export const vectorsDir = `${repo}tests/conformance/vectors`;
export const NOW = "2026-11-21T05:00:00Z";

export function cluster() {
  return JSON.parse(readFileSync(clusterFile, "utf8"));
}

/** mulberry32: a small seeded PRNG, so a run is replayed by its seed. */
/**
 * An autoscaling/v2 HPA of Deployment default/web on cpu at 50 % utilization, from
 * `minReplicas` to `maxReplicas`, with `behavior` when given.
 */
export function cpuHpa(minReplicas, maxReplicas, behavior) {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas,
      maxReplicas,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }],
      ...(behavior === undefined ? {} : { behavior }),
    },
  };
}

export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
