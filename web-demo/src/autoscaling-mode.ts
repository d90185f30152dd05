// The Autoscaling tab: a HorizontalPodAutoscaler over a load curve (presets, or points a
// user drags), its spec and the pods' start-up model as controls, played by the engine's
// forecast (`hpaForecast`: the engine's HPA, Deployment and ReplicaSet controllers over a
// seeded pod model) and each sync explained by the engine ("why N?", the forecast's
// `explainAtSeconds`); a rollout of the target started at a chosen sync; or a real
// cluster's HPA imported (`kubectl get hpa,deploy,rs,pods -o json` and the pod metrics)
// and explained (`explainHpa`). No autoscaler rule here: every count, bound, band and
// word comes from the engine.

import { Simulator, explainHpa, hpaForecast, isReplicoreError, type HpaExplanation, type HpaForecast, type HpaForecastStep, type LoadCurve, type LoadPoint } from "replicore/playground";
import exampleHpa from "../../examples/hpa.json?raw";
import exampleMetrics from "../../examples/hpa-pod-metrics.json?raw";
import { byId, h, mount } from "./dom.js";
import { conditionsTable } from "./deployment-views.js";
import { intOrPercent } from "./deployment-mode.js";
import {
  DEFAULT_HPA_SCENARIO, PRESETS, PRESET_FIELDS, forecastInput, pointsOf, presetCurve, runScenario,
  type HpaScenario, type Policy, type Preset, type Rules,
} from "./autoscaling-scenario.js";
import { eventsOf, explanationView, replicasChart, runView, syncsTable, totalsTable, utilizationChart } from "./autoscaling-views.js";
import type { PageState } from "./url.js";

/** The forecast's clock at its start (the engine's default, given so recommendations can be placed). */
export const FORECAST_START = "2026-01-01T00:00:00Z";
/** The instant `docs/autoscaling.md` explains examples/hpa.json at. */
export const EXAMPLE_HPA_NOW = "2026-11-27T12:00:00Z";

function message(e: unknown): string {
  return isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : (e as Error).message;
}

function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

export class AutoscalingMode {
  source: "sim" | "import" = "sim";
  scenario: HpaScenario = clone(DEFAULT_HPA_SCENARIO);
  /** The chosen sync (seconds); null: the first that rescales. */
  selected: number | null = null;
  forecast: HpaForecast | null = null;
  /** The run: the seeded simulator's HPA syncs over the same scenario (each as a forecast step). */
  run: HpaForecastStep[] | null = null;
  private runError = "";
  private runKey = "";
  /** The run is played after the forecast is drawn (it takes longer: a whole cluster). */
  private runTimer: ReturnType<typeof setTimeout> | null = null;
  importText = "";
  metricsText = "";
  importNow = EXAMPLE_HPA_NOW;
  importName: string | null = null;
  private forecastKey = "";
  private readonly changed: () => void;

  constructor(changed: () => void) {
    this.changed = changed;
    mount(byId("hpa-behavior"), (["up", "down"] as const).map((dir) => behaviorRow(dir)));
    byId<HTMLSelectElement>("hpa-source").addEventListener("change", (e) => {
      this.setSource((e.target as HTMLSelectElement).value === "import" ? "import" : "sim");
      if (this.source === "import" && this.importText === "") this.loadExample();
      this.render();
      this.changed();
    });
    // Every control of the spec, the pods and the load: read the whole form again.
    byId("hpa-settings").addEventListener("change", (e) => {
      if ((e.target as HTMLElement).id === "hpa-preset") return;
      this.readForm();
    });
    byId<HTMLSelectElement>("hpa-preset").replaceChildren(...PRESETS.map((p) => h("option", { value: p.kind }, p.label)));
    byId<HTMLSelectElement>("hpa-preset").addEventListener("change", (e) => {
      const kind = (e.target as HTMLSelectElement).value as Preset;
      // Points start on the curve drawn now (the engine's loads at its syncs).
      this.scenario.load = kind === "points" && this.forecast
        ? { kind, points: pointsOf(this.forecast.steps) }
        : presetCurve(kind, this.scenario.duration);
      this.writeLoadFields();
      this.update();
    });
    for (const dir of ["up", "down"] as const) {
      byId(`hpa-${dir}-add`).addEventListener("click", () => {
        const rules = this.scenario[dir];
        rules.policies = [...rules.policies, { type: rules.policies.some((p) => p.type === "Pods") ? "Percent" : "Pods", value: dir === "up" ? 100 : 50, period: 60 }];
        this.writePolicies(dir);
        this.update();
      });
    }
    byId("hpa-prev").addEventListener("click", () => this.move(-1));
    byId("hpa-next").addEventListener("click", () => this.move(1));
    byId("hpa-rollout-start").addEventListener("click", () => {
      const surge = intOrPercent(byId<HTMLInputElement>("hpa-rollout-surge").value);
      const unavailable = intOrPercent(byId<HTMLInputElement>("hpa-rollout-unavailable").value);
      if (surge === null || unavailable === null) return this.error("maxSurge and maxUnavailable are whole numbers or percentages (1, 25%).");
      this.scenario.rollout = { atSeconds: this.selected ?? 0, maxSurge: surge, maxUnavailable: unavailable };
      this.update();
    });
    byId("hpa-rollout-clear").addEventListener("click", () => {
      delete this.scenario.rollout;
      this.update();
    });
    byId("hpa-reset").addEventListener("click", () => {
      this.scenario = clone(DEFAULT_HPA_SCENARIO);
      this.selected = null;
      this.writeForm();
      this.update();
    });
    byId("hpa-import-run").addEventListener("click", () => {
      this.importText = byId<HTMLTextAreaElement>("hpa-import-objects").value;
      this.metricsText = byId<HTMLTextAreaElement>("hpa-import-metrics").value;
      this.importNow = byId<HTMLInputElement>("hpa-import-now").value.trim();
      this.render();
      this.changed();
    });
    byId("hpa-import-example").addEventListener("click", () => {
      this.loadExample();
      this.render();
      this.changed();
    });
    byId<HTMLSelectElement>("hpa-import-pick").addEventListener("change", (e) => {
      this.importName = (e.target as HTMLSelectElement).value || null;
      this.render();
      this.changed();
    });
  }

