// Shared by the tests of replicore-tools: where things are, and running the built CLI
// (tools/dist/cli.js).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { repo } from "../../node/test/helpers.mjs";

// Where things are, the example cluster and the seeded PRNG: the engine package's test
// helpers, shared.
export { repo, clusterFile, vectorsDir, NOW, cluster, prng } from "../../node/test/helpers.mjs";

export const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

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
