// apps/v1 Deployments as kube-apiserver admits them: the defaults its decoder applies
// (SetObjectDefaults_Deployment: the Deployment's own defaults, then the pod template's
// PodSpec, Container, port, env, probe and volume defaults) and the essentials of
// ValidateDeployment / ValidateDeploymentUpdate. The defaults matter beyond kubectl's
// output: the Deployment controller hashes the stored template into `pod-template-hash`,
// so a template defaulted differently from upstream's gets a different ReplicaSet name.

import { isObject, labelsMatch, parseLabelSelector, PatchError, type Json, type JsonObject } from "./patch.js";


/** The object at `o[key]`, created empty when absent (or not an object). */
function child(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  if (isObject(v)) return v;
  const fresh: JsonObject = {};
  o[key] = fresh;
  return fresh;
}

function setDefault(o: JsonObject, key: string, value: Json): void {
  if (o[key] === undefined || o[key] === null || o[key] === "") o[key] = value;
}

/**
 * Removes `null` members everywhere, as decoding into the Go types and encoding again
 * does (a null pointer, slice, map or zero struct is omitted, `creationTimestamp: null` of
 * a template copied from a ReplicaSet included).
 */
export function dropNulls(v: Json): Json {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

/** The tag of an image reference as upstream's ParseImageName reads it ("latest" when none and no digest). */
export function imageTag(image: string): string {
  const at = image.indexOf("@");
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(":");
  const tag = colon > name.lastIndexOf("/") ? name.slice(colon + 1) : "";
  if (tag !== "") return tag;
  return at >= 0 ? "" : "latest";
}

function defaultProbe(p: Json | undefined): void {
  if (!isObject(p)) return;
  setDefault(p, "timeoutSeconds", 1);
  setDefault(p, "periodSeconds", 10);
  setDefault(p, "successThreshold", 1);
  setDefault(p, "failureThreshold", 3);
  if (isObject(p["httpGet"])) {
    setDefault(p["httpGet"], "path", "/");
    setDefault(p["httpGet"], "scheme", "HTTP");
  }
  if (isObject(p["grpc"]) && p["grpc"]["service"] === undefined) p["grpc"]["service"] = "";
}

function defaultFieldRef(holder: Json | undefined): void {
  if (isObject(holder) && isObject(holder["fieldRef"])) setDefault(holder["fieldRef"], "apiVersion", "v1");
}

/** SetDefaults_Container plus the generated defaults of its ports, env and probes. */
function defaultContainer(c: JsonObject, hostNetwork: boolean): void {
  if (c["imagePullPolicy"] === undefined || c["imagePullPolicy"] === "") {
    c["imagePullPolicy"] = imageTag(typeof c["image"] === "string" ? c["image"] : "") === "latest" ? "Always" : "IfNotPresent";
  }
  setDefault(c, "terminationMessagePath", "/dev/termination-log");
  setDefault(c, "terminationMessagePolicy", "File");
  if (!isObject(c["resources"])) c["resources"] = {};
  if (Array.isArray(c["ports"])) {
    for (const p of c["ports"]) {
      if (!isObject(p)) continue;
      setDefault(p, "protocol", "TCP");
      // SetDefaults_Pod's hostNetwork rule applies to templates through the generated defaults too.
      if (hostNetwork && (p["hostPort"] === undefined || p["hostPort"] === 0)) p["hostPort"] = p["containerPort"] ?? 0;
    }
  }
  if (Array.isArray(c["env"])) for (const e of c["env"]) if (isObject(e)) defaultFieldRef(e["valueFrom"]);
  defaultProbe(c["livenessProbe"]);
  defaultProbe(c["readinessProbe"]);
  defaultProbe(c["startupProbe"]);
  if (isObject(c["lifecycle"])) {
    for (const hook of ["postStart", "preStop"]) {
      const h = c["lifecycle"][hook];
      if (isObject(h) && isObject(h["httpGet"])) {
        setDefault(h["httpGet"], "path", "/");
        setDefault(h["httpGet"], "scheme", "HTTP");
      }
    }
  }
}

const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
  "ephemeral", "image",
];