  private loadExample(): void {
    this.importText = exampleHpa;
    this.metricsText = exampleMetrics;
    this.importNow = EXAMPLE_HPA_NOW;
    this.importName = null;
  }

  private setSource(source: "sim" | "import"): void {
    this.source = source;
    byId<HTMLSelectElement>("hpa-source").value = source;
    byId("hpa-sim-controls").hidden = source !== "sim";
    byId("hpa-sim-views").hidden = source !== "sim";
    byId("hpa-import-controls").hidden = source !== "import";
    byId("hpa-import-views").hidden = source !== "import";
    byId("hpa-nav").hidden = source !== "sim";
  }

  private error(text: string): void {
    byId("hpa-error").textContent = text;
  }

  /** Recomputes and redraws after a change of the scenario, and saves. */
  private update(): void {
    this.error("");
    this.render();
    this.changed();
  }

  private move(by: number): void {
    const steps = this.forecast?.steps ?? [];
    const i = steps.findIndex((x) => x.seconds === this.selected);
    const next = steps[Math.max(0, Math.min(steps.length - 1, i + by))];
    if (next) this.select(next.seconds);
  }

  select(seconds: number): void {
    this.selected = seconds;
    this.render();
    this.changed();
  }

  restore(state: PageState): void {
    // A link written by hand may leave fields out: the defaults fill them (the engine checks the rest).
    const d = clone(DEFAULT_HPA_SCENARIO);
    const given: Partial<HpaScenario> = state.hpa ? clone(state.hpa) : {};
    this.scenario = { ...d, ...given, up: { ...d.up, ...given.up }, down: { ...d.down, ...given.down }, pods: { ...d.pods, ...given.pods } };
    this.selected = state.sync ?? null;
    this.importText = state.list ?? "";
    this.metricsText = state.metrics ?? "";
    this.importNow = state.now ?? EXAMPLE_HPA_NOW;
    this.importName = state.hpaName ?? null;
    this.forecastKey = "";
    this.setSource(state.source ?? "sim");
    if (this.source === "import" && this.importText === "") this.loadExample();
    this.writeForm();
    this.render();
  }

  save(): PageState {
    const st: PageState = { v: 1, mode: "hpa", source: this.source };
    if (this.source === "import") {
      st.list = this.importText;
      st.metrics = this.metricsText;
      st.now = this.importNow;
      if (this.importName !== null) st.hpaName = this.importName;
    } else {
      st.hpa = this.scenario;
      if (this.selected !== null) st.sync = this.selected;
    }
    return st;
  }

  // ---- the form ----------------------------------------------------------------------

