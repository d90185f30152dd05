// The typed API over the wasm binding. The only work done here is what JavaScript must
// do before values cross: `Date` fields (as @kubernetes/client-node returns them) become
// RFC 3339 strings; objects without Dates are passed as they are. Every decision is the
// engine's.

import * as raw from "./wasm/replicore_wasm.js";
import type {
  CallResult,
  ClaimOutcome,
  Completion,
  Config,
  CreatePlan,
  EventDecision,
  Expectations,
  ExpectationsChange,
  Explanation,
  ExplainOptions,
  LabelSelector,
  SlowStartResult,
  StatusInput,
  WrittenStatus,
  Manage,
  Pod,
  RankOptions,
  RankedPod,
  ReplicaSet,
  ReplicoreError,
  SyncInput,
  SyncOutcome,
  SyncPlan,
  Time,
  WatchEvent,
} from "./types.js";

export type * from "./types.js";

// ---------------------------------------------------------------------------------------
// Dates to strings, copying only what changes

function time<T>(v: T | Date): T | string {
  return v instanceof Date ? v.toISOString() : v;
}

type Meta = { creationTimestamp?: unknown; deletionTimestamp?: unknown } | undefined;

function meta<M extends Meta>(m: M): M {
  if (!m || !(m.creationTimestamp instanceof Date || m.deletionTimestamp instanceof Date)) return m;
  return { ...m, creationTimestamp: time(m.creationTimestamp), deletionTimestamp: time(m.deletionTimestamp) };
}

function conditions<C extends { lastTransitionTime?: unknown }>(cs: C[] | undefined | null): C[] | undefined | null {
  if (!cs || !cs.some((c) => c.lastTransitionTime instanceof Date)) return cs;
  return cs.map((c) => ({ ...c, lastTransitionTime: time(c.lastTransitionTime) }));
}

function withStatusConditions<O extends { metadata?: Meta; status?: { conditions?: Array<{ lastTransitionTime?: unknown }> | null } }>(
  o: O,
): O {
  if (o === null || typeof o !== "object") return o;
  const m = meta(o.metadata);
  const cs = o.status ? conditions(o.status.conditions) : undefined;
  if (m === o.metadata && (!o.status || cs === o.status.conditions)) return o;
  const out = { ...o, metadata: m };
  if (o.status && cs !== o.status.conditions) out.status = { ...o.status, conditions: cs };
  return out;
}

/** A pod with its `Date` fields as strings (the same object when it has none). */
export function wirePod<P extends Pod>(p: P): P {
  return withStatusConditions(p as never) as P;
}

/** An owner with its `Date` fields as strings (the same object when it has none). */
export function wireOwner<R extends ReplicaSet>(r: R): R {
  return withStatusConditions(r as never) as R;
}

function wireList<T>(xs: T[] | undefined, f: (x: T) => T): T[] | undefined {
  if (!Array.isArray(xs)) return xs;
  let out: T[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as T;
    const y = f(x);
    if (y !== x) {
      out ??= xs.slice();
      out[i] = y;
    }
  }
  return out ?? xs;
}

function wireExpectations(e: Expectations | undefined): Expectations | undefined {
  return e && e.timestamp instanceof Date ? { ...e, timestamp: time(e.timestamp) } : e;
}

/** A sync input with every `Date` as an RFC 3339 string. */
export function wireInput(input: SyncInput): SyncInput {
  if (input === null || typeof input !== "object") return input;
  return {
    ...input,
    now: time(input.now),
    owner: wireOwner(input.owner),
    otherOwners: wireList(input.otherOwners, wireOwner),
    pods: wireList(input.pods, wirePod),
    expectations: wireExpectations(input.expectations),
  };
}

function wireItem(item: unknown): unknown {
  if (item === null || typeof item !== "object") return item;
  const o = item as { kind?: string; items?: unknown[] };
  if (Array.isArray(o.items)) return { ...o, items: o.items.map(wireItem) };
  return withStatusConditions(o as never);
}

// ---------------------------------------------------------------------------------------
// The API

const plans = new WeakMap<object, { input: SyncInput; config?: Config }>();

/** The package (and engine) version. */
export function version(): string {
  return raw.version();
}

/**
 * What one sync will do: claims (adopt/release patches), the manage step (creates in
 * slow-start batches, or ranked deletions), and the expectations to record first.
 */
export function plan(input: SyncInput, config?: Config): SyncPlan {
  const wired = wireInput(input);
  const p = raw.plan(wired, config) as SyncPlan;
  plans.set(p, { input: wired, config });
  return p;
}

/** `plan` from JSON text (a host holding text need not parse it). */
export function planJson(text: string, config?: Config): SyncPlan {
  return raw.planJson(text, config) as SyncPlan;
}

function contextOf(p: SyncPlan): { input: SyncInput; config?: Config } {
  const ctx = plans.get(p);
  if (!ctx) {
    const e = new Error(
      "complete: this plan was not made by plan() of this module (use completeInput(input, outcome, config) for plans made elsewhere)",
    ) as ReplicoreError;
    e.code = "UNKNOWN_PLAN";
    e.path = "plan";
    throw e;
  }
  return ctx;
}