/** SetDefaults_Volume and the defaults of the common volume sources. */
function defaultVolume(v: JsonObject): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined)) v["emptyDir"] = {};
  if (isObject(v["hostPath"])) setDefault(v["hostPath"], "type", "");
  for (const s of ["secret", "configMap", "downwardAPI", "projected"]) {
    const src = v[s];
    if (isObject(src) && src["defaultMode"] === undefined) src["defaultMode"] = 420;
  }
  if (isObject(v["downwardAPI"]) && Array.isArray(v["downwardAPI"]["items"])) for (const i of v["downwardAPI"]["items"]) defaultFieldRef(i);
  if (isObject(v["projected"]) && Array.isArray(v["projected"]["sources"])) {
    for (const s of v["projected"]["sources"]) {
      if (!isObject(s)) continue;
      if (isObject(s["downwardAPI"]) && Array.isArray(s["downwardAPI"]["items"])) for (const i of s["downwardAPI"]["items"]) defaultFieldRef(i);
      if (isObject(s["serviceAccountToken"])) setDefault(s["serviceAccountToken"], "expirationSeconds", 3600);
    }
  }
  if (isObject(v["image"])) {
    const ref = typeof v["image"]["reference"] === "string" ? v["image"]["reference"] : "";
    setDefault(v["image"], "pullPolicy", imageTag(ref) === "latest" ? "Always" : "IfNotPresent");
  }
}

/** SetDefaults_PodSpec (the PodSpec-level defaults; the Pod-only ones do not apply to templates). */
export function defaultPodTemplateSpec(spec: JsonObject): void {
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "restartPolicy", "Always");
  if (!isObject(spec["securityContext"])) spec["securityContext"] = {};
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefault(spec, "schedulerName", "default-scheduler");
  const hostNetwork = spec["hostNetwork"] === true;
  for (const list of ["containers", "initContainers"]) {
    const cs = spec[list];
    if (Array.isArray(cs)) for (const c of cs) if (isObject(c)) defaultContainer(c, hostNetwork);
  }
  if (Array.isArray(spec["volumes"])) for (const v of spec["volumes"]) if (isObject(v)) defaultVolume(v);
}

/** SetObjectDefaults_Deployment, on the JSON of an apps/v1 Deployment (in place). */
export function defaultDeployment(o: JsonObject): void {
  const spec = child(o, "spec");
  setDefault(spec, "replicas", 1);
  const strategy = child(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] === "RollingUpdate") {
    const ru = child(strategy, "rollingUpdate");
    setDefault(ru, "maxUnavailable", "25%");
    setDefault(ru, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  const template = child(spec, "template");
  child(template, "metadata");
  defaultPodTemplateSpec(child(template, "spec"));
}

/** The defaults tools/deploy/crd-replicadeployment.yaml's schema gives a ReplicaDeployment. */
export function defaultReplicaDeployment(o: JsonObject): void {
  const spec = child(o, "spec");
  setDefault(spec, "replicas", 1);
  // A schema default applies where its parent exists: the whole strategy when absent,
  // the rollingUpdate fields when it is given.
  if (!isObject(spec["strategy"])) spec["strategy"] = { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } };
  const ru = (spec["strategy"] as JsonObject)["rollingUpdate"];
  if (isObject(ru)) {
    if (ru["maxUnavailable"] === undefined) ru["maxUnavailable"] = "25%";
    if (ru["maxSurge"] === undefined) ru["maxSurge"] = "25%";
  }
  if (spec["revisionHistoryLimit"] === undefined) spec["revisionHistoryLimit"] = 10;
  if (spec["progressDeadlineSeconds"] === undefined) spec["progressDeadlineSeconds"] = 600;
}

// -- validation ----------------------------------------------------------------------------

/** One field.Error of kube-apiserver's validation. */
export interface FieldError {
  type: "Required" | "Invalid" | "Forbidden" | "NotSupported";
  field: string;
  detail?: string;
  value?: Json | undefined;
  supported?: string[];
}

