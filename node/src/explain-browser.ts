// Browser and bundler entry point of "replicore/explain": the explain report over the
// full module, instantiated once by "replicore/full" (full-browser.ts).
import "./full-browser.js";

export * from "./explain.js";
