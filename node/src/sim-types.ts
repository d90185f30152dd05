// The types of the seeded cluster simulator (`Simulator` in sim.ts, crate `replicore-sim`
// in sim/). Everything here is plain JSON: a `Scenario` (with the edits applied so
// far, `sim.scenario()`) can be put in a URL and replayed to the identical state.
//
// Time in the simulator is virtual: `t` fields are milliseconds since the scenario's
// start; `at` / `now` fields are the same instant as RFC 3339 (from `Scenario.start`).

import type {
  Config,
  EventDecision,
  ExpectationsChange,
  ExpectationsRecord,
  FeatureGates,
  KubeEvent,
  RankedPod,
  RankFacts,
  RankRule,
  Requeue,
  WrittenCondition,
  WrittenStatus,
} from "./types.js";
import type { DeploymentEvent, ProgressRequeue, QueueAction, StepBounds, StepCalls, StepCounts, SyncError } from "./generated/index.js";

/** A delay in virtual milliseconds: exact, or drawn uniformly from `[min, max]` by the seeded RNG. */
export type DelayMs = number | [min: number, max: number];

/** How long things take in the simulated cluster (all optional; defaults in brackets). */
export interface Delays {
  /** API server write → the controller's informer sees the watch event [[20, 80]]. */
  watch?: DelayMs;
  /** Pod created → bound to a node by the scheduler [[50, 300]]. */
  schedule?: DelayMs;
  /** Bound → phase Running (image pull, container start) [[500, 2000]]. */
  start?: DelayMs;
  /** Running → condition Ready=True (readiness probe) [[500, 3000]]. */
  ready?: DelayMs;
  /** Deletion requested → the pod is gone from the API server (graceful termination) [[200, 1000]]. */
  terminate?: DelayMs;
  /** A crash-looping pod: time between restarts [[2000, 6000]]. */
  crash?: DelayMs;
  /** A flapping pod: time between readiness changes [[1000, 5000]]. */
  flap?: DelayMs;
  /** The informer relists (reconciling what dropped events missed) every this many ms [30000]. */
  relist?: number;
  /**
   * The owner informer resyncs (every owner redelivered as an update, which enqueues it)
   * every this many ms; 0 = never [0]. kube-controller-manager resyncs every 12 h or more:
   * a key whose expectations expired (after a lost watch event) waits for it or for any
   * other event of its pods.
   */
  resync?: number;
}

/** Faults injected by the seeded RNG; probabilities are in [0, 1]. All default to 0. */
export interface Faults {
  /** Probability that a watch event is dropped (the cache catches up at the next relist). */
  watchDrop?: number;
  /** Probability that a pod create is refused by admission (`InternalError`). */
  createFailure?: number;
  /** Probability that a new pod crash-loops (restarts keep rising, never Ready). */
  crashLoop?: number;
  /** Probability that a new pod's readiness flaps (Ready ↔ not Ready). */
  readinessFlap?: number;
}

/** An owner (ReplicaSet) to create at the start; the first one is the primary owner. */
export interface ScenarioOwner {
  /** Default `web`. */
  name?: string;
  /** Default `default`. */
  namespace?: string;
  /** spec.replicas. */
  replicas: number;
  /** spec.minReadySeconds [0]. */
  minReadySeconds?: number;
}

