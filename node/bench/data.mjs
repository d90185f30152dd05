// The benchmark inputs, built exactly as core/benches/engine.rs builds them: the upstream
// 10k input (10,300 pods, 10,000 owned by the ReplicaSet) and generated 1k and 100k
// inputs (the first N owned pods with their nodes folded onto proportionally fewer nodes;
// or copies with suffixed names, UIDs and nodes), shuffled with the same xorshift64*.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const dataDir = fileURLToPath(new URL("../../core/benches/data/", import.meta.url));

/** `generatedAt` of the reference: the instant the data is relative to. */
export const NOW = "2026-11-21T04:43:13Z";

export function loadBase() {
  const json = gunzipSync(readFileSync(`${dataDir}pods-10k.json.gz`));
  const list = JSON.parse(json.toString("utf8"));
  const rs = JSON.parse(readFileSync(`${dataDir}replicaset.json`, "utf8"));
  return { json, pods: list.items, rs };
}

/** A fresh random-looking UUID for copy `copy` of the pod with `uid` (as the API server
 * would assign; a suffix would give every copy the original's leading bytes). */
function copyUid(uid, copy) {
  let h = 0x811c9dc5;
  for (const ch of `${uid}/${copy}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  let hex = "";
  for (let i = 0; i < 4; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    hex += h.toString(16).padStart(8, "0");
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const isOwned = (rs, p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === rs.metadata.uid);

function shuffle(items, seed) {
  let s = BigInt.asUintN(64, seed);
  for (let i = items.length - 1; i >= 1; i--) {
    s ^= s >> 12n;
    s = BigInt.asUintN(64, s ^ (s << 25n));
    s ^= s >> 27n;
    const r = BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn);
    const j = Number(r % BigInt(i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
}

/** `owned` pods controlled by the RS plus the 300 pods it does not match. */
export function generated(base, owned) {
  const mine = base.pods.filter((p) => isOwned(base.rs, p));
  const others = base.pods.filter((p) => !isOwned(base.rs, p));
  const out = [];
  const clone = (p) => structuredClone(p);
  if (owned <= mine.length) {
    const nodes = [...new Set(mine.map((p) => p.spec?.nodeName ?? "").filter((n) => n !== ""))].sort((a, b) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    );
    const keep = Math.max(1, Math.ceil((nodes.length * owned) / mine.length));
    for (const p of mine.slice(0, owned)) {
      const c = clone(p);
      if (c.spec?.nodeName) {
        const i = nodes.indexOf(c.spec.nodeName);
        c.spec.nodeName = nodes[Math.max(0, i) % keep];
      }
      out.push(c);
    }
  } else {
    for (let copy = 0; out.length < owned; copy++) {
      for (const p of mine) {
        if (out.length === owned) break;
        const c = clone(p);
        if (copy > 0) {
          c.metadata.name = `${c.metadata.name}-c${copy}`;
          c.metadata.uid = copyUid(c.metadata.uid, copy);
          if (c.spec?.nodeName) c.spec.nodeName = `${c.spec.nodeName}-c${copy}`;
        }
        out.push(c);
      }
    }
  }
  out.push(...others.map(clone));
  shuffle(out, 0x9e3779b97f4a7c15n ^ BigInt(owned));
  return out;
}

/** The pods of one size (the 10k input itself for 10,000). */
export function podsOfSize(base, owned) {
  return owned === 10_000 ? base.pods : generated(base, owned);
}

/** not terminal and not being deleted. */
export function isActive(p) {
  const phase = p.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !p.metadata.deletionTimestamp;
}

/** The active pods controlled by the RS, input order (what rankPods gets). */
export function activeOwned(rs, pods) {
  return pods.filter((p) => isOwned(rs, p) && isActive(p));
}

/** The RS with `spec.replicas` set. */
export function owner(rs, replicas) {
  return { ...rs, spec: { ...rs.spec, replicas } };
}

export const label = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
