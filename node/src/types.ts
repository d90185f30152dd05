// The types that cross the boundary. Inputs are Kubernetes objects in the wire format;
// every field the engine does not read may be present (V1Pod and V1ReplicaSet from
// @kubernetes/client-node are assignable as they are). Outputs mirror the Rust types
// (serde, camelCase) exactly; `core/src/*.rs` holds the field documentation.

import type { ApiError, FeatureGates } from "./generated/index.js";

/** An instant: an RFC 3339 string, or a `Date` as @kubernetes/client-node returns. */
export type Time = string | Date;

// ---------------------------------------------------------------------------------------
// Kubernetes objects (inputs)

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time | null;
  deletionTimestamp?: Time | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
}

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: Time | null;
}

export interface ContainerStatus {
  name: string;
  restartCount: number;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    nodeName?: string;
    initContainers?: Array<{ name: string; restartPolicy?: string }>;
  };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

/** A ReplicaSet, or any owner of the same shape (ReplicationController, a custom resource). */
export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    replicas?: number;
    minReadySeconds?: number;
    selector?: LabelSelector | null;
    template?: {
      metadata?: {
        labels?: Record<string, string>;
        annotations?: Record<string, string>;
        finalizers?: string[];
      };
      spec?: object;
    };
  };
  status?: ReplicaSetStatus;
}

// ---------------------------------------------------------------------------------------
// Configuration

// FeatureGates: generated from the Rust type (see the end of this file).

export interface OwnerKind {
  apiVersion: string;
  kind: string;
}

/** Engine configuration; every field defaults to kube-controller-manager v1.36. */
export interface Config {
  /** Creates or deletes per sync (upstream 500). */
  burstReplicas?: number;
  ownerKind?: OwnerKind;
  featureGates?: Partial<FeatureGates>;
  /** `"1.30"`: LogarithmicScaleDown can only be off before 1.31. */
  emulationVersion?: string;
}

// ---------------------------------------------------------------------------------------
// Expectations

export interface ExpectationsRecord {
  add: number;
  del: number;
  timestamp: Time;
  deletionKeys?: string[];
}

/** The expectations of one owner key; `null` when nothing is recorded. */
export type Expectations = ExpectationsRecord | null;

export type ExpectationsChange =
  | { op: "expectCreations"; count: number }
  | { op: "expectDeletions"; keys: string[] }
  | { op: "lowerCreations"; count: number }
  | { op: "deletionObserved"; key: string }
  | { op: "creationObserved" }
  | { op: "delete" }
  | { op: "set"; add: number; del: number }
  | { op: "lower"; add: number; del: number }
  | { op: "raise"; add: number; del: number };

// ---------------------------------------------------------------------------------------
// A sync: input, plan, outcome, completion

export interface SyncInput {
  /** The controller clock. */
  now: Time;
  /** The owner as the host's cache holds it. */
  owner: ReplicaSet;
  /** Other owners in the cache (siblings under the same Deployment matter). */
  otherOwners?: ReplicaSet[];
  /** The pods the cache holds; the engine picks the owner's and the namespace's orphans. */
  pods?: Pod[];
  expectations?: Expectations;
  /** False when the informers have not yet seen this owner's own writes. */
  cacheIsFresh?: boolean;
}

export type Halt = { reason: "invalidSelector"; message: string } | { reason: "staleCache" };

export type Idle = "inSync" | "expectationsPending" | "ownerTerminating" | "claimFailed" | "halted";

export interface ClaimAction {
  kind: "adopt" | "release";
  namespace: string;
  name: string;
  uid: string;
  /** Always `application/strategic-merge-patch+json`, adopt and release, as upstream's `PatchPod` sends them. */
  patchType: string;
  patch: Record<string, unknown>;
  podIndex: number;
}

export type RankRule =
  | "unassigned"
  | "phase"
  | "readiness"
  | "deletionCost"
  | "coLocation"
  | "readyTime"
  | "readyTimeUid"
  | "restarts"
  | "sidecarRestarts"
  | "creationTime"
  | "creationTimeUid"
  | "tieBreak"
  | "intransitive";

export interface RankFacts {
  node: string;
  phase: string;
  ready: boolean;
  deletionCost: number;
  /** Active related pods on the same node. */
  colocated: number;
  readyBucket?: number;
  restarts: number;
  sidecarRestarts: number;
  creationBucket?: number;
}

export interface Victim {
  namespace: string;
  name: string;
  uid: string;
  podIndex: number;
  /** The rule that placed it before the next pod; null for the last. */
  rule: RankRule | null;
  facts: RankFacts;
}

