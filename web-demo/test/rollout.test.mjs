// The playground's Deployment view in headless Chromium (playwright-core driving Debian's
// /usr/bin/chromium): a 25%/25% rollout of 10 replicas stays inside its band (≤ 13 pods,
// ≥ 8 available) as the page shows it, a maxUnavailable 0 rollout of a failing template
// stalls with ProgressDeadlineExceeded, undo returns to the previous ReplicaSet, the
// engine's forecast equals the simulated run, a shared URL restores the view, and the
// imported examples/rollout.json shows its lanes, band, conditions and forecast.
// Screenshots go to target/playground-screenshots/ (this file runs after
// playground.test.mjs, which empties that folder).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "replicore/full";
import { chromiumPath, openPage, screenshot, startPlayground } from "./harness.mjs";

const hasSim = (() => {
  try {
    new Simulator({ seed: 0, replicas: 0, nodes: 1 }).free();
    return true;
  } catch {
    return false;
  }
})();

let server;
let browser;
let close;

/** The Deployment tab with these settings, restarted, run until the first rollout settled. */
async function deployment(settings = {}) {
  const page = await openPage(browser, server.url);
  await page.click("#tab-deploy");
  await page.waitForSelector("[data-testid=dep-summary]");
  const fields = {
    "#dep-replicas": settings.replicas ?? 10,
    "#dep-surge": settings.maxSurge ?? "25%",
    "#dep-unavailable": settings.maxUnavailable ?? "25%",
    "#dep-deadline": settings.progressDeadlineSeconds ?? 600,
    "#dep-seed": settings.seed ?? 1,
    "#dep-startup": settings.startup ?? 10,
  };
  for (const [sel, v] of Object.entries(fields)) await page.fill(sel, String(v));
  await page.selectOption("#dep-strategy", settings.strategy ?? "RollingUpdate");
  await page.fill("#dep-minready", String(settings.minReadySeconds ?? 0));
  await page.click("#dep-restart");
  await settle(page);
  return page;
}

async function settle(page) {
  await page.click("#dep-settle");
}

async function summary(page) {
  return page.$eval("[data-testid=dep-summary]", (p) => ({ ...p.dataset }));
}

async function lanes(page) {
  return page.$$eval("[data-testid=lanes] tbody tr", (rows) => rows.map((r) => ({
    name: r.dataset.rs,
    new: r.dataset.new === "true",
    revision: r.dataset.revision,
    cells: [...r.querySelectorAll("td")].map((td) => td.textContent),
  })));
}

async function forecast(page) {
  return page.$eval("[data-testid=forecast]", (d) => ({ ...d.dataset }));
}

