// Import: a pasted `kubectl get rs,pods -o json` explained by the engine (`explainJson`):
// what a sync of each ReplicaSet would do now, its scale-down order with the rule that
// placed each pod, which pods a scale to N would delete, under the chosen feature gates.

import { deletionCostAnnotation, explainJson, isReplicoreError, podFacts, type Config, type Explanation, type OwnerExplanation, type VictimExplanation } from "replicore/playground";
import exampleCluster from "../../examples/cluster.json?raw";
import { byId, h, mount } from "./dom.js";
import { openEditor, type PodChanges } from "./editor.js";
import type { Gates, PageState } from "./url.js";
import { clusterView, podKey, rankingTable, type NodeView, type PodView, type RankRow } from "./views.js";

/** The clock of the shipped example (`scripts/demo.sh` explains it at this instant). */
export const EXAMPLE_NOW = "2026-11-21T05:00:00Z";

/** The shipped example, `examples/cluster.json`. */
export const EXAMPLE_TEXT: string = exampleCluster;

interface K8sObject {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string | null;
    annotations?: Record<string, string> | null;
  };
  spec?: { nodeName?: string; containers?: Array<{ name?: string }> };
  status?: {
    phase?: string;
    conditions?: Array<{ type: string; status: string; lastTransitionTime?: string | null }>;
    containerStatuses?: Array<{ name: string; restartCount: number }>;
    initContainerStatuses?: Array<{ name: string; restartCount: number }>;
  };
}

export function configFor(gates: Gates): Config {
  // LogarithmicScaleDown is locked on from 1.31: switching it off means emulating 1.30.
  return gates.LogarithmicScaleDown
    ? { featureGates: { ...gates } }
    : { featureGates: { ...gates }, emulationVersion: "1.30" };
}

const WHY: Record<string, string> = {
  inSync: "nothing: the active pods equal spec.replicas",
  expectationsPending: "nothing: waiting for earlier creations/deletions to be observed (expectations)",
  ownerTerminating: "nothing: the ReplicaSet is being deleted",
  claimFailed: "nothing: adopting or releasing pods failed",
  halted: "nothing: the sync halts (see below)",
};

export class ImportMode {
  gates: Gates = { LogarithmicScaleDown: true, PodDeletionCost: true };
  now = EXAMPLE_NOW;
  text = "";
  selected: string | null = null;
  scaleTo: number | null = null;
  list: { items: K8sObject[] } | null = null;
  explanation: Explanation | null = null;
  private readonly changed: () => void;

  constructor(changed: () => void) {
    this.changed = changed;
    const area = byId<HTMLTextAreaElement>("import-text");
    byId("import-run").addEventListener("click", () => {
      this.text = area.value;
      this.now = byId<HTMLInputElement>("import-now").value.trim();
      this.run();
    });
    byId("import-example").addEventListener("click", () => {
      this.load(exampleCluster, EXAMPLE_NOW);
    });
    byId("import-now-clock").addEventListener("click", () => {
      byId<HTMLInputElement>("import-now").value = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    });
    byId<HTMLInputElement>("import-now").addEventListener("keydown", (e) => {
      if (e.key === "Enter") byId("import-run").click();
    });
    for (const [id, gate] of [["import-gate-lsd", "LogarithmicScaleDown"], ["import-gate-pdc", "PodDeletionCost"]] as const) {
      byId<HTMLInputElement>(id).addEventListener("change", (e) => {
        this.gates = { ...this.gates, [gate]: (e.target as HTMLInputElement).checked };
        this.run();
      });
    }
    const scale = byId<HTMLInputElement>("import-scale-to");
    scale.addEventListener("input", () => {
      const n = Number(scale.value);
      this.scaleTo = scale.value === "" || !Number.isInteger(n) || n < 0 ? null : n;
      this.render();
      this.changed();
    });
  }

  /** Loads a snapshot (text) explained at `now`. */
  load(text: string, now: string): void {
    this.text = text;
    this.now = now;
    this.selected = null;
    this.scaleTo = null;
    this.run();
  }

  restore(state: PageState): void {
    this.text = state.list ?? "";
    this.now = state.now ?? EXAMPLE_NOW;
    this.gates = state.gates ?? { LogarithmicScaleDown: true, PodDeletionCost: true };
    this.selected = state.rs ?? null;
    this.scaleTo = state.scaleTo ?? null;
    this.run(false);
  }

