// The package in bundler-built web pages: Vite builds test/bundler (importing "replicore"
// by name, which resolves to the browser entry) and test/bundler-full (importing
// "replicore/full", "replicore/explain" and "replicore/sim"), a local server serves each on
// 127.0.0.1, and Debian's headless Chromium runs it. Each page ships one .wasm: the
// engine's, or the full module's, built for size.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("./bundler/", import.meta.url));
const fullRoot = fileURLToPath(new URL("./bundler-full/", import.meta.url));
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };

/** Builds the page in `root` with Vite into a temporary folder; resolves to { outDir, wasm } (the emitted .wasm files). */
async function bundle(root) {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "replicore-bundle-"));
  await build({ root, logLevel: "error", build: { outDir, target: "esnext", emptyOutDir: true } });
  return { outDir, wasm: readdirSync(join(outDir, "assets")).filter((f) => f.endsWith(".wasm")) };
}

/** Serves `outDir` on 127.0.0.1 and runs its page in headless Chromium: the text of `#out` once the page settled. */
async function runPage(outDir) {
  const server = createServer((req, res) => {
    const path = normalize(join(outDir, decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/\/$/, "/index.html")));
    if (!path.startsWith(outDir) || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  try {
    const profile = mkdtempSync(join(tmpdir(), "replicore-chromium-"));
    const run = () =>
      new Promise((ok) => {
        // Asynchronous: a synchronous spawn would block the server on this event loop.
        import("node:child_process").then(({ spawn }) => {
          const child = spawn(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--disable-sync", `--user-data-dir=${profile}`, "--virtual-time-budget=10000",
            "--dump-dom", `http://127.0.0.1:${port}/`,
          ]);
          let out = "";
          child.stdout.on("data", (d) => (out += d));
          child.on("close", () => ok(out));
        });
      });
    const dom = await run();
    rmSync(profile, { recursive: true, force: true });
    const text = /<pre id="out">([\s\S]*?)<\/pre>/.exec(dom)?.[1] ?? dom;
    assert.ok(!text.startsWith("FAILED") && text !== "loading", text);
    return JSON.parse(text.replaceAll("&quot;", '"'));
  } finally {
    server.close();
  }
}

const skip = chromium ? false : "no Chromium installed";

test("a Vite-built page imports the package and runs it in headless Chromium", { skip }, async () => {
  const { outDir, wasm } = await bundle(root);
  try {
    // The page ships the engine's build for size alone: not the Node entry's build for
    // speed, and not the full module.
    assert.equal(wasm.length, 1, wasm.join(" "));
    assert.match(wasm[0], /^replicore_wasm_small_bg/);
    const got = await runPage(outDir);
    assert.equal(got.action, "create");
    assert.deepEqual(got.batches, [1, 2]);
    assert.deepEqual(got.order, ["c", "b", "a"]);
    assert.equal(got.error, "MALFORMED now");
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

test("a page importing replicore/full, replicore/explain and replicore/sim ships and runs one module, the full one's size build", { skip }, async () => {
  const { outDir, wasm } = await bundle(fullRoot);
  try {
    assert.equal(wasm.length, 1, wasm.join(" "));
    assert.match(wasm[0], /^replicore_full_small_bg/);
    assert.deepEqual(await runPage(outDir), { action: "create", owners: 1, pods: 2, memory: true });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
