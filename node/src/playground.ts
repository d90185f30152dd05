// The typed API of "replicore/playground": what the playground page calls, over the
// playground's module (scripts/build.sh, playground_module): the full module's size build
// with the exports none of these functions call removed, about a sixth smaller over the
// wire. Every function here is the one of "replicore/full" (same wrappers, same glue);
// test/playground.test.mjs calls each against that module. A page that needs more imports
// "replicore/full".

export type * from "./full.js";
export { Simulator } from "./sim.js";
export { explain, explainJson, explainText, explainReport, explainHpa, podFacts, rankRuleTexts, deletionCostAnnotation, isReplicoreError } from "./explain.js";
export { deploymentObjectKeys, hpaForecast, version } from "./api.js";
