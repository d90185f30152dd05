// `replicore operator`: leader election, then informers and workers until SIGTERM/SIGINT
// (graceful: in-flight syncs and calls finish, the lease is released) or until the lease
// is lost (all work stops, exit 1, as kube-controller-manager does).
//
// The operator's files: one folder per controller, each a controller.ts (its informers,
// work queue, workers and API calls) and an engine.ts (every engine call it makes):
// replicaset/, deployment/, horizontalpodautoscaler/ (a controller added later gets a
// folder of its own and a line in CONTROLLER_CLIENTS). Beside them what the controllers share, as kube-controller-
// manager's do: informer.ts, queue.ts and worker.ts (the work queue and its workers),
// leader.ts (the Lease), recorder.ts (events), clients.ts, kube.ts, http.ts and
// ratelimit.ts (API clients), access.ts (401/403), transform.ts (trimmed pods),
// metrics.ts and log.ts.

import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { parseCommandArgs, stringValue, type Parsed } from "../cli/args.js";
import { CliError, emit, usageError } from "../cli/io.js";
import { Access, describe, remedy, type Denial } from "./access.js";
import { Controller } from "./replicaset/controller.js";
import { DeploymentController } from "./deployment/controller.js";
import { HorizontalPodAutoscalerController, MEMORY_ANNOTATION, type MemoryMode } from "./horizontalpodautoscaler/controller.js";
import { defaultHpaConfig } from "./horizontalpodautoscaler/engine.js";
import { trimPodForAll } from "./transform.js";
import { ClientFactory, LEADER_ELECTION_CLIENT, SHARED_INFORMERS_CLIENT } from "./clients.js";
import type { Informer } from "./informer.js";
import type { KubeObject } from "./deployment/engine.js";
import { loadKubeConfig, parseOwner } from "./kube.js";
import { DEFAULT_LEASE, LeaderElector } from "./leader.js";
import { makeLogger, type Level } from "./log.js";
import { DEFAULT_CLIENT_RATE_LIMIT } from "./ratelimit.js";
import { Compactor } from "./memory.js";
import { Metrics, serveOps } from "./metrics.js";
import { defaultConfig } from "replicore";

/** The engine's configuration defaults (the flags below fall back to them). */
const ENGINE_DEFAULTS = defaultConfig();
/** The owner resource by default: the engine's owner kind (apps/v1 ReplicaSet), as G/V/Kind. */
const ENGINE_OWNER = `${ENGINE_DEFAULTS.ownerKind.apiVersion}/${ENGINE_DEFAULTS.ownerKind.kind}`;
/** The HPA controller's settings by default (kube-controller-manager's flag defaults). */
const HPA_DEFAULTS = defaultHpaConfig();
/** Concurrent syncs per controller unless told (kube-controller-manager's --concurrent-replicaset-syncs and --concurrent-deployment-syncs). */
const DEFAULT_WORKERS = 5;

