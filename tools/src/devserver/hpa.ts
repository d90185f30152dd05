// HorizontalPodAutoscalers in two versions, stored in one. The store holds autoscaling/v2;
// autoscaling/v1 (what `kubectl autoscale` of kubectl 1.20 writes) is a view converted on
// the way in and out, as kube-apiserver converts through its internal version
// (pkg/apis/autoscaling/v1/conversion.go):
//
// - v1 holds one metric, `spec.targetCPUUtilizationPercentage` (the first v2 CPU
//   Resource metric with a utilization target), and `status.currentCPUUtilizationPercentage`
//   (the last CPU Resource status with a utilization).
// - What v1 cannot hold rides in annotations, in the v1 (v2beta1-like) field names: the
//   other metrics (`autoscaling.alpha.kubernetes.io/metrics`), every current metric
//   (`.../current-metrics`), the conditions (`.../conditions`), and the behavior
//   (`.../behavior`, written with Go's field names, ScaleUp, StabilizationWindowSeconds…,
//   as upstream marshals its internal type; read case-insensitively as Go's decoder does).
// - Back to v2: the annotated metrics first, then the CPU target; without any metric the
//   CPU at 80 % (v1's implicit default); the annotations are dropped. An annotation that is
//   not valid JSON is ignored, as upstream ignores it.
//
// Also the kind's defaults (v2's: minReplicas 1, the CPU metric at 80 %, the behavior's
// rules filled in when a behavior is given), a light validation, and the printer columns
// of `kubectl get hpa`.

import type { FieldError } from "./deployments.js";
import { isObject, type Json, type JsonObject } from "./patch.js";

export const METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
export const CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
export const CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
export const BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior";
/** Also dropped on conversion (upstream's v2beta2 round trip of the tolerances). */
const ROUND_TRIP = [
  METRICS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
  "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
  "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
  CURRENT_METRICS_ANNOTATION,
  CONDITIONS_ANNOTATION,
];
const DEFAULT_CPU_UTILIZATION = 80;

const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});
const list = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** `o` without the undefined fields (what Go's `omitempty` leaves out). */
function compact(o: Record<string, Json | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** A quantity's text is zero (upstream's `IsZero`). */
function isZeroQuantity(q: Json | undefined): boolean {
  if (typeof q === "number") return q === 0;
  if (typeof q !== "string") return true;
  const m = /^[+-]?(\d*)(?:\.(\d*))?/.exec(q.trim());
  return !m || !/[1-9]/.test(`${m[1] ?? ""}${m[2] ?? ""}`);
}

function isCpuUtilization(m: JsonObject): boolean {
  const r = obj(m["resource"]);
  return m["type"] === "Resource" && isObject(m["resource"]) && r["name"] === "cpu" && obj(r["target"])["averageUtilization"] != null;
}

function cpuMetric(utilization: Json): JsonObject {
  return { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: utilization } } };
}

// -- metric specs and statuses, v2 <-> v1 -----------------------------------------------

function ref(o: JsonObject): JsonObject {
  return compact({ kind: o["kind"] ?? "", name: o["name"] ?? "", apiVersion: o["apiVersion"] || undefined });
}

function specToV1(m: JsonObject): JsonObject {
  const type = m["type"];
  const out: JsonObject = { type: type ?? "" };
  if (type === "Object" && isObject(m["object"])) {
    const s = m["object"];
    const t = obj(s["target"]);
    const id = obj(s["metric"]);
    out["object"] = compact({ target: ref(obj(s["describedObject"])), metricName: id["name"] ?? "", targetValue: t["value"] ?? "0", selector: id["selector"], averageValue: t["averageValue"] });
  } else if (type === "Pods" && isObject(m["pods"])) {
    const s = m["pods"];
    const id = obj(s["metric"]);
    out["pods"] = compact({ metricName: id["name"] ?? "", targetAverageValue: obj(s["target"])["averageValue"] ?? "0", selector: id["selector"] });
  } else if (type === "Resource" && isObject(m["resource"])) {
    const s = m["resource"];
    const t = obj(s["target"]);
    out["resource"] = compact({ name: s["name"] ?? "", targetAverageUtilization: t["averageUtilization"], targetAverageValue: t["averageValue"] });
  } else if (type === "ContainerResource" && isObject(m["containerResource"])) {
    const s = m["containerResource"];
    const t = obj(s["target"]);
    out["containerResource"] = compact({ name: s["name"] ?? "", targetAverageUtilization: t["averageUtilization"], targetAverageValue: t["averageValue"], container: s["container"] ?? "" });
  } else if (type === "External" && isObject(m["external"])) {
    const s = m["external"];
    const t = obj(s["target"]);
    const id = obj(s["metric"]);
    out["external"] = compact({ metricName: id["name"] ?? "", metricSelector: id["selector"], targetValue: t["value"], targetAverageValue: t["averageValue"] });
  }
  return out;
}

