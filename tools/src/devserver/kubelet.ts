// `--kubelet`: a fake scheduler and kubelet. Every pod created without a node is, after
// the configured delays (each counted from the previous step): scheduled to one of the
// fake nodes (spec.nodeName, PodScheduled), Running with started containers, then Ready.
// The nodes are stored as Node objects; their metrics and the pods' are metrics.ts.

import { isObject, type JsonObject, type Json } from "./patch.js";
import { meta, type Store, type WatchEventRecord } from "./store.js";

export interface KubeletOptions {
  scheduleDelayMs: number;
  runDelayMs: number;
  readyDelayMs: number;
  nodes: number;
}

export const DEFAULT_KUBELET: KubeletOptions = { scheduleDelayMs: 0, runDelayMs: 0, readyDelayMs: 0, nodes: 3 };


function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

type Step = "schedule" | "run" | "ready";

/** Each fake node's capacity (and allocatable): 4 CPUs, 16Gi of memory, 110 pods. */
const NODE_CAPACITY = { cpu: "4", memory: "16Gi", pods: "110" };

function nodeObject(name: string, uid: string): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid, creationTimestamp: now(), labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux" } },
    spec: {},
    status: {
      capacity: NODE_CAPACITY,
      allocatable: NODE_CAPACITY,
      conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: now(), lastTransitionTime: now() }],
      nodeInfo: { kubeletVersion: "v1.36.2-replicore-dev", operatingSystem: "linux", architecture: "amd64" },
    },
  };
}

export class Kubelet {
  private readonly timers = new Set<NodeJS.Timeout>();
  private next = 0;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: KubeletOptions,
    private readonly write: (pod: JsonObject) => void,
  ) {
    // The nodes it runs pods on, registered as a kubelet registers its Node (for `kubectl
    // get nodes` and `kubectl top nodes`; the metrics API is metrics.ts).
    for (let i = 1; i <= options.nodes; i++) store.put("/nodes", nodeObject(`node-${i}`, store.newUid()), "ADDED");
    store.watchers.add({
      resource: "/pods",
      send: (e: WatchEventRecord) => this.observe(e),
      close: () => {},
    });
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private observe(e: WatchEventRecord): void {
    if (e.type !== "ADDED" || this.stopped) return;
    const spec = isObject(e.object["spec"]) ? e.object["spec"] : {};
    if (typeof spec["nodeName"] === "string" && spec["nodeName"] !== "") return;
    const m = meta(e.object);
    const ref = { namespace: m["namespace"] as string, name: m["name"] as string, uid: m["uid"] as string };
    const steps: Array<[number, Step[]]> = [];
    let at = 0;
    for (const [step, delay] of [
      ["schedule", this.options.scheduleDelayMs],
      ["run", this.options.runDelayMs],
      ["ready", this.options.readyDelayMs],
    ] as Array<[Step, number]>) {
      at += delay;
      const last = steps[steps.length - 1];
      if (last && last[0] === at) last[1].push(step);
      else steps.push([at, [step]]);
    }
    const node = `node-${(this.next++ % this.options.nodes) + 1}`;
    // Each step is scheduled once the previous one is applied: timers of different
    // durations may fire out of order when the event loop is busy.
    let prev = 0;
    const chain = (i: number): void => {
      const entry = steps[i];
      if (!entry) return;
      const [at, group] = entry;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.apply(ref, group, node);
        chain(i + 1);
      }, at - prev);
      prev = at;
      this.timers.add(t);
    };
    chain(0);
  }

  private apply(ref: { namespace: string; name: string; uid: string }, steps: Step[], node: string): void {
    if (this.stopped) return;
    const current = this.store.get("/pods", ref.namespace, ref.name);
    if (!current || meta(current)["uid"] !== ref.uid) return;
    const pod = structuredClone(current);
    const spec: JsonObject = isObject(pod["spec"]) ? pod["spec"] : {};
    const status: JsonObject = isObject(pod["status"]) ? pod["status"] : {};
    const conditions = (Array.isArray(status["conditions"]) ? status["conditions"] : []).filter(isObject);
    const setCondition = (type: string, value: string): void => {
      const c = conditions.find((x) => x["type"] === type);
      if (c) {
        if (c["status"] !== value) {
          c["status"] = value;
          c["lastTransitionTime"] = now();
        }
      } else conditions.push({ type, status: value, lastProbeTime: null, lastTransitionTime: now() });
    };
    const containers = (Array.isArray(spec["containers"]) ? spec["containers"] : []).filter(isObject);
    const containerStatus = (ready: boolean): Json[] =>
      (containers.length > 0 ? containers : [{ name: "main" }]).map((c) => ({
        name: (c["name"] as string) ?? "main",
        image: (c["image"] as string) ?? "",
        ready,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now() } },
      }));
    for (const step of steps) {
      if (step === "schedule") {
        spec["nodeName"] = node;
        setCondition("PodScheduled", "True");
      } else if (step === "run") {
        status["phase"] = "Running";
        status["startTime"] = now();
        setCondition("Initialized", "True");
        setCondition("ContainersReady", "False");
        setCondition("Ready", "False");
        status["containerStatuses"] = containerStatus(false);
      } else {
        setCondition("ContainersReady", "True");
        setCondition("Ready", "True");
        status["containerStatuses"] = containerStatus(true);
      }
    }
    status["conditions"] = conditions;
    pod["spec"] = spec;
    pod["status"] = status;
    this.write(pod);
  }
}
