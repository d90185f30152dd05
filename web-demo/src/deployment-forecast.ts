// The engine's rollout forecast for the Deployment view. For the simulated Deployment the
// snapshot handed to the engine is the one the run starts from: the Deployment with its
// current settings and template, and the previous template's ReplicaSet settled (every
// replica available), as `kubectl get deploy,rs -o json` would print it right after the
// template changed. The engine decides everything else (explainReport → forecasts[]).

import { deploymentObjectKeys, explainReport, type ForecastRequest, type Scenario, type SimDeployment } from "replicore/playground";
import type { ForecastView } from "./deployment-views.js";

function template(name: string, image: string, hash?: string): Record<string, unknown> {
  const labels: Record<string, string> = { app: name };
  if (hash !== undefined) labels[deploymentObjectKeys().podTemplateHashLabel] = hash;
  return { metadata: { labels }, spec: { containers: [{ name: "app", image }] } };
}

/** The snapshot (a v1 List) the simulated run starts from at its last template change. */
export function snapshotOfRun(dep: SimDeployment, scenario: Scenario): unknown {
  const sd = scenario.deployment;
  const name = dep.name;
  const R = dep.replicas;
  const strategy = dep.strategy === "Recreate"
    ? { type: "Recreate" }
    : { type: "RollingUpdate", rollingUpdate: { maxSurge: sd?.maxSurge ?? "25%", maxUnavailable: sd?.maxUnavailable ?? "25%" } };
  // The previous template: the old ReplicaSet of the latest revision.
  const old = dep.lanes.filter((l) => !l.new).sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0))[0];
  const items: unknown[] = [];
  const spec: Record<string, unknown> = {
    replicas: R,
    selector: { matchLabels: { app: name } },
    template: template(name, dep.image),
    strategy,
    minReadySeconds: dep.minReadySeconds,
    revisionHistoryLimit: dep.revisionHistoryLimit ?? 10,
    progressDeadlineSeconds: dep.progressDeadlineSeconds ?? 600,
  };
  if (dep.paused) spec.paused = true;
  // The controller's own keys, from the engine.
  const keys = deploymentObjectKeys();
  const annotations: Record<string, string> = {};
  if (old?.revision != null) annotations[keys.revisionAnnotation] = String(old.revision);
  items.push({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: dep.namespace, uid: dep.uid, generation: 2, labels: { app: name }, annotations },
    spec,
    status: old
      ? { observedGeneration: 1, replicas: R, updatedReplicas: R, readyReplicas: R, availableReplicas: R }
      : { observedGeneration: 1 },
  });
  if (old) {
    const hash = old.name.slice(old.name.lastIndexOf("-") + 1);
    items.push({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: old.name,
        namespace: dep.namespace,
        uid: `${dep.uid}-rs-${hash}`,
        labels: { app: name, [keys.podTemplateHashLabel]: hash },
        annotations: {
          [keys.revisionAnnotation]: String(old.revision ?? 1),
          [keys.desiredReplicasAnnotation]: String(R),
          [keys.maxReplicasAnnotation]: String(dep.maxPods),
        },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name, uid: dep.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas: R, selector: { matchLabels: { app: name, [keys.podTemplateHashLabel]: hash } }, template: template(name, old.image, hash) },
      status: { replicas: R, fullyLabeledReplicas: R, readyReplicas: R, availableReplicas: R, observedGeneration: 1 },
    });
  }
  return { apiVersion: "v1", kind: "List", items };
}

interface ReportShape {
  deployments?: { deployments: unknown[] };
  forecasts?: ForecastView[];
}

/** The engine's report of a snapshot with its forecasts (throws the engine's error). */
export function report(listText: string, now: string, forecast: ForecastRequest, deployment?: string): ReportShape {
  const options = deployment === undefined ? { now, forecast } : { now, forecast, deployment };
  return explainReport(listText, options) as ReportShape;
}

/** The forecast of the simulated run's snapshot (see {@link snapshotOfRun}). */
export function forecastOfRun(dep: SimDeployment, scenario: Scenario, now: string, startupSeconds: number): ForecastView {
  const failing = dep.failingImages[dep.image];
  const isFirst = dep.image === (scenario.deployment?.image ?? "registry.k8s.io/pause:3.10") && !dep.lanes.some((l) => !l.new);
  const failure: ForecastRequest["failure"] = failing !== undefined
    ? { kind: "newTemplateFails" }
    : isFirst
      ? { kind: "none" }
      : (scenario.deployment?.failure ?? { kind: "none" });
  const r = report(JSON.stringify(snapshotOfRun(dep, scenario)), now, { seed: scenario.seed, startupSeconds, failure });
  const f = r.forecasts?.[0];
  if (!f) throw new Error("the engine returned no forecast");
  return f;
}
