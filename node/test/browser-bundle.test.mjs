// The engine package is browser-safe: esbuild bundles `import { plan } from "replicore"`
// (and the full, explain and sim entries) for the browser, and the bundle's module list holds no
// @kubernetes/client-node, no prom-client and no Node built-in (`node:fs`, `fs`, …). The
// same check over replicore-tools' CLI (tools/src/cli.ts), which does pull them in, finds
// them: the check can fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { repo } from "./helpers.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const NODE_ONLY_PACKAGES = ["@kubernetes/client-node", "prom-client"];

/**
 * The metafile of a browser bundle of `contents` (a module resolved from `resolveDir`) or
 * of the file `entry`. The Node-only modules are left external, so that each import of one
 * is in the module list (`inputs[…].imports`) instead of failing the build.
 */
async function browserBundle({ contents, entry, external = [] }) {
  const r = await build({
    ...(entry ? { entryPoints: [entry] } : { stdin: { contents, resolveDir: here, loader: "js" } }),
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    target: "esnext",
    metafile: true,
    logLevel: "silent",
    absWorkingDir: repo,
    external: ["node:*", ...builtinModules, ...NODE_ONLY_PACKAGES, ...external],
  });
  return r.metafile;
}

const isNodeOnly = (path) =>
  path.startsWith("node:") ||
  builtinModules.includes(path) ||
  NODE_ONLY_PACKAGES.some((p) => path === p || path.startsWith(`${p}/`) || path.includes(`node_modules/${p}/`));

/** Every Node-only module in a bundle's module list: `importer → import`, or a bundled file. */
function nodeOnlyModules(metafile) {
  const found = [];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (isNodeOnly(input)) found.push(input);
    for (const i of imports) if (isNodeOnly(i.path)) found.push(`${input} → ${i.path}`);
  }
  return found;
}

const inputs = (metafile) => Object.keys(metafile.inputs);

test('the browser bundle of `import { plan } from "replicore"` holds no Node-only module', async () => {
  const meta = await browserBundle({ contents: 'import { plan } from "replicore";\nconsole.log(plan);\n' });
  // The browser entry and the engine's wasm glue are bundled (the module list is the package's) …
  assert.ok(inputs(meta).some((p) => p.endsWith("node/dist/browser.js")), inputs(meta).join("\n"));
  assert.ok(inputs(meta).some((p) => p.endsWith("node/dist/wasm/replicore_wasm.js")), inputs(meta).join("\n"));
  // … and the full module's is not: an engine-only page loads the engine alone.
  assert.ok(!inputs(meta).some((p) => p.includes("wasm-full")), inputs(meta).join("\n"));
  assert.deepEqual(nodeOnlyModules(meta), []);
});

test("the browser bundles of replicore/full, replicore/explain and replicore/sim hold the full module's glue and no Node-only module", async () => {
  for (const entry of ["replicore/full", "replicore/explain", "replicore/sim"]) {
    const meta = await browserBundle({ contents: `import * as m from "${entry}";\nconsole.log(m);\n` });
    assert.ok(inputs(meta).some((p) => p.endsWith("node/dist/wasm-full/replicore_full.js")), `${entry}: ${inputs(meta).join("\n")}`);
    assert.ok(!inputs(meta).some((p) => p.endsWith("node/dist/wasm/replicore_wasm.js")), `${entry}: ${inputs(meta).join("\n")}`);
    assert.deepEqual(nodeOnlyModules(meta), [], entry);
  }
});

test("the same check finds @kubernetes/client-node, prom-client and node: in replicore-tools' CLI", async () => {
  // replicore/judge (for `replicore conform`) has a Node entry only: left out here.
  const meta = await browserBundle({ entry: "tools/src/cli.ts", external: ["replicore/judge"] });
  const found = nodeOnlyModules(meta);
  assert.ok(found.some((f) => f.endsWith("→ @kubernetes/client-node")), found.join("\n"));
  assert.ok(found.some((f) => f.endsWith("→ prom-client")), found.join("\n"));
  assert.ok(found.some((f) => / → node:/.test(f)), found.join("\n"));
  // It reaches the engine through the package, as the browser would.
  assert.ok(inputs(meta).some((p) => p.endsWith("node/dist/browser.js")), inputs(meta).join("\n"));
});
