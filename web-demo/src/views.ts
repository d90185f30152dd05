// The views both modes share: the cluster (nodes with their pods), the ranking panel and
// the timeline chart. They render plain view models; the modes turn the simulator's state
// or an imported snapshot into those.

import { deletionCostAnnotation, rankRuleTexts, type RankRule, type Sample } from "replicore/playground";
import { duration, h, s, type Child } from "./dom.js";

/** A pod as the cluster view and the editor show it. */
export interface PodView {
  namespace: string;
  name: string;
  node: string | null;
  phase: string;
  ready: boolean;
  ageMs: number;
  restarts: number;
  deletionCost: number;
  /** The owner shown in the ranking (the others are drawn dimmed). */
  mine: boolean;
  terminating: boolean;
  active: boolean;
  /** Extra notes: "crash-looping", "flapping", "not in cache yet", "owned by x". */
  notes: string[];
}

export interface NodeView {
  name: string;
  pods: PodView[];
}

/** One row of the ranking panel. */
export interface RankRow {
  position: number;
  name: string;
  node: string;
  phase: string;
  ready: boolean;
  deletionCost: number;
  colocated: number;
  restarts: number;
  rule: RankRule | null;
  ruleText: string | null;
}

export function ruleText(rule: RankRule | null, given?: string | null): string {
  if (given) return given;
  return rule === null ? "last: nothing after it" : rankRuleTexts()[rule];
}

/** A long name cut in the middle, keeping the distinguishing tail: `web-7d9f…6c5d-c9w4t`. */
export function shortName(name: string, max = 22): string {
  if (name.length <= max) return name;
  const tail = Math.ceil((max - 1) * 0.6);
  return `${name.slice(0, max - 1 - tail)}…${name.slice(name.length - tail)}`;
}

/** A node's host name without its domain (`ip-10-0-3-136.eu-west-1b.compute.internal` → `ip-10-0-3-136`). */
export function shortNode(node: string): string {
  const host = node.split(".")[0] ?? node;
  return shortName(host, 16);
}

export function podKey(p: { namespace: string; name: string }): string {
  return `${p.namespace}/${p.name}`;
}

function phaseClass(p: PodView): string {
  if (p.terminating) return "ph-terminating";
  return `ph-${String(p.phase).toLowerCase() || "none"}`;
}

function podLabel(p: PodView, position: number | undefined, doomed: boolean): string {
  const parts = [
    `pod ${p.name}`,
    p.terminating ? "terminating" : p.phase,
    p.ready ? "ready" : "not ready",
    `age ${duration(p.ageMs)}`,
    `${p.restarts} restarts`,
    `deletion cost ${p.deletionCost}`,
  ];
  if (position !== undefined) parts.push(`scale-down position ${position}`);
  if (doomed) parts.push("would be deleted by the preview");
  parts.push(...p.notes);
  return parts.join(", ");
}

export interface ClusterOptions {
  /** Pods the "scale to N" preview would delete (`namespace/name`). */
  doomed: Set<string>;
  /** Scale-down positions (`namespace/name` → 1-based). */
  positions: Map<string, number>;
  onPick: (pod: PodView) => void;
  /** Whether pods can be edited (buttons) or only shown. */
  editable: boolean;
  /** One line per pod (many pods). */
  compact?: boolean;
}

