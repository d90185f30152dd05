// Browser and bundler entry point of "replicore/playground": fetches and instantiates the
// playground's module (the full module without the exports the page does not call) once,
// at import (top-level await), with the full module's glue.
import init, * as glue from "./wasm-full/replicore_full.js";
import { bindEngine } from "./instance.js";

const page = await init({ module_or_path: new URL("./wasm-full/replicore_playground_bg.wasm", import.meta.url) });
bindEngine(glue, page.memory);

export * from "./playground.js";