/** One change to the running simulation (a mutator call, or a scripted edit). */
export type Edit =
  /** spec.replicas of an owner (default: the primary owner). */
  | { op: "setReplicas"; replicas: number; owner?: string }
  /** The namespace's pod-count quota (non-terminated pods); `null` = unlimited. */
  | { op: "setQuota"; quota: number | null }
  /**
   * Feature gates of the controller (merged into the current ones). Turning
   * LogarithmicScaleDown off also sets `emulationVersion` to `"1.30"` (the gate is locked
   * on from 1.31), so the pre-1.31 order can be compared.
   */
  | { op: "setFeatureGates"; featureGates: Partial<FeatureGates> }
  /** Controller configuration (burstReplicas, emulationVersion, …), merged. */
  | { op: "setConfig"; config: Config }
  /** Fault probabilities (replacing the current ones); `{}` stops all faults. */
  | { op: "setFaults"; faults: Faults }
  /** Delays (merged into the current ones). */
  | { op: "setDelays"; delays: Delays }
  /**
   * Edit a pod in the API server (as a user or the kubelet would): phase (`Pending`,
   * `Running`, `Succeeded`, `Failed`, `Unknown`), Ready condition, restart count,
   * `controller.kubernetes.io/pod-deletion-cost` (`null` removes the annotation).
   * A pod whose phase or readiness was edited no longer follows the kubelet model (no
   * more start, ready, crash or flap steps; it still goes away once deleted).
   * `namespace` defaults to the primary owner's.
   */
  | {
      op: "editPod";
      pod: string;
      namespace?: string;
      phase?: string;
      ready?: boolean;
      restarts?: number;
      deletionCost?: number | null;
    }
  /** Add a schedulable node. */
  | { op: "addNode"; node: string }
  /** Remove a node: the node disappears, its pods become phase `Failed` (node lost) and are removed after the termination delay. */
  | { op: "removeNode"; node: string }
  /** Delete a pod (as `kubectl delete pod`): it terminates and goes away. */
  | { op: "killPod"; pod: string; namespace?: string }
  /** Deployment scenarios: a new template, the container image changed (`kubectl set image`); `fail` makes that image's pods fail. */
  | { op: "setImage"; image: string; fail?: SimTemplateFailure }
  /** Deployment scenarios: the current template's new pods fail from now on [`neverReady`]. */
  | { op: "failTemplate"; failure?: SimTemplateFailure }
  /** Deployment scenarios: `kubectl scale deploy` (during a rollout the engine scales proportionally). */
  | { op: "scaleDeployment"; replicas: number }
  /** Deployment scenarios: `kubectl rollout pause`. */
  | { op: "pauseDeployment" }
  /** Deployment scenarios: `kubectl rollout resume`. */
  | { op: "resumeDeployment" }
  /**
   * Deployment scenarios: `kubectl rollout undo [--to-revision]`, client-side as kubectl
   * does it (the revision's ReplicaSet template without the pod-template-hash label, and
   * its annotations, copied into the Deployment). No revision: the previous one.
   */
  | { op: "undoDeployment"; revision?: number };

/** How the pods of a failing template fail: running and never Ready, or crash-looping. */
export type SimTemplateFailure = "neverReady" | "crashLoop";

/** `intstr.IntOrString`: `3` or `"25%"`. */
export type SimIntOrString = number | string;

/** Which pods of templates other than the first never become ready (the rollout forecast's model). */
export type SimFailureModel =
  | { kind: "none" }
  | { kind: "neverReadyFraction"; fraction: number }
  | { kind: "newTemplateFails" };

/** A Deployment to create at the start instead of owners: the Deployment controller runs it through the engine. */
export interface ScenarioDeployment {
  /** Default `web` (selector and template label `app=<name>`). */
  name?: string;
  /** Default `default`. */
  namespace?: string;
  /** spec.replicas. */
  replicas: number;
  /** [`RollingUpdate`] or `Recreate`. */
  strategy?: "RollingUpdate" | "Recreate";
  /** RollingUpdate only [`"25%"`]. */
  maxSurge?: SimIntOrString;
  /** RollingUpdate only [`"25%"`]. */
  maxUnavailable?: SimIntOrString;
  /** [0] */
  minReadySeconds?: number;
  /** [600] */
  progressDeadlineSeconds?: number;
  /** [10] */
  revisionHistoryLimit?: number;
  /** The first template's container image [`registry.k8s.io/pause:3.10`]. */
  image?: string;
  paused?: boolean;
  /** Failure model for templates other than the first (seeded from the scenario's seed). */
  failure?: SimFailureModel;
}

/** An edit applied at a virtual time (ms since start). */
export type TimedEdit = Edit & { at: number };

/** Everything a simulation starts from. Serialisable; `sim.scenario()` returns it with the edits made so far. */
export interface Scenario {
  /** Seed of the RNG (an integer, 0 ≤ seed < 2^53). Same scenario + seed = identical run. */
  seed: number;
  /** The virtual clock's start instant [`2026-01-01T00:00:00Z`]. */
  start?: string;
  /**
   * The owners to simulate (default: one, `default/web` with `replicas`). Owners get a
   * selector `app=<name>`, a template with those labels, and a controlling Deployment of
   * the same name (as ReplicaSets usually have: its pods count for co-location).
   */
  owners?: ScenarioOwner[];
  /** Shorthand for `owners: [{ replicas }]` when neither `owners` nor `cluster` is given [0]. */
  replicas?: number;
  /** Node names, or a count of nodes named `node-1` … (at most 10,000) [3]. */
  nodes?: string[] | number;
  delays?: Delays;
  faults?: Faults;
  /** Max non-terminated pods in the namespace (a ResourceQuota on `pods`); absent/null = unlimited. */
  quota?: number | null;
  /** Controller configuration (burstReplicas [500], featureGates, emulationVersion). */
  config?: Config;
  /**
   * The initial cluster as `kubectl get rs,pods -o json` prints it (a v1 List). Its
   * ReplicaSets become the owners (first = primary, unless `owners` is also given) and its
   * pods the initial pods (their nodes are added to `nodes`). Pods keep their state; the
   * kubelet model only moves Pending pods on.
   */
  cluster?: unknown;
  /**
   * A Deployment instead of owners (not with `owners`, `replicas` or `cluster`): the
   * engine's Deployment controller makes its ReplicaSets, the ReplicaSet controller their
   * pods. Pod start-up time is `delays` (schedule + start + ready).
   */
  deployment?: ScenarioDeployment;
  /** Edits to apply at their virtual times (the user's actions, for replay). */
  edits?: TimedEdit[];
}

