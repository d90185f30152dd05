// A strict TypeScript consumer: builds Kubernetes objects with @kubernetes/client-node's
// types and hands them to replicore WITHOUT casts, then uses the result types (narrowing
// on the discriminants). Only type-checked (tsc --noEmit); never run.

import type { V1Deployment, V1DeploymentList, V1Pod, V1PodList, V1ReplicaSet, V1ReplicaSetList } from "@kubernetes/client-node";
import {
  DeploymentSyncRun,
  deploymentKeysForPodDeleted,
  deploymentKeysForReplicaSetEvent,
  deploymentQueueAction,
  deploymentSyncNext,
  deploymentSyncReport,
  deploymentSyncStart,
  runDeploymentSync,
  type ApiCall,
  type ApiResult,
  type DeploymentSync,
  type QueueAction,
  type Step,
  type SyncDone,
  complete,
  isReplicoreError,
  wasmMemoryBytes,
  onPodEvent,
  plan,
  podFields,
  rankPods,
  type Completion,
  type EventDecision,
  type FieldTree,
  type Manage,
  type RankedPod,
  type RankRule,
  type Requeue,
  type SyncPlan,
  type Victim,
  type Scenario,
  type SimState,
  type TraceEntry,
  type Sample,
  type ScalePreview,
} from "replicore";
import { explain, explainText, podFacts, type Explanation, type PodFacts } from "replicore/explain";
import { Simulator } from "replicore/sim";
import * as full from "replicore/full";

const now = new Date("2026-11-21T05:00:00Z");

const owner: V1ReplicaSet = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: {
    name: "web-7d9f8b6c5d",
    namespace: "shop",
    uid: "0b5fb2a4-2c55-4a57-8a8c-3a7f3f2d1e01",
    generation: 3,
    creationTimestamp: new Date("2026-11-20T10:00:00Z"),
    labels: { app: "web" },
    ownerReferences: [
      { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "5123520d-fec2-4c78-8e21-55e6caa3d1b0", controller: true, blockOwnerDeletion: true },
    ],
  },
  spec: {
    replicas: 1,
    minReadySeconds: 10,
    selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["frontend"] }] },
    template: {
      metadata: { labels: { app: "web", tier: "frontend" } },
      spec: { containers: [{ name: "web", image: "registry.example.com/web:1.0" }] },
    },
  },
  status: {
    replicas: 3,
    readyReplicas: 2,
    observedGeneration: 3,
    conditions: [{ type: "ReplicaFailure", status: "False", lastTransitionTime: new Date("2026-11-20T11:00:00Z") }],
  },
};

function pod(name: string, nodeName: string | undefined, ready: boolean, created: string): V1Pod {
  const p: V1Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "shop",
      uid: `uid-${name}`,
      creationTimestamp: new Date(created),
      labels: { app: "web", tier: "frontend" },
      annotations: { "controller.kubernetes.io/pod-deletion-cost": "0" },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-7d9f8b6c5d", uid: "0b5fb2a4-2c55-4a57-8a8c-3a7f3f2d1e01", controller: true },
      ],
    },
    spec: {
      containers: [{ name: "web", image: "registry.example.com/web:1.0" }],
      initContainers: [{ name: "proxy", image: "registry.example.com/proxy:2", restartPolicy: "Always" }],
    },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: new Date(created) }],
      containerStatuses: [{ name: "web", ready, restartCount: 1, image: "registry.example.com/web:1.0", imageID: "", started: true }],
      initContainerStatuses: [{ name: "proxy", ready: true, restartCount: 0, image: "registry.example.com/proxy:2", imageID: "" }],
    },
  };
  if (nodeName !== undefined && p.spec) p.spec.nodeName = nodeName;
  return p;
}

const pods: V1PodList = {
  apiVersion: "v1",
  kind: "PodList",
  metadata: { resourceVersion: "4471920" },
  items: [
    pod("web-7d9f8b6c5d-a", "worker-1", true, "2026-11-20T12:00:00Z"),
    pod("web-7d9f8b6c5d-b", "worker-1", false, "2026-11-20T13:00:00Z"),
    pod("web-7d9f8b6c5d-c", undefined, false, "2026-11-21T04:59:00Z"),
  ],
};
const owners: V1ReplicaSetList = { apiVersion: "apps/v1", kind: "ReplicaSetList", items: [owner] };

// ---------------------------------------------------------------------------------------
// plan: narrowing on manage.action, victims' rules

