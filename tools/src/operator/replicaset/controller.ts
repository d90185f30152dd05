// The ReplicaSet controller's host, the control loop: informers feed the engine's event rules, a work queue hands owner
// keys to workers, and each sync executes the engine's plan against the API server.
// Every decision (what to adopt, create, delete, which status, what to expect, when to
// look again) is the engine's (./engine.ts); this module performs the calls.

import type { KubernetesListObject, V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import { Engine, type CallResult, type Completion, type Expectations, type ExpectationsChange, type Pod, type ReplicaSet, type SyncOutcome, type SyncPlan } from "./engine.js";
import { Informer, type InformerEvent } from "../informer.js";
import { trimPod } from "../transform.js";
import type { Access } from "../access.js";
import { EventRecorder } from "../recorder.js";
import { createdMeta } from "../metadata.js";
import { apiError, JsonText, patchOptions, statusError, type Clients, type OwnerResource } from "../kube.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { ControllerRateLimiter, WorkQueue, type RateLimiterOptions } from "../queue.js";
import { NotLeader, runWorker } from "../worker.js";
import type { Config, EventDecision, KubeEvent, ClaimOutcome, LiveOwner } from "replicore";

export interface ControllerOptions {
  /** The controller's own client: its writes, live reads and events. */
  clients: Clients;
  /** The informers' lists and watches (kube-controller-manager's shared-informers client); default `clients`. */
  informerClients?: Clients;
  owner: OwnerResource;
  workers: number;
  config: Config;
  log: Logger;
  metrics: Metrics;
  leaderInfo?: () => Record<string, unknown>;
  /** Whether this process may write now (leader election); checked before every write. */
  mayWrite: () => boolean;
  identity: string;
  rateLimits?: RateLimiterOptions;
  /** Informer restart backoff (ms). */
  watchBackoffMs?: { min: number; max: number };
  /** Told of watch denials (the API clients report every other answer themselves). */
  access?: Access;
  /** The controller's event recorder (one writing through `clients` is made when not given). */
  recorder?: EventRecorder;
  /** What the pod cache keeps of a pod (default: the fields the engine reads, ../transform.ts). */
  podTransform?: (pod: V1Pod) => V1Pod;
}

/** The event source kube-controller-manager's ReplicaSet controller records as. */
const EVENT_SOURCE_COMPONENT = "replicaset-controller";

type Consistency = { uid: string; pods?: string; owner?: string };

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function split(k: string): [string, string] {
  const i = k.indexOf("/");
  return [k.slice(0, i), k.slice(i + 1)];
}

function rvNumber(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === "" || !/^\d+$/.test(rv)) return undefined;
  return Number(rv);
}

export class Controller {
  readonly engine: Engine;
  readonly queue: WorkQueue;
  private readonly consistency = new Map<string, Consistency>();
  readonly recorder: EventRecorder;
  private podInformer: Informer<V1Pod> | undefined;
  private ownerInformer: Informer<V1ReplicaSet> | undefined;
  private workers: Promise<void>[] = [];

  constructor(private readonly o: ControllerOptions) {
    this.engine = new Engine(o.config);
    this.recorder = o.recorder ?? new EventRecorder(o.clients, o.log, o.metrics, EVENT_SOURCE_COMPONENT);
    this.queue = new WorkQueue(new ControllerRateLimiter(o.rateLimits), {
      depth: (n) => o.metrics.queueDepth.set(n),
      retry: () => o.metrics.retries.inc(),
    });
  }

  // -- informers ------------------------------------------------------------------------

