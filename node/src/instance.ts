// The wasm instance behind the engine API (api.ts): the engine module's, when the program
// loads `replicore`, or the full module's (engine, explain report and simulator), when it
// loads `replicore/full` (or `replicore/explain`, `replicore/sim`, which use the full
// module). Both modules carry the engine surface with the same exports, so the API is
// written once over this binding; the entry that instantiates a module binds it here.
// A program that loads both modules (it imports `replicore` and `replicore/full`) gets
// the engine API from the first bound: two instances answer alike, and objects made
// (stores, correlators, runs) keep their own instance either way.

import type * as Engine from "./wasm/replicore_wasm.js";

/** The engine module's exports without its init functions: what every module exports. */
export type EngineExports = Omit<typeof Engine, "default" | "initSync">;

/** The exports the engine API calls (a live binding: set once, by the first entry). */
export let raw: EngineExports;
/**
 * The engine's cap on the characters of a value quoted in a message, read when the module
 * is bound (before any call could trap): the package cuts its own messages there too.
 */
export let maxQuotedChars: number;
let memory: WebAssembly.Memory | undefined;

/** Binds the engine API to an instantiated module, unless an entry bound one already. */
export function bindEngine(exports: EngineExports, instanceMemory: WebAssembly.Memory): void {
  if (memory !== undefined) return;
  raw = exports;
  maxQuotedChars = exports.maxQuotedChars();
  memory = instanceMemory;
}

/** The linear memory of the instance the engine API calls. */
export function engineMemory(): WebAssembly.Memory {
  if (memory === undefined) throw new Error("replicore: no wasm module is instantiated (import the package through one of its entries)");
  return memory;
}
