// The Autoscaling tab's pieces: the replicas chart (load, desired and current replicas,
// pods, ready pods, min/max; at the chosen sync its stabilization windows with the
// recommendations inside them and its policies' limits; the load's points to drag), the
// utilization chart (the target and the engine's tolerance band), the syncs, events,
// totals and the engine's explanation of one sync. Pure drawing: every number comes from
// the engine's forecast or explanation.

import type { HpaExplanation, HpaForecast, HpaForecastStep, HpaForecastTotals, LoadPoint } from "replicore/playground";
import { h, s, type Child } from "./dom.js";

const W = 680;
const PAD = { l: 34, r: 10, t: 8, b: 22 };


export interface ChartOptions {
  duration: number;
  min: number;
  max: number;
  /** The chosen sync (seconds). */
  selected: number;
  /** The explanation of the chosen sync (its windows and policies are drawn). */
  explanation: HpaExplanation | null;
  /** The forecast's start (ms since the epoch): recommendations' timestamps are placed from it. */
  startMs: number;
  /** The load's points when the curve is `points` (drawn as handles to drag). */
  points: LoadPoint[] | null;
  /** A rollout's start (seconds). */
  rolloutAt: number | null;
  /** The simulated run's syncs, drawn thin beside the forecast. */
  run: HpaForecastStep[] | null;
  onSelect: (seconds: number) => void;
  onPoints: (points: LoadPoint[]) => void;
}

function niceStep(raw: number): number {
  const choices = [15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 21_600, 43_200, 86_400];
  return choices.find((c) => c >= raw) ?? Math.ceil(raw / 86_400) * 86_400;
}

function seconds(t: number): string {
  return t < 600 ? `${t} s` : t % 60 === 0 ? `${t / 60} min` : `${(t / 60).toFixed(1)} min`;
}

/** A step line of `value` over the steps (each value holds until the next step). */
function stepPath<T extends { seconds: number }>(steps: T[], X: (t: number) => number, Y: (v: number) => number, value: (x: T) => number | undefined, end: number): string {
  let d = "";
  for (const x of steps) {
    const v = value(x);
    if (v === undefined) continue;
    const y = Y(v).toFixed(1);
    d += d === "" ? `M${X(x.seconds).toFixed(1)},${y}` : `H${X(x.seconds).toFixed(1)}V${y}`;
  }
  return d === "" ? "" : `${d}H${X(end).toFixed(1)}`;
}

function axes(H: number, end: number, yMax: number, X: (t: number) => number, Y: (v: number) => number, unit = ""): Child[] {
  const grid: Child[] = [];
  for (let v = 0; v <= yMax + 1e-9; v += yMax / 5) {
    grid.push(s("line", { x1: PAD.l, x2: W - PAD.r, y1: Y(v), y2: Y(v), class: "grid" }));
    grid.push(s("text", { x: PAD.l - 4, y: Y(v) + 4, class: "tick", "text-anchor": "end" }, `${Math.round(v)}${unit}`));
  }
  const step = niceStep(end / 7);
  for (let t = 0; t <= end; t += step) {
    const anchor = t === 0 ? "start" : X(t) > W - PAD.r - 20 ? "end" : "middle";
    grid.push(s("text", { x: X(t), y: H - 6, class: "tick", "text-anchor": anchor }, seconds(t)));
  }
  return grid;
}

/** The sync nearest to a click's x. */
function clickToSync(svg: SVGSVGElement, e: MouseEvent, steps: HpaForecastStep[], T: (x: number) => number): number | null {
  const m = svg.getScreenCTM();
  if (!m) return null;
  const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
  const t = T(p.x);
  let best: HpaForecastStep | null = null;
  for (const x of steps) if (!best || Math.abs(x.seconds - t) < Math.abs(best.seconds - t)) best = x;
  return best ? best.seconds : null;
}

/**
 * Replicas over virtual time: the load (pods at target), the desired count, the
 * Deployment's replicas, the pods and the Ready pods, min and max; at the chosen sync its
 * stabilization windows (shaded) with the recommendations they hold (dots) and each
 * policy's bound over its period; the load's points as handles (drag, arrow keys, Delete;
 * double-click adds one).
 */
