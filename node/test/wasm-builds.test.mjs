// The package's modules: the engine (`replicore`), the full module (`replicore/full`: the
// engine, the explain report and the simulator, which `replicore/explain` and
// `replicore/sim` use too) and the judge (`replicore/judge`, Node only). The two a browser
// loads are each built twice from one source: for speed (`*_bg.wasm`, opt-level 3), which
// the `node` entries load, and for size (`*_small_bg.wasm`, opt-level "z"), which the
// browser entries fetch. Both builds share one wasm-bindgen glue (scripts/build.sh checks
// it is byte for byte the same). These tests check that the package ships those modules
// and no other, that each entry loads the build meant for it, that the explain and sim
// entries load the full module (one instance, in Node counted as it is compiled), that
// the size build is the smaller over the wire, and that both builds decide the same: the
// size build runs in Node here through a second instance of the glue, against the speed
// build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { cluster, NOW } from "./helpers.mjs";

const dist = new URL("../dist/", import.meta.url);
const MODULES = [
  { dir: "wasm", name: "replicore_wasm", browser: "browser.js", node: "node.js" },
  { dir: "wasm-full", name: "replicore_full", browser: "full-browser.js", node: "full-node.js" },
];
/** The entries that are views over the full module: they import its entry and load no .wasm of their own. */
const VIEWS = [
  { browser: "explain-browser.js", node: "explain-node.js" },
  { browser: "sim-browser.js", node: "sim-node.js" },
];

const bytes = (path) => readFileSync(new URL(path, dist));

/** The glue of `dir/name` instantiated with the build `file`: its own module instance (a query makes another URL). */
async function build(dir, name, file) {
  const glue = await import(new URL(`${dir}/${name}.js?build=${file}`, dist).href);
  glue.initSync({ module: bytes(`${dir}/${file}`) });
  return glue;
}

test("the browser entries fetch the size build, the Node entries load the speed build", () => {
  for (const m of MODULES) {
    const browser = bytes(m.browser).toString();
    const node = bytes(m.node).toString();
    assert.match(browser, new RegExp(`"\\./${m.dir}/${m.name}_small_bg\\.wasm"`), m.browser);
    assert.doesNotMatch(browser, new RegExp(`${m.name}_bg\\.wasm`), m.browser);
    assert.match(node, new RegExp(`"\\./${m.dir}/${m.name}_bg\\.wasm"`), m.node);
    assert.doesNotMatch(node, /_small_bg\.wasm/, m.node);
  }
});

test("the package ships the engine's and the full module's two builds, the playground's and the judge's, and no other .wasm", () => {
  const wasm = [];
  for (const entry of readdirSync(dist, { recursive: true })) if (String(entry).endsWith(".wasm")) wasm.push(String(entry));
  assert.deepEqual(wasm.sort(), [
    "wasm-full/replicore_full_bg.wasm",
    "wasm-full/replicore_full_small_bg.wasm",
    "wasm-full/replicore_playground_bg.wasm",
    "wasm-judge/replicore_judge_bg.wasm",
    "wasm/replicore_wasm_bg.wasm",
    "wasm/replicore_wasm_small_bg.wasm",
  ]);
});

test("the explain and sim entries are views over the full module's entry", () => {
  for (const v of VIEWS) {
    const browser = bytes(v.browser).toString();
    const node = bytes(v.node).toString();
    assert.match(browser, /^import "\.\/full-browser\.js";$/m, v.browser);
    assert.match(node, /^import "\.\/full-node\.js";$/m, v.node);
    for (const [file, text] of [[v.browser, browser], [v.node, node]]) assert.doesNotMatch(text, /\.wasm/, file);
  }
});

/**
 * The sizes of the wasm modules a Node process compiles while it imports `specifiers` and
 * runs `code` (the imports bound as `m0`, `m1`, …): `WebAssembly.Module` is wrapped
 * before the package loads. Prints what `code` returns after the sizes.
 */
