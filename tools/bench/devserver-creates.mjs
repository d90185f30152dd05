// The dev server's own pod-create capacity (issue 18 point 6: is the server or the
// operator the limit of tools/bench/operator.mjs's create rate?): a tight client in a
// worker thread (its own event loop and core) creates PODS pods over keep-alive
// connections, CONCURRENCY at a time, with the kubelet on as in the operator bench;
// a watcher on /pods counts them, as the operator's watch would see them. Prints JSON.
//
//   node tools/bench/devserver-creates.mjs          # PODS=10000 CONCURRENCY=50
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const env = (k, d) => (process.env[k] === undefined || process.env[k] === "" ? d : Number(process.env[k]));

if (isMainThread) {
  const { DevServer } = await import("../dist/devserver/server.js");
  const PODS = env("PODS", 10000);
  const CONCURRENCY = env("CONCURRENCY", 50);
  const dev = new DevServer({ port: 0, watchWindow: 100000, kubelet: { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 100 } });
  const url = await dev.listen();
  let seen = 0;
  let last = 0;
  dev.store.watchers.add({ resource: "/pods", send: (e) => e.type === "ADDED" && (seen++, (last = performance.now())), close: () => {} });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, PODS, CONCURRENCY } });
  const failed = await new Promise((r) => worker.on("message", r));
  while (seen < PODS - failed) await new Promise((r) => setTimeout(r, 20));
  const cpu = process.cpuUsage(cpu0);
  const seconds = (last - t0) / 1000;
  console.log(JSON.stringify({ pods: PODS, concurrency: CONCURRENCY, failed, seconds: Number(seconds.toFixed(2)), createsPerSecond: Math.round(PODS / seconds), processCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)) }));
  await worker.terminate();
  await dev.close();
} else {
  const { url, PODS, CONCURRENCY } = workerData;
  const body = (i) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `p-${i}`, labels: { app: "x" } },
      spec: { containers: [{ name: "main", image: "nginx" }] },
    });
  let next = 0;
  let failed = 0;
  const one = async () => {
    while (next < PODS) {
      const i = next++;
      const r = await fetch(`${url}/api/v1/namespaces/bench/pods`, { method: "POST", headers: { "Content-Type": "application/json" }, body: body(i) });
      await r.arrayBuffer();
      if (r.status >= 300) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  parentPort.postMessage(failed);
}
