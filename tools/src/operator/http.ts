// The HTTP library under the operator's client-node API clients (client-node's own
// extension point, `wrapHttpLibrary`): each request goes straight to the undici
// dispatcher client-node chose for it (its connection pool; the process's global one
// for a plain-http server), with undici's `request` instead of `fetch`. client-node's
// default library runs every call through WHATWG fetch (Request, Headers, web streams,
// an AbortSignal per call); `request` does the same exchange with a fraction of the
// work and garbage, which is most of the operator's CPU per pod create. Watches keep
// client-node's own path (`Watch`).

import { ResponseContext, type RequestContext } from "@kubernetes/client-node";

/** What the operator needs of an undici dispatcher (client-node's Agent, or the global one). */
interface Dispatcher {
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
    body: { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer> };
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
 * Sends one client-node request through its dispatcher's `request`; `fallback` (client-node's
 * own library) takes a request it cannot (a body that is not text or bytes, no dispatcher).
 */
export async function sendDirect(req: RequestContext, fallback: (req: RequestContext) => Promise<ResponseContext>): Promise<ResponseContext> {
  const dispatcher = req.getDispatcher() ?? globalDispatcher();
  const body = req.getBody() as unknown;
  const plainBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (!hasRequest(dispatcher) || !plainBody) return fallback(req);
  const url = new URL(req.getUrl());
  const res = await dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: req.getHttpMethod().toString(),
    headers: req.getHeaders(),
    body: (body ?? null) as string | Uint8Array | null,
    signal: req.getSignal() ?? null,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  // The body is read once, by whichever of text() and binary() client-node asks for.
  let read: Promise<Buffer> | undefined;
  const bytes = (): Promise<Buffer> => (read ??= res.body.arrayBuffer().then((b) => Buffer.from(b)));
  return new ResponseContext(res.statusCode, headers, {
    text: () => bytes().then((b) => b.toString("utf8")),
    binary: bytes,
    stream: () => null,
  });
}

