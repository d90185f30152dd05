// The engine's facts for hosts that show pods and rankings (the playground): each pod as
// the engine's rules read it, the rank rules' texts, the deletion-cost annotation's key.
// A typed wrapper over wasm/src/facts.rs; no rule is computed here.

import * as raw from "./wasm-full/replicore_full.js";
import { guard, optJson, utf8 } from "./json-text.js";
import type { Config, PodFacts, RankRule } from "./types.js";

export type { PodFacts };

/** Every pod of a snapshot (a v1 List as `kubectl get rs,pods -o json` prints it, as JSON text), in input order. */
export function podFacts(listJson: string, config?: Config): PodFacts[] {
  return guard("", () => raw.podFacts(utf8(listJson), optJson(config, "config")));
}

let texts: Record<RankRule, string> | undefined;

/** The text of each rank rule (what the explain report prints for it). */
export function rankRuleTexts(): Record<RankRule, string> {
  texts ??= guard("", () => raw.rankRuleTexts());
  return texts;
}

/** The annotation whose value orders pods on scale-down (`pod-deletion-cost`). */
export function deletionCostAnnotation(): string {
  return guard("", () => raw.deletionCostAnnotation());
}
