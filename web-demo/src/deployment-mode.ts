// The Deployment view: a simulated Deployment (the seeded simulator running the engine's
// Deployment controller) with its ReplicaSets as lanes over virtual time, the surge and
// availability band, the conditions, the events, the rule that limited each sync, and the
// engine's forecast beside the run; or the same view of an imported `kubectl get
// deploy,rs,pods -o json` snapshot. No Deployment rule here: bounds, lanes, conditions and
// rules come from the simulator's state and trace, or from the engine's report.

import {
  Simulator,
  isReplicoreError,
  type DeploymentSample,
  type DeploymentSyncTrace,
  type Scenario,
  type ScenarioDeployment,
  type IntOrString,
  type SimState,
} from "replicore/playground";
import { PlayClock } from "./play-clock.js";
import { byId, h, mount, vtime } from "./dom.js";
import { forecastOfRun, report } from "./deployment-forecast.js";
import {
  conditionsTable,
  forecastView,
  laneBars,
  lanesTable,
  rolloutChart,
  type ConditionRow,
  type ForecastView,
  type LaneRow,
  type RunView,
} from "./deployment-views.js";
import type { PageState } from "./url.js";
import exampleRollout from "../../examples/rollout.json?raw";

export const DEFAULT_STARTUP = 10;

/** The default Deployment: 10 replicas, 25 %/25 %, image web:v1. */
export const DEFAULT_DEPLOYMENT: ScenarioDeployment = {
  replicas: 10,
  strategy: "RollingUpdate",
  maxSurge: "25%",
  maxUnavailable: "25%",
  minReadySeconds: 0,
  progressDeadlineSeconds: 600,
  revisionHistoryLimit: 10,
  image: "web:v1",
};

/**
 * The scenario of a Deployment whose pods start exactly `startup` seconds after creation
 * (no watch, scheduling or termination delay): the timing the forecast models, so forecast
 * and run can be compared step by step.
 */
export function deploymentScenario(seed: number, deployment: ScenarioDeployment, startup: number): Scenario {
  return {
    seed,
    nodes: 3,
    delays: { watch: 0, schedule: 0, start: 0, ready: Math.round(startup * 1000), terminate: 0 },
    deployment,
  };
}

const SPEEDS = [1, 2, 5, 10, 30, 60];

interface SyncAt {
  t: number;
  sync: DeploymentSyncTrace;
}


/** `3` → 3, `25%` → "25%"; null when neither. */
export function intOrPercent(text: string): IntOrString | null {
  const x = text.trim();
  if (/^\d+$/.test(x)) return Number(x);
  if (/^\d+%$/.test(x)) return x;
  return null;
}

/** The next image name: `web:v2` → `web:v3`. */
function nextImage(image: string): string {
  const m = /^(.*?)(\d+)$/.exec(image);
  return m ? `${m[1]}${Number(m[2]) + 1}` : `${image}-2`;
}

interface ImportedDeployment {
  namespace: string;
  name: string;
  revision: number | null;
  strategy: string;
  paused: boolean;
  replicas: number;
  maxSurge: number;
  maxUnavailable: number;
  maxPods: number;
  minAvailable: number;
  newReplicaSet: { name: string; revision: number | null; replicas: number; current: number; ready: number; available: number } | null;
  oldReplicaSets: Array<{ name: string; revision: number | null; replicas: number; current: number; ready: number; available: number }>;
  conditions: Array<ConditionRow & { deadlineLeftSeconds?: number | null }>;
  nextSync: Array<{ verb: string; target: string; rule: string; description: string }>;
  error?: string | null;
  requeue: string;
}

