// The typed API of "replicore/explain": the report `replicore explain` prints and the
// playground's import shows, and the pod facts and rank-rule texts the playground draws.
// Over the full module (the binding built with the `full` feature, src/wasm-full), also
// exported by "replicore/full"; the engine module an operator loads (`replicore`) carries
// none of its code.
// The argument checks and error mapping are the ones every entry shares (json-text.ts);
// every decision is the engine's.

import * as raw from "./wasm-full/replicore_full.js";
import { fromText, guard, iso, json, record, utf8, withNow } from "./json-text.js";
import type { Explanation, ExplainOptions, HostInput, HpaExplainInput, HpaExplanation, ReportOptions } from "./types.js";

export type * from "./types.js";
export { isReplicoreError } from "./json-text.js";
export * from "./facts.js";

/** What the CLI prints, as data: `list` is what `kubectl get rs,pods -o json` prints. */
export function explain(list: unknown, options: HostInput<ExplainOptions>): Explanation {
  return guard("", () => explainBytes(json(list, ""), options));
}

/** `explain` from JSON text. */
export function explainJson(listJson: string, options: HostInput<ExplainOptions>): Explanation {
  return guard("", () => explainBytes(utf8(listJson), options));
}

function explainBytes(list: Uint8Array, options: HostInput<ExplainOptions>): Explanation {
  return raw.explain(list, json(withNow(options, "options"), "options"));
}

/**
 * What `replicore explain` prints for JSON text of `kubectl get deploy,rs,pods -o json`:
 * the Deployments, the ReplicaSets and, with `options.forecast`, each Deployment's rollout
 * played forward. The engine's one report and renderer (core/src/report.rs), also used by
 * the native example.
 */
export function explainText(listJson: string, options: HostInput<ReportOptions>): string {
  return guard("", () => raw.explainText(utf8(listJson), json(withNow(options, "options"), "options")));
}

/**
 * {@link explainText} as data: for ReplicaSets alone the {@link Explanation}; with
 * Deployments or a forecast, `{deployments, replicaSets, forecasts}`.
 */
export function explainReport(listJson: string, options: HostInput<ReportOptions>): Explanation | Record<string, unknown> {
  return guard("", () => fromText(raw.explainReport(utf8(listJson), json(withNow(options, "options"), "options"))));
}

/**
 * "Why N?" for a HorizontalPodAutoscaler: what its next sync decides and why, from a
 * snapshot (`objects`: `kubectl get hpa,deploy,rs,pods -o json`; `metrics`: the metrics
 * APIs' answers as `kubectl get --raw` prints them). The engine's sync, run and recorded
 * (core/src/hpa/explain.rs); `text` is what `replicore explain hpa/NAME` prints.
 */
export function explainHpa(input: HostInput<HpaExplainInput>): HpaExplanation {
  return guard("", () => {
    const o = record(input, "");
    return fromText(raw.explainHpa(json({ ...o, now: iso(o.now, "now") }, "")));
  });
}