function podChip(p: PodView, o: ClusterOptions): HTMLElement {
  const key = podKey(p);
  const position = o.positions.get(key);
  const doomed = o.doomed.has(key);
  const cls = ["pod", phaseClass(p), p.mine ? "" : "other", doomed ? "doomed" : "", o.compact ? "compact" : ""].filter(Boolean).join(" ");
  const head = h("span", { class: "pod-head" },
    h("span", { class: p.ready ? "dot ready" : "dot", "aria-hidden": "true" }),
    h("span", { class: "pod-name", title: p.name }, shortName(p.name, 14)),
    position !== undefined ? h("span", { class: "pos", title: "scale-down position" }, `#${position}`) : null,
  );
  const body: Child[] = o.compact ? [head] : [
    head,
    h("span", { class: "pod-line" }, `${p.terminating ? "Terminating" : p.phase || "(no phase)"} · ${p.ready ? "ready" : "not ready"}`),
    h("span", { class: "pod-line" }, `${duration(p.ageMs)} · ↻ ${p.restarts} · cost ${p.deletionCost}`),
    doomed ? h("strong", { class: "pod-line goes" }, "✕ would go") : null,
    p.notes.length > 0 ? h("span", { class: "pod-line note" }, p.notes.join(", ")) : null,
  ];
  if (!o.editable || p.terminating) {
    return h("div", { class: cls, role: "listitem", "aria-label": podLabel(p, position, doomed), title: o.compact ? podLabel(p, position, doomed) : null, "data-pod": p.name }, ...body);
  }
  return h("div", { role: "listitem" },
    h("button", {
      type: "button",
      class: cls,
      "data-key": `pod:${key}`,
      "data-pod": p.name,
      "aria-label": `${podLabel(p, position, doomed)}. Edit`,
      title: o.compact ? podLabel(p, position, doomed) : null,
      onclick: () => o.onPick(p),
    }, ...body),
  );
}

/** Nodes as columns of pod cards; unscheduled pods in a lane of their own. */
export function clusterView(nodes: NodeView[], unscheduled: PodView[], o: ClusterOptions): HTMLElement {
  const lane = (title: string, pods: PodView[], extra: string): HTMLElement =>
    h("section", { class: `node ${extra}`, "aria-label": title },
      h("h3", null, title, h("span", { class: "count" }, ` ${plural(pods.filter((p) => !p.terminating).length, "pod")}`)),
      pods.length === 0
        ? h("p", { class: "empty" }, "no pods")
        : h("div", { class: "pods", role: "list" }, pods.map((p) => podChip(p, o))),
    );
  return h("div", { class: "cluster" },
    nodes.map((n) => lane(n.name, n.pods, "")),
    unscheduled.length > 0 ? lane("unscheduled", unscheduled, "unscheduled") : null,
  );
}

export interface RankingOptions {
  /** How many of the rows would go in the preview (the first ones). */
  goes: number;
  /** The position of each pod under the flipped LogarithmicScaleDown gate (compare column). */
  compare: Map<string, number> | null;
  compareLabel: string;
}

/** The scale-down order as a table, first to go first, each pod with the rule that placed it. */
export function rankingTable(rows: RankRow[], o: RankingOptions): HTMLElement {
  if (rows.length === 0) return h("p", { class: "empty" }, "No active pods to rank.");
  return h("table", { class: "ranking", "data-testid": "ranking" },
    h("caption", { class: "sr-only" }, "Scale-down order, first to go first"),
    h("thead", null, h("tr", null,
      h("th", { scope: "col", class: "c-pos" }, "#"),
      h("th", { scope: "col", class: "c-pod" }, "pod"),
      h("th", { scope: "col", class: "c-state" }, "phase"),
      h("th", { scope: "col", class: "c-ready" }, "ready"),
      h("th", { scope: "col", class: "c-num", title: deletionCostAnnotation() }, "cost"),
      h("th", { scope: "col", class: "c-num", title: "active sibling pods on the same node" }, "co-loc"),
      h("th", { scope: "col", class: "c-num", title: "container restarts" }, h("span", { "aria-hidden": "true" }, "↻"), h("span", { class: "sr-only" }, "restarts")),
      h("th", { scope: "col", class: "c-why" }, "why before next"),
      o.compare ? h("th", { scope: "col", class: "c-cmp", title: `position with the LogarithmicScaleDown gate flipped (${o.compareLabel})` }, o.compareLabel) : null,
    )),
    h("tbody", null, rows.map((r, i) => {
      const goes = i < o.goes;
      const other = o.compare?.get(r.name);
      const moved = other !== undefined && other !== r.position;
      return h("tr", { class: goes ? "goes" : "", "data-pod": r.name, "data-goes": goes ? "yes" : "no" },
        h("td", { class: "num pos" }, goes ? h("span", { class: "goes-mark", title: "would be deleted" }, "✕ ", h("span", { class: "sr-only" }, "goes, ")) : null, String(r.position)),
        h("td", { class: "name", title: `${r.name} on ${r.node || "no node"}` },
          h("span", { class: "pod-n" }, shortName(r.name, 26)),
          h("span", { class: "node-n" }, r.node ? shortNode(r.node) : "no node")),
        h("td", null, r.phase || "—"),
        h("td", null, r.ready ? "yes" : "no"),
        h("td", { class: "num" }, String(r.deletionCost)),
        h("td", { class: "num" }, String(r.colocated)),
        h("td", { class: "num" }, String(r.restarts)),
        h("td", { class: "why" }, ruleText(r.rule, r.ruleText)),
        o.compare
          ? h("td", { class: moved ? "num moved" : "num", "data-compare": other ?? "" },
            other === undefined ? "—" : moved ? `#${other} ${other < r.position ? "↑" : "↓"}` : `#${other}`)
          : null,
      );
    })),
  );
}

