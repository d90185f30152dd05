// The typed API of "replicore/full": the engine's (api.ts), the explain report's
// (explain.ts) and the simulator's (sim.ts), over one wasm module (the binding built with
// the `full` feature, src/wasm-full) that holds all three, so a page or the CLI loads the
// engine once. The entries full-browser.ts and full-node.ts instantiate it.

export * from "./api.js";
export * from "./explain.js";
export * from "./sim.js";
