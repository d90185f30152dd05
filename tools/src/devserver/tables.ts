// kubectl's server-side printing: a list, get or watch asked for as a Table gets the
// kind's printer columns (upstream's printers: Deployments, pods, HPAs, the scalable
// kinds, and name and age for the rest), each row with the object's metadata.

import type { IncomingMessage } from "node:http";
import { hpaCells } from "./hpa.js";
import { isObject, type Json, type JsonObject } from "./patch.js";
import type { ResourceType } from "./resources.js";
import { meta } from "./store.js";

/** Does the request ask for a Table (kubectl's `Accept: …;as=Table;…`)? */
export function wantsTable(req: IncomingMessage): boolean {
  return /as=Table/.test(String(req.headers["accept"] ?? ""));
}

function age(ts: Json | undefined): string {
  if (typeof ts !== "string") return "<unknown>";
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(ts)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h`;
}

/** `items` as a meta.k8s.io/v1 Table with the kind's printer columns (one row each). */
export function table(type: ResourceType, items: JsonObject[], rv: string): object {
  const col = (name: string, t = "string"): object => ({ name, type: t, format: name === "Name" ? "name" : "", description: name, priority: 0 });
  let columns: object[];
  let cells: (o: JsonObject) => Json[];
  if (type.kind === "Deployment") {
    columns = [col("Name"), col("Ready"), col("Up-to-date", "integer"), col("Available", "integer"), col("Age")];
    columns.push(...["Containers", "Images", "Selector"].map((n) => ({ ...col(n), priority: 1 })));
    cells = (o) => deploymentCells(o, age(meta(o)["creationTimestamp"]), selectorString(isObject(o["spec"]) ? o["spec"]["selector"] : undefined));
  } else if (type.kind === "Pod") {
    columns = [col("Name"), col("Ready"), col("Status"), col("Restarts", "integer"), col("Age"), { ...col("Node"), priority: 1 }];
    cells = (o) => {
      const st = isObject(o["status"]) ? o["status"] : {};
      const cs = Array.isArray(st["containerStatuses"]) ? st["containerStatuses"].filter(isObject) : [];
      const spec = isObject(o["spec"]) ? o["spec"] : {};
      const total = Array.isArray(spec["containers"]) ? spec["containers"].length : cs.length;
      const ready = cs.filter((c) => c["ready"] === true).length;
      const restarts = cs.reduce((n, c) => n + (typeof c["restartCount"] === "number" ? c["restartCount"] : 0), 0);
      return [meta(o)["name"] ?? "", `${ready}/${total}`, st["phase"] ?? "Unknown", restarts, age(meta(o)["creationTimestamp"]), spec["nodeName"] ?? "<none>"];
    };
  } else if (type.kind === "HorizontalPodAutoscaler") {
    // printHorizontalPodAutoscaler; the object is the stored (v2) one in every version.
    columns = [col("Name"), col("Reference"), col("Targets"), col("MinPods"), col("MaxPods"), col("Replicas"), col("Age")];
    cells = (o) => [meta(o)["name"] ?? "", ...hpaCells(o), age(meta(o)["creationTimestamp"])];
  } else if (type.scale) {
    columns = [col("Name"), col("Desired", "integer"), col("Current", "integer"), col("Ready", "integer"), col("Age")];
    cells = (o) => {
      const spec = isObject(o["spec"]) ? o["spec"] : {};
      const st = isObject(o["status"]) ? o["status"] : {};
      return [meta(o)["name"] ?? "", spec["replicas"] ?? 0, st["replicas"] ?? 0, st["readyReplicas"] ?? 0, age(meta(o)["creationTimestamp"])];
    };
  } else {
    columns = [col("Name"), col("Age")];
    cells = (o) => [meta(o)["name"] ?? "", age(meta(o)["creationTimestamp"])];
  }
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion: rv },
    columnDefinitions: columns,
    rows: items.map((o) => ({
      cells: cells(o),
      object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: meta(o) },
    })),
  };
}

/** `kubectl get deploy` columns (upstream's printDeployment): READY, UP-TO-DATE, AVAILABLE, AGE; wide adds CONTAINERS, IMAGES, SELECTOR. */
function deploymentCells(o: JsonObject, age: string, selector: string): Json[] {
  const spec = isObject(o["spec"]) ? o["spec"] : {};
  const st = isObject(o["status"]) ? o["status"] : {};
  const m = isObject(o["metadata"]) ? o["metadata"] : {};
  const template = isObject(spec["template"]) ? spec["template"] : {};
  const ts = isObject(template["spec"]) ? template["spec"] : {};
  const containers = Array.isArray(ts["containers"]) ? ts["containers"].filter(isObject) : [];
  return [
    m["name"] ?? "",
    `${typeof st["readyReplicas"] === "number" ? st["readyReplicas"] : 0}/${typeof spec["replicas"] === "number" ? spec["replicas"] : 0}`,
    st["updatedReplicas"] ?? 0,
    st["availableReplicas"] ?? 0,
    age,
    containers.map((c) => String(c["name"] ?? "")).join(","),
    containers.map((c) => String(c["image"] ?? "")).join(","),
    selector,
  ];
}

/** A label selector as kubectl prints it (and a Scale's `status.selector` holds it). */
export function selectorString(sel: Json | undefined): string {
  if (!isObject(sel)) return "";
  const parts: string[] = [];
  if (isObject(sel["matchLabels"])) for (const [k, v] of Object.entries(sel["matchLabels"])) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(sel["matchExpressions"])) {
    for (const e of sel["matchExpressions"]) {
      if (!isObject(e)) continue;
      const vals = Array.isArray(e["values"]) ? e["values"].join(",") : "";
      const op = String(e["operator"]);
      if (op === "In") parts.push(`${String(e["key"])} in (${vals})`);
      else if (op === "NotIn") parts.push(`${String(e["key"])} notin (${vals})`);
      else if (op === "Exists") parts.push(String(e["key"]));
      else if (op === "DoesNotExist") parts.push(`!${String(e["key"])}`);
    }
  }
  return parts.join(",");
}
