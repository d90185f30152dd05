// Node entry point of "replicore/judge": the conformance runner's judge (tests/src/lib.rs,
// crate replicore-tests) compiled to WebAssembly with the engine (the `judge` feature of
// the binding, a module of its own: src/wasm-judge), for `replicore conform`. The module
// is loaded on first use, so that importing this entry costs nothing until a judgment.

import { readFileSync } from "node:fs";
import * as raw from "./wasm-judge/replicore_judge.js";

let loaded = false;

function judgeModule(): void {
  if (loaded) return;
  raw.initSync({ module: readFileSync(new URL("./wasm-judge/replicore_judge_bg.wasm", import.meta.url)) });
  loaded = true;
}

/** The kinds the judge knows, in report order. */
export function judgeKinds(): string[] {
  judgeModule();
  return raw.judgeKinds();
}

/**
 * Judges the cases of one kind (the JSON text of a vector file) against the engine: the
 * report as JSON text, `{kind, passed, failures: [{case, field, expected, got}]}`.
 */
export function judgeCases(kind: string, casesJson: string): string {
  judgeModule();
  return raw.judgeCases(kind, casesJson);
}
