#!/usr/bin/env node
// replicore (wasm, in Node) and webernetes (@ngrok/webernetes 0.3.5, the TypeScript port
// of the controller) ranking the same pods for scale-down, side by side.
//
//   npm --prefix node run bench:webernetes            # 1k and 10k
//   npm --prefix node run bench:webernetes -- --json  # {"name": median_ms, ...}
//
// Both rank the active pods the ReplicaSet owns, with themselves as the related pods,
// at the input's instant. webernetes gets the objects as @kubernetes/client-node gives
// them (timestamps as Date); it ranks with upstream's comparator and an insertion sort,
// as its getPodsToDelete does. replicore is called through its public API (`rankPods`),
// so its figure includes turning the objects into JSON and back.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rankPods } from "replicore";
import { NOW, activeOwned, label, loadBase, podsOfSize } from "./data.mjs";
import { line, measure } from "./measure.mjs";

const json = process.argv.includes("--json");
const log = (s) => (json ? process.stderr.write(`${s}\n`) : console.log(s));

/** webernetes ships ES modules with extensionless imports (for bundlers): bundle the
 * part that ranks into one file Node can load. */
async function loadWebernetes() {
  // The package exports only its index (dist/index.js); the ranking lives beside it.
  const index = fileURLToPath(import.meta.resolve("@ngrok/webernetes"));
  const utils = join(dirname(index), "controller", "controller-utils.js");
  const dir = mkdtempSync(join(tmpdir(), "replicore-webernetes-"));
  const out = join(dir, "webernetes-rank.mjs");
  await build({
    stdin: { contents: `export { ActivePodsWithRanks, isPodActive } from ${JSON.stringify(utils)};`, resolveDir: dir, loader: "js" },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "error",
  });
  const mod = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  return mod;
}

const TIME_KEYS = new Set(["creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastProbeTime", "startTime", "startedAt", "finishedAt"]);
/** The pods as client-node's ObjectSerializer returns them: timestamps as Date. */
const withDates = (pods) => JSON.parse(JSON.stringify(pods), (k, v) => (TIME_KEYS.has(k) && typeof v === "string" ? new Date(v) : v));

const webernetes = await loadWebernetes();

/** webernetes' getPodsRankedByRelatedPodsOnSameNode + sort (what getPodsToDelete does). */
function webernetesRank(pods, now) {
  const onNode = new Map();
  for (const p of pods) {
    if (webernetes.isPodActive(p)) {
      const n = p.spec?.nodeName ?? "";
      onNode.set(n, (onNode.get(n) ?? 0) + 1);
    }
  }
  const ranked = new webernetes.ActivePodsWithRanks(
    [...pods],
    pods.map((p) => onNode.get(p.spec?.nodeName ?? "") ?? 0),
    now,
  );
  ranked.sort();
  return ranked.pods;
}

const base = loadBase();
const results = {};
log("scale-down ranking of the same pods: replicore (wasm) vs webernetes 0.3.5 (TypeScript)");
const rows = [];
for (const n of [1_000, 10_000]) {
  const active = activeOwned(base.rs, podsOfSize(base, n));
  const dated = withDates(active);
  const now = new Date(NOW);
  const r = measure(() => rankPods(active, { now: NOW }), { runs: 20 });
  // One webernetes run of 10k takes seconds (an insertion sort): 3 runs, 10 for 1k.
  const w = measure(() => webernetesRank(dated, now), { runs: n > 1000 ? 3 : 10, warmup: n > 1000 ? 0 : 1, budgetMs: 0 });
  // Cross-check: upstream's comparator (webernetes' Less) on replicore's order. It may
  // reverse an adjacent pair only where upstream's comparator is intransitive (replicore
  // then says so with the rule "intransitive").
  const ranked = rankPods(active, { now: NOW });
  const onNode = new Map();
  for (const p of dated) if (webernetes.isPodActive(p)) onNode.set(p.spec?.nodeName ?? "", (onNode.get(p.spec?.nodeName ?? "") ?? 0) + 1);
  const inOurOrder = ranked.map((r) => dated[r.index]);
  const upstream = new webernetes.ActivePodsWithRanks(inOurOrder, inOurOrder.map((p) => onNode.get(p.spec?.nodeName ?? "") ?? 0), now);
  let reversed = 0;
  let unexplained = 0;
  for (let i = 0; i + 1 < inOurOrder.length; i++) {
    if (upstream.less(i + 1, i) && !upstream.less(i, i + 1)) {
      reversed++;
      if (ranked[i].rule !== "intransitive") unexplained++;
    }
  }
  results[`replicore.rankPods/${label(n)}`] = r.median;
  results[`webernetes.rank/${label(n)}`] = w.median;
  log(line(`replicore rankPods/${label(n)} (${active.length} pods)`, r));
  log(line(`webernetes rank/${label(n)}`, w));
  rows.push({ n: label(n), ratio: w.median / r.median, pairs: inOurOrder.length - 1, reversed, unexplained });
}
for (const { n, ratio, pairs, reversed, unexplained } of rows) {
  log(
    `${n}: replicore is ${ratio.toFixed(1)}× faster; upstream's comparator (webernetes) reverses ${reversed} of ${pairs} adjacent pairs of replicore's order, ${unexplained} outside intransitive groups`,
  );
  if (unexplained > 0) process.exitCode = 1;
}
if (json) console.log(JSON.stringify(results, null, 2));