export function replicasChart(f: HpaForecast, o: ChartOptions): Element {
  const end = Math.max(o.duration, 15);
  const steps = f.steps;
  const top = Math.max(o.max, ...steps.map((x) => Math.max(x.load, x.pods, x.replicas)), ...(o.points ?? []).map((p) => p.load), ...(o.run ?? []).map((x) => x.pods));
  const yMax = top <= 5 ? 5 : Math.ceil((top * 1.05) / 5) * 5;
  const H = 230;
  const X = (t: number): number => PAD.l + (t / end) * (W - PAD.l - PAD.r);
  const T = (x: number): number => ((x - PAD.l) / (W - PAD.l - PAD.r)) * end;
  const Y = (v: number): number => H - PAD.b - (v / yMax) * (H - PAD.t - PAD.b);
  const V = (y: number): number => ((H - PAD.b - y) / (H - PAD.t - PAD.b)) * yMax;
  const marks: Child[] = [];
  const e = o.explanation;
  const at = o.selected;
  const toSeconds = (ts: string): number => (Date.parse(ts) - o.startMs) / 1000;
  if (e?.stabilization) {
    const st = e.stabilization;
    const windows: Array<[string, number | undefined, typeof st.inDownWindow]> = [
      ["down", st.downWindowSeconds, st.inDownWindow],
      ["up", st.upWindowSeconds, st.inUpWindow],
    ];
    for (const [dir, w, recs] of windows) {
      if (!w) continue;
      const x0 = X(Math.max(0, at - w));
      marks.push(s("rect", { x: x0, y: PAD.t, width: Math.max(0, X(at) - x0), height: H - PAD.t - PAD.b, class: `window window-${dir}`, "data-window": dir, "data-seconds": w }));
      marks.push(s("text", { x: x0 + 3, y: dir === "down" ? PAD.t + 10 : PAD.t + 22, class: "window-label" }, `${dir === "down" ? "scale-down" : "scale-up"} window ${w} s`));
      for (const r of recs) {
        marks.push(s("circle", { cx: X(toSeconds(r.timestamp)), cy: Y(r.recommendation), r: 2.5, class: `rec rec-${dir}` }));
      }
    }
  }
  if (e?.limit) {
    for (const [i, p] of e.limit.policies.entries()) {
      if (p.bound === undefined) continue;
      const x0 = X(Math.max(0, at - p.periodSeconds));
      const limiting = e.limit.limitingPolicy === i;
      marks.push(s("line", { x1: x0, x2: X(at), y1: Y(p.bound), y2: Y(p.bound), class: `policy${limiting ? " limiting" : ""}`, "data-policy": i, "data-bound": p.bound }));
      marks.push(s("text", { x: X(at) + 3, y: Y(p.bound) + 3, class: "policy-label" }, `${p.type} ${p.value}/${p.periodSeconds}s ≤ ${p.bound}`));
    }
  }
  for (const [v, label] of [[o.min, "min"], [o.max, "max"]] as const) {
    marks.push(s("line", { x1: PAD.l, x2: W - PAD.r, y1: Y(v), y2: Y(v), class: "bound" }));
    marks.push(s("text", { x: W - PAD.r - 2, y: Y(v) - 2, class: "tick", "text-anchor": "end" }, `${label} ${v}`));
  }
  if (o.rolloutAt !== null) {
    marks.push(s("line", { x1: X(o.rolloutAt), x2: X(o.rolloutAt), y1: PAD.t, y2: H - PAD.b, class: "mark" }));
    marks.push(s("text", { x: X(o.rolloutAt) + 3, y: H - PAD.b - 4, class: "window-label" }, "rollout"));
  }
  marks.push(s("line", { x1: X(at), x2: X(at), y1: PAD.t, y2: H - PAD.b, class: "cursor" }));
  const series: Child[] = [
    s("path", { d: stepPath(steps, X, Y, (x) => x.load, end), class: "series s-load" }),
    s("path", { d: stepPath(steps, X, Y, (x) => x.pods, end), class: "series s-pods" }),
    s("path", { d: stepPath(steps, X, Y, (x) => x.readyPods, end), class: "series s-available" }),
    s("path", { d: stepPath(steps, X, Y, (x) => x.desiredReplicas, end), class: "series s-desired" }),
    s("path", { d: stepPath(steps, X, Y, (x) => x.replicas, end), class: "series s-current" }),
  ];
  if (o.run) {
    series.push(s("path", { d: stepPath(o.run, X, Y, (x) => x.replicas, end), class: "series s-run", "data-testid": "run-line" }));
  }
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": "Load, desired and current replicas, pods and Ready pods over virtual time; the chosen sync's windows and policy limits",
    "data-testid": "hpa-chart",
  }, ...axes(H, end, yMax, X, Y), ...marks, ...series) as SVGSVGElement;
  svg.addEventListener("click", (ev) => {
    if ((ev.target as Element).closest(".handle")) return;
    const t = clickToSync(svg, ev, steps, T);
    if (t !== null) o.onSelect(t);
  });
  if (o.points) {
    const pts = o.points;
    const snap = (p: LoadPoint): LoadPoint => ({ atSeconds: Math.max(0, Math.min(end, Math.round(p.atSeconds / 5) * 5)), load: Math.max(0, Math.round(p.load * 2) / 2) });
    const within = (i: number, p: LoadPoint): LoadPoint => {
      const lo = pts[i - 1]?.atSeconds ?? 0;
      const hi = pts[i + 1]?.atSeconds ?? end;
      return { atSeconds: Math.max(lo, Math.min(hi, p.atSeconds)), load: p.load };
    };
    const line = s("polyline", { points: pts.map((p) => `${X(p.atSeconds)},${Y(p.load)}`).join(" "), class: "points-line" });
    svg.appendChild(line);
    const redraw = (i: number, p: LoadPoint): void => {
      const next = pts.map((q, j) => (j === i ? p : q));
      line.setAttribute("points", next.map((q) => `${X(q.atSeconds)},${Y(q.load)}`).join(" "));
    };
    for (const [i, p] of pts.entries()) {
      const c = s("circle", {
        cx: X(p.atSeconds), cy: Y(p.load), r: 6, class: "handle", tabindex: 0, role: "slider",
        "aria-label": `load point ${i + 1}: ${p.load} pods at ${p.atSeconds} s (arrows move it, Delete removes it)`,
        "aria-valuenow": p.load, "data-key": `hpa-point-${i}`, "data-point": i, "data-at": p.atSeconds, "data-load": p.load,
      }) as SVGCircleElement;
      let dragging: LoadPoint | null = null;
      const where = (ev: PointerEvent): LoadPoint => {
        const m = svg.getScreenCTM();
        const q = m ? new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse()) : new DOMPoint(X(p.atSeconds), Y(p.load));
        return within(i, snap({ atSeconds: T(q.x), load: V(q.y) }));
      };
      c.addEventListener("pointerdown", (ev) => {
        ev.preventDefault();
        c.setPointerCapture(ev.pointerId);
        dragging = p;
      });
      c.addEventListener("pointermove", (ev) => {
        if (!dragging) return;
        dragging = where(ev);
        c.setAttribute("cx", String(X(dragging.atSeconds)));
        c.setAttribute("cy", String(Y(dragging.load)));
        redraw(i, dragging);
      });
      const drop = (): void => {
        if (!dragging) return;
        const q = dragging;
        dragging = null;
        if (q.atSeconds !== p.atSeconds || q.load !== p.load) o.onPoints(pts.map((r, j) => (j === i ? q : r)));
      };
      c.addEventListener("pointerup", drop);
      c.addEventListener("pointercancel", drop);
      c.addEventListener("keydown", (ev) => {
        const moves: Record<string, [number, number]> = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-15, 0], ArrowRight: [15, 0] };
        const m = moves[ev.key];
        if (m) {
          ev.preventDefault();
          o.onPoints(pts.map((r, j) => (j === i ? within(i, snap({ atSeconds: r.atSeconds + m[0], load: r.load + m[1] })) : r)));
        } else if ((ev.key === "Delete" || ev.key === "Backspace") && pts.length > 1) {
          ev.preventDefault();
          o.onPoints(pts.filter((_, j) => j !== i));
        }
      });
      svg.appendChild(c);
    }
    svg.addEventListener("dblclick", (ev) => {
      const m = svg.getScreenCTM();
      if (!m || (ev.target as Element).closest(".handle")) return;
      const q = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
      const p = snap({ atSeconds: T(q.x), load: V(q.y) });
      o.onPoints([...pts, p].sort((a, b) => a.atSeconds - b.atSeconds));
    });
  }
  const chosen = steps.find((x) => x.seconds === at);
  const desc = chosen
    ? `At ${at} s: load ${chosen.load.toFixed(1)} pods at target, desired ${chosen.desiredReplicas}, replicas ${chosen.replicas}, ${chosen.pods} pods, ${chosen.readyPods} Ready.`
    : "No sync chosen.";
  return h("figure", { class: "chart hpa" },
    svg,
    h("figcaption", { class: "legend" },
      h("span", { class: "key s-load" }, h("span", { class: "swatch", "aria-hidden": "true" }), "load (pods at target)"),
      h("span", { class: "key s-desired" }, h("span", { class: "swatch", "aria-hidden": "true" }), "desired"),
      h("span", { class: "key s-current" }, h("span", { class: "swatch", "aria-hidden": "true" }), "replicas"),
      h("span", { class: "key s-pods" }, h("span", { class: "swatch", "aria-hidden": "true" }), "pods"),
      h("span", { class: "key s-available" }, h("span", { class: "swatch", "aria-hidden": "true" }), "Ready"),
      o.run ? h("span", { class: "key s-run" }, h("span", { class: "swatch", "aria-hidden": "true" }), "run: replicas") : null,
      h("span", { class: "muted" }, "shaded: the chosen sync's windows; red ticks: its policies' bounds"),
      h("span", { class: "sr-only" }, desc),
    ),
  );
}