function compiledIn(specifiers, code) {
  const script = `
    const Module = WebAssembly.Module;
    const sizes = [];
    WebAssembly.Module = function (bytes) { sizes.push(bytes.byteLength); return new Module(bytes); };
    const [${specifiers.map((_, i) => `m${i}`).join(", ")}] = await Promise.all(${JSON.stringify(specifiers)}.map((s) => import(s)));
    const out = await (async () => { ${code} })();
    console.log(JSON.stringify({ sizes, out }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("replicore/full, replicore/explain and replicore/sim in one process compile one module, the full one, which serves all three", () => {
  const full = bytes("wasm-full/replicore_full_bg.wasm").length;
  const { sizes, out } = compiledIn(
    ["replicore/full", "replicore/explain", "replicore/sim"],
    `const list = ${JSON.stringify(JSON.stringify(cluster()))};
     const sim = new m2.Simulator({ seed: 1, replicas: 2, nodes: 2 });
     sim.advance(10_000);
     const pods = sim.state().pods.length;
     sim.free();
     return { plan: m0.planJson(JSON.stringify({ now: "${NOW}", owner: JSON.parse(list).items.find((i) => i.kind === "ReplicaSet"), pods: [] })).manage.action,
              explain: m1.explainJson(list, { now: "${NOW}" }).owners.length, pods, memory: m0.wasmMemoryBytes() > 0 };`,
  );
  assert.deepEqual(sizes, [full]);
  assert.deepEqual(out, { plan: "create", explain: 3, pods: 2, memory: true });
});

test("replicore alone compiles the engine module, not the full one", () => {
  const { sizes, out } = compiledIn(["replicore"], `return typeof m0.plan === "function" && !("Simulator" in m0) && !("explain" in m0);`);
  assert.deepEqual(sizes, [bytes("wasm/replicore_wasm_bg.wasm").length]);
  assert.equal(out, true);
});

test("each size build is smaller over the wire than its speed build", () => {
  for (const m of MODULES) {
    const speed = gzipSync(bytes(`${m.dir}/${m.name}_bg.wasm`), { level: 9 }).length;
    const size = gzipSync(bytes(`${m.dir}/${m.name}_small_bg.wasm`), { level: 9 }).length;
    assert.ok(size < speed, `${m.name}: size build ${size} B gzip, speed build ${speed} B`);
  }
});

test("the engine's two builds plan the same", async () => {
  const speed = await build("wasm", "replicore_wasm", "replicore_wasm_bg.wasm");
  const size = await build("wasm", "replicore_wasm", "replicore_wasm_small_bg.wasm");
  const list = cluster();
  const owners = list.items.filter((i) => i.kind === "ReplicaSet");
  const pods = list.items.filter((i) => i.kind === "Pod");
  assert.ok(owners.length > 0 && pods.length > 0);
  for (const owner of owners) {
    for (const replicas of [0, 1, owner.spec.replicas, 50]) {
      const input = JSON.stringify({ now: NOW, owner: { ...owner, spec: { ...owner.spec, replicas } }, pods });
      const a = speed.plan(input, undefined);
      assert.equal(size.plan(input, undefined), a, `${owner.metadata.name} at ${replicas}`);
      assert.ok(a.length > 100);
    }
  }
  // Errors too: the same code, path and message.
  const bad = JSON.stringify({ now: NOW, owner: owners[0], pods: [{ metadata: [] }] });
  const errorOf = (glue) => {
    try {
      glue.plan(bad, undefined);
    } catch (e) {
      return { code: e.code, path: e.path, message: e.message };
    }
    return null;
  };
  assert.ok(errorOf(speed) !== null);
  assert.deepEqual(errorOf(size), errorOf(speed));
});

test("the full module's two builds report the same", async () => {
  const speed = await build("wasm-full", "replicore_full", "replicore_full_bg.wasm");
  const size = await build("wasm-full", "replicore_full", "replicore_full_small_bg.wasm");
  const list = new TextEncoder().encode(JSON.stringify(cluster()));
  const options = JSON.stringify({ now: NOW, replicas: 2 });
  const a = speed.explainText(list, options);
  assert.ok(a.length > 100);
  assert.equal(size.explainText(list, options), a);
});

test("the full module's two builds run a scenario to the same state", async () => {
  const speed = await build("wasm-full", "replicore_full", "replicore_full_bg.wasm");
  const size = await build("wasm-full", "replicore_full", "replicore_full_small_bg.wasm");
  const run = (glue) => {
    const sim = new glue.Simulator(JSON.stringify({ seed: 7, replicas: 3, nodes: 3 }));
    sim.advance(5_000);
    sim.apply(JSON.stringify({ op: "setReplicas", replicas: 12 }));
    sim.advance(30_000);
    sim.apply(JSON.stringify({ op: "setReplicas", replicas: 4 }));
    sim.advance(30_000);
    return JSON.stringify([sim.state(), sim.trace(undefined), sim.history()]);
  };
  const a = run(speed);
  assert.ok(a.includes('"node-3"'));
  assert.equal(run(size), a);
});
