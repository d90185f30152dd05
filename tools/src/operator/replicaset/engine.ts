// Every engine call the operator makes goes through this module. Owners and pods live in
// the engine-side Store (wasm memory): each object crosses once, when its watch event
// arrives, and a sync sends no pod at all. The store refuses an object it cannot read
// (a ReplicoreError) and keeps what it had, so a malformed pod never reaches a plan.
// Besides the store, this module keeps the owners as the informer delivered them (the
// operator needs their metadata for status writes and events) and nothing else; the host
// keeps the clock and the API calls (events: ../recorder.ts). The expectations live in
// the engine too (an ExpectationsTable): a change crosses by owner key, the record (up to
// a burst of pod keys while deleting) stays in wasm memory.

import { ExpectationsTable, Store, abandonedExpectations, createEvent, deleteEvent, nextBatch } from "replicore";
import type {
  CallResult,
  ClaimOutcome,
  Completion,
  Config,
  CreatePlan,
  EventDecision,
  Expectations,
  ExpectationsChange,
  KubeEvent,
  LiveOwner,
  Manage,
  Pod,
  ReplicaSet,
  SyncOutcome,
  SyncPlan,
  WatchEvent,
} from "replicore";

export type { CallResult, ClaimOutcome, Completion, Config, EventDecision, Expectations, ExpectationsChange, Manage, Pod, ReplicaSet, SyncOutcome, SyncPlan };

export interface PlanOptions {
  now: Date;
  cacheIsFresh?: boolean;
}

/** The operator's view of the cluster, and the engine behind it. */
export class Engine {
  private readonly store: Store;
  private readonly expectations = new ExpectationsTable();
  private readonly owners = new Map<string, ReplicaSet>();

  constructor(readonly config: Config = {}) {
    this.store = new Store(config);
  }

  /** The owner as last delivered by its informer (and accepted by the store). */
  getOwner(namespace: string, name: string): ReplicaSet | undefined {
    return this.owners.get(`${namespace}/${name}`);
  }

  ownerKeys(): string[] {
    return [...this.owners.keys()];
  }

  /** How many owners and pods the store holds. */
  size(): { owners: number; pods: number } {
    return this.store.size();
  }

  /**
   * The pod-event rules (R-90..R-95), decided with the stored owners and the stored
   * previous state of the pod; then the event is applied to the store. Throws (code and
   * path) for a pod the engine cannot read; the store keeps what it had.
   */
  onPodEvent(event: WatchEvent<Pod>): EventDecision {
    return this.store.onPodEvent(event);
  }

  /** The owner-event rules, then the event applied to the store. */
  onOwnerEvent(event: WatchEvent<ReplicaSet>): EventDecision {
    const decision = this.store.onOwnerEvent(event);
    const key = `${event.object.metadata?.namespace ?? ""}/${event.object.metadata?.name ?? ""}`;
    if (event.type === "deleted") this.owners.delete(key);
    else this.owners.set(key, event.object);
    return decision;
  }

  /**
   * One sync's plan for the stored owner `namespace/name`, with its expectations (throws
   * code NOT_FOUND if absent).
   */
  planFor(namespace: string, name: string, o: PlanOptions): SyncPlan {
    return this.store.planFor(namespace, name, {
      now: o.now,
      expectations: this.expectations.get(`${namespace}/${name}`),
      cacheIsFresh: o.cacheIsFresh ?? true,
    });
  }

  adoptionAllowed(p: SyncPlan, liveOwner: LiveOwner): string | null {
    return this.store.adoptionAllowed(p, liveOwner);
  }

  manageAfterClaims(p: SyncPlan, claims: ClaimOutcome): Manage {
    return this.store.manageAfterClaims(p, claims);
  }

  complete(p: SyncPlan, outcome: SyncOutcome): Completion {
    return this.store.complete(p, outcome);
  }

  /** What to take off the expectations for a manage step stopped partway (the engine's rule). */
  abandonedExpectations(manage: Manage, resultsSoFar: CallResult[]): ExpectationsChange[] {
    return abandonedExpectations(manage, resultsSoFar);
  }

  nextBatch(create: CreatePlan, resultsSoFar: CallResult[]): number | null {
    return nextBatch(create, resultsSoFar);
  }

  /** The event a create call records when it returns, if any. */
  createEvent(result: CallResult): KubeEvent | undefined {
    return createEvent(result);
  }

  /** The event the delete of pod `pod` records when it returns, if any. */
  deleteEvent(pod: string, result: CallResult): KubeEvent | undefined {
    return deleteEvent(pod, result);
  }

  /** The changes, in order, to owner `key`'s expectations. */
  changeExpectations(key: string, changes: ExpectationsChange[], now: Date): void {
    if (changes.length > 0) this.expectations.apply(key, changes, now);
  }

  /** Owner `key`'s expectations (`null` when none are recorded). */
  expectationsOf(key: string): Expectations {
    return this.expectations.get(key);
  }

  expectationsSatisfied(key: string, now: Date): boolean {
    return this.expectations.satisfied(key, now);
  }

  /** Owner `key`'s expectations forgotten (its owner is gone). */
  forgetExpectations(key: string): void {
    this.expectations.remove(key);
  }

  free(): void {
    this.store.free();
    this.expectations.free();
  }
}