/** A node of the simulated cluster. */
export interface SimNode {
  name: string;
  /** Names of the non-terminated pods bound to it. */
  pods: string[];
}

/** A pod as the API server holds it, flattened for display. */
export interface SimPod {
  namespace: string;
  name: string;
  uid: string;
  /** Bound node; null while unscheduled. */
  node: string | null;
  /** `Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`. */
  phase: string;
  /** Condition Ready=True. */
  ready: boolean;
  /** When it last became Ready (RFC 3339), if ready. */
  readySince?: string;
  /** Available: ready for at least the owner's minReadySeconds. */
  available: boolean;
  /** creationTimestamp (RFC 3339); null when an imported pod has none. */
  created: string | null;
  /** Age in virtual milliseconds. */
  ageMs: number;
  /** Sum of container restart counts. */
  restarts: number;
  /** The pod-deletion-cost annotation (0 when absent or invalid). */
  deletionCost: number;
  /** Name of the controlling owner (same namespace), null for an orphan. */
  owner: string | null;
  /** Has a deletionTimestamp (going away). */
  terminating: boolean;
  /** Active in the controller's sense (not terminating, not Succeeded/Failed). */
  active: boolean;
  /** The kubelet model makes it crash-loop. */
  crashLooping: boolean;
  /** The kubelet model makes its readiness flap. */
  flapping: boolean;
  /** A failing template's pod: running, never Ready (present only when true). */
  neverReady?: boolean;
  resourceVersion: string;
  /** Whether the controller's informer cache currently holds it (false while a watch event is in flight or dropped). */
  inCache: boolean;
}

/** The work queue (client-go's rate-limited queue with delayed adds). */
export interface QueueState {
  /** Keys waiting to be processed, in order. */
  ready: string[];
  /** Keys being processed (at most one worker). */
  processing: string[];
  /** Delayed adds: key and the virtual time (ms) it becomes ready. */
  delayed: Array<{ key: string; t: number }>;
  /** Per-key failure counts of the exponential limiter (5 ms · 2^n, at most 1000 s). */
  failures: Record<string, number>;
  /** Tokens left in the overall bucket (10 qps, burst 100). */
  tokens: number;
}

/** One owner with its controller-side state. */
export interface SimOwner {
  namespace: string;
  name: string;
  /** `namespace/name`, the queue and expectations key. */
  key: string;
  uid: string;
  /** spec.replicas. */
  desired: number;
  minReadySeconds: number;
  /** status as last written by the controller. */
  status: WrittenStatus;
  /** The ReplicaFailure condition, when present. */
  replicaFailure: WrittenCondition | null;
  /** The controller's expectations for this key; null when none recorded. */
  expectations: ExpectationsRecord | null;
  /** Whether a sync may manage pods now (nothing outstanding, or expired after 5 minutes). */
  expectationsSatisfied: boolean;
  /** Counts from the API server's store (the truth, not the status). */
  counts: { active: number; ready: number; available: number; terminating: number };
}

/** A Kubernetes event the controller recorded, with its virtual time. */
export interface SimEvent extends KubeEvent {
  t: number;
  at: string;
  /** The owner key it is about. */
  owner: string;
}

/** A snapshot of the simulation. */
export interface SimState {
  /** Virtual time, ms since start. */
  t: number;
  /** Virtual time, RFC 3339. */
  now: string;
  /** The primary owner (first of `owners`). */
  owner: SimOwner;
  owners: SimOwner[];
  /** Every pod in the API server (terminating ones included), oldest first. */
  pods: SimPod[];
  nodes: SimNode[];
  queue: QueueState;
  /** The latest events (at most 100), oldest first. */
  events: SimEvent[];
  quota: number | null;
  /** The controller's effective configuration. */
  config: Required<Pick<Config, "burstReplicas">> & { featureGates: FeatureGates; emulationVersion?: string };
  faults: Faults;
  delays: Required<Delays>;
  /** Virtual time (ms) of the next pending event, null when nothing is scheduled. */
  nextEventT: number | null;
  /** Number of trace entries so far (pass to `trace(since)`). */
  traceLength: number;
  /** The Deployment with its ReplicaSets as lanes (Deployment scenarios only). */
  deployment?: SimDeployment;
}

