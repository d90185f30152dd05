// The informers' watch: client-node's `Watch` contract (what its ListWatch calls), read
// with undici's `dispatch` on the client's connection pool instead of WHATWG fetch: the
// body's chunks come to a handler (no stream), are split into lines as they come, and
// each line is parsed once. client-node's
// own Watch turns the fetch body into a Node stream, runs it through readline and resets
// a timer on every chunk: on a real API server, with one ADDED event per created pod,
// that machinery (web streams, readline, a timer per chunk) cost more than the JSON
// parsing it feeds, and its garbage more again.
//
// Same behaviour as client-node's: `watch=true` and the query on the path, the
// kubeconfig's authentication (and the client's token bucket), a non-200 answer is
// `done(error)` with its `statusCode`, the end of the body is `done(null)`, and no byte
// for `inactivityMs` (30 s, client-node's requestTimeoutMs) aborts the request and is
// `done(TimeoutError)`, which ListWatch answers by watching again at once. A line that
// is not JSON is skipped, as client-node does. REPLICORE_CLIENT_NODE_WATCH=1 makes the
// informers use client-node's Watch instead (for comparison, tools/bench/realapi.mjs).

import { HttpMethod, RequestContext, type KubeConfig } from "@kubernetes/client-node";
import { dispatcherOf, send } from "./http.js";

/** client-node's requestTimeoutMs: a watch silent this long is dropped and opened again. */
export const WATCH_INACTIVITY_MS = 30_000;

export type WatchCallback = (phase: string, object: unknown, event: unknown) => void;

export class StreamWatch {
  constructor(
    private readonly kc: KubeConfig,
    private readonly inactivityMs = WATCH_INACTIVITY_MS,
  ) {}

  /** Opens the watch; resolves to its AbortController (ListWatch aborts it to stop). */
  async watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: WatchCallback, done: (err: unknown) => void): Promise<AbortController> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error("No currently active cluster");
    const url = new URL(cluster.server + path);
    url.searchParams.set("watch", "true");
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const controller = new AbortController();
    const ctx = new RequestContext(url.toString(), HttpMethod.GET);
    await this.kc.applySecurityAuthentication(ctx);
    const dispatcher = dispatcherOf(ctx);
    let finished = false;
    let timedOut = false;
    let lastData = performance.now();
    const timer = setInterval(
      () => {
        if (performance.now() - lastData < this.inactivityMs) return;
        timedOut = true;
        controller.abort();
      },
      Math.max(1, Math.min(1000, this.inactivityMs / 4)),
    );
    timer.unref();
    const finish = (err: unknown): void => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      controller.abort();
      done(timedOut ? new DOMException("The operation was aborted due to timeout", "TimeoutError") : err);
    };
    const run = async (): Promise<void> => {
      if (!dispatcher) throw new Error("no HTTP dispatcher for the watch");
      let failure: (Error & { statusCode: number }) | undefined;
      let rest: Buffer | undefined;
      await send(
        dispatcher,
        { origin: url.origin, path: `${url.pathname}${url.search}`, method: "GET", headers: ctx.getHeaders() },
        {
          headers(statusCode) {
            lastData = performance.now();
            if (statusCode !== 200) failure = Object.assign(new Error(`watch ${path}: HTTP ${statusCode}`), { statusCode });
          },
          data(chunk) {
            lastData = performance.now();
            if (failure) return;
            const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
            let start = 0;
            for (let nl = buf.indexOf(0x0a, start); nl >= 0; nl = buf.indexOf(0x0a, start)) {
              if (nl > start) emit(buf.toString("utf8", start, nl), callback);
              start = nl + 1;
            }
            // A partial line is copied out of the chunk, so the chunk itself can go.
            rest = start < buf.length ? Buffer.from(buf.subarray(start)) : undefined;
          },
        },
        controller.signal,
      );
      if (failure) throw failure;
      if (rest && rest.length > 0) emit(rest.toString("utf8"), callback);
    };
    run().then(
      () => finish(null),
      (err: unknown) => finish(err),
    );
    return controller;
  }
}

/** One line's event to the callback; a line that is not JSON, or a callback that throws, is skipped (as client-node's Watch does). */
function emit(line: string, callback: WatchCallback): void {
  try {
    const event = JSON.parse(line) as { type?: unknown; object?: unknown };
    callback(String(event.type), event.object, event);
  } catch {
    // skipped
  }
}
