// Shared by the tests of replicore-tools: where things are, and running the built CLI
// (tools/dist/cli.js).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const clusterFile = `${repo}examples/cluster.json`;
export const vectorsDir = `${repo}tests/conformance/vectors`;
export const NOW = "2026-11-21T05:00:00Z";

export function cluster() {
  return JSON.parse(readFileSync(clusterFile, "utf8"));
}

/** Runs `replicore ARGS` (dist/cli.js) to completion: {status, stdout, stderr}. */
export function run(args, { input = "", cwd = repo } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], { input, cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A failure as the CLI must report it: one line `replicore: …` on stderr, no stack, nothing on stdout. */
export function assertOneLineError(r, { status, match }) {
  assert.equal(r.stdout, "", "nothing on stdout");
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  const [line] = lines;
  assert.match(line, /^replicore: /);
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  if (match) assert.match(line, match);
  if (status === undefined) assert.notEqual(r.status, 0);
  else assert.equal(r.status, status);
  return line;
}

/** The controller reference of an object, if any. */
export function controllerOf(o) {
  return (o.metadata?.ownerReferences ?? []).find((r) => r.controller);
}

/** mulberry32: a small seeded PRNG, so a run is replayed by its seed. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
