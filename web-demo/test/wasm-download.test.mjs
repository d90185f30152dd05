// The wasm the playground downloads, measured as a browser fetches it: Playwright records
// every response that carries WebAssembly (network events, from the first request on)
// while the page loads and each tab is opened, and each body is gzipped at level 9
// (node:zlib), as a server would send it. The page loads one module, `replicore/playground`
// (the full module's engine, explain report and simulator, less the exports the page does
// not call), where it used to load three that each carried the whole engine: 1,182,151 B
// after gzip -9 (engine 335,848, explain 385,886, simulator 460,417). The total must stay
// at most half of that. The figure is printed; docs/performance.md quotes it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { basename } from "node:path";
import { gzipSync } from "node:zlib";
import { chromiumPath, openPage, startPlayground } from "./harness.mjs";

/**
 * Half of the three modules' 1,182,151 B: issue 24's target. The one-module page met it at
 * 498,888 B; the autoscaler (its sync, explanation, forecast and simulator share) took the
 * full module to 689,152 B, above it; the playground's module (the full module less the
 * exports the page does not call, node/scripts/build.sh) meets it again.
 * docs/performance.md records the history and where the bytes go.
 */
const LIMIT = 591_075;

let server;
let browser;
let close;

describe("the playground's wasm download", { skip: chromiumPath ? false : "no Chromium installed" }, () => {
  before(async () => {
    ({ server, browser, close } = await startPlayground());
  });
  after(() => close?.());

  test(`the page fetches one wasm module, at most ${LIMIT} B after gzip -9`, async (t) => {
    const page = await openPage(browser, server.url);
    // Every tab, with what it computes (the cluster example explained, the Deployment
    // simulated, rollout.json imported with its forecast, the autoscaling forecast with
    // a sync explained): a module fetched after the first paint counts too.
    await page.click("#tab-import");
    await page.click("#import-example");
    await page.click("#tab-deploy");
    await page.selectOption("#dep-source", "import");
    await page.waitForSelector("[data-testid=forecast]");
    await page.click("#tab-hpa");
    await page.waitForSelector("[data-testid=hpa-explanation]");
    await page.click("#tab-sim");
    await page.waitForLoadState("networkidle");
    const fetched = [];
    for (const r of page.wasm) {
      const body = await r.body();
      fetched.push({ file: basename(new URL(r.url()).pathname), raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
    }
    const total = fetched.reduce((sum, f) => sum + f.gzip, 0);
    const lines = fetched.map((f) => `${f.file}: ${f.raw} B raw, ${f.gzip} B gzip -9`);
    const figure = `the page fetches ${fetched.length} wasm module(s), ${total} B after gzip -9 (limit ${LIMIT} B): ${lines.join("; ")}`;
    t.diagnostic(figure);
    assert.deepEqual(page.problems, []);
    assert.equal(fetched.length, 1, figure);
    assert.match(fetched[0].file, /^replicore_playground_bg\b/, figure);
    assert.ok(total <= LIMIT, figure);
    await page.context().close();
  });
});
