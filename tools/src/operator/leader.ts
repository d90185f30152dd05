// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection
// package does it (client-node 2.0.1 has none):
// - a candidate acquires the Lease when it is free (no holder) or when the holder has not
//   renewed it for leaseDuration, measured from the moment this candidate last saw the
//   record change (its own clock, never the holder's timestamps), retrying every
//   retryPeriod (with jitter 1.2);
// - the leader renews every retryPeriod; if no renewal has succeeded for renewDeadline
//   (< leaseDuration) it stops leading, so it stops before anyone else may start;
// - every update is a PUT with the record's resourceVersion: two candidates cannot both win;
// - release() (graceful shutdown) empties holderIdentity so a successor need not wait;
// - a leader that reads the Lease held by another identity (the Lease deleted and
//   re-created by a candidate, or overwritten) stops writing at once, not only when its
//   renew deadline passes (client-go keeps acting until then); it leads again only if
//   a later renewal of its own succeeds.

import type { CustomObjectsApi } from "@kubernetes/client-node";
import { apiError, isConflict, isNotFound } from "./kube.js";
import type { Logger } from "./log.js";

export interface LeaseOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const DEFAULT_LEASE = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

interface LeaseRecord {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

/** MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class LeaderElector {
  private observedRecord = "";
  private observedAt = 0;
  private lastRenew = 0;
  private leading = false;
  /** The last read of the Lease showed another holder. */
  private supplanted = false;
  private stopped = false;
  private current: LeaseRecord | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  /** Why acquiring can never succeed (the lease namespace does not exist). */
  private hopeless: string | undefined;

  constructor(
    private readonly api: CustomObjectsApi,
    private readonly o: LeaseOptions,
    private readonly log: Logger,
  ) {
    if (!(o.renewDeadlineMs < o.leaseDurationMs)) throw new Error("leader election: the renew deadline must be shorter than the lease duration");
    if (!(o.retryPeriodMs * 1.2 < o.renewDeadlineMs)) throw new Error("leader election: the retry period (x1.2) must be shorter than the renew deadline");
  }

  /** Milliseconds since the last successful renewal was sent. */
  sinceRenewMs(): number {
    return Math.round(performance.now() - this.lastRenew);
  }

  isLeader(): boolean {
    // Never act on a lease that may have expired for the others.
    return this.leading && !this.supplanted && performance.now() - this.lastRenew < this.o.renewDeadlineMs;
  }

  /**
   * Waits until this candidate holds the lease (resolves false if stopped first); rejects
   * when it never can: the Lease cannot be created because its namespace does not exist.
   */
  async acquire(): Promise<boolean> {
    this.log.info("leader election: waiting for the lease", { lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity });
    while (!this.stopped) {
      if (await this.tryAcquireOrRenew()) {
        this.leading = true;
        this.log.info("leader election: acquired the lease", { lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity });
        return true;
      }
      if (this.hopeless !== undefined) throw new Error(this.hopeless);
      await sleep(this.o.retryPeriodMs * (1 + Math.random() * 0.2));
    }
    return false;
  }

  /** Renews until a renewal fails for renewDeadline (resolves: leadership lost) or stop(). */
  async renewLoop(): Promise<"lost" | "stopped"> {
    while (!this.stopped) {
      await sleep(this.o.retryPeriodMs);
      if (this.stopped) break;
      const deadline = this.lastRenew + this.o.renewDeadlineMs;
      let ok = false;
      while (!this.stopped && performance.now() < deadline) {
        const t0 = performance.now();
        const renewed = await this.tryAcquireOrRenew();
        const took = performance.now() - t0;
        if (took > this.o.retryPeriodMs) this.log.warn("leader election: slow lease renewal", { tookMs: Math.round(took), renewed });
        if (renewed) {
          ok = true;
          break;
        }
        await sleep(Math.min(this.o.retryPeriodMs, Math.max(0, deadline - performance.now())));
      }
      if (this.stopped) break;
      if (!ok) {
        this.leading = false;
        this.log.error("leader election: failed to renew the lease within the renew deadline; stopping", {
          lease: `${this.o.namespace}/${this.o.name}`,
          identity: this.o.identity,
        });
        return "lost";
      }
    }
    return "stopped";
  }

  stop(): void {
    this.stopped = true;
  }