const p: SyncPlan = plan({ now, owner, otherOwners: owners.items, pods: pods.items, expectations: null });

function describeManage(m: Manage): string {
  switch (m.action) {
    case "nothing":
      return `nothing (${m.why})`;
    case "create":
      return `create ${m.count} in batches ${m.batches.join(", ")}${m.refused !== undefined ? ` (refused: ${m.refused})` : ""}`;
    case "delete": {
      const victims: Victim[] = m.victims;
      return `delete ${victims.map((v) => `${v.name} (${v.rule ?? "last"}, on ${v.facts.node || "no node"})`).join(", ")}`;
    }
    default: {
      const unreachable: never = m;
      return unreachable;
    }
  }
}
console.log(describeManage(p.manage));
for (const claim of p.claims) console.log(claim.kind, claim.name, claim.patchType);

// ---------------------------------------------------------------------------------------
// complete: narrowing on requeue.kind

const done: Completion = complete(p, {
  claims: { results: p.claims.map(() => ({ result: "ok" as const })) },
  deletes: p.manage.action === "delete" ? p.manage.victims.map(() => ({ result: "ok" as const })) : [],
  creates: [],
});

function describeRequeue(r: Requeue): string {
  switch (r.kind) {
    case "done":
      return "done";
    case "after":
      return `again in ${r.after.toFixed(0)}s`;
    case "rateLimited":
      return `rate-limited: ${r.error}`;
    default: {
      const unreachable: never = r;
      return unreachable;
    }
  }
}
console.log(describeRequeue(done.requeue), done.status?.replicas, done.events.map((e) => `${e.type} ${e.reason}`));

// ---------------------------------------------------------------------------------------
// rankPods: rules of the ranked pods

const ranked: RankedPod[] = rankPods(pods.items, { now, related: pods.items, featureGates: { PodDeletionCost: true } });
const rules: Array<RankRule | null> = ranked.map((r) => r.rule);
const first: RankedPod | undefined = ranked[0];
if (first && first.rule === "unassigned") console.log(`${first.name} goes first: ${first.ruleText ?? ""}`);
console.log(rules);

// ---------------------------------------------------------------------------------------
// onPodEvent: an update of a client-node pod

const [a, b] = pods.items;
if (a && b) {
  const decision: EventDecision = onPodEvent({ type: "updated", old: a, object: b }, owners.items);
  for (const o of decision.observations) console.log(o.ownerKey, o.change.op);
  const added: EventDecision = onPodEvent({ type: "added", object: a }, [owner], { burstReplicas: 10 });
  console.log(added.enqueue, added.enqueueAfter.map((x) => x.after));
}

// ---------------------------------------------------------------------------------------
// explain: a PodList, and a List of ReplicaSets and pods

const x: Explanation = explain({ apiVersion: "v1", kind: "List", items: [owner, ...pods.items] }, { now, replicas: 0, owner: "shop/web-7d9f8b6c5d" });
for (const o of x.owners) {
  const sync = o.sync;
  if (sync.action === "delete") for (const v of sync.victims) console.log(v.position, v.name, v.rule, v.ruleText, v.readySince);
  for (const v of o.scaleDown?.victims ?? []) console.log(v.position, v.name, v.rule satisfies RankRule | null);
}
try {
  explain(pods, { now });
} catch (e) {
  if (isReplicoreError(e)) console.log(e.code, e.path, e.message);
}

// ---------------------------------------------------------------------------------------
// Simulator: a scenario (as a URL would carry it), state, trace narrowing, samples

const scenario: Scenario = {
  seed: 42,
  replicas: 3,
  nodes: ["a", "b"],
  delays: { watch: [10, 50], ready: 1000 },
  faults: { createFailure: 0.1 },
  quota: null,
  config: { burstReplicas: 5, featureGates: { PodDeletionCost: true } },
  edits: [{ at: 1000, op: "setReplicas", replicas: 6 }, { at: 2000, op: "editPod", pod: "web-x", deletionCost: null }],
};
const sim = new Simulator(scenario);
sim.advance(5_000);
sim.setFeatureGates({ LogarithmicScaleDown: false });
sim.editPod("web-x", { ready: false, deletionCost: 5 });
const state: SimState = sim.state();
for (const p of state.pods) console.log(p.name, p.node ?? "<none>", p.phase, p.ready, p.ageMs, p.restarts, p.deletionCost, p.owner);
console.log(state.owner.replicaFailure?.reason, state.owner.expectations?.add, state.queue.delayed.map((d) => d.t));
const entries: TraceEntry[] = sim.trace(state.traceLength - 10);
for (const e of entries) {
  if (e.kind === "sync" && e.sync.action === "create") console.log(e.sync.batches?.map((b) => `${b.size}:${b.failed}`));
  else if (e.kind === "watch") console.log(e.decision.enqueue);
  else if (e.kind === "kubelet") console.log(e.change satisfies "scheduled" | "running" | "ready" | "notReady" | "restarted" | "gone");
}
const samples: Sample[] = sim.history();
const preview: ScalePreview = sim.preview(1, { LogarithmicScaleDown: false });
console.log(samples.at(-1)?.available, preview.victims.map((v) => v.rule), JSON.stringify(sim.scenario()));

