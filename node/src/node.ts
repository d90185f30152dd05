// Node entry point: loads the .wasm from the package folder synchronously at import.
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/replicore_wasm.js";

const engine = initSync({ module: readFileSync(new URL("./wasm/replicore_wasm_bg.wasm", import.meta.url)) });

/** The engine's wasm linear memory, in bytes (it grows with what is stored, and never shrinks). */
export function wasmMemoryBytes(): number {
  return engine.memory.buffer.byteLength;
}

export * from "./api.js";
