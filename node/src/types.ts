// The types that cross the boundary. Every type the engine reads or writes is generated
// from its Rust type by ts-rs (`scripts/gen-types.sh` writes `node/src/generated/`; the
// Rust doc comments are the field documentation) and re-exported here. What follows the
// re-export is what has no Rust type: conveniences of the JS side, and the shape of the
// errors the binding throws.

import type { Config, KubeObject, ReplicaSetCondition, ReplicaSetStatus } from "./generated/index.js";

export type * from "./generated/index.js";

// ---------------------------------------------------------------------------------------
// JS-side conveniences (no Rust type)

/**
 * An instant as a host may give it: an RFC 3339 string, or a `Date` as
 * @kubernetes/client-node returns them (the package writes it as RFC 3339 before it
 * crosses). Shadows the generated `Time`, the wire form (a string), in this module.
 */
export type Time = string | Date;

/** `T` as a host gives it: `now` also as a `Date` (see {@link Time}). */
export type HostInput<T extends { now: unknown }> = Omit<T, "now"> & { now: Time };

/**
 * A pod as the engine reads it: a Kubernetes object in the wire format, typed loosely
 * (see the generated `KubeObject`) so that @kubernetes/client-node's `V1Pod` is
 * assignable as it is. The engine validates the fields it reads itself.
 */
export type Pod = KubeObject;

/** A ReplicaSet, or any owner of the same shape (ReplicationController, a custom resource). */
export type ReplicaSet = KubeObject;

/**
 * The configuration the engine uses when a host sets nothing (`defaultConfig()`): every
 * field set but `emulationVersion` (none: the engine's own version).
 */
export type DefaultConfig = Required<Omit<Config, "emulationVersion">>;

/** Earlier names of the status types the engine writes (still used by sim-types.ts). */
export type WrittenStatus = ReplicaSetStatus;
export type WrittenCondition = ReplicaSetCondition;

/**
 * A watch event as a host passes it to `onPodEvent`/`onOwnerEvent`. The binding reads it
 * as one flat object (`{type, object, old?}`, faster than a tagged enum in wasm) and
 * refuses an `updated` event without `old`; this union says the same to the compiler.
 */
export type WatchEvent<T> =
  | { type: "added"; object: T }
  | { type: "updated"; old: T; object: T }
  | { type: "deleted"; object: T };

/** A watch event for a `Store`: the store knows the previous state, so `old` is optional. */
export type StoreEvent<T> =
  | { type: "added"; object: T }
  | { type: "updated"; object: T; old?: T }
  | { type: "deleted"; object: T };

/** Every error thrown by the engine: what was wrong, and where (wasm/src/convert.rs). */
export interface ReplicoreError extends Error {
  /** `MALFORMED`, `NEGATIVE`, `MISSING`, `DUPLICATE_POD`, `INVALID_CONFIG`, `OUTCOME_MISMATCH`, … */
  code: string;
  /** The JSON path of the offending field, e.g. `pods[3].status.conditions[0].lastTransitionTime`. */
  path: string;
}