  async startInformers(): Promise<void> {
    const { kc, core, custom } = this.o.informerClients ?? this.o.clients;
    const ow = this.o.owner;
    const backoff = this.o.watchBackoffMs ?? { min: 200, max: 5000 };
    const ownerPath = `/apis/${ow.group}/${ow.version}/${ow.plural}`;
    this.ownerInformer = new Informer<V1ReplicaSet>({
      name: ow.kind,
      kc,
      path: ownerPath,
      list: async () => (await custom.listClusterCustomObject({ group: ow.group, version: ow.version, plural: ow.plural })) as KubernetesListObject<V1ReplicaSet>,
      log: this.o.log,
      onEvent: (e) => this.ownerEvent(e as InformerEvent<ReplicaSet>),
      onError: (err) => this.watchFailed(err, ownerPath),
      onWatching: () => this.o.access?.watching(ownerPath),
      minBackoffMs: backoff.min,
      maxBackoffMs: backoff.max,
    });
    this.podInformer = new Informer<V1Pod>({
      name: "Pod",
      kc,
      path: "/api/v1/pods",
      list: () => core.listPodForAllNamespaces(),
      // One copy of each pod, with only the fields the engine reads (whole pods with
      // REPLICORE_NO_POD_TRANSFORM=1, for tools/bench/operator.mjs's comparison).
      ...(process.env["REPLICORE_NO_POD_TRANSFORM"] ? {} : { transform: this.o.podTransform ?? trimPod }),
      log: this.o.log,
      onEvent: (e) => this.podEvent(e as InformerEvent<Pod>),
      onError: (err) => this.watchFailed(err, "/api/v1/pods"),
      onWatching: () => this.o.access?.watching("/api/v1/pods"),
      minBackoffMs: backoff.min,
      maxBackoffMs: backoff.max,
    });
    // Pods first, so the first owner syncs see them (upstream waits for both caches).
    await this.podInformer.start();
    await this.ownerInformer.start();
    const pods = this.podInformer;
    const owners = this.ownerInformer;
    this.o.metrics.cacheSizes = () => ({ Pod: pods.size(), [this.o.owner.kind]: owners.size() });
    this.o.log.info("caches synced", { owners: this.engine.ownerKeys().length });
  }

  private apply(decision: EventDecision): void {
    const now = new Date();
    for (const obs of decision.observations) {
      this.changeExpectations(obs.ownerKey, [obs.change], now);
    }
    for (const k of decision.enqueue) this.queue.add(k);
    for (const d of decision.enqueueAfter) this.queue.addAfter(d.key, d.after * 1000);
  }

  private changeExpectations(k: string, changes: ExpectationsChange[], now: Date): void {
    this.engine.changeExpectations(k, changes, now);
  }

  private ownerEvent(e: InformerEvent<ReplicaSet>): void {
    let decision: EventDecision;
    try {
      decision = this.engine.onOwnerEvent(e);
    } catch (err) {
      this.o.metrics.errors.inc({ where: "malformed" });
      this.o.log.warn("skipping an owner the engine cannot read", { event: e.type, name: e.object?.metadata?.name, namespace: e.object?.metadata?.namespace, error: (err as Error).message });
      return;
    }
    if (e.type === "deleted") {
      // The owner's expectations are dropped by the engine's decision (an observation
      // `delete`, applied below); only the host's own consistency record is kept here.
      const k = key(e.object.metadata?.namespace ?? "", e.object.metadata?.name ?? "");
      const c = this.consistency.get(k);
      if (c && c.uid === e.object.metadata?.uid) this.consistency.delete(k);
    }
    this.apply(decision);
  }

  private podEvent(e: InformerEvent<Pod>): void {
    let decision: EventDecision;
    try {
      decision = this.engine.onPodEvent(e);
    } catch (err) {
      this.o.metrics.errors.inc({ where: "malformed" });
      this.o.log.warn("skipping a pod the engine cannot read", {
        event: e.type,
        name: e.object?.metadata?.name,
        namespace: e.object?.metadata?.namespace,
        error: (err as Error).message,
      });
      return;
    }
    this.apply(decision);
  }

  // -- workers --------------------------------------------------------------------------

  startWorkers(): void {
    for (const k of this.engine.ownerKeys()) this.queue.add(k);
    for (let i = 0; i < this.o.workers; i++) this.workers.push(this.worker(i));
  }

  private worker(id: number): Promise<void> {
    return runWorker({
      id,
      queue: this.queue,
      log: this.o.log,
      what: "sync",
      thrown: "error",
      sync: (k) => this.sync(k),
      failed: (e) => {
        this.o.metrics.errors.inc({ where: "sync" });
        return apiError(e).message;
      },
      observe: (result, seconds) => this.o.metrics.syncDuration.observe({ result }, seconds),
      ...(this.o.leaderInfo ? { leaderInfo: this.o.leaderInfo } : {}),
    });
  }

