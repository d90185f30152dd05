// `replicore explain hpa/NAME`: "why N?" for a HorizontalPodAutoscaler. The snapshot the
// engine explains (core/src/hpa/explain.rs) is the HPA, its target's Scale, the pods its
// selector names and the metrics APIs' answers: read from the cluster (read-only, as
// `kubectl get --raw` would print each answer), or from files (`-f` the output of
// `kubectl get hpa,deploy,rs,pods -o json`, `--metrics` each metrics API answer). This
// file only reads and converts; every word of the explanation is the engine's.

import { explainHpa, type HpaExplanation, type MetricQuery } from "replicore/full";
import { metricPath, metricsAnswer, metricsApiOf, resourceOf, scalePath, type Get } from "../autoscaling-api.js";
import { connect, get, getJson, type ClusterOptions } from "./cluster.js";
import { CliError, parseJson, readInput, type Input } from "./io.js";

/** The explain input (`HpaExplainInput`) of files: the objects and each metrics answer. */
export function hpaInputFromFiles(now: string, name: string | undefined, objects: Input, metricFiles: string[], memoryFile: string | undefined): Record<string, unknown> {
  const metrics: unknown[] = [];
  for (const f of metricFiles) {
    const v = parseJson(readInput(f));
    if (Array.isArray(v)) metrics.push(...v);
    else metrics.push(v);
  }
  return {
    now,
    ...(name !== undefined ? { hpa: name } : {}),
    objects: parseJson(objects),
    metrics,
    ...(memoryFile !== undefined ? { memory: parseJson(readInput(memoryFile)) } : {}),
  };
}

interface MetricSpecLite {
  type?: string;
  resource?: { name?: string };
  containerResource?: { name?: string; container?: string };
  pods?: { metric?: { name?: string } };
  object?: { metric?: { name?: string }; describedObject?: { apiVersion?: string; kind?: string; name?: string } };
  external?: { metric?: { name?: string } };
}

/** The metrics API query of a metric spec (the engine's `MetricQuery`), if it names one. */
function queryOf(m: MetricSpecLite, namespace: string, selector: string): MetricQuery | undefined {
  switch (m.type) {
    case "Resource":
    case "ContainerResource":
      return { api: "resource", namespace, selector, resource: m.resource?.name ?? m.containerResource?.name ?? "" };
    case "Pods":
      return { api: "pods", namespace, selector, metric: m.pods?.metric?.name ?? "" };
    case "Object": {
      const d = m.object?.describedObject ?? {};
      return { api: "object", namespace, metric: m.object?.metric?.name ?? "", describedObject: { kind: d.kind ?? "", name: d.name ?? "", ...(d.apiVersion !== undefined ? { apiVersion: d.apiVersion } : {}) } };
    }
    case "External":
      return { api: "external", namespace, metric: m.external?.metric?.name ?? "" };
    default:
      return undefined;
  }
}

/** The explain input read from the cluster: the HPA, its target's Scale, the pods, the metrics. */
export async function hpaInputFromCluster(now: string, name: string, o: ClusterOptions): Promise<{ input: Record<string, unknown>; source: string }> {
  const c = await connect(o);
  const ns = encodeURIComponent(c.namespace);
  const hpaPath = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/${encodeURIComponent(name)}`;
  const found = await get(c.kc, c.server, hpaPath);
  if (found.code === 404) throw new CliError(`hpa/${name}: no HorizontalPodAutoscaler named "${name}" in namespace ${c.namespace} on ${c.server}`, 1);
  const hpa = (await getJson(c.kc, c.server, hpaPath)) as { spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string }; metrics?: MetricSpecLite[] } };
  const items: unknown[] = [{ apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", ...hpa }];
  const ref = hpa.spec?.scaleTargetRef ?? {};
  const getter: Get = (path) => get(c.kc, c.server, path);
  // The target's scale subresource, as the controller reads it.
  let selector = "";
  const resource = await resourceOf(getter, ref.apiVersion ?? "", ref.kind ?? "");
  if (resource !== undefined && ref.name) {
    const r = await getter(scalePath(ref.apiVersion ?? "", c.namespace, resource, ref.name));
    if (r.code >= 200 && r.code <= 299) {
      const scale = JSON.parse(r.body) as { status?: { selector?: string }; metadata?: object };
      selector = scale.status?.selector ?? "";
      items.push({ ...scale, kind: "Scale", metadata: { ...(scale.metadata ?? {}), name: ref.name, namespace: c.namespace } });
    }
  }
  const query = selector ? `?labelSelector=${encodeURIComponent(selector)}` : "";
  const pods = (await getJson(c.kc, c.server, `/api/v1/namespaces/${ns}/pods${query}`)) as { items?: unknown[] };
  for (const p of pods.items ?? []) if (p !== null && typeof p === "object") items.push({ apiVersion: "v1", kind: "Pod", ...(p as object) });
  // One answer per metrics API call the metrics ask for (each asked once).
  const metrics: unknown[] = [];
  const asked = new Set<string>();
  for (const m of hpa.spec?.metrics ?? []) {
    const q = queryOf(m, c.namespace, selector);
    if (q === undefined) continue;
    const path = await metricPath(getter, q);
    if (asked.has(path)) continue;
    asked.add(path);
    metrics.push(await metricsAnswer(getter, metricsApiOf(q), path));
  }
  return {
    input: { now, hpa: `${c.namespace}/${name}`, objects: { apiVersion: "v1", kind: "List", items }, metrics },
    source: `${c.server} namespace ${c.namespace}`,
  };
}

/** The engine's explanation of the input. */
export function explainHpaInput(input: Record<string, unknown>): HpaExplanation {
  return explainHpa(input as unknown as Parameters<typeof explainHpa>[0]);
}
