/* tslint:disable */
/* eslint-disable */

import type { ApiResult, DeploymentSync, DeploymentSyncInput, QueueAction, Step, SyncDone } from "../generated/index.js";
/** JSON text of a `T`, as the engine writes it (the package's wrapper parses it). */
export type JsonText<T> = string & { readonly __jsonOf?: T };
/** JSON text of a `T`, or its UTF-8 bytes, as the package's wrapper writes it. */
export type JsonInput<T> = (string | Uint8Array) & { readonly __jsonOf?: T };



import type { ClaimOutcome, Completion, Config, Correlated, Correlation, EventCorrelatorSize, EventCorrelatorState, EventDecision, EventToRecord, Expectations, ExpectationsChange, CreatePlan, CallResult, KubeObject, LabelSelector, LiveOwner, Manage, RankedPod, RankOptions, RecordedEvent, ReplicaSetStatus, SlowStartResult, StatusInput, StorePlanOptions, StoreSize, SyncInput, SyncOutcome, SyncPlan, Time } from "../generated/index.js";
import type { FieldTree } from "../pod-json.js";
import type { StoreEvent, WatchEvent } from "../types.js";



import type { DeploymentSample, Sample, ScalePreview, Scenario, SimRanking, SimState, TraceEntry } from "../generated/index.js";



import type { HpaAnswer, HpaStep, HpaSyncInput, HpaSyncState } from "../generated/index.js";



/**
 * One sync's machine in wasm memory: the input is parsed once, each step replays the
 * sync over the results reported so far. A refused argument changes nothing.
 */
export class DeploymentSyncRun {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `DeploymentSyncRun.fromState(syncJson)`: a machine at a state `state()` gave.
     */
    static fromState(sync: JsonInput<DeploymentSync>): DeploymentSyncRun;
    /**
     * `new DeploymentSyncRun(inputJson)`.
     */
    constructor(input: JsonInput<DeploymentSyncInput>);
    /**
     * `next()`: the next step (a call to make, or done).
     */
    next(): Step;
    /**
     * `report(resultJson)`: the result of the call the last step named.
     */
    report(result: JsonInput<ApiResult>): void;
    /**
     * `state()`: the plain state (`{input, results}`), as JSON text.
     */
    state(): JsonText<DeploymentSync>;
}

/**
 * The recorder's correlator in wasm memory: one per event recorder, fed every event in
 * the order recorded.
 */
export class EventCorrelator {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `correlate(eventJson, nowJson)`: create, patch or drop; a refused event changes
     * nothing.
     */
    correlate(event: JsonInput<EventToRecord>, now: JsonInput<Time>): Correlation;
    /**
     * `new EventCorrelator(stateJson?)`.
     */
    constructor(state: JsonInput<EventCorrelatorState> | undefined);
    /**
     * `size()`: entries per cache.
     */
    size(): EventCorrelatorSize;
    /**
     * `state()`: the state as JSON text.
     */
    state(): JsonText<EventCorrelatorState>;
    /**
     * `written(eventJson)`: the Event the server returned for a create or patch.
     */
    written(event: JsonInput<RecordedEvent | KubeObject>): void;
}

/**
 * One sync's machine in wasm memory. A refused argument changes nothing.
 */
export class HpaSyncRun {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `HpaSyncRun.fromState(stateJson)`: a machine at a state `state()` gave.
     */
    static fromState(state: JsonInput<HpaSyncState>): HpaSyncRun;
    /**
     * `new HpaSyncRun(inputJson)`.
     */
    constructor(input: JsonInput<HpaSyncInput>);
    /**
     * `next()`: the next step (a call to make, or done).
     */
    next(): HpaStep;
    /**
     * `report(answerJson)`: the answer to the call the last step named.
     */
    report(answer: JsonInput<HpaAnswer>): void;
    /**
     * `state()`: the plain state (`{input, answers}`), as JSON text.
     */
    state(): JsonText<HpaSyncState>;
}

/**
 * A simulated cluster running the ReplicaSet controller (and, for a Deployment
 * scenario, the Deployment controller) on the engine.
 */
