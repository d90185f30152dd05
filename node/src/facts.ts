// The engine's facts for hosts that show pods and rankings (the playground): each pod as
// the engine's rules read it, the rank rules' texts, the deletion-cost annotation's key.
// A typed wrapper over wasm/src/facts.rs; no rule is computed here.

import * as raw from "./wasm/replicore_wasm.js";
import { guard, optJson, utf8 } from "./json-text.js";
import type { Config, RankRule } from "./types.js";

/** One pod of a snapshot as the engine reads it (core/src/facts.rs). */
export interface PodFacts {
  namespace: string;
  name: string;
  /** `spec.nodeName`; null when not scheduled. */
  node: string | null;
  phase: string;
  /** the first Ready condition is True. */
  ready: boolean;
  /** when it became ready (null when not ready or zero). */
  readySince: string | null;
  /** the highest restart count over regular containers, then over sidecars. */
  restarts: number;
  sidecarRestarts: number;
  /** the pod-deletion-cost annotation as upstream parses it (invalid ⇒ 0). */
  deletionCost: number;
  /** */
  active: boolean;
  terminating: boolean;
  /** The controller reference as `Kind/name`; null for an orphan. */
  controller: string | null;
  /** the key (`namespace/name`) of the snapshot's owner that controls it (kind, name and UID); null when none does. */
  owner: string | null;
}

/** Every pod of a snapshot (a v1 List as `kubectl get rs,pods -o json` prints it, as JSON text), in input order. */
export function podFacts(listJson: string, config?: Config): PodFacts[] {
  return guard("", () => raw.podFacts(utf8(listJson), optJson(config, "config")) as PodFacts[]);
}

let texts: Record<RankRule, string> | undefined;

/** The text of each rank rule (what the explain report prints for it). */
export function rankRuleTexts(): Record<RankRule, string> {
  texts ??= guard("", () => raw.rankRuleTexts() as Record<RankRule, string>);
  return texts;
}

/** The annotation whose value orders pods on scale-down (`pod-deletion-cost`). */
export function deletionCostAnnotation(): string {
  return guard("", () => raw.deletionCostAnnotation());
}
