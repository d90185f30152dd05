// Every engine call the operator makes goes through this module. It holds what the
// informers have delivered (owners and pods) and answers with the engine's decisions.
// The host keeps only the expectations, the clock and the API calls.

import {
  adoptionAllowed,
  applyExpectations,
  complete,
  expectationsSatisfied,
  manageAfterClaims,
  nextBatch,
  onOwnerEvent,
  onPodEvent,
  plan,
} from "../node.js";
import type {
  CallResult,
  ClaimOutcome,
  Completion,
  Config,
  CreatePlan,
  EventDecision,
  Expectations,
  ExpectationsChange,
  LiveOwner,
  Manage,
  Pod,
  ReplicaSet,
  ReplicoreError,
  SyncOutcome,
  SyncPlan,
  WatchEvent,
} from "../api.js";

export type { CallResult, ClaimOutcome, Completion, Config, EventDecision, Expectations, ExpectationsChange, Manage, Pod, ReplicaSet, SyncOutcome, SyncPlan };

export interface PlanOptions {
  now: Date;
  expectations?: Expectations;
  cacheIsFresh?: boolean;
}

function engineError(code: string, path: string, message: string): ReplicoreError {
  const e = new Error(message) as ReplicoreError;
  e.code = code;
  e.path = path;
  return e;
}

function nameOf(o: { metadata?: { namespace?: string; name?: string } } | undefined, what: string): { namespace: string; name: string } {
  const namespace = o?.metadata?.namespace;
  const name = o?.metadata?.name;
  if (typeof name !== "string" || name === "") throw engineError("MISSING", `${what}.metadata.name`, `${what}.metadata.name: is required`);
  if (typeof namespace !== "string" || namespace === "") throw engineError("MISSING", `${what}.metadata.namespace`, `${what}.metadata.namespace: is required`);
  return { namespace, name };
}

/** The operator's view of the cluster, and the engine behind it. */
export class Engine {
  private readonly owners = new Map<string, Map<string, ReplicaSet>>();
  private readonly pods = new Map<string, Map<string, Pod>>();

  constructor(readonly config: Config = {}) {}

  private ns<T>(m: Map<string, Map<string, T>>, namespace: string): Map<string, T> {
    let x = m.get(namespace);
    if (!x) {
      x = new Map();
      m.set(namespace, x);
    }
    return x;
  }

  getOwner(namespace: string, name: string): ReplicaSet | undefined {
    return this.owners.get(namespace)?.get(name);
  }

  getPod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(namespace)?.get(name);
  }

  podsIn(namespace: string): Pod[] {
    return [...(this.pods.get(namespace)?.values() ?? [])];
  }

  ownerKeys(): string[] {
    const out: string[] = [];
    for (const [ns, m] of this.owners) for (const name of m.keys()) out.push(`${ns}/${name}`);
    return out;
  }

  upsertOwner(owner: ReplicaSet): void {
    const { namespace, name } = nameOf(owner, "owner");
    this.ns(this.owners, namespace).set(name, owner);
  }

  deleteOwner(namespace: string, name: string): void {
    this.owners.get(namespace)?.delete(name);
  }

  upsertPod(pod: Pod): void {
    const { namespace, name } = nameOf(pod, "pod");
    this.ns(this.pods, namespace).set(name, pod);
  }

  deletePod(namespace: string, name: string): void {
    this.pods.get(namespace)?.delete(name);
  }

  /**
   * The pod-event rules (R-90..R-95) decided with the stored owners, then the event
   * applied to the store. A pod the engine cannot read throws (code and path) and is not
   * stored, so it never reaches a plan.
   */
  onPodEvent(event: WatchEvent<Pod>): EventDecision {
    const { namespace, name } = nameOf(event.object, "pod");
    const owners = [...(this.owners.get(namespace)?.values() ?? [])];
    const decision = onPodEvent(event, owners, this.config);
    if (event.type === "deleted") this.deletePod(namespace, name);
    else this.upsertPod(event.object);
    return decision;
  }

  /** The owner-event rules, then the event applied to the store. */
  onOwnerEvent(event: WatchEvent<ReplicaSet>): EventDecision {
    const { namespace, name } = nameOf(event.object, "owner");
    const decision = onOwnerEvent(event);
    if (event.type === "deleted") this.deleteOwner(namespace, name);
    else this.upsertOwner(event.object);
    return decision;
  }

  /** One sync's plan for the stored owner `namespace/name`, with the pods of its namespace. */
  planFor(namespace: string, name: string, o: PlanOptions): SyncPlan {
    const owner = this.getOwner(namespace, name);
    if (!owner) throw engineError("NOT_FOUND", "owner", `owner ${namespace}/${name} is not in the store`);
    const otherOwners = [...(this.owners.get(namespace)?.values() ?? [])].filter((o2) => o2 !== owner);
    return plan(
      {
        now: o.now,
        owner,
        otherOwners,
        pods: this.podsIn(namespace),
        expectations: o.expectations ?? null,
        cacheIsFresh: o.cacheIsFresh ?? true,
      },
      this.config,
    );
  }

  adoptionAllowed(p: SyncPlan, liveOwner: LiveOwner): string | null {
    return adoptionAllowed(p, liveOwner);
  }

  manageAfterClaims(p: SyncPlan, claims: ClaimOutcome): Manage {
    return manageAfterClaims(p, claims);
  }

  complete(p: SyncPlan, outcome: SyncOutcome): Completion {
    return complete(p, outcome);
  }

  nextBatch(create: CreatePlan, resultsSoFar: CallResult[]): number | null {
    return nextBatch(create, resultsSoFar);
  }

  applyExpectations(current: Expectations, changes: ExpectationsChange[], now: Date): Expectations {
    return applyExpectations(current, changes, now);
  }

  expectationsSatisfied(current: Expectations, now: Date): boolean {
    return expectationsSatisfied(current, now);
  }
}
