// Node entry point of "replicore/full": loads the full module's .wasm (engine, explain
// report, simulator) synchronously at import. The `replicore/explain` and `replicore/sim`
// Node entries import this one.
import { readFileSync } from "node:fs";
import * as glue from "./wasm-full/replicore_full.js";
import { bindEngine } from "./instance.js";

const full = glue.initSync({ module: readFileSync(new URL("./wasm-full/replicore_full_bg.wasm", import.meta.url)) });
bindEngine(glue, full.memory);

export * from "./full.js";
