// The playground's Autoscaling tab in headless Chromium (playwright-core driving Debian's
// /usr/bin/chromium): a step in load scales up within the scale-up policy per period and
// never above max; a drop scales down only once the stabilization window has passed; the
// page's syncs are the engine's forecast (`hpaForecast` in Node on the same input) and
// each sync's "why" is the engine's; a dragged load point changes the forecast; a rollout
// started at a sync is the forecast's rollout; an imported HPA shows the pod without
// metrics as assumed, and why; a shared URL restores the view; no console errors.
// Screenshots go to target/playground-screenshots/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Simulator, explainHpa, hpaForecast } from "replicore/full";
import { chromiumPath, decodeHash, openPage, repo, screenshot, startPlayground, stateUrl } from "./harness.mjs";

const START = "2026-01-01T00:00:00Z";

let server;
let browser;
let close;

/** A tab scenario (the page's `HpaScenario`): min 2, max 12, CPU at 50 %, the given load and behavior. */
function scenario(over = {}) {
  return {
    min: 2,
    max: 12,
    target: 50,
    tolerance: 0.1,
    up: { window: 0, select: "Max", policies: [{ type: "Pods", value: 3, period: 60 }], tolerance: null },
    down: { window: 300, select: "Max", policies: [{ type: "Percent", value: 100, period: 15 }], tolerance: null },
    pods: { runningSeconds: 5, readySeconds: 30, startupCpu: 1 },
    initial: 4,
    duration: 900,
    seed: 5,
    load: { kind: "step", from: 4, to: 40, atSeconds: 60 },
    ...over,
  };
}

/** The same scenario as the engine's forecast input, written here by hand (as `kubectl get hpa -o json` prints an HPA). */
function engineInput(sc, explainAtSeconds) {
  const rules = (r) => ({
    stabilizationWindowSeconds: r.window,
    selectPolicy: r.select,
    policies: r.policies.map((p) => ({ type: p.type, value: p.value, periodSeconds: p.period })),
    ...(r.tolerance === null ? {} : { tolerance: String(r.tolerance) }),
  });
  return {
    start: START,
    hpa: {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "default" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: sc.min,
        maxReplicas: sc.max,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: sc.target } } }],
        behavior: { scaleUp: rules(sc.up), scaleDown: rules(sc.down) },
      },
    },
    config: { tolerance: sc.tolerance },
    load: sc.load,
    pods: { createDelaySeconds: 0, ...sc.pods },
    initialReplicas: sc.initial,
    durationSeconds: sc.duration,
    seed: sc.seed,
    ...(sc.rollout ? { rollout: sc.rollout } : {}),
    ...(explainAtSeconds === undefined ? {} : { explainAtSeconds }),
  };
}

/** The same scenario in the seeded simulator, written here by hand: Deployment web settled, kubelets as the pod model. */
function simScenario(sc) {
  const input = engineInput(sc);
  return {
    seed: sc.seed,
    delays: { watch: 0, schedule: 0, start: sc.pods.runningSeconds * 1000, ready: (sc.pods.readySeconds - sc.pods.runningSeconds) * 1000, terminate: 0 },
    deployment: { replicas: sc.initial, settled: true },
    hpa: { hpa: input.hpa, config: input.config, load: sc.load, pods: { startupCpu: sc.pods.startupCpu } },
  };
}

/** The syncs table, once the run beside the forecast has been played. */
async function syncs(page) {
  await page.waitForSelector("[data-testid=hpa-run]:not([data-run-pending])");
  return page.$$eval("[data-testid=hpa-syncs] tbody tr", (rows) => rows.map((r) => ({
    seconds: Number(r.dataset.seconds),
    desired: Number(r.dataset.desired),
    replicas: Number(r.dataset.replicas),
    ready: Number(r.dataset.ready),
    rescaled: r.dataset.rescaled === "" ? null : Number(r.dataset.rescaled),
    limited: r.dataset.limited,
  })));
}

function stepsOf(f) {
  return f.steps.map((s) => ({
    seconds: s.seconds, desired: s.desiredReplicas, replicas: s.replicas, ready: s.readyPods, rescaled: s.rescaledTo ?? null, limited: s.limitedBy ?? "",
  }));
}

async function explanation(page, scope = "#hpa-why") {
  return page.$eval(`${scope} [data-testid=hpa-explanation]`, (d) => ({ ...d.dataset, text: d.querySelector("[data-testid=hpa-why]").textContent }));
}

async function choose(page, seconds) {
  await page.click(`[data-key="hpa-sync-${seconds}"]`);
  await page.waitForSelector(`#hpa-at:text("sync at ${seconds} s")`);
}