  save(): PageState {
    const st: PageState = { v: 1, mode: "import", list: this.text, now: this.now, gates: this.gates };
    if (this.selected !== null) st.rs = this.selected;
    if (this.scaleTo !== null) st.scaleTo = this.scaleTo;
    return st;
  }

  /** Parses and explains the text; shows the error (with where) when it is bad. */
  run(notify = true): void {
    const error = byId("import-error");
    error.textContent = "";
    this.explanation = null;
    this.list = null;
    byId<HTMLTextAreaElement>("import-text").value = this.text;
    byId<HTMLInputElement>("import-now").value = this.now;
    if (this.text.trim() !== "") {
      try {
        const parsed = JSON.parse(this.text) as unknown;
        if (typeof parsed !== "object" || parsed === null || !Array.isArray((parsed as { items?: unknown }).items)) {
          throw new Error("expected a List with items (what `kubectl get rs,pods -o json` prints)");
        }
        this.explanation = explainJson(this.text, { now: this.now, replicas: 0, config: configFor(this.gates) });
        // Drawn only once the engine accepted it (so every field has the type it reads).
        this.list = parsed as { items: K8sObject[] };
      } catch (e) {
        if (isReplicoreError(e) && e.path.startsWith("options.now")) {
          error.textContent = `Now: ${e.message.replace(/^options\.now: /, "")} (${e.code})`;
        } else {
          error.textContent = isReplicoreError(e) ? `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ""})` : `Cannot read the JSON: ${(e as Error).message}`;
        }
        this.explanation = null;
        this.list = null;
      }
    }
    const owners = this.explanation?.owners ?? [];
    if (this.selected === null || !owners.some((o) => `${o.namespace}/${o.name}` === this.selected)) {
      // Default: the ReplicaSet with the most active pods.
      const best = [...owners].sort((a, b) => b.pods.active - a.pods.active)[0];
      this.selected = best ? `${best.namespace}/${best.name}` : null;
    }
    this.render();
    if (notify) this.changed();
  }

  /** The snapshot as a simulator scenario's `cluster`; null when no valid snapshot is loaded. */
  clusterForSimulation(): unknown {
    return this.list && this.explanation ? (JSON.parse(this.text) as unknown) : null;
  }

  private owner(): OwnerExplanation | null {
    return this.explanation?.owners.find((o) => `${o.namespace}/${o.name}` === this.selected) ?? null;
  }

  /** The order under other gates, or a scale preview, for the selected owner. */
  private explainOwner(gates: Gates, replicas: number): VictimExplanation[] {
    if (!this.selected) return [];
    const e = explainJson(this.text, { now: this.now, replicas, owner: this.selected, config: configFor(gates) });
    return e.owners[0]?.scaleDown?.victims ?? [];
  }

  render(): void {
    byId<HTMLInputElement>("import-gate-lsd").checked = this.gates.LogarithmicScaleDown;
    byId<HTMLInputElement>("import-gate-pdc").checked = this.gates.PodDeletionCost;
    const e = this.explanation;
    const summary = byId("import-summary");
    summary.textContent = e ? `${e.replicaSets} ReplicaSets, ${e.pods} pods at ${e.now}${e.ignored ? ` (${e.ignored} objects ignored)` : ""}` : "";
    mount(byId("import-owners"), e ? this.ownersView(e) : h("p", { class: "empty" }, "Paste a snapshot above, or load the example."));
    const owner = this.owner();
    const order = owner?.scaleDown?.victims ?? [];
    const desired = owner?.desired ?? 0;
    const scale = byId<HTMLInputElement>("import-scale-to");
    if (document.activeElement !== scale) scale.value = this.scaleTo === null ? "" : String(this.scaleTo);
    scale.placeholder = String(desired);
    const target = this.scaleTo ?? desired;
    let doomedList: VictimExplanation[] = [];
    let compare: Map<string, number> | null = null;
    if (owner && this.text) {
      try {
        doomedList = target < order.length ? this.explainOwner(this.gates, target) : [];
        const flipped = { ...this.gates, LogarithmicScaleDown: !this.gates.LogarithmicScaleDown };
        compare = new Map(this.explainOwner(flipped, 0).map((v) => [v.name, v.position]));
      } catch (err) {
        byId("import-error").textContent = (err as Error).message;
      }
    }
    const doomed = new Set(doomedList.map((v) => `${v.namespace}/${v.name}`));
    byId("import-ranking-title").textContent = owner ? `Scale-down order of ${owner.name}` : "Scale-down order";
    byId("import-preview").textContent = owner
      ? doomedList.length === 0
        ? `Scale to ${target}: no pod would go (${order.length} active).`
        : `Scale to ${target}: ${doomedList.length} of ${order.length} active pods would go, first to go first: ${doomedList.map((v) => v.name).join(", ")}.`
      : "";
    byId("import-preview").dataset.victims = doomedList.map((v) => v.name).join(",");
    const rows: RankRow[] = order.map((v) => ({
      position: v.position,
      name: v.name,
      node: v.node,
      phase: v.phase,
      ready: v.ready,
      deletionCost: v.deletionCost,
      colocated: v.colocated,
      restarts: v.restarts,
      rule: v.rule,
      ruleText: v.ruleText,
    }));
    mount(byId("import-ranking"), rankingTable(rows, {
      goes: rows.filter((r) => doomed.has(`${owner?.namespace}/${r.name}`)).length,
      compare,
      compareLabel: this.gates.LogarithmicScaleDown ? "pre-1.31" : "1.31+",
    }));
    mount(byId("import-sync"), owner ? this.syncView(owner) : null);
    const positions = new Map(order.map((v) => [`${v.namespace}/${v.name}`, v.position]));
    mount(byId("import-cluster"), this.list ? this.clusterOf(owner, positions, doomed) : h("p", { class: "empty" }, "No snapshot loaded."));
  }

