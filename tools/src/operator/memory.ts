// Memory given back after the caches shrink. V8 grows its heap as the informers fill and
// keeps the pages after a scale-down empties them: with little allocation afterwards no
// full collection comes, so the process holds its peak (kube-controller-manager's Go
// runtime returns freed spans to the OS on its own). When the cached objects have fallen
// by a quarter and at least `minDrop` below their peak since the last time, the operator
// runs one full, compacting collection, and the emptied pages go back to the OS. It needs
// `gc`, which Node exposes with --expose-gc (the shipped manifest passes it); without it
// nothing happens. The engine's wasm memory cannot shrink (WebAssembly has no way to).

import type { Logger } from "./log.js";

export interface CompactorOptions {
  /** How many objects the caches hold now. */
  cached: () => number;
  log: Logger;
  /** Told of each compaction (a metric). */
  compacted?: () => void;
  /** The full collection; default `globalThis.gc` (present with --expose-gc). */
  collect?: (() => void) | undefined;
  /** How often to look (ms; default 10 s). */
  intervalMs?: number;
  /** The least drop, in objects, worth a collection (default 1,000). */
  minDrop?: number;
  /** The least drop, as a share of the peak (default 0.25). */
  minShare?: number;
}

export class Compactor {
  private peak = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly collect: (() => void) | undefined;

  constructor(private readonly o: CompactorOptions) {
    this.collect = "collect" in o ? o.collect : (globalThis as { gc?: () => void }).gc;
  }

  /** Looks now: collects if the caches fell far enough below their peak; true if it did. */
  check(): boolean {
    const now = this.o.cached();
    if (now > this.peak) this.peak = now;
    const drop = this.peak - now;
    if (!this.collect || drop < (this.o.minDrop ?? 1000) || drop < (this.o.minShare ?? 0.25) * this.peak) return false;
    const before = process.memoryUsage();
    this.collect();
    const after = process.memoryUsage();
    this.o.log.info("caches shrank: heap compacted", {
      cachedPeak: this.peak,
      cached: now,
      heapUsedMiB: [mib(before.heapUsed), mib(after.heapUsed)],
      rssMiB: [mib(before.rss), mib(after.rss)],
    });
    this.peak = now;
    this.o.compacted?.();
    return true;
  }

  start(): void {
    if (!this.collect || this.timer) return;
    this.timer = setInterval(() => this.check(), this.o.intervalMs ?? 10_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const mib = (bytes: number): number => Math.round(bytes / 1048576);
