// The seeded cluster simulator: a typed wrapper over the full module's wasm `Simulator`
// class ("replicore/sim", also exported by "replicore/full"). Every decision is the
// engine's (crate replicore-sim, sim/); this file only turns arguments into JSON text
// (the results carry the types generated from the simulator's Rust types).

import * as raw from "./wasm-full/replicore_full.js";
import { guard, json, utf8 } from "./json-text.js";
import type { Config, FeatureGates, ReplicoreError } from "./types.js";
import type {
  Delays,
  DeploymentSample,
  Edit,
  Faults,
  HpaSyncTrace,
  LoadCurve,
  MetricLoad,
  Sample,
  ScalePreview,
  Scenario,
  SimRanking,
  SimState,
  TemplateFailure,
  TraceEntry,
} from "./sim-types.js";

export type * from "./sim-types.js";

function gatesJson(featureGates: Partial<FeatureGates> | undefined): Uint8Array | undefined {
  return featureGates === undefined ? undefined : json(featureGates, "featureGates");
}

/**
 * A simulated cluster with the ReplicaSet controller running the engine: a virtual clock,
 * an API server with quota, a watch with delays and drops, a kubelet model, the work queue
 * with its rate limiter. Deterministic: the same scenario (seed included) gives the same
 * trace. Bad input throws a `ReplicoreError` (`code`, `path`); a failed call leaves the
 * simulator as it was.
 */
export class Simulator {
  readonly #sim: raw.Simulator;

  /**
   * Starts a simulation at virtual time 0 (edits scripted at t=0 already applied).
   * `scenario` may be the object or its JSON text (e.g. from a URL).
   */
  constructor(scenario: Scenario | string) {
    this.#sim = guard("", () => new raw.Simulator(typeof scenario === "string" ? utf8(scenario) : json(scenario, "scenario")));
  }

  /** Processes the next event in virtual time; false when nothing is scheduled. */
  step(): boolean {
    return guard("", () => this.#sim.step());
  }

  /** Processes every event up to `now + ms` and moves the clock there; returns the number of events. */
  advance(ms: number): number {
    return guard("", () => this.#sim.advance(ms));
  }

  /** Applies an edit now (recorded in `scenario().edits` for replay). */
  apply(edit: Edit): void {
    guard("", () => this.#sim.apply(json(edit, "edit")));
  }

  setReplicas(replicas: number, owner?: string): void {
    this.apply(owner === undefined ? { op: "setReplicas", replicas } : { op: "setReplicas", replicas, owner });
  }

  /** Pod-count quota of the namespace; null = unlimited. */
  setQuota(quota: number | null): void {
    this.apply({ op: "setQuota", quota });
  }

  setFeatureGates(featureGates: Partial<FeatureGates>): void {
    this.apply({ op: "setFeatureGates", featureGates });
  }

  setConfig(config: Config): void {
    this.apply({ op: "setConfig", config });
  }

  setFaults(faults: Faults): void {
    this.apply({ op: "setFaults", faults });
  }

  setDelays(delays: Delays): void {
    this.apply({ op: "setDelays", delays });
  }

  /** Changes a pod's phase, readiness, restarts or deletion cost (null removes the annotation). */
  editPod(
    pod: string,
    changes: { phase?: string; ready?: boolean; restarts?: number; deletionCost?: number | null; namespace?: string },
  ): void {
    guard("", () => this.apply({ op: "editPod", pod, ...changes }));
  }

  addNode(node: string): void {
    this.apply({ op: "addNode", node });
  }

  removeNode(node: string): void {
    this.apply({ op: "removeNode", node });
  }

  /** Deletes a pod as `kubectl delete pod` would. */
  killPod(pod: string, namespace?: string): void {
    this.apply(namespace === undefined ? { op: "killPod", pod } : { op: "killPod", pod, namespace });
  }

  /** Deployment scenarios: a new template with this container image (`kubectl set image`); `fail` makes its pods fail. */
  setImage(image: string, fail?: TemplateFailure): void {
    this.apply(fail === undefined ? { op: "setImage", image } : { op: "setImage", image, fail });
  }

  /** Deployment scenarios: the current template's new pods fail from now on. */
  failTemplate(failure?: TemplateFailure): void {
    this.apply(failure === undefined ? { op: "failTemplate" } : { op: "failTemplate", failure });
  }

  /** Deployment scenarios: `kubectl scale deploy --replicas`. */
  scaleDeployment(replicas: number): void {
    this.apply({ op: "scaleDeployment", replicas });
  }

  /** Deployment scenarios: `kubectl rollout pause` (`true`) or `resume` (`false`). */
  pauseDeployment(paused: boolean): void {
    this.apply({ op: paused ? "pauseDeployment" : "resumeDeployment" });
  }

  /** Deployment scenarios: `kubectl rollout undo [--to-revision]` (default: the previous revision). */
  undoDeployment(revision?: number): void {
    this.apply(revision === undefined ? { op: "undoDeployment" } : { op: "undoDeployment", revision });
  }

  /**
   * HPA scenarios: the load from now on (time still counted from the start) and, when
   * given, each metric's load.
   */
  setLoad(load: LoadCurve, metrics?: MetricLoad[]): void {
    this.apply(metrics === undefined ? { op: "setLoad", load } : { op: "setLoad", load, metrics });
  }

  state(): SimState {
    return guard("", () => this.#sim.state());
  }

  /** Trace entries with `seq >= since` (default: all). */
  trace(since?: number): TraceEntry[] {
    return guard("", () => this.#sim.trace(since ?? null));
  }

  /** Desired/current/ready/available of the primary owner over virtual time. */
  history(): Sample[] {
    return guard("", () => this.#sim.history());
  }

  /** Deployment scenarios: the Deployment's ReplicaSets as lanes over virtual time (empty otherwise). */
  deploymentHistory(): DeploymentSample[] {
    return guard("", () => this.#sim.deploymentHistory());
  }

  /**
   * HPA scenarios: every HPA sync in order (empty otherwise). Each one's `step` is what
   * the engine's `hpaForecast` reports for the same sync: with the kubelet's delays set to
   * the forecast's pod model, the two are equal.
   */
  hpaSyncs(): HpaSyncTrace[] {
    return guard("", () => this.#sim.hpaSyncs());
  }

  /**
   * The engine's scale-down order of an owner's active pods (default: the primary owner;
   * `owner` is a name or `namespace/name`), under the current gates with `featureGates`
   * laid over them (e.g. `{ LogarithmicScaleDown: false }` for the pre-1.31 order).
   */
  ranking(featureGates?: Partial<FeatureGates>, owner?: string): SimRanking {
    return guard("", () => this.#sim.ranking(gatesJson(featureGates), owner ?? null));
  }

  /** Which pods a scale of an owner (default: the primary owner) to `replicas` would delete now. */
  preview(replicas: number, featureGates?: Partial<FeatureGates>, owner?: string): ScalePreview {
    return guard("", () => this.#sim.preview(replicas, gatesJson(featureGates), owner ?? null));
  }

  /** The scenario with every edit applied so far: JSON-serialisable, replays to this run. */
  scenario(): Scenario {
    return guard("", () => this.#sim.scenario());
  }

  /** Releases the wasm memory now (otherwise the garbage collector does). */
  free(): void {
    guard("", () => this.#sim.free());
  }
}
