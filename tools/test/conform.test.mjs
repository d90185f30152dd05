// `replicore conform`: the conformance runner's judge (tests/src/lib.rs), compiled to wasm,
// against every vector: the same verdicts and report as the native `conformance` binary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, vectorsDir } from "./helpers.mjs";

test("conform on the vectors: 3700 passed, 0 failed, the Deployment and HPA kinds included", () => {
  const r = run(["conform", vectorsDir]);
  assert.equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  assert.deepEqual(lines, [
    "rank            600 passed, 0 failed",
    "sync            600 passed, 0 failed",
    "status          300 passed, 0 failed",
    "selector        300 passed, 0 failed",
    "slowstart        60 passed, 0 failed",
    "expectations     80 passed, 0 failed",
    "deployment-sync   500 passed, 0 failed",
    "deployment-hash   300 passed, 0 failed",
    "hpa-replicas    400 passed, 0 failed",
    "hpa-sync        500 passed, 0 failed",
    "hpa-trace        60 passed, 0 failed",
    "3700 passed, 0 failed",
  ]);
  assert.equal(r.status, 0);
});

test("conform reports failures (case, field, expected, got) and exits 1", () => {
  const dir = mkdtempSync(join(tmpdir(), "replicore-vectors-"));
  const cases = JSON.parse(readFileSync(join(vectorsDir, "slowstart.json"), "utf8"));
  cases[0].expect.calls += 1;
  writeFileSync(join(dir, "slowstart.json"), JSON.stringify(cases));
  cpSync(join(vectorsDir, "selector.json"), join(dir, "selector.json"));
  const r = run(["conform", dir]);
  assert.equal(r.status, 1);
  const name = cases[0].name;
  assert.match(r.stdout, /^selector {8}300 passed, 0 failed$/m);
  assert.match(r.stdout, /^slowstart {8}59 passed, 1 failed$/m);
  // The judge's own words (Rust Debug values), as the native runner prints them.
  assert.match(r.stdout, new RegExp(`^  ${name}: calls\\n {4}expected: Some\\(${cases[0].expect.calls}\\)\\n {4}got: {6}Some\\(${cases[0].expect.calls - 1}\\)$`, "m"));
  assert.match(r.stdout, /\n359 passed, 1 failed\n$/);
});

test("conform reads .json.gz in subdirectories and judges the Deployment kinds", () => {
  const dir = mkdtempSync(join(tmpdir(), "replicore-vectors-"));
  const src = join(vectorsDir, "deployment", "deployment-hash.json.gz");
  const cases = JSON.parse(gunzipSync(readFileSync(src)).toString("utf8"));
  const want = cases[0].expect.hash;
  cases[0].expect.hash = want === "0" ? "1" : "0";
  mkdirSync(join(dir, "nested", "deeper"), { recursive: true });
  writeFileSync(join(dir, "nested", "deeper", "deployment-hash.json.gz"), gzipSync(JSON.stringify(cases)));
  const r = run(["conform", dir]);
  assert.equal(r.status, 1);
  assert.match(r.stdout, new RegExp(`^deployment-hash {3}${cases.length - 1} passed, 1 failed$`, "m"));
  assert.match(r.stdout, new RegExp(`^  ${cases[0].name}: `, "m"));
  assert.match(r.stdout, new RegExp(`\\n${cases.length - 1} passed, 1 failed\\n$`));
});
