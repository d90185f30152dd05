// Node entry point: loads the .wasm from the package folder synchronously at import.
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/replicore_wasm.js";

initSync({ module: readFileSync(new URL("./wasm/replicore_wasm_bg.wasm", import.meta.url)) });

export * from "./api.js";
