// What the operator may not do: every 401 Unauthorized and 403 Forbidden answer of the
// API, as the request that got it (verb, resource, namespace, name), the identity the API
// server named (or the kubeconfig's user), and what to grant or pass. At start-up a
// denial ends the process with that one line; later it is logged and keeps /readyz at 503
// until the same request kind succeeds again.

import { splitApiPath, type RequestAttributes } from "../api-path.js";
import type { KubeConfig } from "@kubernetes/client-node";

/** One denied request kind. */
export interface Denial {
  status: 401 | 403;
  verb: string;
  /** Qualified like the API names it: `pods`, `leases.coordination.k8s.io`, `replicasets.apps/status`. */
  resource: string;
  /** Absent: cluster scope. */
  namespace?: string;
  name?: string;
  /** The user the API server named in its Forbidden message, else the kubeconfig's. */
  identity: string;
  /** The API server's own message. */
  message: string;
}

/** The authorizer's view of a request (as kube-apiserver's RequestInfo resolves it). */
export function attributesOf(method: string, url: string): RequestAttributes | undefined {
  let u: URL;
  try {
    u = new URL(url, "http://x");
  } catch {
    return undefined;
  }
  const path = splitApiPath(u.pathname);
  if (!path) return undefined;
  const { group, namespace } = path;
  const [resource, name, subresource] = path.rest as [string, string | undefined, string | undefined];
  const watch = u.searchParams.get("watch");
  const m = method.toUpperCase();
  const verb =
    m === "GET"
      ? name === undefined
        ? watch === "1" || watch === "true"
          ? "watch"
          : "list"
        : "get"
      : m === "POST"
        ? "create"
        : m === "PUT"
          ? "update"
          : m === "PATCH"
            ? "patch"
            : m === "DELETE"
              ? name === undefined
                ? "deletecollection"
                : "delete"
              : m.toLowerCase();
  return {
    verb,
    group,
    resource,
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

/** The kubeconfig's user, as `"NAME" (context "CTX")`. */
export function kubeconfigIdentity(kc: KubeConfig): string {
  const user = kc.getCurrentUser()?.name ?? "(none)";
  return `kubeconfig user "${user}" (context "${kc.getCurrentContext()}")`;
}

/** A Denial from a 401/403 answer to `method url` with the Status `body` (text or object). */
export function denialOf(status: 401 | 403, method: string, url: string, body: unknown, kc: KubeConfig): Denial {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = { message: body };
    }
  }
  const message =
    parsed && typeof parsed === "object" && typeof (parsed as Record<string, unknown>)["message"] === "string"
      ? ((parsed as Record<string, unknown>)["message"] as string)
      : status === 401
        ? "Unauthorized"
        : "Forbidden";
  const a = attributesOf(method, url) ?? { verb: method.toLowerCase(), group: "", resource: url };
  const named = /User "([^"]*)" cannot/.exec(message);
  const identity = named ? `"${named[1]}"` : kubeconfigIdentity(kc);
  const resource = `${a.group ? `${a.resource}.${a.group}` : a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
  return {
    status,
    verb: a.verb,
    resource,
    identity,
    message,
    ...(a.namespace !== undefined ? { namespace: a.namespace } : {}),
    ...(a.name !== undefined ? { name: a.name } : {}),
  };
}

/** The key of a request kind: a success of the same kind lifts a denial. */
export function kindKey(verb: string, resource: string, namespace: string | undefined): string {
  return `${verb} ${resource} ${namespace ?? "*"}`;
}

const where = (d: Denial): string => (d.namespace !== undefined ? `in namespace "${d.namespace}"` : "cluster-wide");

/** What to grant or pass, for this denial. */
export function remedy(d: Denial): string {
  if (d.status === 401) {
    return "the API server did not accept these credentials: pass --kubeconfig (and --context) with a valid user, or renew its token";
  }
  const grant = `grant ${d.identity} "${d.verb}" on ${d.resource} ${where(d)}`;
  if (d.resource === "leases.coordination.k8s.io") {
    return `${grant} (tools/deploy/rbac.yaml grants get, create and update on the "replicore-operator" Lease in "replicore-system"), or pass --lease-namespace NS for a namespace where it may (or --no-leader-elect for a single replica)`;
  }
  return `${grant} (tools/deploy/rbac.yaml lists everything the operator needs)`;
}

/** The one-line account of a denial. */
export function describe(d: Denial): string {
  const what = `${d.resource}${d.name !== undefined ? ` "${d.name}"` : ""}`;
  const head = d.status === 401 ? "unauthorized" : "forbidden";
  return `${head}: ${d.identity} may not ${d.verb} ${what} ${where(d)}: ${remedy(d)} (API: ${d.message})`;
}

/** The denials in force, fed by every API answer. */
export class Access {
  private readonly denied = new Map<string, Denial>();
  /** Called on every 401/403 (the start-up path makes it fatal). */
  onDenied: ((d: Denial) => void) | undefined;

  constructor(readonly kc: KubeConfig) {}

  /** An answer to `method url`: 401/403 record a denial, a success lifts one of its kind. */
  observe(status: number, method: string, url: string, body?: unknown): void {
    if (status === 401 || status === 403) {
      const d = denialOf(status, method, url, body, this.kc);
      // A quota's 403 (`exceeded quota`) is the API refusing the object, not a missing permission.
      if (status === 403 && !/User "[^"]*" cannot /.test(d.message)) return;
      this.record(d);
      return;
    }
    if (status >= 200 && status < 300 && this.denied.size > 0) {
      const a = attributesOf(method, url);
      if (!a) return;
      const resource = `${a.group ? `${a.resource}.${a.group}` : a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
      this.denied.delete(kindKey(a.verb, resource, a.namespace));
    }
  }

  private record(d: Denial): void {
    this.denied.set(kindKey(d.verb, d.resource, d.namespace), d);
    this.onDenied?.(d);
  }

  /**
   * A watch request's failure. client-node's Watch gives the status, not the body, so a
   * watch's 403 is taken as a permission (a watch creates nothing a quota could refuse).
   */
  observeWatchError(err: unknown, path: string): void {
    const status = (err as { statusCode?: unknown } | null)?.statusCode;
    if (status === 401 || status === 403) this.record(denialOf(status, "GET", `${path}?watch=1`, status === 401 ? "Unauthorized" : "Forbidden", this.kc));
  }

  /** The watch of `path` is open: a watch denial of it is lifted. */
  watching(path: string): void {
    this.observe(200, "GET", `${path}?watch=1`);
  }

  /** The denials in force (none: every permission it has needed so far is there). */
  denials(): Denial[] {
    return [...this.denied.values()];
  }
}