// The field tree narrows like any JSON-shaped union.
const fields: FieldTree = podFields();
if (fields !== true && !Array.isArray(fields)) {
  const meta: FieldTree | undefined = fields["metadata"];
  void meta;
}

// ---------------------------------------------------------------------------------------
// Deployments: client-node's V1Deployment / V1ReplicaSet / V1Pod lists in, the generated
// types out (narrowing on `call`, `step`, `result`, `requeue.kind`), no casts.

declare const deployments: V1DeploymentList;
const web: V1Deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop", uid: "5123520d-fec2-4c78-8e21-55e6caa3d1b0", creationTimestamp: new Date("2026-11-20T10:00:00Z") },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "registry.example.com/web:1.1" }] } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
  },
  status: { conditions: [{ type: "Progressing", status: "True", lastUpdateTime: new Date("2026-11-20T10:00:00Z"), lastTransitionTime: new Date("2026-11-20T10:00:00Z") }] },
};
const syncInput = { now, key: "shop/web", deployment: web, replicaSets: owners.items, pods: pods.items };

/** A host in client-node's terms: what a create sends is a V1ReplicaSet. */
async function host(call: ApiCall): Promise<ApiResult> {
  switch (call.call) {
    case "createReplicaSet": {
      const body: V1ReplicaSet = call.object;
      return { result: "ok", object: body };
    }
    case "updateDeploymentStatus": {
      const body: V1Deployment = call.object;
      console.log(body.status?.observedGeneration);
      return { result: "ok" };
    }
    case "getDeployment":
      return { result: "ok", object: deployments.items[0] ?? web };
    case "patchReplicaSet":
      console.log(call.patchType, call.patch);
      return { result: "error", reason: "Conflict", message: "the object has been modified", code: 409 };
    default:
      return { result: "ok" };
  }
}

void (async () => {
  const done: SyncDone = await runDeploymentSync(syncInput, host);
  for (const e of done.events) console.log(e.type, e.reason, e.message);
  if (done.requeue.kind === "after") console.log(done.requeue.after.toFixed(1));
  const action: QueueAction = deploymentQueueAction(done, 3);
  console.log(action, done.error?.namespaceTerminating);
})();

let depState: DeploymentSync = deploymentSyncStart({ ...syncInput, deployment: deployments.items[0] ?? null });
const firstStep: Step = deploymentSyncNext(structuredClone(depState));
if (firstStep.step === "call") depState = deploymentSyncReport(depState, { result: "ok" });
else console.log(firstStep.done.calls);
const run = DeploymentSyncRun.fromState(JSON.parse(JSON.stringify(depState)));
const next: Step = run.next();
if (next.step === "call") run.report({ result: "ok" });
console.log(run.state().results.length);
run.free();
new DeploymentSyncRun(syncInput).free();

const keys: string[] = deploymentKeysForReplicaSetEvent({ type: "updated", old: owner, object: owner }, deployments.items);
const recreateKeys: string[] = deploymentKeysForPodDeleted(pods.items[0] ?? pod("p", undefined, true, "2026-11-20T10:00:00Z"), owners.items, [web], pods.items);
console.log(keys, recreateKeys);

// "replicore/full": the engine's, the explain report's and the simulator's API in one
// entry, with the same types and classes as the entries above.
const fullPlan: SyncPlan = full.plan({ now, owner, otherOwners: owners.items, pods: pods.items, expectations: null });
const fullExplanation: Explanation = full.explain({ apiVersion: "v1", kind: "List", items: [owner, ...pods.items] }, { now, replicas: 0 });
const fullSim: Simulator = new full.Simulator(scenario);
const fullState: SimState = fullSim.state();
console.log(fullPlan.manage.action, fullExplanation.owners.length, fullState.pods.length, full.wasmMemoryBytes());
fullSim.free();
