// The HTTP library under the operator's client-node API clients (client-node's own
// extension point, `wrapHttpLibrary`): each request goes straight to the undici
// dispatcher client-node chose for it (its connection pool; the process's global one
// for a plain-http server), through the dispatcher's `dispatch` with a handler that
// gathers the answer's bytes. client-node's default library runs every call through
// WHATWG fetch (Request, Headers, web streams, an AbortSignal per call); undici's
// `request` still wraps each answer in a Node stream; `dispatch` does the same exchange
// with neither (about a fifth less CPU per pod create than `request` on a real API
// server, docs/performance.md). The informers' watches (./watch.ts) stream through the
// same `send`, without the gate.
//
// At most MAX_IN_FLIGHT requests of one pool are on the wire at once; further ones wait
// here, first come first served. undici opens a connection for every request that finds
// none idle: with 1,000 creates in flight the operator held 400 connections to the API
// server (each one a TLS handshake on a real cluster, an HTTP parser, socket buffers),
// where kube-controller-manager multiplexes its requests over one HTTP/2 connection.
// Event writes wait in the same line as the pod creates: kube-controller-manager's
// event writes go out on that connection among the creates in flight, and the API server
// answers them as late as it answers those; so its event sink writes as few events during
// a burst as the operator's does when its writes wait behind the queued creates (given a
// line of their own, the operator's sink wrote two to three times as many Events as
// kube-controller-manager's for the same scale-up and scale-down).

import { ResponseContext, type RequestContext } from "@kubernetes/client-node";

/** What the operator needs of an undici dispatcher (client-node's Agent, or the global one). */
export interface Dispatcher {
  dispatch(
    o: {
      origin: string;
      path: string;
      method: string;
      headers?: Record<string, string>;
      body?: string | Buffer | Uint8Array | null;
    },
    handler: Handler,
  ): boolean;
}

/**
 * undici's dispatch handler, in the form both its 6.x (Node's own) and 7.x (client-node's)
 * lines call: raw header pairs, chunks, then completion or an error.
 */
interface Handler {
  onConnect(abort: (err?: Error) => void): void;
  onHeaders(statusCode: number, rawHeaders: Array<Buffer | Buffer[]>, resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: unknown): void;
  onError(err: Error): void;
}

/** undici's process-wide dispatcher (set when undici is loaded; client-node loads it). */
function globalDispatcher(): Dispatcher | undefined {
  const g = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  return g[Symbol.for("undici.globalDispatcher.1")];
}

function canDispatch(d: unknown): d is Dispatcher {
  return typeof d === "object" && d !== null && typeof (d as { dispatch?: unknown }).dispatch === "function";
}

/**
 * The dispatcher a client-node request goes through: the one its authentication set (the
 * client's pool), else undici's global one (plain http); undefined if neither can `dispatch`.
 */
export function dispatcherOf(req: RequestContext): Dispatcher | undefined {
  const d = req.getDispatcher() ?? globalDispatcher();
  return canDispatch(d) ? d : undefined;
}

/** Requests of one connection pool on the wire at once (the rest wait their turn, in order). */
export const MAX_IN_FLIGHT = 64;

/** A counting gate: at most `limit` holders at once, the others wait first come first served. */
export class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  enter(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the place to the next waiter, or frees it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/** Each pool's gate (one line for every request of the pool, event writes included). */
const gates = new WeakMap<object, Gate>();

function gateOf(dispatcher: object): Gate {
  let gate = gates.get(dispatcher);
  if (!gate) gates.set(dispatcher, (gate = new Gate(MAX_IN_FLIGHT)));
  return gate;
}

/** An answer as it came: status, headers (a repeated one joined by ", ") and body. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
}

/** What a caller does with an answer as it comes: its status and raw headers, then each chunk. */
export interface AnswerSink {
  headers(statusCode: number, raw: Array<Buffer | Buffer[]>): void;
  data(chunk: Buffer): void;
}

/**
 * Sends one request through `dispatcher`'s `dispatch`, handing the answer to `sink` as it
 * comes; resolves when the answer is complete, rejects on a failure or when `signal`
 * aborts the request (with the signal's reason).
 */
export function send(dispatcher: Dispatcher, o: Parameters<Dispatcher["dispatch"]>[0], sink: AnswerSink, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    let abortCall: ((err?: Error) => void) | undefined;
    const onAbort = (): void => abortCall?.(signal?.reason instanceof Error ? signal.reason : new Error("This operation was aborted"));
    const settle = (): void => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    dispatcher.dispatch(o, {
      onConnect(abort) {
        abortCall = abort;
        if (signal?.aborted) onAbort();
      },
      onHeaders(statusCode, raw) {
        sink.headers(statusCode, raw);
        return true;
      },
      onData(chunk) {
        sink.data(chunk);
        return true;
      },
      onComplete() {
        settle();
        resolve();
      },
      onError(err) {
        settle();
        reject(err);
      },
    });
  });
}

/** One request's whole answer: its status, headers and body. */
async function exchange(dispatcher: Dispatcher, o: Parameters<Dispatcher["dispatch"]>[0], signal: AbortSignal | null): Promise<Answer> {
  const chunks: Buffer[] = [];
  const answer: Answer = { status: 0, headers: {}, bytes: Buffer.alloc(0) };
  await send(
    dispatcher,
    o,
    {
      headers(statusCode, raw) {
        answer.status = statusCode;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = String(raw[i]).toLowerCase();
          const v = raw[i + 1]!;
          const value = Array.isArray(v) ? v.map(String).join(", ") : String(v);
          const had = answer.headers[name];
          answer.headers[name] = had === undefined ? value : `${had}, ${value}`;
        }
      },
      data: (chunk) => chunks.push(chunk),
    },
    signal,
  );
  answer.bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return answer;
}

/**
 * Sends one client-node request through its dispatcher's `request`; `fallback` (client-node's
 * own library) takes a request it cannot (a body that is not text or bytes, no dispatcher).
 */
export async function sendDirect(req: RequestContext, fallback: (req: RequestContext) => Promise<ResponseContext>): Promise<ResponseContext> {
  const dispatcher = dispatcherOf(req);
  const body = req.getBody() as unknown;
  const plainBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (!dispatcher || !plainBody) return fallback(req);
  const url = new URL(req.getUrl());
  const gate = gateOf(dispatcher);
  await gate.enter();
  let answer: Answer;
  try {
    answer = await exchange(
      dispatcher,
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.getHttpMethod().toString(),
        headers: req.getHeaders(),
        body: (body ?? null) as string | Uint8Array | null,
      },
      req.getSignal() ?? null,
    );
  } finally {
    // After undici has marked the connection idle (it does so as the answer completes):
    // the next request then finds it instead of opening another.
    setImmediate(() => gate.leave());
  }
  const { status, headers, bytes } = answer;
  return new ResponseContext(status, headers, {
    text: () => Promise.resolve(bytes.toString("utf8")),
    binary: () => Promise.resolve(bytes),
    stream: () => null,
  });
}

