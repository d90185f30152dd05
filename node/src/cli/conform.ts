// `replicore conform DIR`: judges the engine, through the package's public API (the wasm
// build), against the vectors recorded from the upstream Go controller. A port of the
// Rust runner (tests/src/lib.rs); the rules are those of
// tests/conformance/vectors/README.md.
//
// Each kind has a judge that returns normally or throws a `Mismatch` carrying the first
// difference found (field, expected, got). For `sync` the runner plays the host and the
// fake API server: it executes the engine's plan against the vector's injected failures
// and hands the results to `complete`.

import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  adoptionAllowed,
  applyExpectations,
  calculateStatus,
  complete,
  expectationsSatisfied,
  manageAfterClaims,
  nextBatch,
  plan,
  rankPods,
  selectorMatches,
  slowStart,
  upstreamLess,
  type ApiError,
  type CallResult,
  type ClaimOutcome,
  type Config,
  type Expectations,
  type ExpectationsChange,
  type FeatureGates,
  type LabelSelector,
  type LiveOwner,
  type Pod,
  type ReplicaSet,
  type Requeue,
  type SyncOutcome,
} from "../node.js";
import { parseCommandArgs } from "./args.js";
import { CliError, emit, parseJson, readInput, usageError } from "./io.js";
import { formatNanos, parseNanos, secondsToNanos } from "./nanotime.js";

/** The six kinds of vectors, in report order. */
export const KINDS = ["rank", "sync", "status", "selector", "slowstart", "expectations"] as const;
export type Kind = (typeof KINDS)[number];

/** A failed case: what differed. */
export interface Failure {
  case: string;
  field: string;
  expected: string;
  got: string;
}

export function formatFailure(f: Failure): string {
  return `${f.case}: ${f.field}\n    expected: ${f.expected}\n    got:      ${f.got}`;
}

export interface KindReport {
  kind: Kind;
  passed: number;
  failures: Failure[];
}

/** A vector case as read from JSON (untyped: each judge reads the fields of its kind). */
type Json = any;

// ---------------------------------------------------------------------------------------
// Judging helpers

/** Thrown by `check` and friends: ends the judging of a case with its first difference. */
class Mismatch extends Error {
  constructor(readonly failure: Failure) {
    super(failure.field);
  }
}

