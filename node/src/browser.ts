// Browser and bundler entry point: fetches and instantiates the engine module's .wasm
// once, at import (top-level await; bundlers such as Vite resolve the
// `new URL(…, import.meta.url)`). Browsers get the build for size (`*_small_bg.wasm`,
// opt-level "z"): the same source and exports as the Node entry's build for speed, and
// the same glue. A page that also wants the explain report or the simulator imports
// `replicore/full` instead: one module with all three.
import init, * as glue from "./wasm/replicore_wasm.js";
import { bindEngine } from "./instance.js";

const engine = await init({ module_or_path: new URL("./wasm/replicore_wasm_small_bg.wasm", import.meta.url) });
bindEngine(glue, engine.memory);

export * from "./api.js";
