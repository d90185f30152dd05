// The fake API server's storage: objects by resource, one global resourceVersion counter
// (as etcd's revision), a bounded history of watch events per resource (older
// resourceVersions answer 410 Gone), and the live watchers.

import { randomUUID } from "node:crypto";
import { isObject, type JsonObject } from "./patch.js";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface WatchEventRecord {
  type: EventType;
  rv: number;
  object: JsonObject;
  /** The object before the change (MODIFIED), for selector transitions. */
  old?: JsonObject;
}

export interface Watcher {
  resource: string;
  namespace?: string;
  send(e: WatchEventRecord): void;
  close(): void;
}

export interface StoredMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
}

export function meta(o: JsonObject): JsonObject {
  const m = o["metadata"];
  return typeof m === "object" && m !== null && !Array.isArray(m) ? m : {};
}

export function objKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}

export class Store {
  private rv = 1;
  private readonly objects = new Map<string, Map<string, JsonObject>>();
  private readonly history = new Map<string, WatchEventRecord[]>();
  /** The oldest resourceVersion a watch may resume from, per resource. */
  private readonly horizon = new Map<string, number>();
  readonly watchers = new Set<Watcher>();
  /**
   * The garbage collector's index: owner uid → the stored objects that reference it
   * (`resource\0key`), and each object's owner uids as last stored, so that deleting an
   * owner finds its dependents without scanning every object.
   */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly ownersOf = new Map<string, string[]>();

  constructor(private readonly window: number) {}

  currentRv(): number {
    return this.rv;
  }

  private table(resource: string): Map<string, JsonObject> {
    let t = this.objects.get(resource);
    if (!t) {
      t = new Map();
      this.objects.set(resource, t);
    }
    return t;
  }

  get(resource: string, namespace: string | undefined, name: string): JsonObject | undefined {
    return this.table(resource).get(objKey(namespace, name));
  }

  list(resource: string, namespace?: string): JsonObject[] {
    const all = [...this.table(resource).values()];
    return namespace === undefined ? all : all.filter((o) => meta(o)["namespace"] === namespace);
  }

  /** Every stored object of every resource. */
  *all(): Generator<[string, JsonObject]> {
    for (const [resource, t] of this.objects) for (const o of t.values()) yield [resource, o];
  }

  /** The stored objects whose ownerReferences name `uid` (for the garbage collector). */
  dependentsOf(uid: string): Array<[string, JsonObject]> {
    const out: Array<[string, JsonObject]> = [];
    for (const entry of this.dependents.get(uid) ?? []) {
      const cut = entry.indexOf("\0");
      const o = this.table(entry.slice(0, cut)).get(entry.slice(cut + 1));
      if (o) out.push([entry.slice(0, cut), o]);
    }
    return out;
  }

  /** Keeps the dependents index of `resource\0key` at `o`'s owner uids (none when removed). */
  private index(entry: string, o: JsonObject | undefined): void {
    for (const uid of this.ownersOf.get(entry) ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(entry);
      if (set?.size === 0) this.dependents.delete(uid);
    }
    const refs = o === undefined ? undefined : meta(o)["ownerReferences"];
    const uids = Array.isArray(refs) ? refs.flatMap((r) => (isObject(r) && typeof r["uid"] === "string" ? [r["uid"]] : [])) : [];
    if (uids.length === 0) {
      this.ownersOf.delete(entry);
      return;
    }
    this.ownersOf.set(entry, uids);
    for (const uid of uids) {
      let set = this.dependents.get(uid);
      if (!set) {
        set = new Set();
        this.dependents.set(uid, set);
      }
      set.add(entry);
    }
  }

  newUid(): string {
    return randomUUID();
  }

  /** Stores `o` (a new or changed object) under a new resourceVersion and tells the watchers. */
  put(resource: string, o: JsonObject, type: "ADDED" | "MODIFIED"): JsonObject {
    const m = meta(o);
    const key = objKey(m["namespace"] as string | undefined, m["name"] as string);
    const old = this.table(resource).get(key);
    this.rv++;
    m["resourceVersion"] = String(this.rv);
    o["metadata"] = m;
    this.table(resource).set(key, o);
    this.index(`${resource}\0${key}`, o);
    this.record(resource, { type, rv: this.rv, object: o, ...(old ? { old } : {}) });
    return o;
  }

  remove(resource: string, namespace: string | undefined, name: string): JsonObject | undefined {
    const key = objKey(namespace, name);
    const old = this.table(resource).get(key);
    if (!old) return undefined;
    this.table(resource).delete(key);
    this.index(`${resource}\0${key}`, undefined);
    this.rv++;
    const gone = structuredClone(old);
    meta(gone)["resourceVersion"] = String(this.rv);
    this.record(resource, { type: "DELETED", rv: this.rv, object: gone });
    return gone;
  }

  private record(resource: string, e: WatchEventRecord): void {
    let h = this.history.get(resource);
    if (!h) {
      h = [];
      this.history.set(resource, h);
    }
    h.push(e);
    if (h.length > this.window) {
      const dropped = h.splice(0, h.length - this.window);
      const last = dropped[dropped.length - 1];
      if (last) this.horizon.set(resource, last.rv);
    }
    for (const w of this.watchers) {
      if (w.resource !== resource) continue;
      if (w.namespace !== undefined && meta(e.object)["namespace"] !== w.namespace) continue;
      w.send(e);
    }
  }

  /** The events after `rv`, or undefined when `rv` is older than the history (410 Gone). */
  since(resource: string, rv: number): WatchEventRecord[] | undefined {
    if (rv < (this.horizon.get(resource) ?? 0)) return undefined;
    return (this.history.get(resource) ?? []).filter((e) => e.rv > rv);
  }

  /** Forgets every resource's history: any watch resuming from an older version gets 410 Gone. */
  compact(): void {
    for (const key of new Set([...this.history.keys(), ...this.objects.keys()])) {
      this.history.set(key, []);
      this.horizon.set(key, this.rv);
    }
  }
}
