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
  kind: "Deployment" | "ReplicaSet";
  name: string;
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
};

export function parseTarget(arg: string): Target {
  const slash = arg.indexOf("/");
  const kind = KINDS[arg.slice(0, Math.max(slash, 0)).toLowerCase()];
  const name = arg.slice(slash + 1);
  if (slash < 0 || kind === undefined || name === "" || name.includes("/")) {
    throw usageError(`'${arg}': expected deploy/NAME or rs/NAME`, "explain");
  }
  return { kind, name };
}

export interface ClusterOptions {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
}

/** The snapshot's JSON text and the namespace read. */
export async function readCluster(target: Target, o: ClusterOptions): Promise<{ text: string; namespace: string; source: string }> {
  // Loaded on demand: only this path of the CLI needs @kubernetes/client-node.
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
  return { text: JSON.stringify({ apiVersion: "v1", kind: "List", items }), namespace, source: `${cluster.server} namespace ${namespace}` };
}

type KubeConfig = ReturnType<typeof import("../operator/kube.js").loadKubeConfig>;

/** GET `path` with the kubeconfig's credentials; the JSON body, or a one-line error. */
async function getJson(kc: KubeConfig, server: string, path: string): Promise<unknown> {
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
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) {
          let message = body.slice(0, 300);
          try {
            const status = JSON.parse(body) as { message?: unknown };
            if (typeof status.message === "string") message = status.message;
          } catch {
            // not a Status: the body's start is the message
          }
          reject(new CliError(`GET ${url.pathname}: ${code} ${message}`, 1));
          return;
        }
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new CliError(`GET ${url.pathname}: the answer is not JSON`, 1));
        }
      });
    });
    req.on("error", (e) => reject(new CliError(`GET ${url.href}: ${e.message}`, 1)));
    req.end();
  });
}