  private writeForm(): void {
    const sc = this.scenario;
    const set = (id: string, v: string | number): void => {
      byId<HTMLInputElement>(id).value = String(v);
    };
    set("hpa-min", sc.min);
    set("hpa-max", sc.max);
    set("hpa-target", sc.target);
    set("hpa-tolerance", sc.tolerance);
    set("hpa-initial", sc.initial);
    set("hpa-duration", sc.duration);
    set("hpa-seed", sc.seed);
    set("hpa-running", sc.pods.runningSeconds);
    set("hpa-ready", sc.pods.readySeconds);
    set("hpa-startup-cpu", sc.pods.startupCpu);
    for (const dir of ["up", "down"] as const) {
      const r = sc[dir];
      set(`hpa-${dir}-window`, r.window);
      byId<HTMLSelectElement>(`hpa-${dir}-select`).value = r.select;
      set(`hpa-${dir}-tolerance`, r.tolerance === null ? "" : r.tolerance);
      this.writePolicies(dir);
    }
    this.writeLoadFields();
  }

  private writePolicies(dir: "up" | "down"): void {
    const rules = this.scenario[dir];
    mount(byId(`hpa-${dir}-policies`), rules.policies.map((p, i) => h("span", { class: "policy-row", "data-policy": i },
      h("select", { "aria-label": `scale-${dir} policy ${i + 1} type`, "data-field": "type", value: p.type },
        h("option", { value: "Pods" }, "Pods"), h("option", { value: "Percent" }, "Percent")),
      h("input", { type: "number", min: 1, step: 1, "aria-label": `scale-${dir} policy ${i + 1} value`, "data-field": "value", value: p.value }),
      h("span", null, "per"),
      h("input", { type: "number", min: 1, max: 1800, step: 1, "aria-label": `scale-${dir} policy ${i + 1} period (s)`, "data-field": "period", value: p.period }),
      h("span", null, "s"),
      h("button", {
        type: "button", "aria-label": `remove scale-${dir} policy ${i + 1}`, title: "Remove this policy",
        onclick: () => {
          rules.policies = rules.policies.filter((_, j) => j !== i);
          this.writePolicies(dir);
          this.update();
        },
      }, "×"),
    )));
    // (A select's value is set after its options exist.)
    for (const [i, p] of rules.policies.entries()) {
      const sel = byId(`hpa-${dir}-policies`).querySelector<HTMLSelectElement>(`[data-policy="${i}"] select`);
      if (sel) sel.value = p.type;
    }
  }

  private writeLoadFields(): void {
    const load = this.scenario.load;
    byId<HTMLSelectElement>("hpa-preset").value = load.kind;
    if (load.kind === "points") {
      mount(byId("hpa-load-fields"), h("span", { class: "help" }, `${load.points.length} points: drag them on the chart (arrow keys move a focused point, Delete removes it, a double-click adds one).`));
      return;
    }
    const values = load as unknown as Record<string, number>;
    mount(byId("hpa-load-fields"), PRESET_FIELDS[load.kind].map((f) => h("label", null, `${f.label} `,
      h("input", { type: "number", min: 0, step: "any", "data-load": f.key, id: `hpa-load-${f.key}`, value: values[f.key] ?? 0 }))));
  }

  /** Reads every control into the scenario (the engine checks the values and names a bad one). */
  private readForm(): void {
    const num = (id: string): number => Number(byId<HTMLInputElement>(id).value);
    const sc = this.scenario;
    sc.min = num("hpa-min");
    sc.max = num("hpa-max");
    sc.target = num("hpa-target");
    sc.tolerance = num("hpa-tolerance");
    sc.initial = num("hpa-initial");
    sc.duration = num("hpa-duration");
    sc.seed = num("hpa-seed");
    sc.pods = { runningSeconds: num("hpa-running"), readySeconds: num("hpa-ready"), startupCpu: num("hpa-startup-cpu") };
    for (const dir of ["up", "down"] as const) {
      const tol = byId<HTMLInputElement>(`hpa-${dir}-tolerance`).value.trim();
      const policies: Policy[] = [...byId(`hpa-${dir}-policies`).querySelectorAll<HTMLElement>(".policy-row")].map((row) => ({
        type: row.querySelector<HTMLSelectElement>("[data-field=type]")?.value === "Percent" ? "Percent" : "Pods",
        value: Number(row.querySelector<HTMLInputElement>("[data-field=value]")?.value),
        period: Number(row.querySelector<HTMLInputElement>("[data-field=period]")?.value),
      }));
      const rules: Rules = {
        window: num(`hpa-${dir}-window`),
        select: byId<HTMLSelectElement>(`hpa-${dir}-select`).value as Rules["select"],
        policies,
        tolerance: tol === "" ? null : Number(tol),
      };
      sc[dir] = rules;
    }
    if (sc.load.kind !== "points") {
      const curve: Record<string, unknown> = { kind: sc.load.kind };
      for (const input of byId("hpa-load-fields").querySelectorAll<HTMLInputElement>("input[data-load]")) curve[input.dataset.load ?? ""] = Number(input.value);
      sc.load = curve as unknown as LoadCurve;
    }
    this.update();
  }