export const OPERATOR_USAGE = `usage: replicore operator [options]

The ReplicaSet, Deployment and HorizontalPodAutoscaler controllers, as
kube-controller-manager runs them, every decision the engine's. The ReplicaSet controller watches the owners and their pods, adopts
and releases, creates in slow-start batches, deletes the engine's ranked victims, writes
status and events. The Deployment controller runs the engine's sync of each Deployment:
it creates, scales and cleans up its ReplicaSets within maxSurge/maxUnavailable, rolls
back, writes the status and conditions, and looks again at the progress deadline. The
HorizontalPodAutoscaler controller syncs each autoscaling/v2 HPA every sync period: it
reads its target's scale subresource (any kind, through discovery) and the metrics APIs
(metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io), writes the scale and
the status, records events. One replica acts at a time (a coordination.k8s.io/v1 Lease).

connection:
  --kubeconfig FILE       kubeconfig (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context NAME          kubeconfig context
  --server URL            an API server without credentials (the dev server)
  --kube-api-qps Q        requests per second to the API server, per client (default
                          ${DEFAULT_CLIENT_RATE_LIMIT.qps}, as kube-controller-manager; 0 = no limit)
  --kube-api-burst N      requests at once after a quiet spell, per client (default ${DEFAULT_CLIENT_RATE_LIMIT.burst})
                          Each controller has a client of its own (user agent
                          replicore/replicaset-controller, …), as have the shared
                          informers and the leader election: each its own bucket.
what it manages:
  --controllers LIST      any of replicaset, deployment, horizontalpodautoscaling
                          (default: all three)
  --owner G/V/Kind        the owner resource (default ${ENGINE_OWNER}); a ReplicaSet-
                          shaped custom resource, e.g. replicore.dev/v1alpha1/ReplicaPool
  --owner-plural NAME     its plural, if not the lowercased kind + "s"
  --burst-replicas N      creates or deletes per sync (default ${ENGINE_DEFAULTS.burstReplicas})
  --workers N             concurrent syncs of owners (default ${DEFAULT_WORKERS})
  --deployment-owner G/V/Kind
                          the Deployment resource (default apps/v1/Deployment); a
                          Deployment-shaped custom resource, e.g.
                          replicore.dev/v1alpha1/ReplicaDeployment, whose ReplicaSets
                          are the --owner resource (e.g. ReplicaPools)
  --deployment-owner-plural NAME
                          its plural, if not the lowercased kind + "s"
  --deployment-workers N  concurrent syncs of Deployments (default ${DEFAULT_WORKERS})
the HorizontalPodAutoscaler controller (kube-controller-manager's flags and defaults):
  --horizontal-pod-autoscaler-sync-period D
                          how often each HPA is synced (default ${HPA_DEFAULTS.syncPeriodSeconds}s)
  --horizontal-pod-autoscaler-tolerance F
                          the ratio change that is no change (default ${HPA_DEFAULTS.tolerance})
  --horizontal-pod-autoscaler-downscale-stabilization D
                          look-back window of a scale-down (default ${HPA_DEFAULTS.downscaleStabilizationWindowSeconds}s)
  --horizontal-pod-autoscaler-cpu-initialization-period D
                          a starting pod's CPU samples are skipped this long (default ${HPA_DEFAULTS.cpuInitializationPeriodSeconds}s)
  --horizontal-pod-autoscaler-initial-readiness-delay D
                          a starting pod's readiness changes are ignored this long
                          (default ${HPA_DEFAULTS.delayOfInitialReadinessStatusSeconds}s)
  --concurrent-horizontal-pod-autoscaler-syncs N
                          concurrent syncs of HPAs (default ${DEFAULT_WORKERS})
  --hpa-memory MODE       where each HPA's recommendations and scale events are kept
                          between syncs: process (default, as upstream: a restarted or
                          new leader starts without them, so its first scale-downs skip
                          the stabilization window's history) or annotation (also
                          written to the HPA's ${MEMORY_ANNOTATION} annotation
                          and read back by a new leader)
leader election:
  --no-leader-elect       act without a lease (a single replica only)
  --lease-namespace NS    (default: $POD_NAMESPACE, else "replicore-system", where
                          tools/deploy/rbac.yaml grants the Lease)
  --lease-name NAME       (default "replicore-operator")
  --identity ID           (default: hostname_<uuid>)
  --lease-duration D      (default ${DEFAULT_LEASE.leaseDurationMs / 1000}s)
  --renew-deadline D      (default ${DEFAULT_LEASE.renewDeadlineMs / 1000}s)
  --retry-period D        (default ${DEFAULT_LEASE.retryPeriodMs / 1000}s)
operations:
  --metrics-port P        /metrics, /healthz and /readyz (default 8080; 0 = any free port)
  --metrics-host H        (default 127.0.0.1; 0.0.0.0 for probes and scrapes from other
                          hosts, as tools/deploy/deployment.yaml sets)
  --log-level L           debug, info, warn, error (default info)
durations: 15s, 500ms, 2m, or a number of milliseconds.

A 401 Unauthorized or 403 Forbidden before the operator runs (the Lease, the first lists
and watches) ends it with exit status 1 and one line naming the verb, resource, namespace
and identity, and what to grant or pass; so does a lease namespace that does not exist.
Later, a denial is logged ("not permitted") and /readyz answers 503 until that request
succeeds again.
`;