export class DeployMode {
  source: "sim" | "import" = "sim";
  sim: Simulator | null = null;
  state: SimState | null = null;
  playing = false;
  speed = 5;
  startup = DEFAULT_STARTUP;
  /** The virtual time of the last template change (setImage, undo), 0 before any. */
  from = 0;
  importText = "";
  importNow = "";
  importDeployment: string | null = null;
  private syncs: SyncAt[] = [];
  private traceSeen = 0;
  private readonly clock = new PlayClock({
    playing: () => this.playing && this.sim !== null,
    speed: () => this.speed,
    advance: (ms) => this.sim?.advance(ms),
    renderEveryMs: () => 60,
    refresh: () => this.refresh(),
    save: () => this.changed(),
    failed: (message) => {
      this.error(message);
      this.setPlaying(false);
    },
  });
  private forecastKey = "";
  private forecast: ForecastView | null = null;
  private forecastError = "";
  private readonly changed: () => void;

  constructor(changed: () => void) {
    this.changed = changed;
    byId<HTMLSelectElement>("dep-source").addEventListener("change", (e) => {
      this.setSource((e.target as HTMLSelectElement).value === "import" ? "import" : "sim");
      if (this.source === "import" && this.importText === "") this.loadExample();
      this.render();
      this.changed();
    });
    byId("dep-restart").addEventListener("click", () => this.restartFromForm());
    byId("dep-play").addEventListener("click", () => this.setPlaying(!this.playing));
    byId("dep-advance").addEventListener("click", () => {
      this.setPlaying(false);
      this.act(() => this.sim?.advance(10_000));
    });
    byId("dep-settle").addEventListener("click", () => {
      this.setPlaying(false);
      this.act(() => this.runUntilSettled());
    });
    const speed = byId<HTMLSelectElement>("dep-speed");
    speed.replaceChildren(...SPEEDS.map((x) => h("option", { value: x }, `${x}×`)));
    speed.addEventListener("change", () => {
      this.speed = Number(speed.value);
      this.changed();
    });
    byId("dep-set-image").addEventListener("click", () => {
      const image = byId<HTMLInputElement>("dep-image").value.trim();
      if (image === "") return this.error("Type an image, e.g. web:v2.");
      const fail = byId<HTMLInputElement>("dep-image-fails").checked;
      this.act(() => this.sim?.setImage(image, fail ? "neverReady" : undefined));
    });
    byId("dep-fail").addEventListener("click", () => this.act(() => this.sim?.failTemplate("neverReady")));
    byId("dep-scale-apply").addEventListener("click", () => {
      const n = Number(byId<HTMLInputElement>("dep-scale").value);
      if (!Number.isInteger(n) || n < 0 || n > 500) return this.error("Replicas must be a whole number from 0 to 500.");
      this.act(() => this.sim?.scaleDeployment(n));
    });
    byId("dep-pause").addEventListener("click", () => {
      const paused = this.state?.deployment?.paused ?? false;
      this.act(() => this.sim?.pauseDeployment(!paused));
    });
    byId("dep-undo").addEventListener("click", () => {
      const v = byId<HTMLSelectElement>("dep-undo-rev").value;
      this.act(() => this.sim?.undoDeployment(v === "" ? undefined : Number(v)));
    });
    byId("dep-import-run").addEventListener("click", () => {
      this.importText = byId<HTMLTextAreaElement>("dep-import-text").value;
      this.importNow = byId<HTMLInputElement>("dep-import-now").value.trim();
      this.render();
      this.changed();
    });
    byId("dep-import-example").addEventListener("click", () => {
      this.loadExample();
      this.render();
      this.changed();
    });
    byId<HTMLSelectElement>("dep-import-pick").addEventListener("change", (e) => {
      this.importDeployment = (e.target as HTMLSelectElement).value || null;
      this.render();
      this.changed();
    });
  }

  private loadExample(): void {
    this.importText = EXAMPLE_ROLLOUT_TEXT;
    this.importNow = EXAMPLE_ROLLOUT_NOW;
    this.importDeployment = null;
  }

  private setSource(source: "sim" | "import"): void {
    this.source = source;
    if (source === "import") this.setPlaying(false);
    byId<HTMLSelectElement>("dep-source").value = source;
    byId("dep-sim-controls").hidden = source !== "sim";
    byId("dep-import-controls").hidden = source !== "import";
    byId("dep-sim-only").hidden = source !== "sim";
    byId("dep-time").hidden = source !== "sim";
  }