/** Types into a control and lets it announce the change (as leaving the field does). */
async function setField(page, sel, value) {
  await page.fill(sel, String(value));
  await page.$eval(sel, (el) => el.dispatchEvent(new Event("change", { bubbles: true })));
}

async function settled(page) {
  await page.waitForFunction(() => document.body.dataset.dirty === undefined, null, { timeout: 5000 });
}

describe("playground: the Autoscaling tab", { skip: chromiumPath ? false : "no Chromium installed" }, () => {
  before(async () => {
    ({ server, browser, close } = await startPlayground());
  });
  after(() => close?.());

  test("a step in load scales up within the policy's limit per period and never above max", async () => {
    const page = await openPage(browser, server.url);
    await page.click("#tab-hpa");
    await page.waitForSelector("[data-testid=hpa-summary]");
    // The controls: a step from 4 to 40 pods at 60 s, max 12, scale-up Pods 3 per 60 s.
    const sc = scenario();
    await page.selectOption("#hpa-preset", "step");
    await setField(page, "#hpa-load-from", 4);
    await setField(page, "#hpa-load-to", 40);
    await setField(page, "#hpa-load-atSeconds", 60);
    for (const [sel, v] of [["#hpa-min", 2], ["#hpa-max", 12], ["#hpa-target", 50], ["#hpa-initial", 4], ["#hpa-duration", 900], ["#hpa-seed", 5], ["#hpa-up-window", 0]]) {
      await setField(page, sel, v);
    }
    await setField(page, "#hpa-up-policies [data-policy='0'] [data-field=value]", 3);
    await setField(page, "#hpa-up-policies [data-policy='0'] [data-field=period]", 60);
    const rows = await syncs(page);
    // The page shows the engine's forecast of the same HPA, load and pods.
    assert.deepEqual(rows, stepsOf(hpaForecast(engineInput(sc))));
    const ups = [];
    let before = sc.initial;
    for (const r of rows) {
      assert.ok(r.replicas <= 12 && r.desired <= 12, `never above max: ${JSON.stringify(r)}`);
      if (r.rescaled !== null) {
        if (r.rescaled > before) ups.push({ t: r.seconds, by: r.rescaled - before });
        before = r.rescaled;
      }
    }
    assert.equal(ups[0]?.t, 60, "the first sync after the step scales up");
    for (const u of ups) {
      const within = ups.filter((x) => x.t > u.t - 60 && x.t <= u.t).reduce((a, x) => a + x.by, 0);
      assert.ok(within <= 3, `at most 3 pods added in the 60 s to ${u.t} s: ${JSON.stringify(ups)}`);
    }
    assert.equal(rows.at(-1).replicas, 12, "capacity stops at max");
    // A sync the policy held back, explained by the engine: its bound is the limiting policy's.
    const held = rows.find((r) => r.limited === "ScaleUpLimit");
    assert.ok(held, `some sync is held back by the policy: ${JSON.stringify(rows)}`);
    await choose(page, held.seconds);
    const e = await explanation(page);
    const engine = hpaForecast(engineInput(sc, held.seconds)).explanation;
    assert.equal(e.text, engine.text, "the why is the engine's text");
    assert.equal(e.limit, "ScaleUpLimit");
    assert.equal(Number(e.desired), held.desired);
    const bound = await page.$eval("[data-testid=hpa-chart] line.policy.limiting", (l) => Number(l.dataset.bound));
    assert.equal(bound, held.desired, "the limiting policy's bound is drawn at the count it allowed");
    // Max holds it later: TooManyReplicas once the load asks for more than 12.
    assert.ok(rows.some((r) => r.limited === "TooManyReplicas"), rows.map((r) => r.limited).join(","));
    const band = await page.$eval("[data-testid=tolerance-band]", (r) => [Number(r.dataset.low), Number(r.dataset.high)]);
    assert.deepEqual(band, [engine.tolerance.low, engine.tolerance.high]);
    await screenshot(page, "autoscaling-step-up", { fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a drop scales down only after the stabilization window", async () => {
    const sc = scenario({ initial: 12, load: { kind: "step", from: 12, to: 3, atSeconds: 120 }, duration: 900 });
    const page = await openPage(browser, stateUrl(server.url, { mode: "hpa", source: "sim", hpa: sc }));
    await page.waitForSelector("[data-testid=hpa-syncs]");
    const rows = await syncs(page);
    assert.deepEqual(rows, stepsOf(hpaForecast(engineInput(sc))));
    const downs = rows.filter((r) => r.rescaled !== null);
    assert.ok(downs.length > 0, "it scales down at last");
    const first = downs[0];
    // The last sync before the drop (105 s) recommended 12; the count goes down at the first
    // sync whose 300 s window no longer holds that recommendation: 405 s.
    const lastHigh = rows.filter((r) => r.seconds < 120).at(-1).seconds;
    assert.equal(lastHigh, 105);
    assert.equal(first.seconds, lastHigh + 300, `no scale-down inside the window, then at once: ${JSON.stringify(downs)}`);
    assert.ok(first.rescaled < 12);
    // Inside the window the engine says why it holds: the stabilized count.
    const inside = rows.find((r) => r.seconds === 240);
    assert.equal(inside.limited, "ScaleDownStabilized");
    await choose(page, 240);
    const e = await explanation(page);
    assert.equal(e.stabilization, "ScaleDownStabilized");
    assert.ok(Number(e.proposal) < Number(e.stabilized), `the proposal ${e.proposal} is held at ${e.stabilized}`);
    assert.equal(e.text, hpaForecast(engineInput(sc, 240)).explanation.text);
    const window = await page.$eval("[data-testid=hpa-chart] rect[data-window=down]", (r) => Number(r.dataset.seconds));
    assert.equal(window, 300, "the window is drawn");
    await screenshot(page, "autoscaling-drop-stabilized", { fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a dragged load point, a rollout at a chosen sync, and the shared URL restoring the view", async () => {
    const sc = scenario({ duration: 600, load: { kind: "points", points: [{ atSeconds: 0, load: 4 }, { atSeconds: 120, load: 4 }, { atSeconds: 180, load: 10 }] } });
    const page = await openPage(browser, stateUrl(server.url, { mode: "hpa", source: "sim", hpa: sc }));
    await page.waitForSelector("[data-testid=hpa-chart] .handle");
    const before = await syncs(page);
    // Drag the last point up (to about 24 pods) with the mouse.
    const handle = page.locator("[data-testid=hpa-chart] .handle[data-point='2']");
    const box = await handle.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y - 60, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => Number(document.querySelector("[data-testid=hpa-chart] .handle[data-point='2']")?.dataset.load) > 10);
    // And one step up with the keyboard.
    await page.focus("[data-testid=hpa-chart] .handle[data-point='2']");
    await page.keyboard.press("ArrowUp");
    await settled(page);
    const state = decodeHash(page.url());
    assert.equal(state.mode, "hpa");
    const dragged = state.hpa.load.points[2];
    assert.ok(dragged.load > 11, `the point moved up: ${JSON.stringify(dragged)}`);
    assert.equal(dragged.atSeconds, 180);
    const after = await syncs(page);
    assert.notDeepEqual(after, before, "the forecast follows the dragged curve");
    assert.deepEqual(after, stepsOf(hpaForecast(engineInput(state.hpa))));
    // A rollout of Deployment/web at the sync at 300 s, 3 surge and 0 unavailable.
    await choose(page, 300);
    await page.fill("#hpa-rollout-surge", "3");
    await page.fill("#hpa-rollout-unavailable", "0");
    await page.click("#hpa-rollout-start");
    await settled(page);
    const withRollout = decodeHash(page.url()).hpa;
    assert.deepEqual(withRollout.rollout, { atSeconds: 300, maxSurge: 3, maxUnavailable: 0 });
    const f = hpaForecast(engineInput(withRollout));
    assert.ok(f.totals.rolloutSeconds > 0, "the rollout completes in the forecast");
    assert.match(await page.textContent("#hpa-rollout-status"), new RegExp(`done ${f.totals.rolloutSeconds} s later`));
    assert.deepEqual(await syncs(page), stepsOf(f));
    assert.ok((await syncs(page)).some((r) => r.seconds > 300 && r.seconds < 300 + f.totals.rolloutSeconds), "syncs during the rollout");
    await screenshot(page, "autoscaling-points-rollout", { fullPage: true });
    // The URL restores the same view: the curve, the rollout, the chosen sync and its why.
    const url = page.url();
    const shown = await syncs(page);
    const why = await explanation(page);
    const again = await openPage(browser, url);
    await again.waitForSelector("#hpa-why [data-testid=hpa-explanation]");
    assert.deepEqual(await syncs(again), shown, `restored from ${url}`);
    assert.deepEqual(await explanation(again), why);
    assert.equal(await again.textContent("#hpa-at"), "sync at 300 s");
    // A link written by hand with only some fields: the rest are the defaults.
    const partial = await openPage(browser, stateUrl(server.url, { mode: "hpa", hpa: { max: 7, load: { kind: "step", from: 2, to: 20, atSeconds: 30 } } }));
    assert.ok((await syncs(partial)).every((r) => r.replicas <= 7));
    assert.equal(await partial.inputValue("#hpa-max"), "7");
    assert.deepEqual(partial.problems, []);
    await partial.context().close();
    assert.deepEqual(again.problems, []);
    await again.context().close();
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("the forecast equals the run on the same seed", async () => {
    for (const seed of [5, 9]) {
      const sc = scenario({ seed, duration: 1200, load: { kind: "spike", base: 4, peak: 30, atSeconds: 60, durationSeconds: 400 } });
      const page = await openPage(browser, stateUrl(server.url, { mode: "hpa", source: "sim", hpa: sc }));
      await page.waitForSelector("[data-testid=hpa-run][data-run-syncs]");
      const run = await page.$eval("[data-testid=hpa-run]", (p) => ({ ...p.dataset, text: p.textContent }));
      const forecast = hpaForecast(engineInput(sc));
      assert.equal(run.runEqual, "true", run.text);
      assert.equal(Number(run.runSyncs), forecast.steps.length);
      assert.equal(Number(run.runSyncs), 81, "a sync every 15 s from 0 to 1200 s");
      // The run the page shows is the simulator's: the same scenario played in Node.
      const sim = new Simulator(simScenario(sc));
      try {
        sim.advance(sc.duration * 1000);
        const steps = sim.hpaSyncs().map((x) => x.step);
        assert.deepEqual(steps, forecast.steps, `seed ${seed}: the run is the forecast, step for step`);
        const shown = await page.$$eval("[data-testid=hpa-syncs] tbody td[data-run-replicas]", (cells) => cells.map((c) => Number(c.dataset.runReplicas)));
        assert.deepEqual(shown, steps.map((x) => x.replicas));
        assert.ok(steps.some((x) => x.rescaledTo !== undefined && x.rescaledTo > 4) && steps.some((x) => x.seconds > 460 && x.rescaledTo !== undefined), "it scaled up and down");
      } finally {
        sim.free();
      }
      assert.ok(await page.$("[data-testid=run-line]"), "the run is drawn beside the forecast");
      if (seed === 5) await screenshot(page, "autoscaling-forecast-equals-run", { fullPage: true });
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });

  test("an imported HPA is explained: the pod without metrics is assumed, and why", async () => {
    const page = await openPage(browser, server.url);
    await page.click("#tab-hpa");
    await page.selectOption("#hpa-source", "import");
    await page.waitForSelector("#hpa-import-why [data-testid=hpa-explanation]");
    const objects = JSON.parse(readFileSync(join(repo, "examples", "hpa.json"), "utf8"));
    const metrics = JSON.parse(readFileSync(join(repo, "examples", "hpa-pod-metrics.json"), "utf8"));
    const engine = explainHpa({ now: "2026-11-27T12:00:00Z", hpa: "shop/web", objects, metrics: [metrics] });
    const e = await explanation(page, "#hpa-import-why");
    assert.equal(e.text, engine.text, "the engine's explanation, as `replicore explain hpa/web` prints it");
    assert.equal(e.desired, "7");
    assert.equal(e.limit, "ScaleUpLimit");
    const pods = await page.$$eval("[data-testid=hpa-pods] tbody tr", (rows) => rows.map((r) => ({ pod: r.dataset.pod, class: r.dataset.class, why: r.cells[r.cells.length - 1].textContent })));
    const missing = pods.find((p) => p.pod === "web-6c9f8d7b5-e5hvn");
    assert.equal(missing?.class, "missing", JSON.stringify(pods));
    assert.match(missing.why, /no cpu sample/);
    assert.equal(pods.find((p) => p.pod === "web-6c9f8d7b5-d2kfp")?.class, "unready");
    assert.match(await page.textContent("[data-testid=hpa-assumed]"), /without a sample: assumed at 0/);
    const conditions = await page.$$eval("#hpa-import-conditions [data-testid=conditions] tbody tr", (rows) => rows.map((r) => `${r.dataset.type}:${r.dataset.reason}`));
    assert.ok(conditions.includes("ScalingLimited:ScaleUpLimit"), conditions.join(", "));
    await screenshot(page, "autoscaling-imported", { fullPage: true });
    // A bad metrics answer is the engine's error, with its path; the URL keeps the import.
    await settled(page);
    const again = await openPage(browser, page.url());
    assert.equal((await explanation(again, "#hpa-import-why")).text, engine.text);
    await again.context().close();
    await page.$eval("#hpa-import-metrics", (el) => (el.value = "{not json"));
    await page.click("#hpa-import-run");
    assert.match(await page.textContent("#hpa-error"), /the pod metrics are not JSON/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
