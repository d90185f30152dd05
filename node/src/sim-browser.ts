// Browser and bundler entry point of "replicore/sim": the simulator over the full module,
// instantiated once by "replicore/full" (full-browser.ts).
import "./full-browser.js";

export * from "./sim.js";