  private error(message: string): void {
    byId("dep-error").textContent = message;
  }

  private act(f: () => unknown): void {
    this.error("");
    try {
      f();
    } catch (e) {
      this.error(isReplicoreError(e) ? `${e.message} (${e.code})` : (e as Error).message);
    }
    this.refresh();
    this.changed();
  }

  /** Advances in 1 s steps until the rollout is complete (then 1 s more) or stalled (at most one virtual hour). */
  private runUntilSettled(): void {
    const sim = this.sim;
    if (!sim) return;
    for (let i = 0; i < 3600; i++) {
      sim.advance(1000);
      const d = sim.state().deployment;
      if (!d) return;
      const progressing = d.status.conditions?.find((c) => c.type === "Progressing");
      if (d.complete && !d.paused) {
        // One second more: a change made now starts after every pod of this instant came up.
        sim.advance(1000);
        return;
      }
      if (progressing?.reason === "ProgressDeadlineExceeded") return;
      if (d.paused && i > 5) return;
    }
  }

  private restartFromForm(): void {
    const num = (id: string, min: number, max: number, what: string): number | null => {
      const n = Number(byId<HTMLInputElement>(id).value);
      if (!Number.isInteger(n) || n < min || n > max) {
        this.error(`${what} must be a whole number from ${min} to ${max}.`);
        return null;
      }
      return n;
    };
    const replicas = num("dep-replicas", 0, 500, "Replicas");
    const seed = num("dep-seed", 0, 2 ** 31, "Seed");
    const minReady = num("dep-minready", 0, 3600, "minReadySeconds");
    const deadline = num("dep-deadline", 1, 86400, "progressDeadlineSeconds");
    const history = num("dep-history", 0, 100, "revisionHistoryLimit");
    const startup = Number(byId<HTMLInputElement>("dep-startup").value);
    if (!Number.isFinite(startup) || startup < 0 || startup > 3600) return this.error("Pod start-up must be from 0 to 3600 seconds.");
    if (replicas === null || seed === null || minReady === null || deadline === null || history === null) return;
    const strategy = byId<HTMLSelectElement>("dep-strategy").value === "Recreate" ? "Recreate" : "RollingUpdate";
    const d: ScenarioDeployment = {
      replicas,
      strategy,
      minReadySeconds: minReady,
      progressDeadlineSeconds: deadline,
      revisionHistoryLimit: history,
      image: this.sim?.scenario().deployment?.image ?? "web:v1",
    };
    if (strategy === "RollingUpdate") {
      const surge = intOrPercent(byId<HTMLInputElement>("dep-surge").value);
      const unavailable = intOrPercent(byId<HTMLInputElement>("dep-unavailable").value);
      if (surge === null || unavailable === null) return this.error("maxSurge and maxUnavailable are whole numbers or percentages (3, 25%).");
      d.maxSurge = surge;
      d.maxUnavailable = unavailable;
    }
    this.startup = startup;
    this.start(deploymentScenario(seed, d, startup), 0);
  }

  /** A new simulation of `scenario`, replayed to virtual time `t`. */
  start(scenario: Scenario | string, t: number): void {
    this.sim?.free();
    this.sim = null;
    this.syncs = [];
    this.traceSeen = 0;
    this.from = 0;
    this.forecastKey = "";
    this.error("");
    try {
      this.sim = new Simulator(scenario);
      if (t > 0) this.sim.advance(t);
    } catch (e) {
      this.error(`Cannot start the simulation: ${isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : (e as Error).message}`);
    }
    const sc = this.sim?.scenario();
    const d = sc?.deployment;
    if (sc && d) {
      byId<HTMLInputElement>("dep-seed").value = String(sc.seed);
      byId<HTMLInputElement>("dep-replicas").value = String(d.replicas);
      byId<HTMLSelectElement>("dep-strategy").value = d.strategy ?? "RollingUpdate";
      byId<HTMLInputElement>("dep-surge").value = String(d.maxSurge ?? "25%");
      byId<HTMLInputElement>("dep-unavailable").value = String(d.maxUnavailable ?? "25%");
      byId<HTMLInputElement>("dep-minready").value = String(d.minReadySeconds ?? 0);
      byId<HTMLInputElement>("dep-deadline").value = String(d.progressDeadlineSeconds ?? 600);
      byId<HTMLInputElement>("dep-history").value = String(d.revisionHistoryLimit ?? 10);
      byId<HTMLInputElement>("dep-startup").value = String(this.startup);
    } else if (sc) {
      this.error("This scenario has no Deployment: the Deployment view needs one (use Restart).");
    }
    this.refresh();
    this.changed();
  }

