// Pods cross into wasm with only the fields the engine reads (src/pod-json.ts): the text
// written is JSON.stringify of the pod's JSON value cut to podFields(), for real pods and
// for every odd value JSON.stringify has a rule for; the engine decides the same and
// reports bad values at the same paths.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { Store, podFields, rankPods, isReplicoreError } from "replicore";
import { compile, listOf, openObject } from "../dist/pod-json.js";
import { NOW, cluster, repo } from "./helpers.mjs";

const tree = podFields();
const write = compile(tree);

/** The reference: the JSON value of `value`, cut to `shape` by plain recursion. */
function cut(value, shape) {
  if (shape === true) return value;
  if (Array.isArray(shape)) return Array.isArray(value) ? value.map((v) => cut(v, shape[0])) : value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out = {};
  for (const k of Object.keys(value)) if (Object.hasOwn(shape, k)) out[k] = cut(value[k], shape[k]);
  return out;
}
const reference = (pod) => {
  const text = JSON.stringify(pod);
  return text === undefined ? undefined : JSON.stringify(cut(JSON.parse(text), tree));
};

function benchPods() {
  const gz = readFileSync(`${repo}core/benches/data/pods-10k.json.gz`);
  return JSON.parse(gunzipSync(gz)).items;
}

test("the engine's field tree names what it reads", () => {
  assert.equal(tree.metadata.labels, true);
  assert.equal(tree.metadata.ownerReferences[0].uid, true);
  assert.equal(tree.status.conditions[0].lastTransitionTime, true);
  assert.equal(tree.metadata.managedFields, undefined);
  assert.equal(tree.spec.containers, undefined);
});

test("real pods are written as JSON.stringify of their cut JSON value, about a quarter of the text", () => {
  const pods = [...benchPods(), ...cluster().items.filter((i) => i.kind === "Pod")];
  let full = 0;
  let cutLength = 0;
  for (const pod of pods) {
    const text = write(pod);
    assert.equal(text, reference(pod));
    full += JSON.stringify(pod).length;
    cutLength += text.length;
  }
  assert.ok(cutLength * 3 < full, `${cutLength} of ${full}`);
  // Lists of pods (written in runs of 16), at and around the run boundaries.
  const list = listOf(write);
  for (const n of [0, 1, 15, 16, 17, 32, 33, 1000]) {
    const some = pods.slice(0, n);
    assert.equal(list(some), `[${some.map(reference).join(",")}]`, `${n} pods`);
  }
});

test("odd values are written as JSON.stringify writes them", () => {
  class Meta {
    constructor() {
      this.name = "p";
      this.namespace = "ns";
    }
    get uid() {
      return "from-prototype"; // not an own property: JSON.stringify ignores it
    }
  }
  const hidden = { name: "h" };
  Object.defineProperty(hidden, "namespace", { value: "ns", enumerable: false });
  const strings = ['q"uote', "back\\slash", "new\nline", "tab\t", "\u0000", "é", "😀", "\ud800", "\udc00x", ""];
  const cases = [
    { metadata: { name: "p", creationTimestamp: new Date("2026-11-21T05:00:00.123Z") } },
    { metadata: { name: undefined, namespace: () => 1, uid: Symbol("u"), generation: NaN } },
    { metadata: { generation: Infinity, labels: { a: "b", n: -0, x: undefined } } },
    { metadata: { ownerReferences: [undefined, null, 3, { uid: "u", controller: true, extra: {} }, [1]] } },
    { metadata: { ownerReferences: { uid: "not a list" } } },
    { metadata: [], spec: "spec", status: null },
    { metadata: { labels: ["a"], annotations: null, finalizers: [undefined, "f"] } },
    { metadata: new Meta() },
    { metadata: hidden },
    { metadata: { toJSON: () => ({ name: "j", managedFields: [1] }) } },
    { status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date(0), reason: "x" }] } },
    { status: { containerStatuses: [{ name: "c", restartCount: 1.5, image: "i" }], phase: 7 } },
    { spec: { initContainers: [{ name: "i", restartPolicy: "Always", image: "x" }], nodeName: true } },
    ...strings.map((s) => ({ metadata: { name: s, labels: { [s]: s } }, status: { phase: s } })),
    Object.assign(Object.create({ metadata: { name: "inherited" } }), { spec: {} }),
    [],
    "pod",
    17,
    null,
  ];
  for (const pod of cases) assert.equal(write(pod), reference(pod), JSON.stringify(pod));
  assert.equal(write(undefined), undefined);
  assert.throws(() => write({ metadata: { generation: 1n } }), TypeError);
});

test("open objects write every field, and the named ones by their writers", () => {
  const input = openObject({ pods: listOf(write) });
  const pod = { metadata: { name: "p", managedFields: [{}] }, spec: { containers: [] } };
  const value = { now: NOW, owner: { spec: { template: { spec: { containers: [{ name: "c" }] } } } }, pods: [pod], x: undefined };
  assert.equal(
    input(value),
    JSON.stringify({ now: NOW, owner: value.owner, pods: [{ metadata: { name: "p" }, spec: {} }] }),
  );
});

test("the engine decides the same from cut pods, and reports bad values at the same paths", () => {
  const pods = benchPods().slice(0, 2000);
  const whole = JSON.parse(JSON.stringify(pods));
  const ranked = rankPods(pods, { now: NOW });
  // Ranking the cut pods themselves (a fixed point of the writer) gives the same order.
  const cutPods = whole.map((p) => JSON.parse(write(p)));
  assert.deepStrictEqual(rankPods(cutPods, { now: NOW }), ranked);
  const store = new Store();
  const bad = [
    [{ metadata: { name: "a", namespace: "n", labels: { app: 7 } } }, "pod.metadata.labels.app"],
    [{ metadata: { name: "a", namespace: "n", ownerReferences: [{}, { controller: "yes" }] } }, "pod.metadata.ownerReferences[1].controller"],
    [{ metadata: { name: "a", namespace: "n" }, status: { conditions: { type: "Ready" } } }, "pod.status.conditions"],
  ];
  for (const [pod, path] of bad) {
    assert.throws(
      () => store.upsertPod(pod),
      (e) => isReplicoreError(e) && e.code === "MALFORMED" && e.path === path,
      path,
    );
  }
  assert.throws(
    () => store.upsertPod({ metadata: { name: "a", namespace: "n", generation: 1n } }),
    (e) => isReplicoreError(e) && e.code === "MALFORMED" && e.path === "pod",
  );
  // A field the engine does not read may hold anything JSON cannot: it is not sent.
  store.upsertPod({ metadata: { name: "a", namespace: "n", uid: "u" }, spec: { big: 1n } });
  assert.deepStrictEqual(store.size(), { owners: 0, pods: 1 });
});