const SERIES: Array<{ key: keyof Omit<Sample, "t">; label: string; cls: string }> = [
  { key: "desired", label: "desired", cls: "s-desired" },
  { key: "current", label: "current (active)", cls: "s-current" },
  { key: "ready", label: "ready", cls: "s-ready" },
  { key: "available", label: "available", cls: "s-available" },
];

/** Desired, current, ready and available over virtual time, as step lines in SVG. */
export function timelineChart(samples: Sample[], now: number): Element {
  const W = 640;
  const H = 170;
  const pad = { l: 34, r: 8, t: 8, b: 22 };
  const end = Math.max(now, samples.at(-1)?.t ?? 0, 1000);
  const max = Math.max(1, ...samples.map((x) => Math.max(x.desired, x.current, x.ready, x.available)));
  const yMax = max <= 5 ? 5 : Math.ceil(max / 5) * 5;
  const X = (t: number): number => pad.l + (t / end) * (W - pad.l - pad.r);
  const Y = (v: number): number => H - pad.b - (v / yMax) * (H - pad.t - pad.b);
  const grid: Child[] = [];
  for (let v = 0; v <= yMax; v += yMax / 5) {
    grid.push(s("line", { x1: pad.l, x2: W - pad.r, y1: Y(v), y2: Y(v), class: "grid" }));
    grid.push(s("text", { x: pad.l - 4, y: Y(v) + 4, class: "tick", "text-anchor": "end" }, String(v)));
  }
  const step = niceStep(end / 6);
  for (let t = 0; t <= end; t += step) {
    const anchor = t === 0 ? "start" : X(t) > W - pad.r - 20 ? "end" : "middle";
    grid.push(s("text", { x: X(t), y: H - 6, class: "tick", "text-anchor": anchor }, `${Math.round(t / 1000)} s`));
  }
  const lines = SERIES.map((series, i) => {
    if (samples.length === 0) return null;
    let d = "";
    let prev: number | null = null;
    for (const x of samples) {
      const y = Y(x[series.key]) + (i - 1.5) * 1.8; // a little apart so equal lines stay visible
      d += prev === null ? `M${X(x.t).toFixed(1)},${y.toFixed(1)}` : `H${X(x.t).toFixed(1)}V${y.toFixed(1)}`;
      prev = y;
    }
    d += `H${X(end).toFixed(1)}`;
    return s("path", { d, class: `series ${series.cls}` });
  });
  const last = samples.at(-1);
  const desc = last
    ? `At ${(last.t / 1000).toFixed(1)} s: desired ${last.desired}, current ${last.current}, ready ${last.ready}, available ${last.available}.`
    : "No samples yet.";
  return h("figure", { class: "chart" },
    s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `Timeline of replicas over virtual time. ${desc}` }, ...grid, ...lines),
    h("figcaption", { class: "legend" },
      SERIES.map((x) => h("span", { class: `key ${x.cls}` }, h("span", { class: "swatch", "aria-hidden": "true" }), x.label)),
      h("span", { class: "sr-only" }, desc),
    ),
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function niceStep(raw: number): number {
  const choices = [1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  return choices.find((c) => c >= raw) ?? Math.ceil(raw / 3_600_000) * 3_600_000;
}
