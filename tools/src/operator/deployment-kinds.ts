// Which resources the Deployment controller manages: apps/v1 Deployments and their apps/v1
// ReplicaSets (as kube-controller-manager), or on a cluster whose own controllers own
// apps/v1, a Deployment-shaped custom resource (replicore.dev/v1alpha1 ReplicaDeployment)
// whose ReplicaSets are ReplicaPools (what `--owner` names for the ReplicaSet controller).
//
// The engine speaks apps/v1 (its ReplicaSets are `apps/v1 ReplicaSet`, their controller
// references `apps/v1 Deployment`, their pods' `ReplicaSet`). For custom resources this
// module renames kinds at the boundary, both ways: what the engine reads, and what it
// asks to write. It decides nothing.

import type { OwnerResource } from "./kube.js";
import type { KubeObject } from "./deployment/engine.js";

const ENGINE_DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
const ENGINE_REPLICASET = { apiVersion: "apps/v1", kind: "ReplicaSet" };

type Kind = { apiVersion: string; kind: string };
type Ref = { apiVersion?: unknown; kind?: unknown; [k: string]: unknown };

export class KindMap {
  private readonly pairs: Array<[Kind, Kind]>;

  constructor(
    readonly deployment: OwnerResource,
    readonly replicaSet: OwnerResource,
  ) {
    const all: Array<[Kind, Kind]> = [
      [ENGINE_DEPLOYMENT, { apiVersion: deployment.apiVersion, kind: deployment.kind }],
      [ENGINE_REPLICASET, { apiVersion: replicaSet.apiVersion, kind: replicaSet.kind }],
    ];
    this.pairs = all.filter(([e, c]) => e.apiVersion !== c.apiVersion || e.kind !== c.kind);
  }

  /** Whether any kind is renamed (custom resources). */
  get renames(): boolean {
    return this.pairs.length > 0;
  }

  /** An object as the engine reads it (custom kinds renamed to apps/v1's). */
  toEngine<T>(o: T): T {
    return this.rename(o, 1, 0);
  }

  /** An object (or patch) the engine wrote, as the cluster's resources spell it. */
  toCluster<T>(o: T): T {
    return this.rename(o, 0, 1);
  }

  private rename<T>(o: T, from: 0 | 1, to: 0 | 1): T {
    if (this.pairs.length === 0 || o === null || typeof o !== "object") return o;
    const src = o as KubeObject;
    const swap = (k: { apiVersion?: unknown; kind?: unknown }): Kind | undefined => this.pairs.find((p) => p[from].apiVersion === k.apiVersion && p[from].kind === k.kind)?.[to];
    const out: KubeObject = { ...src };
    const top = swap(src);
    if (top) {
      out.apiVersion = top.apiVersion;
      out.kind = top.kind;
    }
    const refs = src.metadata?.ownerReferences;
    if (Array.isArray(refs)) {
      out.metadata = {
        ...src.metadata,
        ownerReferences: refs.map((r: Ref) => {
          const k = r && typeof r === "object" ? swap(r) : undefined;
          return k ? { ...r, apiVersion: k.apiVersion, kind: k.kind } : r;
        }),
      };
    }
    return out as T;
  }
}
