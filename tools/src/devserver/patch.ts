// Patches and selectors as the API server applies them: JSON merge patch (RFC 7386),
// strategic merge patch for the lists the operator and kubectl touch (by the merge keys of
// MERGE_KEYS: ownerReferences by uid, conditions by type, containers by name, ports by
// containerPort, volumeMounts by mountPath, …; `$patch: delete`, `$patch: replace` and
// `$retainKeys`),
// JSON patch (RFC 6902), label selectors (equality- and set-based) and field selectors.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class PatchError extends Error {}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** RFC 7386. */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** List merge keys of strategic merge patch, by field name (the fields this server needs). */
const MERGE_KEYS: Record<string, string> = {
  ownerReferences: "uid",
  conditions: "type",
  containers: "name",
  initContainers: "name",
  containerStatuses: "name",
  volumes: "name",
  env: "name",
  ports: "containerPort",
  volumeMounts: "mountPath",
  volumeDevices: "devicePath",
  hostAliases: "ip",
  imagePullSecrets: "name",
  topologySpreadConstraints: "topologyKey",
};

/** Strategic merge patch: merge patch, except that lists with a merge key merge by it. */
export function strategicMergePatch(target: Json | undefined, patch: Json, field = ""): Json {
  if (Array.isArray(patch)) {
    const key = MERGE_KEYS[field];
    if (key === undefined || !Array.isArray(target)) {
      return patch.filter((e) => !(isObject(e) && e["$patch"] !== undefined));
    }
    if (patch.some((e) => isObject(e) && e["$patch"] === "replace")) {
      return patch.filter((e) => !(isObject(e) && e["$patch"] === "replace"));
    }
    const out: Json[] = [...target];
    for (const e of patch) {
      if (!isObject(e)) throw new PatchError(`${field}: list elements must be objects with '${key}'`);
      const idx = out.findIndex((t) => isObject(t) && t[key] === e[key]);
      if (e["$patch"] === "delete") {
        if (idx >= 0) out.splice(idx, 1);
        continue;
      }
      if (idx >= 0) out[idx] = strategicMergePatch(out[idx], e);
      else out.push(stripDirectives(e));
    }
    return out;
  }
  if (!isObject(patch)) return patch;
  if (patch["$patch"] === "replace") return stripDirectives(patch);
  if (patch["$patch"] === "delete") return null;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$")) continue;
    if (v === null) delete out[k];
    else out[k] = strategicMergePatch(out[k], v, k);
  }
  // `$retainKeys` (fields with patchStrategy retainKeys, e.g. a Deployment's strategy or a
  // volume's source): members not listed are cleared, so `kubectl apply` switching to
  // Recreate drops the defaulted rollingUpdate.
  const retain = patch["$retainKeys"];
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function stripDirectives(v: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith("$")) out[k] = x;
  return out;
}

