// The metrics API of the dev-server's kubelet (`metrics.k8s.io/v1beta1`, as metrics-server
// serves it): PodMetrics and NodeMetrics produced from a load model the user sets (the
// `--load` flag, `/_replicore/load`). A load is a curve of CPU demand in millicores
// (the engine's LoadCurve) over the pods a label selector matches in a namespace; what
// each pod reports is the engine's (`podsUsage`, core/src/hpa/load.rs): the Ready pods
// share the demand evenly, a Running pod not yet Ready uses its CPU request, a Pending pod
// has no sample; memory is half the memory request. A pod belongs to the first load that
// matches it; a Running pod no load matches reports no CPU demand (0, or its start-up use).
// Nothing here decides a number: this module picks the pods, converts and serves.

import { podsUsage, type LoadCurve, type PodUsage } from "replicore";
import { HttpError } from "./errors.js";
import { isObject, labelsMatch, parseLabelSelector, type Json, type JsonObject } from "./patch.js";
import { meta, type Store } from "./store.js";

export const METRICS_GROUP = "metrics.k8s.io";
export const METRICS_VERSION = "v1beta1";
const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;
/** metrics-server's resolution: each sample covers the last 15 s. */
const WINDOW = "15s";
const ZERO: LoadCurve = { kind: "step", from: 0, to: 0, atSeconds: 0 };

/** One load as given: its clock starts when it is set. */
export interface LoadSpec {
  namespace: string;
  /** A label selector (`app=web`); empty matches every pod of the namespace. */
  selector: string;
  /** Millicores of CPU for all the matched pods together, over seconds since it was set. */
  curve: LoadCurve;
}

/** The body of PUT /_replicore/load (and of `--load-file`). */
export interface LoadSettings {
  loads?: LoadSpec[];
  /** The spread of a Ready pod's sample, uniform in ± this fraction (0). */
  noise?: number;
  /** Pods matching this selector get no sample (metrics-server has none yet), e.g. to test partial metrics. */
  withoutMetrics?: string;
}

interface LiveLoad extends LoadSpec {
  since: number;
}

