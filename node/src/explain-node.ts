// Node entry point of "replicore/explain": the explain report over the full module,
// loaded once by "replicore/full" (full-node.ts).
import "./full-node.js";

export * from "./explain.js";
