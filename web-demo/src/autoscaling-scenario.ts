// The Autoscaling tab's scenario: the HPA's spec as its controls hold it, the pods'
// start-up model, the load curve and an optional rollout, and how it becomes the engine's
// forecast input (`hpaForecast`). Only conversion: the engine reads the HPA object as
// `kubectl get hpa -o json` prints it and decides everything.

import type { HpaForecastHostInput, IntOrString, LoadCurve, LoadPoint, Scenario, ScenarioDeployment } from "replicore/playground";

export type PolicyType = "Pods" | "Percent";
export type SelectPolicy = "Max" | "Min" | "Disabled";

/** One scaling policy: at most `value` pods (or percent) per `period` seconds. */
export interface Policy {
  type: PolicyType;
  value: number;
  period: number;
}

/** One direction of `spec.behavior`. */
export interface Rules {
  /** stabilizationWindowSeconds. */
  window: number;
  select: SelectPolicy;
  policies: Policy[];
  /** The direction's tolerance (`behavior.scaleUp.tolerance`, a fraction); null: the controller's. */
  tolerance: number | null;
}

/** Everything the forecast of the tab plays. */
export interface HpaScenario {
  min: number;
  max: number;
  /** averageUtilization of CPU, percent of request. */
  target: number;
  /** `--horizontal-pod-autoscaler-tolerance`. */
  tolerance: number;
  up: Rules;
  down: Rules;
  /** The pods' start-up: seconds to Running, seconds to Ready, CPU while starting (fraction of request). */
  pods: { runningSeconds: number; readySeconds: number; startupCpu: number };
  /** The Deployment's replicas at the start. */
  initial: number;
  duration: number;
  seed: number;
  load: LoadCurve;
  rollout?: { atSeconds: number; maxSurge: IntOrString; maxUnavailable: IntOrString };
}

export type Preset = LoadCurve["kind"];

export const PRESETS: Array<{ kind: Preset; label: string }> = [
  { kind: "step", label: "step" },
  { kind: "spike", label: "spike" },
  { kind: "ramp", label: "ramp" },
  { kind: "dailyCycle", label: "daily cycle" },
  { kind: "flapping", label: "flapping" },
  { kind: "points", label: "points (drag them)" },
];

/** The fields of each preset with their labels (the curve's own field names). */
export const PRESET_FIELDS: Record<Exclude<Preset, "points">, Array<{ key: string; label: string }>> = {
  step: [{ key: "from", label: "from" }, { key: "to", label: "to" }, { key: "atSeconds", label: "at (s)" }],
  spike: [{ key: "base", label: "base" }, { key: "peak", label: "peak" }, { key: "atSeconds", label: "at (s)" }, { key: "durationSeconds", label: "for (s)" }],
  ramp: [{ key: "from", label: "from" }, { key: "to", label: "to" }, { key: "startSeconds", label: "start (s)" }, { key: "endSeconds", label: "end (s)" }],
  dailyCycle: [{ key: "min", label: "min" }, { key: "max", label: "max" }, { key: "periodSeconds", label: "period (s)" }],
  flapping: [{ key: "low", label: "low" }, { key: "high", label: "high" }, { key: "periodSeconds", label: "period (s)" }],
};

/** A preset's curve with values that show it within `duration` seconds. */
export function presetCurve(kind: Preset, duration: number): LoadCurve {
  const at = (f: number): number => Math.round((duration * f) / 15) * 15;
  switch (kind) {
    case "step":
      return { kind, from: 4, to: 30, atSeconds: at(0.1) };
    case "spike":
      return { kind, base: 4, peak: 24, atSeconds: at(0.1), durationSeconds: at(0.35) };
    case "ramp":
      return { kind, from: 4, to: 24, startSeconds: at(0.1), endSeconds: at(0.5) };
    case "dailyCycle":
      return { kind, min: 3, max: 18, periodSeconds: duration };
    case "flapping":
      return { kind, low: 4, high: 12, periodSeconds: 240 };
    case "points":
      return { kind, points: [{ atSeconds: 0, load: 4 }, { atSeconds: at(0.2), load: 20 }, { atSeconds: at(0.6), load: 20 }, { atSeconds: at(0.7), load: 6 }] };
  }
}

export const DEFAULT_RULES_UP: Rules = { window: 0, select: "Max", policies: [{ type: "Pods", value: 4, period: 60 }], tolerance: null };
export const DEFAULT_RULES_DOWN: Rules = { window: 300, select: "Max", policies: [{ type: "Percent", value: 100, period: 15 }], tolerance: null };