/** RFC 6902 (add, remove, replace, test, copy, move). */
export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw new PatchError("a JSON patch must be an array of operations");
  let doc: Json = structuredClone(target);
  const parse = (p: Json | undefined): string[] => {
    if (typeof p !== "string" || (p !== "" && !p.startsWith("/"))) throw new PatchError(`invalid JSON pointer ${JSON.stringify(p)}`);
    return p === "" ? [] : p.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  };
  const get = (path: string[]): Json | undefined => {
    let cur: Json | undefined = doc;
    for (const seg of path) {
      if (Array.isArray(cur)) cur = cur[Number(seg)];
      else if (isObject(cur)) cur = cur[seg];
      else return undefined;
    }
    return cur;
  };
  const parentOf = (path: string[]): [Json, string] => {
    const parent = get(path.slice(0, -1));
    if (parent === undefined || (!Array.isArray(parent) && !isObject(parent))) throw new PatchError(`path /${path.join("/")} does not exist`);
    return [parent, path[path.length - 1] as string];
  };
  const add = (path: string[], value: Json): void => {
    if (path.length === 0) {
      doc = value;
      return;
    }
    const [parent, last] = parentOf(path);
    if (Array.isArray(parent)) parent.splice(last === "-" ? parent.length : Number(last), 0, value);
    else (parent as JsonObject)[last] = value;
  };
  const remove = (path: string[]): Json => {
    const [parent, last] = parentOf(path);
    const old = get(path);
    if (old === undefined) throw new PatchError(`path /${path.join("/")} does not exist`);
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete (parent as JsonObject)[last];
    return old;
  };
  for (const op of ops) {
    if (!isObject(op)) throw new PatchError("a JSON patch operation must be an object");
    const path = parse(op["path"]);
    switch (op["op"]) {
      case "add":
        add(path, structuredClone(op["value"] ?? null));
        break;
      case "remove":
        remove(path);
        break;
      case "replace": {
        // As kube-apiserver's JSON patch (evanphx/json-patch v4): replacing a missing member
        // of an object adds it (`kubectl rollout undo` replaces /metadata/annotations).
        if (path.length === 0) {
          doc = structuredClone(op["value"] ?? null);
          break;
        }
        const [parent, last] = parentOf(path);
        if (isObject(parent) && get(path) === undefined) parent[last] = structuredClone(op["value"] ?? null);
        else {
          remove(path);
          add(path, structuredClone(op["value"] ?? null));
        }
        break;
      }
      case "test":
        if (JSON.stringify(get(path)) !== JSON.stringify(op["value"])) throw new PatchError(`test failed at ${String(op["path"])}`);
        break;
      case "copy":
        add(path, structuredClone(get(parse(op["from"])) ?? null));
        break;
      case "move":
        add(path, remove(parse(op["from"])));
        break;
      default:
        throw new PatchError(`unknown JSON patch operation ${JSON.stringify(op["op"])}`);
    }
  }
  return doc;
}

// ---------------------------------------------------------------------------------------
// Selectors

type Requirement = { key: string; op: "=" | "!=" | "in" | "notin" | "exists" | "!"; values: string[] };

/** Parses a label selector (`a=b,c!=d,e in (f,g),!h,i`); throws PatchError when invalid. */
export function parseLabelSelector(text: string): Requirement[] {
  const out: Requirement[] = [];
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() !== "") parts.push(cur);
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      out.push({ key: m[1] as string, op: m[2] as "in" | "notin", values: (m[3] as string).split(",").map((s) => s.trim()).filter((s) => s !== "") });
    } else if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(p))) {
      out.push({ key: m[1] as string, op: m[2] === "!=" ? "!=" : "=", values: [m[3] as string] });
    } else if ((m = /^!\s*([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1] as string, op: "!", values: [] });
    } else if ((m = /^([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1] as string, op: "exists", values: [] });
    } else {
      throw new PatchError(`unable to parse requirement: ${JSON.stringify(p)}`);
    }
  }
  return out;
}

export function labelsMatch(reqs: Requirement[], labels: Record<string, string> | undefined | null): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case "=":
        return has && v === r.values[0];
      case "!=":
        return !has || v !== r.values[0];
      case "in":
        return has && r.values.includes(v as string);
      case "notin":
        return !has || !r.values.includes(v as string);
      case "exists":
        return has;
      case "!":
        return !has;
    }
  });
}

/** Field selectors: `metadata.name`, `metadata.namespace`, `spec.nodeName`, `status.phase` with = / == / !=. */
export function parseFieldSelector(text: string): Array<(o: JsonObject) => boolean> {
  return text
    .split(",")
    .filter((p) => p.trim() !== "")
    .map((p) => {
      const m = /^\s*([\w.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(p);
      if (!m) throw new PatchError(`invalid field selector: ${JSON.stringify(p)}`);
      const [, field, op, value] = m as unknown as [string, string, string, string];
      const path = field.split(".");
      return (o: JsonObject) => {
        let cur: Json | undefined = o;
        for (const seg of path) cur = isObject(cur) ? cur[seg] : undefined;
        const s = cur === undefined || cur === null ? "" : String(cur);
        return op === "!=" ? s !== value : s === value;
      };
    });
}
