// Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`),
// decoded to the JSON the rest of the server handles. Since 1.32, client-go's typed
// clients send protobuf for built-in kinds and fall back only from CBOR, so newer kubectl's
// `create deployment` POSTs a protobuf Deployment. The envelope is the 4 magic bytes
// "k8s\0" and a runtime.Unknown (typeMeta, raw); the messages follow the field numbers of
// k8s.io/api's generated.proto. Only the messages and fields listed here are decoded; any
// other field answers 415, so nothing is dropped silently.

import type { Json, JsonObject } from "./patch.js";

export class UnsupportedProtobuf extends Error {}

/**
 * A field: its JSON name, its type (a scalar, `time`, `intstr`, `quantity`, a message
 * name, or `map:string` / `map:quantity`), repeated (`r`), and pointer (`p`: present
 * means set, so a zero is kept; other scalars at their zero value are omitted, as Go's
 * JSON encoding of the decoded object omits them).
 */
type Field = [name: string, type: string, flags?: "r" | "p"];

const MESSAGES: Record<string, Record<number, Field>> = {
  Unknown: { 1: ["typeMeta", "TypeMeta"], 2: ["raw", "bytes"], 3: ["contentEncoding", "string"], 4: ["contentType", "string"] },
  TypeMeta: { 1: ["apiVersion", "string"], 2: ["kind", "string"] },
  Deployment: { 1: ["metadata", "ObjectMeta"], 2: ["spec", "DeploymentSpec"], 3: ["status", "DeploymentStatus"] },
  DeploymentSpec: {
    1: ["replicas", "int", "p"],
    2: ["selector", "LabelSelector"],
    3: ["template", "PodTemplateSpec"],
    4: ["strategy", "DeploymentStrategy"],
    5: ["minReadySeconds", "int"],
    6: ["revisionHistoryLimit", "int", "p"],
    7: ["paused", "bool"],
    9: ["progressDeadlineSeconds", "int", "p"],
  },
  DeploymentStrategy: { 1: ["type", "string"], 2: ["rollingUpdate", "RollingUpdateDeployment"] },
  RollingUpdateDeployment: { 1: ["maxUnavailable", "intstr"], 2: ["maxSurge", "intstr"] },
  DeploymentStatus: {
    1: ["observedGeneration", "int"],
    2: ["replicas", "int"],
    3: ["updatedReplicas", "int"],
    7: ["readyReplicas", "int"],
    4: ["availableReplicas", "int"],
    5: ["unavailableReplicas", "int"],
    9: ["terminatingReplicas", "int", "p"],
    8: ["collisionCount", "int", "p"],
  },
  ObjectMeta: {
    1: ["name", "string"],
    2: ["generateName", "string"],
    3: ["namespace", "string"],
    4: ["selfLink", "string"],
    5: ["uid", "string"],
    6: ["resourceVersion", "string"],
    7: ["generation", "int"],
    8: ["creationTimestamp", "time"],
    9: ["deletionTimestamp", "time"],
    10: ["deletionGracePeriodSeconds", "int", "p"],
    11: ["labels", "map:string"],
    12: ["annotations", "map:string"],
    13: ["ownerReferences", "OwnerReference", "r"],
    14: ["finalizers", "string", "r"],
  },
  OwnerReference: {
    5: ["apiVersion", "string"],
    1: ["kind", "string"],
    3: ["name", "string"],
    4: ["uid", "string"],
    6: ["controller", "bool", "p"],
    7: ["blockOwnerDeletion", "bool", "p"],
  },
  LabelSelector: { 1: ["matchLabels", "map:string"], 2: ["matchExpressions", "LabelSelectorRequirement", "r"] },
  LabelSelectorRequirement: { 1: ["key", "string"], 2: ["operator", "string"], 3: ["values", "string", "r"] },
  PodTemplateSpec: { 1: ["metadata", "ObjectMeta"], 2: ["spec", "PodSpec"] },
  PodSpec: {
    2: ["containers", "Container", "r"],
    20: ["initContainers", "Container", "r"],
    3: ["restartPolicy", "string"],
    4: ["terminationGracePeriodSeconds", "int", "p"],
    5: ["activeDeadlineSeconds", "int", "p"],
    6: ["dnsPolicy", "string"],
    7: ["nodeSelector", "map:string"],
    8: ["serviceAccountName", "string"],
    9: ["serviceAccount", "string"],
    10: ["nodeName", "string"],
    11: ["hostNetwork", "bool"],
    12: ["hostPID", "bool"],
    13: ["hostIPC", "bool"],
    21: ["automountServiceAccountToken", "bool", "p"],
    25: ["priority", "int", "p"],
    27: ["shareProcessNamespace", "bool", "p"],
    29: ["runtimeClassName", "string", "p"],
    30: ["enableServiceLinks", "bool", "p"],
    31: ["preemptionPolicy", "string", "p"],
    35: ["setHostnameAsFQDN", "bool", "p"],
    37: ["hostUsers", "bool", "p"],
    41: ["hostnameOverride", "string", "p"],
    14: ["securityContext", "Empty"],
    16: ["hostname", "string"],
    17: ["subdomain", "string"],
    19: ["schedulerName", "string"],
    24: ["priorityClassName", "string"],
  },
  Container: {
    1: ["name", "string"],
    2: ["image", "string"],
    3: ["command", "string", "r"],
    4: ["args", "string", "r"],
    5: ["workingDir", "string"],
    6: ["ports", "ContainerPort", "r"],
    7: ["env", "EnvVar", "r"],
    8: ["resources", "ResourceRequirements"],
    9: ["volumeMounts", "VolumeMount", "r"],
    13: ["terminationMessagePath", "string"],
    20: ["terminationMessagePolicy", "string"],
    14: ["imagePullPolicy", "string"],
    16: ["stdin", "bool"],
    17: ["stdinOnce", "bool"],
    18: ["tty", "bool"],
  },
  ContainerPort: { 1: ["name", "string"], 2: ["hostPort", "int"], 3: ["containerPort", "int"], 4: ["protocol", "string"], 5: ["hostIP", "string"] },
  EnvVar: { 1: ["name", "string"], 2: ["value", "string"] },
  ResourceRequirements: { 1: ["limits", "map:quantity"], 2: ["requests", "map:quantity"] },
  VolumeMount: { 1: ["name", "string"], 2: ["readOnly", "bool"], 3: ["mountPath", "string"], 4: ["subPath", "string"], 5: ["mountPropagation", "string"], 6: ["subPathExpr", "string"] },
  // autoscaling/v1: kubectl 1.20's `kubectl autoscale` POSTs a protobuf HPA.
  HorizontalPodAutoscaler: { 1: ["metadata", "ObjectMeta"], 2: ["spec", "HorizontalPodAutoscalerSpec"], 3: ["status", "HorizontalPodAutoscalerStatus"] },
  HorizontalPodAutoscalerSpec: { 1: ["scaleTargetRef", "CrossVersionObjectReference"], 2: ["minReplicas", "int", "p"], 3: ["maxReplicas", "int"], 4: ["targetCPUUtilizationPercentage", "int", "p"] },
  CrossVersionObjectReference: { 1: ["kind", "string"], 2: ["name", "string"], 3: ["apiVersion", "string"] },
  HorizontalPodAutoscalerStatus: {
    1: ["observedGeneration", "int", "p"],
    2: ["lastScaleTime", "time"],
    3: ["currentReplicas", "int"],
    4: ["desiredReplicas", "int"],
    5: ["currentCPUUtilizationPercentage", "int", "p"],
  },
  Scale: { 1: ["metadata", "ObjectMeta"], 2: ["spec", "ScaleSpec"], 3: ["status", "ScaleStatus"] },
  ScaleSpec: { 1: ["replicas", "int"] },
  ScaleStatus: { 1: ["replicas", "int"], 2: ["selector", "string"] },
  /** A message decoded only when empty (e.g. a PodSecurityContext with no fields set). */
  Empty: {},
};

