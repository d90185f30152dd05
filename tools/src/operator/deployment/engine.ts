// Every engine call the Deployment controller makes goes through this module: one sync
// as the engine's step machine (core/src/deployment/machine.rs) driven against a host
// that makes the API calls, which watch events enqueue which Deployment (D-110..D-114,
// handlers.rs), and what the work queue does after a sync (D-115). The host decides none
// of it; it only performs I/O.

import { deploymentKeysForPodDeleted, deploymentKeysForReplicaSetEvent, deploymentQueueAction, deploymentReadsPods, runDeploymentSync } from "replicore";
import type { ApiCall, ApiResult, DeploymentKinds, DeploymentSyncHostInput, KubeObject, Pod, QueueAction, ReplicaSet, SyncDone, WatchEvent } from "replicore";

export type { ApiCall, ApiResult, DeploymentKinds, DeploymentSyncHostInput, KubeObject, QueueAction, SyncDone };

/**
 * One `syncDeployment(key)`: the engine names each API call, `host` makes it and answers
 * with its result; resolves with what the sync amounted to. A host that throws (e.g. not
 * the leader any more) abandons the sync: the promise rejects with that error.
 */
export function runSync(input: DeploymentSyncHostInput, host: (call: ApiCall) => Promise<ApiResult>): Promise<SyncDone> {
  return runDeploymentSync(input, host);
}

/** D-111..D-113: the Deployments a ReplicaSet event enqueues (of `deployments`, its namespace's). */
export function keysForReplicaSetEvent(event: WatchEvent<KubeObject>, deployments: KubeObject[], kinds: DeploymentKinds): string[] {
  return deploymentKeysForReplicaSetEvent(event as WatchEvent<ReplicaSet>, deployments, kinds);
}

/** D-114: the (Recreate) Deployment a pod deletion enqueues, once none of its ReplicaSets has a pod left. */
export function keysForPodDeleted(pod: KubeObject, replicaSets: KubeObject[], deployments: KubeObject[], pods: KubeObject[], kinds: DeploymentKinds): string[] {
  return deploymentKeysForPodDeleted(pod as Pod, replicaSets as ReplicaSet[], deployments, pods as Pod[], kinds);
}

/** Do this Deployment's sync and pod-deletion handling read pods (D-61, D-114)? If not, they get none. */
export function readsPods(deployment: KubeObject): boolean {
  return deploymentReadsPods(deployment);
}

/** D-115: what the queue does with a key after a sync, given its requeues so far. */
export function queueAction(done: SyncDone, requeues: number): QueueAction {
  return deploymentQueueAction(done, requeues);
}
