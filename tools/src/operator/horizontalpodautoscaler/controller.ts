// The HorizontalPodAutoscaler controller's host, as kube-controller-manager wires it
// (H-22, H-29, H-31): an informer on autoscaling/v2 HPAs and a pod cache (the other
// controllers' when they run), a work queue whose every add waits one sync period, and
// per key one sync: the engine's step machine, each call it names made here — the target's
// resources through discovery, the scale subresource of any kind, the pods from the cache,
// a metric from metrics.k8s.io, custom.metrics.k8s.io or external.metrics.k8s.io (the
// paths ../../autoscaling-api.ts shares with `replicore explain hpa/NAME`), the scale and
// status writes. What to scale to, the conditions, the events, the memory: the engine's
// (./engine.ts). The host keeps the memory per HPA key between syncs (in this process, or
// with --hpa-memory annotation also on the HPA, so a new leader has it).

import type { KubernetesListObject, V1Pod } from "@kubernetes/client-node";
import { isReplicoreError } from "replicore";
import { mappingsOf, metricPath, metricsAnswer, metricsApiOf, scalePath, versionOf, type Get, type Mapping } from "../../autoscaling-api.js";
import { reasonForCode } from "../../status-reasons.js";
import type { Access } from "../access.js";
import type { KubeObject } from "../deployment/engine.js";
import { controllerInformer, type Informer, type InformerEvent } from "../informer.js";
import { apiError, type Clients, type RawAnswer } from "../kube.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { ControllerRateLimiter, WorkQueue } from "../queue.js";
import { EventRecorder } from "../recorder.js";
import { countedWorkers, NotLeader } from "../worker.js";
import { metricResponse, metricSelector, runSync, type HpaAnswer, type HpaCall, type HpaConfig, type HpaMemory, type HpaSyncDone, type RegisteredHpa } from "./engine.js";

/** The event source kube-controller-manager's HPA controller records as. */
export const EVENT_SOURCE_COMPONENT = "horizontal-pod-autoscaler";
/** Where `--hpa-memory annotation` keeps an HPA's memory (JSON of the engine's HpaMemory). */
export const MEMORY_ANNOTATION = "replicore.dev/hpa-memory";

/** Where the memory per HPA lives between syncs. */
export type MemoryMode = "process" | "annotation";