function now(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/** `--load NAMESPACE/SELECTOR=CURVE`: CURVE is LoadCurve JSON (`{"kind":"step",…}`) or a number of millicores. */
export function parseLoadSpec(spec: string): LoadSpec {
  const slash = spec.indexOf("/");
  const json = spec.indexOf("={");
  const eq = json >= 0 ? json : spec.lastIndexOf("=");
  if (slash <= 0 || eq < slash) throw new Error(`--load ${spec}: expected NAMESPACE/SELECTOR=CURVE, e.g. default/app=web={"kind":"step","from":200,"to":1500,"atSeconds":60} or default/app=web=800`);
  const namespace = spec.slice(0, slash);
  const selector = spec.slice(slash + 1, eq);
  const text = spec.slice(eq + 1);
  let curve: LoadCurve;
  if (/^\s*[\d.]+\s*$/.test(text)) curve = { kind: "step", from: Number(text), to: Number(text), atSeconds: 0 };
  else {
    try {
      curve = JSON.parse(text) as LoadCurve;
    } catch (e) {
      throw new Error(`--load ${spec}: the curve is not JSON: ${(e as Error).message}`);
    }
  }
  return { namespace, selector, curve };
}

export class LoadModel {
  private loads: LiveLoad[] = [];
  private noise = 0;
  private withoutMetrics = "";

  constructor(
    private readonly store: Store,
    settings: LoadSettings = {},
  ) {
    this.set(settings);
  }

  /** Replaces the settings given (a load's clock starts now); throws on a bad one. */
  set(s: LoadSettings): void {
    if (!isObject(s as Json)) throw new Error("expected an object {loads, noise, withoutMetrics}");
    const at = Date.now();
    if (s.noise !== undefined && (typeof s.noise !== "number" || !(s.noise >= 0))) throw new Error("noise: must be a number >= 0");
    if (s.withoutMetrics !== undefined) parseSelector("withoutMetrics", s.withoutMetrics);
    if (s.loads !== undefined && !Array.isArray(s.loads)) throw new Error("loads: must be a list of {namespace, selector, curve}");
    const loads = s.loads?.map((l, i) => this.valid(l, `loads[${i}]`, at));
    if (loads) this.loads = loads;
    if (s.noise !== undefined) this.noise = s.noise;
    if (s.withoutMetrics !== undefined) this.withoutMetrics = s.withoutMetrics;
  }

  /** Adds a load, or replaces the one of the same namespace and selector (its clock restarts). */
  add(l: LoadSpec): void {
    const live = this.valid(l, "load", Date.now());
    const i = this.loads.findIndex((x) => x.namespace === live.namespace && x.selector === live.selector);
    if (i >= 0) this.loads[i] = live;
    else this.loads.push(live);
  }

  clear(): void {
    this.loads = [];
    this.noise = 0;
    this.withoutMetrics = "";
  }

  private valid(l: unknown, path: string, since: number): LiveLoad {
    if (!isObject(l as Json)) throw new Error(`${path}: expected {namespace, selector, curve}`);
    const o = l as LoadSpec;
    if (typeof o.namespace !== "string" || o.namespace === "") throw new Error(`${path}.namespace: must be a namespace name`);
    const selector = o.selector ?? "";
    if (typeof selector !== "string") throw new Error(`${path}.selector: must be a label selector string`);
    parseSelector(`${path}.selector`, selector);
    try {
      podsUsage({ load: o.curve, atSeconds: 0, pods: [] });
    } catch (e) {
      throw new Error(`${path}.curve: ${(e as Error).message}`);
    }
    return { namespace: o.namespace, selector, curve: o.curve, since };
  }

  /** GET /_replicore/load: the settings, with each load's demand now and its pods. */
  view(): object {
    const at = Date.now();
    const groups = this.groups();
    return {
      loads: this.loads.map((l, i) => ({
        namespace: l.namespace,
        selector: l.selector,
        curve: l.curve,
        since: now(l.since),
        demandMillis: podsUsage({ load: l.curve, atSeconds: (at - l.since) / 1000, pods: [] }).demand,
        pods: groups[i]?.length ?? 0,
      })),
      noise: this.noise,
      withoutMetrics: this.withoutMetrics,
    };
  }

  /** The stored pods of each load (by index), the unmatched ones last. */
  private groups(): JsonObject[][] {
    const groups: JsonObject[][] = this.loads.map(() => []);
    const rest: JsonObject[] = [];
    const sels = this.loads.map((l) => parseLabelSelector(l.selector));
    const without = this.withoutMetrics ? parseLabelSelector(this.withoutMetrics) : undefined;
    for (const pod of this.store.list("/pods")) {
      const m = meta(pod);
      const labels = m["labels"] as Record<string, string> | undefined;
      if (without && labelsMatch(without, labels)) continue;
      const i = this.loads.findIndex((l, j) => l.namespace === m["namespace"] && labelsMatch(sels[j] ?? [], labels));
      (i >= 0 ? (groups[i] as JsonObject[]) : rest).push(pod);
    }
    groups.push(rest);
    return groups;
  }

  /** Every pod's sample now (pods without one are absent), keyed `namespace/name`, with the pod. */
  private samples(): Map<string, { pod: JsonObject; usage: PodUsage }> {
    const at = Date.now();
    // The draws change every window, as a new scrape's would.
    const seed = Math.floor(at / 15000);
    const out = new Map<string, { pod: JsonObject; usage: PodUsage }>();
    const groups = this.groups();
    groups.forEach((pods, i) => {
      if (pods.length === 0) return;
      const load = this.loads[i];
      const curve = load ? load.curve : ZERO;
      const atSeconds = load ? (at - load.since) / 1000 : 0;
      const r = podsUsage({ load: curve, atSeconds, pods, noise: this.noise, seed: seed + i });
      r.pods.forEach((usage, k) => {
        const pod = pods[k] as JsonObject;
        if (usage.cpuMillis !== null) out.set(`${String(meta(pod)["namespace"])}/${usage.name}`, { pod, usage });
      });
    });
    return out;
  }

  private podMetrics(pod: JsonObject, usage: PodUsage, at: string): JsonObject {
    const m = meta(pod);
    return {
      kind: "PodMetrics",
      apiVersion: API_VERSION,
      metadata: { name: usage.name, namespace: m["namespace"] as string, creationTimestamp: at, ...(isObject(m["labels"]) ? { labels: m["labels"] } : {}) },
      timestamp: at,
      window: WINDOW,
      containers: usage.containers.map((c) => ({ name: c.name, usage: { cpu: c.usage.cpu, memory: c.usage.memory } })),
    };
  }

  /**
   * A request under /apis/metrics.k8s.io/v1beta1 (`rest`: the path after it): the
   * RequestInfo for authorization and faults, and the answer.
   */
  static parse(rest: string[]): { resource: "pods" | "nodes"; namespace?: string; name?: string } | undefined {
    if (rest[0] === "namespaces" && rest[1] && rest[2] === "pods" && rest.length <= 4) {
      return { resource: "pods", namespace: rest[1], ...(rest[3] ? { name: rest[3] } : {}) };
    }
    if ((rest[0] === "pods" || rest[0] === "nodes") && rest.length <= 2) return { resource: rest[0], ...(rest[1] ? { name: rest[1] } : {}) };
    return undefined;
  }

  answer(r: { resource: "pods" | "nodes"; namespace?: string; name?: string }, labelSelector: string): object {
    const at = now(Date.now());
    const samples = [...this.samples().values()];
    const selector = parseSelector("labelSelector", labelSelector, true);
    if (r.resource === "pods") {
      const items = samples
        .filter(({ pod }) => r.namespace === undefined || meta(pod)["namespace"] === r.namespace)
        .filter(({ pod }) => labelsMatch(selector, meta(pod)["labels"] as Record<string, string> | undefined))
        .map(({ pod, usage }) => this.podMetrics(pod, usage, at))
        .sort((a, b) => key(a).localeCompare(key(b)));
      if (r.name === undefined) return { kind: "PodMetricsList", apiVersion: API_VERSION, metadata: {}, items };
      const one = items.find((o) => meta(o)["name"] === r.name);
      if (!one) throw new HttpError(404, `podmetrics.metrics.k8s.io "${r.namespace}/${r.name}" not found`, "NotFound", { name: `${r.namespace}/${r.name}`, group: METRICS_GROUP, kind: "pods" });
      return one;
    }
    const nodes = this.store.list("/nodes").map((n) => String(meta(n)["name"])).sort();
    const items = nodes.map((name) => {
      let cpu = 0;
      let memory = 0;
      for (const { pod, usage } of samples) {
        if (!isObject(pod["spec"]) || pod["spec"]["nodeName"] !== name) continue;
        cpu += usage.cpuMillis ?? 0;
        memory += usage.memoryBytes ?? 0;
      }
      return {
        kind: "NodeMetrics",
        apiVersion: API_VERSION,
        metadata: { name, creationTimestamp: at },
        timestamp: at,
        window: WINDOW,
        usage: { cpu: milliText(cpu), memory: bytesText(memory) },
      };
    });
    if (r.name === undefined) return { kind: "NodeMetricsList", apiVersion: API_VERSION, metadata: {}, items };
    const one = items.find((o) => o.metadata.name === r.name);
    if (!one) throw new HttpError(404, `nodemetrics.metrics.k8s.io "${r.name}" not found`, "NotFound", { name: r.name, group: METRICS_GROUP, kind: "nodes" });
    return one;
  }
}

function key(o: JsonObject): string {
  return `${String(meta(o)["namespace"])}/${String(meta(o)["name"])}`;
}

function parseSelector(path: string, text: string, http = false): ReturnType<typeof parseLabelSelector> {
  try {
    return parseLabelSelector(text);
  } catch (e) {
    if (http) throw new HttpError(400, `${path}: ${(e as Error).message}`);
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}

/** Millicores as a quantity's canonical text (DecimalSI): "0", "250m", "2". */
function milliText(m: number): string {
  return m % 1000 === 0 ? String(m / 1000) : `${m}m`;
}

/** Bytes as a quantity's canonical text (BinarySI): "0", "1536Ki", "32Mi", or plain bytes. */
function bytesText(b: number): string {
  if (b === 0) return "0";
  const suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
  let i = 0;
  while (i < suffixes.length - 1 && b % 1024 === 0) {
    b /= 1024;
    i++;
  }
  return `${b}${suffixes[i]}`;
}

/** The discovery documents of the metrics API. */
export function metricsDiscovery(path: string): object | undefined {
  const version = { groupVersion: API_VERSION, version: METRICS_VERSION };
  if (path === `/apis/${METRICS_GROUP}`) return { kind: "APIGroup", apiVersion: "v1", name: METRICS_GROUP, versions: [version], preferredVersion: version };
  if (path === `/apis/${API_VERSION}`) {
    return {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: API_VERSION,
      resources: [
        { name: "nodes", singularName: "", namespaced: false, kind: "NodeMetrics", verbs: ["get", "list"] },
        { name: "pods", singularName: "", namespaced: true, kind: "PodMetrics", verbs: ["get", "list"] },
      ],
    };
  }
  return undefined;
}

export function metricsGroup(): object {
  const version = { groupVersion: API_VERSION, version: METRICS_VERSION };
  return { name: METRICS_GROUP, versions: [version], preferredVersion: version };
}