  /** Stops taking keys and waits for the syncs in flight (the recorder is drained by its maker). */
  async drainWorkers(): Promise<void> {
    this.queue.shutDown();
    await Promise.allSettled(this.workers);
  }

  private watchFailed(err: unknown, path: string): void {
    this.o.metrics.errors.inc({ where: "watch" });
    this.o.access?.observeWatchError(err, path);
  }

  /** The pod and owner informers, once started, for a controller that shares their caches. */
  informers(): { pods: Informer<V1Pod>; owners: Informer<V1ReplicaSet> } | undefined {
    return this.podInformer && this.ownerInformer ? { pods: this.podInformer, owners: this.ownerInformer } : undefined;
  }

  async stopInformers(): Promise<void> {
    await this.ownerInformer?.stop();
    await this.podInformer?.stop();
  }

  private guard(): void {
    if (!this.o.mayWrite()) throw new NotLeader();
  }

  /** S-2 (KEP-5647): have the informers seen this controller's own writes for the owner? */
  private cacheIsFresh(k: string, uid: string): boolean {
    const rec = this.consistency.get(k);
    if (!rec) return true;
    if (rec.uid !== uid) {
      this.consistency.delete(k);
      return true;
    }
    const checks: Array<[string | undefined, string | undefined]> = [
      [rec.pods, this.podInformer?.latestResourceVersion()],
      [rec.owner, this.ownerInformer?.latestResourceVersion()],
    ];
    for (const [written, read] of checks) {
      const w = rvNumber(written);
      const r = rvNumber(read);
      if (w === undefined || r === undefined) continue;
      if (w > r) return false;
    }
    this.consistency.delete(k);
    return true;
  }

  private recordWrite(k: string, uid: string, kind: "pods" | "owner", rv: string | undefined): void {
    if (rv === undefined) return;
    const rec = this.consistency.get(k) ?? { uid };
    const prev = rvNumber(rec[kind]);
    const next = rvNumber(rv);
    if (prev === undefined || next === undefined || next > prev) rec[kind] = rv;
    this.consistency.set(k, rec);
  }

  /** One sync of owner `k`; returns "ok" or "error" (for the metrics). */
  private async sync(k: string): Promise<string> {
    const [namespace, name] = split(k);
    const owner = this.engine.getOwner(namespace, name);
    const log = this.o.log.with({ key: k });
    if (!owner) {
      this.engine.forgetExpectations(k);
      this.consistency.delete(k);
      this.queue.forget(k);
      return "ok";
    }
    this.guard();
    const now = new Date();
    const uid = owner.metadata?.uid ?? "";
    const plan: SyncPlan = this.engine.planFor(namespace, name, {
      now,
      cacheIsFresh: this.cacheIsFresh(k, uid),
    });
    return this.execute(k, plan, owner, uid, now, log);
  }

