// Pods as JSON, written with only the fields the engine reads.
//
// A pod from the API server is about 4 KB of JSON of which the engine reads about one
// (`managedFields`, container specs, volumes and IPs it skips), and in Node 20
// `JSON.stringify` costs about a microsecond per object it writes: stringifying whole pods
// was half the time of `Store.upsertPod`. The engine exports the tree of the fields it
// reads (`podFields()`, from `core/src/pod_fields.rs`, checked there against the model);
// this module compiles it into a writer whose output is exactly
// `JSON.stringify` of the pod's JSON value with only those fields kept. The engine decides
// the same from it as from the whole pod, and reports a bad value at the same path: every
// field it reads is written as `JSON.stringify` writes it (`toJSON` applied, so a `Date`
// becomes its string), and a value of another kind than the tree expects (an array where
// an object belongs, a string where a list does) is written whole.

/** A node of the engine's field tree: a value read whole, an object's fields, a list. */
export type FieldTree = true | { [field: string]: FieldTree } | [FieldTree];

/** Writes one value as JSON text, or `undefined` where `JSON.stringify` writes nothing. */
export type Writer = (value: unknown) => string | undefined;

// Strings without quotes, backslashes, control characters or surrogates: JSON.stringify
// writes these as they are, between quotes.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\ud7ff\ue000-\uffff]*$/;

/** `JSON.stringify(value)`, with the common leaves written without a call into it. */
export const whole: Writer = (value) => {
  switch (typeof value) {
    case "string":
      return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    default:
      return JSON.stringify(value);
  }
};

/** What `JSON.stringify` writes for `value`: the result of its `toJSON`, if it has one. */
function jsonValue(value: unknown): unknown {
  if (typeof value === "object" && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return toJSON.call(value, "");
  }
  return value;
}

/** Whether `value` is written field by field by the writer of an object. */
function byFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fieldsWriter(fields: [string, Writer][], open: boolean): Writer {
  // By the object's own keys (Object.keys: what JSON.stringify writes, in its order):
  // faster than looking up each listed field and then checking it is own and enumerable.
  const known = new Map(fields.map(([key, write]) => [key, { write, head: whole(key) + ":" }]));
  return (input) => {
    const value = jsonValue(input);
    if (!byFields(value)) return whole(value);
    let out = "";
    for (const key of Object.keys(value)) {
      const field = known.get(key);
      if (field === undefined && !open) continue;
      const text = (field?.write ?? whole)(value[key]);
      if (text === undefined) continue;
      out += (out === "" ? "{" : ",") + (field?.head ?? whole(key) + ":") + text;
    }
    return out === "" ? "{}" : out + "}";
  };
}

function listWriter(item: Writer): Writer {
  return (input) => {
    const value = jsonValue(input);
    if (!Array.isArray(value)) return whole(value);
    // Items are joined in runs of 16 into flat strings: concatenating thousands of pods
    // (each written as a rope of ~100 pieces) kept every piece alive until the end,
    // through many young-generation collections, and made a 10,000-pod list cost 4× as
    // much per pod as one pod alone.
    const runs: string[] = [];
    let run: string[] = [];
    for (let i = 0; i < value.length; i++) {
      run.push(item(value[i]) ?? "null");
      if (run.length === 16) {
        runs.push(run.join(","));
        run = [];
      }
    }
    if (run.length > 0) runs.push(run.join(","));
    return "[" + runs.join(",") + "]";
  };
}

/** The writer of a field tree: `JSON.stringify` of the value with only those fields. */
export function compile(tree: FieldTree): Writer {
  if (tree === true) return whole;
  if (Array.isArray(tree)) return listWriter(compile(tree[0]));
  return fieldsWriter(
    Object.entries(tree).map(([k, t]) => [k, compile(t)]),
    false,
  );
}

/**
 * The writer of an object of which every field is written, and the fields named here by
 * their writers (e.g. a sync input's `pods`).
 */
export function openObject(fields: Record<string, Writer>): Writer {
  return fieldsWriter(Object.entries(fields), true);
}

/** A field never written (as `JSON.stringify` skips a field whose value is `undefined`). */
export const omitted: Writer = () => undefined;

/** The writer of a list of items written by `item`. */
export function listOf(item: Writer): Writer {
  return listWriter(item);
}
