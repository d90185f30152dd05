// Node entry point of "replicore/sim": loads the simulator's .wasm (the engine and the
// seeded cluster simulator) synchronously at import.
import { readFileSync } from "node:fs";
import { initSync } from "./wasm-sim/replicore_sim.js";

initSync({ module: readFileSync(new URL("./wasm-sim/replicore_sim_bg.wasm", import.meta.url)) });

export * from "./sim.js";
