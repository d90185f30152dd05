// The name and resourceVersion of an API answer's object, read from its JSON text without
// building the object. A created pod comes back whole (managedFields, the defaulted spec:
// about 3.5 kB on a real API server) and the operator needs two strings of it; parsing it
// all, for each of thousands of creates, was garbage the collector then paid for.

export interface CreatedMeta {
  name?: string;
  resourceVersion?: string;
}

/** The index after the string literal that opens at `i` (a `"`), or -1 if it does not close. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++; // a backslash: the next character is escaped
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/**
 * `metadata.name` and `metadata.resourceVersion` of the top-level object in `text`
 * (each only if a string), in one pass over the text up to the end of `metadata`.
 * Text that is not a JSON object is parsed as a whole (JSON.parse's error then).
 */
export function createdMeta(text: string): CreatedMeta {
  const scanned = scan(text);
  if (scanned !== undefined) return scanned;
  const o = JSON.parse(text) as { metadata?: { name?: unknown; resourceVersion?: unknown } };
  const m = o?.metadata ?? {};
  return {
    ...(typeof m.name === "string" ? { name: m.name } : {}),
    ...(typeof m.resourceVersion === "string" ? { resourceVersion: m.resourceVersion } : {}),
  };
}

/** The scan; undefined where the text is not what it expects (the caller then parses it). */
function scan(text: string): CreatedMeta | undefined {
  let depth = 0;
  // Depth 1: in the top object, depth 2 in its metadata (when `inMeta`).
  let inMeta = false;
  let expectKey = false;
  const out: CreatedMeta = {};
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      const isKey = expectKey && (depth === 1 || (inMeta && depth === 2));
      if (isKey) {
        const key = text.slice(i + 1, end - 1);
        let v = skipSpace(text, end);
        if (text.charCodeAt(v) !== 0x3a) return undefined;
        v = skipSpace(text, v + 1);
        if (depth === 1 && key === "metadata") {
          if (text.charCodeAt(v) !== 0x7b) return undefined;
          inMeta = true;
        } else if (depth === 2 && (key === "name" || key === "resourceVersion") && text.charCodeAt(v) === 0x22) {
          const vend = stringEnd(text, v);
          if (vend < 0) return undefined;
          out[key] = JSON.parse(text.slice(v, vend)) as string;
          i = vend - 1;
          expectKey = false;
          continue;
        }
        i = v - 1;
        expectKey = false;
        continue;
      }
      i = end - 1;
      continue;
    }
    if (c === 0x7b) {
      depth++;
      expectKey = true;
    } else if (c === 0x7d) {
      depth--;
      if (inMeta && depth === 1) return out;
      if (depth === 0) return out;
    } else if (c === 0x5b) depth++;
    else if (c === 0x5d) depth--;
    else if (c === 0x2c) expectKey = true;
  }
  return undefined;
}