export interface CreatePlan {
  count: number;
  /** Slow-start batches if every call succeeds: 1, 2, 4, … */
  batches: number[];
  /** The pod to POST for every call. */
  pod: Record<string, unknown>;
  expectations: ExpectationsChange;
  /** Set when every create fails before any call (a template without labels). */
  refused?: string;
}

export interface DeletePlan {
  victims: Victim[];
  expectations: ExpectationsChange;
}

export type Manage =
  | { action: "nothing"; why: Idle }
  | ({ action: "create" } & CreatePlan)
  | ({ action: "delete" } & DeletePlan);

export interface SyncPlan {
  key: string;
  now: string;
  halt?: Halt;
  owned: number;
  desired: number;
  claims: ClaimAction[];
  needsOwnerRecheck: boolean;
  manage: Manage;
  /** What the later steps need from the input, as plain data (empty when halted). */
  basis: PlanBasis;
}

/** What `complete` needs besides the host's results: the owner, the configuration, facts. */
export interface PlanBasis {
  owner: ReplicaSet;
  config: Config;
  needsSync: boolean;
  terminating: number;
  claimed: PodTally;
  adoptions: AdoptionFacts[];
  /** The pods to rank again should an adoption fail while the owner has too many pods. */
  reserve?: { candidates: Pod[]; candidateIndices: number[]; related: Pod[] };
}

/** over claimed active pods. */
export interface PodTally {
  count: number;
  fullyLabeled: number;
  ready: number;
  available: number;
  /** When the nearest ready pod becomes available (RFC 3339). */
  availableAt?: string;
}

/** A planned adoption's pod: its index in the input and its status facts. */
export interface AdoptionFacts {
  podIndex: number;
  fullyLabeled: boolean;
  ready: boolean;
  available: boolean;
  availableAt?: string;
}

// ApiError: generated from the Rust type (see the end of this file).

export type CallResult =
  | { result: "ok"; name?: string }
  | ({ result: "error" } & ApiError)
  | { result: "skipped" };

export type LiveOwner = { found: ReplicaSet } | { failed: ApiError };

export interface ClaimOutcome {
  liveOwner?: LiveOwner;
  results: CallResult[];
}

export interface SyncOutcome {
  claims?: ClaimOutcome;
  /** One result per create call, in the order issued. */
  creates?: CallResult[];
  /** One result per victim, in the plan's order. */
  deletes?: CallResult[];
}

export interface WrittenCondition {
  type: string;
  status: string;
  lastTransitionTime: string | null;
  reason?: string;
  message?: string;
}

/** A status as the engine writes it (Go's omitempty rules). */
export interface WrittenStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: WrittenCondition[];
}

export type Requeue =
  | { kind: "done" }
  | { kind: "after"; after: number }
  | { kind: "rateLimited"; error: string };

export interface KubeEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface Completion {
  manage: Manage;
  created: number;
  createCalls: number;
  createBatches: number[];
  deleted: number;
  /** Corrections to the expectations recorded before acting. */
  expectations: ExpectationsChange[];
  /** The status to write (absent: no write). Retry once on conflict. */
  status?: WrittenStatus;
  error?: string;
  /** What to do with the key once the status write (if any) succeeded. */
  requeue: Requeue;
  events: KubeEvent[];
}

// ---------------------------------------------------------------------------------------
// Ranking, explanation, watch events

export interface RankOptions {
  now: Time;
  /** Pods whose active members count toward co-location; default: the pods themselves. */
  related?: Pod[];
  featureGates?: Partial<FeatureGates>;
}

export interface RankedPod {
  namespace: string;
  name: string;
  /** Index into the pods given. */
  index: number;
  rule: RankRule | null;
  ruleText?: string;
  facts: RankFacts;
}

export interface ExplainOptions {
  now: Time;
  /** Preview a scale-down to this many replicas. */
  replicas?: number;
  /** Only this ReplicaSet (`name` or `namespace/name`). */
  owner?: string;
  config?: Config;
}

/** A rollout forecast's settings; each defaults to the engine's (seed 1, 10 s start-up, no failures, 1 s resolution, one hour). */
export interface ForecastRequest {
  seed?: number;
  startupSeconds?: number;
  startupJitterSeconds?: number;
  failure?: { kind: "none" } | { kind: "neverReadyFraction"; fraction: number } | { kind: "newTemplateFails" };
  intervalSeconds?: number;
  maxSeconds?: number;
}

/** The options of `explainText` / `explainReport`: explain, and optionally forecast. */
export interface ReportOptions extends ExplainOptions {
  /** Only this Deployment (`name` or `namespace/name`) and the ReplicaSets it controls. */
  deployment?: string;
  forecast?: ForecastRequest;
}

export interface VictimExplanation extends RankFacts {
  position: number;
  namespace: string;
  name: string;
  rule: RankRule | null;
  ruleText: string | null;
  readySince?: string;
}