function specFromV1(m: JsonObject): JsonObject {
  const type = m["type"];
  const out: JsonObject = { type: type ?? "" };
  const id = (name: Json | undefined, selector: Json | undefined): JsonObject => compact({ name: name ?? "", selector });
  const resource = (s: JsonObject): JsonObject => {
    const utilization = s["targetAverageUtilization"];
    return compact({ type: utilization == null ? "AverageValue" : "Utilization", averageValue: s["targetAverageValue"], averageUtilization: utilization });
  };
  if (type === "Object" && isObject(m["object"])) {
    const s = m["object"];
    const average = s["averageValue"];
    // With an average, a zero targetValue is not kept (v1 cannot leave it out).
    const value = average == null || !isZeroQuantity(s["targetValue"]) ? (s["targetValue"] ?? "0") : undefined;
    out["object"] = {
      describedObject: ref(obj(s["target"])),
      target: compact({ type: average == null ? "Value" : "AverageValue", value, averageValue: average }),
      metric: id(s["metricName"], s["selector"]),
    };
  } else if (type === "Pods" && isObject(m["pods"])) {
    const s = m["pods"];
    out["pods"] = { metric: id(s["metricName"], s["selector"]), target: { type: "AverageValue", averageValue: s["targetAverageValue"] ?? "0" } };
  } else if (type === "Resource" && isObject(m["resource"])) {
    const s = m["resource"];
    out["resource"] = { name: s["name"] ?? "", target: resource(s) };
  } else if (type === "ContainerResource" && isObject(m["containerResource"])) {
    const s = m["containerResource"];
    out["containerResource"] = { name: s["name"] ?? "", target: resource(s), container: s["container"] ?? "" };
  } else if (type === "External" && isObject(m["external"])) {
    const s = m["external"];
    out["external"] = {
      metric: id(s["metricName"], s["metricSelector"]),
      target: compact({ type: s["targetValue"] == null ? "AverageValue" : "Value", value: s["targetValue"], averageValue: s["targetAverageValue"] }),
    };
  }
  return out;
}

function statusToV1(m: JsonObject): JsonObject {
  const type = m["type"];
  const out: JsonObject = { type: type ?? "" };
  const pick = (key: string): [JsonObject, JsonObject, JsonObject] | undefined => {
    const s = m[key];
    return isObject(s) ? [s, obj(s["current"]), obj(s["metric"])] : undefined;
  };
  let p: ReturnType<typeof pick>;
  if (type === "Object" && (p = pick("object"))) {
    const [s, c, id] = p;
    out["object"] = compact({ target: ref(obj(s["describedObject"])), metricName: id["name"] ?? "", currentValue: c["value"] ?? "0", selector: id["selector"], averageValue: c["averageValue"] });
  } else if (type === "Pods" && (p = pick("pods"))) {
    const [, c, id] = p;
    out["pods"] = compact({ metricName: id["name"] ?? "", currentAverageValue: c["averageValue"] ?? "0", selector: id["selector"] });
  } else if (type === "Resource" && (p = pick("resource"))) {
    const [s, c] = p;
    out["resource"] = compact({ name: s["name"] ?? "", currentAverageUtilization: c["averageUtilization"], currentAverageValue: c["averageValue"] ?? "0" });
  } else if (type === "ContainerResource" && (p = pick("containerResource"))) {
    const [s, c] = p;
    out["containerResource"] = compact({ name: s["name"] ?? "", currentAverageUtilization: c["averageUtilization"], currentAverageValue: c["averageValue"] ?? "0", container: s["container"] ?? "" });
  } else if (type === "External" && (p = pick("external"))) {
    const [, c, id] = p;
    out["external"] = compact({ metricName: id["name"] ?? "", metricSelector: id["selector"], currentValue: c["value"] ?? "0", currentAverageValue: c["averageValue"] });
  }
  return out;
}

