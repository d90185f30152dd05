// The Deployment controller's host: informers on Deployments, ReplicaSets and pods feed
// the engine's event rules (D-110..D-114), a rate-limited work queue hands Deployment
// keys to workers, and each sync runs the engine's step machine, turning every ApiCall
// it names into the API request and reporting the answer back (a Conflict included: the
// engine ends the sync with that error and the queue retries it, D-115, as upstream does,
// so no update is lost). Which ReplicaSet is new, how far to scale, the status, the
// conditions, when to look again: all the engine's (./engine.ts).

import type { KubernetesListObject, V1Pod } from "@kubernetes/client-node";
import { strategicMergePatch, type Json } from "../../devserver/patch.js";
import type { Access } from "../access.js";
import { keysForPodDeleted, keysForReplicaSetEvent, queueAction, readsPods, runSync, type ApiCall, type ApiResult, type DeploymentKinds, type KubeObject, type SyncDone } from "./engine.js";
import { controllerInformer, type Informer, type InformerEvent } from "../informer.js";
import { apiError, patchOptions, type Clients, type OwnerResource } from "../kube.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { ControllerRateLimiter, WorkQueue, type RateLimiterOptions } from "../queue.js";
import { EventRecorder } from "../recorder.js";
import { trimPod } from "../transform.js";
import { countedWorkers, NotLeader } from "../worker.js";

export interface DeploymentControllerOptions {
  /** The controller's own client: its writes, live reads and events. */
  clients: Clients;
  /** The informers' lists and watches (kube-controller-manager's shared-informers client); default `clients`. */
  informerClients?: Clients;
  /** The Deployment resource (apps/v1 Deployment, or replicore.dev/v1alpha1 ReplicaDeployment). */
  deployment: OwnerResource;
  /** The ReplicaSet resource its ReplicaSets are (apps/v1 ReplicaSet, or ReplicaPool). */
  replicaSet: OwnerResource;
  workers: number;
  log: Logger;
  metrics: Metrics;
  /** The controller's event recorder (one writing through `clients` is made when not given). */
  recorder?: EventRecorder;
  /** Whether this process may write now (leader election); checked before every write. */
  mayWrite: () => boolean;
  leaderInfo?: () => Record<string, unknown>;
  rateLimits?: RateLimiterOptions;
  watchBackoffMs?: { min: number; max: number };
  access?: Access;
  /** What its own pod cache keeps of a pod (default: the fields the engine reads, ../transform.ts). */
  podTransform?: (pod: V1Pod) => V1Pod;
}

/** The event source kube-controller-manager's Deployment controller records as. */
const EVENT_SOURCE_COMPONENT = "deployment-controller";

function split(k: string): [string, string] {
  const i = k.indexOf("/");
  return [k.slice(0, i), k.slice(i + 1)];
}

const nsOf = (o: KubeObject): string => o.metadata?.namespace ?? "";

export class DeploymentController {
  readonly queue: WorkQueue;
  readonly recorder: EventRecorder;
  /** The kinds the engine works with: the resources' own (custom resources included). */
  private readonly kinds: DeploymentKinds;
  private deployments: Informer<KubeObject> | undefined;
  private replicaSets: Informer<KubeObject> | undefined;
  private pods: Informer<KubeObject> | undefined;
  /** The informers started here (not the shared ones). */
  private readonly own: Informer<KubeObject>[] = [];
  private workers: Promise<void>[] = [];

  constructor(private readonly o: DeploymentControllerOptions) {
    this.kinds = {
      deployment: { apiVersion: o.deployment.apiVersion, kind: o.deployment.kind },
      replicaSet: { apiVersion: o.replicaSet.apiVersion, kind: o.replicaSet.kind },
    };
    this.recorder = o.recorder ?? new EventRecorder(o.clients, o.log, o.metrics, EVENT_SOURCE_COMPONENT);
    this.queue = new WorkQueue(new ControllerRateLimiter(o.rateLimits), {
      depth: (n) => o.metrics.deploymentQueueDepth.set(n),
      retry: () => o.metrics.deploymentRetries.inc(),
    });
  }

  // -- informers ------------------------------------------------------------------------