/** Which message decodes the raw bytes of an envelope, by its TypeMeta. */
const KINDS: Record<string, string> = {
  "apps/v1 Deployment": "Deployment",
  "autoscaling/v1 HorizontalPodAutoscaler": "HorizontalPodAutoscaler",
  "autoscaling/v1 Scale": "Scale",
};

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new UnsupportedProtobuf("truncated varint");
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new UnsupportedProtobuf("varint too long");
    }
  }
  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new UnsupportedProtobuf("truncated length-delimited field");
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeMessage(name: string, buf: Uint8Array, path: string): JsonObject {
  const fields = MESSAGES[name];
  if (!fields) throw new UnsupportedProtobuf(`${path}: message ${name} is not supported`);
  const out: JsonObject = {};
  const r = new Reader(buf);
  while (!r.done()) {
    const tag = Number(r.varint());
    const num = tag >>> 3;
    const wire = tag & 7;
    const f = fields[num];
    if (!f) throw new UnsupportedProtobuf(`${path}: field ${num} of ${name} is not supported by the dev server; send JSON`);
    const [key, type, flag] = f;
    const at = path === "" ? key : `${path}.${key}`;
    let value: Json | undefined;
    if (type === "int" || type === "bool") {
      if (wire !== 0) throw new UnsupportedProtobuf(`${at}: wire type ${wire}, expected a varint`);
      const v = BigInt.asIntN(64, r.varint());
      value = type === "bool" ? v !== 0n : Number(v);
      if (flag !== "p" && (value === 0 || value === false)) value = undefined;
    } else {
      if (wire !== 2) throw new UnsupportedProtobuf(`${at}: wire type ${wire}, expected length-delimited`);
      const b = r.bytes();
      if (type === "string") {
        value = utf8.decode(b);
        if (flag === undefined && value === "") value = undefined;
      } else if (type === "bytes") {
        value = Buffer.from(b).toString("base64");
      } else if (type === "time") {
        value = time(b, at);
      } else if (type === "intstr") {
        value = intOrString(b, at);
      } else if (type === "map:string" || type === "map:quantity") {
        const [k, v] = mapEntry(b, type === "map:quantity", at);
        const m = (out[key] ?? {}) as JsonObject;
        m[k] = v;
        out[key] = m;
        continue;
      } else {
        value = decodeMessage(type, b, at);
      }
    }
    if (flag === "r") {
      const list = (out[key] ?? []) as Json[];
      list.push(value ?? "");
      out[key] = list;
    } else if (value !== undefined) out[key] = value;
  }
  return out;
}