  /** Performs a plan's calls and hands the outcome to the engine. */
  private async execute(k: string, plan: SyncPlan, owner: ReplicaSet, uid: string, now: Date, log: Logger): Promise<string> {
    const [namespace] = split(k);
    const outcome: SyncOutcome = {};
    let manage = plan.manage;

    // 1. Claims: adopt (after a live read of the owner) and release, with UID preconditions.
    if (plan.claims.length > 0) {
      const claims = await this.claim(plan, owner);
      outcome.claims = claims;
      manage = this.engine.manageAfterClaims(plan, claims);
    }

    // 2. Manage: record the expectations, then act.
    if (manage.action === "create") {
      this.guard();
      this.changeExpectations(k, [manage.expectations], now);
      const creates: CallResult[] = [];
      // Every create of the sync sends the same pod: its JSON text is written once.
      const pod = new JsonText(JSON.stringify(manage.pod));
      for (let n = this.engine.nextBatch(manage, creates); n !== null; n = this.engine.nextBatch(manage, creates)) {
        if (!this.o.mayWrite()) {
          // No further batch without a fresh lease: the engine says what to take off the
          // expectations for the creations not made.
          this.changeExpectations(k, this.engine.abandonedExpectations(manage, creates), new Date());
          throw new NotLeader();
        }
        const batch = await Promise.all(Array.from({ length: n }, () => this.createPod(namespace, pod, k, uid, owner)));
        creates.push(...batch);
      }
      outcome.creates = creates;
    } else if (manage.action === "delete") {
      this.guard();
      this.changeExpectations(k, [manage.expectations], now);
      outcome.deletes = await Promise.all(manage.victims.map((v) => this.deletePod(v.namespace, v.name, owner)));
    }

    // 3. What it means.
    const done = this.engine.complete(plan, outcome);
    this.changeExpectations(k, done.expectations, new Date());
    let statusOk = true;
    if (done.status) statusOk = await this.writeStatus(k, owner, done, log);
    // done.events are the calls' own events (R-61), recorded as each call returned.
    log.info("synced", {
      action: done.manage.action,
      ...(done.manage.action === "nothing" ? { why: done.manage.why } : {}),
      ...(plan.halt ? { halt: plan.halt.reason } : {}),
      desired: plan.desired,
      claims: plan.claims.length,
      created: done.created,
      createCalls: done.createCalls,
      createBatches: done.createBatches,
      deleted: done.deleted,
      ...(outcome.deletes ? { deletedPods: (manage.action === "delete" ? manage.victims : []).map((v) => v.name) } : {}),
      statusWritten: done.status !== undefined && statusOk,
      ...(done.expectations.length ? { expectationChanges: done.expectations } : {}),
      expectations: this.engine.expectationsOf(k),
      // R-40 as the next sync will see it (false: it waits for the watch, or the 5-minute TTL).
      expectationsSatisfied: this.engine.expectationsSatisfied(k, new Date()),
      requeue: done.requeue.kind,
      ...(done.error ? { error: done.error } : {}),
    });
    if (!statusOk) {
      this.queue.addRateLimited(k);
      return "error";
    }
    switch (done.requeue.kind) {
      case "done":
        this.queue.forget(k);
        return "ok";
      case "after":
        this.queue.forget(k);
        this.queue.addAfter(k, done.requeue.after * 1000);
        return "ok";
      case "rateLimited":
        this.o.metrics.errors.inc({ where: "sync" });
        this.queue.addRateLimited(k);
        return "error";
    }
  }

  private ownerRef(): { group: string; version: string; plural: string } {
    return { group: this.o.owner.group, version: this.o.owner.version, plural: this.o.owner.plural };
  }

  private async claim(plan: SyncPlan, owner: ReplicaSet): Promise<ClaimOutcome> {
    const { custom, core } = this.o.clients;
    let liveOwner: LiveOwner | undefined;
    let allowed = true;
    if (plan.needsOwnerRecheck && plan.claims.some((c) => c.kind === "adopt")) {
      try {
        const live = (await custom.getNamespacedCustomObject({
          ...this.ownerRef(),
          namespace: owner.metadata?.namespace ?? "",
          name: owner.metadata?.name ?? "",
        })) as ReplicaSet;
        liveOwner = { found: live };
      } catch (e) {
        liveOwner = { failed: apiError(e) };
      }
      const why = this.engine.adoptionAllowed(plan, liveOwner);
      if (why !== null) {
        allowed = false;
        this.o.log.warn("adoption not allowed", { key: plan.key, why });
      }
    }
    const results: CallResult[] = [];
    for (const c of plan.claims) {
      if (c.kind === "adopt" && !allowed) {
        results.push({ result: "skipped" });
        continue;
      }
      this.guard();
      try {
        const pod = await core.patchNamespacedPod({ namespace: c.namespace, name: c.name, body: c.patch }, patchOptions(c.patchType));
        results.push({ result: "ok" });
        if (c.kind === "adopt") this.recordWrite(plan.key, owner.metadata?.uid ?? "", "pods", pod.metadata?.resourceVersion);
        this.o.log.info(c.kind === "adopt" ? "adopted pod" : "released pod", { key: plan.key, pod: `${c.namespace}/${c.name}` });
      } catch (e) {
        const err = apiError(e);
        this.o.metrics.errors.inc({ where: "claim" });
        this.o.log.warn(`${c.kind} failed`, { key: plan.key, pod: `${c.namespace}/${c.name}`, error: err.message });
        results.push({ result: "error", ...err });
      }
    }
    return { ...(liveOwner ? { liveOwner } : {}), results };
  }

