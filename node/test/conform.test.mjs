// `replicore conform`: the wasm build through the public API against every vector.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, vectorsDir } from "./helpers.mjs";

test("conform on the vectors: 1940 passed, 0 failed", () => {
  const r = run(["conform", vectorsDir]);
  assert.equal(r.stderr, "");
  const lines = r.stdout.trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, 6), [
    "rank            600 passed, 0 failed",
    "sync            600 passed, 0 failed",
    "status          300 passed, 0 failed",
    "selector        300 passed, 0 failed",
    "slowstart        60 passed, 0 failed",
    "expectations     80 passed, 0 failed",
  ]);
  assert.equal(lines.at(-1), "1940 passed, 0 failed");
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
  assert.match(r.stdout, new RegExp(`^  ${name}: calls\\n {4}expected: ${cases[0].expect.calls}\\n {4}got: {6}${cases[0].expect.calls - 1}$`, "m"));
  assert.match(r.stdout, /\n359 passed, 1 failed\n$/);
});
