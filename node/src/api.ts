// The typed API over the wasm binding's engine surface: what an operator loads
// (`replicore`, the engine module) and what the full module (`replicore/full`, with the
// explain report and the simulator, explain.ts and sim.ts) also serves; instance.ts says
// which instance answers. The only work done here is what JavaScript must do before values
// cross: `Date` fields (as @kubernetes/client-node returns them) become RFC 3339 strings;
// objects without Dates are passed as they are. Every decision is the engine's.

import type * as Engine from "./wasm/replicore_wasm.js";
import { engineMemory, raw } from "./instance.js";
import { fromText, guard, iso, json, optJson, record, replicoreError, utf8, withNow } from "./json-text.js";
import { compile, listOf, omitted, openObject, type FieldTree, type Writer } from "./pod-json.js";
import type {
  CallResult,
  ClaimOutcome,
  Completion,
  Config,
  CreatePlan,
  EventDecision,
  Expectations,
  ExpectationsChange,
  HostInput,
  KubeEvent,
  LabelSelector,
  LiveOwner,
  SlowStartResult,
  StatusInput,
  Manage,
  Pod,
  RankOptions,
  RankedPod,
  ReplicaSet,
  ReplicaSetStatus,
  ReplicoreError,
  StorePlanOptions,
  StoreSize,
  SyncInput,
  SyncOutcome,
  StoreEvent,
  SyncPlan,
  Time,
  WatchEvent,
} from "./types.js";
import type { Correlated, Correlation, EventCorrelatorSize, EventCorrelatorState, EventToRecord, RecordedEvent } from "./types.js";
import type { ApiCall, ApiResult, DeploymentKinds, DeploymentSync, DeploymentSyncInput, KubeObject, QueueAction, Step, SyncDone } from "./types.js";
import type { HpaAnswer, HpaCall, HpaConfig, HpaForecast, HpaForecastInput, HpaStep, HpaSyncDone, HpaSyncInput, HpaSyncState, MetricQuery, MetricResponse, PodsUsage, PodsUsageInput } from "./types.js";
import type { DefaultConfig, QueueLimits } from "./types.js";

export type * from "./types.js";
export type { FieldTree } from "./pod-json.js";
export { isReplicoreError } from "./json-text.js";

// Pods are written with only the fields the engine reads (see pod-json.ts). Compiled on
// first use: in a browser the module is instantiated after this one is evaluated.
let writers: { pod: Writer; pods: Writer; input: Writer; event: Writer; storePodEvent: Writer; storeOwnerEvent: Writer; rankOptions: Writer } | undefined;

function written(): NonNullable<typeof writers> {
  if (writers) return writers;
  const pod = compile(podFields());
  const pods = listOf(pod);
  writers = {
    pod,
    pods,
    input: openObject({ pods, activePods: pods }),
    event: openObject({ object: pod, old: pod }),
    // A Store reads an event's type and object only (it holds the previous state): an
    // `old` the host passes is not written (half the bytes of an update, for nothing).
    storePodEvent: openObject({ object: pod, old: omitted }),
    storeOwnerEvent: openObject({ old: omitted }),
    rankOptions: openObject({ related: pods }),
  };
  return writers;
}

// ---------------------------------------------------------------------------------------
// The API

/**
 * The fields of a pod the engine reads, as a tree: `true` for a value read whole, an
 * object of fields, or a one-item array of the shape of a list's items. The package
 * writes only these when it sends pods; a host may strip its pods to them too.
 */
export function podFields(): FieldTree {
  return guard("", () => raw.podFields());
}

/** The wasm linear memory of the instance the engine API calls, in bytes (it grows with what is stored, and never shrinks). */
export function wasmMemoryBytes(): number {
  return engineMemory().buffer.byteLength;
}

/** The package (and engine) version. */
export function version(): string {
  return guard("", () => raw.version());
}

/** client-go's default controller rate limiter: backoff base and cap (ms), bucket qps and burst. */
export function controllerQueueLimits(): QueueLimits {
  return guard("", () => raw.controllerQueueLimits());
}

