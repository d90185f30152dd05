// Object arguments cross into wasm as JSON: `JSON.stringify` writes `Date` fields (as
// @kubernetes/client-node returns them) as RFC 3339 strings, and refuses cycles and
// absurd nesting with an exception instead of exhausting the wasm stack. The text then
// crosses as its UTF-8 bytes: a `Uint8Array` is copied into wasm memory in one go, where
// a string would go through wasm-bindgen's character-by-character loop. Shared by both
// entry points (the engine's API and the simulator's).

import type { ReplicoreError } from "./types.js";

const encoder = new TextEncoder();

/** The UTF-8 bytes of JSON text the host already holds. */
export function utf8(jsonText: string): Uint8Array {
  return encoder.encode(jsonText);
}

/**
 * `value` as JSON (UTF-8 bytes), written by `write` (default `JSON.stringify`); a value
 * without one is a `MALFORMED` error at `path`.
 */
export function json(
  value: unknown,
  path: string,
  write: (value: unknown) => string | undefined = JSON.stringify,
): Uint8Array {
  let t: string | undefined;
  try {
    t = write(value);
    if (t === undefined) throw new TypeError("no JSON representation");
  } catch (e) {
    const at = path || ".";
    const err = new Error(`${at}: cannot be converted to JSON: ${(e as Error).message}`) as ReplicoreError;
    err.code = "MALFORMED";
    err.path = at;
    throw err;
  }
  return encoder.encode(t);
}

/** `undefined` for `undefined`/`null`, else `json(value, path)`. */
export function optJson(value: unknown, path: string): Uint8Array | undefined {
  return value === undefined || value === null ? undefined : json(value, path);
}