describe("playground: the Deployment view", { skip: !chromiumPath ? "no Chromium installed" : !hasSim ? "no simulator in this build" : false }, () => {
  before(async () => {
    ({ server, browser, close } = await startPlayground());
  });
  after(() => close?.());

  test("a 25%/25% rollout of 10 replicas never exceeds 13 pods and never drops below 8 available", async () => {
    const page = await deployment();
    let s = await summary(page);
    assert.equal(s.complete, "true");
    assert.equal(s.maxPods, "13");
    assert.equal(s.minAvailable, "8");
    await page.fill("#dep-image", "web:v2");
    await page.click("#dep-set-image");
    // 5× (about 8 s of wall time): enough readings on a loaded machine that draws few frames.
    await page.selectOption("#dep-speed", "5");
    await page.click("#dep-play");
    // What the page shows while the rollout plays …
    const seen = [];
    const until = Date.now() + 90_000; // a loaded machine draws few frames: bounded by time, not by readings
    while (Date.now() < until) {
      s = await summary(page);
      seen.push({ pods: Number(s.pods), available: Number(s.available) });
      const l = await lanes(page);
      if (s.complete === "true" && l.length === 2) break;
      await page.waitForTimeout(50);
    }
    await page.click("#dep-play");
    const story = `${seen.length} readings: ${seen.map((x) => `${x.pods}/${x.available}`).join(" ")}; last ${JSON.stringify(s)}`;
    assert.equal(s.complete, "true", `the rollout completed (${story})`);
    assert.ok(seen.length > 5, `the page was read while the rollout ran (${story})`);
    assert.ok(seen.some((x) => x.pods > 10), `the rollout surged above 10 pods at some reading (${story})`);
    for (const x of seen) {
      assert.ok(x.pods <= 13, `at most 13 pods: ${JSON.stringify(x)}`);
      assert.ok(x.available >= 8, `at least 8 available: ${JSON.stringify(x)}`);
    }
    // … and over every sample of the run since the image changed (the simulator's history).
    assert.equal(s.peakPods, "13", story);
    assert.ok(Number(s.fewestAvailable) >= 8, story);
    const l = await lanes(page);
    assert.deepEqual(l.map((x) => [x.new, x.cells[2], x.cells[3]]), [[false, "web:v1", "0"], [true, "web:v2", "10"]]);
    const rules = await page.$$eval("[data-testid=dep-syncs] tbody tr", (rows) => rows.map((r) => r.dataset.rule));
    assert.ok(rules.length > 3 && rules.every((r) => /^D-\d+/.test(r)), `every sync names its rule: ${rules.join(" | ")}`);
    assert.ok(await page.$("[data-testid=dep-events] [data-reason=ScalingReplicaSet]"), "the ScalingReplicaSet events are listed");
    await screenshot(page, "deployment-rollout-25-25", { fullPage: true });
    assert.deepEqual(page.problems, []);

    // The URL holds the state: a new page at it shows the same lanes.
    await page.waitForFunction(() => document.body.dataset.dirty === undefined, null, { timeout: 5000 });
    const url = page.url();
    const again = await openPage(browser, url);
    assert.deepEqual(await lanes(again), l, `restored from ${url}`);
    assert.deepEqual((await summary(again)).peakPods, "13");
    await again.context().close();
    await page.context().close();
  });

  test("a maxUnavailable 0 rollout of a failing template stalls with ProgressDeadlineExceeded", async () => {
    const page = await deployment({ replicas: 4, maxSurge: "1", maxUnavailable: "0", progressDeadlineSeconds: 30 });
    const before = await lanes(page);
    await page.fill("#dep-image", "web:broken");
    await page.check("#dep-image-fails");
    await page.click("#dep-set-image");
    await settle(page);
    const reason = await page.$eval("[data-testid=conditions] tr[data-type=Progressing]", (r) => r.dataset.reason);
    assert.equal(reason, "ProgressDeadlineExceeded");
    const s = await summary(page);
    assert.equal(s.progressing, "ProgressDeadlineExceeded");
    assert.equal(s.complete, "false");
    assert.equal(s.available, "4", "no old pod went (maxUnavailable 0)");
    assert.ok(Number(s.peakPods) <= 5, `at most 4 + 1 pods: ${s.peakPods}`);
    assert.equal(s.fewestAvailable, "4");
    const l = await lanes(page);
    const old = l.find((x) => x.name === before[0].name);
    assert.equal(old?.cells[3], "4", "the old ReplicaSet keeps its 4 replicas");
    assert.deepEqual(l.find((x) => x.new)?.cells.slice(3), ["1", "1", "0", "0"], "one surge pod, never ready");
    // (No event for the deadline, as upstream: the condition says it.)
    assert.match(await page.$eval("[data-testid=conditions] tr[data-type=Progressing]", (r) => r.textContent), /has timed out progressing/);
    const f = await forecast(page);
    assert.equal(f.forecastEnd, "stalled");
    assert.equal(f.forecastReason, "ProgressDeadlineExceeded");
    await screenshot(page, "deployment-failing-template-stalls", { fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("undo returns to the previous ReplicaSet", async () => {
    const page = await deployment({ replicas: 3 });
    const first = (await lanes(page))[0];
    assert.equal(first.cells[2], "web:v1");
    await page.fill("#dep-image", "web:v2");
    await page.click("#dep-set-image");
    await settle(page);
    let l = await lanes(page);
    assert.equal(l.find((x) => x.new)?.cells[2], "web:v2");
    const options = await page.$$eval("#dep-undo-rev option", (os) => os.map((o) => o.value));
    assert.deepEqual(options, ["", first.revision], "undo offers the previous revision");
    await page.selectOption("#dep-undo-rev", first.revision);
    await page.click("#dep-undo");
    await settle(page);
    l = await lanes(page);
    const now = l.find((x) => x.new);
    assert.equal(now?.name, first.name, "the first ReplicaSet is the new one again");
    assert.equal(now?.cells[2], "web:v1");
    assert.equal(now?.cells[3], "3");
    assert.equal(now?.revision, "3", "its revision moved on to 3");
    assert.equal(l.find((x) => !x.new)?.cells[3], "0");
    const s = await summary(page);
    assert.equal(s.complete, "true");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  const runs = [
    { maxSurge: "25%", maxUnavailable: "25%" },
    { maxSurge: "1", maxUnavailable: "0" },
    { maxSurge: "0", maxUnavailable: "3" },
    { maxSurge: "30%", maxUnavailable: "10%", minReadySeconds: 5 },
    { strategy: "Recreate" },
  ];
  for (const settings of runs) {
    const surge = settings.maxSurge ?? "";
    const name = Object.entries(settings).map(([k, v]) => `${k} ${v}`).join(", ");
    test(`the forecast equals the simulated run on the same seed (${name})`, async () => {
      const page = await deployment({ replicas: 10, seed: 31, ...settings });
      await page.fill("#dep-image", "web:v2");
      await page.click("#dep-set-image");
      await settle(page);
      const f = await forecast(page);
      assert.equal(f.forecastEnd, "complete");
      assert.ok(Number(f.forecastSeconds) > 0);
      assert.equal(f.runSeconds, f.forecastSeconds, "total time");
      assert.equal(f.runPeak, f.forecastPeak, "peak pods");
      assert.equal(f.runMinAvailable, f.forecastMinAvailable, "fewest available");
      assert.deepEqual([f.runNew, f.runOld], [f.forecastNew, f.forecastOld], "final replicas (new, old)");
      assert.deepEqual([f.runNew, f.runOld], ["10", "0"]);
      if (surge === "25%") await screenshot(page, "deployment-forecast-equals-run", { fullPage: true });
      assert.deepEqual(page.problems, []);
      await page.context().close();
    });
  }

  test("an imported kubectl get deploy,rs,pods -o json shows its lanes, band, conditions and forecast", async () => {
    const page = await openPage(browser, server.url);
    await page.click("#tab-deploy");
    await page.selectOption("#dep-source", "import");
    await page.waitForSelector("[data-testid=forecast]");
    const s = await summary(page);
    assert.equal(s.replicas, "10");
    assert.equal(s.maxPods, "13");
    assert.equal(s.minAvailable, "8");
    const l = await lanes(page);
    assert.equal(l.length, 4, "the four ReplicaSets of examples/rollout.json");
    assert.equal(l.filter((x) => x.new).length, 0, "the new template has no ReplicaSet yet");
    assert.deepEqual(l.map((x) => x.cells[3]), ["0", "0", "0", "10"]);
    const next = await page.$$eval("[data-testid=dep-next-sync] li", (items) => items.map((i) => i.dataset.rule));
    assert.deepEqual(next, ["D-34", "D-71", "D-54", "D-71"], "the next sync's calls with their rules (docs/cli.md)");
    const conditions = await page.$$eval("[data-testid=conditions] tbody tr", (rows) => rows.map((r) => `${r.dataset.type}:${r.dataset.reason}`));
    assert.ok(conditions.includes("Available:MinimumReplicasAvailable"), conditions.join(", "));
    const f = await forecast(page);
    // docs/cli.md's `replicore explain -f examples/rollout.json --forecast`: complete after 30 s, peak 13;
    // it starts from the snapshot's pods, 4 of the old ReplicaSet's crash-looping: 6 available.
    assert.deepEqual([f.forecastEnd, f.forecastSeconds, f.forecastPeak, f.forecastMinAvailable], ["complete", "30", "13", "6"]);
    assert.equal(await page.$$eval("[data-testid=forecast-steps] tbody tr", (r) => r.length), 5);
    await screenshot(page, "deployment-imported", { fullPage: true });
    // The URL restores the imported view.
    await page.waitForFunction(() => document.body.dataset.dirty === undefined, null, { timeout: 5000 });
    const again = await openPage(browser, page.url());
    assert.deepEqual(await lanes(again), l);
    await again.context().close();
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