function statusFromV1(m: JsonObject): JsonObject {
  const type = m["type"];
  const out: JsonObject = { type: type ?? "" };
  const id = (name: Json | undefined, selector: Json | undefined): JsonObject => compact({ name: name ?? "", selector });
  if (type === "Object" && isObject(m["object"])) {
    const s = m["object"];
    out["object"] = { metric: id(s["metricName"], s["selector"]), current: compact({ value: s["currentValue"] ?? "0", averageValue: s["averageValue"] }), describedObject: ref(obj(s["target"])) };
  } else if (type === "Pods" && isObject(m["pods"])) {
    const s = m["pods"];
    out["pods"] = { metric: id(s["metricName"], s["selector"]), current: { averageValue: s["currentAverageValue"] ?? "0" } };
  } else if (type === "Resource" && isObject(m["resource"])) {
    const s = m["resource"];
    out["resource"] = { name: s["name"] ?? "", current: compact({ averageValue: s["currentAverageValue"] ?? "0", averageUtilization: s["currentAverageUtilization"] }) };
  } else if (type === "ContainerResource" && isObject(m["containerResource"])) {
    const s = m["containerResource"];
    out["containerResource"] = {
      name: s["name"] ?? "",
      current: compact({ averageValue: s["currentAverageValue"] ?? "0", averageUtilization: s["currentAverageUtilization"] }),
      container: s["container"] ?? "",
    };
  } else if (type === "External" && isObject(m["external"])) {
    const s = m["external"];
    out["external"] = { metric: id(s["metricName"], s["metricSelector"]), current: compact({ value: s["currentValue"] ?? "0", averageValue: s["currentAverageValue"] }) };
  }
  return out;
}

function conditionV(c: JsonObject): JsonObject {
  return compact({ type: c["type"] ?? "", status: c["status"] ?? "", lastTransitionTime: c["lastTransitionTime"] ?? null, reason: c["reason"] || undefined, message: c["message"] || undefined });
}

// -- behavior: Go's field names in the annotation ----------------------------------------

function rulesToGo(r: Json | undefined): Json {
  if (!isObject(r)) return null;
  const policies = Array.isArray(r["policies"]) ? list(r["policies"]).map((p) => ({ Type: p["type"] ?? "", Value: p["value"] ?? 0, PeriodSeconds: p["periodSeconds"] ?? 0 })) : null;
  return { StabilizationWindowSeconds: r["stabilizationWindowSeconds"] ?? null, SelectPolicy: r["selectPolicy"] ?? null, Policies: policies, Tolerance: r["tolerance"] ?? null };
}

/** A field of a Go-marshalled object, its name matched case-insensitively (Go's decoder). */
function goField(o: JsonObject, name: string): Json | undefined {
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : o[key];
}

function rulesFromGo(r: Json | undefined): JsonObject | undefined {
  if (!isObject(r)) return undefined;
  const policies = goField(r, "policies");
  return compact({
    stabilizationWindowSeconds: goField(r, "stabilizationWindowSeconds") ?? undefined,
    selectPolicy: goField(r, "selectPolicy") ?? undefined,
    policies: Array.isArray(policies)
      ? list(policies).map((p) => ({ type: goField(p, "type") ?? "", value: goField(p, "value") ?? 0, periodSeconds: goField(p, "periodSeconds") ?? 0 }))
      : undefined,
    tolerance: goField(r, "tolerance") ?? undefined,
  });
}

function parsed(text: Json | undefined): Json | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

// -- the objects --------------------------------------------------------------------------

function withoutRoundTrip(annotations: Json | undefined): JsonObject {
  const out = { ...obj(annotations) };
  for (const k of ROUND_TRIP) delete out[k];
  return out;
}

/** The status fields both versions hold alike. */
function statusCounts(status: JsonObject): Record<string, Json | undefined> {
  return {
    observedGeneration: status["observedGeneration"],
    lastScaleTime: status["lastScaleTime"],
    currentReplicas: status["currentReplicas"] ?? 0,
    desiredReplicas: status["desiredReplicas"] ?? 0,
  };
}