  restore(state: PageState): void {
    this.setPlaying(false);
    this.speed = state.speed ?? 5;
    this.startup = state.startup ?? DEFAULT_STARTUP;
    this.importText = state.list ?? "";
    this.importNow = state.now ?? "";
    this.importDeployment = state.deployment ?? null;
    this.setSource(state.source ?? "sim");
    if (this.source === "import") {
      if (this.importText === "") this.loadExample();
      this.render();
      return;
    }
    this.start(state.scenario ?? deploymentScenario(1, DEFAULT_DEPLOYMENT, this.startup), state.t ?? 0);
  }

  save(): PageState {
    const st: PageState = { v: 1, mode: "deploy", source: this.source, startup: this.startup, speed: this.speed };
    if (this.source === "import") {
      st.list = this.importText;
      st.now = this.importNow;
      if (this.importDeployment !== null) st.deployment = this.importDeployment;
    } else if (this.sim) {
      st.scenario = this.sim.scenario();
      st.t = this.state?.t ?? 0;
    }
    return st;
  }

  setPlaying(on: boolean): void {
    this.playing = on && this.sim !== null && this.source === "sim";
    const b = byId<HTMLButtonElement>("dep-play");
    b.textContent = this.playing ? "Pause time" : "Play";
    b.setAttribute("aria-pressed", String(this.playing));
    if (this.playing) {
      this.clock.start();
    } else {
      this.changed();
    }
  }

  /** Pulls the state and the new trace entries, then redraws. */
  refresh(): void {
    if (!this.sim) {
      this.state = null;
      this.render();
      return;
    }
    this.state = this.sim.state();
    if (this.state.traceLength > this.traceSeen) {
      for (const e of this.sim.trace(this.traceSeen)) {
        if (e.kind === "deploymentSync") {
          this.syncs.push({ t: e.t, sync: e.sync });
        } else if (e.kind === "edit" && !e.error && (e.edit.op === "setImage" || e.edit.op === "undoDeployment")) {
          this.from = e.t;
        }
      }
      this.traceSeen = this.state.traceLength;
      if (this.syncs.length > 300) this.syncs = this.syncs.slice(-300);
    }
    this.render();
  }

