// The operator's API clients, one per user, as kube-controller-manager makes them: each
// controller gets its own (ControllerContext.NewClient("replicaset-controller"), …), the
// shared informers theirs (rootClientBuilder.Client("shared-informers")), the leader
// election its own. Each client has its own token bucket at --kube-api-qps /
// --kube-api-burst, its own connection pool, the user agent `replicore/<name>`, and its
// requests counted under `controller="<name>"` in the metrics.

import type { KubeConfig } from "@kubernetes/client-node";
import { attributesOf, type Access } from "./access.js";
import { clients, type Clients } from "./kube.js";
import type { Metrics } from "./metrics.js";
import { rateLimited, TokenBucket, type ClientRateLimit } from "./ratelimit.js";

/** The client of the shared informers (lists and watches of every controller's caches). */
export const SHARED_INFORMERS_CLIENT = "shared-informers";
/** The client of the leader election. */
export const LEADER_ELECTION_CLIENT = "leader-election";

/** A write as the metrics name it: the authorizer's verb and resource (`update deployments/status`). */
export function writeKind(method: string, url: string): string | undefined {
  const a = attributesOf(method, url);
  if (!a || a.verb === "get" || a.verb === "list" || a.verb === "watch") return undefined;
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
}

export class ClientFactory {
  private readonly made = new Map<string, Clients>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly limit: ClientRateLimit,
    private readonly metrics: Metrics,
    private readonly access?: Access,
  ) {}

  /** The client named `name` (made once; a second call returns the same client). */
  client(name: string): Clients {
    const known = this.made.get(name);
    if (known) return known;
    const userAgent = `replicore/${name}`;
    const { apiRequests, apiConflicts, apiRateLimiterWait } = this.metrics;
    const limited = rateLimited(this.kc, new TokenBucket(this.limit), { userAgent, waited: (ms) => apiRateLimiterWait.observe({ controller: name }, ms / 1000) });
    const made = clients(limited, this.access, {
      userAgent,
      answered: (method, url, status) => {
        apiRequests.inc({ controller: name, method, code: String(status) });
        // A 409 to a create is AlreadyExists; to an update, patch or delete, a Conflict.
        const write = status === 409 && method !== "POST" ? writeKind(method, url) : undefined;
        if (write !== undefined) apiConflicts.inc({ controller: name, write });
      },
    });
    this.made.set(name, made);
    return made;
  }
}