/** The characters of generated names (Kubernetes' `utilrand.String` alphabet). */
export function generatedNameAlphabet(): string {
  return guard("", () => raw.generatedNameAlphabet());
}

/** How many of those characters a `generateName` prefix gets (Kubernetes' name generator). */
export function generatedNameSuffixLength(): number {
  return guard("", () => raw.generatedNameSuffixLength());
}

/**
 * The configuration the engine uses when a host sets nothing (kube-controller-manager's
 * defaults: `burstReplicas`, the owner kind, the feature gates), for a host that shows them.
 */
export function defaultConfig(): DefaultConfig {
  return guard("", () => raw.defaultConfig());
}

/**
 * What one sync will do: claims (adopt/release patches), the manage step (creates in
 * slow-start batches, or ranked deletions), and the expectations to record first.
 */
export function plan(input: HostInput<SyncInput>, config?: Config): SyncPlan {
  return guard("", () => planBytes(json(input, "", written().input), config));
}

/** `plan` from JSON text (a host holding text need not parse it). */
export function planJson(inputJson: string, config?: Config): SyncPlan {
  return guard("", () => planBytes(utf8(inputJson), config));
}

function planBytes(input: Uint8Array, config?: Config): SyncPlan {
  return fromText(raw.plan(input, optJson(config, "config")));
}

// A plan is a value: it carries what the later steps need (see `PlanBasis`), so the calls
// below take it as it is, also after `structuredClone` or a JSON round trip, and from
// another process. Nothing is kept beside it and nothing is planned again.

/** `null` when the planned adoptions may go ahead given the live read of the owner, else why not. */
export function adoptionAllowed(p: SyncPlan, liveOwner: LiveOwner): string | null {
  return guard("", () => raw.adoptionAllowed(json(p, "plan"), json(liveOwner, "liveOwner")) ?? null);
}

/** The manage step once the claims are done (equal to `plan.manage` if all went as planned). */
export function manageAfterClaims(p: SyncPlan, claims: ClaimOutcome): Manage {
  return guard("", () => raw.manageAfterClaims(json(p, "plan"), json(claims, "claims")));
}

/** What the host's calls mean: status to write, expectation corrections, events, requeue. */
export function complete(p: SyncPlan, outcome: SyncOutcome): Completion {
  return guard("", () => raw.complete(json(p, "plan"), json(outcome, "outcome")));
}

/** `complete` for the plan of `input` (plans are deterministic). */
export function completeInput(input: HostInput<SyncInput>, outcome: SyncOutcome, config?: Config): Completion {
  return guard("", () => raw.completeInput(json(input, "", written().input), json(outcome, "outcome"), optJson(config, "config")));
}

/**
 * What to take off the expectations when a manage step stops partway (e.g. the host lost
 * its leader lease), given the results of the calls made so far, in call order.
 */
export function abandonedExpectations(manage: Manage, resultsSoFar: CallResult[]): ExpectationsChange[] {
  return guard("", () => raw.abandonedExpectations(json(manage, "manage"), json(resultsSoFar, "results")));
}

/**
 * How many create calls the next slow-start batch has, given the results so far;
 * `null` when slow start is over (all done, or a batch had a failure).
 */
export function nextBatch(create: CreatePlan, resultsSoFar: CallResult[]): number | null {
  return guard("", () => raw.nextBatch(json(create, "create"), json(resultsSoFar, "results")) ?? null);
}

/**
 * The event a create call records on its owner, or `undefined` (a create refused because
 * the namespace is terminating records none). Upstream records it as soon as the call
 * returns: a host that sends a batch at once records each event when its answer comes.
 * `Completion.events` holds the same events, in call order, for a host that records after
 * the sync.
 */
export function createEvent(result: CallResult): KubeEvent | undefined {
  return guard("", () => raw.createEvent(json(result, "result")));
}

/** The event the delete of pod `pod` (a victim's name) records on its owner when it returns, or `undefined` (the pod was already gone). */
export function deleteEvent(pod: string, result: CallResult): KubeEvent | undefined {
  return guard("", () => raw.deleteEvent(pod, json(result, "result")));
}

