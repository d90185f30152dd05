// The playground in headless Chromium (playwright-core driving Debian's /usr/bin/chromium):
// it loads without console errors; scaling 0 → 10 shows slow-start batches 1, 2, 4, 3;
// scaling down deletes the pods the engine ranks first (checked against `rankPods` on the
// same state, replayed from the page's URL); the LogarithmicScaleDown gate changes the
// order where the conformance vectors say it does; the shipped example imports; a shared
// URL restores the same view. Screenshots of each step go to target/playground-screenshots/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Simulator, explain, rankPods } from "replicore/full";
import {
  chromiumPath, cleanShots, decodeHash, openPage, rankingOf, repo, screenshot, startPlayground, stateUrl,
} from "./harness.mjs";

const hasSim = (() => {
  try {
    new Simulator({ seed: 0, replicas: 0, nodes: 1 }).free();
    return true;
  } catch {
    return false;
  }
})();
const noSim = hasSim ? false : "this build of the replicore package has no simulator";
const clusterText = readFileSync(join(repo, "examples", "cluster.json"), "utf8");
const EXAMPLE_NOW = "2026-11-21T05:00:00Z";

let server;
let browser;
let close;

describe("playground", { skip: chromiumPath ? false : "no Chromium installed" }, () => {
  before(async () => {
    cleanShots();
    ({ server, browser, close } = await startPlayground());
  });
  after(() => close?.());

  test("the page loads without console errors", async () => {
    const page = await openPage(browser, server.url);
    // Let it run (or sit) a moment: errors during the first frames count too.
    await page.waitForTimeout(600);
    await screenshot(page, "loaded");
    assert.deepEqual(page.problems, []);
    assert.match(await page.textContent("#version"), /^replicore \d+\.\d+\.\d+/);
    await page.context().close();
  });

  test("import of examples/cluster.json shows its ReplicaSets, what a sync would do, and who would go", async () => {
    const page = await openPage(browser, server.url);
    await page.click("#tab-import");
    await page.click("#import-example");
    const names = await page.$$eval("[data-testid=rs-card]", (cards) => cards.map((c) => c.dataset.rs));
    const list = JSON.parse(clusterText);
    const expected = list.items.filter((i) => i.kind === "ReplicaSet").map((i) => i.metadata.name);
    assert.deepEqual([...names].sort(), [...expected].sort());
    await page.click("[data-testid=rs-card][data-rs=web-7d9f8b6c5d]");
    const ex = explain(list, { now: EXAMPLE_NOW, replicas: 3, owner: "shop/web-7d9f8b6c5d" }).owners[0];
    const full = explain(list, { now: EXAMPLE_NOW, replicas: 0, owner: "shop/web-7d9f8b6c5d" }).owners[0];
    assert.deepEqual(await rankingOf(page, "panel-import"), full.scaleDown.victims.map((v) => v.name));
    assert.match(await page.textContent("#panel-import [data-testid=import-action]"), /^Deletes 2 pods/);
    await page.fill("#import-scale-to", "3");
    const victims = (await page.getAttribute("#import-preview", "data-victims")).split(",");
    assert.deepEqual(victims, ex.scaleDown.victims.map((v) => v.name));
    const marked = await page.$$eval("#panel-import [data-testid=ranking] tr[data-goes=yes]", (r) => r.map((x) => x.dataset.pod));
    assert.deepEqual(marked, victims);
    const doomedPods = await page.$$eval("#import-cluster .pod.doomed", (p) => p.map((x) => x.dataset.pod));
    assert.deepEqual([...doomedPods].sort(), [...victims].sort());
    await screenshot(page, "import-example-scale-to-3");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a bad snapshot gets an error naming what and where, and keeps the text", async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "import", list: clusterText, now: EXAMPLE_NOW }));
    const bad = clusterText.replace('"phase": "Pending"', '"phase": 42');
    // (Set as a paste would: filling 60 KB key by key is slow and proves nothing more.)
    await page.$eval("#import-text", (el, v) => (el.value = v), bad);
    await page.click("#import-run");
    const error = await page.textContent("#import-error");
    assert.match(error, /items\[\d+\]\.status\.phase/, error);
    assert.equal(await page.inputValue("#import-text"), bad, "the pasted text stays");
    await page.fill("#import-text", "{ not json");
    await page.click("#import-run");
    assert.match(await page.textContent("#import-error"), /^Cannot read the JSON: /);
    await page.$eval("#import-text", (el, v) => (el.value = v), clusterText);
    await page.fill("#import-now", "yesterday");
    await page.click("#import-run");
    assert.match(await page.textContent("#import-error"), /^Now: invalid RFC 3339 timestamp "yesterday"/);
    await screenshot(page, "import-bad-now");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a pod edited with the keyboard moves in the ranking", async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "import", list: clusterText, now: EXAMPLE_NOW, rs: "shop/web-7d9f8b6c5d" }));
    const before = await rankingOf(page, "panel-import");
    const pod = "web-7d9f8b6c5d-x4n6p";
    assert.ok(before.indexOf(pod) > before.indexOf("web-7d9f8b6c5d-c9w4t"), "starts after the pod of cost -100");
    await page.focus(`#import-cluster button[data-pod=${pod}]`);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#pod-editor[open]");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "edit-phase", "focus moves into the editor");
    await page.focus("#edit-cost");
    await page.keyboard.type("-500");
    await screenshot(page, "import-pod-editor");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !document.querySelector("#pod-editor").open);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.pod), pod, "focus returns to the pod");
    const afterEdit = await rankingOf(page, "panel-import");
    assert.ok(afterEdit.indexOf(pod) < afterEdit.indexOf("web-7d9f8b6c5d-c9w4t"), `cost -500 goes before cost -100: ${afterEdit}`);
    const row = await page.$$eval(`#panel-import tr[data-pod=${pod}] td`, (tds) => tds.map((t) => t.textContent));
    assert.equal(row[4], "-500", "the cost column");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("LogarithmicScaleDown off gives the pre-1.31 order of the conformance vector, on the 1.31+ order", async () => {
    // rank-0482: four pods whose gate-off order (recorded from upstream with emulation
    // version 1.30) differs from the order with the gate on.
    const cases = JSON.parse(gunzipSync(readFileSync(join(repo, "tests/conformance/vectors/rank.json.gz"))));
    const c = cases.find((x) => x.name === "rank-0482");
    assert.equal(c.featureGates.LogarithmicScaleDown, false);
    assert.equal(c.relatedPods.length, 0);
    const rs = {
      apiVersion: "apps/v1", kind: "ReplicaSet",
      metadata: { name: "web-g74v-dpm8w7nngm", namespace: "default", uid: "rs-uid-0482" },
      spec: { replicas: c.pods.length, selector: { matchLabels: c.pods[0].metadata.labels }, template: { metadata: { labels: c.pods[0].metadata.labels } } },
    };
    const ref = { apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata.name, uid: rs.metadata.uid, controller: true };
    const pods = c.pods.map((p) => ({ ...p, metadata: { ...p.metadata, ownerReferences: [ref] } }));
    const list = JSON.stringify({ apiVersion: "v1", kind: "List", items: [rs, ...pods] }, null, 2);
    const page = await openPage(browser, stateUrl(server.url, { mode: "import", list, now: c.now }));
    const on = await rankingOf(page, "panel-import");
    const engineOn = rankPods(c.pods, { now: c.now, featureGates: { LogarithmicScaleDown: true, PodDeletionCost: true } }).map((r) => r.name);
    assert.deepEqual(on, engineOn, "gate on: the engine's order");
    await screenshot(page, "gate-lsd-on");
    await page.click("#import-gate-lsd");
    const off = await rankingOf(page, "panel-import");
    // The vector's rank groups (upstream's comparator with the gate off): the order must be
    // a linear extension of them.
    const group = new Map(c.expect.rankGroups.flatMap((g, i) => g.map((n) => [n, i])));
    assert.deepEqual([...off].sort(), [...on].sort());
    for (let i = 1; i < off.length; i++) assert.ok(group.get(off[i - 1]) <= group.get(off[i]), `gate off: ${off} breaks the vector's groups`);
    assert.deepEqual(off.slice(0, c.diff), c.expect.delete);
    assert.notDeepEqual(on, off, "the gate changes the order");
    // The compare column shows where each pod stood with the gate on.
    const compare = await page.$$eval("#panel-import [data-testid=ranking] td[data-compare]", (t) => t.map((x) => Number(x.dataset.compare)));
    assert.deepEqual(compare, off.map((n) => on.indexOf(n) + 1));
    await screenshot(page, "gate-lsd-off");
    // The gate is part of the shared state.
    const state = decodeHash(await waitForSave(page));
    assert.equal(state.gates.LogarithmicScaleDown, false);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("scaling 0 → 10 shows slow-start batches 1, 2, 4, 3", { skip: noSim }, async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "sim", scenario: { seed: 7, replicas: 0, nodes: 3 }, t: 0 }));
    await page.fill("#sim-replicas", "10");
    await page.click("#sim-scale");
    for (let i = 0; i < 5 && !(await page.$("[data-testid=create-sync]")); i++) await page.click("#sim-advance");
    assert.equal(await page.getAttribute("[data-testid=create-sync]", "data-batches"), "1,2,4,3");
    await screenshot(page, "sim-scale-0-to-10");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  let sharedUrl = null;

  test("scaling down deletes the pods the engine ranks first, as the preview said", { skip: noSim }, async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "sim", scenario: { seed: 11, replicas: 10, nodes: 3 }, t: 0 }));
    for (let i = 0; i < 20; i++) await page.click("#sim-advance");
    // Give two pods a deletion cost so more than one rule shows.
    const state0 = replay(decodeHash(await waitForSave(page)));
    const some = state0.pods.filter((p) => p.active).slice(0, 2);
    for (const [i, p] of some.entries()) {
      await page.click(`#sim-cluster button[data-pod="${p.name}"]`);
      await page.fill("#edit-cost", String(i === 0 ? 50 : -50));
      await page.click("#pod-editor-form button[type=submit]");
    }
    await page.fill("#sim-scale-to", "4");
    const preview = (await page.getAttribute("#sim-preview", "data-victims")).split(",");
    const shown = replay(decodeHash(await waitForSave(page)));
    const expectedPreview = engineOrder(shown).slice(0, shown.owner.counts.active - 4);
    assert.deepEqual(preview, expectedPreview, "the preview is the engine's ranking of this state");
    assert.deepEqual(await rankingOf(page, "panel-sim"), engineOrder(shown));
    await screenshot(page, "sim-preview-scale-to-4");
    await page.fill("#sim-replicas", "4");
    await page.click("#sim-scale");
    for (let i = 0; i < 5 && !(await page.$("[data-testid=delete-sync]")); i++) await page.click("#sim-advance");
    const victims = (await page.getAttribute("[data-testid=delete-sync]", "data-victims")).split(",");
    // Replay the page's scenario to just before that sync and rank with the package.
    const scenarioState = decodeHash(await waitForSave(page));
    const sim = new Simulator(scenarioState.scenario);
    sim.advance(scenarioState.t);
    const sync = sim.trace().filter((e) => e.kind === "sync" && e.sync.action === "delete").at(-1);
    sim.free();
    const beforeSync = new Simulator(scenarioState.scenario);
    beforeSync.advance(sync.t - 1);
    const st = beforeSync.state();
    beforeSync.free();
    const expected = engineOrder(st, sync.at).slice(0, victims.length);
    assert.equal(victims.length, 6);
    assert.deepEqual(victims, expected, "the deleted pods are the first of the engine's ranking");
    assert.deepEqual(victims, preview, "and the ones the preview highlighted");
    for (let i = 0; i < 3; i++) await page.click("#sim-advance");
    await screenshot(page, "sim-scaled-down-to-4");
    sharedUrl = page.url();
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a shared URL restores the same state", { skip: noSim }, async () => {
    assert.ok(sharedUrl, "the previous test left a URL");
    const a = await openPage(browser, sharedUrl);
    const b = await openPage(browser, sharedUrl);
    const view = (page) => page.evaluate(() => ({
      clock: document.querySelector("#sim-clock")?.textContent,
      ranking: [...document.querySelectorAll("#panel-sim [data-testid=ranking] tbody tr")].map((r) => r.textContent),
      pods: [...document.querySelectorAll("#sim-cluster .pod")].map((p) => p.textContent),
      syncs: [...document.querySelectorAll("#sim-slowstart [data-batches], #sim-slowstart [data-victims]")].map((x) => x.textContent),
      controller: document.querySelector("#sim-controller")?.textContent,
      events: document.querySelector("#sim-events")?.textContent,
      desired: document.querySelector("#sim-replicas")?.value,
    }));
    const va = await view(a);
    assert.deepEqual(await view(b), va);
    assert.equal(va.desired, "4");
    assert.equal(await b.isVisible("#sim-owner"), false, "one ReplicaSet: no chooser");
    assert.equal(va.ranking.length, 4);
    await screenshot(b, "sim-shared-url-restored");
    assert.deepEqual(a.problems, []);
    await a.context().close();
    await b.context().close();
  });

  test("the LogarithmicScaleDown toggle in the simulator gives the order the compare column announced", { skip: noSim }, async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "sim", scenario: { seed: 11, replicas: 10, nodes: 3 }, t: 0 }));
    for (let i = 0; i < 20; i++) await page.click("#sim-advance");
    const on = await rankingOf(page, "panel-sim");
    const announced = await page.$$eval("#panel-sim [data-testid=ranking] td[data-compare]", (t) => t.map((x) => Number(x.dataset.compare)));
    const expectedOff = on.map((name, i) => [announced[i], name]).sort((a, b) => a[0] - b[0]).map(([, n]) => n);
    assert.notDeepEqual(expectedOff, on, "this state orders differently without the gate");
    await page.click("#sim-gate-lsd");
    const off = await rankingOf(page, "panel-sim");
    assert.deepEqual(off, expectedOff);
    const st = decodeHash(await waitForSave(page));
    assert.ok(st.scenario.edits.some((e) => e.op === "setFeatureGates" && e.featureGates.LogarithmicScaleDown === false), "the toggle is an edit of the scenario");
    const replayed = replay(st);
    assert.equal(replayed.config.featureGates.LogarithmicScaleDown, false);
    assert.deepEqual(off, engineOrder(replayed), "the package's rankPods agrees");
    await screenshot(page, "sim-gate-lsd-off");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("an imported snapshot simulated: the controller does what explain said", { skip: noSim }, async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "import", list: clusterText, now: EXAMPLE_NOW, rs: "shop/web-7d9f8b6c5d" }));
    await page.click("#import-simulate");
    await page.waitForSelector("#panel-sim:not([hidden])");
    // The views follow the ReplicaSet selected in the import.
    assert.equal(await page.textContent("[data-testid=owner]"), "shop/web-7d9f8b6c5d");
    assert.equal(await page.inputValue("#sim-owner"), "shop/web-7d9f8b6c5d");
    assert.equal(await page.inputValue("#sim-replicas"), "6");
    const full = explain(JSON.parse(clusterText), { now: EXAMPLE_NOW, replicas: 0, owner: "shop/web-7d9f8b6c5d" }).owners[0].scaleDown.victims.map((v) => v.name);
    assert.deepEqual(await rankingOf(page, "panel-sim"), full, "the simulator ranks the imported pods as explain does");
    for (let i = 0; i < 60 && !((await page.$("[data-testid=delete-sync]")) && (await page.$("[data-testid=create-sync]"))); i++) {
      await page.click("#sim-step");
    }
    const said = Object.fromEntries(explain(JSON.parse(clusterText), { now: EXAMPLE_NOW }).owners.map((o) => [o.name, o.sync]));
    // web-7d9f8b6c5d has 8 active pods for 6 desired: the two explain names go.
    assert.equal(said["web-7d9f8b6c5d"].action, "delete");
    const victims = (await page.getAttribute("[data-testid=delete-sync]", "data-victims")).split(",");
    assert.deepEqual(victims, said["web-7d9f8b6c5d"].victims.map((v) => v.name));
    // api-6f7c9d adopts its orphan and creates the missing 2 in batches 1, 1.
    assert.equal(said["api-6f7c9d"].action, "create");
    assert.equal(await page.getAttribute("[data-testid=create-sync]", "data-batches"), said["api-6f7c9d"].batches.join(","));
    await screenshot(page, "import-simulated");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test("a quota stops slow start at the failing batch and sets ReplicaFailure", { skip: noSim }, async () => {
    const page = await openPage(browser, stateUrl(server.url, { mode: "sim", scenario: { seed: 3, replicas: 0, nodes: 3, quota: 5 }, t: 0 }));
    await page.fill("#sim-replicas", "10");
    await page.press("#sim-replicas", "Enter");
    for (let i = 0; i < 5 && !(await page.$("[data-testid=create-sync]")); i++) await page.click("#sim-advance");
    for (let i = 0; i < 3; i++) await page.click("#sim-advance");
    // Newest first: the retries (a batch of 1 refused at once, grouped), then the first
    // sync: 1 and 2 succeed, the batch of 4 fills the quota of 5 and fails, slow start stops.
    const syncs = await page.$$eval("[data-testid=create-sync]", (divs) => divs.map((d) => ({
      batches: d.dataset.batches,
      outcome: [...d.querySelectorAll(".batch")].map((b) => b.className.replace("batch ", "")),
      repeat: Number(d.dataset.repeat),
    })));
    assert.deepEqual(syncs.at(-1), { batches: "1,2,4", outcome: ["ok", "ok", "failed"], repeat: 1 });
    assert.deepEqual(syncs[0].outcome, ["failed"]);
    assert.ok(syncs[0].repeat > 1, "the retries are grouped");
    assert.match(await page.textContent("#sim-slowstart .warn"), /exceeded quota/);
    assert.match(await page.textContent("[data-testid=replica-failure]"), /^True · FailedCreate: .*exceeded quota/);
    await screenshot(page, "sim-quota-stops-slow-start");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});