function show(v: unknown): string {
  let s: string;
  if (typeof v === "string") s = JSON.stringify(v);
  else if (v === undefined) s = "None";
  else s = JSON.stringify(v) ?? String(v);
  return s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

function fail(name: string, field: string, expected: unknown, got: unknown): Mismatch {
  return new Mismatch({ case: name, field, expected: show(expected), got: show(got) });
}

/**
 * JSON equality as serde_json's `Value` has it: objects compare by their keys and values
 * in any order (an absent key is not a null one), arrays in order, numbers by value.
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function check(name: string, field: string, expected: unknown, got: unknown): void {
  if (!jsonEqual(expected, got)) throw fail(name, field, expected, got);
}

/** `v` if it is a number (Rust's `as_u64`/`as_i64`/`as_f64`), else null. */
function num(v: unknown): number | null {
  return typeof v === "number" ? v : null;
}

function bool(v: unknown): boolean | null {
  return typeof v === "boolean" ? v : null;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

/** A set as the Rust judge compares it (`BTreeSet`): sorted, without repeats. */
function sortedSet(xs: Iterable<string>): string[] {
  return [...new Set(xs)].sort();
}

/** The feature gates a vector names (the engine defaults the others, as the Rust judge does). */
function gates(v: Json): Partial<FeatureGates> {
  const out: Partial<FeatureGates> = {};
  for (const k of ["PodDeletionCost", "LogarithmicScaleDown", "DeploymentReplicaSetTerminatingReplicas", "StaleControllerConsistencyReplicaSet"] as const) {
    if (typeof v?.[k] === "boolean") out[k] = v[k];
  }
  return out;
}

function podName(p: Pod): string {
  return p.metadata?.name ?? "";
}

function nanos(name: string, field: string, t: unknown): bigint {
  const ns = typeof t === "string" ? parseNanos(t) : null;
  if (ns === null) throw fail(name, field, "an RFC 3339 time", t);
  return ns;
}

// ---------------------------------------------------------------------------------------
// Running

/** Finds `<kind>.json` or `<kind>.json.gz` in `dir`. */
export function vectorFile(dir: string, kind: Kind): string | undefined {
  return [`${kind}.json`, `${kind}.json.gz`].map((f) => join(dir, f)).find((p) => existsSync(p));
}

/** Reads a vector file (gzip or plain) as a JSON array of cases. */
export function loadCases(path: string): Json[] {
  const cases = parseJson(readInput(path));
  if (!Array.isArray(cases)) throw new CliError(`${path}: expected a JSON array of cases`);
  return cases;
}

/** Runs every kind found in `dir`. */
export function runDir(dir: string): KindReport[] {
  if (!existsSync(dir)) throw new CliError(`cannot read ${dir}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new CliError(`${dir} is not a directory`);
  const reports: KindReport[] = [];
  for (const kind of KINDS) {
    const path = vectorFile(dir, kind);
    if (path !== undefined) reports.push(runKind(kind, loadCases(path)));
  }
  if (reports.length === 0) throw new CliError(`no vector files in ${dir} (expected ${KINDS.map((k) => `${k}.json[.gz]`).join(", ")})`);
  return reports;
}

/** Judges every case of one kind. */
export function runKind(kind: Kind, cases: Json[]): KindReport {
  const report: KindReport = { kind, passed: 0, failures: [] };
  for (const c of cases) {
    const failure = judge(kind, c);
    if (failure) report.failures.push(failure);
    else report.passed++;
  }
  return report;
}

/** Judges one case of any kind: `null` when it passes. */
export function judge(kind: Kind, c: Json): Failure | null {
  const name = typeof c?.name === "string" ? c.name : "?";
  try {
    JUDGES[kind](c, name);
    return null;
  } catch (e) {
    if (e instanceof Mismatch) return e.failure;
    // What the Rust runner reports as a panic: the engine (or the judge) threw.
    const what = e instanceof Error ? `${(e as { code?: string }).code ?? e.name}: ${e.message}` : String(e);
    return { case: name, field: "exception", expected: "no exception", got: show(what) };
  }
}

const JUDGES: Record<Kind, (c: Json, name: string) => void> = {
  rank: judgeRank,
  sync: judgeSync,
  status: judgeStatus,
  selector: judgeSelector,
  slowstart: judgeSlowstart,
  expectations: judgeExpectations,
};

// ---------------------------------------------------------------------------------------
// selector, slowstart, expectations

function judgeSelector(c: Json, name: string): void {
  const want = c.expect;
  let error = false;
  let matches: boolean | null = null;
  try {
    matches = selectorMatches(c.selector as LabelSelector | null, c.labels as Record<string, string> | null);
  } catch (e) {
    // An invalid selector throws INVALID_SELECTOR; anything else is input the engine could not read.
    if ((e as { code?: string }).code !== "INVALID_SELECTOR") throw fail(name, "selector", "parsable input", (e as Error).message);
    error = true;
  }
  check(name, "error", bool(want.error), error);
  check(name, "matches", bool(want.matches), matches);
}

function judgeSlowstart(c: Json, name: string): void {
  const input = c.input;
  // Vectors number the failing calls from 1; the API takes 0-based indices.
  const failedCalls = (Array.isArray(input.failOnCalls) ? input.failOnCalls : []).filter((n: unknown) => typeof n === "number" && n >= 1).map((n: number) => n - 1);
  const r = slowStart(num(input.count) ?? 0, num(input.initialBatchSize) ?? 1, failedCalls);
  const want = c.expect;
  check(name, "successes", num(want.successes), r.successes);
  check(name, "calls", num(want.calls), r.calls);
  check(name, "batchSizes", Array.isArray(want.batchSizes) ? want.batchSizes : null, r.batches);
  check(name, "error", bool(want.error), r.firstFailure !== null);
}

/** The virtual clock of the expectations vectors starts here (any instant would do). */
const EXPECTATIONS_EPOCH = 1_790_000_000n * 1_000_000_000n;

function judgeExpectations(c: Json, name: string): void {
  let now = EXPECTATIONS_EPOCH;
  let e: Expectations = null;
  const ops: Json[] = Array.isArray(c.ops) ? c.ops : [];
  ops.forEach((op, i) => {
    const n = (k: string) => num(op[k]) ?? 0;
    const at = formatNanos(now);
    const apply = (...changes: ExpectationsChange[]) => applyExpectations(e, changes, at);
    switch (op.op) {
      case "expectCreations":
        e = apply({ op: "expectCreations", count: n("n") });
        break;
      case "expectDeletions":
        e = apply({ op: "expectDeletions", keys: strings(op.keys) });
        break;
      case "setExpectations":
        e = apply({ op: "set", add: n("add"), del: n("del") });
        break;
      case "creationObserved":
        e = apply({ op: "creationObserved" });
        break;
      case "deletionObserved":
        e = apply({ op: "deletionObserved", key: typeof op.key === "string" ? op.key : "" });
        break;
      case "lowerExpectations":
        e = apply({ op: "lower", add: n("add"), del: n("del") });
        break;
      case "raiseExpectations":
        e = apply({ op: "raise", add: n("add"), del: n("del") });
        break;
      case "advanceTime":
        now += secondsToNanos(num(op.seconds) ?? 0);
        break;
      case "deleteExpectations":
        e = apply({ op: "delete" });
        break;
      case "creationObservedOtherKey":
        break; // another controller's key: nothing changes for this one
      default:
        throw fail(name, `ops[${i}].op`, "a known op", op.op);
    }
    const want = op.expect;
    const field = (f: string) => `ops[${i}] (${op.op}).${f}`;
    check(name, field("satisfied"), bool(want.satisfied), expectationsSatisfied(e, formatNanos(now)));
    check(name, field("exists"), bool(want.exists), e !== null);
    check(name, field("add"), num(want.add), e?.add ?? 0);
    check(name, field("del"), num(want.del), e?.del ?? 0);
    check(name, field("delKeys"), strings(want.delKeys), sortedSet(e?.deletionKeys ?? []));
  });
}

// ---------------------------------------------------------------------------------------
// status

/**
 * Drops `lastTransitionTime` of conditions whose type the input status did not have
 * (the call added them with the wall clock).
 */
function withoutNewConditionTimes(status: Json, before: ReplicaSet["status"]): Json {
  if (status === null || typeof status !== "object" || !Array.isArray(status.conditions)) return status;
  const had = new Set((before?.conditions ?? []).map((c) => c.type));
  return {
    ...status,
    conditions: status.conditions.map((c: Json) => {
      if (had.has(c?.type ?? "")) return c;
      const { lastTransitionTime: _dropped, ...rest } = c;
      return rest;
    }),
  };
}

function judgeStatus(c: Json, name: string): void {
  const input = c.input;
  const rs = input.replicaSet as ReplicaSet;
  const statusTerminating = bool(input.controllerFeatures?.EnableStatusTerminatingReplicas) ?? true;
  const config: Config = {
    featureGates: gates(input.featureGates),
    ownerKind: statusTerminating ? { apiVersion: "apps/v1", kind: "ReplicaSet" } : { apiVersion: "v1", kind: "ReplicationController" },
  };
  const got = calculateStatus(
    {
      now: input.now,
      owner: rs,
      activePods: input.activePods as Pod[],
      terminatingPods: Array.isArray(input.terminatingPods) ? input.terminatingPods.length : 0,
      manageError: typeof input.manageReplicasError === "string" ? input.manageReplicasError : null,
    },
    config,
  );
  check(name, "status", withoutNewConditionTimes(c.expect?.status ?? null, rs.status), withoutNewConditionTimes(got, rs.status));
}

// ---------------------------------------------------------------------------------------
// rank

/** Checks that `order` (names) is a linear extension of `groups`. */
function checkLinearExtension(name: string, field: string, groups: unknown, order: string[]): void {
  const groupOf = new Map<string, number>();
  (Array.isArray(groups) ? groups : []).forEach((g: unknown, gi: number) => {
    for (const n of strings(g)) groupOf.set(n, gi);
  });
  let last = 0;
  order.forEach((n, pos) => {
    const g = groupOf.get(n);
    if (g === undefined) return;
    if (g < last) {
      throw fail(name, field, `a linear extension of the rank groups; ${n} belongs to group ${g}`, `${n} at position ${pos}, after a pod of group ${last}`);
    }
    last = g;
  });
}

/** Deletion-set judging shared by rank and sync. */
function checkDeleteSet(name: string, field: string, want: Json, got: string[]): void {
  const must = sortedSet(strings(want.mustDelete));
  const may = new Set(strings(want.mayDelete));
  const count = num(want.mayDeleteCount) ?? 0;
  const gotSet = sortedSet(got);
  const missing = must.find((m) => !gotSet.includes(m));
  if (missing !== undefined) throw fail(name, field, `must delete ${missing}`, got);
  const extra = gotSet.find((g) => !must.includes(g) && !may.has(g));
  if (extra !== undefined) throw fail(name, field, "deletions within mustDelete ∪ mayDelete", `${extra} deleted`);
  check(name, `${field} taken from mayDelete`, count, gotSet.filter((g) => may.has(g)).length);
}

function judgeRank(c: Json, name: string): void {
  const now = c.now as string;
  const featureGates = { PodDeletionCost: true, ...gates(c.featureGates) };
  const pods = c.pods as Pod[];
  const fromPods = new Set(strings(c.relatedPodsFromPods));
  const related = [...pods.filter((p) => fromPods.has(podName(p))), ...((c.relatedPods ?? []) as Pod[])];
  const ranked = rankPods(pods, { now, related, featureGates });
  const order = ranked.map((r) => podName(pods[r.index] as Pod));
  const want = c.expect;
  // 1. a permutation, and a linear extension of the rank groups
  check(name, "order is a permutation of pods", pods.map(podName).sort(), [...order].sort());
  checkLinearExtension(name, "order", want.rankGroups, order);
  // 2. deletions
  checkDeleteSet(name, "delete", want, order.slice(0, num(c.diff) ?? 0));
  // 3. exact extras: ranks and the comparator
  if (want.ranks !== null && typeof want.ranks === "object") {
    for (const r of ranked) {
      const n = podName(pods[r.index] as Pod);
      check(name, `ranks[${n}]`, num(want.ranks[n]), r.facts.colocated);
    }
  }
  const byName = new Map(ranked.map((r) => [podName(pods[r.index] as Pod), { pod: pods[r.index] as Pod, rank: r.facts.colocated }]));
  for (const s of Array.isArray(want.lessSamples) ? want.lessSamples : []) {
    const [a, b, less] = s as [unknown, unknown, unknown];
    if (typeof a !== "string" || typeof b !== "string" || typeof less !== "boolean") continue;
    const pa = byName.get(a);
    const pb = byName.get(b);
    if (!pa || !pb) throw fail(name, "lessSamples", "known pods", [a, b]);
    check(name, `Less(${a}, ${b})`, less, upstreamLess(pa.pod, pa.rank, pb.pod, pb.rank, { now, featureGates }));
  }
}

// ---------------------------------------------------------------------------------------
// sync: the runner plays the host and the fake clientset

/** The error the fake clientset answers for an injected failure of `kind`. */
function apiError(kind: string, resourceName: string, messageDetail: string): ApiError {
  switch (kind) {
    case "NotFound":
      return { reason: "NotFound", message: `pods "${resourceName}" not found`, code: 404, causes: [] };
    case "Conflict":
      return {
        reason: "Conflict",
        message: `Operation cannot be fulfilled on pods "${resourceName}": the object has been modified; please apply your changes to the latest version and try again`,
        code: 409,
        causes: [],
      };
    case "Forbidden":
      return {
        reason: "Forbidden",
        message: `pods "${resourceName}" is forbidden: exceeded quota: compute-resources, requested: requests.cpu=100m, used: requests.cpu=4, limited: requests.cpu=4`,
        code: 403,
        causes: [],
      };
    case "NamespaceTerminating":
      return {
        reason: "Forbidden",
        message: `pods "${resourceName}" is forbidden: unable to create new content in namespace because it is being terminated`,
        code: 403,
        causes: ["NamespaceTerminating"],
      };
    default:
      return { reason: "InternalError", message: `Internal error occurred: ${messageDetail}`, code: 500, causes: [] };
  }
}

function errorResult(e: ApiError): CallResult {
  return { result: "error", ...e };
}

function judgeSync(c: Json, name: string): void {
  const input = c.input;
  const want = c.expect;
  const now = input.now as string;
  const owner = input.replicaSet as ReplicaSet;
  const live = (input.apiReplicaSet ?? null) as ReplicaSet | null;
  const failures = input.failures ?? {};

  // Expectations recorded before the sync, back-dated by their age.
  const before = input.expectationsBefore;
  const expectations: Expectations =
    before !== null && typeof before === "object"
      ? {
          add: num(before.add) ?? 0,
          del: num(before.del) ?? 0,
          timestamp: formatNanos(nanos(name, "now", now) - secondsToNanos(num(before.ageSeconds) ?? 0)),
          deletionKeys: strings(before.delKeys),
        }
      : null;
  const config: Config = { burstReplicas: num(input.burstReplicas) ?? 500, featureGates: gates(input.featureGates) };
  let p;
  try {
    p = plan({ now, owner, otherOwners: input.otherReplicaSets ?? [], pods: input.pods ?? [], expectations, cacheIsFresh: true }, config);
  } catch (e) {
    throw fail(name, "plan", "a plan", (e as Error).message);
  }

  // Claims: the live re-read of the owner, then one patch per claim.
  const patchFail: Record<string, unknown> = failures.patchFail ?? {};
  const adopted = new Set<string>();
  const adoptFailed = new Set<string>();
  const released = new Set<string>();
  const releaseFailed = new Set<string>();
  const claims: ClaimOutcome = { results: [] };
  let allowed = true;
  if (p.needsOwnerRecheck) {
    const liveOwner: LiveOwner = { found: live ?? owner };
    allowed = adoptionAllowed(p, liveOwner) === null;
    claims.liveOwner = liveOwner;
  }
  for (const claim of p.claims) {
    const adopt = claim.kind === "adopt";
    if (adopt && !allowed) {
      claims.results.push({ result: "skipped" });
      continue;
    }
    const kind = patchFail[claim.name];
    const result: CallResult = typeof kind === "string" ? errorResult(apiError(kind, claim.name, "fake patch failure")) : { result: "ok" };
    const ok = result.result === "ok";
    (adopt ? (ok ? adopted : adoptFailed) : ok ? released : releaseFailed).add(claim.name);
    claims.results.push(result);
  }
  let manage;
  try {
    manage = manageAfterClaims(p, claims);
  } catch (e) {
    throw fail(name, "manage_after", "a manage step", (e as Error).message);
  }

  // Manage: the creates in slow-start batches, or the deletes.
  const outcome: Required<SyncOutcome> = { claims, creates: [], deletes: [] };
  let createdPod: Record<string, unknown> | null = null;
  if (manage.action === "create") {
    const failOn = new Set<number>(Array.isArray(failures.createFailOnCalls) ? failures.createFailOnCalls : []);
    const errKind = typeof failures.createError === "string" ? failures.createError : "InternalError";
    const gen = String((manage.pod.metadata as { generateName?: string } | undefined)?.generateName ?? "");
    for (let n = nextBatch(manage, outcome.creates); n !== null; n = nextBatch(manage, outcome.creates)) {
      for (let k = 0; k < n; k++) {
        const call = outcome.creates.length + 1;
        createdPod ??= manage.pod;
        outcome.creates.push(
          failOn.has(call) ? errorResult(apiError(errKind, gen, "fake create failure")) : { result: "ok", name: `${gen}z${String(call).padStart(4, "0")}` },
        );
      }
    }
  } else if (manage.action === "delete") {
    const deleteFail: Record<string, unknown> = failures.deleteFail ?? {};
    for (const v of manage.victims) {
      const kind = deleteFail[v.name];
      outcome.deletes.push(typeof kind === "string" ? errorResult(apiError(kind, v.name, "fake delete failure")) : { result: "ok" });
    }
  }
  let done;
  try {
    done = complete(p, outcome);
  } catch (e) {
    throw fail(name, "complete", "a completion", (e as Error).message);
  }

  // The status write, with upstream's single retry on conflict (R-86).
  let written: unknown = null;
  let calls = 0;
  let writeError: string | null = null;
  if (done.status !== undefined) {
    switch (failures.statusUpdate ?? "ok") {
      case "failAlways":
        calls = 2;
        writeError = `Operation cannot be fulfilled on replicasets.apps "${owner.metadata?.name ?? ""}": the object has been modified; please apply your changes to the latest version and try again`;
        break;
      case "failOnce":
        written = done.status;
        calls = 2;
        break;
      default:
        written = done.status;
        calls = 1;
    }
  }
  // S-11..S-15: a failed final write requeues rate-limited with its error.
  const requeue: Requeue = writeError !== null ? { kind: "rateLimited", error: writeError } : done.requeue;

  // Judge.
  check(name, "creates.attempted", num(want.creates?.attempted), done.createCalls);
  check(name, "createBatches", Array.isArray(want.createBatches) ? want.createBatches : [], done.createBatches);
  judgeCreatedPod(name, want.createdPodTemplate ?? null, createdPod, owner);
  const victims = done.manage.action === "delete" ? done.manage.victims.map((v) => v.name) : [];
  check(name, "deletes.count", num(want.deletes?.count), victims.length);
  if (victims.length > 0 || num(want.deletes?.count) !== 0) checkDeleteSet(name, "deletes", want.deletes ?? {}, victims);
  check(name, "adopted", sortedSet(strings(want.adopted)), sortedSet(adopted));
  check(name, "adoptFailed", sortedSet(strings(want.adoptFailed)), sortedSet(adoptFailed));
  check(name, "released", sortedSet(strings(want.released)), sortedSet(released));
  check(name, "releaseFailed", sortedSet(strings(want.releaseFailed)), sortedSet(releaseFailed));
  check(name, "statusUpdateCalls", num(want.statusUpdateCalls), calls);
  check(name, "statusWritten", withoutNewConditionTimes(want.statusWritten ?? null, owner.status), withoutNewConditionTimes(written, owner.status));
  check(name, "requeueAfterSeconds", num(want.requeueAfterSeconds), requeue.kind === "after" ? requeue.after : null);
  check(name, "error", bool(want.error), done.error !== undefined || writeError !== null);
  if (requeue.kind === "rateLimited") check(name, "error (rate-limited requeue)", true, bool(want.error));

  // Expectations: before → recorded before acting → corrections.
  const changes: ExpectationsChange[] = [];
  if (done.manage.action !== "nothing") changes.push(done.manage.expectations);
  changes.push(...done.expectations);
  const e = applyExpectations(expectations, changes, now);
  const wantE = want.expectationsAfter ?? null;
  if (wantE === null) {
    check(name, "expectationsAfter", null, e && [e.add, e.del]);
    return;
  }
  if (e === null) throw fail(name, "expectationsAfter", wantE, "no record");
  check(name, "expectationsAfter.add", num(wantE.add), e.add);
  const gotKeys = sortedSet(e.deletionKeys ?? []);
  if (strings(want.deletes?.mayDelete).length === 0) {
    check(name, "expectationsAfter.del", num(wantE.del), e.del);
    check(name, "expectationsAfter.satisfied", bool(wantE.satisfied), expectationsSatisfied(e, now));
    check(name, "expectationsAfter.delKeys", sortedSet(strings(wantE.delKeys)), gotKeys);
  } else {
    // Which tied pods go is free; what follows from the choice (failed deletes observed,
    // keys still awaited) must be consistent with it.
    let consistent = gotKeys;
    if (done.manage.action === "delete") {
      const key = (v: { namespace: string; name: string }) => `${v.namespace}/${v.name}`;
      const failed = new Set(done.manage.victims.filter((_, i) => outcome.deletes[i]?.result === "error").map(key));
      consistent = sortedSet(done.manage.victims.map(key).filter((k) => !failed.has(k)));
    }
    const del = consistent.length;
    check(name, "expectationsAfter.del (consistent with the chosen deletions)", del, e.del);
    check(name, "expectationsAfter.satisfied (consistent)", e.add <= 0 && del <= 0, expectationsSatisfied(e, now));
    check(name, "expectationsAfter.delKeys (consistent with the chosen deletions)", consistent, gotKeys);
  }
}

function judgeCreatedPod(name: string, want: Json, got: Record<string, unknown> | null, owner: ReplicaSet): void {
  if (want === null) {
    if (got !== null) throw fail(name, "createdPodTemplate", null, got);
    return;
  }
  if (got === null) throw fail(name, "createdPodTemplate", want, "no create call");
  const meta = (got.metadata ?? {}) as Record<string, unknown>;
  const norm = (v: unknown) => v ?? {};
  const normList = (v: unknown) => v ?? [];
  check(name, "createdPodTemplate.namespace", want.namespace ?? null, meta.namespace ?? null);
  check(name, "createdPodTemplate.generateName", want.generateName ?? null, meta.generateName ?? null);
  check(name, "createdPodTemplate.labels", norm(want.labels), norm(meta.labels));
  check(name, "createdPodTemplate.annotations", norm(want.annotations), norm(meta.annotations));
  check(name, "createdPodTemplate.finalizers", normList(want.finalizers), normList(meta.finalizers));
  check(name, "createdPodTemplate.ownerReferences", want.ownerReferences ?? null, meta.ownerReferences ?? null);
  const specEqual = jsonEqual(got.spec ?? null, owner.spec?.template?.spec ?? null);
  check(name, "createdPodTemplate.specEqualsTemplateSpec", bool(want.specEqualsTemplateSpec), specEqual);
}

// ---------------------------------------------------------------------------------------
// The command

export const CONFORM_USAGE = `usage: replicore conform DIR

Judges the engine (this package's WebAssembly build, through its public API) against the
conformance vectors recorded from the upstream Go controller. DIR holds <kind>.json or
<kind>.json.gz for the kinds ${KINDS.join(", ")}.
Prints one line per kind and a last line "N passed, M failed"; exits 1 on any failure.

  -h, --help   this help

example:
  replicore conform tests/conformance/vectors
`;

const SHOW_FAILURES = 10;

export function conformCommand(args: string[]): number {
  const p = parseCommandArgs("conform", args, {}, 1);
  if (p.values.help) {
    emit(CONFORM_USAGE);
    return 0;
  }
  const dir = p.positionals[0];
  if (dir === undefined) throw usageError("DIR is required", "conform");
  const reports = runDir(dir);
  let out = "";
  for (const k of reports) {
    out += `${k.kind.padEnd(13)} ${String(k.passed).padStart(5)} passed, ${k.failures.length} failed\n`;
  }
  const failures = reports.flatMap((k) => k.failures);
  if (failures.length > 0) {
    out += "\nfirst failures:\n";
    for (const f of failures.slice(0, SHOW_FAILURES)) out += `  ${formatFailure(f)}\n`;
    if (failures.length > SHOW_FAILURES) out += `  … and ${failures.length - SHOW_FAILURES} more\n`;
    out += "\n";
  }
  const passed = reports.reduce((n, k) => n + k.passed, 0);
  out += `${passed} passed, ${failures.length} failed\n`;
  emit(out);
  return failures.length > 0 ? 1 : 0;
}
