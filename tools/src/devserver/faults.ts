// Fault injection for the fake API server: rules that fail matching requests with a
// status code (a watch may instead be answered with an ERROR event, as kube-apiserver
// reports an expired resourceVersion: 200, then `{"type":"ERROR","object":<410 Status>}`),
// a pod quota that answers 403 Forbidden like a ResourceQuota, latency. Watch streams
// are ended by DevServer.dropWatches (and /_replicore/watches/drop); every resume from
// an older version gets 410 Gone after DevServer.store.compact() (/_replicore/compact).

import { reasonForCode } from "../status-reasons.js";

export interface FaultRule {
  /** get, list, watch, create, update, patch, delete; any when absent. */
  verb?: string;
  /** The resource's plural (`pods`, `replicasets`, `leases`, …); any when absent. */
  resource?: string;
  /** `status` or `scale`; matches only requests to that subresource when given. */
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The HTTP status to answer: 500, 503, 409, 429, 403, … */
  status: number;
  reason?: string;
  message?: string;
  /** Let this many matching requests through first (default 0). */
  after?: number;
  /** Fail this many matching requests, then stop (default: every one). */
  times?: number;
  /** `Retry-After` seconds for 429 (default 1). */
  retryAfterSeconds?: number;
  /**
   * For a watch: answer 200 and one ERROR event carrying the status (e.g. 410 Expired),
   * then end the stream, instead of the HTTP status.
   */
  asWatchEvent?: boolean;
}

export interface PodQuota {
  /** Creating a pod fails with 403 while this many pods exist (in `namespace`, or at all). */
  limit: number;
  namespace?: string;
}

export interface Faults {
  rules?: FaultRule[];
  podQuota?: PodQuota | null;
  /** Added before every API request (not the control endpoints). */
  latencyMs?: number;
}

interface LiveRule extends FaultRule {
  seen: number;
  failed: number;
}

export interface RequestInfo {
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export function reasonFor(status: number): string {
  return reasonForCode(status);
}

export class FaultState {
  rules: LiveRule[] = [];
  podQuota: PodQuota | null = null;
  latencyMs = 0;

  set(f: Faults): void {
    if (f.rules !== undefined) this.rules = f.rules.map((r) => validRule(r));
    if (f.podQuota !== undefined) this.podQuota = f.podQuota === null ? null : validQuota(f.podQuota);
    if (f.latencyMs !== undefined) {
      if (typeof f.latencyMs !== "number" || !(f.latencyMs >= 0)) throw new Error("latencyMs: must be a number >= 0");
      this.latencyMs = f.latencyMs;
    }
  }

  add(rule: FaultRule): void {
    this.rules.push(validRule(rule));
  }

  clear(): void {
    this.rules = [];
    this.podQuota = null;
    this.latencyMs = 0;
  }

  view(): object {
    return { rules: this.rules, podQuota: this.podQuota, latencyMs: this.latencyMs };
  }

  /** The rule that fails this request, if any (counting it). */
  match(req: RequestInfo): LiveRule | undefined {
    for (const r of this.rules) {
      if (r.verb !== undefined && r.verb !== req.verb) continue;
      if (r.resource !== undefined && r.resource !== req.resource) continue;
      if (r.subresource !== undefined && r.subresource !== req.subresource) continue;
      if (r.namespace !== undefined && r.namespace !== req.namespace) continue;
      if (r.name !== undefined && r.name !== req.name) continue;
      r.seen++;
      if (r.seen <= (r.after ?? 0)) continue;
      if (r.times !== undefined && r.failed >= r.times) continue;
      r.failed++;
      return r;
    }
    return undefined;
  }
}

function validRule(r: FaultRule): LiveRule {
  if (typeof r !== "object" || r === null) throw new Error("rule: must be an object");
  if (typeof r.status !== "number" || r.status < 400 || r.status > 599) throw new Error("rule.status: must be an HTTP error status (400..599)");
  for (const k of ["verb", "resource", "subresource", "namespace", "name", "reason", "message"] as const) {
    if (r[k] !== undefined && typeof r[k] !== "string") throw new Error(`rule.${k}: must be a string`);
  }
  if (r.asWatchEvent !== undefined && typeof r.asWatchEvent !== "boolean") throw new Error("rule.asWatchEvent: must be a boolean");
  for (const k of ["after", "times", "retryAfterSeconds"] as const) {
    if (r[k] !== undefined && (typeof r[k] !== "number" || (r[k] as number) < 0)) throw new Error(`rule.${k}: must be a number >= 0`);
  }
  return { ...r, seen: 0, failed: 0 };
}

function validQuota(q: PodQuota): PodQuota {
  if (typeof q !== "object" || q === null || typeof q.limit !== "number" || q.limit < 0) throw new Error("podQuota.limit: must be a number >= 0");
  if (q.namespace !== undefined && typeof q.namespace !== "string") throw new Error("podQuota.namespace: must be a string");
  return { limit: q.limit, ...(q.namespace !== undefined ? { namespace: q.namespace } : {}) };
}

/** `--fail verb:resource:status[:times[:after]]`, e.g. `create:pods:500:3`. */
export function parseFailSpec(spec: string): FaultRule {
  const [verb, resource, status, times, after] = spec.split(":");
  const n = Number(status);
  if (!verb || !resource || !Number.isInteger(n)) throw new Error(`--fail ${spec}: expected verb:resource:status[:times[:after]], e.g. create:pods:500:3`);
  const rule: FaultRule = { status: n };
  if (verb !== "*") rule.verb = verb;
  if (resource !== "*") {
    const [res, sub] = resource.split("/");
    rule.resource = res as string;
    if (sub) rule.subresource = sub;
  }
  if (times !== undefined && times !== "") rule.times = Number(times);
  if (after !== undefined && after !== "") rule.after = Number(after);
  return validRule(rule);
}