  render(): void {
    if (this.source === "import") {
      this.renderImport();
      return;
    }
    const st = this.state;
    byId("dep-clock").textContent = st ? `t = ${vtime(st.t)}` : "–";
    byId<HTMLSelectElement>("dep-speed").value = String(this.speed);
    const dep = st?.deployment;
    if (!st || !this.sim || !dep) {
      for (const id of ["dep-summary", "dep-chart", "dep-lanes", "dep-conditions", "dep-syncs", "dep-events", "dep-forecast"]) mount(byId(id), null);
      return;
    }
    const samples = this.sim.deploymentHistory();
    const run = this.runSince(samples, dep.complete, dep.status.conditions?.find((c) => c.type === "Progressing")?.reason ?? "");
    const progressing = dep.status.conditions?.find((c) => c.type === "Progressing");
    mount(byId("dep-summary"), h("p", {
      class: "summary",
      "data-testid": "dep-summary",
      "data-replicas": dep.replicas,
      "data-max-pods": dep.maxPods,
      "data-min-available": dep.minAvailable,
      "data-pods": dep.pods,
      "data-available": dep.available,
      "data-complete": String(dep.complete),
      "data-paused": String(dep.paused),
      "data-progressing": progressing?.reason ?? "",
      "data-peak-pods": run.peakPods,
      "data-fewest-available": run.minAvailable,
    },
    h("strong", null, `${dep.namespace}/${dep.name}`), ` ${dep.strategy}, image ${dep.image}${dep.revision ? `, revision ${dep.revision}` : ""}${dep.paused ? ", paused" : ""}. `,
    `Band (D-08): at most ${dep.maxPods} pods (replicas ${dep.replicas} + maxSurge ${dep.maxSurge}), at least ${dep.minAvailable} available (replicas − maxUnavailable ${dep.maxUnavailable}). `,
    `Now: ${dep.pods} pods, ${dep.available} available${dep.complete ? "; rollout complete" : ""}. `,
    `Since the last template change: at most ${run.peakPods} pods, at least ${run.minAvailable} available.`,
    dep.lastStep ? h("span", { class: "muted" }, ` Last step: `, h("code", null, dep.lastStep.rule), ` ${dep.lastStep.why}`) : null,
    ));
    mount(byId("dep-chart"), rolloutChart(samples, st.t, this.from > 0 ? this.from : null));
    const lanes: LaneRow[] = dep.lanes.map((l) => ({
      name: l.name, revision: l.revision, new: l.new, image: l.image, desired: l.desired, current: l.counts.active, ready: l.counts.ready, available: l.counts.available,
    }));
    mount(byId("dep-lanes"), lanesTable(lanes));
    mount(byId("dep-conditions"), conditionsTable((dep.status.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? "", message: c.message ?? "" }))));
    mount(byId("dep-syncs"), this.syncsTable());
    mount(byId("dep-events"), this.eventsList(st, dep));
    // Controls that follow the state.
    const pause = byId<HTMLButtonElement>("dep-pause");
    pause.textContent = dep.paused ? "Resume rollout" : "Pause rollout";
    pause.setAttribute("aria-pressed", String(dep.paused));
    const image = byId<HTMLInputElement>("dep-image");
    if (document.activeElement !== image && (image.value === "" || image.dataset.for !== dep.image)) {
      image.value = nextImage(dep.image);
      image.dataset.for = dep.image;
    }
    const scale = byId<HTMLInputElement>("dep-scale");
    if (document.activeElement !== scale) scale.value = String(dep.replicas);
    const undo = byId<HTMLSelectElement>("dep-undo-rev");
    if (document.activeElement !== undo) {
      const was = undo.value;
      const revisions = dep.lanes.filter((l) => l.revision !== null && !l.new).sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
      undo.replaceChildren(
        h("option", { value: "" }, "previous revision"),
        ...revisions.map((l) => h("option", { value: l.revision ?? "" }, `revision ${l.revision} (${l.image}, ${l.name})`)),
      );
      if ([...undo.options].some((o) => o.value === was)) undo.value = was;
    }
    this.renderForecast(dep, st, run);
  }

  /** Peak pods, fewest available and the end of the run since the last template change. */
  private runSince(samples: DeploymentSample[], complete: boolean, progressing: string): RunView {
    const since = samples.filter((x) => x.t >= this.from);
    const last = since.at(-1);
    return {
      seconds: complete && last ? (last.t - this.from) / 1000 : null,
      peakPods: since.length ? Math.max(...since.map((x) => x.pods)) : 0,
      minAvailable: since.length ? Math.min(...since.map((x) => x.available)) : 0,
      newReplicas: last?.lanes.filter((l) => l.new).reduce((a, l) => a + l.desired, 0) ?? 0,
      oldReplicas: last?.lanes.filter((l) => !l.new).reduce((a, l) => a + l.desired, 0) ?? 0,
      progressing,
    };
  }

  private renderForecast(dep: NonNullable<SimState["deployment"]>, st: SimState, run: RunView): void {
    if (!this.sim) return;
    const scenario = this.sim.scenario();
    // The forecast starts where the run's rollout started: at the last template change.
    const at = new Date(Date.parse(st.now) - (st.t - this.from)).toISOString().replace(/\.000Z$/, "Z");
    const key = JSON.stringify([dep.replicas, dep.image, dep.paused, dep.strategy, dep.maxPods, dep.minAvailable, dep.failingImages,
      dep.lanes.filter((l) => !l.new).map((l) => [l.name, l.revision, l.image]), at, this.startup, scenario.seed, scenario.deployment]);
    if (key !== this.forecastKey) {
      this.forecastKey = key;
      try {
        this.forecast = forecastOfRun(dep, scenario, at, this.startup);
        this.forecastError = "";
      } catch (e) {
        this.forecast = null;
        this.forecastError = isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : (e as Error).message;
      }
    }
    mount(byId("dep-forecast"),
      h("p", { class: "help" }, `The engine's forecast of the rollout from the last template change (t = ${vtime(this.from)}), pods ready ${this.startup} s after creation, seed ${scenario.seed}; beside it what the run did.`),
      this.forecast ? forecastView(this.forecast, run) : h("p", { class: "error" }, this.forecastError));
  }

  private syncsTable(): Element {
    const rows = this.syncs.slice(-80).reverse();
    if (rows.length === 0) return h("p", { class: "muted" }, "No sync yet.");
    return h("table", { class: "data", "data-testid": "dep-syncs" },
      h("thead", null, h("tr", null, ["t", "rule", "new / old", "pods", "available", "band", "calls"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", null, rows.map(({ t, sync }) =>
        h("tr", { "data-rule": sync.rule },
          h("td", { class: "num" }, vtime(t)),
          h("td", null, h("code", null, sync.rule), " ", h("small", null, sync.why)),
          h("td", { class: "num" }, `${sync.counts.new} / ${sync.counts.old}`),
          h("td", { class: "num" }, sync.counts.pods),
          h("td", { class: "num" }, sync.counts.available),
          h("td", { class: "num" }, `${sync.bounds.minAvailable}…${sync.bounds.maxPods}`),
          h("td", null, sync.invalid ? `invalid: ${sync.invalid}` : sync.calls.filter((c) => c.verb !== "get").map((c) =>
            `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ""} ${c.name}${c.replicas !== undefined ? ` → ${c.replicas}` : ""}${c.ok ? "" : ` (${c.error ?? "failed"})`}`).join("; ") || "–",
          sync.error ? h("span", { class: "error" }, ` error: ${JSON.stringify(sync.error)}`) : null),
        ))),
    );
  }

  /** The events of the Deployment and of its ReplicaSets (the simulator keeps the latest 100). */
  private eventsList(st: SimState, dep: NonNullable<SimState["deployment"]>): Element {
    const keys = new Set([dep.key, ...dep.lanes.map((l) => l.key)]);
    const rows = st.events.filter((e) => keys.has(e.owner)).slice(-60).reverse();
    if (rows.length === 0) return h("p", { class: "muted" }, "No events yet.");
    return h("ol", { class: "events", "data-testid": "dep-events" },
      rows.map((e) => h("li", { "data-reason": e.reason, class: e.type === "Warning" ? "warning" : null },
        h("span", { class: "ev-t" }, vtime(e.t)), " ", h("span", { class: "ev-type" }, e.owner === dep.key ? "deployment" : e.owner.replace(/^.*\//, "")), " ",
        h("strong", null, e.reason), " ", e.message)));
  }

  private renderImport(): void {
    byId<HTMLTextAreaElement>("dep-import-text").value = this.importText;
    byId<HTMLInputElement>("dep-import-now").value = this.importNow;
    this.error("");
    for (const id of ["dep-syncs", "dep-events"]) mount(byId(id), null);
    if (this.importText.trim() === "") {
      for (const id of ["dep-summary", "dep-chart", "dep-lanes", "dep-conditions", "dep-forecast"]) mount(byId(id), null);
      return;
    }
    let r: ReturnType<typeof report>;
    try {
      r = report(this.importText, this.importNow, { seed: 1, startupSeconds: this.startup });
    } catch (e) {
      this.error(isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : (e as Error).message);
      for (const id of ["dep-summary", "dep-chart", "dep-lanes", "dep-conditions", "dep-forecast"]) mount(byId(id), null);
      return;
    }
    const all = (r.deployments?.deployments ?? []) as ImportedDeployment[];
    const pick = byId<HTMLSelectElement>("dep-import-pick");
    pick.replaceChildren(...all.map((d) => h("option", { value: `${d.namespace}/${d.name}` }, `${d.namespace}/${d.name}`)));
    const i = Math.max(0, all.findIndex((d) => `${d.namespace}/${d.name}` === this.importDeployment));
    const d = all[i];
    if (!d) {
      this.error("The snapshot has no Deployment: paste kubectl get deploy,rs,pods -o json.");
      return;
    }
    pick.value = `${d.namespace}/${d.name}`;
    const rss = [...d.oldReplicaSets.map((x) => ({ ...x, new: false })), ...(d.newReplicaSet ? [{ ...d.newReplicaSet, new: true }] : [])];
    const lanes: LaneRow[] = rss.map((x) => ({ name: x.name, revision: x.revision, new: x.new, desired: x.replicas, current: x.current, ready: x.ready, available: x.available }));
    const pods = lanes.reduce((a, l) => a + l.current, 0);
    const available = lanes.reduce((a, l) => a + l.available, 0);
    mount(byId("dep-summary"), h("p", {
      class: "summary",
      "data-testid": "dep-summary",
      "data-replicas": d.replicas,
      "data-max-pods": d.maxPods,
      "data-min-available": d.minAvailable,
      "data-pods": pods,
      "data-available": available,
    },
    h("strong", null, `${d.namespace}/${d.name}`), ` ${d.strategy}${d.revision !== null ? `, revision ${d.revision}` : ""}${d.paused ? ", paused" : ""}, at ${this.importNow}. `,
    `Band (D-08): at most ${d.maxPods} pods (replicas ${d.replicas} + maxSurge ${d.maxSurge}), at least ${d.minAvailable} available (replicas − maxUnavailable ${d.maxUnavailable}). `,
    `The snapshot: ${pods} pods, ${available} available. `,
    h("span", { class: "muted" }, `Requeue: ${d.requeue}`),
    ));
    mount(byId("dep-chart"), laneBars(lanes, d.maxPods));
    mount(byId("dep-lanes"), lanesTable(lanes));
    mount(byId("dep-conditions"),
      conditionsTable(d.conditions),
      h("h3", null, "What the next sync would do"),
      d.nextSync.length === 0
        ? h("p", { class: "muted" }, "Nothing.")
        : h("ol", { "data-testid": "dep-next-sync" }, d.nextSync.map((c) => h("li", { "data-rule": c.rule }, h("code", null, c.rule), ` ${c.verb} ${c.target}: ${c.description}`))),
      d.error ? h("p", { class: "error" }, d.error) : null,
    );
    const f = r.forecasts?.find((x) => x.deployment === `${d.namespace}/${d.name}` || x.deployment === d.name) ?? r.forecasts?.[i];
    mount(byId("dep-forecast"),
      h("p", { class: "help" }, `The engine's forecast from this snapshot, pods ready ${this.startup} s after creation, seed 1.`),
      f ? forecastView(f, null) : h("p", { class: "muted" }, "No forecast."));
  }
}

/** examples/rollout.json's instant (docs/cli.md's `replicore explain -f examples/rollout.json --now …`). */
export const EXAMPLE_ROLLOUT_NOW = "2026-11-23T23:16:12Z";
/** The shipped example, `examples/rollout.json`. */
export const EXAMPLE_ROLLOUT_TEXT: string = exampleRollout;