  private ownersView(e: Explanation): HTMLElement {
    if (e.owners.length === 0) return h("p", { class: "empty" }, "The snapshot holds no ReplicaSets.");
    return h("ul", { class: "owners", "aria-label": "ReplicaSets in the snapshot" }, e.owners.map((o) => {
      const key = `${o.namespace}/${o.name}`;
      const sync = o.sync;
      const action = sync.action === "create"
        ? `create ${sync.count} (batches ${sync.batches.join(", ")})`
        : sync.action === "delete"
          ? `delete ${sync.victims.length}`
          : `nothing (${sync.why})`;
      return h("li", null, h("button", {
        type: "button",
        class: "owner",
        "data-key": `rs:${key}`,
        "data-testid": "rs-card",
        "data-rs": o.name,
        "aria-pressed": key === this.selected ? "true" : "false",
        onclick: () => {
          this.selected = key;
          this.scaleTo = null;
          this.render();
          this.changed();
        },
      },
      h("span", { class: "owner-name" }, key),
      h("span", { class: "owner-line" }, `${o.controller ? `${o.controller} · ` : ""}desired ${o.desired} · active ${o.pods.active} · ready ${o.pods.ready} · available ${o.pods.available}${o.pods.terminating ? ` · terminating ${o.pods.terminating}` : ""}`),
      h("span", { class: "owner-line" }, `sync: ${action}`),
      ));
    }));
  }

  private syncView(o: OwnerExplanation): HTMLElement {
    const sync = o.sync;
    const items: HTMLElement[] = [];
    items.push(h("p", null, h("strong", null, `${o.namespace}/${o.name}`), ` · selector ${o.selector} · minReadySeconds ${o.minReadySeconds}`));
    if (o.halt) items.push(h("p", { class: "warn" }, `Halted: ${o.halt.reason === "invalidSelector" ? `invalid selector: ${o.halt.message}` : "the cache is stale"}`));
    if (o.adopt.length) items.push(h("p", null, `Adopts (orphans matching the selector): ${o.adopt.join(", ")}`));
    if (o.release.length) items.push(h("p", null, `Releases (owned pods the selector no longer matches): ${o.release.join(", ")}`));
    if (sync.action === "create") {
      items.push(h("p", { "data-testid": "import-action" }, `Creates ${sync.count} pods in slow-start batches:`));
      items.push(h("ol", { class: "batches", "aria-label": "slow-start batches" }, sync.batches.map((b) => h("li", { class: "batch ok" }, String(b)))));
      if (sync.refused) items.push(h("p", { class: "warn" }, `Every create would fail: ${sync.refused}`));
    } else if (sync.action === "delete") {
      items.push(h("p", { "data-testid": "import-action" }, `Deletes ${sync.victims.length} pods (${o.pods.active} active, ${o.desired} desired), first to go first:`));
      items.push(h("ol", { class: "victims" }, sync.victims.map((v) => h("li", null, h("strong", null, v.name), ` — ${v.ruleText ?? "last of the order"}`))));
    } else {
      items.push(h("p", { "data-testid": "import-action" }, WHY[sync.why] ?? sync.why));
    }
    return h("div", null, items);
  }