function goValue(v: Json | undefined): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined || v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** The message of a field error without its field, as a Status cause's message. */
export function errorBody(e: FieldError): string {
  switch (e.type) {
    case "Required":
      return `Required value${e.detail ? `: ${e.detail}` : ""}`;
    case "Forbidden":
      return `Forbidden${e.detail ? `: ${e.detail}` : ""}`;
    case "NotSupported":
      return `Unsupported value: ${goValue(e.value)}: supported values: ${(e.supported ?? []).map((s) => JSON.stringify(s)).join(", ")}`;
    case "Invalid":
      return `Invalid value: ${goValue(e.value)}${e.detail ? `: ${e.detail}` : ""}`;
  }
}

export const CAUSE_REASON: Record<FieldError["type"], string> = {
  Required: "FieldValueRequired",
  Invalid: "FieldValueInvalid",
  Forbidden: "FieldValueForbidden",
  NotSupported: "FieldValueNotSupported",
};

/** An int-or-percent's value as upstream's getIntOrPercentValue reads it, or undefined when malformed. */
function intOrPercent(v: Json | undefined): { n: number; percent: boolean } | undefined {
  if (typeof v === "number" && Number.isInteger(v)) return { n: v, percent: false };
  if (typeof v === "string") {
    const m = /^(-?\d+)%$/.exec(v);
    if (m) return { n: Number(m[1]), percent: true };
  }
  return undefined;
}

function nonNegative(errs: FieldError[], v: Json | undefined, field: string): void {
  if (typeof v === "number" && v < 0) errs.push({ type: "Invalid", field, value: v, detail: "must be greater than or equal to 0" });
}

/** Label selector → selector text for labelsMatch (matchLabels and matchExpressions). */
function selectorRequirements(sel: JsonObject): ReturnType<typeof parseLabelSelector> {
  const parts: string[] = [];
  if (isObject(sel["matchLabels"])) for (const [k, v] of Object.entries(sel["matchLabels"])) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(sel["matchExpressions"])) {
    for (const e of sel["matchExpressions"]) {
      if (!isObject(e)) throw new PatchError("matchExpressions: each element must be an object");
      const key = String(e["key"]);
      const vals = Array.isArray(e["values"]) ? e["values"].map(String) : [];
      switch (e["operator"]) {
        case "In":
          parts.push(`${key} in (${vals.join(",")})`);
          break;
        case "NotIn":
          parts.push(`${key} notin (${vals.join(",")})`);
          break;
        case "Exists":
          parts.push(key);
          break;
        case "DoesNotExist":
          parts.push(`!${key}`);
          break;
        default:
          throw new PatchError(`${JSON.stringify(e["operator"])} is not a valid label selector operator`);
      }
    }
  }
  return parseLabelSelector(parts.join(","));
}