/** The stored (autoscaling/v2) HPA as autoscaling/v1 shows it. */
export function hpaToV1(o: JsonObject): JsonObject {
  const m = { ...obj(o["metadata"]) };
  const spec = obj(o["spec"]);
  const status = obj(o["status"]);
  const annotations = withoutRoundTrip(m["annotations"]);
  const metrics = list(spec["metrics"]);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((x) => !isCpuUtilization(x));
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others.map(specToV1));
  const current = list(status["currentMetrics"]);
  if (current.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(statusToV1));
  if (isObject(spec["behavior"])) {
    const b = spec["behavior"];
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: rulesToGo(b["scaleUp"]), ScaleDown: rulesToGo(b["scaleDown"]) });
  }
  const conditions = list(status["conditions"]);
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions.map(conditionV));
  if (Object.keys(annotations).length > 0) m["annotations"] = annotations;
  else delete m["annotations"];
  // The last CPU utilization among the current metrics (upstream's loop does not stop).
  let currentCpu: Json | undefined;
  for (const c of current) {
    const r = obj(c["resource"]);
    if (c["type"] === "Resource" && r["name"] === "cpu" && obj(r["current"])["averageUtilization"] != null) currentCpu = obj(r["current"])["averageUtilization"];
  }
  return {
    kind: "HorizontalPodAutoscaler",
    apiVersion: "autoscaling/v1",
    metadata: m,
    spec: compact({
      scaleTargetRef: ref(obj(spec["scaleTargetRef"])),
      minReplicas: spec["minReplicas"],
      maxReplicas: spec["maxReplicas"] ?? 0,
      targetCPUUtilizationPercentage: cpu ? obj(obj(cpu["resource"])["target"])["averageUtilization"] : undefined,
    }),
    status: compact({ ...statusCounts(status), currentCPUUtilizationPercentage: currentCpu }),
  };
}

/** An autoscaling/v1 HPA in its stored form (autoscaling/v2). */
export function hpaFromV1(o: JsonObject): JsonObject {
  const m = { ...obj(o["metadata"]) };
  const spec = obj(o["spec"]);
  const status = obj(o["status"]);
  const annotations = obj(m["annotations"]);
  const target = spec["targetCPUUtilizationPercentage"];
  let metrics: JsonObject[] = target != null ? [cpuMetric(target)] : [];
  const others = parsed(annotations[METRICS_ANNOTATION]);
  if (Array.isArray(others)) metrics = [...list(others).map(specFromV1), ...metrics];
  let behavior: JsonObject | undefined;
  const b = parsed(annotations[BEHAVIOR_ANNOTATION]);
  if (isObject(b)) {
    const scaleUp = rulesFromGo(goField(b, "scaleUp"));
    const scaleDown = rulesFromGo(goField(b, "scaleDown"));
    if (scaleUp || scaleDown) behavior = compact({ scaleUp, scaleDown });
  }
  const currentCpu = status["currentCPUUtilizationPercentage"];
  let current: JsonObject[] | undefined = currentCpu != null ? [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: currentCpu } } }] : undefined;
  const annotated = parsed(annotations[CURRENT_METRICS_ANNOTATION]);
  if (Array.isArray(annotated)) current = list(annotated).map(statusFromV1);
  if (metrics.length === 0) metrics = [cpuMetric(DEFAULT_CPU_UTILIZATION)];
  const conditionsText = parsed(annotations[CONDITIONS_ANNOTATION]);
  const conditions = Array.isArray(conditionsText) ? list(conditionsText).map(conditionV) : undefined;
  const kept = withoutRoundTrip(m["annotations"]);
  if (Object.keys(kept).length > 0) m["annotations"] = kept;
  else delete m["annotations"];
  const out: JsonObject = {
    kind: "HorizontalPodAutoscaler",
    apiVersion: "autoscaling/v2",
    metadata: m,
    spec: compact({ scaleTargetRef: ref(obj(spec["scaleTargetRef"])), minReplicas: spec["minReplicas"], maxReplicas: spec["maxReplicas"] ?? 0, metrics, behavior }),
    status: compact({ ...statusCounts(status), currentMetrics: current, conditions }),
  };
  return out;
}

// -- admission ------------------------------------------------------------------------------