function time(b: Uint8Array, at: string): Json | undefined {
  const t = decodeRaw(b, at, { 1: "seconds", 2: "nanos" });
  const seconds = t["seconds"] ?? 0;
  if (seconds === 0) return undefined; // the zero time encodes as null in JSON
  return new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
}

function intOrString(b: Uint8Array, at: string): Json {
  const r = new Reader(b);
  let type = 0;
  let intVal = 0;
  let strVal = "";
  while (!r.done()) {
    const tag = Number(r.varint());
    if (tag === (1 << 3)) type = Number(r.varint());
    else if (tag === (2 << 3)) intVal = Number(BigInt.asIntN(32, r.varint()));
    else if (tag === ((3 << 3) | 2)) strVal = utf8.decode(r.bytes());
    else throw new UnsupportedProtobuf(`${at}: unexpected IntOrString field (tag ${tag})`);
  }
  return type === 1 ? strVal : intVal;
}

/** Varint fields of a small message, by number. */
function decodeRaw(b: Uint8Array, at: string, names: Record<number, string>): Record<string, number> {
  const r = new Reader(b);
  const out: Record<string, number> = {};
  while (!r.done()) {
    const tag = Number(r.varint());
    const name = names[tag >>> 3];
    if (!name || (tag & 7) !== 0) throw new UnsupportedProtobuf(`${at}: unexpected field (tag ${tag})`);
    out[name] = Number(BigInt.asIntN(64, r.varint()));
  }
  return out;
}

function mapEntry(b: Uint8Array, quantity: boolean, at: string): [string, string] {
  const r = new Reader(b);
  let k = "";
  let v = "";
  while (!r.done()) {
    const tag = Number(r.varint());
    if (tag === ((1 << 3) | 2)) k = utf8.decode(r.bytes());
    else if (tag === ((2 << 3) | 2)) {
      const raw = r.bytes();
      // A Quantity is a message with its text in field 1.
      v = quantity ? String(decodeMessageRaw(raw, at)) : utf8.decode(raw);
    } else throw new UnsupportedProtobuf(`${at}: unexpected map entry field (tag ${tag})`);
  }
  return [k, v];
}

function decodeMessageRaw(b: Uint8Array, at: string): string {
  const r = new Reader(b);
  let s = "";
  while (!r.done()) {
    const tag = Number(r.varint());
    if (tag === ((1 << 3) | 2)) s = utf8.decode(r.bytes());
    else throw new UnsupportedProtobuf(`${at}: unexpected Quantity field (tag ${tag})`);
  }
  return s;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** A protobuf-encoded Kubernetes object (the "k8s\0" envelope) as JSON; throws UnsupportedProtobuf. */
export function decodeKubernetesProtobuf(buf: Uint8Array): JsonObject {
  if (buf.length < 4 || MAGIC.some((m, i) => buf[i] !== m)) throw new UnsupportedProtobuf("the body does not start with the Kubernetes protobuf magic \"k8s\\0\"");
  const unknown = decodeMessage("Unknown", buf.subarray(4), "");
  const tm = (unknown["typeMeta"] ?? {}) as JsonObject;
  const apiVersion = String(tm["apiVersion"] ?? "");
  const kind = String(tm["kind"] ?? "");
  const message = KINDS[`${apiVersion} ${kind}`];
  if (!message) throw new UnsupportedProtobuf(`protobuf bodies of ${kind || "(no kind)"} ${apiVersion} are not supported by the dev server; send JSON`);
  if (unknown["contentEncoding"] !== undefined) throw new UnsupportedProtobuf(`content encoding ${String(unknown["contentEncoding"])} is not supported`);
  const raw = Buffer.from(String(unknown["raw"] ?? ""), "base64");
  return { apiVersion, kind, ...decodeMessage(message, raw, "") };
}