/**
 * The first metric's utilization over time with the target and the tolerance band the
 * engine applies (`explanation.tolerance`: a usage ratio within [low, high] changes
 * nothing).
 */
export function utilizationChart(f: HpaForecast, o: { duration: number; target: number; explanation: HpaExplanation | null; selected: number; onSelect: (t: number) => void }): Element {
  const end = Math.max(o.duration, 15);
  const band = o.explanation?.tolerance;
  const hi = band ? o.target * band.high : o.target;
  const top = Math.max(hi, ...f.steps.map((x) => x.utilization ?? 0));
  const yMax = Math.ceil((top * 1.1) / 50) * 50;
  const H = 150;
  const X = (t: number): number => PAD.l + (t / end) * (W - PAD.l - PAD.r);
  const T = (x: number): number => ((x - PAD.l) / (W - PAD.l - PAD.r)) * end;
  const Y = (v: number): number => H - PAD.b - (v / yMax) * (H - PAD.t - PAD.b);
  const marks: Child[] = [];
  if (band) {
    marks.push(s("rect", {
      x: PAD.l, width: W - PAD.l - PAD.r, y: Y(o.target * band.high), height: Y(o.target * band.low) - Y(o.target * band.high), class: "tolerance",
      "data-testid": "tolerance-band", "data-low": band.low, "data-high": band.high,
    }));
  }
  marks.push(s("line", { x1: PAD.l, x2: W - PAD.r, y1: Y(o.target), y2: Y(o.target), class: "target" }));
  marks.push(s("text", { x: W - PAD.r - 2, y: Y(o.target) - 3, class: "tick", "text-anchor": "end" }, `target ${o.target}%`));
  marks.push(s("line", { x1: X(o.selected), x2: X(o.selected), y1: PAD.t, y2: H - PAD.b, class: "cursor" }));
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "CPU utilization (percent of request) with the target and the tolerance band", "data-testid": "hpa-utilization" },
    ...axes(H, end, yMax, X, Y, "%"), ...marks,
    s("path", { d: stepPath(f.steps, X, Y, (x) => x.utilization, end), class: "series s-util" }),
  ) as SVGSVGElement;
  svg.addEventListener("click", (ev) => {
    const t = clickToSync(svg, ev, f.steps, T);
    if (t !== null) o.onSelect(t);
  });
  return h("figure", { class: "chart hpa" }, svg,
    h("figcaption", { class: "legend" },
      h("span", { class: "key s-util" }, h("span", { class: "swatch", "aria-hidden": "true" }), "CPU utilization (status.currentMetrics)"),
      band ? h("span", { class: "key band-key" }, h("span", { class: "swatch", "aria-hidden": "true" }), `tolerance band: ratio ${band.low.toFixed(2)} … ${band.high.toFixed(2)} of the target`) : null,
    ));
}

