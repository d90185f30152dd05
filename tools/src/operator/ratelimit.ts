// The API client's rate limit, as client-go's (flowcontrol.NewTokenBucketRateLimiter,
// kube-controller-manager's --kube-api-qps 20 / --kube-api-burst 30): a bucket of `burst`
// tokens refilled at `qps` per second; every request (a watch's too) waits for its token,
// first come first served.

import type { KubeConfig, RequestContext } from "@kubernetes/client-node";

export interface ClientRateLimit {
  /** Requests per second; 0 turns the limit off. */
  qps: number;
  /** Requests allowed at once after a quiet spell. */
  burst: number;
}

export const DEFAULT_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: 20, burst: 30 };

export class TokenBucket {
  private tokens: number;
  private last: number;
  /** Requests that waited for a token, and for how long in all (ms). */
  waited = 0;
  waitedMs = 0;

  constructor(
    private readonly limit: ClientRateLimit,
    private readonly clock: () => number = () => performance.now(),
  ) {
    if (!(limit.qps >= 0) || !Number.isFinite(limit.qps)) throw new Error("qps: must be a number >= 0");
    if (!(limit.burst >= 1) || !Number.isInteger(limit.burst)) throw new Error("burst: must be a whole number >= 1");
    this.tokens = limit.burst;
    this.last = clock();
  }

  /**
   * Takes a token: the milliseconds until it is this caller's (0 when one is there).
   * A reservation, as rate.Limiter.Reserve: later callers wait behind earlier ones.
   */
  reserve(): number {
    if (this.limit.qps === 0) return 0;
    const t = this.clock();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((t - this.last) / 1000) * this.limit.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.limit.qps) * 1000;
  }

  /** Waits for a token; resolves to the milliseconds waited. */
  take(): Promise<number> {
    const ms = this.reserve();
    if (ms <= 0) return Promise.resolve(0);
    this.waited++;
    this.waitedMs += ms;
    return new Promise((r) => setTimeout(() => r(ms), ms));
  }
}

/**
 * The kubeconfig as seen by one client (client-node authenticates each request and watch
 * through the KubeConfig):
 * - every request first takes a token of the client's own bucket;
 * - every request goes through one connection pool. client-node 2.0.1 builds a new undici
 *   Agent for each request whenever the cluster has TLS options (a CA, a client
 *   certificate, or insecure-skip-tls-verify): a new connection, and TLS handshake, per
 *   request, and an Agent per request for the collector. The first Agent is kept and
 *   used for every later request (the options come from the same kubeconfig).
 * - every request, a watch included, carries the client's user agent.
 * Each call gives a separate bucket and pool, as kube-controller-manager gives each
 * controller, its shared informers and its leader election a client of their own
 * (./clients.ts). `waited` hears how long each request waited for its token (ms).
 */
export function rateLimited(kc: KubeConfig, bucket: TokenBucket, o: { userAgent?: string; waited?: (ms: number) => void } = {}): KubeConfig {
  const limited = Object.create(kc) as KubeConfig;
  let pool: ReturnType<RequestContext["getDispatcher"]>;
  const take = async (): Promise<void> => {
    const ms = await bucket.take();
    o.waited?.(ms);
  };
  // client-node 2.0.1 builds that Agent through its private `this.createDispatcher`: on
  // `limited`, the pool's Agent is built once, not once per request to be thrown away
  // (12–16 µs and its garbage each). Should client-node rename it, the check below still
  // keeps one pool.
  type Builds = { createDispatcher?: (...a: unknown[]) => ReturnType<RequestContext["getDispatcher"]> };
  const build = (kc as unknown as Builds).createDispatcher;
  if (typeof build === "function") (limited as unknown as Builds).createDispatcher = (...a) => (pool ??= build.apply(kc, a));
  limited.applySecurityAuthentication = async (ctx: RequestContext) => {
    await take();
    await kc.applySecurityAuthentication.call(limited, ctx);
    if (o.userAgent !== undefined) ctx.setHeaderParam("User-Agent", o.userAgent);
    const fresh = ctx.getDispatcher();
    if (fresh === undefined) return;
    pool ??= fresh;
    if (fresh !== pool) ctx.setDispatcher(pool);
  };
  return limited;
}