  private informer(name: string, r: OwnerResource | "pods", onEvent: (e: InformerEvent<KubeObject>) => void): Informer<KubeObject> {
    const { kc, core, custom } = this.o.informerClients ?? this.o.clients;
    const path = r === "pods" ? "/api/v1/pods" : `/apis/${r.group}/${r.version}/${r.plural}`;
    const list =
      r === "pods"
        ? async () => (await core.listPodForAllNamespaces()) as unknown as KubernetesListObject<KubeObject>
        : async () => (await custom.listClusterCustomObject({ group: r.group, version: r.version, plural: r.plural })) as KubernetesListObject<KubeObject>;
    return controllerInformer<KubeObject>(
      {
        name: `deployment-controller/${name}`,
        kc,
        path,
        list,
        // The pods keep only the fields the engine reads, as the ReplicaSet controller's.
        ...(r === "pods" && !process.env["REPLICORE_NO_POD_TRANSFORM"] ? { transform: (p: KubeObject) => (this.o.podTransform ?? trimPod)(p as V1Pod) as KubeObject } : {}),
        log: this.o.log,
        onEvent,
      },
      { errors: this.o.metrics.errors, access: this.o.access, backoffMs: this.o.watchBackoffMs },
    );
  }

  /**
   * Starts the informers; with `shared` (the ReplicaSet controller's, started, on the same
   * ReplicaSet resource), its pod and ReplicaSet caches are read and their events
   * subscribed to instead of a second list and watch of each (client-go's shared
   * informers). Events delivered before subscribing need no handling: no Deployment is
   * cached yet, and every cached Deployment is queued when the workers start.
   */
  async startInformers(shared?: { pods: Informer<KubeObject>; replicaSets: Informer<KubeObject> }): Promise<void> {
    if (shared) {
      this.pods = shared.pods;
      this.replicaSets = shared.replicaSets;
      this.pods.subscribe((e) => this.podEvent(e));
      this.replicaSets.subscribe((e) => this.replicaSetEvent(e));
    } else {
      this.own.push((this.pods = this.informer("Pod", "pods", (e) => this.podEvent(e))));
      this.own.push((this.replicaSets = this.informer(this.o.replicaSet.kind, this.o.replicaSet, (e) => this.replicaSetEvent(e))));
    }
    this.own.push((this.deployments = this.informer(this.o.deployment.kind, this.o.deployment, (e) => this.deploymentEvent(e))));
    // Pods and ReplicaSets first, so the first syncs see them (upstream waits for all caches).
    for (const inf of this.own) await inf.start();
    const [d, rs, p] = [this.deployments, this.replicaSets, this.pods];
    const dk = this.o.deployment.kind;
    const rk = this.o.replicaSet.kind;
    this.o.metrics.deploymentCacheSizes = () => (shared ? { [dk]: d.size() } : { [dk]: d.size(), [`deployment/${rk}`]: rs.size(), "deployment/Pod": p.size() });
    this.o.log.info("deployment caches synced", { deployments: d.size(), replicaSets: rs.size(), sharedWithReplicaSetController: shared !== undefined });
  }

  /** The pod informer, once started (its own or the shared one), for a controller that shares its cache. */
  podInformer(): Informer<KubeObject> | undefined {
    return this.pods;
  }

  /** Stops the informers this controller started (shared ones are their owner's to stop). */
  async stopInformers(): Promise<void> {
    for (const inf of [...this.own].reverse()) await inf.stop();
  }

  /** The cached objects of `inf` in `namespace`. */
  private inNamespace(inf: Informer<KubeObject> | undefined, namespace: string): KubeObject[] {
    const out: KubeObject[] = [];
    if (!inf) return out;
    for (const o of inf.items()) if (nsOf(o) === namespace) out.push(o);
    return out;
  }

  private hasDeploymentIn(namespace: string): boolean {
    for (const d of this.deployments?.items() ?? []) if (nsOf(d) === namespace) return true;
    return false;
  }

  /** D-110: a Deployment added, updated or deleted enqueues itself. */
  private deploymentEvent(e: InformerEvent<KubeObject>): void {
    this.queue.add(`${nsOf(e.object)}/${e.object.metadata?.name ?? ""}`);
  }

  /** D-111..D-113, decided by the engine over the namespace's cached Deployments. */
  private replicaSetEvent(e: InformerEvent<KubeObject>): void {
    const ns = nsOf(e.object);
    this.enqueue(() => keysForReplicaSetEvent(e, this.inNamespace(this.deployments, ns), this.kinds), e);
  }