/** The run's sync at each forecast sync (by index: both sync every period from 0), and whether it is the same. */
function pairs(steps: HpaForecastStep[], run: HpaForecastStep[] | null): Array<{ step: HpaForecastStep; run: HpaForecastStep | undefined; same: boolean }> {
  return steps.map((step, i) => {
    const r = run?.[i];
    return { step, run: r, same: r !== undefined && JSON.stringify(r) === JSON.stringify(step) };
  });
}

/** Every sync: the figures and what held the count back, the run's replicas beside; a row chooses the sync. */
export function syncsTable(steps: HpaForecastStep[], run: HpaForecastStep[] | null, selected: number, onSelect: (t: number) => void): Element {
  const head = ["t", "load", "CPU", "desired", "replicas", "pods", "Ready", "held back by", "rescale", run ? "run" : null];
  return h("table", { class: "data", "data-testid": "hpa-syncs" },
    h("thead", null, h("tr", null, head.map((x) => (x === null ? null : h("th", { scope: "col", title: x === "run" ? "the simulated run's replicas; ≠ where its sync differs from the forecast's" : null }, x))))),
    h("tbody", null, pairs(steps, run).map(({ step: x, run: r, same }) => h("tr", {
      class: x.seconds === selected ? "chosen" : null,
      "data-seconds": x.seconds,
      "data-desired": x.desiredReplicas,
      "data-replicas": x.replicas,
      "data-ready": x.readyPods,
      "data-rescaled": x.rescaledTo ?? "",
      "data-limited": x.limitedBy ?? "",
      "data-able": x.ableToScale,
      onclick: () => onSelect(x.seconds),
    },
    h("td", { class: "num" }, h("button", { type: "button", class: "link", "data-key": `hpa-sync-${x.seconds}`, "aria-pressed": String(x.seconds === selected), onclick: () => onSelect(x.seconds) }, `${x.seconds} s`)),
    h("td", { class: "num" }, x.load.toFixed(1)),
    h("td", { class: "num" }, x.utilization === undefined ? "–" : `${x.utilization}%`),
    h("td", { class: "num" }, x.desiredReplicas),
    h("td", { class: "num" }, x.replicas),
    h("td", { class: "num" }, x.pods),
    h("td", { class: "num" }, x.readyPods),
    h("td", null, x.limitedBy ? h("code", null, x.limitedBy) : ""),
    h("td", { class: "num" }, x.rescaledTo === undefined ? "" : `→ ${x.rescaledTo}`),
    run ? h("td", { class: `num${same ? "" : " differs"}`, "data-run-replicas": r?.replicas ?? "" }, r === undefined ? "–" : `${r.replicas}${same ? "" : " ≠"}`) : null,
    ))),
  );
}