/** The manage step once the claims are done (equal to `plan.manage` if all went as planned). */
export function manageAfterClaims(p: SyncPlan, claims: ClaimOutcome): Manage {
  if (p.claims.length === 0) return p.manage;
  const { input, config } = contextOf(p);
  return raw.manageAfterClaims(input, claims, config) as Manage;
}

/** What the host's calls mean: status to write, expectation corrections, events, requeue. */
export function complete(p: SyncPlan, outcome: SyncOutcome): Completion {
  const { input, config } = contextOf(p);
  return raw.complete(input, outcome, config) as Completion;
}

/** `complete` for a plan of `input` made elsewhere (plans are deterministic). */
export function completeInput(input: SyncInput, outcome: SyncOutcome, config?: Config): Completion {
  return raw.complete(wireInput(input), outcome, config) as Completion;
}

/**
 * How many create calls the next slow-start batch has, given the results so far;
 * `null` when slow start is over (all done, or a batch had a failure).
 */
export function nextBatch(create: CreatePlan, resultsSoFar: CallResult[]): number | null {
  return (raw.nextBatch(create, resultsSoFar) as number | undefined) ?? null;
}

/** The scale-down order, first to go first, each pod with the rule that placed it. */
export function rankPods(pods: Pod[], options: RankOptions): RankedPod[] {
  const related = options.related ? wireList(options.related, wirePod) : undefined;
  return raw.rankPods(wireList(pods, wirePod), { ...options, now: time(options.now), related }) as RankedPod[];
}

/** What the CLI prints, as data: `list` is what `kubectl get rs,pods -o json` prints. */
export function explain(list: unknown, options: ExplainOptions): Explanation {
  return raw.explain(wireItem(list), { ...options, now: time(options.now) }) as Explanation;
}

/** `explain` from JSON text. */
export function explainJson(text: string, options: ExplainOptions): Explanation {
  return raw.explainJson(text, { ...options, now: time(options.now) }) as Explanation;
}

/** Which owner keys a pod event enqueues (now or later) and which observations it makes. */
export function onPodEvent(event: WatchEvent<Pod>, owners: ReplicaSet[], config?: Config): EventDecision {
  const e =
    event.type === "updated"
      ? { ...event, old: wirePod(event.old), object: wirePod(event.object) }
      : { ...event, object: wirePod(event.object) };
  return raw.onPodEvent(e, wireList(owners, wireOwner), config) as EventDecision;
}

/** The owner-event rules (an added, updated or deleted owner). */
export function onOwnerEvent(event: WatchEvent<ReplicaSet>): EventDecision {
  const e =
    event.type === "updated"
      ? { ...event, old: wireOwner(event.old), object: wireOwner(event.object) }
      : { ...event, object: wireOwner(event.object) };
  return raw.onOwnerEvent(e) as EventDecision;
}

/** The expectations after applying `changes` at `now` (null = no record). */
export function applyExpectations(current: Expectations, changes: ExpectationsChange[], now: Time): Expectations {
  return raw.applyExpectations(wireExpectations(current) ?? null, changes, time(now)) as Expectations;
}

/** nothing outstanding, or expired (older than 5 minutes). */
export function expectationsSatisfied(current: Expectations, now: Time): boolean {
  return raw.expectationsSatisfied(wireExpectations(current) ?? null, time(now));
}

/** Is `e` an error thrown by the engine (with `code` and `path`)? */
export function isReplicoreError(e: unknown): e is ReplicoreError {
  return e instanceof Error && typeof (e as Partial<ReplicoreError>).code === "string" && typeof (e as Partial<ReplicoreError>).path === "string";
}

/** Does the label selector match the labels? (nil = nothing, `{}` = everything; invalid throws) */
export function selectorMatches(selector: LabelSelector | null, labels: Record<string, string> | null | undefined): boolean {
  return raw.selectorMatches(selector, labels ?? null);
}

/** upstream's calculateStatus over the given active pods (R-80..R-82). */
export function calculateStatus(input: StatusInput, config?: Config): WrittenStatus {
  return raw.calculateStatus(
    {
      ...input,
      now: time(input.now),
      owner: wireOwner(input.owner),
      activePods: wireList(input.activePods, wirePod),
    },
    config,
  ) as WrittenStatus;
}

/** How a slow start of `count` calls goes when the calls at `failedCalls` (0-based) fail. */
export function slowStart(count: number, initialBatchSize: number, failedCalls: number[]): SlowStartResult {
  return raw.slowStart(count, initialBatchSize, Uint32Array.from(failedCalls)) as SlowStartResult;
}

/** upstream's comparator on two pods with their co-location ranks (cross-checking only). */
export function upstreamLess(a: Pod, rankA: number, b: Pod, rankB: number, options: RankOptions): boolean {
  return raw.upstreamLess(wirePod(a), rankA, wirePod(b), rankB, { now: time(options.now), featureGates: options.featureGates });
}
