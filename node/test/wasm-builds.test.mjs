// The engine, explain and simulator modules are each built twice from one source: for
// speed (`*_bg.wasm`, opt-level 3), which the `node` entries load, and for size
// (`*_small_bg.wasm`, opt-level "z"), which the browser entries fetch. Both builds share
// one wasm-bindgen glue (scripts/build.sh checks it is byte for byte the same). These
// tests check that each entry loads the build meant for it, that the size build is the
// smaller over the wire, and that both builds decide the same: the size build runs in
// Node here through a second instance of the glue, against the speed build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { cluster, NOW } from "./helpers.mjs";

const dist = new URL("../dist/", import.meta.url);
const MODULES = [
  { dir: "wasm", name: "replicore_wasm", browser: "browser.js", node: "node.js" },
  { dir: "wasm-explain", name: "replicore_explain", browser: "explain-browser.js", node: "explain-node.js" },
  { dir: "wasm-sim", name: "replicore_sim", browser: "sim-browser.js", node: "sim-node.js" },
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

test("the explain module's two builds report the same", async () => {
  const speed = await build("wasm-explain", "replicore_explain", "replicore_explain_bg.wasm");
  const size = await build("wasm-explain", "replicore_explain", "replicore_explain_small_bg.wasm");
  const list = new TextEncoder().encode(JSON.stringify(cluster()));
  const options = JSON.stringify({ now: NOW, replicas: 2 });
  const a = speed.explainText(list, options);
  assert.ok(a.length > 100);
  assert.equal(size.explainText(list, options), a);
});

test("the simulator's two builds run a scenario to the same state", async () => {
  const speed = await build("wasm-sim", "replicore_sim", "replicore_sim_bg.wasm");
  const size = await build("wasm-sim", "replicore_sim", "replicore_sim_small_bg.wasm");
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