export class Simulator {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Processes every event up to `now + ms`; returns how many ran.
     */
    advance(ms: any): number;
    /**
     * Applies an edit (JSON text of an `Edit`) now.
     */
    apply(edit: any): void;
    /**
     * The Deployment's ReplicaSets as lanes over virtual time (`DeploymentSample[]`;
     * empty unless the scenario has a Deployment).
     */
    deploymentHistory(): DeploymentSample[];
    /**
     * The timeline samples (`Sample[]`).
     */
    history(): Sample[];
    /**
     * `new Simulator(scenarioJson)`: the simulation at virtual time 0.
     */
    constructor(scenario: any);
    /**
     * What a scale of an owner (default the primary owner) to `replicas` would delete
     * now (`ScalePreview`).
     */
    preview(replicas: any, feature_gates: any, owner: any): ScalePreview;
    /**
     * The engine's scale-down order of an owner's pods (`SimRanking`; default the
     * primary owner), under the current gates with `featureGatesJson` (optional) laid
     * over them.
     */
    ranking(feature_gates: any, owner: any): SimRanking;
    /**
     * The scenario with every edit applied so far (replays to this run).
     */
    scenario(): Scenario;
    /**
     * A snapshot (`SimState`).
     */
    state(): SimState;
    /**
     * Processes the next event; false when nothing is scheduled.
     */
    step(): boolean;
    /**
     * Trace entries with `seq >= since` (default 0).
     */
    trace(since: any): TraceEntry[];
}

/**
 * Owners and pods in wasm memory, indexed by namespace; plans without re-sending pods.
 */
export class Store {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `deleteOwner(namespace, name)`: whether it was there.
     */
    deleteOwner(namespace: string, name: string): boolean;
    /**
     * `deletePod(namespace, name)`: whether it was there.
     */
    deletePod(namespace: string, name: string): boolean;
    /**
     * `new Store(configJson?)`.
     */
    constructor(config: JsonInput<Config> | undefined);
    /**
     * `onOwnerEvent(eventJson)`: as `onPodEvent`, for owners.
     */
    onOwnerEvent(event: JsonInput<StoreEvent<KubeObject>>): EventDecision;
    /**
     * `onPodEvent(eventJson)`: what the event asks for, decided against the stored
     * owners and previous pod; then the event is applied to the store.
     */
    onPodEvent(event: JsonInput<StoreEvent<KubeObject>>): EventDecision;
    /**
     * `planFor(namespace, name, optionsJson)`: the plan for the stored owner, as JSON
     * text.
     */
    planFor(namespace: string, name: string, options: JsonInput<StorePlanOptions>): JsonText<SyncPlan>;
    /**
     * `size()`: `{owners, pods}`.
     */
    size(): StoreSize;
    /**
     * `upsertOwner(ownerJson)`: adds or replaces an owner; a bad one changes nothing.
     */
    upsertOwner(owner: JsonInput<KubeObject>): void;
    /**
     * `upsertPod(podJson)`: adds or replaces a pod; a bad one changes nothing.
     */
    upsertPod(pod: JsonInput<KubeObject>): void;
}

/**
 * `abandonedExpectations(manageJson, resultsJson)`: what to take off the expectations
 * when the host stops a manage step partway, given the results so far.
 */
export function abandonedExpectations(manage: JsonInput<Manage>, results: JsonInput<CallResult[]>): ExpectationsChange[];

/**
 * `adoptionAllowed(planJson, liveOwnerJson)`: R-32, `null` when the planned adoptions
 * may go ahead, else why not.
 */
export function adoptionAllowed(plan: JsonInput<SyncPlan>, live_owner: JsonInput<LiveOwner>): string | undefined;

/**
 * `applyExpectations(currentJson, changesJson, nowJson)`: the expectations after the
 * changes (`null` = no record).
 */
export function applyExpectations(current: JsonInput<Expectations>, changes: JsonInput<ExpectationsChange[]>, now: JsonInput<Time>): Expectations;

/**
 * `calculateStatus(inputJson, configJson?)`: upstream's calculateStatus over the given
 * active pods (R-80..R-82); `terminatingPods` is a count.
 */
export function calculateStatus(input: JsonInput<StatusInput>, config: JsonInput<Config> | undefined): ReplicaSetStatus;

/**
 * `complete(planJson, outcomeJson)`: what the host's calls mean. The plan carries
 * everything this needs: nothing is planned again and no state is kept here.
 */