  /**
   * Pod creates and deletes are sent as JSON text through the client's raw path (its token
   * bucket, user agent, pool and counting) rather than client-node's typed CoreV1Api, which
   * converts every request and answer to and from its model classes: on a real API server
   * that conversion of each created pod (managedFields, the defaulted spec) was a tenth of
   * the operator's CPU and much of its garbage. Of the answer only the name and the
   * resourceVersion are read (../metadata.ts).
   */
  private async createPod(namespace: string, pod: JsonText, k: string, uid: string, owner: ReplicaSet): Promise<CallResult> {
    const result = await this.sendCreate(namespace, pod, k, uid);
    // As upstream's pod control: the call's event is recorded as soon as it returns.
    const ev = this.engine.createEvent(result);
    if (ev) this.recordEvent(owner, ev);
    return result;
  }

  private async deletePod(namespace: string, name: string, owner: ReplicaSet): Promise<CallResult> {
    const result = await this.sendDelete(namespace, name);
    const ev = this.engine.deleteEvent(name, result);
    if (ev) this.recordEvent(owner, ev);
    return result;
  }

  private async sendCreate(namespace: string, pod: JsonText, k: string, uid: string): Promise<CallResult> {
    try {
      const r = await this.o.clients.raw("POST", `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`, pod);
      if (r.code < 200 || r.code > 299) {
        this.o.metrics.creates.inc({ result: "error" });
        return { result: "error", ...statusError(r.code, r.body) };
      }
      const created = createdMeta(r.body);
      this.o.metrics.creates.inc({ result: "ok" });
      this.recordWrite(k, uid, "pods", created.resourceVersion);
      return { result: "ok", ...(created.name ? { name: created.name } : {}) };
    } catch (e) {
      this.o.metrics.creates.inc({ result: "error" });
      return { result: "error", ...apiError(e) };
    }
  }

  private async sendDelete(namespace: string, name: string): Promise<CallResult> {
    try {
      const r = await this.o.clients.raw("DELETE", `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`);
      if (r.code < 200 || r.code > 299) {
        this.o.metrics.deletes.inc({ result: "error" });
        return { result: "error", ...statusError(r.code, r.body) };
      }
      this.o.metrics.deletes.inc({ result: "ok" });
      return { result: "ok", name };
    } catch (e) {
      this.o.metrics.deletes.inc({ result: "error" });
      return { result: "error", ...apiError(e) };
    }
  }

  /** Writes the status through the status subresource; on failure, once more on a fresh read (upstream). */
  private async writeStatus(k: string, owner: ReplicaSet, done: Completion, log: Logger): Promise<boolean> {
    const { custom } = this.o.clients;
    const ref = { ...this.ownerRef(), namespace: owner.metadata?.namespace ?? "", name: owner.metadata?.name ?? "" };
    let base: ReplicaSet = owner;
    for (let attempt = 0; attempt < 2; attempt++) {
      this.guard();
      try {
        const written = (await custom.replaceNamespacedCustomObjectStatus({ ...ref, body: { ...base, status: done.status } })) as ReplicaSet;
        this.recordWrite(k, owner.metadata?.uid ?? "", "owner", written.metadata?.resourceVersion);
        return true;
      } catch (e) {
        const err = apiError(e);
        this.o.metrics.errors.inc({ where: "status" });
        log.warn("status write failed", { attempt: attempt + 1, reason: err.reason, error: err.message });
        if (attempt === 1) return false;
        try {
          base = (await custom.getNamespacedCustomObject(ref)) as ReplicaSet;
        } catch (e2) {
          log.warn("status write: re-reading the owner failed", { error: apiError(e2).message });
          return false;
        }
      }
    }
    return false;
  }

  /** Records an event on the owner through the process's recorder (../recorder.ts). */
  private recordEvent(owner: ReplicaSet, ev: KubeEvent): void {
    this.recorder.record(
      {
        kind: this.o.owner.kind,
        apiVersion: this.o.owner.apiVersion,
        namespace: owner.metadata?.namespace ?? "",
        name: owner.metadata?.name ?? "",
        ...(owner.metadata?.uid ? { uid: owner.metadata.uid } : {}),
        ...(owner.metadata?.resourceVersion ? { resourceVersion: owner.metadata.resourceVersion } : {}),
      },
      ev,
      EVENT_SOURCE_COMPONENT,
    );
  }
}
