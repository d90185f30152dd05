// Node entry point of "replicore/explain": loads the explain module's .wasm (the engine
// with the explain report and pod facts) synchronously at import.
import { readFileSync } from "node:fs";
import { initSync } from "./wasm-explain/replicore_explain.js";

initSync({ module: readFileSync(new URL("./wasm-explain/replicore_explain_bg.wasm", import.meta.url)) });

export * from "./explain.js";
