// The playground: four tabs (the simulated cluster, an imported kubectl snapshot, a
// Deployment rollout, a HorizontalPodAutoscaler over a load curve), the state
// of the visible tab kept in the URL's hash, keyboard shortcuts.

import "./style.css";
import { version } from "replicore/playground";
import { byId } from "./dom.js";
import { setupEditor } from "./editor.js";
import { EXAMPLE_NOW, EXAMPLE_TEXT, ImportMode } from "./import-mode.js";
import { DEFAULT_SCENARIO, SimMode, simulatorAvailable } from "./sim-mode.js";
import { DeployMode } from "./deployment-mode.js";
import { AutoscalingMode } from "./autoscaling-mode.js";
import { decodeState, encodeState, type Mode, type PageState } from "./url.js";

const hasSim = simulatorAvailable();
let mode: Mode = hasSim ? "sim" : "import";
let restoring = false;

const sim = new SimMode(() => save());
const imp = new ImportMode(() => save());
const dep = new DeployMode(() => save());
const hpa = new AutoscalingMode(() => save());

let saveTimer: ReturnType<typeof setTimeout> | null = null;
let lastHash = "";

/** Writes the current state into the hash (debounced; replaceState: no history entry per tick). */
function save(): void {
  if (restoring) return;
  document.body.dataset.dirty = "true";
  if (saveTimer !== null) clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    saveTimer = null;
    void writeHash();
  }, 150);
}

async function writeHash(): Promise<void> {
  const state: PageState = mode === "sim" ? sim.save() : mode === "deploy" ? dep.save() : mode === "hpa" ? hpa.save() : imp.save();
  const hash = await encodeState(state);
  lastHash = hash;
  history.replaceState(null, "", hash);
  if (saveTimer === null) delete document.body.dataset.dirty;
}

function show(next: Mode): void {
  mode = next;
  for (const m of ["sim", "import", "deploy", "hpa"] as const) {
    const tab = byId(`tab-${m}`);
    tab.setAttribute("aria-selected", String(m === next));
    tab.tabIndex = m === next ? 0 : -1;
    byId(`panel-${m}`).hidden = m !== next;
  }
  if (next !== "sim") sim.setPlaying(false);
  if (next !== "deploy") dep.setPlaying(false);
  document.body.dataset.mode = next;
}

async function restore(hash: string): Promise<void> {
  restoring = true;
  const notice = byId("notice");
  notice.textContent = hasSim ? "" : "This build of the replicore package has no simulator yet: the Import tab works; the simulated cluster does not.";
  try {
    let state: PageState | null = null;
    try {
      state = await decodeState(hash);
    } catch (e) {
      notice.textContent = `${(e as Error).message}. Starting from the default scenario.`;
    }
    const wanted: Mode = state?.mode ?? (hasSim ? "sim" : "import");
    if (wanted === "hpa") {
      show("hpa");
      hpa.restore(state ?? { v: 1, mode: "hpa" });
    } else if (wanted === "deploy" && hasSim) {
      show("deploy");
      dep.restore(state ?? { v: 1, mode: "deploy" });
    } else if (wanted === "import" || !hasSim) {
      show("import");
      if (state?.mode === "import") imp.restore(state);
      else if (imp.text === "") imp.restore({ v: 1, mode: "import", now: EXAMPLE_NOW, list: EXAMPLE_TEXT });
    } else {
      show("sim");
      sim.restore(state ?? { v: 1, mode: "sim", scenario: DEFAULT_SCENARIO, t: 0 });
      if (!state) sim.setPlaying(true);
    }
  } finally {
    restoring = false;
  }
  document.body.dataset.ready = "true";
}

function setupTabs(): void {
  const tabs = [byId("tab-sim"), byId("tab-import"), byId("tab-deploy"), byId("tab-hpa")];
  for (const [i, tab] of tabs.entries()) {
    tab.addEventListener("click", () => {
      const m: Mode = tab.id === "tab-sim" ? "sim" : tab.id === "tab-deploy" ? "deploy" : tab.id === "tab-hpa" ? "hpa" : "import";
      if (m === "deploy" && !hasSim) return;
      if (m === "sim" && !sim.sim) sim.restore({ v: 1, mode: "sim", scenario: DEFAULT_SCENARIO, t: 0 });
      if (m === "deploy" && !dep.sim && dep.importText === "") dep.restore({ v: 1, mode: "deploy" });
      if (m === "import" && imp.text === "") imp.load(EXAMPLE_TEXT, EXAMPLE_NOW);
      if (m === "hpa" && hpa.forecast === null && hpa.importText === "") hpa.restore({ v: 1, mode: "hpa" });
      show(m);
      save();
    });
    tab.addEventListener("keydown", (e) => {
      if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
      const next = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      next?.focus();
      next?.click();
    });
  }
  byId("import-simulate").addEventListener("click", () => {
    if (!hasSim) return;
    const cluster = imp.clusterForSimulation();
    if (cluster === null) {
      byId("import-error").textContent = "Load a snapshot the engine accepts first.";
      return;
    }
    show("sim");
    const state: PageState = { v: 1, mode: "sim", scenario: { seed: 1, start: imp.now, nodes: [], cluster }, t: 0 };
    if (imp.selected !== null) state.rs = imp.selected;
    sim.restore(state);
    save();
  });
  byId<HTMLButtonElement>("import-simulate").disabled = !hasSim;
}

function setupShare(): void {
  const status = byId("share-status");
  byId("share").addEventListener("click", async () => {
    await writeHash();
    try {
      await navigator.clipboard.writeText(location.href);
      status.textContent = "Link copied.";
    } catch {
      status.textContent = "Copy the address bar: it holds this state.";
    }
    setTimeout(() => (status.textContent = ""), 4000);
  });
}

function setupKeys(): void {
  document.addEventListener("keydown", (e) => {
    const t = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey || t.closest("input, textarea, select, dialog")) return;
    if (mode !== "sim") return;
    if (e.key === "p") {
      byId("sim-play").click();
      e.preventDefault();
    } else if (e.key === "s") {
      byId("sim-step").click();
      e.preventDefault();
    } else if (e.key === "+" || e.key === "=") {
      byId("sim-plus").click();
      e.preventDefault();
    } else if (e.key === "-") {
      byId("sim-minus").click();
      e.preventDefault();
    }
  });
}

async function main(): Promise<void> {
  byId("version").textContent = `replicore ${version()}`;
  byId("tab-sim").toggleAttribute("data-unavailable", !hasSim);
  byId("tab-deploy").toggleAttribute("data-unavailable", !hasSim);
  setupEditor();
  setupTabs();
  setupShare();
  setupKeys();
  await restore(location.hash);
  window.addEventListener("hashchange", () => {
    if (location.hash !== lastHash) void restore(location.hash);
  });
}

void main();
