// Browser and bundler entry point: fetches and instantiates the .wasm once, at import
// (top-level await; bundlers such as Vite resolve the `new URL(…, import.meta.url)`).
import init from "./wasm/replicore_wasm.js";

await init({ module_or_path: new URL("./wasm/replicore_wasm_bg.wasm", import.meta.url) });

export * from "./api.js";