export function complete(plan: JsonInput<SyncPlan>, outcome: JsonInput<SyncOutcome>): Completion;

/**
 * `completeInput(inputJson, outcomeJson, configJson?)`: `complete` for the plan of an
 * input made elsewhere (plans are deterministic).
 */
export function completeInput(input: JsonInput<SyncInput>, outcome: JsonInput<SyncOutcome>, config: JsonInput<Config> | undefined): Completion;

/**
 * `correlateEvent(stateJson|null, eventJson, nowJson)`: `{decision, state}` as JSON text.
 */
export function correlateEvent(state: JsonInput<EventCorrelatorState> | undefined, event: JsonInput<EventToRecord>, now: JsonInput<Time>): JsonText<Correlated>;

/**
 * `deploymentKeysForPodDeleted(podJson, replicaSetsJson, deploymentsJson, podsJson)`:
 * D-114, the Recreate deployment a deleted pod enqueues once none of its ReplicaSets
 * has a pod left (`pods`: the pods the cache still holds).
 */
export function deploymentKeysForPodDeleted(pod: any, replica_sets: any, deployments: any, pods: any): string[];

/**
 * `deploymentKeysForReplicaSetEvent(eventJson, deploymentsJson)`: D-111..D-113, the
 * deployment keys (`namespace/name`) a ReplicaSet watch event enqueues.
 */
export function deploymentKeysForReplicaSetEvent(event: any, deployments: any): string[];

/**
 * `deploymentObjectKeys()`: the annotation keys and the label the Deployment controller
 * writes on its objects (for a host that shows or builds such objects: the playground's
 * forecast snapshot), so no host restates them.
 */
export function deploymentObjectKeys(): { revisionAnnotation: string; desiredReplicasAnnotation: string; maxReplicasAnnotation: string; podTemplateHashLabel: string };

/**
 * `deploymentQueueAction(doneJson, requeues)`: D-115, what the work queue does with the
 * key after a sync that ended with `done`, given how often the key was requeued.
 */
export function deploymentQueueAction(done: JsonInput<SyncDone>, requeues: number): QueueAction;

/**
 * `deploymentReadsPods(deploymentJson)`: do the sync and the pod-deletion handler of
 * this deployment read pods? Only a Recreate one's do (D-61, D-114); for any other a
 * host may pass no pods and the decisions are the same.
 */
export function deploymentReadsPods(deployment: JsonInput<KubeObject>): boolean;

/**
 * `deploymentSyncNext(syncJson)`: the next step (a call to make, or done).
 */
export function deploymentSyncNext(sync: JsonInput<DeploymentSync>): Step;

/**
 * `deploymentSyncReport(syncJson, resultJson)`: the state with the result of the call
 * the last step named, as JSON text.
 */
export function deploymentSyncReport(sync: JsonInput<DeploymentSync>, result: JsonInput<ApiResult>): JsonText<DeploymentSync>;

/**
 * `deploymentSyncStart(inputJson)`: the machine's state at its first step, as JSON text.
 */
export function deploymentSyncStart(input: JsonInput<DeploymentSyncInput>): JsonText<DeploymentSync>;

/**
 * `expectationsSatisfied(currentJson, nowJson)`: R-40.
 */
export function expectationsSatisfied(current: JsonInput<Expectations>, now: JsonInput<Time>): boolean;

/**
 * `hpaSyncNext(stateJson)`: the next step (a call to make, or done).
 */
export function hpaSyncNext(state: JsonInput<HpaSyncState>): HpaStep;

/**
 * `hpaSyncReport(stateJson, answerJson)`: the state with the answer to the call the last
 * step named, as JSON text.
 */
export function hpaSyncReport(state: JsonInput<HpaSyncState>, answer: JsonInput<HpaAnswer>): JsonText<HpaSyncState>;

/**
 * `hpaSyncStart(inputJson)`: the machine's plain state at its first step, as JSON text.
 */
export function hpaSyncStart(input: JsonInput<HpaSyncInput>): JsonText<HpaSyncState>;

/**
 * `manageAfterClaims(planJson, claimsJson)`: the manage step once the claims are done.
 */
