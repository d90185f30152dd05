// A page built by a bundler (Vite) that imports the package by name: the browser entry
// instantiates the .wasm at import; the result is written into the page for the test.
import { plan, rankPods, version, isReplicoreError } from "replicore";

const out = document.getElementById("out");
try {
  const owner = {
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } } } },
  };
  const p = plan({ now: new Date("2026-11-21T05:00:00Z"), owner, pods: [] });
  const pod = (name, node, ready) => ({
    metadata: { name, namespace: "default", uid: name, creationTimestamp: "2026-11-21T04:00:00Z" },
    spec: { nodeName: node },
    status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: "2026-11-21T04:10:00Z" }] },
  });
  const ranked = rankPods([pod("a", "n1", true), pod("b", "n1", false), pod("c", "", true)], { now: "2026-11-21T05:00:00Z" });
  let error = null;
  try {
    plan({ now: "yesterday", owner });
  } catch (e) {
    error = isReplicoreError(e) ? `${e.code} ${e.path}` : String(e);
  }
  out.textContent = JSON.stringify({ version: version(), action: p.manage.action, batches: p.manage.batches, order: ranked.map((r) => r.name), error });
} catch (e) {
  out.textContent = "FAILED " + (e && e.stack ? e.stack : String(e));
}
