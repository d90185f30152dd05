// The simulated cluster: the package's seeded `Simulator` (virtual clock, API server with
// quota, watch with delays and drops, kubelet model, the controller running the engine),
// driven by play/pause/step at a chosen speed, with every view drawn from its state, its
// trace and its history. The scenario with the edits made so far goes in the URL.

import { Simulator, isReplicoreError, type Faults, type Scenario, type SimOwner, type SimPod, type SimState, type SyncTrace, type TraceEntry } from "replicore/playground";
import { PlayClock } from "./play-clock.js";
import { byId, duration, h, mount, vtime } from "./dom.js";
import { openEditor } from "./editor.js";
import type { PageState } from "./url.js";
import { clusterView, rankingTable, ruleText, timelineChart, type NodeView, type PodView, type RankRow } from "./views.js";

export const DEFAULT_SCENARIO: Scenario = { seed: 1, replicas: 3, nodes: 3 };

/** Whether this build of the package has the simulator (its wasm class). */
export function simulatorAvailable(): boolean {
  try {
    new Simulator({ seed: 0, replicas: 0, nodes: 1 }).free();
    return true;
  } catch {
    return false;
  }
}

interface SyncAt {
  t: number;
  sync: SyncTrace;
}

const SPEEDS = [0.25, 0.5, 1, 2, 5, 10, 30];

const FAULT_INPUTS = [
  ["sim-f-create", "createFailure"],
  ["sim-f-crash", "crashLoop"],
  ["sim-f-flap", "readinessFlap"],
  ["sim-f-drop", "watchDrop"],
] as const;

export class SimMode {
  sim: Simulator | null = null;
  state: SimState | null = null;
  playing = false;
  speed = 1;
  scaleTo: number | null = null;
  /** The owner the views follow (`namespace/name`); null: the primary owner. */
  follow: string | null = null;
  /** The latest syncs that created or deleted. */
  syncs: SyncAt[] = [];
  /** The latest sync of any kind. */
  lastSync: SyncAt | null = null;
  /** The latest trace entries, for the decision log. */
  recent: TraceEntry[] = [];
  private traceSeen = 0;
  private readonly clock = new PlayClock({
    playing: () => this.playing && this.sim !== null,
    speed: () => this.speed,
    advance: (ms) => this.sim?.advance(ms),
    // Drawing costs more with many pods: fewer frames then, the clock runs on.
    renderEveryMs: () => ((this.state?.pods.length ?? 0) > 40 ? 120 : 50),
    refresh: () => this.refresh(),
    save: () => this.changed(),
    failed: (message) => {
      this.error(message);
      this.setPlaying(false);
    },
  });
  private readonly changed: () => void;

