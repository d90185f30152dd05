// Every engine call the Deployment controller makes goes through this module: one sync
// as the engine's step machine (core/src/deployment/machine.rs) driven against a host
// that makes the API calls, which watch events enqueue which Deployment (D-110..D-114,
// handlers.rs), and what the work queue does after a sync (D-115). The host decides none
// of it; it only performs I/O.

import type { ApiError, Pod, ReplicaSet } from "../api.js";

// Until the engine's Deployment exports (branch dep-wasm) are merged, their shapes as
// that branch publishes them; on merge these come from "../api.js".

/** One API call of a sync (machine.rs `ApiCall`: tag `call`, camelCase fields). */
export type ApiCall =
  | { call: "getDeployment"; namespace: string; name: string }
  | { call: "patchReplicaSet"; namespace: string; name: string; patchType: string; patch: unknown }
  | { call: "createReplicaSet"; namespace: string; name: string; object: KubeObject }
  | { call: "updateReplicaSet"; namespace: string; name: string; object: KubeObject }
  | { call: "deleteReplicaSet"; namespace: string; name: string }
  | { call: "updateDeployment"; namespace: string; name: string; object: KubeObject }
  | { call: "updateDeploymentStatus"; namespace: string; name: string; object: KubeObject };

/** What the API answered (machine.rs `ApiResult`). */
export type ApiResult = { result: "ok"; object?: unknown } | ({ result: "error" } & ApiError);

/** What a sync amounted to (machine.rs `SyncDone`). */
export interface SyncDone {
  events: Array<{ type: string; reason: string; message: string }>;
  error: { message: string; namespaceTerminating?: boolean } | null;
  requeue: { kind: "none" } | { kind: "after"; after: number } | { kind: "rateLimited" };
  calls: number;
}

/** handlers.rs `QueueAction`. */
export type QueueAction = "forget" | "requeueRateLimited" | "drop";

/** Everything one sync decides from (machine.rs `DeploymentSyncInput`). */
export interface DeploymentSyncInput {
  now: string;
  key: string;
  deployment: KubeObject | null;
  replicaSets: KubeObject[];
  pods: KubeObject[];
}

/** A Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
    [k: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [k: string]: unknown;
}

/** A watch event as the informers deliver it. */
export type ObjectEvent<T> = { type: "added"; object: T } | { type: "updated"; old: T; object: T } | { type: "deleted"; object: T };

function notYet(what: string): never {
  throw new Error(`${what}: the engine's Deployment controller is not yet available in this build (its wasm exports come with branch dep-wasm)`);
}

/**
 * One `syncDeployment(key)`: the engine names each API call, `host` makes it and answers
 * with its result; resolves with what the sync amounted to. A host that throws (e.g. not
 * the leader any more) abandons the sync: the promise rejects with that error.
 */
export async function runSync(input: DeploymentSyncInput, host: (call: ApiCall) => Promise<ApiResult>): Promise<SyncDone> {
  void input;
  void host;
  return notYet("runDeploymentSync");
}

/** D-111..D-113: the Deployments a ReplicaSet event enqueues (of `deployments`, its namespace's). */
export function keysForReplicaSetEvent(event: ObjectEvent<ReplicaSet>, deployments: KubeObject[]): string[] {
  void event;
  void deployments;
  return notYet("deploymentKeysForReplicaSetEvent");
}

/** D-114: the (Recreate) Deployment a pod deletion enqueues. */
export function keysForPodDeleted(pod: Pod, replicaSets: ReplicaSet[], deployments: KubeObject[], pods: Pod[]): string[] {
  void pod;
  void replicaSets;
  void deployments;
  void pods;
  return notYet("deploymentKeysForPodDeleted");
}

/** D-115: what the queue does with a key after a sync, given its requeues so far. */
export function queueAction(done: SyncDone, requeues: number): QueueAction {
  void done;
  void requeues;
  return notYet("deploymentQueueAction");
}