/**
 * The controllers --controllers can name, each with the name of its API client
 * (kube-controller-manager's ControllerContext.NewClient(name)): user agent
 * replicore/<name>, a token bucket of its own, its requests counted under
 * controller="<name>". A controller added to the operator adds its line here.
 */
export const CONTROLLER_CLIENTS = {
  replicaset: "replicaset-controller",
  deployment: "deployment-controller",
  horizontalpodautoscaling: "horizontal-pod-autoscaler",
} as const;
type ControllerName = keyof typeof CONTROLLER_CLIENTS;
const isControllerName = (c: string): c is ControllerName => Object.hasOwn(CONTROLLER_CLIENTS, c);

/** The lease namespace when neither --lease-namespace nor $POD_NAMESPACE says: tools/deploy/rbac.yaml's. */
export const DEFAULT_LEASE_NAMESPACE = "replicore-system";
/** Metrics, /healthz and /readyz listen here unless --metrics-host says otherwise. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** A denial's fields for a JSON log line. */
function denialFields(d: Denial): Record<string, unknown> {
  return {
    status: d.status,
    verb: d.verb,
    resource: d.resource,
    namespace: d.namespace ?? "(cluster scope)",
    ...(d.name !== undefined ? { name: d.name } : {}),
    identity: d.identity,
    remedy: remedy(d),
    error: d.message,
  };
}

function duration(p: Parsed, name: string, dflt: number): number {
  const v = stringValue(p, name);
  if (v === undefined) return dflt;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v);
  if (!m) throw usageError(`--${name}: expected a duration like 15s, 500ms or 2m, got '${v}'`, "operator");
  const n = Number(m[1]);
  return m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60_000 : n;
}