/** Which figures of a sync differ between the forecast and the run, in words. */
function differences(f: HpaForecastStep, r: HpaForecastStep | undefined): string {
  if (!r) return "the run has no sync there";
  const fields = ["desiredReplicas", "replicas", "newReplicas", "oldReplicas", "pods", "readyPods", "utilization"] as const;
  const what = fields.filter((k) => r[k] !== f[k]).map((k) => `${k}: run ${r[k] ?? "–"}, forecast ${f[k] ?? "–"}`);
  return what.length ? what.join("; ") : "in its samples, conditions or events";
}

/** The run beside the forecast: how many syncs, and whether every one is the forecast's. */
export function runView(steps: HpaForecastStep[], run: HpaForecastStep[] | null, error: string, seed: number, pending: boolean): Element {
  if (pending) return h("p", { class: "muted", "data-testid": "hpa-run", "data-run-pending": "true" }, "The run: playing the same scenario in the simulator…");
  if (!run) return h("p", { class: "error", "data-testid": "hpa-run" }, error || "No run.");
  const differs = pairs(steps, run).find((p) => !p.same);
  const equal = differs === undefined && run.length === steps.length;
  return h("p", {
    class: "summary",
    "data-testid": "hpa-run",
    "data-run-syncs": run.length,
    "data-run-equal": String(equal),
    "data-run-differs": differs?.step.seconds ?? "",
  },
  h("strong", null, "The run: "),
  `the seeded simulator (seed ${seed}) with the same HPA, load and pods, the engine's HPA, Deployment and ReplicaSet controllers in its loop: ${run.length} syncs; `,
  equal
    ? "every sync equals the forecast's."
    : differs
      ? `it differs from the forecast first at ${differs.step.seconds} s (${differences(differs.step, differs.run)}).`
      : `the forecast has ${steps.length} syncs.`,
  );
}

/** The events of every sync, newest last. */
export function eventsOf(steps: HpaForecastStep[]): Element {
  const rows = steps.flatMap((x) => x.events.map((e) => ({ t: x.seconds, e })));
  if (rows.length === 0) return h("p", { class: "muted" }, "No events.");
  return h("ol", { class: "events", "data-testid": "hpa-events" },
    rows.map(({ t, e }) => h("li", { "data-reason": e.reason, class: e.type === "Warning" ? "warning" : null },
      h("span", { class: "ev-t" }, `${t} s`), " ", h("strong", null, e.reason), " ", e.message)));
}