export const DEFAULT_HPA_SCENARIO: HpaScenario = {
  min: 2,
  max: 20,
  target: 50,
  tolerance: 0.1,
  up: DEFAULT_RULES_UP,
  down: DEFAULT_RULES_DOWN,
  pods: { runningSeconds: 5, readySeconds: 30, startupCpu: 1 },
  initial: 4,
  duration: 1500,
  seed: 1,
  load: presetCurve("spike", 1500),
};

function rulesObject(r: Rules): Record<string, unknown> {
  const o: Record<string, unknown> = {
    stabilizationWindowSeconds: r.window,
    selectPolicy: r.select,
    policies: r.policies.map((p) => ({ type: p.type, value: p.value, periodSeconds: p.period })),
  };
  if (r.tolerance !== null) o.tolerance = String(r.tolerance);
  return o;
}

/** The HPA object (autoscaling/v2) of the scenario, as `kubectl get hpa -o json` would print it. */
export function hpaObject(sc: HpaScenario): Record<string, unknown> {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: sc.min,
      maxReplicas: sc.max,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: sc.target } } }],
      behavior: { scaleUp: rulesObject(sc.up), scaleDown: rulesObject(sc.down) },
    },
  };
}

/** The engine's forecast input for the scenario (the sync at `explainAt` explained). */
export function forecastInput(sc: HpaScenario, explainAt: number | null): HpaForecastHostInput {
  const input: HpaForecastHostInput = {
    hpa: hpaObject(sc),
    config: { tolerance: sc.tolerance },
    load: sc.load,
    // The controllers act on a scale write at once, as the simulator's (no watch delay) do.
    pods: { createDelaySeconds: 0, runningSeconds: sc.pods.runningSeconds, readySeconds: sc.pods.readySeconds, startupCpu: sc.pods.startupCpu },
    initialReplicas: sc.initial,
    durationSeconds: sc.duration,
    seed: sc.seed,
  };
  if (sc.rollout) input.rollout = { ...sc.rollout };
  if (explainAt !== null) input.explainAtSeconds = explainAt;
  return input;
}

/**
 * The same HPA, load and pods as a scenario of the seeded simulator, the run: Deployment
 * `web` settled at the start replicas, its kubelets starting pods as the pod model says
 * (Running after `runningSeconds`, Ready after `readySeconds`, no watch, scheduling or
 * termination delay), the rollout as a new image at its instant.
 */
export function runScenario(sc: HpaScenario): Scenario {
  const ms = (seconds: number): number => Math.round(seconds * 1000);
  const deployment: ScenarioDeployment = { replicas: sc.initial, settled: true, strategy: "RollingUpdate", image: "web:v1" };
  if (sc.rollout) {
    deployment.maxSurge = sc.rollout.maxSurge;
    deployment.maxUnavailable = sc.rollout.maxUnavailable;
  }
  const scenario: Scenario = {
    seed: sc.seed,
    delays: { watch: 0, schedule: 0, start: ms(sc.pods.runningSeconds), ready: ms(Math.max(0, sc.pods.readySeconds - sc.pods.runningSeconds)), terminate: 0 },
    deployment,
    hpa: { hpa: hpaObject(sc), config: { tolerance: sc.tolerance }, load: sc.load, pods: { startupCpu: sc.pods.startupCpu } },
  };
  if (sc.rollout) scenario.edits = [{ at: ms(sc.rollout.atSeconds), op: "setImage", image: "web:v2" }];
  return scenario;
}

/**
 * Points a user can drag that follow a curve the engine computed: the loads of the
 * forecast's syncs, keeping the syncs where the load changes (the corners), at most `max`.
 */
export function pointsOf(loads: Array<{ seconds: number; load: number }>, max = 24): LoadPoint[] {
  const round = (x: number): number => Math.round(x * 10) / 10;
  const kept = loads.filter((x, i) => {
    const before = loads[i - 1];
    const after = loads[i + 1];
    return !before || !after || round(before.load) !== round(x.load) || round(after.load) !== round(x.load);
  });
  const every = Math.max(1, Math.ceil(kept.length / max));
  const thinned = kept.filter((_, i) => i % every === 0 || i === kept.length - 1);
  return thinned.map((x) => ({ atSeconds: x.seconds, load: round(x.load) }));
}