const HPA = { group: "autoscaling", version: "v2", plural: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", apiVersion: "autoscaling/v2" };

export interface HpaControllerOptions {
  /** The controller's own client: discovery, scale, metrics, writes and events. */
  clients: Clients;
  /** The informers' lists and watches (the shared-informers client); default `clients`. */
  informerClients?: Clients;
  workers: number;
  /** The settings the flags set (the others are the engine's defaults). */
  config: Partial<HpaConfig> & { syncPeriodSeconds: number };
  memory: MemoryMode;
  log: Logger;
  metrics: Metrics;
  recorder?: EventRecorder;
  /** Whether this process may write now (leader election); checked before every write. */
  mayWrite: () => boolean;
  leaderInfo?: () => Record<string, unknown>;
  watchBackoffMs?: { min: number; max: number };
  access?: Access;
  /** What its own pod cache keeps of a pod (when no other controller's is shared). */
  podTransform?: (pod: V1Pod) => V1Pod;
}

const nsOf = (o: KubeObject): string => o.metadata?.namespace ?? "";
const keyOf = (o: KubeObject): string => `${nsOf(o)}/${o.metadata?.name ?? ""}`;

function split(k: string): [string, string] {
  const i = k.indexOf("/");
  return [k.slice(0, i), k.slice(i + 1)];
}

/** A non-2xx answer as the call's error: the Status's reason and message. */
function rawError(r: RawAnswer, what: string): HpaAnswer {
  let status: { reason?: unknown; message?: unknown } = {};
  try {
    status = JSON.parse(r.body) as typeof status;
  } catch {
    // not a Status
  }
  const reason = typeof status.reason === "string" && status.reason !== "" ? status.reason : reasonForCode(r.code);
  const message = typeof status.message === "string" ? status.message : `${what}: HTTP ${r.code}`;
  return { answer: "error", reason, message };
}

const ok = (r: RawAnswer): boolean => r.code >= 200 && r.code <= 299;

/** Discovery answers kept for one sync period (the RESTMapper's cache, reset each period as upstream's metrics client's). */
class DiscoveryCache {
  private readonly kept = new Map<string, { at: number; value: Promise<unknown> }>();

  constructor(private readonly ttlMs: number) {}

  get<T>(key: string, load: () => Promise<T>, keep: (v: T) => boolean): Promise<T> {
    const now = performance.now();
    const hit = this.kept.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value as Promise<T>;
    const value = load();
    this.kept.set(key, { at: now, value });
    value.then(
      (v) => {
        if (!keep(v)) this.kept.delete(key);
      },
      () => this.kept.delete(key),
    );
    return value;
  }
}

export class HorizontalPodAutoscalerController {
  readonly queue: WorkQueue;
  readonly recorder: EventRecorder;
  private hpas: Informer<KubeObject> | undefined;
  private pods: Informer<KubeObject> | undefined;
  private readonly own: Informer<KubeObject>[] = [];
  private workers: Promise<void>[] = [];
  /** H-05: what the engine remembers per key (recommendations, scale events), between syncs. */
  private readonly memory = new Map<string, HpaMemory>();
  /** H-58: each HPA's selector as last parsed ("" until its first sync). */
  private readonly selectors = new Map<string, string>();
  private readonly periodMs: number;
  private readonly discovery: DiscoveryCache;
  private resync: NodeJS.Timeout | undefined;
  private readonly get: Get;

  constructor(private readonly o: HpaControllerOptions) {
    this.periodMs = o.config.syncPeriodSeconds * 1000;
    this.recorder = o.recorder ?? new EventRecorder(o.clients, o.log, o.metrics, EVENT_SOURCE_COMPONENT);
    // H-22: every rate-limited add waits exactly one sync period (no backoff, no cap).
    const fixed = { baseDelayMs: this.periodMs, maxDelayMs: this.periodMs, qps: 1e9, burst: 1e9 };
    this.queue = new WorkQueue(new ControllerRateLimiter(fixed), { depth: (n) => o.metrics.hpaQueueDepth.set(n) });
    this.discovery = new DiscoveryCache(this.periodMs);
    this.get = (path) => o.clients.raw("GET", path);
  }

  // -- informers ------------------------------------------------------------------------

  private informer(name: string, path: string, list: () => Promise<KubernetesListObject<KubeObject>>, onEvent: (e: InformerEvent<KubeObject>) => void, transform?: (o: KubeObject) => KubeObject): Informer<KubeObject> {
    const { kc } = this.o.informerClients ?? this.o.clients;
    return controllerInformer<KubeObject>(
      { name: `horizontal-pod-autoscaler/${name}`, kc, path, list, ...(transform ? { transform } : {}), log: this.o.log, onEvent },
      { errors: this.o.metrics.errors, access: this.o.access, backoffMs: this.o.watchBackoffMs },
    );
  }

  /**
   * Starts the informers; with `sharedPods` (another controller's pod informer, started,
   * keeping the autoscaler's fields too) its cache is read instead of a second list and
   * watch of every pod. No pod event triggers a sync (upstream reads pods from the cache only).
   */
  async startInformers(sharedPods?: Informer<KubeObject>): Promise<void> {
    const { core, custom } = this.o.informerClients ?? this.o.clients;
    if (sharedPods) this.pods = sharedPods;
    else {
      const transform = this.o.podTransform && !process.env["REPLICORE_NO_POD_TRANSFORM"] ? (p: KubeObject) => (this.o.podTransform as (p: V1Pod) => V1Pod)(p as V1Pod) as KubeObject : undefined;
      this.own.push(
        (this.pods = this.informer("Pod", "/api/v1/pods", async () => (await core.listPodForAllNamespaces()) as unknown as KubernetesListObject<KubeObject>, () => {}, transform)),
      );
    }
    this.own.push(
      (this.hpas = this.informer(
        HPA.kind,
        `/apis/${HPA.group}/${HPA.version}/${HPA.plural}`,
        async () => (await custom.listClusterCustomObject({ group: HPA.group, version: HPA.version, plural: HPA.plural })) as KubernetesListObject<KubeObject>,
        (e) => this.hpaEvent(e),
      )),
    );
    for (const inf of this.own) await inf.start();
    const [h, p] = [this.hpas, this.pods];
    this.o.metrics.hpaCacheSizes = () => (sharedPods ? { [HPA.kind]: h.size() } : { [HPA.kind]: h.size(), "hpa/Pod": p.size() });
    this.o.log.info("horizontal-pod-autoscaler caches synced", { hpas: h.size(), sharedPods: sharedPods !== undefined, memory: this.o.memory });
  }

  async stopInformers(): Promise<void> {
    if (this.resync) clearInterval(this.resync);
    for (const inf of [...this.own].reverse()) await inf.stop();
  }

  /** An add or update (a resync's included) waits one sync period (H-22); the key is registered with no selector yet (H-58). A delete unregisters it. */
  private hpaEvent(e: InformerEvent<KubeObject>): void {
    const k = keyOf(e.object);
    if (e.type === "deleted") {
      this.queue.forget(k);
      this.selectors.delete(k);
    } else {
      this.queue.addRateLimited(k);
      if (!this.selectors.has(k)) this.selectors.set(k, "");
    }
    this.o.metrics.hpaAutoscalers.set(this.selectors.size);
  }

  // -- workers --------------------------------------------------------------------------

  startWorkers(): void {
    // The informer's resync (every sync period, as upstream's HPA informer): an update event for every cached HPA.
    this.resync = setInterval(() => {
      for (const h of this.hpas?.items() ?? []) this.hpaEvent({ type: "updated", old: h, object: h });
    }, this.periodMs);
    this.resync.unref();
    const m = this.o.metrics;
    this.workers.push(
      ...countedWorkers(
        this.o.workers,
        { queue: this.queue, log: this.o.log, what: "hpa sync", thrown: "aborted", sync: (k) => this.sync(k), ...(this.o.leaderInfo ? { leaderInfo: this.o.leaderInfo } : {}) },
        { errors: m.errors, where: "hpa-sync", syncs: m.hpaSyncs, duration: m.hpaSyncDuration },
      ),
    );
  }

  async drainWorkers(): Promise<void> {
    if (this.resync) clearInterval(this.resync);
    this.queue.shutDown();
    await Promise.allSettled(this.workers);
  }

  /** The memory a sync of `k` starts from: this process's, else (annotation mode) the HPA's. */
  private memoryOf(k: string, hpa: KubeObject): HpaMemory | undefined {
    const kept = this.memory.get(k);
    if (kept !== undefined || this.o.memory !== "annotation") return kept;
    const text = hpa.metadata?.annotations?.[MEMORY_ANNOTATION];
    if (text === undefined) return undefined;
    try {
      const memory = JSON.parse(text) as HpaMemory;
      this.o.log.info("hpa memory read from the annotation", { key: k });
      return memory;
    } catch {
      this.o.log.warn("ignoring an HPA memory annotation that is not JSON", { key: k });
      return undefined;
    }
  }

  /** One sync of HPA `k` (H-29): the engine's steps, each call made here; requeued one period later unless gone. */
  private async sync(k: string): Promise<string> {
    const [namespace, name] = split(k);
    const hpa = this.hpas?.get(k);
    if (!hpa) {
      // H-31: the HPA is gone: its memory goes, and the key is not requeued.
      this.memory.delete(k);
      this.o.metrics.hpaDesiredReplicas.remove({ namespace, hpa: name });
      this.o.log.info("hpa gone: memory dropped", { key: k });
      return "ok";
    }
    const others: RegisteredHpa[] = [];
    for (const [key, selector] of this.selectors) {
      if (key === k) continue;
      const [ns, n] = split(key);
      others.push({ namespace: ns, name: n, selector });
    }
    const calls: string[] = [];
    const host = async (call: HpaCall): Promise<HpaAnswer> => {
      const a = await this.perform(call, namespace);
      this.o.metrics.hpaCalls.inc({ call: call.call, result: a.answer === "error" ? a.reason || "error" : "ok" });
      calls.push(a.answer === "error" ? `${call.call}: ${a.reason} ${a.message}` : call.call);
      return a;
    };
    const input = { now: new Date(), config: this.o.config, key: k, hpa, otherHpaSelectors: others };
    const memory = this.memoryOf(k, hpa);
    let done: HpaSyncDone;
    try {
      done = await runSync(memory === undefined ? input : { ...input, memory }, host);
    } catch (e) {
      if (e instanceof NotLeader) throw e;
      if (isReplicoreError(e) && e.path.startsWith("memory") && memory !== undefined) {
        // A memory annotation the engine cannot read: start without one (as after a restart).
        this.o.log.warn("ignoring an HPA memory annotation the engine cannot read", { key: k, error: e.message });
        done = await runSync(input, host);
      } else {
        this.o.metrics.errors.inc({ where: "malformed" });
        this.o.log.warn("skipping an HPA the engine cannot read", { key: k, error: e instanceof Error ? e.message : String(e) });
        this.queue.addRateLimited(k);
        return "error";
      }
    }
    this.memory.set(k, done.memory);
    if (done.selector !== undefined) this.selectors.set(k, done.selector);
    for (const ev of done.events) {
      this.recorder.record(
        {
          kind: HPA.kind,
          apiVersion: HPA.apiVersion,
          namespace,
          name,
          ...(hpa.metadata?.uid ? { uid: hpa.metadata.uid } : {}),
          ...(hpa.metadata?.resourceVersion ? { resourceVersion: hpa.metadata.resourceVersion } : {}),
        },
        ev,
        EVENT_SOURCE_COMPONENT,
      );
    }
    const desired = (done.status as { desiredReplicas?: unknown }).desiredReplicas;
    if (typeof desired === "number") this.o.metrics.hpaDesiredReplicas.set({ namespace, hpa: name }, desired);
    if (done.rescaledTo !== undefined) {
      const current = (done.status as { currentReplicas?: unknown }).currentReplicas;
      this.o.metrics.hpaRescales.inc({ direction: typeof current === "number" && done.rescaledTo < current ? "down" : "up" });
    }
    if (this.o.memory === "annotation") await this.writeMemory(hpa, done.memory);
    // H-22/H-29/H-134: one sync period later, whatever happened.
    this.queue.addAfter(k, done.requeueAfterSeconds * 1000);
    this.o.log.info("hpa synced", {
      key: k,
      calls,
      events: done.events.map((e) => e.reason),
      ...(done.rescaledTo !== undefined ? { rescaledTo: done.rescaledTo } : {}),
      ...(typeof desired === "number" ? { desired } : {}),
      ...(done.error ? { error: done.error } : {}),
    });
    if (done.error) this.o.metrics.errors.inc({ where: "hpa-sync" });
    return done.error ? "error" : "ok";
  }

  /** --hpa-memory annotation: the memory onto the HPA when it changed (a merge patch of one annotation). */
  private async writeMemory(hpa: KubeObject, memory: HpaMemory): Promise<void> {
    const text = JSON.stringify(memory);
    // Not the leader any more: the next leader starts from the last annotation written.
    if (hpa.metadata?.annotations?.[MEMORY_ANNOTATION] === text || !this.o.mayWrite()) return;
    const path = `/apis/${HPA.apiVersion}/namespaces/${encodeURIComponent(nsOf(hpa))}/${HPA.plural}/${encodeURIComponent(hpa.metadata?.name ?? "")}`;
    try {
      const r = await this.o.clients.raw("PATCH", path, { metadata: { annotations: { [MEMORY_ANNOTATION]: text } } }, "application/merge-patch+json");
      if (ok(r)) {
        this.o.metrics.hpaMemoryWrites.inc({ result: "ok" });
        return;
      }
      const e = rawError(r, `PATCH ${path}`);
      this.o.log.warn("hpa memory not written", { key: keyOf(hpa), error: e.answer === "error" ? e.message : "" });
    } catch (e) {
      this.o.log.warn("hpa memory not written", { key: keyOf(hpa), error: apiError(e).message });
    }
    this.o.metrics.hpaMemoryWrites.inc({ result: "error" });
  }

  // -- the calls ------------------------------------------------------------------------

  private mappings(group: string, kind: string): Promise<Mapping[]> {
    return this.discovery.get(`kind ${group}/${kind}`, () => mappingsOf(this.get, group, kind), (m) => m.length > 0);
  }

  private version(group: string, resource: string): Promise<string | undefined> {
    return this.discovery.get(`resource ${group}/${resource}`, () => versionOf(this.get, group, resource), (v) => v !== undefined);
  }

  /** The scale subresource's path of a resource (its version by discovery). */
  private async scaleUrl(call: { namespace: string; name: string; group: string; resource: string }): Promise<string | HpaAnswer> {
    const version = await this.version(call.group, call.resource);
    if (version === undefined) return { answer: "error", reason: "NotFound", message: `the server could not find the requested resource ${call.resource}.${call.group}` };
    return scalePath(call.group === "" ? version : `${call.group}/${version}`, call.namespace, call.resource, call.name);
  }

  /** Makes one call the engine named; any failure becomes its error answer. */
  private async perform(call: HpaCall, namespace: string): Promise<HpaAnswer> {
    if ((call.call === "updateScale" || call.call === "updateStatus") && !this.o.mayWrite()) throw new NotLeader();
    try {
      switch (call.call) {
        case "resolveTarget": {
          const found = await this.mappings(call.group, call.kind);
          if (found.length === 0) return { answer: "error", reason: "", message: `no matches for kind "${call.kind}" in group "${call.group}"` };
          return { answer: "mappings", resources: found.map((m) => ({ group: call.group, resource: m.resource })) };
        }
        case "getScale": {
          const url = await this.scaleUrl(call);
          if (typeof url !== "string") return url;
          const r = await this.get(url);
          return ok(r) ? { answer: "scale", scale: JSON.parse(r.body) as Record<string, unknown> } : rawError(r, `GET ${url}`);
        }
        case "listPods": {
          // The namespace's cached pods: the engine selects them itself.
          const pods: KubeObject[] = [];
          for (const p of this.pods?.items() ?? []) if (nsOf(p) === call.namespace) pods.push(p);
          return { answer: "pods", pods };
        }
        case "fetchMetric": {
          const q = call.query;
          const path = await metricPath(this.get, q, metricSelector(q));
          const answer = await metricsAnswer(this.get, metricsApiOf(q), path);
          return { answer: "metric", response: metricResponse(q, [answer]) };
        }
        case "updateScale": {
          const url = await this.scaleUrl(call);
          if (typeof url !== "string") return url;
          const r = await this.o.clients.raw("PUT", url, call.scale);
          return ok(r) ? { answer: "ok" } : rawError(r, `PUT ${url}`);
        }
        case "updateStatus": {
          const path = `/apis/${HPA.apiVersion}/namespaces/${encodeURIComponent(call.namespace || namespace)}/${HPA.plural}/${encodeURIComponent(call.name)}/status`;
          const r = await this.o.clients.raw("PUT", path, call.object);
          return ok(r) ? { answer: "ok" } : rawError(r, `PUT ${path}`);
        }
        default: {
          const unknown: never = call;
          return { answer: "error", reason: "BadRequest", message: `unknown call ${JSON.stringify(unknown)}` };
        }
      }
    } catch (e) {
      if (e instanceof NotLeader) throw e;
      const err = apiError(e);
      return { answer: "error", reason: err.reason, message: err.message };
    }
  }
}
