// The package in a bundler-built web page: Vite builds test/bundler (importing
// "replicore" by name, which resolves to the browser entry), a local server serves it on
// 127.0.0.1, and Debian's headless Chromium runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("./bundler/", import.meta.url));
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };

test("a Vite-built page imports the package and runs it in headless Chromium", { skip: chromium ? false : "no Chromium installed" }, async () => {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "replicore-bundle-"));
  try {
    await build({ root, logLevel: "error", build: { outDir, target: "esnext", emptyOutDir: true } });
    // The page ships the engine's build for size, not the Node entry's build for speed.
    const assets = readdirSync(join(outDir, "assets"));
    assert.ok(assets.some((f) => f.startsWith("replicore_wasm_small_bg")), assets.join(" "));
    assert.ok(!assets.some((f) => f.startsWith("replicore_wasm_bg")), assets.join(" "));
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
      const got = JSON.parse(text.replaceAll("&quot;", '"'));
      assert.equal(got.action, "create");
      assert.deepEqual(got.batches, [1, 2]);
      assert.deepEqual(got.order, ["c", "b", "a"]);
      assert.equal(got.error, "MALFORMED now");
    } finally {
      server.close();
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
