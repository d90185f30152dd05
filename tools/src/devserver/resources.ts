// The resources the fake API server serves, and the discovery documents kubectl and
// client-node read (/api, /apis, /api/v1, /apis/<group>/<version>).

import { defaultDeployment, defaultReplicaDeployment, validateDeployment, type FieldError } from "./deployments.js";
import { defaultHpa, hpaFromV1, hpaToV1, validateHpa } from "./hpa.js";
import { metricsDiscovery, metricsGroup } from "./metrics.js";
import type { JsonObject } from "./patch.js";

export interface ResourceType {
  group: string; // "" for the core group
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Has a status subresource (PUT/PATCH …/status). */
  status?: boolean;
  /** Has a scale subresource at `spec.replicas` (autoscaling/v1 Scale). */
  scale?: boolean;
  /** Bumps metadata.generation on spec changes (every kind but pods, events, leases). */
  generation?: boolean;
  /** Also bumps it on metadata.annotations changes (Deployments: their annotations are copied to ReplicaSets). */
  generationOnAnnotations?: boolean;
  /**
   * What a status write resets to the stored object, as upstream's status strategy
   * (GetResetFields); the rest of its metadata is written. Unset: only the status changes.
   */
  statusResets?: Array<"spec" | "metadata.labels">;
  /** Discovery categories (`kubectl get all`). */
  categories?: string[];
  /**
   * What kube-apiserver's decoder and validation do to a written object of this kind: the
   * scheme's defaults, then validation (with the stored object on update); field errors
   * answer 422 Invalid.
   */
  admission?: { defaults(o: JsonObject): void; validate(o: JsonObject, old?: JsonObject): FieldError[] };
  /**
   * A version served but not stored: objects are stored in `storedVersion` (the kind's
   * other entry), converted on the way in (`toStored`) and out (`fromStored`).
   */
  conversion?: { storedVersion: string; toStored(o: JsonObject): JsonObject; fromStored(o: JsonObject): JsonObject };
}

const HPA = {
  group: "autoscaling",
  plural: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  kind: "HorizontalPodAutoscaler",
  namespaced: true,
  shortNames: ["hpa"],
  status: true,
  generation: true,
  admission: { defaults: defaultHpa, validate: validateHpa },
};

export const RESOURCES: ResourceType[] = [
  { group: "", version: "v1", plural: "pods", singular: "pod", kind: "Pod", namespaced: true, shortNames: ["po"], status: true, categories: ["all"] },
  { group: "", version: "v1", plural: "events", singular: "event", kind: "Event", namespaced: true, shortNames: ["ev"] },
  { group: "", version: "v1", plural: "namespaces", singular: "namespace", kind: "Namespace", namespaced: false, shortNames: ["ns"] },
  // The kubelet's fake nodes (kubelet.ts), for `kubectl get nodes` and `kubectl top nodes`.
  { group: "", version: "v1", plural: "nodes", singular: "node", kind: "Node", namespaced: false, shortNames: ["no"], status: true },
  {
    group: "apps",
    version: "v1",
    plural: "replicasets",
    singular: "replicaset",
    kind: "ReplicaSet",
    namespaced: true,
    shortNames: ["rs"],
    status: true,
    scale: true,
    generation: true,
    categories: ["all"],
  },
  {
    group: "apps",
    version: "v1",
    plural: "deployments",
    singular: "deployment",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    status: true,
    scale: true,
    generation: true,
    generationOnAnnotations: true,
    statusResets: ["spec", "metadata.labels"],
    categories: ["all"],
    admission: { defaults: defaultDeployment, validate: validateDeployment },
  },
  // Stored and served (the controller is the operator's): v2 is the stored version and
  // the preferred one; v1 (kubectl 1.20's `kubectl autoscale`) is converted (hpa.ts).
  { ...HPA, version: "v2", categories: ["all"] },
  { ...HPA, version: "v1", conversion: { storedVersion: "v2", toStored: hpaFromV1, fromStored: hpaToV1 } },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", singular: "lease", kind: "Lease", namespaced: true },
  { group: "events.k8s.io", version: "v1", plural: "events", singular: "event", kind: "Event", namespaced: true, shortNames: ["ev"] },
  {
    group: "replicore.dev",
    version: "v1alpha1",
    plural: "replicapools",
    singular: "replicapool",
    kind: "ReplicaPool",
    namespaced: true,
    shortNames: ["rp"],
    status: true,
    scale: true,
    generation: true,
    categories: ["all"],
  },
  {
    // tools/deploy/crd-replicadeployment.yaml: a Deployment-shaped custom resource (the
    // CRD's schema defaults; status writes keep only the status, as a CRD's do).
    group: "replicore.dev",
    version: "v1alpha1",
    plural: "replicadeployments",
    singular: "replicadeployment",
    kind: "ReplicaDeployment",
    namespaced: true,
    shortNames: ["rd"],
    status: true,
    scale: true,
    generation: true,
    categories: ["all"],
    admission: { defaults: defaultReplicaDeployment, validate: () => [] },
  },
];

