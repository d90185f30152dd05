// The fake Kubernetes API server: an in-memory HTTP server with the REST subset the
// operator and kubectl use. See docs/dev-server.md for the routes and the
// control endpoints under /_replicore/. This module routes requests and performs the
// verbs on the store; what a written object must satisfy is admission.ts, kubectl's
// tables are tables.ts, the error answers errors.ts.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { splitApiPath, type RequestAttributes } from "../api-path.js";
import { generatedNameAlphabet, generatedNameSuffixLength, podQuotaUsed, type Pod } from "replicore";
import { authorize, type TokenTable } from "./auth.js";
import { admit, prepareForCreate, requireNameOrGenerateName, scaleReplicas, validateName, validateReplicas, validateOwnerReferences } from "./admission.js";
import { sameJson } from "./deployments.js";
import { HttpError, statusBody } from "./errors.js";
import { FaultState, reasonFor, type FaultRule, type RequestInfo } from "./faults.js";
import { Kubelet, type KubeletOptions } from "./kubelet.js";
import { LoadModel, METRICS_GROUP, METRICS_VERSION, type LoadSettings, type LoadSpec } from "./metrics.js";
import { decodeKubernetesProtobuf, UnsupportedProtobuf } from "./protobuf.js";
import {
  isObject,
  jsonPatch,
  labelsMatch,
  mergePatch,
  parseFieldSelector,
  parseLabelSelector,
  PatchError,
  strategicMergePatch,
  type Json,
  type JsonObject,
} from "./patch.js";
import { apiVersionOf, discovery, findResource, RESOURCES, served, storedApiVersionOf, storeKey, toStored, type ResourceType } from "./resources.js";
import { meta, Store, type WatchEventRecord, type Watcher } from "./store.js";
import { selectorString, table, wantsTable } from "./tables.js";

export interface DevServerOptions {
  port?: number;
  host?: string;
  /** Watch events kept per resource for resuming (older versions get 410 Gone). */
  watchWindow?: number;
  kubelet?: KubeletOptions | null;
  /** With the kubelet: the load model its metrics API (metrics.k8s.io) reports (metrics.ts). */
  load?: LoadSettings;
  /** Print one JSON line per request on stderr. */
  logRequests?: boolean;
  /** Told of every request as it arrives (its method, URL and User-Agent), e.g. to measure a client's rate. */
  onRequest?: (r: { method: string; url: string; userAgent: string | undefined; at: number }) => void;
  /**
   * Bearer tokens and their users' deny rules (`auth.ts`): an unknown token gets 401, a
   * denied request 403 with kube-apiserver's message. Unset: every request is allowed.
   */
  tokens?: TokenTable;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

// The engine's alphabet of generated names and their suffix length, read once (on first
// use: the module is instantiated by then).
let names: { chars: string; length: number } | undefined;
function suffix(): string {
  names ??= { chars: generatedNameAlphabet(), length: generatedNameSuffixLength() };
  let s = "";
  for (let i = 0; i < names.length; i++) s += names.chars[Math.floor(Math.random() * names.chars.length)];
  return s;
}


interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface Stats {
  requests: Record<string, number>;
  podCreates: { ok: number; failed: number; maxInFlight: number };
  watches: { open: number; opened: number; dropped: number };
}

export class DevServer {
  readonly store: Store;
  readonly faults = new FaultState();
  readonly stats: Stats = { requests: {}, podCreates: { ok: 0, failed: 0, maxInFlight: 0 }, watches: { open: 0, opened: 0, dropped: 0 } };
  private podCreatesInFlight = 0;
  /** Requests being handled (watches included), for debugging. */
  readonly inFlight = new Map<IncomingMessage, string>();
  private readonly server: Server;
  private readonly kubelet: Kubelet | undefined;
  /** The kubelet's load model and metrics API (with the kubelet only). */
  readonly load: LoadModel | undefined;
  private readonly openWatches = new Set<{ res: ServerResponse; watcher: Watcher }>();
  private address = "127.0.0.1:0";

