// A page built by a bundler (Vite) that imports the full module's three entries by name,
// as the playground's code could: `replicore/full`, and the views `replicore/explain` and
// `replicore/sim` over the same instance. The result is written into the page for the test.
import { plan, wasmMemoryBytes } from "replicore/full";
import { explainJson } from "replicore/explain";
import { Simulator } from "replicore/sim";

const out = document.getElementById("out");
try {
  const owner = {
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } } } },
  };
  const p = plan({ now: "2026-11-21T05:00:00Z", owner, pods: [] });
  const list = JSON.stringify({ apiVersion: "v1", kind: "List", items: [{ apiVersion: "apps/v1", kind: "ReplicaSet", ...owner }] });
  const explained = explainJson(list, { now: "2026-11-21T05:00:00Z" });
  const sim = new Simulator({ seed: 1, replicas: 2, nodes: 2 });
  sim.advance(10_000);
  const pods = sim.state().pods.length;
  sim.free();
  out.textContent = JSON.stringify({ action: p.manage.action, owners: explained.owners.length, pods, memory: wasmMemoryBytes() > 0 });
} catch (e) {
  out.textContent = "FAILED " + (e && e.stack ? e.stack : String(e));
}