/** Waits until the page wrote its state into the URL after the last change; returns the URL. */
async function waitForSave(page) {
  await page.waitForFunction(() => document.body.dataset.dirty === undefined, null, { timeout: 5000 });
  return page.url();
}

/** The simulator's state at the URL's virtual time, replayed in Node. */
function replay(state) {
  const sim = new Simulator(state.scenario);
  sim.advance(state.t);
  const st = sim.state();
  sim.free();
  return st;
}

/** The package's ranking of the primary owner's active pods in a simulator state (built as API pods). */
function engineOrder(st, now = st.now) {
  const pods = st.pods.filter((p) => p.active && p.owner === st.owner.name).map((p) => ({
    metadata: {
      name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: p.created,
      annotations: p.deletionCost !== 0 ? { "controller.kubernetes.io/pod-deletion-cost": String(p.deletionCost) } : {},
    },
    spec: p.node ? { nodeName: p.node } : {},
    status: {
      phase: p.phase,
      conditions: [{ type: "Ready", status: p.ready ? "True" : "False", lastTransitionTime: p.readySince ?? p.created }],
      containerStatuses: [{ name: "app", restartCount: p.restarts }],
    },
  }));
  return rankPods(pods, { now, featureGates: st.config.featureGates }).map((r) => r.name);
}