export function manageAfterClaims(plan: JsonInput<SyncPlan>, claims: JsonInput<ClaimOutcome>): Manage;

/**
 * `nextBatch(createJson, resultsJson)`: the size of the next slow-start batch, or
 * `undefined` when slow start is over.
 */
export function nextBatch(create: JsonInput<CreatePlan>, results: JsonInput<CallResult[]>): number | undefined;

/**
 * `onOwnerEvent(eventJson)`: the owner-event rules.
 */
export function onOwnerEvent(event: JsonInput<WatchEvent<KubeObject>>): EventDecision;

/**
 * `onPodEvent(eventJson, ownersJson, configJson?)`: which owner keys to enqueue (now or
 * after a delay) and which expectation observations to make.
 */
export function onPodEvent(event: JsonInput<WatchEvent<KubeObject>>, owners: JsonInput<KubeObject[]>, config: JsonInput<Config> | undefined): EventDecision;

/**
 * `plan(inputJson, configJson?)`: what one sync will do, as JSON text. The plan is a
 * value: the calls below take it back (as JSON text) and need nothing else.
 */
export function plan(input: JsonInput<SyncInput>, config: JsonInput<Config> | undefined): JsonText<SyncPlan>;

/**
 * `podFields()`: the fields of a pod the engine reads (`replicore::pod_fields`), as a
 * tree: `true` for a value read whole, an object of fields, or a one-item array of the
 * item shape. The package writes only these when it turns pods into JSON.
 */
export function podFields(): FieldTree;

/**
 * `podQuotaUsed(podsJson, nowJson)`: how many of the pods a `pods` ResourceQuota charges
 * at `now` (kube-apiserver's `QuotaV1Pod`: not terminal, not terminating past its grace
 * period).
 */
export function podQuotaUsed(pods: JsonInput<KubeObject[]>, now: JsonInput<Time>): number;

/**
 * `rankPods(podsJson, optionsJson)`: the scale-down order, first to go first, each pod
 * with the rule that placed it before the next (as JSON text).
 */
export function rankPods(pods: JsonInput<KubeObject[]>, options: JsonInput<RankOptions>): JsonText<RankedPod[]>;

/**
 * `selectorMatches(selectorJson, labelsJson)`: R-10..R-12. A nil selector matches
 * nothing, `{}` everything; an invalid selector throws (code `INVALID_SELECTOR`).
 */
export function selectorMatches(selector: JsonInput<LabelSelector | null>, labels: JsonInput<Record<string, string> | null>): boolean;

/**
 * `slowStart(count, initialBatchSize, failedCallsJson)`: how a slow start of `count`
 * calls goes when the calls at the given 0-based indices fail.
 */
export function slowStart(count_: number, initial_batch_size: number, failed_calls: JsonInput<number[]>): SlowStartResult;

/**
 * `upstreamLess(aJson, rankA, bJson, rankB, optionsJson)`: upstream's comparator on two
 * pods with their co-location ranks, for cross-checking (the order is `rankPods`').
 */
export function upstreamLess(a: JsonInput<KubeObject>, rank_a: number, b: JsonInput<KubeObject>, rank_b: number, options: JsonInput<RankOptions>): boolean;

/**
 * The package version.
 */