  /** Gives the lease up (holderIdentity emptied) if this candidate holds it. */
  async release(): Promise<void> {
    // A renewal still in flight would make our copy of the record stale.
    await this.inFlight;
    if (!this.leading || !this.current) return;
    this.leading = false;
    for (let attempt = 0; attempt < 2; attempt++) {
      const rec: LeaseRecord = this.current;
      if ((rec.spec?.holderIdentity ?? "") !== this.o.identity) return;
      const body: LeaseRecord = {
        ...rec,
        spec: { ...rec.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(new Date()), acquireTime: null },
      };
      try {
        await this.api.replaceNamespacedCustomObject({ ...this.ref(), name: this.o.name, body });
        this.log.info("leader election: released the lease", { identity: this.o.identity });
        return;
      } catch (e) {
        if (!isConflict(e) || attempt === 1) {
          this.log.warn("leader election: could not release the lease", { error: apiError(e).message });
          return;
        }
        try {
          this.current = (await this.api.getNamespacedCustomObject({ ...this.ref(), name: this.o.name })) as LeaseRecord;
        } catch (e2) {
          this.log.warn("leader election: could not release the lease", { error: apiError(e2).message });
          return;
        }
      }
    }
  }

  private ref(): { group: string; version: string; namespace: string; plural: string } {
    return { group: "coordination.k8s.io", version: "v1", namespace: this.o.namespace, plural: "leases" };
  }

  private tryAcquireOrRenew(): Promise<boolean> {
    const p = this.attempt();
    this.inFlight = p.then(
      () => undefined,
      () => undefined,
    );
    return p;
  }

  private async attempt(): Promise<boolean> {
    // A renewal counts from when it was sent, not from when the answer came.
    const sent = performance.now();
    const now = new Date();
    const spec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let existing: LeaseRecord;
    try {
      existing = (await this.api.getNamespacedCustomObject({ ...this.ref(), name: this.o.name })) as LeaseRecord;
    } catch (e) {
      if (!isNotFound(e)) {
        this.log.warn("leader election: cannot read the lease", { error: apiError(e).message });
        return false;
      }
      try {
        const body: LeaseRecord = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.o.name, namespace: this.o.namespace }, spec };
        this.current = (await this.api.createNamespacedCustomObject({ ...this.ref(), body })) as LeaseRecord;
        this.observe(this.current);
        this.lastRenew = sent;
        this.supplanted = false;
        return true;
      } catch (e2) {
        if (isNotFound(e2)) {
          // Creating in a namespace that does not exist: no retry will ever succeed.
          this.hopeless = `the lease namespace "${this.o.namespace}" does not exist (API: ${apiError(e2).message}): create it (kubectl create namespace ${this.o.namespace}) or pass --lease-namespace NS`;
        } else if (!isConflict(e2)) this.log.warn("leader election: cannot create the lease", { error: apiError(e2).message });
        return false;
      }
    }
    const rec = JSON.stringify(existing.spec ?? {});
    if (rec !== this.observedRecord) {
      this.observedRecord = rec;
      this.observedAt = performance.now();
    }
    const holder = existing.spec?.holderIdentity ?? "";
    const iHold = holder === this.o.identity;
    if (this.leading && holder !== "" && !iHold && !this.supplanted) {
      this.supplanted = true;
      this.log.warn("leader election: the Lease is held by another identity; no further writes", { holder });
    }
    const durationMs = (existing.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== "" && !iHold && performance.now() < this.observedAt + durationMs) return false;
    const body: LeaseRecord = {
      ...existing,
      spec: {
        ...spec,
        acquireTime: iHold ? (existing.spec.acquireTime ?? spec.acquireTime) : spec.acquireTime,
        leaseTransitions: (existing.spec.leaseTransitions ?? 0) + (iHold ? 0 : 1),
      },
    };
    try {
      this.current = (await this.api.replaceNamespacedCustomObject({ ...this.ref(), name: this.o.name, body })) as LeaseRecord;
      this.observe(this.current);
      this.lastRenew = sent;
      this.supplanted = false;
      return true;
    } catch (e) {
      if (!isConflict(e)) this.log.warn("leader election: cannot update the lease", { error: apiError(e).message });
      return false;
    }
  }

  private observe(r: LeaseRecord): void {
    this.observedRecord = JSON.stringify(r.spec ?? {});
    this.observedAt = performance.now();
  }
}
