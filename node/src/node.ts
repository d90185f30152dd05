// Node entry point: loads the engine module's .wasm from the package folder synchronously
// at import.
import { readFileSync } from "node:fs";
import * as glue from "./wasm/replicore_wasm.js";
import { bindEngine } from "./instance.js";

const engine = glue.initSync({ module: readFileSync(new URL("./wasm/replicore_wasm_bg.wasm", import.meta.url)) });
bindEngine(glue, engine.memory);

export * from "./api.js";
