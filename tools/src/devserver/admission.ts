// What kube-apiserver does to a written object before it stores it, beyond routing: the
// name rules, what a create resets (PrepareForCreate), the kind's defaults and validation
// (resources.ts names them for each kind: deployments.ts for Deployments), the replicas
// of a scalable kind (and of its Scale), and at most one controller reference. Every failure is an HttpError
// with kube-apiserver's status, reason and message (422 Invalid).

import { CAUSE_REASON, dropNulls, errorBody } from "./deployments.js";
import { HttpError } from "./errors.js";
import { isObject, type Json, type JsonObject } from "./patch.js";
import type { ResourceType } from "./resources.js";
import { meta } from "./store.js";

/** A create needs metadata.name or metadata.generateName (to generate one from). */
export function requireNameOrGenerateName(kind: string, m: JsonObject): void {
  if (typeof m["name"] === "string" && m["name"] !== "") return;
  if (typeof m["generateName"] !== "string" || m["generateName"] === "") {
    throw new HttpError(422, `${kind} is invalid: metadata.name: Required value: name or generateName is required`, "Invalid");
  }
}

/** metadata.name: a lowercase RFC 1123 subdomain. */
export function validateName(kind: string, name: string): void {
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
    throw new HttpError(422, `${kind} "${name}" is invalid: metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`, "Invalid");
  }
}

/**
 * What a create resets or fills in before the kind's defaults (the strategies'
 * PrepareForCreate): a pod starts Pending with an empty spec if it had none, another kind
 * with a status starts with an empty one, and a scalable kind's replicas default to 1.
 */
export function prepareForCreate(type: ResourceType, o: JsonObject): void {
  if (type.kind === "Pod") {
    o["spec"] = isObject(o["spec"]) ? o["spec"] : {};
    o["status"] = { phase: "Pending", qosClass: "BestEffort" };
  } else if (type.status) {
    o["status"] = {};
  }
  if (type.scale) {
    const spec = isObject(o["spec"]) ? o["spec"] : {};
    if (spec["replicas"] === undefined) spec["replicas"] = 1;
    o["spec"] = spec;
  }
}

/** The scale subresource's field: `spec.replicas`, when set, a whole number >= 0 (422 otherwise). */
export function validateReplicas(type: ResourceType, name: string | undefined, o: JsonObject): void {
  if (!type.scale) return;
  const spec = isObject(o["spec"]) ? o["spec"] : {};
  const r = spec["replicas"];
  if (r !== undefined && (typeof r !== "number" || !Number.isInteger(r) || r < 0)) {
    throw new HttpError(422, `${type.kind}.${type.group} "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(r)}: must be greater than or equal to 0`, "Invalid");
  }
}

/** A Scale's `spec.replicas` (a write through the scale subresource): a whole number >= 0 (422 otherwise). */
export function scaleReplicas(name: string | undefined, scale: JsonObject): number {
  const replicas = isObject(scale["spec"]) ? scale["spec"]["replicas"] : undefined;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    throw new HttpError(422, `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, "Invalid");
  }
  return replicas;
}

/**
 * The kind's admission (resources.ts): nulls dropped from the spec as a decode into the Go
 * types drops them, the scheme's defaults, then validation; field errors answer 422 Invalid
 * with kube-apiserver's message and causes.
 */
export function admit(type: ResourceType, routeName: string | undefined, o: JsonObject, old?: JsonObject): void {
  const a = type.admission;
  if (!a) return;
  if (o["spec"] !== undefined) o["spec"] = dropNulls(o["spec"] as Json);
  a.defaults(o);
  const errs = a.validate(o, old);
  if (errs.length === 0) return;
  const name = String(meta(o)["name"] ?? routeName ?? "");
  const texts = errs.map((e) => `${e.field}: ${errorBody(e)}`);
  const gk = type.group ? `${type.kind}.${type.group}` : type.kind;
  throw new HttpError(422, `${gk} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`}`, "Invalid", {
    name,
    group: type.group,
    kind: type.kind,
    causes: errs.map((e) => ({ reason: CAUSE_REASON[e.type], message: errorBody(e), field: e.field })),
  });
}

/**
 * ValidateOwnerReferences: at most one reference with controller true (a second
 * controller's adoption, a strategic merge beside the first, is refused with 422).
 */
export function validateOwnerReferences(kind: string, o: JsonObject): void {
  const refs = meta(o)["ownerReferences"];
  if (!Array.isArray(refs)) return;
  const controllers = refs.filter((r) => isObject(r) && r["controller"] === true).map((r) => `${String((r as JsonObject)["kind"])}/${String((r as JsonObject)["name"])}`);
  if (controllers.length > 1) {
    throw new HttpError(
      422,
      `${kind} "${String(meta(o)["name"])}" is invalid: metadata.ownerReferences: Invalid value: ${JSON.stringify(refs)}: Only one reference can have Controller set to true. Found "true" in references for ${controllers[0]} and ${controllers[1]}`,
      "Invalid",
    );
  }
}