  constructor(private readonly options: DevServerOptions = {}) {
    this.store = new Store(options.watchWindow ?? 10000);
    this.kubelet = options.kubelet ? new Kubelet(this.store, options.kubelet, (p) => this.putPod(p)) : undefined;
    this.load = options.kubelet ? new LoadModel(this.store, options.load) : undefined;
    this.server = createServer((req, res) => {
      const id = `${req.method} ${req.url}`;
      this.inFlight.set(req, id);
      res.on("close", () => this.inFlight.delete(req));
      this.handle(req, res).catch((e: unknown) => {
        const err = e instanceof HttpError ? e : new HttpError(500, e instanceof Error ? e.message : String(e));
        this.fail(res, err);
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", () => resolve());
    });
    const a = this.server.address() as AddressInfo;
    this.address = `${a.address}:${a.port}`;
    return `http://${this.address}`;
  }

  async close(): Promise<void> {
    this.kubelet?.stop();
    this.dropWatches("close");
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Ends every open watch: `reset` destroys the connection, `close` ends the response cleanly. */
  dropWatches(mode: "reset" | "close"): number {
    const n = this.openWatches.size;
    for (const w of [...this.openWatches]) {
      this.store.watchers.delete(w.watcher);
      this.openWatches.delete(w);
      if (mode === "reset") w.res.destroy();
      else w.res.end();
    }
    this.stats.watches.dropped += n;
    this.stats.watches.open = 0;
    return n;
  }

  // -------------------------------------------------------------------------------------

  private count(key: string): void {
    this.stats.requests[key] = (this.stats.requests[key] ?? 0) + 1;
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private fail(res: ServerResponse, e: HttpError): void {
    this.send(res, e.status, statusBody(e.status, e.message, e.reason, e.details), e.headers);
  }

  private async body(req: IncomingMessage): Promise<Json> {
    const type = String(req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (type === "application/vnd.kubernetes.protobuf") {
      // client-go's typed clients (kubectl 1.32 and newer) send built-in kinds as protobuf.
      try {
        return decodeKubernetesProtobuf(Buffer.concat(chunks));
      } catch (e) {
        if (e instanceof UnsupportedProtobuf) throw new HttpError(415, `the protobuf body could not be decoded: ${e.message}`, "UnsupportedMediaType");
        throw e;
      }
    }
    const text = Buffer.concat(chunks).toString("utf8");
    if (text.trim() === "") return null;
    try {
      return JSON.parse(text) as Json;
    } catch (e) {
      throw new HttpError(400, `the request body is not valid JSON: ${(e as Error).message}`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    if (this.options.logRequests) process.stderr.write(`${JSON.stringify({ msg: "request", method, url: req.url })}\n`);
    this.options.onRequest?.({ method, url: req.url ?? "/", userAgent: req.headers["user-agent"], at: performance.now() });

    if (path.startsWith("/_replicore/")) return this.control(req, res, path);
    // kube-apiserver authenticates every request before routing it.
    this.authorize(req, undefined);
    if (path === "/healthz" || path === "/readyz" || path === "/livez") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
      return;
    }
    if (path === "/openapi/v2" && method === "GET") {
      // kubectl's client-side validation reads the OpenAPI v2 document (protobuf). An empty
      // one (swagger "2.0", no definitions) makes it skip validation for every kind.
      const doc = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);
      res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": doc.length });
      res.end(doc);
      return;
    }
    const doc = method === "GET" ? discovery(path, this.address, this.load !== undefined) : undefined;
    if (doc) return this.send(res, 200, doc);
    if (this.load && path.startsWith(`/apis/${METRICS_GROUP}/${METRICS_VERSION}/`)) return this.metrics(req, res, url, path);

    const route = this.route(path);
    if (!route) throw new HttpError(404, `the server could not find the requested resource (${method} ${path})`);
    const watch = url.searchParams.get("watch");
    const isWatch = watch === "1" || watch === "true";
    const verb =
      method === "GET"
        ? route.name === undefined
          ? isWatch
            ? "watch"
            : "list"
          : "get"
        : method === "POST"
          ? "create"
          : method === "PUT"
            ? "update"
            : method === "PATCH"
              ? "patch"
              : method === "DELETE"
                ? route.name === undefined
                  ? "deletecollection"
                  : "delete"
                : "unknown";
    const info: RequestInfo = { verb, resource: route.type.plural, ...(route.subresource ? { subresource: route.subresource } : {}) };
    if (route.namespace !== undefined) info.namespace = route.namespace;
    if (route.name !== undefined) info.name = route.name;
    this.count(`${verb} ${route.type.plural}${route.subresource ? `/${route.subresource}` : ""}`);
    this.authorize(req, { ...info, group: route.type.group });

    const podCreate = verb === "create" && route.type.kind === "Pod";
    if (podCreate) {
      this.podCreatesInFlight++;
      this.stats.podCreates.maxInFlight = Math.max(this.stats.podCreates.maxInFlight, this.podCreatesInFlight);
    }
    try {
      if (this.faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.faults.latencyMs));
    } finally {
      if (podCreate) this.podCreatesInFlight--;
    }
    const rule = this.faults.match(info);
    if (rule) {
      if (podCreate) this.stats.podCreates.failed++;
      const err = ruleError(rule, info);
      if (rule.asWatchEvent && verb === "watch") {
        res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
        res.end(`${JSON.stringify({ type: "ERROR", object: statusBody(err.status, err.message, err.reason, err.details) })}\n`);
        return;
      }
      throw err;
    }

    const body = method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE" ? await this.body(req) : null;
    switch (verb) {
      case "list":
        return this.list(req, res, route, url);
      case "watch":
        return this.watch(res, route, url, wantsTable(req));
      case "get":
        return this.send(res, 200, this.getView(route, req));
      case "create":
        return this.send(res, 201, served(route.type, this.create(route, body)));
      case "update":
        return this.send(res, 200, this.update(route, body));
      case "patch":
        return this.send(res, 200, this.patch(route, body, (req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? ""));
      case "delete":
        return this.send(res, 200, served(route.type, this.delete(route, body)));
      case "deletecollection":
        return this.send(res, 200, this.deleteCollection(route, url));
      default:
        throw new HttpError(405, `method ${method} is not allowed`, "MethodNotAllowed");
    }
  }

  /**
   * The metrics API (metrics.ts), as metrics-server serves it: list and get of PodMetrics
   * and NodeMetrics. Authorized, delayed and failed (fault rules on resource
   * `pods.metrics.k8s.io` or `nodes.metrics.k8s.io`) as the other requests are.
   */
  private async metrics(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    const method = req.method ?? "GET";
    const r = LoadModel.parse(path.slice(`/apis/${METRICS_GROUP}/${METRICS_VERSION}/`.length).split("/"));
    if (!r) throw new HttpError(404, `the server could not find the requested resource (${method} ${path})`);
    if (method !== "GET") throw new HttpError(405, `method ${method} is not allowed on the metrics API`, "MethodNotAllowed");
    const info: RequestInfo = { verb: r.name === undefined ? "list" : "get", resource: `${r.resource}.${METRICS_GROUP}` };
    if (r.namespace !== undefined) info.namespace = r.namespace;
    if (r.name !== undefined) info.name = r.name;
    this.count(`${info.verb} ${info.resource}`);
    this.authorize(req, { ...info, resource: r.resource, group: METRICS_GROUP });
    if (this.faults.latencyMs > 0) await new Promise((done) => setTimeout(done, this.faults.latencyMs));
    const rule = this.faults.match(info);
    if (rule) throw ruleError(rule, info);
    this.send(res, 200, (this.load as LoadModel).answer(r, url.searchParams.get("labelSelector") ?? ""));
  }

  /** 401 for an unknown token; with the request's attributes, 403 when its user is denied them. */
  private authorize(req: IncomingMessage, a: RequestAttributes | undefined): void {
    const r = authorize(this.options.tokens, req.headers.authorization, a);
    if (!r.ok) throw new HttpError(r.status, r.message, r.reason, r.details);
  }

  private route(path: string): Route | undefined {
    const split = splitApiPath(path);
    if (!split) return undefined;
    const { group, version, namespace } = split;
    const rest = split.rest;
    const type = findResource(group, version, rest[0] as string);
    if (!type) {
      // GET /api/v1/namespaces/<name>: any namespace exists.
      if (group === "" && rest.length === 0 && namespace !== undefined) {
        const ns = findResource("", "v1", "namespaces") as ResourceType;
        return { type: ns, name: namespace };
      }
      return undefined;
    }
    if (type.namespaced !== (namespace !== undefined) && rest.length > 1) return undefined;
    const r: Route = { type };
    if (namespace !== undefined) r.namespace = namespace;
    if (rest[1] !== undefined) r.name = rest[1];
    if (rest[2] !== undefined) {
      if (!(rest[2] === "status" && type.status) && !(rest[2] === "scale" && type.scale)) return undefined;
      r.subresource = rest[2];
    }
    if (rest.length > 3) return undefined;
    return r;
  }

  private notFound(route: Route): HttpError {
    const gr = route.type.group ? `${route.type.plural}.${route.type.group}` : route.type.plural;
    return new HttpError(404, `${gr} "${route.name}" not found`, "NotFound", { name: route.name, group: route.type.group, kind: route.type.plural });
  }

  private conflict(route: Route, message = "the object has been modified; please apply your changes to the latest version and try again"): HttpError {
    const gr = route.type.group ? `${route.type.plural}.${route.type.group}` : route.type.plural;
    return new HttpError(409, `Operation cannot be fulfilled on ${gr} "${route.name}": ${message}`, "Conflict", {
      name: route.name,
      group: route.type.group,
      kind: route.type.plural,
    });
  }

  private stored(route: Route): JsonObject {
    if (route.type.kind === "Namespace") {
      return { kind: "Namespace", apiVersion: "v1", metadata: { name: route.name as string, uid: `ns-${route.name}`, resourceVersion: "1" }, spec: {}, status: { phase: "Active" } };
    }
    const o = this.store.get(storeKey(route.type), route.namespace, route.name as string);
    if (!o) throw this.notFound(route);
    return o;
  }

  private getView(route: Route, req: IncomingMessage): object {
    const o = this.stored(route);
    if (route.subresource === "scale") return scaleOf(o);
    if (wantsTable(req)) return table(route.type, [o], String(this.store.currentRv()));
    return served(route.type, o);
  }

  // -- list and watch -------------------------------------------------------------------

  private filter(url: URL): (o: JsonObject) => boolean {
    let labels: ReturnType<typeof parseLabelSelector>;
    let fields: ReturnType<typeof parseFieldSelector>;
    try {
      labels = parseLabelSelector(url.searchParams.get("labelSelector") ?? "");
      fields = parseFieldSelector(url.searchParams.get("fieldSelector") ?? "");
    } catch (e) {
      throw new HttpError(400, (e as Error).message);
    }
    return (o) => labelsMatch(labels, meta(o)["labels"] as Record<string, string> | undefined) && fields.every((f) => f(o));
  }

  private list(req: IncomingMessage, res: ServerResponse, route: Route, url: URL): void {
    const keep = this.filter(url);
    const rv = String(this.store.currentRv());
    let items: JsonObject[];
    if (route.type.kind === "Namespace") {
      const names = new Set<string>(["default"]);
      for (const [, o] of this.store.all()) if (typeof meta(o)["namespace"] === "string") names.add(meta(o)["namespace"] as string);
      items = [...names].map((n) => this.stored({ type: route.type, name: n }));
    } else {
      items = this.store.list(storeKey(route.type), route.namespace).filter(keep);
    }
    items.sort((a, b) => String(meta(a)["namespace"] ?? "").localeCompare(String(meta(b)["namespace"] ?? "")) || String(meta(a)["name"]).localeCompare(String(meta(b)["name"])));
    if (wantsTable(req)) return this.send(res, 200, table(route.type, items, rv));
    this.send(res, 200, { kind: `${route.type.kind}List`, apiVersion: apiVersionOf(route.type), metadata: { resourceVersion: rv }, items: items.map((o) => served(route.type, o)) });
  }

  private watch(res: ServerResponse, route: Route, url: URL, asTable = false): void {
    const keep = this.filter(url);
    const resource = storeKey(route.type);
    const rvParam = url.searchParams.get("resourceVersion") ?? "";
    const fromRv = rvParam === "" || rvParam === "0" ? undefined : Number(rvParam);
    if (fromRv !== undefined && !Number.isInteger(fromRv)) throw new HttpError(400, `resourceVersion: invalid value ${JSON.stringify(rvParam)}`);
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked", "Cache-Control": "no-cache" });
    res.flushHeaders();
    const write = (type: string, object: object): void => {
      // `kubectl get -w` asks for Tables: each event's object is a one-row Table.
      const o =
        type === "ERROR" ? object : asTable ? table(route.type, [object as JsonObject], String(meta(object as JsonObject)["resourceVersion"] ?? "")) : served(route.type, object as JsonObject);
      res.write(`${JSON.stringify({ type, object: o })}\n`);
    };
    const deliver = (e: WatchEventRecord): void => {
      if (route.namespace !== undefined && meta(e.object)["namespace"] !== route.namespace) return;
      const now = keep(e.object);
      if (e.type === "MODIFIED") {
        const before = e.old ? keep(e.old) : now;
        if (now && before) write("MODIFIED", e.object);
        else if (now) write("ADDED", e.object);
        else if (before) write("DELETED", e.object);
      } else if (now) write(e.type, e.object);
    };
    if (fromRv === undefined) {
      for (const o of this.store.list(resource, route.namespace)) if (keep(o)) write("ADDED", o);
    } else {
      const backlog = this.store.since(resource, fromRv);
      if (backlog === undefined) {
        write("ERROR", statusBody(410, `too old resource version: ${fromRv} (${this.store.currentRv()})`, "Expired"));
        res.end();
        return;
      }
      for (const e of backlog) deliver(e);
    }
    const entry = {
      res,
      watcher: {
        resource,
        ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
        send: deliver,
        close: () => res.end(),
      } as Watcher,
    };
    this.store.watchers.add(entry.watcher);
    this.openWatches.add(entry);
    this.stats.watches.open = this.openWatches.size;
    this.stats.watches.opened++;
    const done = (): void => {
      this.store.watchers.delete(entry.watcher);
      this.openWatches.delete(entry);
      this.stats.watches.open = this.openWatches.size;
    };
    res.on("close", done);
    const timeout = Number(url.searchParams.get("timeoutSeconds") ?? "0");
    if (timeout > 0) {
      const t = setTimeout(() => {
        done();
        res.end();
      }, timeout * 1000);
      t.unref();
      res.on("close", () => clearTimeout(t));
    }
  }

  // -- writes ---------------------------------------------------------------------------

  private checkKind(route: Route, o: JsonObject): void {
    const kind = o["kind"];
    const apiVersion = o["apiVersion"];
    const want = route.subresource === "scale" ? "Scale" : route.type.kind;
    if (kind !== undefined && kind !== want) throw new HttpError(400, `the body's kind ${JSON.stringify(kind)} does not match the resource (${want})`);
    if (route.subresource !== "scale" && apiVersion !== undefined && apiVersion !== apiVersionOf(route.type)) {
      throw new HttpError(400, `the body's apiVersion ${JSON.stringify(apiVersion)} does not match the resource (${apiVersionOf(route.type)})`);
    }
  }

  private create(route: Route, body: Json): JsonObject {
    if (route.name !== undefined || route.subresource !== undefined) throw new HttpError(405, "create is only allowed on a collection", "MethodNotAllowed");
    if (route.type.kind === "Namespace") {
      return this.stored({ type: route.type, name: String(meta(isObject(body) ? body : {})["name"] ?? "default") });
    }
    if (!isObject(body)) throw new HttpError(400, "the request body must be a JSON object");
    this.checkKind(route, body);
    const o = toStored(route.type, structuredClone(body));
    const m = meta(o);
    if (route.namespace !== undefined && m["namespace"] !== undefined && m["namespace"] !== route.namespace) {
      throw new HttpError(400, `the namespace of the provided object (${String(m["namespace"])}) does not match the namespace sent on the request (${route.namespace})`);
    }
    requireNameOrGenerateName(route.type.kind, m);
    if (typeof m["name"] !== "string" || m["name"] === "") {
      // As kube-apiserver does since 1.30 (RetryGenerateName): a generated name that is
      // taken is generated again, up to 8 tries. Without it, 1,200 pods of one
      // generateName (27^5 suffixes) collided in about one run in twenty.
      const prefix = m["generateName"];
      let tries = 0;
      do m["name"] = `${prefix}${suffix()}`;
      while (++tries < 8 && this.store.get(storeKey(route.type), route.namespace, m["name"] as string));
    }
    const name = m["name"] as string;
    validateName(route.type.kind, name);
    if (this.store.get(storeKey(route.type), route.namespace, name)) {
      const gr = route.type.group ? `${route.type.plural}.${route.type.group}` : route.type.plural;
      throw new HttpError(409, `${gr} "${name}" already exists`, "AlreadyExists", { name, group: route.type.group, kind: route.type.plural });
    }
    if (route.namespace !== undefined) m["namespace"] = route.namespace;
    m["uid"] = this.store.newUid();
    m["creationTimestamp"] = now();
    delete m["resourceVersion"];
    delete m["deletionTimestamp"];
    if (route.type.generation) m["generation"] = 1;
    o["metadata"] = m;
    o["kind"] = route.type.kind;
    o["apiVersion"] = storedApiVersionOf(route.type);
    if (route.type.kind === "Pod") {
      const q = this.faults.podQuota;
      if (q && (q.namespace === undefined || q.namespace === route.namespace)) {
        // The pods kube-apiserver's quota evaluator charges (the engine's rule).
        const used = podQuotaUsed(this.store.list(storeKey(route.type), q.namespace) as unknown as Pod[], new Date());
        if (used >= q.limit) {
          this.stats.podCreates.failed++;
          throw new HttpError(403, `pods "${name}" is forbidden: exceeded quota: pod-quota, requested: pods=1, used: pods=${used}, limited: pods=${q.limit}`, "Forbidden", {
            name,
            kind: "pods",
          });
        }
      }
      this.stats.podCreates.ok++;
    }
    prepareForCreate(route.type, o);
    validateReplicas(route.type, name, o);
    admit(route.type, name, o);
    validateOwnerReferences(route.type.kind, o);
    const out = this.store.put(storeKey(route.type), o, "ADDED");
    return out;
  }

  /** Writes a changed pod (the fake kubelet). */
  private putPod(p: JsonObject): void {
    const m = meta(p);
    if (!this.store.get("/pods", m["namespace"] as string, m["name"] as string)) return;
    this.store.put("/pods", p, "MODIFIED");
  }

  private commit(route: Route, current: JsonObject, next: JsonObject, expectedRv: Json | undefined, expectedUid?: Json): JsonObject {
    const cm = meta(current);
    const nm = meta(next);
    if (expectedRv !== undefined && expectedRv !== null && expectedRv !== "" && expectedRv !== cm["resourceVersion"]) throw this.conflict(route);
    if (expectedUid !== undefined && expectedUid !== null && expectedUid !== cm["uid"]) {
      throw this.conflict(route, `Precondition failed: UID in precondition: ${String(expectedUid)}, UID in object meta: ${String(cm["uid"])}`);
    }
    if (nm["name"] !== cm["name"] || (nm["namespace"] ?? undefined) !== (cm["namespace"] ?? undefined)) {
      throw new HttpError(400, "metadata.name and metadata.namespace cannot be changed");
    }
    // Immutable and server-owned fields.
    nm["uid"] = cm["uid"] ?? null;
    nm["creationTimestamp"] = cm["creationTimestamp"] ?? null;
    if (cm["deletionTimestamp"] !== undefined) nm["deletionTimestamp"] = cm["deletionTimestamp"];
    nm["resourceVersion"] = cm["resourceVersion"] ?? null;
    next["metadata"] = nm;
    next["kind"] = current["kind"] as Json;
    next["apiVersion"] = current["apiVersion"] as Json;
    // Requests cannot set the generation (BeforeUpdate); the strategy bumps it below.
    if (cm["generation"] !== undefined) nm["generation"] = cm["generation"];
    if (route.subresource === "status" && route.type.statusResets) {
      // As upstream's status strategy: the write keeps its metadata (the Deployment
      // controller sets the revision annotation through UpdateStatus) but not the fields reset.
      next["spec"] = structuredClone(current["spec"] ?? {});
      if (route.type.statusResets.includes("metadata.labels")) {
        if (cm["labels"] !== undefined) nm["labels"] = structuredClone(cm["labels"]);
        else delete nm["labels"];
      }
      if (next["status"] === undefined) next["status"] = {};
    } else if (route.subresource === "status") {
      // Only the status changes through the status subresource.
      const merged: JsonObject = { ...structuredClone(current), status: next["status"] ?? {} };
      next = merged;
    } else if (route.type.status) {
      next["status"] = structuredClone(current["status"] ?? {});
      admit(route.type, route.name, next, current);
      const annotationsChanged = route.type.generationOnAnnotations && !sameJson(nm["annotations"] ?? {}, cm["annotations"] ?? {});
      if (route.type.generation && (annotationsChanged || !sameJson(next["spec"], current["spec"]))) {
        meta(next)["generation"] = Number(cm["generation"] ?? 1) + 1;
      }
    } else {
      admit(route.type, route.name, next, current);
    }
    if (JSON.stringify(next) === JSON.stringify(current)) return current;
    validateReplicas(route.type, route.name, next);
    validateOwnerReferences(route.type.kind, next);
    return this.store.put(storeKey(route.type), next, "MODIFIED");
  }

  private update(route: Route, body: Json): object {
    if (route.name === undefined) throw new HttpError(405, "update needs a name", "MethodNotAllowed");
    if (!isObject(body)) throw new HttpError(400, "the request body must be a JSON object");
    this.checkKind(route, body);
    const current = this.stored(route);
    if (route.subresource === "scale") return this.setScale(route, current, body);
    const next = toStored(route.type, structuredClone(body));
    return served(route.type, this.commit(route, current, next, meta(body)["resourceVersion"], meta(body)["uid"]));
  }

  private setScale(route: Route, current: JsonObject, scale: JsonObject): object {
    const rv = meta(scale)["resourceVersion"];
    const replicas = scaleReplicas(route.name, scale);
    const next = structuredClone(current);
    next["spec"] = { ...(isObject(next["spec"]) ? next["spec"] : {}), replicas };
    const out = this.commit({ ...route, subresource: undefined } as Route, current, next, rv);
    return scaleOf(out);
  }

  private patch(route: Route, body: Json, contentType: string): object {
    if (route.name === undefined) throw new HttpError(405, "patch needs a name", "MethodNotAllowed");
    const current = this.stored(route);
    const base: JsonObject = route.subresource === "scale" ? (scaleOf(current) as JsonObject) : served(route.type, current);
    let next: Json;
    try {
      switch (contentType) {
        case "application/merge-patch+json":
          next = mergePatch(structuredClone(base), body);
          break;
        case "application/strategic-merge-patch+json":
          if (route.type.group === "replicore.dev") {
            throw new HttpError(415, "strategic merge patch is not supported for custom resources; use application/merge-patch+json", "UnsupportedMediaType");
          }
          next = strategicMergePatch(structuredClone(base), body);
          break;
        case "application/json-patch+json":
          next = jsonPatch(base, body);
          break;
        default:
          throw new HttpError(415, `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${JSON.stringify(contentType)})`, "UnsupportedMediaType");
      }
    } catch (e) {
      if (e instanceof PatchError) throw new HttpError(422, e.message, "Invalid");
      throw e;
    }
    if (!isObject(next)) throw new HttpError(422, "the patched object is not an object", "Invalid");
    const patchMeta = isObject(body) && isObject(body["metadata"]) ? body["metadata"] : {};
    if (route.subresource === "scale") return this.setScale(route, current, { ...next, metadata: { ...meta(next), resourceVersion: patchMeta["resourceVersion"] ?? null } });
    // The patch's own metadata.uid / resourceVersion are preconditions.
    const uid = meta(next)["uid"];
    return served(route.type, this.commit(route, current, toStored(route.type, next), patchMeta["resourceVersion"], uid));
  }

  private delete(route: Route, body: Json): JsonObject {
    if (route.subresource !== undefined) throw new HttpError(405, "delete is not allowed on a subresource", "MethodNotAllowed");
    const current = this.stored(route);
    const opts = isObject(body) ? body : {};
    const pre = isObject(opts["preconditions"]) ? opts["preconditions"] : {};
    if (pre["uid"] !== undefined && pre["uid"] !== meta(current)["uid"]) {
      throw this.conflict(route, `Precondition failed: UID in precondition: ${String(pre["uid"])}, UID in object meta: ${String(meta(current)["uid"])}`);
    }
    if (pre["resourceVersion"] !== undefined && pre["resourceVersion"] !== meta(current)["resourceVersion"]) throw this.conflict(route);
    const policy = opts["propagationPolicy"] ?? (opts["orphanDependents"] === true ? "Orphan" : "Background");
    return this.remove(route.type, current, policy === "Orphan");
  }

  private remove(type: ResourceType, o: JsonObject, orphan: boolean): JsonObject {
    const m = meta(o);
    const gone = this.store.remove(storeKey(type), m["namespace"] as string | undefined, m["name"] as string) ?? o;
    // The garbage collector: dependents go too (or lose the reference when orphaned).
    const uid = m["uid"];
    const dependents = typeof uid === "string" ? this.store.dependentsOf(uid) : [];
    for (const [resource, d] of dependents) {
      const dt = RESOURCES.find((r) => storeKey(r) === resource);
      if (!dt) continue;
      if (orphan) {
        const next = structuredClone(d);
        meta(next)["ownerReferences"] = (meta(d)["ownerReferences"] as Json[]).filter((r) => !(isObject(r) && r["uid"] === uid));
        this.store.put(resource, next, "MODIFIED");
      } else {
        this.remove(dt, d, false);
      }
    }
    return gone;
  }

  private deleteCollection(route: Route, url: URL): object {
    const keep = this.filter(url);
    const items = this.store.list(storeKey(route.type), route.namespace).filter(keep);
    for (const o of items) this.remove(route.type, o, false);
    return { kind: `${route.type.kind}List`, apiVersion: apiVersionOf(route.type), metadata: { resourceVersion: String(this.store.currentRv()) }, items: items.map((o) => served(route.type, o)) };
  }

  // -- control endpoints ----------------------------------------------------------------

  private async control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? "GET";
    const body = method === "GET" ? null : await this.body(req);
    const bad = (e: unknown): never => {
      throw new HttpError(400, e instanceof Error ? e.message : String(e));
    };
    if (path === "/_replicore/faults") {
      if (method === "PUT") {
        try {
          this.faults.set((body ?? {}) as never);
        } catch (e) {
          bad(e);
        }
      } else if (method === "POST") {
        try {
          this.faults.add(body as unknown as FaultRule);
        } catch (e) {
          bad(e);
        }
      } else if (method === "DELETE") this.faults.clear();
      return this.send(res, 200, this.faults.view());
    }
    if (path === "/_replicore/watches/drop" && method === "POST") {
      const mode = isObject(body) && body["mode"] === "close" ? "close" : "reset";
      return this.send(res, 200, { dropped: this.dropWatches(mode) });
    }
    if (path === "/_replicore/compact" && method === "POST") {
      this.store.compact();
      return this.send(res, 200, { resourceVersion: String(this.store.currentRv()) });
    }
    if (path === "/_replicore/stats" && method === "GET") return this.send(res, 200, this.stats);
    if (path === "/_replicore/load") {
      const load = this.load;
      if (!load) throw new HttpError(404, "the load model needs the kubelet (replicore dev-server --kubelet)");
      try {
        if (method === "PUT") load.set((body ?? {}) as LoadSettings);
        else if (method === "POST") load.add(body as unknown as LoadSpec);
        else if (method === "DELETE") load.clear();
        else if (method !== "GET") throw new HttpError(405, `method ${method} is not allowed on /_replicore/load`, "MethodNotAllowed");
      } catch (e) {
        if (e instanceof HttpError) throw e;
        bad(e);
      }
      return this.send(res, 200, load.view());
    }
    const m = /^\/_replicore\/raw\/(core|[a-z0-9.-]+)\/([a-z]+)$/.exec(path);
    if (m && method === "POST") {
      // Stores an object as given, without validation or defaulting (e.g. a malformed pod).
      const type = RESOURCES.find((r) => (r.group || "core") === m[1] && r.plural === m[2]);
      if (!type || !isObject(body) || typeof meta(body)["name"] !== "string") bad("expected /_replicore/raw/<group|core>/<plural> and an object with metadata.name");
      const o = structuredClone(body as JsonObject);
      const existing = this.store.get(storeKey(type as ResourceType), meta(o)["namespace"] as string | undefined, meta(o)["name"] as string);
      return this.send(res, 201, this.store.put(storeKey(type as ResourceType), o, existing ? "MODIFIED" : "ADDED"));
    }
    throw new HttpError(404, `no control endpoint ${method} ${path}`);
  }
}

function ruleError(rule: FaultRule, info: RequestInfo): HttpError {
  const status = rule.status;
  const reason = rule.reason ?? reasonFor(status);
  const what = `${info.resource}${info.name ? ` "${info.name}"` : ""}`;
  const message =
    rule.message ??
    (status === 403
      ? `${what} is forbidden: exceeded quota: injected-quota`
      : status === 409
        ? `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`
        : status === 429
          ? "the server has received too many requests and has asked us to try again later"
          : status === 410
            ? "too old resource version (injected)"
          : `injected fault: ${status} ${reason} on ${info.verb} ${what}`);
  const headers: Record<string, string> = status === 429 ? { "Retry-After": String(rule.retryAfterSeconds ?? 1) } : {};
  return new HttpError(status, message, reason, { name: info.name, kind: info.resource }, headers);
}

function scaleOf(o: JsonObject): object {
  const m = meta(o);
  const spec = isObject(o["spec"]) ? o["spec"] : {};
  const status = isObject(o["status"]) ? o["status"] : {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name: m["name"], namespace: m["namespace"], uid: m["uid"], resourceVersion: m["resourceVersion"], creationTimestamp: m["creationTimestamp"] },
    spec: { replicas: spec["replicas"] ?? 0 },
    status: { replicas: status["replicas"] ?? 0, selector: selectorString(spec["selector"]) },
  };
}
