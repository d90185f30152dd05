// `replicore explain`: what the ReplicaSet controller would do now with a
// `kubectl get rs,pods -o json` snapshot, and which pods a scale-down would delete first.

import { explainReport, explainText, isReplicoreError, type ReportOptions, type ReplicoreError } from "replicore/full";
import { parseCommandArgs, stringValue, type Parsed } from "./args.js";
import { parseTarget, readCluster } from "./cluster.js";
import { CliError, describeInputError, emit, parseJson, readInput, usageError, type Input } from "./io.js";

export const EXPLAIN_USAGE = `usage: replicore explain [-f FILE|-] [--replicas N] [--rs NAME] [--deployment NAME]
                        [--now TIME] [--forecast [--startup S] [--seed N]
                        [--failing|--assume-ready]] [--json]
       replicore explain deploy/NAME|rs/NAME [-n NAMESPACE] [--kubeconfig FILE]
                        [--context NAME] [other options as above]
       replicore explain hpa/NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]
                        [--now TIME] [--json]
       replicore explain hpa/NAME -f FILE [--metrics FILE]... [--memory FILE]
                        [--now TIME] [--json]

Explains what the Deployment and ReplicaSet controllers would do now with a cluster
snapshot. Per Deployment: its revision, new and old ReplicaSets, maxSurge and
maxUnavailable resolved, the conditions with the time left before the progress
deadline, and what the next sync would do and why (the rule). Per ReplicaSet: desired
vs. active/ready/available pods, what a sync would do (adopt, release, create in
slow-start batches, or delete which pods and why), and with --replicas which pods a
scale-down would delete, first to go first, each with the rule that placed it.
With --forecast, each Deployment's rollout is played forward (the engine's Deployment
and ReplicaSet controllers over a seeded model of pod start-up): a step table, the total
time, the peak pod count, the minimum availability, and where it would stall. It starts
from the pods the snapshot shows, in groups (available, ready, starting, unready past
the start-up time, crash-looping), and says what it assumed of each: the ones unready
past the start-up time or restarting never become ready, and neither do the new
template's new pods when all its observed ones fail. --failing and --assume-ready
override what the cluster shows.

Given hpa/NAME, "why N?" for that HorizontalPodAutoscaler: per metric the current
value against the target, the usage ratio against the tolerance band, which pods
counted and which were left out or assumed at 0 % / 100 % and why; the max over the
metrics, the stabilization window and the recommendation that bounds it, the policy or
min/max that limits the change, the desired replicas, the conditions, and what the
next sync writes. Read from the cluster (read-only: the HPA, its target's scale, the
pods of its selector, and metrics.k8s.io, custom.metrics.k8s.io and
external.metrics.k8s.io as each metric asks), or with -f from \`kubectl get
hpa,deploy,rs,pods -o json\` and each --metrics file (a metrics API's answer as
\`kubectl get --raw\` prints it). The controller keeps its memory (recent
recommendations and scale events) in process: unless --memory gives it, explain says
what it assumed and the range of replicas the memory could make.

Given deploy/NAME or rs/NAME, the snapshot is read from the cluster of the kubeconfig
(read-only: the namespace's Deployments, ReplicaSets and pods, as \`kubectl get
deploy,rs,pods -o json\` prints them) and that object is explained, with the same output.
Installed as \`kubectl-replicore\` on PATH, it is also \`kubectl replicore explain ...\`.

  -f, --file FILE   the output of \`kubectl get deploy,rs,pods -o json\` (a v1 List, or a
                    JSON array of Lists); '-' or no -f reads stdin
  --replicas N      also preview a scale-down to N replicas
  --rs NAME         explain only this ReplicaSet (name or namespace/name)
  --deployment NAME explain only this Deployment (name or namespace/name) and the
                    ReplicaSets it controls
  -n, --namespace NS  with deploy/NAME or rs/NAME: the namespace (default: the
                    kubeconfig context's, else default)
  --kubeconfig FILE with deploy/NAME or rs/NAME: the kubeconfig (default: $KUBECONFIG,
                    ~/.kube/config, or in-cluster)
  --context NAME    with deploy/NAME or rs/NAME: the kubeconfig context
  --now TIME        the controller clock, RFC 3339 (default: the system clock)
  --forecast        play each Deployment's rollout forward
  --startup S       forecast: seconds from a pod's creation to ready (default 10)
  --seed N          forecast: the seed of the pod model (default 1)
  --failing         forecast: the new template's pods never become ready
  --assume-ready    forecast: every pod becomes ready after its start-up time (one
                    unready past it or restarting: a start-up time from now)
  --metrics FILE    with hpa/NAME -f: a metrics API's answer (repeatable), e.g. of
                    \`kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods\`
  --memory FILE     with hpa/NAME: the controller's memory (HpaMemory JSON)
  --json            print the explanation as JSON
  -h, --help        this help

examples:
  kubectl get rs,pods -n shop -o json | replicore explain --replicas 3
  kubectl get deploy,rs,pods -n shop -o json | replicore explain --forecast
  replicore explain deploy/web -n shop --forecast
  kubectl replicore explain rs/web-7d9f8b6c5d -n shop --replicas 3
  replicore explain hpa/web -n shop
  replicore explain hpa/web -f shop.json --metrics pod-metrics.json
`;