export function version(): string;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_deploymentsyncrun_free: (a: number, b: number) => void;
    readonly __wbg_eventcorrelator_free: (a: number, b: number) => void;
    readonly __wbg_hpasyncrun_free: (a: number, b: number) => void;
    readonly __wbg_simulator_free: (a: number, b: number) => void;
    readonly __wbg_store_free: (a: number, b: number) => void;
    readonly abandonedExpectations: (a: any, b: any) => [number, number, number];
    readonly adoptionAllowed: (a: any, b: any) => [number, number, number, number];
    readonly applyExpectations: (a: any, b: any, c: any) => [number, number, number];
    readonly calculateStatus: (a: any, b: any) => [number, number, number];
    readonly complete: (a: any, b: any) => [number, number, number];
    readonly completeInput: (a: any, b: any, c: any) => [number, number, number];
    readonly correlateEvent: (a: any, b: any, c: any) => [number, number, number];
    readonly deploymentKeysForPodDeleted: (a: any, b: any, c: any, d: any) => [number, number, number];
    readonly deploymentKeysForReplicaSetEvent: (a: any, b: any) => [number, number, number];
    readonly deploymentObjectKeys: () => [number, number, number];
    readonly deploymentQueueAction: (a: any, b: any) => [number, number, number];
    readonly deploymentReadsPods: (a: any) => [number, number, number];
    readonly deploymentSyncNext: (a: any) => [number, number, number];
    readonly deploymentSyncReport: (a: any, b: any) => [number, number, number];
    readonly deploymentSyncStart: (a: any) => [number, number, number];
    readonly deploymentsyncrun_fromState: (a: any) => [number, number, number];
    readonly deploymentsyncrun_new: (a: any) => [number, number, number];
    readonly deploymentsyncrun_next: (a: number) => [number, number, number];
    readonly deploymentsyncrun_report: (a: number, b: any) => [number, number];
    readonly deploymentsyncrun_state: (a: number) => [number, number, number];
    readonly eventcorrelator_correlate: (a: number, b: any, c: any) => [number, number, number];
    readonly eventcorrelator_new: (a: any) => [number, number, number];
    readonly eventcorrelator_size: (a: number) => [number, number, number];
    readonly eventcorrelator_state: (a: number) => [number, number, number];
    readonly eventcorrelator_written: (a: number, b: any) => [number, number];
    readonly expectationsSatisfied: (a: any, b: any) => [number, number, number];
    readonly hpaSyncNext: (a: any) => [number, number, number];
    readonly hpaSyncReport: (a: any, b: any) => [number, number, number];
    readonly hpaSyncStart: (a: any) => [number, number, number];
    readonly hpasyncrun_fromState: (a: any) => [number, number, number];
    readonly hpasyncrun_new: (a: any) => [number, number, number];
    readonly hpasyncrun_next: (a: number) => [number, number, number];
    readonly hpasyncrun_report: (a: number, b: any) => [number, number];
    readonly hpasyncrun_state: (a: number) => [number, number, number];
    readonly manageAfterClaims: (a: any, b: any) => [number, number, number];
    readonly nextBatch: (a: any, b: any) => [number, number, number];
    readonly onOwnerEvent: (a: any) => [number, number, number];
    readonly onPodEvent: (a: any, b: any, c: any) => [number, number, number];
    readonly plan: (a: any, b: any) => [number, number, number];
    readonly podFields: () => [number, number, number];
    readonly podQuotaUsed: (a: any, b: any) => [number, number, number];
    readonly rankPods: (a: any, b: any) => [number, number, number];
    readonly selectorMatches: (a: any, b: any) => [number, number, number];
    readonly simulator_advance: (a: number, b: any) => [number, number, number];
    readonly simulator_apply: (a: number, b: any) => [number, number];
    readonly simulator_deploymentHistory: (a: number) => [number, number, number];
    readonly simulator_history: (a: number) => [number, number, number];
    readonly simulator_new: (a: any) => [number, number, number];
    readonly simulator_preview: (a: number, b: any, c: any, d: any) => [number, number, number];
    readonly simulator_ranking: (a: number, b: any, c: any) => [number, number, number];
    readonly simulator_scenario: (a: number) => [number, number, number];
    readonly simulator_state: (a: number) => [number, number, number];
    readonly simulator_step: (a: number) => number;
    readonly simulator_trace: (a: number, b: any) => [number, number, number];
    readonly slowStart: (a: any, b: any, c: any) => [number, number, number];
    readonly store_deleteOwner: (a: number, b: any, c: any) => [number, number, number];
    readonly store_deletePod: (a: number, b: any, c: any) => [number, number, number];
    readonly store_new: (a: any) => [number, number, number];
    readonly store_onOwnerEvent: (a: number, b: any) => [number, number, number];
    readonly store_onPodEvent: (a: number, b: any) => [number, number, number];
    readonly store_planFor: (a: number, b: any, c: any, d: any) => [number, number, number];
    readonly store_size: (a: number) => [number, number, number];
    readonly store_upsertOwner: (a: number, b: any) => [number, number];
    readonly store_upsertPod: (a: number, b: any) => [number, number];
    readonly upstreamLess: (a: any, b: any, c: any, d: any, e: any) => [number, number, number];
    readonly version: () => [number, number];
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
