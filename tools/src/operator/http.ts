// The HTTP library under the operator's client-node API clients (client-node's own
// extension point, `wrapHttpLibrary`): each request goes straight to the undici
// dispatcher client-node chose for it (its connection pool; the process's global one
// for a plain-http server), with undici's `request` instead of `fetch`. client-node's
// default library runs every call through WHATWG fetch (Request, Headers, web streams,
// an AbortSignal per call); `request` does the same exchange with a fraction of the
// work and garbage, which is most of the operator's CPU per pod create. Watches keep
// client-node's own path (`Watch`).
//
// At most MAX_IN_FLIGHT requests of one pool are on the wire at once (and as many Event
// writes beside them, see `gates`); further ones wait here. undici opens a connection for every request that finds none idle: with 1,000
// creates in flight the operator held 400 connections to the API server (each one a TLS
// handshake on a real cluster, an HTTP parser, socket buffers), where
// kube-controller-manager multiplexes its requests over one HTTP/2 connection.

import { ResponseContext, type RequestContext } from "@kubernetes/client-node";

/** What the operator needs of an undici dispatcher (client-node's Agent, or the global one). */
export interface Dispatcher {
  request(o: {
    origin: string;
    path: string;
    method: string;
    headers?: Record<string, string>;
    body?: string | Buffer | Uint8Array | null;
    signal?: AbortSignal | null;
  }): Promise<{
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    body: AsyncIterable<Buffer> & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; destroy(err?: Error): void };
  }>;
}

/** undici's process-wide dispatcher (set when undici is loaded; client-node loads it). */
function globalDispatcher(): Dispatcher | undefined {
  const g = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  return g[Symbol.for("undici.globalDispatcher.1")];
}

function hasRequest(d: unknown): d is Dispatcher {
  return typeof d === "object" && d !== null && typeof (d as { request?: unknown }).request === "function";
}

/**
 * The dispatcher a client-node request goes through: the one its authentication set (the
 * client's pool), else undici's global one (plain http); undefined if neither can `request`.
 */
export function dispatcherOf(req: RequestContext): Dispatcher | undefined {
  const d = req.getDispatcher() ?? globalDispatcher();
  return hasRequest(d) ? d : undefined;
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

/**
 * A pool's gates: one for Event writes, one for every other request. A controller's event
 * sink writes one event at a time and drops what its queue cannot hold meanwhile; behind
 * hundreds of pod creates waiting at one gate, each event write waited for them all and
 * the sink dropped most events. kube-controller-manager's event writes share the client's
 * token bucket but not a queue: its HTTP/2 connection carries them beside the creates.
 */
const gates = new WeakMap<object, { events: Gate; requests: Gate }>();

/** An Event create or update (core/v1 or events.k8s.io), by its path. */
export function isEventWrite(method: string, pathname: string): boolean {
  return method !== "GET" && /\/events(\/[^/]+)?$/.test(pathname);
}

function gateOf(dispatcher: object, method: string, pathname: string): Gate {
  let pair = gates.get(dispatcher);
  if (!pair) gates.set(dispatcher, (pair = { events: new Gate(MAX_IN_FLIGHT), requests: new Gate(MAX_IN_FLIGHT) }));
  return isEventWrite(method, pathname) ? pair.events : pair.requests;
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
  const method = req.getHttpMethod().toString();
  const gate = gateOf(dispatcher, method, url.pathname);
  await gate.enter();
  let status: number;
  let headers: Record<string, string>;
  let bytes: Buffer;
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers: req.getHeaders(),
      body: (body ?? null) as string | Uint8Array | null,
      signal: req.getSignal() ?? null,
    });
    status = res.statusCode;
    headers = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    // The body is read before the connection is given back (client-node reads every body).
    bytes = Buffer.from(await res.body.arrayBuffer());
  } finally {
    // After undici has marked the connection idle (it does so after the body's last
    // chunk is handed on): the next request then finds it instead of opening another.
    setImmediate(() => gate.leave());
  }
  return new ResponseContext(status, headers, {
    text: () => Promise.resolve(bytes.toString("utf8")),
    binary: () => Promise.resolve(bytes),
    stream: () => null,
  });
}