  /** D-114: only a pod deletion can matter (a Recreate rollout waits for the old pods to go). */
  private podEvent(e: InformerEvent<KubeObject>): void {
    if (e.type !== "deleted") return;
    const ns = nsOf(e.object);
    const pod = e.object;
    this.enqueue(() => {
      // Only the Deployments whose handling reads pods can be enqueued (the engine's
      // answer); with none, the namespace's pods need not cross.
      const deployments = this.inNamespace(this.deployments, ns).filter((d) => readsPods(d));
      return deployments.length === 0 ? [] : keysForPodDeleted(pod, this.inNamespace(this.replicaSets, ns), deployments, this.inNamespace(this.pods, ns), this.kinds);
    }, e);
  }

  private enqueue(keys: () => string[], e: InformerEvent<KubeObject>): void {
    // The engine's handlers resolve to a cached Deployment of the object's namespace:
    // with none cached there, the answer is no key, and the objects need not cross.
    if (!this.hasDeploymentIn(nsOf(e.object))) return;
    let ks: string[];
    try {
      ks = keys();
    } catch (err) {
      this.o.metrics.errors.inc({ where: "malformed" });
      this.o.log.warn("skipping an object the engine cannot read", { event: e.type, kind: e.object.kind, name: e.object.metadata?.name, namespace: nsOf(e.object), error: (err as Error).message });
      return;
    }
    for (const k of ks) this.queue.add(k);
  }

  // -- workers --------------------------------------------------------------------------

  startWorkers(): void {
    for (const d of this.deployments?.items() ?? []) this.queue.add(`${nsOf(d)}/${d.metadata?.name ?? ""}`);
    const m = this.o.metrics;
    this.workers.push(
      ...countedWorkers(
        this.o.workers,
        { queue: this.queue, log: this.o.log, what: "deployment sync", thrown: "aborted", sync: (k) => this.sync(k), ...(this.o.leaderInfo ? { leaderInfo: this.o.leaderInfo } : {}) },
        { errors: m.errors, where: "deployment-sync", syncs: m.deploymentSyncs, duration: m.deploymentSyncDuration },
      ),
    );
  }

  /** Stops taking keys and waits for the syncs in flight. */
  async drainWorkers(): Promise<void> {
    this.queue.shutDown();
    await Promise.allSettled(this.workers);
  }

  /** One sync of Deployment `k`: the engine's steps, each call made here. */
  private async sync(k: string): Promise<string> {
    const [namespace] = split(k);
    const cached = this.deployments?.get(k);
    const deployment = cached ?? null;
    const calls: string[] = [];
    const done: SyncDone = await runSync(
      {
        now: new Date(),
        kinds: this.kinds,
        key: k,
        deployment,
        replicaSets: this.inNamespace(this.replicaSets, namespace),
        // A sync that does not read pods (the engine says which) gets none.
        pods: deployment && readsPods(deployment) ? this.inNamespace(this.pods, namespace) : [],
      },
      async (call) => {
        const r = await this.perform(call);
        this.o.metrics.deploymentCalls.inc({ call: call.call, result: r.result === "ok" ? "ok" : r.reason || "error" });
        calls.push(r.result === "ok" ? `${call.call} ${call.name}` : `${call.call} ${call.name}: ${r.reason}`);
        return r;
      },
    );
    if (cached) {
      for (const ev of done.events) {
        this.recorder.record(
          {
            kind: this.o.deployment.kind,
            apiVersion: this.o.deployment.apiVersion,
            namespace,
            name: cached.metadata?.name ?? "",
            ...(cached.metadata?.uid ? { uid: cached.metadata.uid } : {}),
            ...(cached.metadata?.resourceVersion ? { resourceVersion: cached.metadata.resourceVersion } : {}),
          },
          ev,
          EVENT_SOURCE_COMPONENT,
        );
      }
    }
    // The progress check's own requeue (D-78), made inside upstream's sync ...
    if (done.requeue.kind === "after") this.queue.addAfter(k, done.requeue.after * 1000);
    else if (done.requeue.kind === "rateLimited") this.queue.addRateLimited(k);
    // ... then handleErr (D-115).
    const action = queueAction(done, this.queue.limiter.numRequeues(k));
    this.o.log.info("deployment synced", {
      key: k,
      calls,
      events: done.events.map((e) => e.reason),
      requeue: done.requeue.kind === "after" ? `after ${done.requeue.after}s` : done.requeue.kind,
      queue: action,
      ...(done.error ? { error: done.error.message } : {}),
    });
    switch (action) {
      case "forget":
        this.queue.forget(k);
        return done.error ? "error" : "ok";
      case "requeueRateLimited":
        this.o.metrics.errors.inc({ where: "deployment-sync" });
        this.queue.addRateLimited(k);
        return "error";
      case "drop":
        this.o.metrics.errors.inc({ where: "deployment-sync" });
        this.o.log.warn("dropping deployment out of the queue", { key: k, error: done.error?.message });
        this.queue.forget(k);
        return "error";
    }
  }