  constructor(changed: () => void) {
    this.changed = changed;
    const replicas = byId<HTMLInputElement>("sim-replicas");
    const setReplicas = (n: number): void => {
      if (!Number.isInteger(n) || n < 0 || n > 500) {
        this.error("Replicas must be a whole number from 0 to 500.");
        return;
      }
      this.act(() => this.sim?.setReplicas(n, this.followed()?.key));
    };
    byId("sim-scale").addEventListener("click", () => setReplicas(Number(replicas.value)));
    replicas.addEventListener("keydown", (e) => {
      if (e.key === "Enter") setReplicas(Number(replicas.value));
    });
    byId("sim-minus").addEventListener("click", () => setReplicas(Math.max(0, (this.followed()?.desired ?? 0) - 1)));
    byId("sim-plus").addEventListener("click", () => setReplicas((this.followed()?.desired ?? 0) + 1));
    byId<HTMLSelectElement>("sim-owner").addEventListener("change", (e) => {
      this.follow = (e.target as HTMLSelectElement).value;
      this.scaleTo = null;
      this.render();
      this.changed();
    });
    byId("sim-play").addEventListener("click", () => this.setPlaying(!this.playing));
    byId("sim-step").addEventListener("click", () => {
      this.setPlaying(false);
      this.act(() => this.sim?.step());
    });
    byId("sim-advance").addEventListener("click", () => {
      this.setPlaying(false);
      this.act(() => this.sim?.advance(1000));
    });
    const speed = byId<HTMLSelectElement>("sim-speed");
    speed.replaceChildren(...SPEEDS.map((x) => h("option", { value: x }, `${x}×`)));
    speed.addEventListener("change", () => {
      this.speed = Number(speed.value);
      this.changed();
    });
    for (const [id, gate] of [["sim-gate-lsd", "LogarithmicScaleDown"], ["sim-gate-pdc", "PodDeletionCost"]] as const) {
      byId<HTMLInputElement>(id).addEventListener("change", (e) => {
        const on = (e.target as HTMLInputElement).checked;
        this.act(() => {
          // LogarithmicScaleDown is locked on from 1.31: the simulator emulates 1.30 when it is switched off.
          this.sim?.setFeatureGates({ [gate]: on });
        });
      });
    }
    byId("sim-restart").addEventListener("click", () => {
      const seed = Number(byId<HTMLInputElement>("sim-seed").value);
      const nodes = Number(byId<HTMLInputElement>("sim-nodes").value);
      const replicas0 = Number(byId<HTMLInputElement>("sim-replicas").value);
      if (!Number.isInteger(seed) || seed < 0) return this.error("Seed must be a whole number, 0 or more.");
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 50) return this.error("Nodes must be a whole number from 1 to 50.");
      this.start({ seed, nodes, replicas: Number.isInteger(replicas0) && replicas0 >= 0 ? replicas0 : 3 }, 0);
    });
    byId("sim-quota-apply").addEventListener("click", () => {
      const text = byId<HTMLInputElement>("sim-quota").value.trim();
      const q = text === "" ? null : Number(text);
      if (q !== null && (!Number.isInteger(q) || q < 0)) return this.error("Quota must be a whole number, 0 or more (empty: unlimited).");
      this.act(() => this.sim?.setQuota(q));
    });
    byId("sim-faults-apply").addEventListener("click", () => {
      const faults: Faults = {};
      for (const [id, key] of FAULT_INPUTS) {
        const pct = Number(byId<HTMLInputElement>(id).value);
        if (!Number.isFinite(pct) || pct < 0 || pct > 100) return this.error("Fault probabilities are percentages from 0 to 100.");
        if (pct > 0) faults[key] = pct / 100;
      }
      this.act(() => this.sim?.setFaults(faults));
    });
    byId("sim-add-node").addEventListener("click", () => {
      const names = new Set(this.state?.nodes.map((n) => n.name));
      let i = names.size + 1;
      while (names.has(`node-${i}`)) i++;
      this.act(() => this.sim?.addNode(`node-${i}`));
    });
    byId("sim-remove-node").addEventListener("click", () => {
      const node = byId<HTMLSelectElement>("sim-node-pick").value;
      if (node) this.act(() => this.sim?.removeNode(node));
    });
    byId("sim-trace-quiet").addEventListener("change", () => this.render());
    const scale = byId<HTMLInputElement>("sim-scale-to");
    scale.addEventListener("input", () => {
      const n = Number(scale.value);
      this.scaleTo = scale.value === "" || !Number.isInteger(n) || n < 0 ? null : n;
      this.render();
      this.changed();
    });
  }

  private error(message: string): void {
    byId("sim-error").textContent = message;
  }

  /** Runs a change to the simulation, shows its error (the simulator stays as it was), redraws, saves. */
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

  /** A new simulation of `scenario`, replayed to virtual time `t`. */
  start(scenario: Scenario | string, t: number): void {
    this.sim?.free();
    this.sim = null;
    this.syncs = [];
    this.lastSync = null;
    this.recent = [];
    this.traceSeen = 0;
    this.error("");
    try {
      this.sim = new Simulator(scenario);
      if (t > 0) this.sim.advance(t);
    } catch (e) {
      this.error(`Cannot start the simulation: ${isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : (e as Error).message}`);
    }
    const st = this.sim?.scenario();
    if (st) {
      byId<HTMLInputElement>("sim-seed").value = String(st.seed);
      if (typeof st.nodes === "number") byId<HTMLInputElement>("sim-nodes").value = String(st.nodes);
    }
    this.refresh();
    this.changed();
  }

  /** The owner the views follow: the chosen one, else the primary owner. */
  followed(): SimOwner | null {
    const st = this.state;
    if (!st) return null;
    return st.owners.find((o) => o.key === this.follow) ?? st.owner;
  }

  restore(state: PageState): void {
    this.follow = state.rs ?? null;
    this.speed = state.speed ?? 1;
    this.scaleTo = state.scaleTo ?? null;
    this.setPlaying(false);
    this.start(state.scenario ?? DEFAULT_SCENARIO, state.t ?? 0);
  }

  save(): PageState {
    const st: PageState = { v: 1, mode: "sim", speed: this.speed };
    if (this.sim) {
      st.scenario = this.sim.scenario();
      st.t = this.state?.t ?? 0;
    }
    if (this.scaleTo !== null) st.scaleTo = this.scaleTo;
    if (this.follow !== null) st.rs = this.follow;
    return st;
  }

  setPlaying(on: boolean): void {
    this.playing = on && this.sim !== null;
    const b = byId<HTMLButtonElement>("sim-play");
    b.textContent = this.playing ? "Pause" : "Play";
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
      const entries = this.sim.trace(this.traceSeen);
      for (const e of entries) {
        if (e.kind === "sync") {
          this.lastSync = { t: e.t, sync: e.sync };
          // Only the syncs that acted are kept: "nothing" syncs would push them out.
          if (e.sync.action !== "nothing") this.syncs.push(this.lastSync);
        }
      }
      this.recent.push(...entries.slice(-120));
      this.traceSeen = this.state.traceLength;
      if (this.syncs.length > 200) this.syncs = this.syncs.slice(-200);
      if (this.recent.length > 120) this.recent = this.recent.slice(-120);
    }
    this.render();
  }

  render(): void {
    const st = this.state;
    byId("sim-clock").textContent = st ? `t = ${vtime(st.t)}` : "–";
    byId<HTMLSelectElement>("sim-speed").value = String(this.speed);
    if (!st || !this.sim) {
      for (const id of ["sim-cluster", "sim-chart", "sim-ranking", "sim-slowstart", "sim-controller", "sim-events", "sim-trace"]) mount(byId(id), null);
      return;
    }
    const owner = this.followed() ?? st.owner;
    const ownerSelect = byId<HTMLSelectElement>("sim-owner");
    byId("sim-owner-group").hidden = st.owners.length < 2;
    if (document.activeElement !== ownerSelect) {
      ownerSelect.replaceChildren(...st.owners.map((o) => h("option", { value: o.key }, o.key)));
      ownerSelect.value = owner.key;
    }
    const replicas = byId<HTMLInputElement>("sim-replicas");
    if (document.activeElement !== replicas) replicas.value = String(owner.desired);
    byId<HTMLInputElement>("sim-gate-lsd").checked = st.config.featureGates.LogarithmicScaleDown;
    byId<HTMLInputElement>("sim-gate-pdc").checked = st.config.featureGates.PodDeletionCost;
    const quota = byId<HTMLInputElement>("sim-quota");
    if (document.activeElement !== quota) quota.value = st.quota === null ? "" : String(st.quota);
    const settingsOpen = byId<HTMLDetailsElement>("sim-settings").open;
    if (!settingsOpen) {
      for (const [id, key] of FAULT_INPUTS) byId<HTMLInputElement>(id).value = String(Math.round((st.faults[key] ?? 0) * 100));
    }
    const pick = byId<HTMLSelectElement>("sim-node-pick");
    if (document.activeElement !== pick) {
      const was = pick.value;
      pick.replaceChildren(...st.nodes.map((n) => h("option", { value: n.name }, n.name)));
      if (st.nodes.some((n) => n.name === was)) pick.value = was;
    }

    // Ranking and the scale-to-N preview.
    const target = this.scaleTo ?? owner.desired;
    const scale = byId<HTMLInputElement>("sim-scale-to");
    if (document.activeElement !== scale) scale.value = this.scaleTo === null ? "" : String(this.scaleTo);
    scale.placeholder = String(owner.desired);
    let rows: RankRow[] = [];
    let compare: Map<string, number> | null = null;
    let victims: string[] = [];
    let previewText = "";
    try {
      const ranking = this.sim.ranking(undefined, owner.key);
      rows = ranking.pods.map((p, i) => ({
        position: i + 1,
        name: p.name,
        node: p.facts.node,
        phase: p.facts.phase,
        ready: p.facts.ready,
        deletionCost: p.facts.deletionCost,
        colocated: p.facts.colocated,
        restarts: p.facts.restarts,
        rule: p.rule,
        ruleText: p.ruleText ?? null,
      }));
      if (target < rows.length) {
        const preview = this.sim.preview(target, undefined, owner.key);
        victims = preview.victims.map((v) => v.name);
        previewText = `Scale to ${target}: ${victims.length} of ${preview.active} active pods would go${preview.firstSync < victims.length ? ` (the first sync deletes ${preview.firstSync}, the burst)` : ""}, first to go first: ${victims.join(", ")}.`;
      } else {
        previewText = `Scale to ${target}: no pod would go (${rows.length} active).`;
      }
      const lsd = st.config.featureGates.LogarithmicScaleDown;
      compare = new Map(this.sim.ranking({ LogarithmicScaleDown: !lsd }, owner.key).pods.map((p, i) => [p.name, i + 1]));
    } catch (e) {
      this.error(`ranking: ${(e as Error).message}`);
    }
    const doomed = new Set(victims);
    byId("sim-preview").textContent = previewText;
    byId("sim-preview").dataset.victims = victims.join(",");
    mount(byId("sim-ranking"), rankingTable(rows, {
      goes: rows.filter((r) => doomed.has(r.name)).length,
      compare,
      compareLabel: st.config.featureGates.LogarithmicScaleDown ? "pre-1.31" : "1.31+",
    }));

    // The cluster.
    const positions = new Map(rows.map((r) => [`${owner.namespace}/${r.name}`, r.position]));
    const doomedKeys = new Set(victims.map((n) => `${owner.namespace}/${n}`));
    const view = (p: SimPod): PodView => {
      const notes: string[] = [];
      if (p.owner !== owner.name) notes.push(p.owner ? `owned by ${p.owner}` : "orphan");
      if (p.crashLooping) notes.push("crash-looping");
      if (p.flapping) notes.push("readiness flaps");
      if (!p.inCache) notes.push("not in the controller's cache yet");
      return {
        namespace: p.namespace,
        name: p.name,
        node: p.node,
        phase: p.phase,
        ready: p.ready,
        ageMs: p.ageMs,
        restarts: p.restarts,
        deletionCost: p.deletionCost,
        mine: p.owner === owner.name && p.namespace === owner.namespace,
        terminating: p.terminating,
        active: p.active,
        notes,
      };
    };
    const nodes: NodeView[] = [...st.nodes].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true })).map((n) => ({
      name: n.name,
      pods: st.pods.filter((p) => p.node === n.name).map(view),
    }));
    const known = new Set(st.nodes.map((n) => n.name));
    const unscheduled = st.pods.filter((p) => p.node === null || !known.has(p.node)).map(view);
    mount(byId("sim-cluster"), clusterView(nodes, unscheduled, {
      doomed: doomedKeys,
      positions,
      editable: true,
      compact: st.pods.length > 24,
      onPick: (pod) => {
        const was = this.playing;
        this.setPlaying(false);
        openEditor(pod, {
          apply: (p, c) => {
            this.sim?.editPod(p.name, { namespace: p.namespace, phase: c.phase, ready: c.ready, restarts: c.restarts, deletionCost: c.deletionCost });
            this.refresh();
            this.changed();
          },
          kill: (p) => {
            this.sim?.killPod(p.name, p.namespace);
            this.refresh();
            this.changed();
          },
          closed: () => {
            if (was) this.setPlaying(true);
          },
        });
      },
    }));

    mount(byId("sim-chart"), timelineChart(this.sim.history(), st.t),
      owner.key !== st.owner.key ? h("p", { class: "help" }, `The timeline follows the first ReplicaSet, ${st.owner.key}.`) : null);
    mount(byId("sim-slowstart"), this.slowStartView());
    mount(byId("sim-controller"), this.controllerView(st, owner));
    mount(byId("sim-events"), this.eventsView(st));
    mount(byId("sim-trace"), this.traceView());
  }

  private traceView(): HTMLElement {
    const hide = byId<HTMLInputElement>("sim-trace-quiet").checked;
    const shown = this.recent.filter((e) => !hide || (e.kind !== "kubelet" && e.kind !== "queue")).slice(-60).reverse();
    if (shown.length === 0) return h("p", { class: "empty" }, "Nothing yet.");
    return h("ol", { class: "events trace", "aria-label": "decisions, newest first" }, shown.map((e) =>
      h("li", { class: `tr-${e.kind}` }, h("span", { class: "ev-t" }, vtime(e.t)), " ", traceText(e))));
  }

  private slowStartView(): HTMLElement {
    // The latest create syncs, newest first; consecutive syncs that went the same way
    // (e.g. retries failing at the first batch on a full quota) shown once, with a count.
    const groups: Array<{ last: SyncAt; first: SyncAt; count: number; sig: string }> = [];
    for (let i = this.syncs.length - 1; i >= 0 && groups.length < 4; i--) {
      const c = this.syncs[i];
      if (!c || c.sync.action !== "create") continue;
      const sig = JSON.stringify([c.sync.planned?.count, (c.sync.batches ?? []).map((b) => [b.size, b.ok, b.failed])]);
      const g = groups.at(-1);
      if (g && g.sig === sig) {
        g.first = c;
        g.count += 1;
      } else {
        groups.push({ last: c, first: c, count: 1, sig });
      }
    }
    const deletes = this.syncs.filter((s) => s.sync.action === "delete").slice(-1);
    const out: HTMLElement[] = [];
    if (groups.length === 0) out.push(h("p", { class: "empty" }, "No create sync yet: raise the replicas."));
    for (const [i, g] of groups.entries()) {
      const c = g.last;
      const batches = c.sync.batches ?? [];
      const planned = c.sync.planned;
      const issued = batches.reduce((a, b) => a + b.size, 0);
      const failed = batches.some((b) => b.failed > 0);
      const skipped = (planned?.count ?? issued) - issued;
      out.push(h("div", {
        class: i === 0 ? "create-sync latest" : "create-sync",
        "data-testid": "create-sync",
        "data-batches": batches.map((b) => b.size).join(","),
        "data-repeat": g.count,
      },
      h("p", { class: "sync-head" }, `t = ${vtime(c.t)}: ${this.keyText(c.sync.key)}create ${planned?.count ?? issued}`,
        planned ? ` · planned batches ${planned.batches.join(", ")}` : "",
        g.count > 1 ? h("span", { class: "repeat" }, ` · the same in ${g.count} syncs since t = ${vtime(g.first.t)}`) : ""),
      h("ol", { class: "batches", "aria-label": "slow-start batches issued" }, batches.map((b, j) =>
        h("li", { class: b.failed > 0 ? "batch failed" : "batch ok", style: `flex-grow:${Math.max(1, b.size)}`, title: b.errors[0] ?? `${b.ok} created` },
          h("span", { class: "sr-only" }, `batch ${j + 1}: `),
          b.failed > 0 ? `${b.size}: ${b.ok} ok, ${b.failed} failed` : `${b.size} ✓`,
        ))),
      failed && i === 0
        ? h("p", { class: "warn" }, `Slow start stopped at the failing batch${skipped > 0 ? `: ${skipped} creates not attempted` : ""}. ${batches.find((b) => b.failed > 0)?.errors[0] ?? ""}`)
        : null,
      ));
    }
    for (const d of deletes) {
      const v = d.sync.victims ?? [];
      out.push(h("div", { class: "delete-sync", "data-testid": "delete-sync", "data-victims": v.map((x) => x.name).join(",") },
        h("p", { class: "sync-head" }, `t = ${vtime(d.t)}: ${this.keyText(d.sync.key)}delete ${v.length}, first to go first`),
        h("ol", { class: "victims" }, v.map((x) => h("li", null, h("strong", null, x.name), ` — ${ruleText(x.rule)}${x.ok ? "" : ` (failed: ${x.error ?? "error"})`}`))),
      ));
    }
    return h("div", null, out);
  }

  /** `ns/name: ` when the scenario has several owners. */
  private keyText(key: string): string {
    return (this.state?.owners.length ?? 1) > 1 ? `${key}: ` : "";
  }

  private controllerView(st: SimState, o: SimOwner): HTMLElement {
    const exp = o.expectations;
    const expText = exp
      ? `expects ${exp.add} creation${exp.add === 1 ? "" : "s"} and ${exp.del} deletion${exp.del === 1 ? "" : "s"} to be observed, recorded ${duration(Date.parse(st.now) - Date.parse(String(exp.timestamp)))} ago`
      : "none recorded";
    const rf = o.replicaFailure;
    const last = this.lastSync;
    return h("div", { class: "controller" },
      st.owners.length > 1
        ? h("p", { class: "help" }, `${st.owners.length} ReplicaSets, each synced by the controller; these views follow ${o.key} (choose another above). Others: `,
          st.owners.filter((x) => x.key !== o.key).map((x) => `${x.key} (desired ${x.desired}, active ${x.counts.active})`).join(", "), ".")
        : null,
      h("dl", { class: "facts" },
        h("dt", null, "owner"), h("dd", { "data-testid": "owner" }, o.key),
        h("dt", null, "desired"), h("dd", { "data-testid": "desired" }, String(o.desired)),
        h("dt", null, "pods (truth)"), h("dd", null, `active ${o.counts.active} · ready ${o.counts.ready} · available ${o.counts.available} · terminating ${o.counts.terminating}`),
        h("dt", null, "status written"), h("dd", null, `replicas ${o.status.replicas} · ready ${o.status.readyReplicas ?? 0} · available ${o.status.availableReplicas ?? 0}${o.status.terminatingReplicas !== undefined ? ` · terminating ${o.status.terminatingReplicas}` : ""}`),
        h("dt", null, "expectations"), h("dd", { "data-testid": "expectations", class: o.expectationsSatisfied ? "" : "pending" },
          `${expText}; ${o.expectationsSatisfied ? "satisfied: a sync may create or delete" : "not satisfied: syncs wait"}`),
        h("dt", null, "ReplicaFailure"), h("dd", { "data-testid": "replica-failure", class: rf ? "warn" : "" },
          rf ? `${rf.status} · ${rf.reason ?? ""}: ${rf.message ?? ""}` : "none"),
        h("dt", null, "last sync"), h("dd", null, last ? `t = ${vtime(last.t)}: ${last.sync.action}${last.sync.why ? ` (${last.sync.why})` : ""}${last.sync.error ? ` · error: ${last.sync.error}` : ""} · requeue ${requeueText(last.sync)}` : "none yet"),
        h("dt", null, "work queue"), h("dd", null, `${st.queue.ready.length} ready, ${st.queue.delayed.length} delayed${st.queue.delayed.length ? ` (next at ${vtime(Math.min(...st.queue.delayed.map((d) => d.t)))})` : ""}`),
        h("dt", null, "cluster"), h("dd", null, `${st.nodes.length} nodes · quota ${st.quota ?? "unlimited"} · burst ${st.config.burstReplicas}${faultText(st.faults)}`),
      ),
    );
  }

  private eventsView(st: SimState): HTMLElement {
    const events = [...st.events].reverse().slice(0, 40);
    if (events.length === 0) return h("p", { class: "empty" }, "No events yet.");
    return h("ol", { class: "events", "aria-label": "events, newest first" }, events.map((e) =>
      h("li", { class: e.type === "Warning" ? "warning" : "" },
        h("span", { class: "ev-t" }, vtime(e.t)), " ",
        h("span", { class: "ev-type" }, e.type), " ",
        h("strong", null, e.reason), " ",
        e.message,
      )));
  }
}

