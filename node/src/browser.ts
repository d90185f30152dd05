// Browser and bundler entry point: fetches and instantiates the .wasm once, at import
// (top-level await; bundlers such as Vite resolve the `new URL(…, import.meta.url)`).
// Browsers get the build for size (`*_small_bg.wasm`, opt-level "z"): the same source
// and exports as the Node entry's build for speed, and the same glue.
import init from "./wasm/replicore_wasm.js";

const engine = await init({ module_or_path: new URL("./wasm/replicore_wasm_small_bg.wasm", import.meta.url) });

/** The engine's wasm linear memory, in bytes (it grows with what is stored, and never shrinks). */
export function wasmMemoryBytes(): number {
  return engine.memory.buffer.byteLength;
}

export * from "./api.js";