  // ---- drawing -----------------------------------------------------------------------

  private compute(): string {
    const sc = this.scenario;
    const key = JSON.stringify([sc, this.selected]);
    if (key === this.forecastKey) return "";
    this.forecastKey = key;
    try {
      const input = { ...forecastInput(sc, this.selected), start: FORECAST_START };
      let f = hpaForecast(input);
      if (this.selected === null || !f.steps.some((x) => x.seconds === this.selected)) {
        // The first sync that rescales (else the first): explained by a second play.
        this.selected = (f.steps.find((x) => x.rescaledTo !== undefined) ?? f.steps[0])?.seconds ?? 0;
        f = hpaForecast({ ...input, explainAtSeconds: this.selected });
        this.forecastKey = JSON.stringify([sc, this.selected]);
      }
      this.forecast = f;
      return "";
    } catch (e) {
      this.forecast = null;
      return `The engine refused the forecast: ${message(e)}`;
    }
  }

  /**
   * The run: the simulator with the same HPA, load and pods (the engine's HPA, Deployment
   * and ReplicaSet controllers in the simulated cluster's loop), played to the end.
   */
  private computeRun(): void {
    const key = JSON.stringify(this.scenario);
    if (key === this.runKey) return;
    this.runKey = key;
    this.runTimer = null;
    let sim: Simulator | null = null;
    try {
      sim = new Simulator(runScenario(this.scenario));
      sim.advance(this.scenario.duration * 1000);
      this.run = sim.hpaSyncs().map((x) => x.step);
      this.runError = "";
    } catch (e) {
      this.run = null;
      this.runError = `The simulator refused the run: ${message(e)}`;
    } finally {
      sim?.free();
    }
  }

  render(): void {
    if (this.source === "import") {
      this.renderImport();
      return;
    }
    if (JSON.stringify(this.scenario) !== this.runKey) {
      this.run = null;
      this.runError = "";
      if (this.runTimer !== null) clearTimeout(this.runTimer);
      this.runTimer = setTimeout(() => {
        this.computeRun();
        if (this.source === "sim") this.render();
      }, 250);
    }
    const failed = this.compute();
    if (failed) this.error(failed);
    const f = this.forecast;
    const ids = ["hpa-summary", "hpa-chart", "hpa-syncs", "hpa-why", "hpa-conditions", "hpa-events", "hpa-totals"];
    if (!f) {
      for (const id of ids) mount(byId(id), null);
      return;
    }
    const sc = this.scenario;
    const at = this.selected ?? 0;
    const e: HpaExplanation | null = f.explanation ?? null;
    const step = f.steps.find((x) => x.seconds === at);
    const total = f.totals;
    byId("hpa-at").textContent = `sync at ${at} s`;
    const rollout = sc.rollout;
    byId("hpa-rollout-status").textContent = rollout
      ? `A rollout starts at ${rollout.atSeconds} s (maxSurge ${rollout.maxSurge}, maxUnavailable ${rollout.maxUnavailable})${total.rolloutSeconds !== undefined ? `: done ${total.rolloutSeconds} s later` : ": not done within the forecast"}.`
      : "No rollout.";
    byId<HTMLButtonElement>("hpa-rollout-clear").disabled = !rollout;
    mount(byId("hpa-summary"), h("p", {
      class: "summary",
      "data-testid": "hpa-summary",
      "data-max": sc.max,
      "data-min": sc.min,
      "data-syncs": total.syncs,
      "data-peak": total.peakPods,
      "data-rescales": total.rescales,
      "data-selected": at,
    },
    h("strong", null, `HPA web → Deployment/web: ${sc.min}…${sc.max} replicas, CPU at ${sc.target}% of request`),
    `; ${total.syncs} syncs every 15 s, ${total.rescales} rescales (${total.scaleUps} up, ${total.scaleDowns} down), peak ${total.peakPods} pods, ${total.secondsUnderCapacity} s under capacity.`,
    ));
    const points: LoadPoint[] | null = sc.load.kind === "points" ? sc.load.points : null;
    mount(byId("hpa-chart"),
      replicasChart(f, {
        duration: sc.duration, min: sc.min, max: sc.max, selected: at, explanation: e, startMs: Date.parse(FORECAST_START), points,
        rolloutAt: rollout ? rollout.atSeconds : null, run: this.run,
        onSelect: (t) => this.select(t),
        onPoints: (pts) => {
          this.scenario.load = { kind: "points", points: pts };
          this.writeLoadFields();
          this.update();
        },
      }),
      utilizationChart(f, { duration: sc.duration, target: sc.target, explanation: e, selected: at, onSelect: (t) => this.select(t) }),
    );
    mount(byId("hpa-syncs"), syncsTable(f.steps, this.run, at, (t) => this.select(t)));
    // The chosen row in view inside its scrolling box (the page itself does not move).
    const box = byId("hpa-syncs");
    const row = box.querySelector<HTMLElement>("tr.chosen");
    if (row) box.scrollTop += row.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 2;
    mount(byId("hpa-why-title"), `Why ${step?.desiredReplicas ?? "?"}? The sync at ${at} s`);
    mount(byId("hpa-why"), e ? explanationView(e) : h("p", { class: "muted" }, "No explanation."));
    mount(byId("hpa-conditions"), e ? conditionsTable(e.conditions) : null);
    mount(byId("hpa-events"), eventsOf(f.steps));
    mount(byId("hpa-totals"), totalsTable(total), runView(f.steps, this.run, this.runError, sc.seed, this.runTimer !== null));
  }

