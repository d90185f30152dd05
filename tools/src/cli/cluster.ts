// `replicore explain deploy/NAME` and `rs/NAME`: the snapshot read from a cluster through
// the kubeconfig, read-only, as `kubectl get deploy,rs,pods -n NS -o json` would print it
// (the server's JSON, each item with its kind and apiVersion). The engine then explains it
// exactly as it explains that JSON: which ReplicaSets a Deployment controls, and which
// pods a ReplicaSet owns, are the engine's to decide, so the whole namespace is read.

import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { CliError, usageError } from "./io.js";

/** What a `TYPE/NAME` argument names, in kubectl's spellings. */
export interface Target {
  kind: "Deployment" | "ReplicaSet" | "HorizontalPodAutoscaler";
  name: string;
  /** As given (`deploy/web`). */
  arg: string;
}

const KINDS: Record<string, Target["kind"]> = {
  deploy: "Deployment",
  deployment: "Deployment",
  deployments: "Deployment",
  "deployment.apps": "Deployment",
  "deployments.apps": "Deployment",
  rs: "ReplicaSet",
  replicaset: "ReplicaSet",
  replicasets: "ReplicaSet",
  "replicaset.apps": "ReplicaSet",
  "replicasets.apps": "ReplicaSet",
  hpa: "HorizontalPodAutoscaler",
  horizontalpodautoscaler: "HorizontalPodAutoscaler",
  horizontalpodautoscalers: "HorizontalPodAutoscaler",
  "horizontalpodautoscaler.autoscaling": "HorizontalPodAutoscaler",
  "horizontalpodautoscalers.autoscaling": "HorizontalPodAutoscaler",
};

export function parseTarget(arg: string): Target {
  const slash = arg.indexOf("/");
  const kind = KINDS[arg.slice(0, Math.max(slash, 0)).toLowerCase()];
  const name = arg.slice(slash + 1);
  if (slash < 0 || kind === undefined || name === "" || name.includes("/")) {
    throw usageError(`'${arg}': expected deploy/NAME, rs/NAME or hpa/NAME`, "explain");
  }
  return { kind, name, arg };
}

export interface ClusterOptions {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
}

/** A cluster reached through the kubeconfig: its credentials, its server, the namespace to read. */
export interface Connection {
  kc: KubeConfig;
  server: string;
  namespace: string;
}

/** Loads the kubeconfig (the options' file and context) and picks the namespace. */
export async function connect(o: ClusterOptions): Promise<Connection> {
  // Loaded on demand: only the cluster paths of the CLI need @kubernetes/client-node.
  const { loadKubeConfig } = await import("../operator/kube.js");
  let kc;
  try {
    kc = loadKubeConfig({ ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}), ...(o.context !== undefined ? { context: o.context } : {}) });
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new CliError("no cluster in the kubeconfig", 1);
  const namespace = o.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? "default";
  return { kc, server: cluster.server, namespace };
}

/** The snapshot's JSON text and the namespace read. */
export async function readCluster(target: Target, o: ClusterOptions): Promise<{ text: string; namespace: string; source: string }> {
  const { kc, server, namespace } = await connect(o);
  const cluster = { server };
  const ns = encodeURIComponent(namespace);
  const lists: [string, string, string][] = [
    ["Deployment", "apps/v1", `/apis/apps/v1/namespaces/${ns}/deployments`],
    ["ReplicaSet", "apps/v1", `/apis/apps/v1/namespaces/${ns}/replicasets`],
    ["Pod", "v1", `/api/v1/namespaces/${ns}/pods`],
  ];
  const items: unknown[] = [];
  for (const [kind, apiVersion, path] of lists) {
    const list = await getJson(kc, cluster.server, path);
    const got = (list as { items?: unknown }).items;
    if (!Array.isArray(got)) throw new CliError(`${cluster.server}${path}: the answer is not a list`, 1);
    for (const item of got) {
      if (item !== null && typeof item === "object") items.push({ apiVersion, kind, ...(item as object) });
    }
  }
  const named = (item: unknown): { kind?: unknown; metadata?: { name?: unknown } } => item as { kind?: unknown; metadata?: { name?: unknown } };
  const names = items.filter((i) => named(i).kind === target.kind).map((i) => String(named(i).metadata?.name ?? ""));
  if (!names.includes(target.name)) throw new CliError(`${target.arg}: ${await notFound(kc, cluster.server, namespace, target, names)}`, 1);
  return { text: JSON.stringify({ apiVersion: "v1", kind: "List", items }), namespace, source: `${cluster.server} namespace ${namespace}` };
}

/**
 * Why the target is not in the namespace's lists: the namespace does not exist (404 to
 * reading it), or it does and has no such object (then the names it has). A namespace
 * the kubeconfig's user may not read leaves that open, and says so.
 */
async function notFound(kc: KubeConfig, server: string, namespace: string, target: Target, names: string[]): Promise<string> {
  const where = `namespace ${namespace} on ${server}`;
  const ns = await get(kc, server, `/api/v1/namespaces/${encodeURIComponent(namespace)}`);
  if (ns.code === 404) return `namespace "${namespace}" not found on ${server}`;
  const has = names.length === 0 ? "none" : [...names].sort().join(", ");
  const missing = `no ${target.kind} named "${target.name}" in ${where}; it has ${has}`;
  if (ns.code >= 200 && ns.code <= 299) return missing;
  return `${missing} (whether namespace ${namespace} exists is not known: reading it answered ${ns.code} ${statusMessage(ns.body)})`;
}

export type KubeConfig = ReturnType<typeof import("../operator/kube.js").loadKubeConfig>;

/** GET `path` with the kubeconfig's credentials; the JSON body, or a one-line error. */
export async function getJson(kc: KubeConfig, server: string, path: string): Promise<unknown> {
  const { code, body, url } = await get(kc, server, path);
  if (code < 200 || code > 299) throw new CliError(`GET ${url.pathname}: ${code} ${statusMessage(body)}`, 1);
  try {
    return JSON.parse(body);
  } catch {
    throw new CliError(`GET ${url.pathname}: the answer is not JSON`, 1);
  }
}

/** A Status body's message, else the body's start. */
export function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === "string") return status.message;
  } catch {
    // not a Status: the body's start is the message
  }
  return body.slice(0, 300);
}

/** GET `path` with the kubeconfig's credentials: the status code and the body (a transport failure: a one-line error). */
export async function get(kc: KubeConfig, server: string, path: string): Promise<{ code: number; body: string; url: URL }> {
  const url = new URL(`${server.replace(/\/$/, "")}${path}`);
  const options: RequestOptions = { method: "GET", headers: { accept: "application/json" } };
  try {
    await kc.applyToHTTPSOptions(options);
  } catch (e) {
    throw new CliError(`the kubeconfig's credentials for ${server}: ${e instanceof Error ? e.message : String(e)}`, 1);
  }
  const request = url.protocol === "http:" ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), url }));
    });
    req.on("error", (e) => reject(new CliError(`GET ${url.href}: ${e.message}`, 1)));
    req.end();
  });
}
