// What the pod informer keeps of a pod: only the fields the engine reads (its
// `podFields()` tree, from core/src/pod_fields.rs) and the resourceVersion (the
// informer resumes from it). A pod from the API server is several times larger
// (managedFields, container specs, volumes, IPs); client-go's informers strip them
// the same way (SetTransform, kube-controller-manager's managedFields trimming).

import { hpaPodFields, podFields, type FieldTree } from "replicore";

function pick(value: unknown, tree: FieldTree): unknown {
  if (tree === true || value === null || typeof value !== "object") return value;
  if (Array.isArray(tree)) {
    const item = tree[0] as FieldTree;
    return Array.isArray(value) ? value.map((v) => pick(v, item)) : value;
  }
  // A value of another shape than the tree's (a Date, an array where an object belongs)
  // is kept whole: the engine reports it as it would have.
  if (Array.isArray(value) || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  const from = value as Record<string, unknown>;
  for (const k of Object.keys(tree)) {
    const v = from[k];
    if (v !== undefined) out[k] = pick(v, tree[k] as FieldTree);
  }
  return out;
}

/** A transform keeping of an object the fields of `tree`, and metadata.resourceVersion. */
export function keepFields<T>(tree: FieldTree): (o: T) => T {
  return (o) => {
    const out = pick(o, tree) as { metadata?: Record<string, unknown> };
    const rv = (o as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
    if (rv !== undefined) out.metadata = { ...(out.metadata ?? {}), resourceVersion: rv };
    return out as T;
  };
}

/** Both trees' fields (a field read whole by either is kept whole). */
export function unionFields(a: FieldTree, b: FieldTree): FieldTree {
  if (a === true || b === true) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) return [unionFields(a[0] as FieldTree, b[0] as FieldTree)];
    return true;
  }
  const out: Record<string, FieldTree> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = out[k] === undefined ? v : unionFields(out[k] as FieldTree, v);
  return out as FieldTree;
}

let podTransform: ((o: unknown) => unknown) | undefined;
let sharedPodTransform: ((o: unknown) => unknown) | undefined;

/** The pod informer's transform (the ReplicaSet and Deployment engines' fields). */
export function trimPod<T>(pod: T): T {
  podTransform ??= keepFields<unknown>(podFields());
  return podTransform(pod) as T;
}

/** The transform of a pod informer the autoscaler reads too: its fields kept as well. */
export function trimPodForAll<T>(pod: T): T {
  sharedPodTransform ??= keepFields<unknown>(unionFields(podFields(), hpaPodFields()));
  return sharedPodTransform(pod) as T;
}