/** The scale-down order, first to go first, each pod with the rule that placed it. */
export function rankPods(pods: Pod[], options: HostInput<RankOptions>): RankedPod[] {
  return guard("", () => {
    const w = written();
    const text = raw.rankPods(json(pods, "pods", w.pods), json(withNow(options, "options"), "options", w.rankOptions));
    return fromText(text);
  });
}

/** Which owner keys a pod event enqueues (now or later) and which observations it makes. */
export function onPodEvent(event: WatchEvent<Pod>, owners: ReplicaSet[], config?: Config): EventDecision {
  return guard("", () => raw.onPodEvent(json(event, "event", written().event), json(owners, "owners"), optJson(config, "config")));
}

/** The owner-event rules (an added, updated or deleted owner). */
export function onOwnerEvent(event: WatchEvent<ReplicaSet>): EventDecision {
  return guard("", () => raw.onOwnerEvent(json(event, "event")));
}

/** The expectations after applying `changes` at `now` (null = no record). */
export function applyExpectations(current: Expectations, changes: ExpectationsChange[], now: Time): Expectations {
  return guard("", () => raw.applyExpectations(json(current ?? null, "current"), json(changes, "changes"), json(iso(now, "now"), "now")));
}

/** nothing outstanding, or expired (older than 5 minutes). */
export function expectationsSatisfied(current: Expectations, now: Time): boolean {
  return guard("", () => raw.expectationsSatisfied(json(current ?? null, "current"), json(iso(now, "now"), "now")));
}

/**
 * How many of `pods` a `pods` ResourceQuota charges at `now`: kube-apiserver's rule
 * (`QuotaV1Pod`: not Failed/Succeeded, not terminating past its grace period). For a fake
 * API server that answers pod creates with 403 exceeded quota.
 */
export function podQuotaUsed(pods: Pod[], now: Time): number {
  return guard("", () => raw.podQuotaUsed(json(pods, "pods", written().pods), json(iso(now, "now"), "now")));
}

/** Does the label selector match the labels? (nil = nothing, `{}` = everything; invalid throws) */
export function selectorMatches(selector: LabelSelector | null, labels: Record<string, string> | null | undefined): boolean {
  return guard("", () => raw.selectorMatches(json(selector ?? null, "selector"), json(labels ?? null, "labels")));
}

/** upstream's calculateStatus over the given active pods (R-80..R-82). */
export function calculateStatus(input: HostInput<StatusInput>, config?: Config): ReplicaSetStatus {
  return guard("", () => raw.calculateStatus(json(input, "", written().input), optJson(config, "config")));
}

/** How a slow start of `count` calls goes when the calls at `failedCalls` (0-based) fail. */
export function slowStart(count: number, initialBatchSize: number, failedCalls: number[]): SlowStartResult {
  return guard("", () => raw.slowStart(count, initialBatchSize, json(failedCalls, "failedCalls")));
}

/** upstream's comparator on two pods with their co-location ranks (cross-checking only). */
export function upstreamLess(a: Pod, rankA: number, b: Pod, rankB: number, options: HostInput<RankOptions>): boolean {
  return guard("", () => {
    const o = record(options, "options");
    return raw.upstreamLess(
      json(a, "a", written().pod),
      rankA,
      json(b, "b", written().pod),
      rankB,
      json({ now: iso(o.now, "options.now"), featureGates: o.featureGates }, "options"),
    );
  });
}

/**
 * Every owner key's expectations kept in wasm memory, as upstream keeps its
 * ControllerExpectations in a store by key: a host streaming watch events applies each
 * change by key, and the record (for an owner awaiting hundreds of deletions, hundreds of
 * pod keys) does not cross on every observation as it does with `applyExpectations`.
 * A refused argument changes nothing. Call `free()` when done.
 */
export class ExpectationsTable {
  readonly #raw: Engine.ExpectationsTable;

  constructor() {
    this.#raw = guard("", () => new raw.ExpectationsTable());
  }

