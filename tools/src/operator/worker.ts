// One work-queue worker, as both controllers run it (client-go's processNextWorkItem):
// take a key, sync it, and on a thrown error either wait for the Lease (not the leader)
// or requeue the key rate-limited; then observe the sync and mark the key done.

import type { Logger } from "./log.js";
import type { WorkQueue } from "./queue.js";

/** Thrown by a sync's write when this process may not write (no fresh Lease). */
export class NotLeader extends Error {
  constructor() {
    super("not the leader: stopping before any further write");
  }
}

/** How soon a sync abandoned for want of the Lease is tried again (ms). */
export const NOT_LEADER_RETRY_MS = 1000;

export interface WorkerOptions {
  id: number;
  queue: WorkQueue;
  log: Logger;
  /** What a sync is called in the logs ("sync", "deployment sync"). */
  what: string;
  /** The result label of a sync that threw. */
  thrown: string;
  sync: (key: string) => Promise<string>;
  /** A thrown error other than NotLeader: count it, and say it in one line. */
  failed: (error: unknown) => string;
  /** Every sync, with its result label and duration in seconds. */
  observe: (result: string, seconds: number) => void;
  leaderInfo?: () => Record<string, unknown>;
}

export async function runWorker(o: WorkerOptions): Promise<void> {
  for (;;) {
    const k = await o.queue.get();
    if (k === undefined) return;
    const started = performance.now();
    let result = "ok";
    try {
      result = await o.sync(k);
    } catch (e) {
      result = o.thrown;
      if (e instanceof NotLeader) {
        // Tried again each second until this process may write again (if the lease is
        // lost, the process ends). Not a failure of the key: a rate-limited re-add would
        // double its backoff on every try (5 ms .. 1000 s), so a leader that reads the
        // Lease back after some seconds without it could find keys waiting minutes.
        o.log.warn(`${o.what} abandoned: not the leader`, { key: k, worker: o.id, ...o.leaderInfo?.() });
        o.queue.addAfter(k, NOT_LEADER_RETRY_MS);
      } else {
        o.log.error(`${o.what} failed`, { key: k, worker: o.id, error: o.failed(e) });
        o.queue.addRateLimited(k);
      }
    } finally {
      o.observe(result, (performance.now() - started) / 1000);
      o.queue.done(k);
    }
  }
}

/** What {@link countedWorkers} counts a controller's syncs in. */
export interface SyncCounters {
  /** errors_total{where}: a sync that threw. */
  errors: { inc(labels: { where: string }): void };
  where: string;
  /** Syncs and their durations, by result. */
  syncs: { inc(labels: { result: string }): void };
  duration: { observe(labels: { result: string }, seconds: number): void };
}

/** `n` workers whose syncs are counted and timed by result, and whose thrown errors are counted under `where`. */
export function countedWorkers(n: number, o: Omit<WorkerOptions, "id" | "failed" | "observe">, c: SyncCounters): Promise<void>[] {
  return Array.from({ length: n }, (_, id) =>
    runWorker({
      ...o,
      id,
      failed: (e) => {
        c.errors.inc({ where: c.where });
        return e instanceof Error ? e.message : String(e);
      },
      observe: (result, seconds) => {
        c.syncs.inc({ result });
        c.duration.observe({ result }, seconds);
      },
    }),
  );
}
