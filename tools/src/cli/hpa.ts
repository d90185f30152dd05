// `replicore explain hpa/NAME`: "why N?" for a HorizontalPodAutoscaler. The snapshot the
// engine explains (core/src/hpa/explain.rs) is the HPA, its target's Scale, the pods its
// selector names and the metrics APIs' answers: read from the cluster (read-only, as
// `kubectl get --raw` would print each answer), or from files (`-f` the output of
// `kubectl get hpa,deploy,rs,pods -o json`, `--metrics` each metrics API answer). This
// file only reads and converts; every word of the explanation is the engine's.

import { explainHpa, type HpaExplanation } from "replicore/full";
import { connect, get, getJson, statusMessage, type ClusterOptions, type Connection } from "./cluster.js";
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

interface ApiResource {
  name: string;
  kind: string;
}

/** The plural resource of a kind in a group version, by discovery (what a RESTMapper does). */
async function resourceOf(c: Connection, apiVersion: string, kind: string): Promise<string | undefined> {
  const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion || "v1"}`;
  const r = await get(c.kc, c.server, path);
  if (r.code < 200 || r.code > 299) return undefined;
  try {
    const list = JSON.parse(r.body) as { resources?: ApiResource[] };
    return list.resources?.find((x) => x.kind === kind && !x.name.includes("/"))?.name;
  } catch {
    return undefined;
  }
}

/** GET a metrics API path: its answer, or `{api, error}` with the API's message. */
async function metricsAnswer(c: Connection, api: string, path: string): Promise<unknown> {
  const r = await get(c.kc, c.server, path);
  if (r.code >= 200 && r.code <= 299) {
    try {
      return JSON.parse(r.body);
    } catch {
      return { api, error: `GET ${path}: the answer is not JSON` };
    }
  }
  return { api, error: r.code === 404 ? `the server could not find the requested resource (GET ${path})` : statusMessage(r.body) };
}

interface MetricSpecLite {
  type?: string;
  pods?: { metric?: { name?: string } };
  object?: { metric?: { name?: string }; describedObject?: { apiVersion?: string; kind?: string; name?: string } };
  external?: { metric?: { name?: string } };
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
  // The target's scale subresource, as the controller reads it.
  let selector = "";
  const resource = await resourceOf(c, ref.apiVersion ?? "", ref.kind ?? "");
  if (resource !== undefined && ref.name) {
    const base = (ref.apiVersion ?? "").includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion || "v1"}`;
    const r = await get(c.kc, c.server, `${base}/namespaces/${ns}/${resource}/${encodeURIComponent(ref.name)}/scale`);
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
  const ask = async (api: string, path: string) => {
    if (asked.has(path)) return;
    asked.add(path);
    metrics.push(await metricsAnswer(c, api, path));
  };
  for (const m of hpa.spec?.metrics ?? []) {
    const metric = (n: string | undefined) => encodeURIComponent(n ?? "");
    switch (m.type) {
      case "Resource":
      case "ContainerResource":
        await ask("metrics.k8s.io", `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods${query}`);
        break;
      case "Pods":
        await ask("custom.metrics.k8s.io", `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/pods/*/${metric(m.pods?.metric?.name)}${query}`);
        break;
      case "Object": {
        const d = m.object?.describedObject ?? {};
        if (d.kind === "Namespace") {
          await ask("custom.metrics.k8s.io", `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/metrics/${metric(m.object?.metric?.name)}`);
          break;
        }
        const plural = await resourceOf(c, d.apiVersion ?? "v1", d.kind ?? "");
        const group = (d.apiVersion ?? "").includes("/") ? `.${(d.apiVersion as string).split("/")[0]}` : "";
        await ask("custom.metrics.k8s.io", `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${ns}/${plural ?? ""}${group}/${encodeURIComponent(d.name ?? "")}/${metric(m.object?.metric?.name)}`);
        break;
      }
      case "External":
        await ask("external.metrics.k8s.io", `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/${metric(m.external?.metric?.name)}`);
        break;
    }
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
