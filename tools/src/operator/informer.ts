// An informer on client-node's ListWatch (over ./watch.ts): list, then watch from the list's
// resourceVersion; on `410 Gone` (an ERROR event or the HTTP status) ListWatch re-lists
// and reports what changed meanwhile as adds, updates and deletes. ListWatch stops on
// any other error (a dropped connection, a 5xx): this wrapper restarts it with backoff
// from the last resourceVersion it saw, so no update is lost. Handlers get
// {added | updated (with the previous object) | deleted} events.

import { KubeConfig, ListWatch, Watch as ClientNodeWatch, type KubernetesListObject, type KubernetesObject, type Watch } from "@kubernetes/client-node";
import { StreamWatch } from "./watch.js";
import type { Logger } from "./log.js";

export type InformerEvent<T> = { type: "added"; object: T } | { type: "updated"; old: T; object: T } | { type: "deleted"; object: T };

export interface InformerOptions<T extends KubernetesObject> {
  name: string;
  kc: KubeConfig;
  /** The watch path, e.g. `/api/v1/pods`. */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  log: Logger;
  onEvent: (e: InformerEvent<T>) => void;
  /** Restart backoff after an error (ms): doubles from min to max. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: unknown) => void;
  /**
   * Applied to every listed and watched object before it is cached or handed on (as
   * client-go's SetTransform): the informer then keeps only what it returns.
   */
  transform?: (o: T) => T;
  /** A list and its watch were both answered without an error (the watch is open). */
  onWatching?: () => void;
}

function keyOf(o: KubernetesObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

export class Informer<T extends KubernetesObject> {
  private readonly lw: ListWatch<T>;
  private readonly last = new Map<string, T>();
  private readonly listeners: Array<(e: InformerEvent<T>) => void> = [];
  private synced = false;
  private stopped = false;
  private backoff: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private firstSync: Promise<void>;
  private resolveFirst: () => void = () => {};

  constructor(private readonly o: InformerOptions<T>) {
    this.backoff = o.minBackoffMs ?? 200;
    this.firstSync = new Promise((r) => (this.resolveFirst = r));
    const watch = new (process.env["REPLICORE_CLIENT_NODE_WATCH"] ? ClientNodeWatch : StreamWatch)(o.kc) as unknown as Watch;
    const t = o.transform;
    const source = t
      ? ({
          watch: (path: string, query: Record<string, string | number | boolean | undefined>, cb: (phase: string, obj: T, raw: unknown) => void, done: (err: unknown) => void) =>
            watch.watch(path, query, (phase: string, obj: T) => cb(phase, phase === "ERROR" || phase === "BOOKMARK" ? obj : t(obj), undefined), done),
        } as unknown as Watch)
      : watch;
    this.lw = new ListWatch<T>(o.path, source, () => this.listed(), false);
    this.lw.on("add", (obj) => this.deliver(obj, false));
    this.lw.on("update", (obj) => this.deliver(obj, false));
    this.lw.on("delete", (obj) => this.deliver(obj, true));
    this.lw.on("error", (err) => this.failed(err));
    this.lw.on("connect", () => o.log.debug("watch connecting", { informer: o.name, resourceVersion: this.lw.latestResourceVersion() }));
  }

  private async listed(): Promise<KubernetesListObject<T>> {
    const list = await this.o.list();
    if (this.o.transform) list.items = list.items.map(this.o.transform);
    this.o.log.info("listed", { informer: this.o.name, items: list.items.length, resourceVersion: list.metadata?.resourceVersion });
    // ListWatch delivers the listed items synchronously once this resolves: synced after that.
    setImmediate(() => {
      if (!this.synced) {
        this.synced = true;
        this.resolveFirst();
      }
    });
    this.backoff = this.o.minBackoffMs ?? 200;
    return list;
  }

  private deliver(obj: T, deleted: boolean): void {
    const key = keyOf(obj);
    const old = this.last.get(key);
    let event: InformerEvent<T>;
    if (deleted) {
      this.last.delete(key);
      event = { type: "deleted", object: obj };
    } else {
      this.last.set(key, obj);
      event = old ? { type: "updated", old, object: obj } : { type: "added", object: obj };
    }
    for (const handle of [this.o.onEvent, ...this.listeners]) {
      try {
        handle(event);
      } catch (e) {
        this.o.log.error("event handler failed", { informer: this.o.name, key, error: (e as Error).message });
      }
    }
  }

  /**
   * Another handler of this informer's events from now on (a second controller sharing
   * its cache, as client-go's shared informers are): it reads what was delivered before
   * from {@link Informer.items}.
   */
  subscribe(handle: (e: InformerEvent<T>) => void): void {
    this.listeners.push(handle);
  }

  private failed(err: unknown): void {
    this.failures++;
    if (this.stopped) return;
    const e = err as { message?: string; statusCode?: number; code?: unknown };
    this.o.onError?.(err);
    this.o.log.warn("watch failed, restarting", {
      informer: this.o.name,
      error: e?.message ?? String(err),
      ...(e?.statusCode ? { status: e.statusCode } : {}),
      resourceVersion: this.lw.latestResourceVersion(),
      retryInMs: this.backoff,
    });
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 5000);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopped) void this.run();
    }, delay);
  }

  /** Lists and watches; resolves once the watch request has been answered (or failed). */
  private async run(): Promise<void> {
    const before = this.failures;
    try {
      // ListWatch.start resolves after the watch's answer: an error has been reported by then.
      await this.lw.start();
      if (this.failures === before && !this.stopped) this.o.onWatching?.();
    } catch (e) {
      this.failed(e);
    }
  }

  /**
   * Starts listing and watching; resolves once the first list has been delivered and the
   * first watch request answered (so a watch refused at start-up has been reported).
   */
  async start(): Promise<void> {
    this.stopped = false;
    const first = this.run();
    await this.firstSync;
    await first;
  }

  /** The cached object of key `namespace/name`. */
  get(key: string): T | undefined {
    return this.last.get(key);
  }

  /** The cached objects. */
  items(): IterableIterator<T> {
    return this.last.values();
  }

  /** Objects in the cache. */
  size(): number {
    return this.last.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion of the last list or event seen ("" before the first list). */
  latestResourceVersion(): string {
    return this.lw.latestResourceVersion();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.lw.stop();
  }
}

/** What {@link controllerInformer} adds to an informer's options. */
export interface ControllerInformerOptions {
  /** errors_total{where}: each watch failure counts as `watch`. */
  errors: { inc(labels: { where: string }): void };
  /** Told of each watch failure and each watch opened (a denial, and its end). */
  access?: { observeWatchError(err: unknown, path: string): void; watching(path: string): void } | undefined;
  /** Restart backoff (ms); default 200 to 5000. */
  backoffMs?: { min: number; max: number } | undefined;
}

/** An informer of a controller: its watch failures counted and shown to `access`. */
export function controllerInformer<T extends KubernetesObject>(o: Omit<InformerOptions<T>, "onError" | "onWatching" | "minBackoffMs" | "maxBackoffMs">, c: ControllerInformerOptions): Informer<T> {
  const backoff = c.backoffMs ?? { min: 200, max: 5000 };
  return new Informer<T>({
    ...o,
    onError: (err) => {
      c.errors.inc({ where: "watch" });
      c.access?.observeWatchError(err, o.path);
    },
    onWatching: () => c.access?.watching(o.path),
    minBackoffMs: backoff.min,
    maxBackoffMs: backoff.max,
  });
}
