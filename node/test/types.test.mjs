// The boundary is typed from one source: the TypeScript types are generated from the Rust
// types (node/src/generated/, checked fresh by scripts/gen-types.sh --check), the wasm
// exports carry them (wasm-bindgen's unchecked_return_type), and so the typed wrapper
// takes what the binding returns as it is. These checks read the sources and the
// binding's declarations (after the build); they fail when a cast or an untyped export
// comes back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const src = fileURLToPath(new URL("../src/", import.meta.url));
const read = (file) => readFileSync(src + file, "utf8");

/** The calls of a raw (wasm) function in `text` that are cast (`raw.f(...) as T`), by line. */
function castRawCalls(text) {
  const found = [];
  text.split("\n").forEach((line, i) => {
    const at = line.search(/\braw\.[\w.]+\(|#raw\.\w+\(/);
    if (at < 0) return;
    // ` as X` after the raw call on the same line (`as const` is no cast of a result).
    if (/\)\s+as\s+(?!const\b)[\w{[(]/.test(line.slice(at))) found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

test("the cast finder finds a cast on a raw call (the check below can fail)", () => {
  assert.deepEqual(castRawCalls('  return guard("", () => raw.complete(a, b) as Completion);'), [
    '1: return guard("", () => raw.complete(a, b) as Completion);',
  ]);
  assert.equal(castRawCalls('  return guard("", () => this.#raw.size() as StoreSize);').length, 1);
  assert.deepEqual(castRawCalls('  return guard("", () => raw.complete(a, b));'), []);
});

test("the typed wrapper takes the binding's results without casts", () => {
  for (const file of ["api.ts", "explain.ts", "facts.ts", "judge.ts"]) {
    assert.deepEqual(castRawCalls(read(file)), [], `${file}: a raw result is cast; type the wasm export instead`);
  }
});

for (const dts of ["wasm/replicore_wasm.d.ts", "wasm-full/replicore_full.d.ts"]) {
  test(`no export of the wasm module ${dts} returns an untyped value`, () => {
    const text = read(dts);
    // Only the declarations of the module (not the init glue at the end).
    const decls = text.slice(0, text.indexOf("export type InitInput"));
    const untyped = decls
      .split("\n")
      .filter((line) => /^\s*(export function |(static )?\w+\().*\): any;\s*$/.test(line) || /^\s*(export function |(static )?\w+\().*\): any \| /.test(line))
      .map((line) => line.trim());
    assert.deepEqual(untyped, [], "wasm exports returning `any`: give them unchecked_return_type");
    // The generated types are what the declarations name.
    assert.match(text, /from "\.\.\/generated\/index\.js"/);
  });
}

test("every generated declaration is exported by the generated index", () => {
  const dir = src + "generated/";
  const index = readFileSync(dir + "index.ts", "utf8");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "index.ts");
  assert.ok(files.length > 60, `only ${files.length} generated files`);
  for (const f of files) assert.ok(index.includes(`"./${f.replace(/\.ts$/, ".js")}"`), `${f} not in index.ts`);
  // The ReplicaSet engine's boundary types are among them (not only the Deployment's).
  for (const name of ["SyncInput", "SyncPlan", "SyncOutcome", "Completion", "EventDecision", "RankedPod", "Explanation", "Correlated", "PodFacts"]) {
    assert.ok(files.includes(`${name}.ts`), `${name} is not generated`);
  }
});
