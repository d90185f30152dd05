// No rule outside the engine: the host sources (node/src, tools/src, web-demo/src) must
// not restate the controllers' rule constants. Each is the engine's (core/), and hosts ask
// for it through wasm (podFacts, rankRuleTexts, deletionCostAnnotation, explainText, the judge).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { rankRuleTexts } from "replicore/explain";
import { repo } from "./helpers.mjs";

/** TypeScript sources under `dir`, skipping the generated wasm glue (src/wasm*). */
function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!name.startsWith("wasm")) out.push(...sources(path));
    } else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out;
}

/** The code of a source without its comments (a doc comment may name a rule's constant). */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const CONSTANTS = [
  ["the deletion-cost annotation key", /controller\.kubernetes\.io\/pod-deletion-cost/],
  ["the revision annotation key", /deployment\.kubernetes\.io\/(revision|desired-replicas|max-replicas)/],
  ["the pod-template-hash label", /pod-template-hash/],
  ["the phase order", /["'`]Pending["'`]\s*,\s*["'`]Unknown["'`]\s*,\s*["'`]Running["'`]|Pending\s*<\s*Unknown\s*<\s*Running/],
];

const HOST_DIRS = ["node/src", "tools/src", "web-demo/src"];
const hostFiles = () => HOST_DIRS.flatMap((dir) => sources(join(repo, dir)));

function offenders(patterns) {
  const found = [];
  for (const file of hostFiles()) {
    const text = code(readFileSync(file, "utf8"));
    for (const [what, re] of patterns) {
      if (re.test(text)) found.push(`${relative(repo, file)}: ${what}`);
    }
  }
  return found;
}

test("host sources hold none of the engine's rule constants", () => {
  assert.ok(hostFiles().length > 20, "the scan finds the host sources");
  for (const dir of HOST_DIRS) assert.ok(hostFiles().some((f) => relative(repo, f).startsWith(`${dir}/`)), `the scan reads ${dir}`);
  assert.deepEqual(offenders(CONSTANTS), []);
});

test("host sources hold none of the rank rules' texts (they come from rankRuleTexts())", () => {
  const texts = Object.entries(rankRuleTexts());
  assert.equal(texts.length, 13);
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // A text as short as "not ready" is also a plain UI word; the others are the rule's own.
  const distinctive = texts.filter(([, text]) => text.length >= 12);
  assert.ok(distinctive.length >= 11);
  assert.deepEqual(offenders(distinctive.map(([rule, text]) => [`the text of rank rule ${rule}`, new RegExp(escape(text))])), []);
});

test("the scan finds a constant when one is written", () => {
  // The check itself can fail: the patterns match the constants as a host would write them.
  const sample = code(`const COST = "controller.kubernetes.io/pod-deletion-cost";\nconst ORDER = ["Pending", "Unknown", "Running"];\n`);
  assert.ok(CONSTANTS[0][1].test(sample));
  assert.ok(CONSTANTS[3][1].test(sample));
  assert.ok(!CONSTANTS[0][1].test(code("// controller.kubernetes.io/pod-deletion-cost\n")));
});