  /** `changes`, in order, applied to owner `key`'s expectations at `now`. */
  apply(key: string, changes: ExpectationsChange[], now: Time): void {
    guard("", () => this.#raw.apply(key, json(changes, "changes"), json(iso(now, "now"), "now")));
  }

  /** Owner `key`'s expectations (`null` when none are recorded). */
  get(key: string): Expectations {
    return guard("", () => this.#raw.get(key));
  }

  /** R-40 for owner `key`: nothing awaited, or the record expired. */
  satisfied(key: string, now: Time): boolean {
    return guard("", () => this.#raw.satisfied(key, json(iso(now, "now"), "now")));
  }

  /** Owner `key`'s record forgotten (R-45); whether there was one. */
  remove(key: string): boolean {
    return guard("", () => this.#raw.remove(key));
  }

  /** How many owner keys have a record. */
  size(): number {
    return guard("", () => this.#raw.size());
  }

  /** Frees the table's wasm memory; it must not be used afterwards. */
  free(): void {
    this.#raw.free();
  }
}

// ---------------------------------------------------------------------------------------
// The engine-side store

/**
 * Owners and pods kept in wasm memory, for hosts that stream watch events: each object
 * crosses once, when it changes, and a sync (`planFor`) sends no pod at all. A plan is a
 * value that carries what `complete` needs, so the store may take watch events while the
 * plan's calls are in flight, and keeps nothing for it.
 * Bad objects are refused with a `ReplicoreError` and the store keeps what it had.
 * Call `free()` when done with a store (its memory lives in the wasm instance).
 */
export class Store {
  readonly #raw: Engine.Store;

  constructor(config?: Config) {
    this.#raw = guard("", () => new raw.Store(optJson(config, "config")));
  }

  /** Adds or replaces (by namespace/name) an owner. */
  upsertOwner(owner: ReplicaSet): void {
    guard("", () => this.#raw.upsertOwner(json(owner, "owner")));
  }

  /** Removes an owner; whether it was there. */
  deleteOwner(namespace: string, name: string): boolean {
    return guard("", () => this.#raw.deleteOwner(namespace, name));
  }

  /** Adds or replaces (by namespace/name) a pod. */
  upsertPod(pod: Pod): void {
    guard("", () => this.#raw.upsertPod(json(pod, "pod", written().pod)));
  }

  /** `upsertPod` from JSON text. */
  upsertPodJson(podJson: string): void {
    guard("", () => this.#raw.upsertPod(utf8(podJson, "pod")));
  }

  /** Removes a pod; whether it was there. */
  deletePod(namespace: string, name: string): boolean {
    return guard("", () => this.#raw.deletePod(namespace, name));
  }

  /**
   * A pod watch event: what it asks for (keys to enqueue, now or later, and expectation
   * observations), decided against the stored owners and the stored previous state of
   * the pod (an event's `old` is not needed); then the event is applied to the store.
   */
  onPodEvent(event: StoreEvent<Pod>): EventDecision {
    return guard("", () => this.#raw.onPodEvent(json(event, "event", written().storePodEvent)));
  }

  /** An owner watch event, as `onPodEvent`. */
  onOwnerEvent(event: StoreEvent<ReplicaSet>): EventDecision {
    return guard("", () => this.#raw.onOwnerEvent(json(event, "event", written().storeOwnerEvent)));
  }

  /** What a sync of the stored owner `namespace/name` will do (throws `NOT_FOUND` if absent). */
  planFor(namespace: string, name: string, options: HostInput<StorePlanOptions>): SyncPlan {
    return guard("", () => fromText(this.#raw.planFor(namespace, name, json(withNow(options, "options"), "options"))));
  }

  /** R-32 for a plan (the module's `adoptionAllowed`). */
  adoptionAllowed(p: SyncPlan, liveOwner: LiveOwner): string | null {
    return adoptionAllowed(p, liveOwner);
  }

  /** The manage step once the claims are done (the module's `manageAfterClaims`). */
  manageAfterClaims(p: SyncPlan, claims: ClaimOutcome): Manage {
    return manageAfterClaims(p, claims);
  }

  /** What the calls made for a plan mean (the module's `complete`: the plan alone suffices). */
  complete(p: SyncPlan, outcome: SyncOutcome): Completion {
    return complete(p, outcome);
  }

  /** Nothing to drop: the store keeps nothing for a plan (kept for hosts that call it). */
  release(_p: SyncPlan): void {}

  size(): StoreSize {
    return guard("", () => this.#raw.size());
  }

  /** Frees the store's wasm memory; the store must not be used afterwards. */
  free(): void {
    guard("", () => this.#raw.free());
  }
}

// ---------------------------------------------------------------------------------------
// The seeded cluster simulator

// The Simulator class is in the full module's entries ("replicore/full", "replicore/sim"),
// so that the engine module stays small; its types are exported here too.
export type * from "./sim-types.js";

// ---------------------------------------------------------------------------------------
// Event correlation: how kube-controller-manager's recorder writes Events (client-go's
// EventCorrelator: similar events combined, repeats counted on one Event, a per-object
// spam filter). Every decision is the engine's (core/src/event_correlation.rs).

/**
 * The pure form: the decision for `event` recorded at `now`, and the state after it
 * (`null` state = a fresh recorder's). The state crosses whole each call; a host that
 * records many events keeps an {@link EventCorrelator} instead.
 */
export function correlateEvent(
  state: EventCorrelatorState | null,
  event: EventToRecord,
  now: Time,
): Correlated {
  return guard("", () => fromText(raw.correlateEvent(optJson(state, "state"), json(event, "event"), json(iso(now, "now"), "now"))));
}

/**
 * A recorder's correlator, its state kept in wasm memory. Feed it every event in the
 * order recorded; after each successful write, pass the Event the server returned to
 * `written` (client-go's `UpdateState`). Call `free()` when done.
 */
export class EventCorrelator {
  readonly #raw: Engine.EventCorrelator;

  constructor(state?: EventCorrelatorState | null) {
    this.#raw = guard("", () => new raw.EventCorrelator(optJson(state, "state")));
  }

  /** Create, patch or drop `event` recorded at `now`. */
  correlate(event: EventToRecord, now: Time): Correlation {
    return guard("", () => this.#raw.correlate(json(event, "event"), json(iso(now, "now"), "now")));
  }

  /** The Event the server returned for a create or a patch. */
  written(event: RecordedEvent | object): void {
    guard("", () => this.#raw.written(json(event, "event")));
  }

  /** The state as a plain value (for `new EventCorrelator(state)` or `correlateEvent`). */
  state(): EventCorrelatorState {
    return guard("", () => fromText(this.#raw.state()));
  }

  size(): EventCorrelatorSize {
    return guard("", () => this.#raw.size());
  }

  /** Frees the correlator's wasm memory; it must not be used afterwards. */
  free(): void {
    this.#raw.free();
  }
}

// ---------------------------------------------------------------------------------------
// The Deployment controller: one `syncDeployment(key)` as a step machine (the engine names
// each API call, the host makes it and reports the result, until the engine says what
// the sync amounted to), and its event handlers (D-110..D-115). Every decision is the
// engine's (core/src/deployment/); the types are generated from the Rust types.

/**
 * A sync's input as a host holds it: {@link DeploymentSyncInput}, with `now` also as a
 * `Date`; the objects may be @kubernetes/client-node's (`V1Deployment`, `V1ReplicaSet`,
 * `V1Pod`, whose `Date` fields become RFC 3339 strings when they cross).
 */
export type DeploymentSyncHostInput = HostInput<DeploymentSyncInput>;

/** The input as JSON: `now` as RFC 3339, pods written with the fields the engine reads. */
function syncInputJson(input: DeploymentSyncHostInput): Uint8Array {
  const o = record(input, "");
  return json({ ...o, now: iso(o.now, "now") }, "", written().input);
}

/**
 * The step machine at its first step, as plain data (`{input, results}`): serializable at
 * every step (`structuredClone`, a JSON round trip), for {@link deploymentSyncNext} and
 * {@link deploymentSyncReport}. Refuses an input the sync cannot run on.
 */
export function deploymentSyncStart(input: DeploymentSyncHostInput): DeploymentSync {
  return guard("", () => fromText(raw.deploymentSyncStart(syncInputJson(input))));
}

/** The next step of a sync's state: an API call to make, or done. */
export function deploymentSyncNext(sync: DeploymentSync): Step {
  return guard("", () => raw.deploymentSyncNext(json(sync, "sync")));
}

/** The state with the result of the call {@link deploymentSyncNext} named (a new value). */
export function deploymentSyncReport(sync: DeploymentSync, result: ApiResult): DeploymentSync {
  return guard("", () => fromText(raw.deploymentSyncReport(json(sync, "sync"), json(result, "result"))));
}

/** How {@link DeploymentSyncRun.fromState} reaches the constructor (not exported). */
const fromRaw: unique symbol = Symbol("DeploymentSyncRun.fromRaw");

/**
 * One sync's step machine kept in wasm memory, for hosts that loop fast: the input is
 * parsed once. `state()` gives the plain state (the same as the pure functions'), and
 * `DeploymentSyncRun.fromState(state)` resumes it. A refused argument changes nothing.
 * Call `free()` when done (its memory lives in the wasm instance).
 */
export class DeploymentSyncRun {
  readonly #raw: Engine.DeploymentSyncRun;

  constructor(input: DeploymentSyncHostInput);
  /** @internal */
  constructor(input: typeof fromRaw, run: Engine.DeploymentSyncRun);
  constructor(input: DeploymentSyncHostInput | typeof fromRaw, run?: Engine.DeploymentSyncRun) {
    if (input === fromRaw) {
      if (run === undefined) throw replicoreError("", "DeploymentSyncRun: no machine to resume", "INTERNAL");
      this.#raw = run;
    } else {
      this.#raw = guard("", () => new raw.DeploymentSyncRun(syncInputJson(input)));
    }
  }

  /** A machine at a state {@link DeploymentSyncRun.state} or {@link deploymentSyncStart} gave. */
  static fromState(sync: DeploymentSync): DeploymentSyncRun {
    return new DeploymentSyncRun(fromRaw, guard("", () => raw.DeploymentSyncRun.fromState(json(sync, "sync"))));
  }

  /** The next step: an API call to make, or done. */
  next(): Step {
    return guard("", () => this.#raw.next());
  }

  /** The result of the call the last step named. */
  report(result: ApiResult): void {
    guard("", () => this.#raw.report(json(result, "result")));
  }

  /** The plain state (`{input, results}`). */
  state(): DeploymentSync {
    return guard("", () => fromText(this.#raw.state()));
  }

  /** Frees the machine's wasm memory; it must not be used afterwards. */
  free(): void {
    this.#raw.free();
  }
}

/**
 * Runs one sync to its end: `host` makes each API call the engine names and answers with
 * its result (an error answer is a result, `{result: "error", reason, message, …}`; an
 * exception thrown by `host` ends the run and is rethrown as it is).
 */
export async function runDeploymentSync(
  input: DeploymentSyncHostInput,
  host: (call: ApiCall) => ApiResult | Promise<ApiResult>,
): Promise<SyncDone> {
  return drive(new DeploymentSyncRun(input), host);
}

/** A step machine in wasm memory, driven to its end by a host that answers each call. */
async function drive<C, A, D>(
  run: { next(): { step: "call"; call: C } | { step: "done"; done: D }; report(answer: A): void; free(): void },
  host: (call: C) => A | Promise<A>,
): Promise<D> {
  try {
    for (;;) {
      const step = run.next();
      if (step.step === "done") return step.done;
      run.report(await host(step.call));
    }
  } finally {
    run.free();
  }
}

/**
 * D-111..D-113: the deployment keys (`namespace/name`) a ReplicaSet watch event enqueues,
 * given the deployments the cache holds. `kinds`: the Deployment and ReplicaSet kinds the
 * controller works with (apps/v1's when absent), as in the sync input.
 */
export function deploymentKeysForReplicaSetEvent(event: WatchEvent<ReplicaSet>, deployments: KubeObject[], kinds?: DeploymentKinds): string[] {
  return guard("", () => raw.deploymentKeysForReplicaSetEvent(json(event, "event"), json(deployments, "deployments"), optJson(kinds, "kinds")));
}

/**
 * D-114: the Recreate deployment a deleted pod enqueues once none of its ReplicaSets has
 * a pod left: `replicaSets` and `deployments` as the cache holds them, `pods` the pods
 * the cache still holds, `kinds` as for {@link deploymentKeysForReplicaSetEvent}.
 */
export function deploymentKeysForPodDeleted(pod: Pod, replicaSets: ReplicaSet[], deployments: KubeObject[], pods: Pod[], kinds?: DeploymentKinds): string[] {
  return guard("", () => {
    const w = written();
    return raw.deploymentKeysForPodDeleted(json(pod, "pod", w.pod), json(replicaSets, "replicaSets"), json(deployments, "deployments"), json(pods, "pods", w.pods), optJson(kinds, "kinds"));
  });
}

/** The annotation keys and the label the Deployment controller writes on its objects. */
export function deploymentObjectKeys(): { revisionAnnotation: string; desiredReplicasAnnotation: string; maxReplicasAnnotation: string; podTemplateHashLabel: string } {
  return guard("", () => raw.deploymentObjectKeys());
}

/**
 * Do this deployment's sync and pod-deletion handling read pods? Only a Recreate
 * deployment's do (D-61, D-114); for any other, pass no pods (`pods: []`) and the
 * decisions are the same, without the cost of sending every pod of the namespace.
 */
export function deploymentReadsPods(deployment: KubeObject): boolean {
  return guard("", () => raw.deploymentReadsPods(json(record(deployment, "deployment"), "deployment")));
}

/**
 * D-115: what the work queue does with the key after a sync that ended with `done`,
 * given how many times the key was requeued so far.
 */
export function deploymentQueueAction(done: SyncDone, requeues: number): QueueAction {
  return guard("", () => raw.deploymentQueueAction(json(done, "done"), requeues));
}

// ---------------------------------------------------------------------------------------
// The HorizontalPodAutoscaler controller: one `reconcileAutoscaler(hpa)` as a step machine
// (the engine names each call: resolve the target, read its scale, list the pods of its
// selector, fetch one metric, write the scale, write the status; the host answers each),
// ending with the events, the error and the new memory the host keeps for the next sync.
// Every decision is the engine's (core/src/hpa/); the types are generated from Rust's.

/**
 * A sync's input as a host holds it: {@link HpaSyncInput} with `now` also as a `Date`; the
 * HPA may be @kubernetes/client-node's `V2HorizontalPodAutoscaler`.
 */
export type HpaSyncHostInput = HostInput<HpaSyncInput>;

function hpaInputJson(input: HpaSyncHostInput): Uint8Array {
  const o = record(input, "");
  return json({ ...o, now: iso(o.now, "now") }, "");
}

/** The HPA sync's machine at its first step, as plain data (`{input, answers}`). */
export function hpaSyncStart(input: HpaSyncHostInput): HpaSyncState {
  return guard("", () => fromText(raw.hpaSyncStart(hpaInputJson(input))));
}

/** The next step of an HPA sync's state: a call to make, or done. */
export function hpaSyncNext(sync: HpaSyncState): HpaStep {
  return guard("", () => raw.hpaSyncNext(json(sync, "sync")));
}

/** The state with the answer to the call {@link hpaSyncNext} named (a new value). */
export function hpaSyncReport(sync: HpaSyncState, answer: HpaAnswer): HpaSyncState {
  return guard("", () => fromText(raw.hpaSyncReport(json(sync, "sync"), json(answer, "answer"))));
}

/**
 * One HPA sync's machine kept in wasm memory: each answer is folded in once (a metric
 * over thousands of pods is computed once). A refused argument changes nothing. Call
 * `free()` when done.
 */
export class HpaSyncRun {
  readonly #raw: Engine.HpaSyncRun;

  constructor(input: HpaSyncHostInput) {
    this.#raw = guard("", () => new raw.HpaSyncRun(hpaInputJson(input)));
  }

  /** The next step: a call to make, or done. */
  next(): HpaStep {
    return guard("", () => this.#raw.next());
  }

  /** The answer to the call the last step named. */
  report(answer: HpaAnswer): void {
    guard("", () => this.#raw.report(json(answer, "answer")));
  }

  /** The plain state (`{input, answers}`). */
  state(): HpaSyncState {
    return guard("", () => fromText(this.#raw.state()));
  }

  /** Frees the machine's wasm memory; it must not be used afterwards. */
  free(): void {
    this.#raw.free();
  }
}

/**
 * Runs one HPA sync to its end: `host` answers each call the engine names (an API error
 * is an answer, `{answer: "error", reason, message}`); keep `done.memory` for the next
 * sync of the same HPA.
 */
export async function runHpaSync(
  input: HpaSyncHostInput,
  host: (call: HpaCall) => HpaAnswer | Promise<HpaAnswer>,
): Promise<HpaSyncDone> {
  return drive(new HpaSyncRun(input), host);
}

/**
 * The fields of a pod the autoscaler reads, as {@link podFields} gives the ReplicaSet
 * engine's: a host's pod cache may keep only these.
 */
export function hpaPodFields(): FieldTree {
  return guard("", () => raw.hpaPodFields());
}

/** The HPA controller's settings when a host sets none (kube-controller-manager's flag defaults, H-01). */
export function hpaDefaultConfig(): HpaConfig {
  return guard("", () => raw.hpaDefaultConfig());
}

/**
 * The answer to a `fetchMetric` call read from the metrics APIs' raw answers to its query
 * (`PodMetricsList`, `MetricValueList`, `ExternalMetricValueList` as the APIs send them, or
 * `{api, error}` for a failed request), as upstream's REST metrics client reads them
 * (H-99..H-102): items the query's selector does not name are left out.
 */
export function hpaMetricResponse(query: MetricQuery, answers: unknown[]): MetricResponse {
  return guard("", () => raw.hpaMetricResponse(json(query, "query"), json(answers, "answers")));
}

/** The query's metric selector as the metrics APIs take it in the URL (`""` for none). */
export function hpaMetricSelector(query: MetricQuery): string {
  return guard("", () => raw.hpaMetricSelector(json(query, "query")));
}

/**
 * A forecast's input as a host holds it: {@link HpaForecastInput} with `start` also as a
 * `Date`; the HPA may be @kubernetes/client-node's `V2HorizontalPodAutoscaler`.
 */
export type HpaForecastHostInput = Omit<HpaForecastInput, "start"> & { start?: Time };

/**
 * The autoscaling forecast: the engine's HPA sync played every sync period over a load
 * curve (in pods at target) on a seeded pod model, the memory carried from sync to sync:
 * per sync the load, utilization, replicas, ready pods, what limited the step and the
 * events; the totals (time to capacity, seconds under capacity, over-provisioned
 * pod-seconds, direction changes). Same seed, same forecast.
 */
export function hpaForecast(input: HpaForecastHostInput): HpaForecast {
  return guard("", () => {
    const o = record(input, "");
    return raw.hpaForecast(json(o.start === undefined ? o : { ...o, start: iso(o.start, "start") }, ""));
  });
}

/**
 * What each pod reports at one moment of a load curve (the engine's load model, as the
 * forecast plays it): the Ready pods share the curve's demand evenly (millicores, spread
 * by a seeded `± noise`), a Running pod not yet Ready uses its CPU request times
 * `startupCpu`, a Pending pod has no sample (`null`); memory is `memory` times the
 * request of every Running pod. The dev-server's pod metrics.
 */
export function podsUsage(input: PodsUsageInput): PodsUsage {
  return guard("", () => raw.podsUsage(json(input, "")));
}