/** A Deployment condition as the controller wrote it. */
export interface SimDeploymentCondition {
  /** `Progressing`, `Available`, `ReplicaFailure`. */
  type: string;
  status: "True" | "False" | "Unknown";
  lastUpdateTime: string | null;
  lastTransitionTime: string | null;
  /** E.g. `NewReplicaSetAvailable`, `ProgressDeadlineExceeded`, `DeploymentPaused`. */
  reason?: string;
  message?: string;
}

/** A Deployment's status (Go's omitempty: zero counts absent). */
export interface SimDeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: SimDeploymentCondition[];
  collisionCount?: number;
}

/** The rule that decided or limited a Deployment sync's step (the engine's reading, shared with the forecast). */
export interface DeploymentStep {
  t: number;
  /** `D-51`, `D-54`, `D-34, D-51`, … */
  rule: string;
  why: string;
  counts: StepCounts;
  bounds: StepBounds;
}

/** One ReplicaSet of the Deployment: a lane. */
export interface SimLane {
  name: string;
  key: string;
  /** `deployment.kubernetes.io/revision`. */
  revision: number | null;
  /** Of the Deployment's current template. */
  new: boolean;
  image: string;
  /** spec.replicas. */
  desired: number;
  /** The ReplicaSet's status as its controller wrote it. */
  statusReplicas: number;
  statusReady: number;
  statusAvailable: number;
  /** The store's pods of the ReplicaSet (the truth). */
  counts: { active: number; ready: number; available: number; terminating: number };
}

/** The Deployment as `state().deployment` shows it. */
export interface SimDeployment {
  namespace: string;
  name: string;
  key: string;
  uid: string;
  generation: number;
  replicas: number;
  strategy: "RollingUpdate" | "Recreate";
  /** maxSurge and maxUnavailable resolved to numbers (D-05..D-07). */
  maxSurge: number;
  maxUnavailable: number;
  /** The band: at most `maxPods` pods, at least `minAvailable` available (D-08). */
  maxPods: number;
  minAvailable: number;
  minReadySeconds: number;
  progressDeadlineSeconds?: number;
  revisionHistoryLimit?: number;
  paused: boolean;
  /** The current template's image. */
  image: string;
  /** The Deployment's revision annotation. */
  revision?: string;
  status: SimDeploymentStatus;
  /** Its ReplicaSets, oldest first. */
  lanes: SimLane[];
  /** Pods of all lanes (store truth): active and available. */
  pods: number;
  available: number;
  /** The new ReplicaSet has every replica available, no old pod is left, the generation observed. */
  complete: boolean;
  /** The last sync's step and the rule that decided or limited it. */
  lastStep?: DeploymentStep;
  /** Images whose pods fail, and how. */
  failingImages: Record<string, SimTemplateFailure>;
}

/** One lane in a `DeploymentSample`. */
export interface LaneSample {
  name: string;
  revision: number | null;
  new: boolean;
  desired: number;
  current: number;
  ready: number;
  available: number;
}

/** One point of the Deployment timeline (store truth), recorded when anything changed. */
export interface DeploymentSample {
  t: number;
  replicas: number;
  pods: number;
  available: number;
  terminating: number;
  maxPods: number;
  minAvailable: number;
  lanes: LaneSample[];
}

/** One API call of a Deployment sync. */
export interface DeploymentCallTrace {
  verb: "get" | "patch" | "create" | "update" | "delete";
  resource: "deployments" | "replicasets";
  subresource?: "status";
  name: string;
  /** spec.replicas sent (ReplicaSet creates and updates). */
  replicas?: number;
  ok: boolean;
  error?: string;
}

/** What one Deployment sync did, and which rule decided or limited the step. */
export interface DeploymentSyncTrace {
  key: string;
  calls: DeploymentCallTrace[];
  events: DeploymentEvent[];
  /** The error the sync returned (the key is requeued rate-limited, D-115). */
  error?: SyncError;
  /** The engine refused the input (no sync ran; the key is dropped). */
  invalid?: string;
  /** The progress check's requeue (D-78). */
  progress: ProgressRequeue;
  /** What the work queue did with the key (D-115). */
  queue: QueueAction;
  /** What the calls did to the ReplicaSets. */
  step: StepCalls;
  counts: StepCounts;
  bounds: StepBounds;
  rule: string;
  why: string;
}

