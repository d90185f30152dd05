// Object arguments cross into wasm as JSON text: `JSON.stringify` writes `Date` fields
// (as @kubernetes/client-node returns them) as RFC 3339 strings, and refuses cycles and
// absurd nesting with an exception instead of exhausting the wasm stack. Shared by both
// entry points (the engine's API and the simulator's).

import type { ReplicoreError } from "./types.js";

/** `value` as JSON text; a value without one is a `MALFORMED` error at `path`. */
export function text(value: unknown, path: string): string {
  try {
    const t = JSON.stringify(value);
    if (t === undefined) throw new TypeError("no JSON representation");
    return t;
  } catch (e) {
    const at = path || ".";
    const err = new Error(`${at}: cannot be converted to JSON: ${(e as Error).message}`) as ReplicoreError;
    err.code = "MALFORMED";
    err.path = at;
    throw err;
  }
}

/** `undefined` for `undefined`/`null`, else `text(value, path)`. */
export function optText(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : text(value, path);
}