  private renderImport(): void {
    byId<HTMLTextAreaElement>("hpa-import-objects").value = this.importText;
    byId<HTMLTextAreaElement>("hpa-import-metrics").value = this.metricsText;
    byId<HTMLInputElement>("hpa-import-now").value = this.importNow;
    this.error("");
    const out = ["hpa-import-why", "hpa-import-conditions"];
    let e: HpaExplanation;
    try {
      let objects: unknown;
      let metrics: unknown;
      try {
        objects = JSON.parse(this.importText);
      } catch (err) {
        throw new Error(`the objects are not JSON: ${(err as Error).message}`);
      }
      try {
        metrics = this.metricsText.trim() === "" ? [] : JSON.parse(this.metricsText);
      } catch (err) {
        throw new Error(`the pod metrics are not JSON: ${(err as Error).message}`);
      }
      const names = hpaNames(objects);
      const pick = byId<HTMLSelectElement>("hpa-import-pick");
      pick.replaceChildren(...names.map((n) => h("option", { value: n }, n)));
      if (this.importName !== null && names.includes(this.importName)) pick.value = this.importName;
      const input = {
        now: this.importNow,
        objects,
        metrics: Array.isArray(metrics) ? metrics : [metrics],
        ...(names.length > 0 ? { hpa: this.importName !== null && names.includes(this.importName) ? this.importName : (names[0] ?? "") } : {}),
      };
      e = explainHpa(input);
    } catch (err) {
      this.error(message(err));
      for (const id of out) mount(byId(id), null);
      return;
    }
    mount(byId("hpa-import-why"), explanationView(e));
    mount(byId("hpa-import-conditions"), conditionsTable(e.conditions));
  }
}

/** The controls of one direction of `spec.behavior` (its policies are drawn by `writePolicies`). */
function behaviorRow(dir: "up" | "down"): HTMLElement {
  const name = dir === "up" ? "scaleUp" : "scaleDown";
  return h("div", { class: "settings-row", role: "group", "aria-label": `${dir === "up" ? "Scale-up" : "Scale-down"} behavior` },
    h("strong", null, name),
    h("label", null, "stabilizationWindowSeconds ", h("input", { id: `hpa-${dir}-window`, type: "number", min: 0, max: 3600, step: 1 })),
    h("label", null, "selectPolicy ", h("select", { id: `hpa-${dir}-select` }, ["Max", "Min", "Disabled"].map((x) => h("option", null, x)))),
    h("label", null, "tolerance ", h("input", { id: `hpa-${dir}-tolerance`, type: "text", size: 4, placeholder: "flag" })),
    h("span", { id: `hpa-${dir}-policies`, class: "policies" }),
    h("button", { type: "button", id: `hpa-${dir}-add` }, "Add a policy"),
  );
}

/** `namespace/name` of each HPA in the pasted objects (a List, an array of Lists, or objects). */
function hpaNames(objects: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (typeof v !== "object" || v === null) return;
    const o = v as { kind?: unknown; items?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
    if (Array.isArray(o.items)) return o.items.forEach(visit);
    if (o.kind !== "HorizontalPodAutoscaler") return;
    const name = String(o.metadata?.name ?? "");
    out.push(typeof o.metadata?.namespace === "string" ? `${o.metadata.namespace}/${name}` : name);
  };
  visit(objects);
  return out;
}
