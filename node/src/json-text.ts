// Object arguments cross into wasm as JSON: `JSON.stringify` writes `Date` fields (as
// @kubernetes/client-node returns them) as RFC 3339 strings, and refuses cycles and
// absurd nesting with an exception instead of exhausting the wasm stack. The text then
// crosses as its UTF-8 bytes: a `Uint8Array` is copied into wasm memory in one go, where
// a string would go through wasm-bindgen's character-by-character loop. Shared by every
// entry point (the engine's API, the explain report's, the simulator's), with the checks every argument
// gets before it crosses: whatever JS value a caller passes, the answer is a value or a
// `ReplicoreError` (`code`, `path`).

import { maxQuotedChars } from "./instance.js";
import type { ReplicoreError, Time } from "./types.js";

const encoder = new TextEncoder();

/** `text` cut after the engine's cap on quoted characters, with `…` and its length. */
export function capped(text: string): string {
  return text.length <= maxQuotedChars ? text : `${text.slice(0, maxQuotedChars)}… (${text.length} characters)`;
}

/** A `ReplicoreError` (`code` MALFORMED unless told) at `path`; the message starts with the path. */
export function replicoreError(path: string, message: string, code = "MALFORMED"): ReplicoreError {
  const at = path || ".";
  const err = new Error(`${at}: ${message}`) as ReplicoreError;
  err.code = code;
  err.path = at;
  return err;
}

/** What a JS value is, for messages. */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return "a Date";
  return typeof value;
}

/**
 * Runs `f`; anything it throws that is not a `ReplicoreError` (a `TypeError` from a getter,
 * a `RangeError` from a stack too deep) becomes one at `path`: the last line behind the
 * checks below, so that no JS value gets another kind of answer. A trap of the wasm
 * module (`WebAssembly.RuntimeError`) is reported as `INTERNAL`: it is a bug.
 */
export function guard<T>(path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isReplicoreError(e)) throw e;
    const what = e instanceof Error ? `${e.name}: ${e.message}` : safeString(e);
    const internal = typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
    throw replicoreError(path, capped(internal ? `the engine failed: ${what}` : `cannot be used: ${what}`), internal ? "INTERNAL" : "MALFORMED");
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeName(value);
  }
}

/** The UTF-8 bytes of JSON text the host already holds. */
export function utf8(jsonText: string, path = ""): Uint8Array {
  if (typeof jsonText !== "string") throw replicoreError(path, `expected JSON text (a string), got ${typeName(jsonText)}`);
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
    if (t === undefined) throw new TypeError(`no JSON representation (${typeName(value)})`);
  } catch (e) {
    throw replicoreError(path, `cannot be converted to JSON: ${capped(e instanceof Error ? e.message : safeString(e))}`);
  }
  return encoder.encode(t);
}

/** `undefined` for `undefined`/`null`, else `json(value, path)`. */
export function optJson(value: unknown, path: string): Uint8Array | undefined {
  return value === undefined || value === null ? undefined : json(value, path);
}

/** A time as RFC 3339: a `Date` (a valid one), or the string as it is (the engine reads it). */
export function iso(t: Time, path: string): string {
  if (t instanceof Date) {
    if (Number.isNaN(t.getTime())) throw replicoreError(path, "invalid Date");
    return t.toISOString();
  }
  return t;
}

/** `value`, checked to be an object (not null, not an array). */
export function record<T extends object>(value: T, path: string): T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw replicoreError(path, `expected an object, got ${typeName(value)}`);
  }
  return value;
}

/** Options with a `now`: checked to be an object, `now` as RFC 3339. */
export function withNow<T extends { now: Time }>(options: T, path: string): T & { now: string } {
  const o = record(options, path);
  return { ...o, now: iso(o.now, `${path}.now`) };
}

/** Is `e` an error thrown by the engine (with `code` and `path`)? */
export function isReplicoreError(e: unknown): e is ReplicoreError {
  return e instanceof Error && typeof (e as Partial<ReplicoreError>).code === "string" && typeof (e as Partial<ReplicoreError>).path === "string";
}

/**
 * A large result, which a binding returns as JSON text of a `T` (`plan`, `planFor`,
 * `rankPods`, `explainReport`, …: see `to_json_text` in wasm/src/convert.rs, declared as
 * `JsonText<T>`), as the value it describes.
 */
export function fromText<T>(text: string & { readonly __jsonOf?: T }): T {
  return JSON.parse(text) as T;
}