const SCALE_UP_DEFAULT: JsonObject = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const SCALE_DOWN_DEFAULT: JsonObject = { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

/** autoscaling/v2's defaults (SetDefaults_HorizontalPodAutoscaler). */
export function defaultHpa(o: JsonObject): void {
  const spec = obj(o["spec"]);
  if (spec["minReplicas"] == null) spec["minReplicas"] = 1;
  if (list(spec["metrics"]).length === 0) spec["metrics"] = [cpuMetric(DEFAULT_CPU_UTILIZATION)];
  if (isObject(spec["behavior"])) {
    const b = spec["behavior"];
    const fill = (given: Json | undefined, dflt: JsonObject): JsonObject => {
      const out = structuredClone(dflt);
      for (const [k, v] of Object.entries(obj(given))) if (v != null) out[k] = v;
      return out;
    };
    b["scaleUp"] = fill(b["scaleUp"], SCALE_UP_DEFAULT);
    b["scaleDown"] = fill(b["scaleDown"], SCALE_DOWN_DEFAULT);
  }
  o["spec"] = spec;
}

/** The checks kube-apiserver makes that a client of the dev-server is likely to hit. */
export function validateHpa(o: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o["spec"]);
  const target = obj(spec["scaleTargetRef"]);
  if (!target["kind"]) errs.push({ type: "Required", field: "spec.scaleTargetRef.kind" });
  if (!target["name"]) errs.push({ type: "Required", field: "spec.scaleTargetRef.name" });
  const min = spec["minReplicas"];
  const max = spec["maxReplicas"];
  if (typeof min === "number" && min < 1) errs.push({ type: "Invalid", field: "spec.minReplicas", value: min, detail: "must be greater than or equal to 1" });
  if (typeof max !== "number" || max < 1) errs.push({ type: "Invalid", field: "spec.maxReplicas", value: max, detail: "must be greater than 0" });
  else if (typeof min === "number" && max < min) errs.push({ type: "Invalid", field: "spec.maxReplicas", value: max, detail: "must be greater than or equal to `minReplicas`" });
  return errs;
}

// -- kubectl get hpa --------------------------------------------------------------------------

/** TARGETS as kube-apiserver's printer writes it (formatHPAMetrics): at most two, then "+ N more...". */
export function hpaTargets(o: JsonObject): string {
  const spec = obj(o["spec"]);
  const specs = list(spec["metrics"]);
  const statuses = list(obj(o["status"])["currentMetrics"]);
  if (specs.length === 0) return "<none>";
  const text = (v: Json | undefined): string => (v == null ? "<nil>" : String(v));
  const out = specs.map((s, i) => {
    const st = statuses[i];
    const type = s["type"];
    const key = type === "External" ? "external" : type === "Pods" ? "pods" : type === "Object" ? "object" : type === "Resource" ? "resource" : type === "ContainerResource" ? "containerResource" : undefined;
    if (key === undefined) return "<unknown type>";
    const source = obj(s[key]);
    const t = obj(source["target"]);
    const cur = st && isObject(st[key]) ? obj(obj(st[key])["current"]) : undefined;
    if (key === "external" || key === "object") {
      if (t["averageValue"] != null) return `${cur?.["averageValue"] != null ? text(cur["averageValue"]) : "<unknown>"}/${text(t["averageValue"])} (avg)`;
      return `${cur ? text(cur["value"]) : "<unknown>"}/${text(t["value"])}`;
    }
    if (key === "pods") return `${cur ? text(cur["averageValue"]) : "<unknown>"}/${text(t["averageValue"])}`;
    const name = text(source["name"]);
    if (t["averageValue"] != null) return `${name}: ${cur ? text(cur["averageValue"]) : "<unknown>"}/${text(t["averageValue"])}`;
    const current = cur?.["averageUtilization"] != null ? `${text(cur["averageUtilization"])}%` : "<unknown>";
    const target = t["averageUtilization"] != null ? `${text(t["averageUtilization"])}%` : "<auto>";
    return `${name}: ${current}/${target}`;
  });
  return out.length > 2 ? `${out.slice(0, 2).join(", ")} + ${out.length - 2} more...` : out.join(", ");
}

/** The row after NAME: REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS (AGE follows). */
export function hpaCells(o: JsonObject): Json[] {
  const spec = obj(o["spec"]);
  const target = obj(spec["scaleTargetRef"]);
  return [
    `${String(target["kind"] ?? "")}/${String(target["name"] ?? "")}`,
    hpaTargets(o),
    spec["minReplicas"] == null ? "<unset>" : String(spec["minReplicas"]),
    spec["maxReplicas"] ?? 0,
    obj(o["status"])["currentReplicas"] ?? 0,
  ];
}
