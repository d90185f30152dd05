// Shared by the playground tests: build the page with Vite, serve it on 127.0.0.1, drive
// Debian's Chromium with playwright-core (never a downloaded browser), take screenshots.
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

export const webDemo = fileURLToPath(new URL("../", import.meta.url));
export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const shots = join(repo, "target", "playground-screenshots");
export const chromiumPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};

/** Builds the page into a temporary folder (the same config as `npm run build`). */
export async function buildPage() {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "replicore-playground-"));
  await build({ root: webDemo, configFile: join(webDemo, "vite.config.ts"), logLevel: "error", build: { outDir, emptyOutDir: true } });
  return outDir;
}

/**
 * The page built (`buildPage`), served (`serve`) and a Chromium launched (`launch`):
 * `{ server, browser, close }`, where `close()` ends all three and removes the build.
 */
export async function startPlayground() {
  const outDir = await buildPage();
  let server;
  try {
    server = await serve(outDir);
    const browser = await launch();
    const close = async () => {
      await browser.close();
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    };
    return { server, browser, close };
  } catch (e) {
    await server?.close();
    rmSync(outDir, { recursive: true, force: true });
    throw e;
  }
}

/** A static server of `dir` on 127.0.0.1 (a free port); resolves to { url, close }. */
export async function serve(dir) {
  const server = createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/\/$/, "/index.html");
    const path = normalize(join(dir, rel));
    if (!path.startsWith(dir) || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

export async function launch() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
      "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}

/**
 * A page at a laptop's size (1366×768) that records console errors, uncaught exceptions
 * and failed requests in `page.problems`, and the responses that carry WebAssembly (by
 * content type or a `.wasm` path) in `page.wasm`, from the first request on.
 */
export async function openPage(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  page.problems = [];
  page.wasm = [];
  page.on("response", (r) => {
    if (r.headers()["content-type"] === "application/wasm" || new URL(r.url()).pathname.endsWith(".wasm")) page.wasm.push(r);
  });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") page.problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => page.problems.push(`uncaught: ${e.message}`));
  page.on("requestfailed", (r) => page.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) page.problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  return page;
}

let shot = 0;
/** Saves a screenshot of the viewport as target/playground-screenshots/NN-name.png. */
export async function screenshot(page, name, { fullPage = false } = {}) {
  mkdirSync(shots, { recursive: true });
  shot += 1;
  const file = join(shots, `${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

export function cleanShots() {
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
}

/** The page state in a URL (`#s=` deflate-raw base64url, or `#json=`), decoded as the page does. */
export function decodeHash(url) {
  const hash = new URL(url).hash.replace(/^#/, "");
  if (hash.startsWith("s=")) {
    const b64 = hash.slice(2).replaceAll("-", "+").replaceAll("_", "/");
    return JSON.parse(inflateRawSync(Buffer.from(b64, "base64")).toString("utf8"));
  }
  if (hash.startsWith("json=")) return JSON.parse(decodeURIComponent(hash.slice(5)));
  throw new Error(`no state in ${url}`);
}

/** A `#json=` URL for a page state. */
export function stateUrl(base, state) {
  return `${base}#json=${encodeURIComponent(JSON.stringify({ v: 1, ...state }))}`;
}

/** The names in the ranking table of a panel, in order. */
export function rankingOf(page, panel) {
  return page.$$eval(`#${panel} [data-testid=ranking] tbody tr`, (rows) => rows.map((r) => r.dataset.pod));
}