/** The forecast's totals. */
export function totalsTable(t: HpaForecastTotals): Element {
  const rows: Array<[string, (x: HpaForecastTotals) => string | number]> = [
    ["syncs", (x) => x.syncs],
    ["rescales (up / down)", (x) => `${x.rescales} (${x.scaleUps} / ${x.scaleDowns})`],
    ["direction changes", (x) => x.directionChanges],
    ["seconds under capacity", (x) => x.secondsUnderCapacity],
    ["longest time to capacity", (x) => (x.longestSecondsToCapacity === undefined ? "–" : `${x.longestSecondsToCapacity} s`)],
    ["peak pods", (x) => x.peakPods],
    ["over-provisioned pod-seconds", (x) => Math.round(x.overProvisionedPodSeconds)],
    ["rollout done after", (x) => (x.rolloutSeconds === undefined ? "–" : `${x.rolloutSeconds} s`)],
  ];
  return h("table", { class: "data compare", "data-testid": "hpa-totals" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, "forecast"))),
    h("tbody", null, rows.map(([label, f]) => h("tr", null, h("th", { scope: "row" }, label), h("td", null, f(t))))));
}

/**
 * The engine's "why N?" of one sync: the headline figures, the engine's text, then each
 * pod of a pod metric (how it counted, and why) and the assumptions made for the others.
 */
export function explanationView(e: HpaExplanation): Element {
  const pods = e.metrics.flatMap((m) => (m.pods ?? []).map((p) => ({ metric: m.name, ...p })));
  const several = e.metrics.length > 1;
  const attrs: Record<string, string | number> = {
    class: "explanation",
    "data-testid": "hpa-explanation",
    "data-desired": e.desiredReplicas,
    "data-rescale": e.rescaleTo ?? "",
    "data-limit": e.limit?.reason ?? "",
    "data-limited": String(e.limit?.limited ?? false),
    "data-stabilization": e.stabilization?.reason ?? "",
    "data-stabilized": e.stabilization?.stabilized ?? "",
    "data-proposal": e.stabilization?.proposal ?? "",
  };
  return h("div", attrs,
    h("p", { class: "summary" },
      h("strong", null, `${e.namespace}/${e.name} → ${e.desiredReplicas} replicas`),
      e.rescaleTo !== undefined ? ` (writes ${e.target}: ${e.scale?.specReplicas ?? "?"} → ${e.rescaleTo})` : " (no scale write)",
      e.limit?.limited ? h("span", { class: "warn" }, ` held back: ${e.limit.reason}`) : null,
      e.stabilization && e.stabilization.stabilized !== e.stabilization.proposal ? h("span", { class: "warn" }, ` stabilized: ${e.stabilization.proposal} → ${e.stabilization.stabilized}`) : null,
    ),
    h("pre", { class: "why", "data-testid": "hpa-why" }, e.text),
    pods.length === 0 ? null : h("table", { class: "data", "data-testid": "hpa-pods" },
      h("thead", null, h("tr", null, ["pod", several ? "metric" : null, "counted as", "sample", "why"].map((x) => (x === null ? null : h("th", { scope: "col" }, x))))),
      h("tbody", null, pods.map((p) => h("tr", { "data-pod": p.name, "data-class": p.class },
        h("td", null, p.name), several ? h("td", null, p.metric) : null, h("td", null, p.class),
        h("td", { class: "num" }, p.value === undefined ? "–" : `${p.value}m`), h("td", null, p.why ?? ""))))),
    e.metrics.flatMap((m) => m.rebalance
      ? [h("p", { class: "assumed", "data-testid": "hpa-assumed" },
        m.rebalance.missingAssumed ? `Pods without a sample: assumed at ${m.rebalance.missingAssumed}. ` : "",
        m.rebalance.unreadyAssumedZero ? "Unready pods: assumed at 0 (a scale-up). " : "",
        `The ratio with these assumptions: ${m.rebalance.newRatio.toFixed(3)}${m.rebalance.withinTolerance ? " (within tolerance)" : ""}${m.rebalance.directionFlipped ? ", which turns the direction around: no change" : ""}.`)]
      : []),
  );
}