/** One slow-start batch of a sync: how many calls, how many succeeded, the errors. */
export interface SimBatch {
  size: number;
  ok: number;
  failed: number;
  /** The error messages of the failed calls (e.g. quota exceeded). */
  errors: string[];
  /** Names of the pods created. */
  created: string[];
}

/** What one sync saw and decided. */
export interface SyncTrace {
  key: string;
  /** The inputs: cache contents as the engine was given them. */
  input: {
    desired: number;
    /** Pods in the controller's cache (any owner). */
    cachedPods: number;
    /** Active pods the owner claimed. */
    active: number;
    expectations: ExpectationsRecord | null;
    cacheIsFresh: boolean;
  };
  /** `nothing` (with why), `create` or `delete`. */
  action: "nothing" | "create" | "delete";
  /** For `nothing`: the engine's reason (`inSync`, `expectationsPending`, `ownerTerminating`, `claimFailed`, `staleCache`, `invalidSelector`). */
  why?: string;
  /** For `create`: the count planned and the batches if every call succeeds. */
  planned?: { count: number; batches: number[] };
  /** For `create`: the batches actually issued (slow start stops at a failing batch). */
  batches?: SimBatch[];
  /** For `delete`: the victims in order with the rule that placed each and the result. */
  victims?: Array<{ name: string; rule: RankRule | null; facts: RankFacts; ok: boolean; error?: string }>;
  /** Adoptions / releases performed. */
  claims?: Array<{ kind: "adopt" | "release"; name: string; ok: boolean }>;
  /** The expectations recorded before acting, and the corrections after. */
  expectationsRecorded: ExpectationsChange | null;
  expectationsCorrections: ExpectationsChange[];
  /** The status written (absent: no write). */
  status?: WrittenStatus;
  error?: string;
  requeue: Requeue;
  events: KubeEvent[];
}

/** Every decision of the simulation, in order. */
export type TraceEntry = { seq: number; t: number; at: string } & (
  | { kind: "sync"; sync: SyncTrace }
  /** A watch event delivered to the controller, and what the event rules decided. */
  | { kind: "watch"; object: "pod" | "owner" | "deployment"; event: "added" | "updated" | "deleted"; name: string; decision: EventDecision }
  /** A watch event lost (fault); the cache is off until the next relist. */
  | { kind: "watchDropped"; object: "pod" | "owner" | "deployment"; event: "added" | "updated" | "deleted"; name: string }
  /** The informer relisted: how many differences it delivered as events. */
  | { kind: "relist"; changes: number }
  /** The work queue: `add` (now), `addAfter`, `addRateLimited` (with the delay chosen), `forget` (a successful sync resets the key's backoff). */
  | { kind: "queue"; op: "add" | "addAfter" | "addRateLimited" | "forget"; key: string; delayMs?: number }
  /** The kubelet/scheduler moved a pod on. */
  | { kind: "kubelet"; pod: string; change: "scheduled" | "running" | "ready" | "notReady" | "restarted" | "gone"; node?: string }
  /** A mutator/edit was applied (a scripted edit that failed carries its error). */
  | { kind: "edit"; edit: Edit; error?: string }
  /** The Deployment controller's work queue (`drop`: D-115 gave up on the key). */
  | { kind: "deploymentQueue"; op: "add" | "addAfter" | "addRateLimited" | "forget" | "drop"; key: string; delayMs?: number }
  /** One Deployment sync. */
  | { kind: "deploymentSync"; sync: DeploymentSyncTrace }
);

/** One point of the timeline chart (store truth for the primary owner). */
export interface Sample {
  t: number;
  /** spec.replicas. */
  desired: number;
  /** Active pods. */
  current: number;
  ready: number;
  available: number;
  terminating: number;
}

/** The engine's scale-down order of an owner's active pods (first to go first). */
export interface SimRanking {
  /** Each pod with the rule that placed it before the next one. */
  pods: RankedPod[];
  featureGates: FeatureGates;
}

/** What a scale of an owner to `replicas` would delete now, per the engine. */
export interface ScalePreview {
  replicas: number;
  active: number;
  burst: number;
  /** The pods that would go, first to go first (all of them, even beyond one sync's burst). */
  victims: RankedPod[];
  /** How many of them the first sync deletes (min(victims, burst)). */
  firstSync: number;
}