export function apiVersionOf(r: ResourceType): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

export function findResource(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

/** The API version a resource's objects are stored in. */
export function storedApiVersionOf(r: ResourceType): string {
  return r.conversion ? `${r.group}/${r.conversion.storedVersion}` : apiVersionOf(r);
}

/** A stored object as the request's version shows it. */
export function served(r: ResourceType, o: JsonObject): JsonObject {
  return r.conversion ? r.conversion.fromStored(o) : o;
}

/** A written object in its stored version. */
export function toStored(r: ResourceType, o: JsonObject): JsonObject {
  return r.conversion ? r.conversion.toStored(o) : o;
}

/** Where a resource's objects live in the store (events of both groups are separate). */
export function storeKey(r: ResourceType): string {
  return `${r.group}/${r.plural}`;
}

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function resourceList(group: string, version: string): object {
  const resources: object[] = [];
  for (const r of RESOURCES.filter((x) => x.group === group && x.version === version)) {
    resources.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VERBS,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
    });
    if (r.status) resources.push({ name: `${r.plural}/status`, singularName: "", namespaced: r.namespaced, kind: r.kind, verbs: ["get", "patch", "update"] });
    if (r.scale) {
      resources.push({
        name: `${r.plural}/scale`,
        singularName: "",
        namespaced: r.namespaced,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group === "" ? version : `${group}/${version}`, resources };
}

/**
 * The discovery document at `path`, or undefined when `path` is not a discovery path;
 * with `metrics`, the metrics API's group too (metrics.ts).
 */
export function discovery(path: string, serverAddress: string, metrics = false): object | undefined {
  if (path === "/version") {
    return {
      major: "1",
      minor: "36",
      gitVersion: "v1.36.2-replicore-dev",
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2026-11-21T00:00:00Z",
      goVersion: "go1.24",
      compiler: "gc",
      platform: "linux/amd64",
    };
  }
  if (path === "/api") {
    return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
  }
  if (path === "/api/v1") return resourceList("", "v1");
  const groups = [...new Set(RESOURCES.filter((r) => r.group !== "").map((r) => r.group))];
  const groupDoc = (g: string): object => {
    const versions = [...new Set(RESOURCES.filter((r) => r.group === g).map((r) => r.version))].map((v) => ({ groupVersion: `${g}/${v}`, version: v }));
    return { kind: "APIGroup", apiVersion: "v1", name: g, versions, preferredVersion: versions[0] };
  };
  if (path === "/apis") return { kind: "APIGroupList", apiVersion: "v1", groups: [...groups.map(groupDoc), ...(metrics ? [metricsGroup()] : [])] };
  if (metrics) {
    const doc = metricsDiscovery(path);
    if (doc) return doc;
  }
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (m && groups.includes(m[1] as string)) {
    const g = m[1] as string;
    if (m[2] === undefined) return groupDoc(g);
    if (RESOURCES.some((r) => r.group === g && r.version === m[2])) return resourceList(g, m[2]);
  }
  return undefined;
}