function count(p: Parsed, name: string, dflt: number, min = 0): number {
  const v = stringValue(p, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${name}: expected a whole number >= ${min}, got '${v}'`, "operator");
  return n;
}

/** A duration flag in whole seconds (the engine's unit for the HPA settings). */
function seconds(p: Parsed, name: string, dflt: number): number {
  const ms = duration(p, name, dflt * 1000);
  if (!Number.isInteger(ms / 1000)) throw usageError(`--${name}: expected whole seconds, got '${stringValue(p, name)}'`, "operator");
  return ms / 1000;
}

/** The HPA controller's settings from its flags (each left out: the engine's default). */
function hpaFlags(p: Parsed): typeof HPA_DEFAULTS {
  const toleranceText = stringValue(p, "horizontal-pod-autoscaler-tolerance");
  const tolerance = toleranceText === undefined ? HPA_DEFAULTS.tolerance : Number(toleranceText);
  if (!Number.isFinite(tolerance) || tolerance < 0) throw usageError(`--horizontal-pod-autoscaler-tolerance: expected a number >= 0, got '${toleranceText}'`, "operator");
  const syncPeriodSeconds = seconds(p, "horizontal-pod-autoscaler-sync-period", HPA_DEFAULTS.syncPeriodSeconds);
  if (syncPeriodSeconds < 1) throw usageError("--horizontal-pod-autoscaler-sync-period: expected at least 1s", "operator");
  return {
    ...HPA_DEFAULTS,
    tolerance,
    syncPeriodSeconds,
    downscaleStabilizationWindowSeconds: seconds(p, "horizontal-pod-autoscaler-downscale-stabilization", HPA_DEFAULTS.downscaleStabilizationWindowSeconds),
    cpuInitializationPeriodSeconds: seconds(p, "horizontal-pod-autoscaler-cpu-initialization-period", HPA_DEFAULTS.cpuInitializationPeriodSeconds),
    delayOfInitialReadinessStatusSeconds: seconds(p, "horizontal-pod-autoscaler-initial-readiness-delay", HPA_DEFAULTS.delayOfInitialReadinessStatusSeconds),
  };
}

export async function operatorCommand(args: string[]): Promise<number> {
  const p = parseCommandArgs("operator", args, {
    kubeconfig: { type: "string" },
    context: { type: "string" },
    server: { type: "string" },
    "kube-api-qps": { type: "string" },
    "kube-api-burst": { type: "string" },
    owner: { type: "string" },
    "owner-plural": { type: "string" },
    controllers: { type: "string" },
    "deployment-owner": { type: "string" },
    "deployment-owner-plural": { type: "string" },
    "deployment-workers": { type: "string" },
    "burst-replicas": { type: "string" },
    workers: { type: "string" },
    "no-leader-elect": { type: "boolean" },
    "lease-namespace": { type: "string" },
    "lease-name": { type: "string" },
    identity: { type: "string" },
    "lease-duration": { type: "string" },
    "renew-deadline": { type: "string" },
    "retry-period": { type: "string" },
    "metrics-port": { type: "string" },
    "metrics-host": { type: "string" },
    "log-level": { type: "string" },
    "horizontal-pod-autoscaler-sync-period": { type: "string" },
    "horizontal-pod-autoscaler-tolerance": { type: "string" },
    "horizontal-pod-autoscaler-downscale-stabilization": { type: "string" },
    "horizontal-pod-autoscaler-cpu-initialization-period": { type: "string" },
    "horizontal-pod-autoscaler-initial-readiness-delay": { type: "string" },
    "concurrent-horizontal-pod-autoscaler-syncs": { type: "string" },
    "hpa-memory": { type: "string" },
  });
  if (p.values["help"]) {
    emit(OPERATOR_USAGE);
    return 0;
  }
  const level = (stringValue(p, "log-level") ?? "info") as Level;
  if (!["debug", "info", "warn", "error"].includes(level)) throw usageError(`--log-level: expected debug, info, warn or error, got '${level}'`, "operator");
  let owner;
  let deploymentOwner;
  try {
    owner = parseOwner(stringValue(p, "owner") ?? ENGINE_OWNER, stringValue(p, "owner-plural"));
    deploymentOwner = parseOwner(stringValue(p, "deployment-owner") ?? "apps/v1/Deployment", stringValue(p, "deployment-owner-plural"));
  } catch (e) {
    throw usageError((e as Error).message, "operator");
  }
  const selected = (stringValue(p, "controllers") ?? Object.keys(CONTROLLER_CLIENTS).join(",")).split(",").map((c) => c.trim());
  for (const c of selected) {
    if (!isControllerName(c)) throw usageError(`--controllers: expected one or more of ${Object.keys(CONTROLLER_CLIENTS).join(", ")} (comma-separated), got '${c}'`, "operator");
  }
  const runReplicaSets = selected.includes("replicaset");
  const runDeployments = selected.includes("deployment");
  const runHpas = selected.includes("horizontalpodautoscaling");
  const hpaConfig = hpaFlags(p);
  const hpaWorkers = count(p, "concurrent-horizontal-pod-autoscaler-syncs", DEFAULT_WORKERS, 1);
  const hpaMemory = stringValue(p, "hpa-memory") ?? "process";
  if (hpaMemory !== "process" && hpaMemory !== "annotation") throw usageError(`--hpa-memory: expected process or annotation, got '${hpaMemory}'`, "operator");
  const workers = count(p, "workers", DEFAULT_WORKERS, 1);
  const deploymentWorkers = count(p, "deployment-workers", DEFAULT_WORKERS, 1);
  const burst = count(p, "burst-replicas", ENGINE_DEFAULTS.burstReplicas, 1);
  const lease = {
    leaseDurationMs: duration(p, "lease-duration", DEFAULT_LEASE.leaseDurationMs),
    renewDeadlineMs: duration(p, "renew-deadline", DEFAULT_LEASE.renewDeadlineMs),
    retryPeriodMs: duration(p, "retry-period", DEFAULT_LEASE.retryPeriodMs),
  };
  const identity = stringValue(p, "identity") ?? `${hostname()}_${randomUUID()}`;
  const log = makeLogger(level, { identity });
  const connect: { kubeconfig?: string; server?: string; context?: string } = {};
  for (const k of ["kubeconfig", "server", "context"] as const) {
    const v = stringValue(p, k);
    if (v !== undefined) connect[k] = v;
  }
  const qpsText = stringValue(p, "kube-api-qps");
  const qps = qpsText === undefined ? DEFAULT_CLIENT_RATE_LIMIT.qps : Number(qpsText);
  if (!Number.isFinite(qps) || qps < 0) throw usageError(`--kube-api-qps: expected a number >= 0, got '${qpsText}'`, "operator");
  const limit = { qps, burst: count(p, "kube-api-burst", DEFAULT_CLIENT_RATE_LIMIT.burst, 1) };
  const kc = loadKubeConfig(connect);
  // Every API answer is shown to `access`: until the operator runs, a denial ends it.
  const access = new Access(kc);
  let deniedAtStart: (d: Denial) => void = () => {};
  const startDenied = new Promise<Denial>((resolve) => (deniedAtStart = resolve));
  access.onDenied = (d) => deniedAtStart(d);
  const metrics = new Metrics();
  // A client per controller, one for the shared informers and one for the leader
  // election, each with its own token bucket and connection pool (./clients.ts).
  const factory = new ClientFactory(kc, limit, metrics, access);
  const apiOf = (c: ControllerName) => factory.client(CONTROLLER_CLIENTS[c]);
  const informerApi = factory.client(SHARED_INFORMERS_CLIENT);
  const leaseApi = factory.client(LEADER_ELECTION_CLIENT);

  process.on("unhandledRejection", (e) => {
    metrics.errors.inc({ where: "internal" });
    log.error("unhandled rejection", { error: e instanceof Error ? e.message : String(e) });
  });

  const elector = p.values["no-leader-elect"]
    ? undefined
    : new LeaderElector(
        leaseApi.custom,
        {
          namespace: stringValue(p, "lease-namespace") ?? (process.env["POD_NAMESPACE"] || DEFAULT_LEASE_NAMESPACE),
          name: stringValue(p, "lease-name") ?? "replicore-operator",
          identity,
          ...lease,
        },
        log,
      );
  let running = false;
  const mayWrite = (): boolean => running && (elector ? elector.isLeader() : true);
  const leaderInfo = (): Record<string, unknown> => (elector ? { sinceRenewMs: elector.sinceRenewMs() } : {});
  // Each controller records its events through its own client and broadcaster (recorder
  // and correlator), as kube-controller-manager's do.
  const controller = new Controller({
    clients: apiOf("replicaset"),
    informerClients: informerApi,
    owner,
    workers,
    config: { burstReplicas: burst, ownerKind: { apiVersion: owner.apiVersion, kind: owner.kind } },
    log,
    metrics,
    mayWrite,
    leaderInfo,
    identity,
    access,
    ...(runHpas ? { podTransform: trimPodForAll } : {}),
  });
  const deployments = new DeploymentController({
    clients: apiOf("deployment"),
    informerClients: informerApi,
    deployment: deploymentOwner,
    replicaSet: owner,
    workers: deploymentWorkers,
    log,
    metrics,
    mayWrite,
    leaderInfo,
    access,
    ...(runHpas ? { podTransform: trimPodForAll } : {}),
  });
  const hpas = new HorizontalPodAutoscalerController({
    clients: apiOf("horizontalpodautoscaling"),
    informerClients: informerApi,
    workers: hpaWorkers,
    config: hpaConfig,
    memory: hpaMemory as MemoryMode,
    log,
    metrics,
    mayWrite,
    leaderInfo,
    access,
    podTransform: trimPodForAll,
  });
  const compactor = new Compactor({ cached: () => metrics.cachedObjects(), log, compacted: () => metrics.heapCompactions.inc() });
  const startInformers = async (): Promise<void> => {
    if (runReplicaSets) await controller.startInformers();
    // Both controllers on the same ReplicaSet resource: one pod cache and one ReplicaSet cache.
    const shared = controller.informers() as { pods: Informer<KubeObject>; owners: Informer<KubeObject> } | undefined;
    if (runDeployments) await deployments.startInformers(shared ? { pods: shared.pods, replicaSets: shared.owners } : undefined);
    // The autoscaler reads the same pod cache (kept with its fields too) when there is one.
    if (runHpas) await hpas.startInformers(shared?.pods ?? deployments.podInformer());
    compactor.start();
  };
  const stopInformers = async (): Promise<void> => {
    compactor.stop();
    await hpas.stopInformers();
    await controller.stopInformers();
    await deployments.stopInformers();
  };
  const shutDownQueues = (): void => {
    controller.queue.shutDown();
    deployments.queue.shutDown();
    hpas.queue.shutDown();
  };

  const ops = await serveOps(
    metrics,
    count(p, "metrics-port", 8080),
    stringValue(p, "metrics-host") ?? DEFAULT_METRICS_HOST,
    () => true,
    // Ready: leading (or no election) and every permission needed so far granted.
    () => running && access.denials().length === 0,
  );
  log.info("serving metrics and health", {
    url: ops.url,
    controllers: selected,
    owner: `${owner.apiVersion}/${owner.kind}`,
    ...(runDeployments ? { deploymentOwner: `${deploymentOwner.apiVersion}/${deploymentOwner.kind}` } : {}),
    workers,
    server: kc.getCurrentCluster()?.server,
  });

  let stopping: ((why: string) => void) | undefined;
  const stopped = new Promise<string>((resolve) => (stopping = resolve));
  process.once("SIGTERM", () => stopping?.("SIGTERM"));
  process.once("SIGINT", () => stopping?.("SIGINT"));

  /** A denial (or a missing lease namespace) before the operator runs: stop everything, one line, exit 1. */
  const refuse = async (d: Denial | string): Promise<never> => {
    if (typeof d === "string") log.error("cannot start: exiting", { error: d });
    else log.error("not permitted: exiting", denialFields(d));
    running = false;
    elector?.stop();
    // Held already (the lists were refused): give it up, so a standby need not wait.
    await elector?.release().catch(() => {});
    shutDownQueues();
    await stopInformers().catch(() => {});
    ops.server.closeAllConnections();
    ops.server.close();
    // Timers of the API client and the elector must not keep the process.
    setTimeout(() => process.exit(), 500).unref();
    throw new CliError(typeof d === "string" ? d : describe(d), 1);
  };

  if (elector) {
    const got = await Promise.race([elector.acquire().catch((e: unknown) => (e instanceof Error ? e.message : String(e))), stopped.then(() => false), startDenied]);
    if (typeof got === "object" || typeof got === "string") return refuse(got);
    if (!got) {
      elector.stop();
      ops.server.close();
      log.info("stopped before acquiring the lease");
      return 0;
    }
    metrics.leader.set(1);
  }
  running = true;
  const lost = elector ? elector.renewLoop() : new Promise<"stopped">(() => {});
  const synced = await Promise.race([startInformers().then(() => undefined), startDenied]);
  if (synced !== undefined) return refuse(synced);
  // From here a denial is logged and keeps /readyz at 503 until the request succeeds.
  access.onDenied = (d) => {
    metrics.errors.inc({ where: "permission" });
    log.error("not permitted", denialFields(d));
  };
  if (runReplicaSets) controller.startWorkers();
  if (runDeployments) deployments.startWorkers();
  if (runHpas) hpas.startWorkers();
  log.info("operator running", { controllers: selected, workers, ...(runDeployments ? { deploymentWorkers } : {}), ...(runHpas ? { hpaWorkers, hpaMemory, hpaSyncPeriodSeconds: hpaConfig.syncPeriodSeconds } : {}) });

  const why = await Promise.race([stopped, lost]);
  if (why === "lost") {
    running = false;
    metrics.leader.set(0);
    shutDownQueues();
    log.error("lost the lease: all work stopped; exiting");
    ops.server.close();
    // Like kube-controller-manager: exit, so a restart starts clean as a candidate.
    process.exit(1);
  }
  log.info("shutting down", { signal: why });
  await Promise.all([controller.drainWorkers(), deployments.drainWorkers(), hpas.drainWorkers()]);
  await Promise.all([controller.recorder.drain(), deployments.recorder.drain(), hpas.recorder.drain()]);
  await stopInformers();
  running = false;
  elector?.stop();
  await elector?.release();
  metrics.leader.set(0);
  ops.server.closeAllConnections();
  await new Promise<void>((r) => ops.server.close(() => r()));
  log.info("stopped");
  // Idle keep-alive sockets of the API client must not hold the process.
  setTimeout(() => process.exit(0), 200).unref();
  return 0;
}