export type SyncAction =
  | { action: "nothing"; why: Idle }
  | { action: "create"; count: number; batches: number[]; refused?: string }
  | { action: "delete"; victims: VictimExplanation[] };

export interface OwnerExplanation {
  namespace: string;
  name: string;
  controller?: string;
  desired: number;
  selector: string;
  minReadySeconds: number;
  pods: { active: number; ready: number; available: number; terminating: number };
  halt?: Halt;
  adopt: string[];
  release: string[];
  sync: SyncAction;
  scaleDown?: { replicas: number; active: number; burst: number; victims: VictimExplanation[] };
}

export interface Explanation {
  now: string;
  replicaSets: number;
  pods: number;
  ignored: number;
  owners: OwnerExplanation[];
}

export type WatchEvent<T> =
  | { type: "added"; object: T }
  | { type: "updated"; old: T; object: T }
  | { type: "deleted"; object: T };

/** A watch event for a {@link Store}: the store knows the previous state, so `old` is optional. */
export type StoreEvent<T> =
  | { type: "added"; object: T }
  | { type: "updated"; object: T; old?: T }
  | { type: "deleted"; object: T };

export interface EventDecision {
  enqueue: string[];
  enqueueAfter: Array<{ key: string; after: number }>;
  observations: Array<{ ownerKey: string; change: ExpectationsChange }>;
}

/** Every error thrown by the engine: what was wrong, and where. */
export interface ReplicoreError extends Error {
  /** `MALFORMED`, `NEGATIVE`, `MISSING`, `DUPLICATE_POD`, `INVALID_CONFIG`, `OUTCOME_MISMATCH`, … */
  code: string;
  /** The JSON path of the offending field, e.g. `pods[3].status.conditions[0].lastTransitionTime`. */
  path: string;
}

export interface StatusInput {
  now: Time;
  owner: ReplicaSet;
  /** The owner's claimed active pods. */
  activePods?: Pod[];
  /** How many terminating pods it controls. */
  terminatingPods?: number;
  /** The error manageReplicas returned, if any. */
  manageError?: string | null;
}

export interface SlowStartResult {
  successes: number;
  calls: number;
  batches: number[];
  firstFailure: number | null;
}

// ---------------------------------------------------------------------------------------
// Event correlation (core/src/event_correlation.rs: client-go's EventCorrelator)

/** The object an Event is about (`v1.ObjectReference`). */
export interface EventObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** Who records (`v1.EventSource`); kube-controller-manager's is `{component: "replicaset-controller"}`. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** What a controller asks to record. */
export interface EventToRecord {
  involvedObject: EventObjectReference;
  type: "Normal" | "Warning";
  reason?: string;
  message?: string;
  source?: EventSource;
}

/** A `v1.Event` as the recorder writes it (timestamps in whole seconds). */
export interface RecordedEvent {
  metadata: { name: string; namespace: string };
  involvedObject: EventObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  reportingComponent: string;
  reportingInstance: string;
}

/** The strategic merge patch of a repeat (`message` absent when empty). */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message?: string;
}

/**
 * What to do with one event: POST `event`; PATCH (`application/strategic-merge-patch+json`)
 * `namespace/name` with `patch`, and POST `event` instead if that answers 404; or nothing
 * (the per-object spam filter has no token left).
 */
export type Correlation =
  | { action: "create"; event: RecordedEvent }
  | { action: "patch"; namespace: string; name: string; patch: EventPatch; event: RecordedEvent }
  | { action: "drop"; reason: "spamFilter" };

/** The correlator's state as a plain value (three LRU caches of at most 4096 entries each). */
export interface EventCorrelatorState {
  aggregates?: Array<{ key: string; messages: string[]; lastTimestamp: string }>;
  observations?: Array<{ key: string; count: number; firstTimestamp: string; name: string }>;
  /** `tokens` is the decimal text of a double, so that it round-trips exactly. */
  spam?: Array<{ key: string; tokens: string; last: string }>;
  lastNameNanos?: number;
}

/** How many entries each cache of a correlator holds. */
export interface EventCorrelatorSize {
  aggregates: number;
  observations: number;
  spam: number;
}

// ---------------------------------------------------------------------------------------
// Generated from the Rust types by ts-rs (scripts/gen-types.sh, node/src/generated/):
// never restated here. The Deployment controller's step machine and handlers.

export type {
  ApiCall,
  ApiError,
  ApiResult,
  DeploymentEvent,
  DeploymentSync,
  DeploymentSyncInput,
  Duration,
  FeatureGates,
  KubeObject,
  ProgressRequeue,
  QueueAction,
  Step,
  SyncDone,
  SyncError,
} from "./generated/index.js";