function traceText(e: TraceEntry): string {
  switch (e.kind) {
    case "sync": {
      const s = e.sync;
      const what = s.action === "nothing"
        ? `nothing (${s.why ?? "?"})`
        : s.action === "create"
          ? `create ${s.planned?.count ?? 0}: batches ${(s.batches ?? []).map((b) => (b.failed ? `${b.size}(${b.failed}✗)` : String(b.size))).join(", ")}`
          : `delete ${(s.victims ?? []).map((v) => v.name).join(", ")}`;
      return `sync ${s.key}: saw ${s.input.active} active of ${s.input.desired} desired → ${what}${s.status ? "; status written" : ""}${s.error ? `; error: ${s.error}` : ""}; requeue ${requeueText(s)}`;
    }
    case "watch": {
      const d = e.decision;
      const to = [...d.enqueue, ...d.enqueueAfter.map((x) => `${x.key} after ${x.after} s`)];
      return `watch: ${e.object} ${e.name} ${e.event}${to.length ? ` → enqueue ${to.join(", ")}` : ""}${d.observations.length ? `; observes ${d.observations.map((o) => o.change.op).join(", ")}` : ""}`;
    }
    case "watchDropped":
      return `watch event lost: ${e.object} ${e.name} ${e.event}`;
    case "relist":
      return `informer relist: ${e.changes} change${e.changes === 1 ? "" : "s"}`;
    case "queue":
      return `queue ${e.op} ${e.key}${e.delayMs !== undefined ? ` (${duration(e.delayMs)})` : ""}`;
    case "kubelet":
      return `kubelet: ${e.pod} ${e.change}${e.node ? ` on ${e.node}` : ""}`;
    case "edit":
      return `you: ${JSON.stringify(e.edit)}`;
    case "deploymentQueue":
      return `deployment queue ${e.op} ${e.key}${e.delayMs !== undefined ? ` (${duration(e.delayMs)})` : ""}`;
    case "deploymentSync": {
      const s = e.sync;
      const calls = s.calls.map((c) => `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ""} ${c.name}${c.replicas !== undefined ? ` → ${c.replicas}` : ""}${c.ok ? "" : " ✗"}`);
      return `deployment sync ${s.key}: ${s.rule} ${s.why}${calls.length ? `; ${calls.join(", ")}` : ""}${s.error ? `; error: ${s.error.message}` : ""}`;
    }
    case "hpaSync": {
      const x = e.sync.step;
      return `HPA sync ${e.sync.key}: desired ${x.desiredReplicas}${x.rescaledTo !== undefined ? `, scale to ${x.rescaledTo}` : ""}${x.limitedBy ? ` (held back: ${x.limitedBy})` : ""}${x.error ? `; error: ${x.error}` : ""}`;
    }
    case "hpaInvalid":
      return `HPA ${e.key} not synced: ${e.error}`;
  }
}

function requeueText(s: SyncTrace): string {
  const r = s.requeue;
  return r.kind === "done" ? "none" : r.kind === "after" ? `after ${r.after} s` : `rate-limited (${r.error})`;
}

function faultText(f: Faults): string {
  const parts = Object.entries(f).filter(([, v]) => typeof v === "number" && v > 0).map(([k, v]) => `${k} ${Math.round((v as number) * 100)}%`);
  return parts.length ? ` · faults: ${parts.join(", ")}` : "";
}