/** The essentials of ValidateDeployment (and, with `old`, ValidateDeploymentUpdate). */
export function validateDeployment(o: JsonObject, old?: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(o["spec"]) ? o["spec"] : {};
  nonNegative(errs, spec["replicas"], "spec.replicas");
  const sel = spec["selector"];
  let reqs: ReturnType<typeof parseLabelSelector> | undefined;
  if (!isObject(sel)) {
    errs.push({ type: "Required", field: "spec.selector" });
  } else {
    const n = (isObject(sel["matchLabels"]) ? Object.keys(sel["matchLabels"]).length : 0) + (Array.isArray(sel["matchExpressions"]) ? sel["matchExpressions"].length : 0);
    if (n === 0) errs.push({ type: "Invalid", field: "spec.selector", value: sel, detail: "empty selector is invalid for deployment" });
    try {
      reqs = selectorRequirements(sel);
    } catch {
      errs.push({ type: "Invalid", field: "spec.selector", value: sel, detail: "invalid label selector" });
    }
  }
  const template = isObject(spec["template"]) ? spec["template"] : undefined;
  if (!template) {
    errs.push({ type: "Required", field: "spec.template" });
  } else {
    const tm = isObject(template["metadata"]) ? template["metadata"] : {};
    const labels = isObject(tm["labels"]) ? (tm["labels"] as Record<string, string>) : {};
    if (reqs && reqs.length > 0 && !labelsMatch(reqs, labels)) {
      errs.push({ type: "Invalid", field: "spec.template.metadata.labels", value: labels, detail: "`selector` does not match template `labels`" });
    }
    const ts = isObject(template["spec"]) ? template["spec"] : {};
    const containers = Array.isArray(ts["containers"]) ? ts["containers"] : [];
    if (containers.length === 0) errs.push({ type: "Required", field: "spec.template.spec.containers" });
    const names = new Set<string>();
    containers.forEach((c, i) => {
      const name = isObject(c) ? c["name"] : undefined;
      if (typeof name !== "string" || name === "") errs.push({ type: "Required", field: `spec.template.spec.containers[${i}].name` });
      else if (names.has(name)) errs.push({ type: "Invalid", field: `spec.template.spec.containers[${i}].name`, value: name, detail: "Duplicate value" });
      else names.add(name);
      const image = isObject(c) ? c["image"] : undefined;
      if (typeof image !== "string" || image.trim() === "") errs.push({ type: "Required", field: `spec.template.spec.containers[${i}].image` });
    });
    if (ts["restartPolicy"] !== "Always") {
      errs.push({ type: "NotSupported", field: "spec.template.spec.restartPolicy", value: ts["restartPolicy"], supported: ["Always"] });
    }
    if (ts["activeDeadlineSeconds"] !== undefined) {
      errs.push({ type: "Forbidden", field: "spec.template.spec.activeDeadlineSeconds", detail: "activeDeadlineSeconds in ReplicaSet is not Supported" });
    }
  }
  const strategy = isObject(spec["strategy"]) ? spec["strategy"] : {};
  if (strategy["type"] === "Recreate") {
    if (strategy["rollingUpdate"] !== undefined) {
      errs.push({ type: "Forbidden", field: "spec.strategy.rollingUpdate", detail: "may not be specified when strategy `type` is 'Recreate'" });
    }
  } else if (strategy["type"] === "RollingUpdate") {
    const ru = isObject(strategy["rollingUpdate"]) ? strategy["rollingUpdate"] : {};
    const values: Record<string, { n: number; percent: boolean } | undefined> = {};
    for (const f of ["maxUnavailable", "maxSurge"]) {
      const v = intOrPercent(ru[f]);
      values[f] = v;
      const field = `spec.strategy.rollingUpdate.${f}`;
      if (!v) errs.push({ type: "Invalid", field, value: ru[f], detail: "must be an integer or percentage (e.g '5%')" });
      else if (v.n < 0) errs.push({ type: "Invalid", field, value: ru[f], detail: "must be greater than or equal to 0" });
    }
    if (values["maxUnavailable"]?.n === 0 && values["maxSurge"]?.n === 0) {
      errs.push({ type: "Invalid", field: "spec.strategy.rollingUpdate.maxUnavailable", value: ru["maxUnavailable"], detail: "may not be 0 when `maxSurge` is 0" });
    }
    const mu = values["maxUnavailable"];
    if (mu?.percent && mu.n > 100) {
      errs.push({ type: "Invalid", field: "spec.strategy.rollingUpdate.maxUnavailable", value: ru["maxUnavailable"], detail: "must not be greater than 100%" });
    }
  } else {
    errs.push({ type: "NotSupported", field: "spec.strategy", value: strategy, supported: ["Recreate", "RollingUpdate"] });
  }
  nonNegative(errs, spec["minReadySeconds"], "spec.minReadySeconds");
  nonNegative(errs, spec["revisionHistoryLimit"], "spec.revisionHistoryLimit");
  const pds = spec["progressDeadlineSeconds"];
  if (typeof pds === "number") {
    nonNegative(errs, pds, "spec.progressDeadlineSeconds");
    const mrs = typeof spec["minReadySeconds"] === "number" ? spec["minReadySeconds"] : 0;
    if (pds <= mrs) errs.push({ type: "Invalid", field: "spec.progressDeadlineSeconds", value: pds, detail: "must be greater than minReadySeconds" });
  }
  if (old) {
    const oldSel = isObject(old["spec"]) ? old["spec"]["selector"] : undefined;
    if (!sameJson(sel, oldSel)) {
      errs.push({ type: "Invalid", field: "spec.selector", value: sel ?? null, detail: "field is immutable" });
    }
  }
  return errs;
}

/** Deep equality of two JSON values regardless of member order (as Go's semantic equality of decoded objects). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: Json | undefined): Json | undefined {
  if (Array.isArray(v)) return v.map((x) => sortKeys(x) as Json);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]) as Json;
  return out;
}
