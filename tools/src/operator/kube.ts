// The API client: kubeconfig or in-cluster config, the typed and custom-object APIs of
// @kubernetes/client-node, and its errors as the engine's ApiError.

import { existsSync } from "node:fs";
import {
  ApiException,
  CoreV1Api,
  createConfiguration,
  CustomObjectsApi,
  HttpMethod,
  KubeConfig,
  PatchStrategy,
  RequestContext,
  ResponseContext,
  ServerConfiguration,
  setHeaderMiddleware,
  setHeaderOptions,
  wrapHttpLibrary,
  type ApiType,
  type HttpLibrary,
} from "@kubernetes/client-node";
import { sendDirect } from "./http.js";
import type { ApiError } from "replicore";
import type { Access } from "./access.js";
import { reasonForCode } from "../status-reasons.js";

export interface ConnectOptions {
  /** A kubeconfig file; default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  kubeconfig?: string;
  /** An API server URL without credentials (e.g. the dev server); overrides the kubeconfig. */
  server?: string;
  context?: string;
}

export function loadKubeConfig(o: ConnectOptions): KubeConfig {
  const kc = new KubeConfig();
  if (o.server) {
    kc.loadFromOptions({
      // client-node refuses plain http unless skipTLSVerify is set (there is no TLS to verify).
      clusters: [{ name: "server", server: o.server, skipTLSVerify: o.server.startsWith("http://") }],
      users: [{ name: "anonymous" }],
      contexts: [{ name: "server", cluster: "server", user: "anonymous" }],
      currentContext: "server",
    });
  } else if (o.kubeconfig) {
    if (!existsSync(o.kubeconfig)) throw new Error(`--kubeconfig ${o.kubeconfig}: no such file`);
    kc.loadFromFile(o.kubeconfig);
  } else {
    kc.loadFromDefault();
  }
  if (o.context) kc.setCurrentContext(o.context);
  if (!kc.getCurrentCluster()) throw new Error("no cluster in the kubeconfig (give --kubeconfig, --server, or run in a cluster)");
  return kc;
}

/** The owner resource: `group/version/Kind` (`apps/v1/ReplicaSet`). */
export interface OwnerResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  apiVersion: string;
}

export function parseOwner(spec: string, plural?: string): OwnerResource {
  const parts = spec.split("/");
  if (parts.length !== 3 || parts.some((p) => p === "")) {
    throw new Error(`--owner ${spec}: expected group/version/Kind, e.g. apps/v1/ReplicaSet or replicore.dev/v1alpha1/ReplicaPool`);
  }
  const [group, version, kind] = parts as [string, string, string];
  return { group, version, kind, plural: plural ?? `${kind.toLowerCase()}s`, apiVersion: `${group}/${version}` };
}

/** An answer to a request by path: its status code and body text. */
export interface RawAnswer {
  code: number;
  body: string;
}

/** A request body already written as JSON text (sent as it is, not stringified again). */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A request by path (`/apis/…`) through a client: its bucket, user agent, pool and
 * counting. `body` is written as JSON, unless it is {@link JsonText} (one text sent by many
 * requests, as a sync's pod creates: written once, not once per pod).
 */
export type RawRequest = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown, contentType?: string) => Promise<RawAnswer>;

export interface Clients {
  kc: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** Paths the typed clients have no call for (discovery, /scale of any kind, the metrics APIs). */
  raw: RawRequest;
}

function rawRequests(kc: KubeConfig, httpApi: HttpLibrary, userAgent: string): RawRequest {
  return async (method, path, body, contentType) => {
    const server = kc.getCurrentCluster()?.server;
    if (!server) throw new Error("no cluster in the kubeconfig");
    const ctx = new RequestContext(`${server.replace(/\/$/, "")}${path}`, HttpMethod[method]);
    ctx.setHeaderParam("Accept", "application/json");
    if (body !== undefined) {
      ctx.setHeaderParam("Content-Type", contentType ?? "application/json");
      ctx.setBody(body instanceof JsonText ? body.text : JSON.stringify(body));
    }
    await kc.applySecurityAuthentication(ctx);
    ctx.setHeaderParam("User-Agent", userAgent);
    const res = await httpApi.send(ctx).toPromise();
    return { code: res.httpStatusCode, body: await res.body.text() };
  };
}

