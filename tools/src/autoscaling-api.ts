// The requests an HPA's inputs are read with, shared by `replicore explain hpa/NAME` (CLI,
// read-only) and the operator's HorizontalPodAutoscaler controller: a kind's resource
// through API discovery (what a RESTMapper does), the scale subresource of any resource,
// and the metrics APIs' paths as upstream's REST metrics clients ask them
// (metrics.k8s.io pod metrics, custom.metrics.k8s.io, external.metrics.k8s.io). Each
// caller sends the requests with its own client; which request, and what its answer
// means, is decided here once.

import type { MetricQuery } from "replicore";
import { statusMessage } from "./cli/cluster.js";

/** A GET by path: the status code and body text (a transport failure rejects). */
export type Get = (path: string) => Promise<{ code: number; body: string }>;

/** The metrics APIs, as the engine's queries and error answers name them. */
export const RESOURCE_METRICS_API = "metrics.k8s.io";
export const CUSTOM_METRICS_API = "custom.metrics.k8s.io";
export const EXTERNAL_METRICS_API = "external.metrics.k8s.io";

const ok = (code: number): boolean => code >= 200 && code <= 299;

/** The path of a group version: `/apis/<group>/<version>`, or `/api/<version>` for the core group. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion || "v1"}`;
}

interface ApiResource {
  name: string;
  kind: string;
}

async function resourcesIn(get: Get, apiVersion: string): Promise<ApiResource[]> {
  const r = await get(groupVersionPath(apiVersion));
  if (!ok(r.code)) return [];
  try {
    return ((JSON.parse(r.body) as { resources?: ApiResource[] }).resources ?? []).filter((x) => !x.name.includes("/"));
  } catch {
    return [];
  }
}

/** The plural resource of a kind in a group version, by discovery. */
export async function resourceOf(get: Get, apiVersion: string, kind: string): Promise<string | undefined> {
  return (await resourcesIn(get, apiVersion)).find((x) => x.kind === kind)?.name;
}

/** The versions a group serves, by discovery, the preferred one first. */
async function groupVersions(get: Get, group: string): Promise<string[]> {
  if (group === "") return ["v1"];
  const r = await get(`/apis/${encodeURIComponent(group)}`);
  if (!ok(r.code)) return [];
  try {
    const doc = JSON.parse(r.body) as { versions?: Array<{ version?: string }>; preferredVersion?: { version?: string } };
    const all = (doc.versions ?? []).map((v) => v.version ?? "").filter((v) => v !== "");
    const preferred = doc.preferredVersion?.version;
    return preferred ? [preferred, ...all.filter((v) => v !== preferred)] : all;
  } catch {
    return [];
  }
}

/** A resource of a group as discovery serves it: its plural name and the version it is read at. */
export interface Mapping {
  resource: string;
  version: string;
}

/**
 * The resources of `kind` in `group` (a RESTMapper's mappings: every version the group
 * serves, the preferred one first; a resource once, at the first version serving it).
 */
export async function mappingsOf(get: Get, group: string, kind: string): Promise<Mapping[]> {
  const out: Mapping[] = [];
  for (const version of await groupVersions(get, group)) {
    for (const r of await resourcesIn(get, group === "" ? version : `${group}/${version}`)) {
      if (r.kind === kind && !out.some((m) => m.resource === r.name)) out.push({ resource: r.name, version });
    }
  }
  return out;
}

/** The version a group's resource is read at (the preferred version that serves it). */
export async function versionOf(get: Get, group: string, resource: string): Promise<string | undefined> {
  for (const version of await groupVersions(get, group)) {
    if ((await resourcesIn(get, group === "" ? version : `${group}/${version}`)).some((r) => r.name === resource)) return version;
  }
  return undefined;
}

/** The scale subresource of one object. */
export function scalePath(apiVersion: string, namespace: string, resource: string, name: string): string {
  return `${groupVersionPath(apiVersion)}/namespaces/${encodeURIComponent(namespace)}/${resource}/${encodeURIComponent(name)}/scale`;
}

/** A metric query's API (the group its answer comes from). */
export function metricsApiOf(q: MetricQuery): string {
  return q.api === "resource" ? RESOURCE_METRICS_API : q.api === "external" ? EXTERNAL_METRICS_API : CUSTOM_METRICS_API;
}

/**
 * Where a metric query is read, as upstream's REST metrics clients ask: the pod metrics of
 * the selector's pods; a custom metric of every selected pod (`pods/*`), of one object
 * (its resource by discovery, with its group), or of the namespace itself; an external
 * metric of the namespace. `metricSelector` is the query's metric selector as text ("" for
 * none).
 */
export async function metricPath(get: Get, q: MetricQuery, metricSelector = ""): Promise<string> {
  const ns = encodeURIComponent(q.namespace);
  const query = (params: Array<[string, string]>): string => {
    const set = params.filter(([, v]) => v !== "");
    return set.length === 0 ? "" : `?${set.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;
  };
  switch (q.api) {
    case "resource":
      return `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods${query([["labelSelector", q.selector]])}`;
    case "pods":
      return `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/pods/*/${encodeURIComponent(q.metric)}${query([
        ["labelSelector", q.selector],
        ["metricLabelSelector", metricSelector],
      ])}`;
    case "object": {
      const d = q.describedObject;
      const metric = `${encodeURIComponent(q.metric)}${query([["metricLabelSelector", metricSelector]])}`;
      const apiVersion = d.apiVersion ?? "v1";
      if (d.kind === "Namespace" && !apiVersion.includes("/")) return `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/metrics/${metric}`;
      const plural = await resourceOf(get, apiVersion, d.kind);
      const group = apiVersion.includes("/") ? `.${apiVersion.split("/")[0]}` : "";
      return `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/${plural ?? ""}${group}/${encodeURIComponent(d.name)}/${metric}`;
    }
    case "external":
      return `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/${encodeURIComponent(q.metric)}${query([["labelSelector", metricSelector]])}`;
  }
}

/** GET a metrics API path: its answer, or `{api, error}` with the API's message (as the engine reads an error). */
export async function metricsAnswer(get: Get, api: string, path: string): Promise<unknown> {
  let r;
  try {
    r = await get(path);
  } catch (e) {
    return { api, error: e instanceof Error ? e.message : String(e) };
  }
  if (ok(r.code)) {
    try {
      return JSON.parse(r.body);
    } catch {
      return { api, error: `GET ${path}: the answer is not JSON` };
    }
  }
  return { api, error: r.code === 404 ? `the server could not find the requested resource (GET ${path})` : statusMessage(r.body) };
}
