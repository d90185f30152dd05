// Shared by the tests of replicore-tools: where things are, and running the built CLI
// (tools/dist/cli.js).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/** Runs a command without blocking this event loop (a dev-server in this process answers
 * on it): {status, stdout, stderr}. */
export function runAsync(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, timeout: 60000 });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Writes a kubeconfig for the dev-server at `url` (namespace shop), as its
 * --kubeconfig-out writes it (client-node wants the TLS flag for http), in a new temporary
 * folder; returns {dir, kubeconfig}. */
export function devKubeconfig(url, prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "dev", cluster: { server: url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "dev", user: {} }],
      contexts: [{ name: "dev", context: { cluster: "dev", user: "dev", namespace: "shop" } }],
      "current-context": "dev",
    }),
  );
  return { dir, kubeconfig };
}
