// Browser and bundler entry point of "replicore/sim": instantiates the simulator's .wasm
// once, at import (top-level await). The build for size, as in browser.ts.
import init from "./wasm-sim/replicore_sim.js";

await init({ module_or_path: new URL("./wasm-sim/replicore_sim_small_bg.wasm", import.meta.url) });

export * from "./sim.js";
