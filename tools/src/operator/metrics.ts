// Prometheus metrics (prom-client) and the /metrics and /healthz endpoint.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { wasmMemoryBytes } from "replicore";

export class Metrics {
  readonly registry = new Registry();
  readonly syncDuration = new Histogram({
    name: "replicore_sync_duration_seconds",
    help: "Duration of one sync of an owner (plan, API calls, status write)",
    labelNames: ["result"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({ name: "replicore_workqueue_depth", help: "Keys waiting in the work queue", registers: [this.registry] });
  readonly retries = new Counter({ name: "replicore_workqueue_retries_total", help: "Rate-limited re-adds of a key", registers: [this.registry] });
  readonly creates = new Counter({ name: "replicore_pod_creates_total", help: "Pod create calls", labelNames: ["result"] as const, registers: [this.registry] });
  readonly deletes = new Counter({ name: "replicore_pod_deletes_total", help: "Pod delete calls", labelNames: ["result"] as const, registers: [this.registry] });
  readonly errors = new Counter({
    name: "replicore_errors_total",
    help: "Errors by where they happened (sync, status, claim, event, watch, malformed, permission)",
    labelNames: ["where"] as const,
    registers: [this.registry],
  });
  // Per API client (label controller: replicaset-controller, deployment-controller,
  // shared-informers, leader-election), as client-go's rest_client_* metrics.
  readonly apiRequests = new Counter({
    name: "replicore_api_requests_total",
    help: "API requests answered, by client, method and HTTP status (watches not counted)",
    labelNames: ["controller", "method", "code"] as const,
    registers: [this.registry],
  });
  readonly apiRateLimiterWait = new Histogram({
    name: "replicore_api_rate_limiter_duration_seconds",
    help: "Time a request (a watch included) waited for its client's token bucket",
    labelNames: ["controller"] as const,
    buckets: [0, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly apiConflicts = new Counter({
    name: "replicore_api_conflicts_total",
    help: "409 Conflict answers to writes, by client and write (verb and resource, e.g. update deployments/status)",
    labelNames: ["controller", "write"] as const,
    registers: [this.registry],
  });
  readonly eventsDropped = new Counter({
    name: "replicore_events_dropped_total",
    help: "Events not recorded because the controller's event queue was full (client-go's broadcaster drops them too)",
    labelNames: ["controller"] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({ name: "replicore_leader", help: "1 while this process holds the lease", registers: [this.registry] });
  readonly wasmMemory = new Gauge({
    name: "replicore_wasm_memory_bytes",
    help: "The engine's wasm linear memory (grows with the stored owners and pods, never shrinks)",
    registers: [this.registry],
    collect() {
      this.set(wasmMemoryBytes());
    },
  });
  /** Set by the ReplicaSet controller once its informers exist. */
  cacheSizes: () => Record<string, number> = () => ({});
  /** Set by the Deployment controller once its informers exist (labels prefixed "deployment/"). */
  deploymentCacheSizes: () => Record<string, number> = () => ({});
  /** Objects in each informer's cache, every controller's. */
  allCacheSizes(): Record<string, number> {
    return { ...this.cacheSizes(), ...this.deploymentCacheSizes(), ...this.hpaCacheSizes() };
  }
  /** Objects in all the informers' caches. */
  cachedObjects(): number {
    return Object.values(this.allCacheSizes()).reduce((a, b) => a + b, 0);
  }
  readonly heapCompactions = new Counter({
    name: "replicore_heap_compactions_total",
    help: "Full collections run because the informers' caches shrank by a quarter or more (memory.ts)",
    registers: [this.registry],
  });
  readonly cached = (() => {
    const sizes = (): Record<string, number> => this.allCacheSizes();
    return new Gauge({
      name: "replicore_informer_objects",
      help: "Objects in the informers' caches",
      labelNames: ["informer"] as const,
      registers: [this.registry],
      collect() {
        for (const [informer, n] of Object.entries(sizes())) this.set({ informer }, n);
      },
    });
  })();

  // The Deployment controller's own (its queue and syncs are apart from the ReplicaSet controller's).
  readonly deploymentSyncs = new Counter({
    name: "replicore_deployment_syncs_total",
    help: "Syncs of a Deployment by result (ok; error: the sync returned an error; aborted: not the leader or an internal failure)",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });
  readonly deploymentSyncDuration = new Histogram({
    name: "replicore_deployment_sync_duration_seconds",
    help: "Duration of one sync of a Deployment (the engine's steps and their API calls)",
    labelNames: ["result"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly deploymentQueueDepth = new Gauge({ name: "replicore_deployment_workqueue_depth", help: "Deployment keys waiting in the work queue", registers: [this.registry] });
  readonly deploymentRetries = new Counter({ name: "replicore_deployment_workqueue_retries_total", help: "Rate-limited re-adds of a Deployment key", registers: [this.registry] });
  readonly deploymentCalls = new Counter({
    name: "replicore_deployment_api_calls_total",
    help: "API calls the engine's Deployment syncs asked for, by call and result",
    labelNames: ["call", "result"] as const,
    registers: [this.registry],
  });

  // The HorizontalPodAutoscaler controller's own.
  readonly hpaSyncs = new Counter({ name: "replicore_hpa_syncs_total", help: "Syncs of an HPA, by result (ok, error: the engine's sync ended with an error; aborted)", labelNames: ["result"] as const, registers: [this.registry] });
  readonly hpaSyncDuration = new Histogram({
    name: "replicore_hpa_sync_duration_seconds",
    help: "Duration of one sync of an HPA (the engine's steps and their API and metrics calls)",
    labelNames: ["result"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly hpaQueueDepth = new Gauge({ name: "replicore_hpa_workqueue_depth", help: "HPA keys ready in the work queue", registers: [this.registry] });
  readonly hpaCalls = new Counter({
    name: "replicore_hpa_api_calls_total",
    help: "Calls the engine's HPA syncs asked for (resolveTarget, getScale, listPods, fetchMetric, updateScale, updateStatus), by result",
    labelNames: ["call", "result"] as const,
    registers: [this.registry],
  });
  readonly hpaDesiredReplicas = new Gauge({
    name: "replicore_hpa_desired_replicas",
    help: "The replica count each HPA's last sync wanted (status.desiredReplicas), by namespace and HPA",
    labelNames: ["namespace", "hpa"] as const,
    registers: [this.registry],
  });
  readonly hpaRescales = new Counter({ name: "replicore_hpa_rescales_total", help: "Scale writes an HPA sync made", labelNames: ["direction"] as const, registers: [this.registry] });
  readonly hpaAutoscalers = new Gauge({ name: "replicore_hpa_autoscalers", help: "HPAs the controller knows (its selector registry)", registers: [this.registry] });
  readonly hpaMemoryWrites = new Counter({ name: "replicore_hpa_memory_writes_total", help: "Writes of the memory annotation (--hpa-memory annotation), by result", labelNames: ["result"] as const, registers: [this.registry] });
  /** Set by the HPA controller once its informers exist (labels prefixed "hpa/"). */
  hpaCacheSizes: () => Record<string, number> = () => ({});

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const r of ["ok", "error"]) {
      this.creates.inc({ result: r }, 0);
      this.deletes.inc({ result: r }, 0);
      this.deploymentSyncs.inc({ result: r }, 0);
      this.hpaSyncs.inc({ result: r }, 0);
    }
  }
}

/** Serves /metrics and /healthz (200 while `healthy()`), /readyz (200 while `ready()`). */
export async function serveOps(metrics: Metrics, port: number, host: string, healthy: () => boolean, ready: () => boolean): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/metrics") {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { "Content-Type": metrics.registry.contentType });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
      return;
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    if (path === "/debug/gc" && typeof gc === "function") {
      // Only when node runs with --expose-gc (tools/bench/operator.mjs): a full collection,
      // then what is left (the live heap, the wasm memory).
      gc();
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ ...process.memoryUsage(), wasmMemory: wasmMemoryBytes() }));
      return;
    }
    if (path === "/healthz" || path === "/readyz") {
      const ok = path === "/healthz" ? healthy() : ready();
      res.writeHead(ok ? 200 : 503, { "Content-Type": "text/plain" });
      res.end(ok ? "ok" : "not ok");
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return { server, url: `http://${a.address}:${a.port}` };
}