  private ref(r: OwnerResource, namespace: string, name?: string): { group: string; version: string; plural: string; namespace: string; name: string } {
    return { group: r.group, version: r.version, plural: r.plural, namespace, name: name ?? "" };
  }

  /** Makes one call the engine named; any API answer becomes its ApiResult. */
  private async perform(call: ApiCall): Promise<ApiResult> {
    if (call.call !== "getDeployment" && !this.o.mayWrite()) throw new NotLeader();
    const { custom } = this.o.clients;
    const dep = this.o.deployment;
    const rs = this.o.replicaSet;
    const ok = (object: unknown): ApiResult => ({ result: "ok", object: object as KubeObject });
    try {
      switch (call.call) {
        case "getDeployment":
          return ok(await custom.getNamespacedCustomObject(this.ref(dep, call.namespace, call.name)));
        case "patchReplicaSet":
          return ok(await this.patchReplicaSet(call));
        case "createReplicaSet": {
          const { name: _name, ...ref } = this.ref(rs, call.namespace);
          void _name;
          return ok(await custom.createNamespacedCustomObject({ ...ref, body: call.object }));
        }
        case "updateReplicaSet":
          return ok(await custom.replaceNamespacedCustomObject({ ...this.ref(rs, call.namespace, call.name), body: call.object }));
        case "deleteReplicaSet":
          await custom.deleteNamespacedCustomObject(this.ref(rs, call.namespace, call.name));
          return { result: "ok" };
        case "updateDeployment":
          return ok(await custom.replaceNamespacedCustomObject({ ...this.ref(dep, call.namespace, call.name), body: call.object }));
        case "updateDeploymentStatus":
          return ok(await this.updateStatus(call));
        default: {
          const unknown: never = call;
          return { result: "error", reason: "BadRequest", message: `unknown call ${JSON.stringify(unknown)}` };
        }
      }
    } catch (e) {
      if (e instanceof NotLeader) throw e;
      return { result: "error", ...apiError(e) };
    }
  }

  /**
   * PUT …/status. apps/v1's status strategy keeps the metadata a status write carries
   * (the Deployment controller writes the revision annotations that way); a custom
   * resource's keeps only the status. For a custom resource whose annotations the write
   * changes, the object itself is written first (its annotations), then the status on
   * the resourceVersion that returned; either answer is the call's.
   */
  private async updateStatus(call: Extract<ApiCall, { call: "updateDeploymentStatus" }>): Promise<unknown> {
    const { custom } = this.o.clients;
    const ref = this.ref(this.o.deployment, call.namespace, call.name);
    let body = call.object;
    const cached = this.deployments?.get(`${call.namespace}/${call.name}`);
    if (this.o.deployment.group !== "apps" && JSON.stringify(cached?.metadata?.annotations ?? {}) !== JSON.stringify(body.metadata?.annotations ?? {})) {
      const written = (await custom.replaceNamespacedCustomObject({ ...ref, body })) as KubeObject;
      body = { ...body, metadata: { ...body.metadata, ...(written.metadata?.resourceVersion ? { resourceVersion: written.metadata.resourceVersion } : {}) } };
    }
    return custom.replaceNamespacedCustomObjectStatus({ ...ref, body });
  }

  /**
   * Adopt or release (D-21). A custom resource takes no strategic merge patch: the same
   * patch is applied to a fresh read and written back with its resourceVersion (a
   * Conflict is the call's answer, as a failed patch would be).
   */
  private async patchReplicaSet(call: Extract<ApiCall, { call: "patchReplicaSet" }>): Promise<unknown> {
    const { custom } = this.o.clients;
    const ref = this.ref(this.o.replicaSet, call.namespace, call.name);
    const patch = call.patch;
    if (this.o.replicaSet.group === "apps" || call.patchType !== "application/strategic-merge-patch+json") {
      return custom.patchNamespacedCustomObject({ ...ref, body: patch }, patchOptions(call.patchType));
    }
    const current = (await custom.getNamespacedCustomObject(ref)) as Json;
    const next = strategicMergePatch(structuredClone(current), patch as Json) as KubeObject;
    return custom.replaceNamespacedCustomObject({ ...ref, body: next });
  }
}
