// Browser and bundler entry point of "replicore/full": fetches and instantiates the full
// module's .wasm (engine, explain report, simulator) once, at import (top-level await).
// The build for size, as in browser.ts. The `replicore/explain` and `replicore/sim` entries
// import this one: a page that imports several of them fetches the module once.
import init, * as glue from "./wasm-full/replicore_full.js";
import { bindEngine } from "./instance.js";

const full = await init({ module_or_path: new URL("./wasm-full/replicore_full_small_bg.wasm", import.meta.url) });
bindEngine(glue, full.memory);

export * from "./full.js";