  private clusterOf(owner: OwnerExplanation | null, positions: Map<string, number>, doomed: Set<string>): HTMLElement {
    const now = Date.parse(this.now);
    const pods = (this.list?.items ?? []).filter((i) => i.kind === "Pod");
    const adopt = new Set(owner?.adopt ?? []);
    // Every fact about a pod is the engine's (ready, restarts, deletion cost, owner by UID).
    const facts = new Map(podFacts(this.text, configFor(this.gates)).map((f) => [`${f.namespace}/${f.name}`, f]));
    const key = owner ? `${owner.namespace}/${owner.name}` : null;
    const views: PodView[] = pods.flatMap((p) => {
      const m = p.metadata ?? {};
      const ns = m.namespace ?? "";
      const f = facts.get(`${ns}/${m.name ?? ""}`);
      if (f === undefined) return [];
      const adopted = owner !== null && ns === owner.namespace && adopt.has(f.name);
      const mine = key !== null && (f.owner === key || adopted);
      const notes: string[] = [];
      if (!mine) notes.push(f.controller !== null ? `owned by ${f.controller}` : "orphan");
      else if (adopted) notes.push("to adopt");
      if (owner && ns !== owner.namespace) notes.push(`namespace ${ns}`);
      return [{
        namespace: ns,
        name: f.name,
        node: f.node,
        phase: f.phase,
        ready: f.ready,
        ageMs: m.creationTimestamp ? now - Date.parse(m.creationTimestamp) : Number.NaN,
        restarts: f.restarts,
        deletionCost: f.deletionCost,
        mine,
        terminating: f.terminating,
        active: f.active,
        notes,
      }];
    });
    const nodes = new Map<string, PodView[]>();
    const unscheduled: PodView[] = [];
    for (const v of views) {
      if (v.node === null) unscheduled.push(v);
      else nodes.set(v.node, [...(nodes.get(v.node) ?? []), v]);
    }
    const nodeViews: NodeView[] = [...nodes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, ps]) => ({ name, pods: ps.sort(byMineThenName) }));
    return clusterView(nodeViews, unscheduled.sort(byMineThenName), {
      doomed,
      positions,
      editable: true,
      onPick: (pod) => openEditor(pod, {
        apply: (p, c) => this.editPod(p, c),
        kill: (p) => this.killPod(p),
      }),
    });
  }

  private find(pod: PodView): K8sObject {
    const found = this.list?.items.find((i) => i.kind === "Pod" && i.metadata?.name === pod.name && (i.metadata.namespace ?? "") === pod.namespace);
    if (!found) throw new Error(`pod ${podKey(pod)} is not in the snapshot`);
    return found;
  }

  /** Changes the pod in the snapshot text (as the kubelet or a user would), then explains again. */
  editPod(pod: PodView, c: PodChanges): void {
    const p = this.find(pod);
    const status = (p.status ??= {});
    status.phase = c.phase;
    const conditions = (status.conditions ??= []);
    const ready = conditions.find((x) => x.type === "Ready");
    const want = c.ready ? "True" : "False";
    if (!ready) conditions.push({ type: "Ready", status: want, lastTransitionTime: this.now });
    else if (ready.status !== want) {
      ready.status = want;
      ready.lastTransitionTime = this.now;
    }
    const statuses = (status.containerStatuses ??= []);
    if (statuses.length === 0) statuses.push({ name: p.spec?.containers?.[0]?.name ?? "app", restartCount: 0 });
    statuses.forEach((s, i) => (s.restartCount = i === 0 ? c.restarts : 0));
    const meta = (p.metadata ??= {});
    if (c.deletionCost === null) {
      if (meta.annotations) delete meta.annotations[deletionCostAnnotation()];
    } else {
      meta.annotations = { ...(meta.annotations ?? {}), [deletionCostAnnotation()]: String(c.deletionCost) };
    }
    this.text = JSON.stringify(this.list, null, 2);
    this.run();
  }

  /** Marks the pod as being deleted (a deletionTimestamp): it stops being active. */
  killPod(pod: PodView): void {
    const p = this.find(pod);
    (p.metadata ??= {}).deletionTimestamp = this.now;
    this.text = JSON.stringify(this.list, null, 2);
    this.run();
  }
}

function byMineThenName(a: PodView, b: PodView): number {
  return Number(b.mine) - Number(a.mine) || a.name.localeCompare(b.name);
}
