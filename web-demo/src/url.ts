// The whole scenario in the URL's hash, so a state can be shared: `#s=` + base64url of the
// deflate-compressed JSON of a `PageState` (what the page writes), or `#json=` + the
// URI-encoded JSON itself (handy to write by hand or from a script).

import type { FeatureGates, Scenario } from "replicore/playground";
import type { HpaScenario } from "./autoscaling-scenario.js";

export type Mode = "sim" | "import" | "deploy" | "hpa";

export type Gates = Pick<FeatureGates, "LogarithmicScaleDown" | "PodDeletionCost">;

/** Everything that makes a view: restored from the URL, written back on every change. */
export interface PageState {
  v: 1;
  mode: Mode;
  /** Simulator: the scenario with every edit made so far (replays to the same run). */
  scenario?: Scenario;
  /** Simulator: the virtual time (ms) to replay to. */
  t?: number;
  /** Simulator: the play speed (virtual seconds per real second). */
  speed?: number;
  /** Import: the pasted `kubectl get rs,pods -o json` text. */
  list?: string;
  /** Import: the clock of the explanation (RFC 3339). */
  now?: string;
  /** The ReplicaSet the views follow (`namespace/name`; default: the first). */
  rs?: string;
  /** Import: the feature gates of the explanation. */
  gates?: Gates;
  /** Both: the "scale to N" preview (absent: the owner's desired replicas). */
  scaleTo?: number;
  /** Both: the pod whose editor is open. */
  pod?: string;
  /** Deployment view: the simulated Deployment (`scenario`, `t`) or an imported snapshot (`list`, `now`). */
  source?: "sim" | "import";
  /** Deployment view: the pods' start-up time in seconds (the simulator's exact delays and the forecast's). */
  startup?: number;
  /** Deployment view, imported: the Deployment shown (`namespace/name`; default: the first). */
  deployment?: string;
  /** Autoscaling: the HPA, the pods and the load the forecast plays (`source` "sim"). */
  hpa?: HpaScenario;
  /** Autoscaling: the sync explained (seconds). */
  sync?: number;
  /** Autoscaling, imported: the metrics APIs' answers (text). */
  metrics?: string;
  /** Autoscaling, imported: the HPA explained (`namespace/name`; default: the first). */
  hpaName?: string;
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const body = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** The hash for a state: `#s=…` (deflate-raw, base64url). */
export async function encodeState(state: PageState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return `#s=${toBase64Url(await pipe(json, new CompressionStream("deflate-raw")))}`;
}

/** The state in a hash, null when the hash holds none; throws with a readable message when it is damaged. */
export async function decodeState(hash: string): Promise<PageState | null> {
  const body = hash.replace(/^#/, "");
  if (body === "") return null;
  let json: string;
  if (body.startsWith("s=")) {
    try {
      json = new TextDecoder().decode(await pipe(fromBase64Url(body.slice(2)), new DecompressionStream("deflate-raw")));
    } catch {
      throw new Error("the link's state (#s=…) is damaged: it is not compressed JSON (was it cut short?)");
    }
  } else if (body.startsWith("json=")) {
    json = decodeURIComponent(body.slice(5));
  } else {
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new Error(`the link's state is not valid JSON: ${(e as Error).message}`);
  }
  return checkState(value);
}

function checkState(value: unknown): PageState {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("the link's state must be a JSON object");
  const v = value as Record<string, unknown>;
  const mode = v.mode ?? "sim";
  if (mode !== "sim" && mode !== "import" && mode !== "deploy" && mode !== "hpa") throw new Error(`the link's state: mode must be "sim", "import", "deploy" or "hpa" (got ${JSON.stringify(mode)})`);
  const num = (k: string): number | undefined => {
    const x = v[k];
    if (x === undefined || x === null) return undefined;
    if (typeof x !== "number" || !Number.isFinite(x) || x < 0) throw new Error(`the link's state: ${k} must be a non-negative number (got ${JSON.stringify(x)})`);
    return x;
  };
  const str = (k: string): string | undefined => {
    const x = v[k];
    if (x === undefined || x === null) return undefined;
    if (typeof x !== "string") throw new Error(`the link's state: ${k} must be a string`);
    return x;
  };
  const state: PageState = { v: 1, mode };
  if (v.scenario !== undefined) {
    if (typeof v.scenario !== "object" || v.scenario === null) throw new Error("the link's state: scenario must be an object");
    state.scenario = v.scenario as Scenario;
  }
  const t = num("t");
  if (t !== undefined) state.t = t;
  const speed = num("speed");
  if (speed !== undefined) state.speed = speed;
  const scaleTo = num("scaleTo");
  if (scaleTo !== undefined) state.scaleTo = Math.floor(scaleTo);
  const list = str("list");
  if (list !== undefined) state.list = list;
  const now = str("now");
  if (now !== undefined) state.now = now;
  const rs = str("rs");
  if (rs !== undefined) state.rs = rs;
  const pod = str("pod");
  if (pod !== undefined) state.pod = pod;
  const source = v.source;
  if (source !== undefined && source !== null) {
    if (source !== "sim" && source !== "import") throw new Error(`the link's state: source must be "sim" or "import" (got ${JSON.stringify(source)})`);
    state.source = source;
  }
  const startup = num("startup");
  if (startup !== undefined) state.startup = startup;
  const deployment = str("deployment");
  if (deployment !== undefined) state.deployment = deployment;
  if (v.hpa !== undefined) {
    // The engine checks every field when it plays it (and names a bad one).
    if (typeof v.hpa !== "object" || v.hpa === null || Array.isArray(v.hpa)) throw new Error("the link's state: hpa must be an object");
    state.hpa = v.hpa as HpaScenario;
  }
  const sync = num("sync");
  if (sync !== undefined) state.sync = sync;
  const metrics = str("metrics");
  if (metrics !== undefined) state.metrics = metrics;
  const hpaName = str("hpaName");
  if (hpaName !== undefined) state.hpaName = hpaName;
  if (v.gates !== undefined) {
    const g = v.gates as Record<string, unknown>;
    state.gates = { LogarithmicScaleDown: g.LogarithmicScaleDown !== false, PodDeletionCost: g.PodDeletionCost !== false };
  }
  return state;
}
