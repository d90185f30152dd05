// The Deployment view's pieces: the rollout chart (pods and available pods inside the
// surge/unavailability band, then one lane per ReplicaSet), the lane, condition, sync and
// forecast tables. Pure drawing: every number arrives from the simulator or the engine.

import type { DeploymentSample, LaneSample } from "replicore/playground";
import { h, s, type Child } from "./dom.js";

/** A ReplicaSet at one instant, as the lanes table shows it. */
export interface LaneRow {
  name: string;
  revision: number | null;
  new: boolean;
  image?: string;
  desired: number;
  current: number;
  ready: number;
  available: number;
}

/** A condition, as the simulator or the engine's explanation gives it. */
export interface ConditionRow {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** One forecast step (the engine's `ForecastStep`). */
export interface ForecastStepRow {
  seconds: number;
  newReplicas: number;
  oldReplicas: number;
  pods: number;
  available: number;
  maxPods: number;
  minAvailable: number;
  rule: string;
  why: string;
}

/** The engine's `Forecast`, as much of it as the view shows. */
export interface ForecastView {
  deployment: string;
  strategy: string;
  replicas: number;
  maxSurge: number;
  maxUnavailable: number;
  steps: ForecastStepRow[];
  end: { kind: "complete"; seconds: number } | { kind: "stalled"; seconds: number; reason: string; why: string } | { kind: "unfinished"; seconds: number };
  peakPods: number;
  minAvailable: number;
  syncs: number;
}

/** What the run did since the template last changed (read off the simulator's samples). */
export interface RunView {
  /** Seconds from the change to the last sample, when the rollout completed; null while it runs or stalls. */
  seconds: number | null;
  peakPods: number;
  minAvailable: number;
  /** replicas of the new / old ReplicaSets at the end. */
  newReplicas: number;
  oldReplicas: number;
  /** The Progressing condition's reason now. */
  progressing: string;
}

const W = 680;
const PAD = { l: 34, r: 10, t: 8, b: 22 };

function niceStep(raw: number): number {
  const choices = [1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  return choices.find((c) => c >= raw) ?? Math.ceil(raw / 3_600_000) * 3_600_000;
}

/** A step-line path of `value` over the samples, up to `end`. */
function stepPath(samples: DeploymentSample[], X: (t: number) => number, Y: (v: number) => number, value: (x: DeploymentSample) => number, end: number): string {
  let d = "";
  for (const x of samples) {
    const y = Y(value(x)).toFixed(1);
    d += d === "" ? `M${X(x.t).toFixed(1)},${y}` : `H${X(x.t).toFixed(1)}V${y}`;
  }
  return d === "" ? "" : `${d}H${X(end).toFixed(1)}`;
}

/** The band between `minAvailable` and `maxPods`, over time (both step functions). */
function bandPath(samples: DeploymentSample[], X: (t: number) => number, Y: (v: number) => number, end: number): string {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last) return "";
  let d = stepPath(samples, X, Y, (x) => x.maxPods, end);
  d += `V${Y(last.minAvailable).toFixed(1)}`;
  for (let i = samples.length - 1; i > 0; i--) {
    const here = samples[i];
    const before = samples[i - 1];
    if (here && before) d += `H${X(here.t).toFixed(1)}V${Y(before.minAvailable).toFixed(1)}`;
  }
  return `${d}H${X(first.t).toFixed(1)}Z`;
}

/**
 * The rollout over virtual time: the band (at most maxPods pods, at least minAvailable
 * available), the pods and available pods inside it, then one lane per ReplicaSet with
 * its desired replicas, its pods and its available pods. `from` marks the last template
 * change.
 */
export function rolloutChart(samples: DeploymentSample[], now: number, from: number | null): Element {
  const end = Math.max(now, samples.at(-1)?.t ?? 0, 1000);
  const max = Math.max(1, ...samples.map((x) => Math.max(x.maxPods, x.pods, x.replicas)));
  const yMax = max <= 5 ? 5 : Math.ceil(max / 5) * 5;
  const H = 190;
  const X = (t: number): number => PAD.l + (t / end) * (W - PAD.l - PAD.r);
  const Y = (v: number): number => H - PAD.b - (v / yMax) * (H - PAD.t - PAD.b);
  const grid: Child[] = [];
  for (let v = 0; v <= yMax; v += yMax / 5) {
    grid.push(s("line", { x1: PAD.l, x2: W - PAD.r, y1: Y(v), y2: Y(v), class: "grid" }));
    grid.push(s("text", { x: PAD.l - 4, y: Y(v) + 4, class: "tick", "text-anchor": "end" }, String(v)));
  }
  const step = niceStep(end / 6);
  for (let t = 0; t <= end; t += step) {
    const anchor = t === 0 ? "start" : X(t) > W - PAD.r - 20 ? "end" : "middle";
    grid.push(s("text", { x: X(t), y: H - 6, class: "tick", "text-anchor": anchor }, `${Math.round(t / 1000)} s`));
  }
  const marks: Child[] = [];
  if (from !== null) marks.push(s("line", { x1: X(from), x2: X(from), y1: PAD.t, y2: H - PAD.b, class: "mark" }));
  const main = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Pods and available pods inside the surge and availability band", "data-testid": "rollout-chart" },
    ...grid,
    s("path", { d: bandPath(samples, X, Y, end), class: "band" }),
    s("path", { d: stepPath(samples, X, Y, (x) => x.maxPods, end), class: "bound" }),
    s("path", { d: stepPath(samples, X, Y, (x) => x.minAvailable, end), class: "bound" }),
    s("path", { d: stepPath(samples, X, Y, (x) => x.replicas, end), class: "series s-desired" }),
    s("path", { d: stepPath(samples, X, Y, (x) => x.pods, end), class: "series s-current" }),
    s("path", { d: stepPath(samples, X, Y, (x) => x.available, end), class: "series s-available" }),
    ...marks,
  );
  // One lane per ReplicaSet seen, oldest revision first.
  const names: Array<{ name: string; revision: number | null }> = [];
  for (const x of samples) {
    for (const l of x.lanes) if (!names.some((n) => n.name === l.name)) names.push({ name: l.name, revision: l.revision });
  }
  const LH = 52;
  const lanes = names.map((n, i) => {
    const laneOf = (x: DeploymentSample): LaneSample | undefined => x.lanes.find((l) => l.name === n.name);
    // The label on top, the lane's area below it.
    const LY = (v: number): number => LH - 3 - (v / yMax) * (LH - 19);
    const val = (f: (l: LaneSample) => number) => (x: DeploymentSample): number => {
      const l = laneOf(x);
      return l ? f(l) : 0;
    };
    const area = (f: (l: LaneSample) => number): string => {
      const line = stepPath(samples, X, LY, val(f), end);
      return line === "" ? "" : `${line}V${LY(0)}H${X(samples[0]?.t ?? 0).toFixed(1)}Z`;
    };
    const isNew = samples.at(-1)?.lanes.find((l) => l.name === n.name)?.new ?? false;
    return s("g", { transform: `translate(0, ${i * LH})`, "data-lane": n.name },
      s("line", { x1: PAD.l, x2: W - PAD.r, y1: LY(0), y2: LY(0), class: "grid" }),
      s("path", { d: area((l) => l.current), class: `lane-current lane-${i % 6}` }),
      s("path", { d: area((l) => l.available), class: `lane-available lane-${i % 6}` }),
      s("path", { d: stepPath(samples, X, LY, val((l) => l.desired), end), class: "series s-desired" }),
      s("text", { x: PAD.l + 4, y: 12, class: "lane-label" }, `${n.revision === null ? "" : `rev ${n.revision} · `}${n.name}${isNew ? " (new)" : ""}`),
    );
  });
  const lanesSvg = s("svg", { viewBox: `0 0 ${W} ${Math.max(1, names.length) * LH}`, role: "img", "aria-label": "ReplicaSets as lanes: desired replicas (line), pods (light) and available pods (dark)" }, ...lanes);
  const last = samples.at(-1);
  const desc = last
    ? `At ${(last.t / 1000).toFixed(1)} s: ${last.pods} pods (at most ${last.maxPods}), ${last.available} available (at least ${last.minAvailable}).`
    : "No samples yet.";
  return h("figure", { class: "chart rollout" },
    main,
    lanesSvg,
    h("figcaption", { class: "legend" },
      h("span", { class: "key band-key" }, h("span", { class: "swatch", "aria-hidden": "true" }), "band: minAvailable … maxPods"),
      h("span", { class: "key s-desired" }, h("span", { class: "swatch", "aria-hidden": "true" }), "replicas (spec)"),
      h("span", { class: "key s-current" }, h("span", { class: "swatch", "aria-hidden": "true" }), "pods"),
      h("span", { class: "key s-available" }, h("span", { class: "swatch", "aria-hidden": "true" }), "available"),
      h("span", { class: "muted" }, "lanes: light = pods, dark = available, dashed = spec"),
      h("span", { class: "sr-only" }, desc),
    ),
  );
}

/** The ReplicaSets at one instant as horizontal bars (the imported snapshot's lanes). */
export function laneBars(rows: LaneRow[], maxPods: number): Element {
  const top = Math.max(1, maxPods, ...rows.map((r) => Math.max(r.desired, r.current)));
  const LH = 30;
  const X = (v: number): number => 220 + (v / top) * (W - 230);
  const bars = rows.map((r, i) =>
    s("g", { transform: `translate(0, ${i * LH})`, "data-lane": r.name },
      s("text", { x: 4, y: 19, class: "lane-label" }, `${r.revision === null ? "" : `rev ${r.revision} · `}${r.name}${r.new ? " (new)" : ""}`),
      s("rect", { x: X(0), y: 6, width: X(r.current) - X(0), height: 18, class: `lane-current lane-${i % 6}` }),
      s("rect", { x: X(0), y: 6, width: X(r.available) - X(0), height: 18, class: `lane-available lane-${i % 6}` }),
      s("line", { x1: X(r.desired), x2: X(r.desired), y1: 2, y2: 28, class: "series s-desired" }),
    ),
  );
  return h("figure", { class: "chart rollout" },
    s("svg", { viewBox: `0 0 ${W} ${Math.max(1, rows.length) * LH}`, role: "img", "aria-label": "ReplicaSets at the snapshot's instant: pods (light), available (dark), spec.replicas (line)" }, ...bars),
  );
}

export function lanesTable(rows: LaneRow[]): Element {
  return h("table", { class: "data", "data-testid": "lanes" },
    h("thead", null, h("tr", null, ["ReplicaSet", "rev", "image", "spec", "pods", "ready", "available"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", null, rows.map((r) =>
      h("tr", { "data-rs": r.name, "data-new": String(r.new), "data-revision": r.revision ?? "" },
        h("td", null, r.name, r.new ? h("span", { class: "badge" }, "new") : null),
        h("td", { class: "num" }, r.revision ?? "–"),
        h("td", null, r.image ?? "–"),
        h("td", { class: "num" }, r.desired),
        h("td", { class: "num" }, r.current),
        h("td", { class: "num" }, r.ready),
        h("td", { class: "num" }, r.available),
      ))),
  );
}

export function conditionsTable(rows: ConditionRow[]): Element {
  if (rows.length === 0) return h("p", { class: "muted" }, "No conditions yet.");
  return h("table", { class: "data", "data-testid": "conditions" },
    h("thead", null, h("tr", null, ["type", "status", "reason", "message"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", null, rows.map((c) =>
      h("tr", { "data-type": c.type, "data-reason": c.reason },
        h("td", null, c.type), h("td", null, c.status), h("td", null, h("code", null, c.reason)), h("td", null, c.message)))),
  );
}

/** The forecast beside the run: the step table and the totals. */
export function forecastView(f: ForecastView, run: RunView | null): Element {
  const endText = f.end.kind === "complete"
    ? `complete after ${f.end.seconds} s`
    : f.end.kind === "stalled"
      ? `stalled at ${f.end.seconds} s: ${f.end.reason}${f.end.why ? ` (${f.end.why})` : ""}`
      : `unfinished after ${f.end.seconds} s`;
  const totals = h("table", { class: "data compare", "data-testid": "forecast-totals" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, "forecast"), run ? h("th", { scope: "col" }, "run") : null)),
    h("tbody", null,
      h("tr", null, h("th", { scope: "row" }, "total time"),
        h("td", { "data-testid": "forecast-seconds" }, endText),
        run ? h("td", { "data-testid": "run-seconds" }, run.seconds === null ? `not complete (${run.progressing || "running"})` : `complete after ${run.seconds} s`) : null),
      h("tr", null, h("th", { scope: "row" }, "peak pods"), h("td", null, f.peakPods), run ? h("td", null, run.peakPods) : null),
      h("tr", null, h("th", { scope: "row" }, "fewest available"), h("td", null, f.minAvailable), run ? h("td", null, run.minAvailable) : null),
      h("tr", null, h("th", { scope: "row" }, "new / old replicas at the end"),
        h("td", null, `${f.steps.at(-1)?.newReplicas ?? 0} / ${f.steps.at(-1)?.oldReplicas ?? 0}`),
        run ? h("td", null, `${run.newReplicas} / ${run.oldReplicas}`) : null),
    ),
  );
  const steps = h("div", { class: "scroll short" },
    h("table", { class: "data", "data-testid": "forecast-steps" },
      h("thead", null, h("tr", null, ["t", "new", "old", "pods", "available", "band", "rule"].map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", null, f.steps.map((x) =>
        h("tr", null,
          h("td", { class: "num" }, `${x.seconds} s`),
          h("td", { class: "num" }, x.newReplicas),
          h("td", { class: "num" }, x.oldReplicas),
          h("td", { class: "num" }, x.pods),
          h("td", { class: "num" }, x.available),
          h("td", { class: "num" }, `${x.minAvailable}…${x.maxPods}`),
          h("td", { title: x.why }, h("code", null, x.rule), " ", h("small", null, x.why)),
        ))),
    ),
  );
  const attrs: Record<string, string | number> = {
    class: "forecast",
    "data-testid": "forecast",
    "data-forecast-end": f.end.kind,
    "data-forecast-seconds": f.end.seconds,
    "data-forecast-peak": f.peakPods,
    "data-forecast-min-available": f.minAvailable,
    "data-forecast-new": f.steps.at(-1)?.newReplicas ?? 0,
    "data-forecast-old": f.steps.at(-1)?.oldReplicas ?? 0,
  };
  if (f.end.kind === "stalled") attrs["data-forecast-reason"] = f.end.reason;
  if (run) {
    attrs["data-run-seconds"] = run.seconds === null ? "" : run.seconds;
    attrs["data-run-peak"] = run.peakPods;
    attrs["data-run-min-available"] = run.minAvailable;
    attrs["data-run-new"] = run.newReplicas;
    attrs["data-run-old"] = run.oldReplicas;
  }
  return h("div", attrs,
    h("p", { class: "summary" }, `${f.deployment}: ${f.strategy}, ${f.replicas} replicas, maxSurge ${f.maxSurge}, maxUnavailable ${f.maxUnavailable}; ${f.syncs} syncs played.`),
    totals,
    steps,
  );
}
