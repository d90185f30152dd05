// Browser and bundler entry point of "replicore/explain": instantiates the explain
// module's .wasm once, at import (top-level await). The build for size, as in browser.ts.
import init from "./wasm-explain/replicore_explain.js";

await init({ module_or_path: new URL("./wasm-explain/replicore_explain_small_bg.wasm", import.meta.url) });

export * from "./explain.js";