/**
 * The typed and custom-object clients. With `access`, every answer is shown to it (a
 * 401/403 with its Status body, kept readable for the caller): client-node's own
 * `makeApiClient`, with the HTTP library wrapped, and each request sent with undici's
 * `request` on client-node's dispatcher (./http.ts; client-node's fetch-based library
 * with REPLICORE_FETCH_HTTP=1, for tools/bench/operator.mjs's comparison). `userAgent`
 * names the client to the server (default `replicore-operator`); `answered` hears the
 * method, URL and status of every answer (a watch's excepted: it is not a request/response).
 */
export function clients(kc: KubeConfig, access?: Access, o: { userAgent?: string; answered?: (method: string, url: string, status: number) => void } = {}): Clients {
  const userAgent = o.userAgent ?? "replicore-operator";
  if (!access) return { kc, core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi), raw: rawRequests(kc, createConfiguration().httpApi, userAgent) };
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error("no cluster in the kubeconfig");
  const base = createConfiguration().httpApi;
  const fallback = (req: RequestContext): Promise<ResponseContext> => base.send(req).toPromise();
  const httpApi = wrapHttpLibrary({
    async send(req) {
      const res = process.env["REPLICORE_FETCH_HTTP"] ? await fallback(req) : await sendDirect(req, fallback);
      const status = res.httpStatusCode;
      o.answered?.(req.getHttpMethod().toString(), req.getUrl(), status);
      if (status !== 401 && status !== 403) {
        access.observe(status, req.getHttpMethod().toString(), req.getUrl());
        return res;
      }
      const text = await res.body.text();
      access.observe(status, req.getHttpMethod().toString(), req.getUrl(), text);
      return new ResponseContext(status, res.headers, {
        text: () => Promise.resolve(text),
        binary: () => Promise.resolve(Buffer.from(text)),
        stream: () => null,
      });
    },
  });
  const make = <T extends ApiType>(Api: new (c: ReturnType<typeof createConfiguration>) => T): T =>
    new Api(
      createConfiguration({
        baseServer: new ServerConfiguration<Record<string, never>>(server, {}),
        authMethods: { default: kc },
        httpApi,
        middleware: [setHeaderMiddleware("User-Agent", userAgent)],
      }),
    );
  return { kc, core: make(CoreV1Api), custom: make(CustomObjectsApi), raw: rawRequests(kc, httpApi, userAgent) };
}

/** client-node picks application/json-patch+json for every patch unless told otherwise. */
export function patchOptions(contentType: string): ReturnType<typeof setHeaderOptions> {
  const known = Object.values(PatchStrategy) as string[];
  if (!known.includes(contentType)) throw new Error(`unsupported patch type ${contentType}`);
  return setHeaderOptions("Content-Type", contentType);
}

/** An API answer's status code and body (a Status, or text) as the engine's ApiError (reason, message, code, causes). */
export function statusError(code: number, body: unknown): ApiError {
  if (typeof body === "string") {
    try {
      body = JSON.parse(body);
    } catch {
      /* keep the text */
    }
  }
  const status = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  const details = status["details"] && typeof status["details"] === "object" ? (status["details"] as Record<string, unknown>) : {};
  const causes = Array.isArray(details["causes"]) ? (details["causes"] as Array<Record<string, unknown>>).map((c) => String(c["reason"] ?? "")).filter((c) => c !== "") : [];
  const reason = typeof status["reason"] === "string" && status["reason"] !== "" ? status["reason"] : reasonForCode(code);
  const message = typeof status["message"] === "string" ? status["message"] : typeof body === "string" && body !== "" ? body : `HTTP ${code}`;
  return { reason, message, code, ...(causes.length ? { causes } : {}) };
}

/** Any error of a client-node call as the engine's ApiError (reason, message, code, causes). */
export function apiError(e: unknown): ApiError {
  if (e instanceof ApiException) return statusError(e.code, e.body);
  // A transport failure (connection refused or reset): not an API status, so not a
  // server-side timeout either (the call may or may not have happened).
  const err = e as { message?: string; cause?: { message?: string } };
  const why = err?.cause?.message ? `${err.message ?? ""}: ${err.cause.message}` : (err?.message ?? String(e));
  return { reason: "InternalError", message: why };
}

export function isConflict(e: unknown): boolean {
  return e instanceof ApiException && e.code === 409;
}

export function isNotFound(e: unknown): boolean {
  return e instanceof ApiException && e.code === 404;
}
