// A rate-limited work queue with client-go's semantics and defaults
// (workqueue.NewTypedRateLimitingQueue with DefaultTypedControllerRateLimiter):
// - a key is queued at most once (dirty set) and never handed to two workers at once
//   (processing set: a key added while processed is queued again when it is done);
// - addAfter(key, ms): a delayed add, the earliest pending time per key wins;
// - addRateLimited(key): the larger of the per-item exponential backoff (5 ms doubling
//   to 1000 s) and the overall token bucket (10 per second, burst 100);
// - forget(key) resets the key's backoff.

import { controllerQueueLimits } from "replicore";

export interface RateLimiterOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  qps: number;
  burst: number;
}

/** client-go's defaults, as the engine holds them (`controllerQueueLimits()`). */
export const DEFAULT_RATE_LIMITS: RateLimiterOptions = controllerQueueLimits();

/** MaxOf(ItemExponentialFailureRateLimiter, BucketRateLimiter). */
export class ControllerRateLimiter {
  private readonly failures = new Map<string, number>();
  private tokens: number;
  private last: number;

  constructor(
    private readonly o: RateLimiterOptions = DEFAULT_RATE_LIMITS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = o.burst;
    this.last = clock();
  }

  /** How long to wait before `key` may be processed again (ms). */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const exp = Math.min(this.o.baseDelayMs * 2 ** n, this.o.maxDelayMs);
    return Math.max(exp, this.reserve());
  }

  /** rate.Limiter.Reserve(): take a token now, or the time until the token is there. */
  private reserve(): number {
    const t = this.clock();
    this.tokens = Math.min(this.o.burst, this.tokens + ((t - this.last) / 1000) * this.o.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.o.qps) * 1000;
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }
}

export interface QueueHooks {
  /** Called with the queue depth whenever it changes. */
  depth?: (n: number) => void;
  /** Called on every rate-limited re-add. */
  retry?: (key: string) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;

  constructor(
    readonly limiter = new ControllerRateLimiter(),
    private readonly hooks: QueueHooks = {},
  ) {}

  get length(): number {
    return this.queue.length;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(key);
      this.processing.add(key);
      getter(key);
    } else {
      this.queue.push(key);
      this.hooks.depth?.(this.queue.length);
    }
  }

  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = performance.now() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, timer });
  }

  addRateLimited(key: string): void {
    this.hooks.retry?.(key);
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** The next key (marked as processing), or undefined once shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.hooks.depth?.(this.queue.length);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** No more keys: waiting workers get undefined; delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
    this.queue.length = 0;
    this.dirty.clear();
    for (const g of this.getters.splice(0)) g(undefined);
    this.hooks.depth?.(0);
  }
}
