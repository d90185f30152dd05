// Node entry point of "replicore/playground": the playground's module (the full module
// without the exports the page does not call), loaded synchronously at import, so that
// Node tests run the page's API against the very module the page fetches.
import { readFileSync } from "node:fs";
import * as glue from "./wasm-full/replicore_full.js";
import { bindEngine } from "./instance.js";

const page = glue.initSync({ module: readFileSync(new URL("./wasm-full/replicore_playground_bg.wasm", import.meta.url)) });
bindEngine(glue, page.memory);

export * from "./playground.js";
