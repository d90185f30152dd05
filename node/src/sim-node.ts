// Node entry point of "replicore/sim": the simulator over the full module, loaded once by
// "replicore/full" (full-node.ts).
import "./full-node.js";

export * from "./sim.js";