const OPTIONS = {
  file: { type: "string", short: "f" },
  replicas: { type: "string" },
  rs: { type: "string" },
  deployment: { type: "string" },
  namespace: { type: "string", short: "n" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  now: { type: "string" },
  forecast: { type: "boolean" },
  startup: { type: "string" },
  seed: { type: "string" },
  failing: { type: "boolean" },
  "assume-ready": { type: "boolean" },
  json: { type: "boolean" },
  metrics: { type: "string", multiple: true },
  memory: { type: "string" },
} as const;

export async function explainCommand(args: string[]): Promise<void> {
  const p = parseCommandArgs("explain", args, OPTIONS, 1);
  if (p.values.help) return emit(EXPLAIN_USAGE);
  const hpa = p.positionals[0] !== undefined ? parseTarget(p.positionals[0]) : undefined;
  if (hpa?.kind === "HorizontalPodAutoscaler") return explainHpaCommand(p, hpa.name);
  if (p.values.metrics !== undefined || stringValue(p, "memory") !== undefined) {
    throw usageError("--metrics and --memory go with hpa/NAME", "explain");
  }

  const options: ReportOptions = { now: stringValue(p, "now") ?? nowWholeSeconds() };
  const replicas = stringValue(p, "replicas");
  if (replicas !== undefined) {
    if (!/^[+-]?\d+$/.test(replicas.trim())) throw usageError(`--replicas: '${replicas}' is not a whole number`, "explain");
    const n = Number(replicas);
    if (n < 0) throw usageError(`--replicas: must not be negative (got ${n})`, "explain");
    if (n > 2 ** 31 - 1) throw usageError(`--replicas: ${replicas} is too large`, "explain");
    options.replicas = n;
  }
  const rs = stringValue(p, "rs");
  if (rs !== undefined) options.owner = rs;
  const deployment = stringValue(p, "deployment");
  if (deployment !== undefined) options.deployment = deployment;
  const startup = stringValue(p, "startup");
  const seed = stringValue(p, "seed");
  if (p.values.forecast) {
    options.forecast = {};
    if (startup !== undefined) {
      const s = Number(startup);
      if (startup.trim() === "" || !Number.isFinite(s) || s < 0) throw usageError(`--startup: '${startup}' is not a number of seconds`, "explain");
      options.forecast.startupSeconds = s;
    }
    if (seed !== undefined) {
      if (!/^\d+$/.test(seed.trim()) || Number(seed) > Number.MAX_SAFE_INTEGER) throw usageError(`--seed: '${seed}' is not a whole number up to 2^53-1`, "explain");
      options.forecast.seed = Number(seed);
    }
    if (p.values.failing && p.values["assume-ready"]) throw usageError("give --failing or --assume-ready, not both", "explain");
    if (p.values.failing) options.forecast.failure = { kind: "newTemplateFails" };
    if (p.values["assume-ready"]) options.forecast.failure = { kind: "none" };
  } else if (startup !== undefined || seed !== undefined || p.values.failing || p.values["assume-ready"]) {
    throw usageError("--startup, --seed, --failing and --assume-ready go with --forecast", "explain");
  }

  const file = stringValue(p, "file");
  const positional = p.positionals[0];
  let input: Input;
  if (positional !== undefined) {
    const target = parseTarget(positional);
    if (file !== undefined) throw usageError(`give -f FILE or ${positional}, not both`, "explain");
    if (rs !== undefined || deployment !== undefined) throw usageError(`--rs and --deployment go with -f; ${positional} names the object`, "explain");
    const cluster = await readCluster(target, {
      ...(stringValue(p, "namespace") !== undefined ? { namespace: stringValue(p, "namespace") as string } : {}),
      ...(stringValue(p, "kubeconfig") !== undefined ? { kubeconfig: stringValue(p, "kubeconfig") as string } : {}),
      ...(stringValue(p, "context") !== undefined ? { context: stringValue(p, "context") as string } : {}),
    });
    const key = `${cluster.namespace}/${target.name}`;
    if (target.kind === "Deployment") options.deployment = key;
    else options.owner = key;
    input = { name: cluster.source, text: cluster.text };
  } else {
    for (const flag of ["namespace", "kubeconfig", "context"]) {
      if (stringValue(p, flag) !== undefined) throw usageError(`--${flag} goes with deploy/NAME or rs/NAME (reading from a cluster)`, "explain");
    }
    if (file === undefined && process.stdin.isTTY) {
      throw usageError("no input: give -f FILE, deploy/NAME or rs/NAME, or pipe `kubectl get deploy,rs,pods -o json` into it", "explain");
    }
    input = readInput(file ?? "-");
  }
  let out: string;
  try {
    out = p.values.json ? JSON.stringify(explainReport(input.text, options), null, 2) + "\n" : explainText(input.text, options);
  } catch (e) {
    if (isReplicoreError(e)) throw new CliError(describe(input, e, options.forecast !== undefined, positional), e.path === "options.now" ? 2 : 1);
    throw e;
  }
  emit(out);
}

/** `explain hpa/NAME`: from files with -f, else from the cluster. */
async function explainHpaCommand(p: Parsed, name: string): Promise<void> {
  for (const flag of ["replicas", "rs", "deployment", "startup", "seed"]) {
    if (stringValue(p, flag) !== undefined) throw usageError(`--${flag} does not go with hpa/NAME`, "explain");
  }
  if (p.values.forecast || p.values.failing || p.values["assume-ready"]) throw usageError("--forecast does not go with hpa/NAME", "explain");
  const { explainHpaInput, hpaInputFromCluster, hpaInputFromFiles } = await import("./hpa.js");
  const now = stringValue(p, "now") ?? nowWholeSeconds();
  const file = stringValue(p, "file");
  const metrics = (p.values.metrics as string[] | undefined) ?? [];
  const memoryFile = stringValue(p, "memory");
  let input: Record<string, unknown>;
  let source: string;
  if (file !== undefined) {
    for (const flag of ["kubeconfig", "context"]) {
      if (stringValue(p, flag) !== undefined) throw usageError(`--${flag} goes with reading from a cluster, not with -f`, "explain");
    }
    const ns = stringValue(p, "namespace");
    const objects = readInput(file);
    source = objects.name;
    // -n narrows the name to a namespace when the file holds several.
    input = hpaInputFromFiles(now, ns !== undefined ? `${ns}/${name}` : name, objects, metrics, memoryFile);
  } else {
    if (metrics.length > 0) throw usageError("--metrics goes with -f (from a cluster the metrics APIs are read)", "explain");
    const read = await hpaInputFromCluster(now, name, {
      ...(stringValue(p, "namespace") !== undefined ? { namespace: stringValue(p, "namespace") as string } : {}),
      ...(stringValue(p, "kubeconfig") !== undefined ? { kubeconfig: stringValue(p, "kubeconfig") as string } : {}),
      ...(stringValue(p, "context") !== undefined ? { context: stringValue(p, "context") as string } : {}),
    });
    input = read.input;
    source = read.source;
    if (memoryFile !== undefined) input.memory = parseJson(readInput(memoryFile));
  }
  let e;
  try {
    e = explainHpaInput(input);
  } catch (err) {
    if (isReplicoreError(err)) {
      if (err.path === "now") throw new CliError(`--now: ${err.message.replace(/^now: /, "")}`, 2);
      if (err.path === "hpa") throw new CliError(`hpa/${name}: ${err.message.replace(/^hpa: /, "")} (${source})`, 1);
      throw new CliError(describeInputError(source, err), 1);
    }
    throw err;
  }
  emit(p.values.json ? JSON.stringify(e, null, 2) + "\n" : e.text);
}

/** The wall clock in whole seconds, as RFC 3339 (`2026-11-21T05:00:00Z`). */
function nowWholeSeconds(): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** The engine's error in the terms of this command: options by their flags, input errors by file. */
function describe(input: Input, e: ReplicoreError, forecast: boolean, positional: string | undefined): string {
  const rest = (prefix: string) => (e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message);
  switch (e.path) {
    case "options.now":
      return `--now: ${rest("options.now: ")}`;
    case "owner":
      return `${positional ?? "--rs"}: ${rest("owner: ")}`;
    case "deployment":
      return `${positional ?? "--deployment"}: ${rest("deployment: ")}`;
    case "replicas":
    case "options.replicas":
      return `--replicas: ${rest(`${e.path}: `)}`;
    case "items":
      if (e.code === "MISSING" && forecast) return `${input.name}: no Deployment to forecast (expected the output of \`kubectl get deploy,rs,pods -o json\`)`;
      if (e.code === "MISSING") return `${input.name}: no ReplicaSet to explain (expected the output of \`kubectl get rs,pods -o json\`)`;
      break;
  }
  return describeInputError(input.name, e);
}
