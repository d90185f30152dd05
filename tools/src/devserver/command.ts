// `replicore dev-server`: runs the fake API server until SIGINT/SIGTERM.

import { readFileSync, writeFileSync } from "node:fs";
import { parseCommandArgs, stringValue } from "../cli/args.js";
import { emit, usageError } from "../cli/io.js";
import { parseDenySpec, parseTokenSpec, type TokenTable } from "./auth.js";
import { parseFailSpec, type FaultRule } from "./faults.js";
import { DEFAULT_KUBELET, type KubeletOptions } from "./kubelet.js";
import { parseLoadSpec, type LoadSettings } from "./metrics.js";
import { DevServer, type DevServerOptions } from "./server.js";

export const DEV_SERVER_USAGE = `usage: replicore dev-server [--port P] [--kubelet] [options]

An in-memory Kubernetes API server for the operator and kubectl (no cluster needed).

options:
  --port P                  listen on port P (default 8001; 0 = any free port)
  --host H                  listen address (default 127.0.0.1)
  --kubeconfig-out FILE     write a kubeconfig for kubectl and the operator to FILE
  --kubelet                 schedule, run and make ready every created pod
  --schedule-delay MS       with --kubelet: delay before a pod is scheduled (default 0)
  --run-delay MS            with --kubelet: then before it runs (default 0)
  --ready-delay MS          with --kubelet: then before it is ready (default 0)
  --nodes N                 with --kubelet: fake nodes to schedule to (default 3)
  --load NS/SELECTOR=CURVE  with --kubelet: the CPU demand, in millicores, of the pods
                            SELECTOR matches in namespace NS, as the engine's load curve
                            (JSON, seconds from the server's start) or a constant, e.g.
                            default/app=web={"kind":"step","from":200,"to":1500,"atSeconds":60}
                            or default/app=web=800; served as metrics.k8s.io pod and
                            node metrics (kubectl top), changed live through
                            /_replicore/load (repeatable; a pod takes the first match)
  --load-file FILE          with --kubelet: the load settings as JSON, the body of
                            PUT /_replicore/load ({"loads":[…],"noise":…})
  --load-noise F            with --kubelet: spread each Ready pod's sample by ± F (default 0)
  --watch-window N          watch events kept per resource; older versions get 410 Gone
                            (default 10000)
faults (also at runtime through /_replicore/faults, see docs/dev-server.md):
  --latency MS              delay every API request
  --pod-quota N             403 Forbidden (exceeded quota) on pod creates once N pods exist
  --fail SPEC               fail requests: verb:resource[/sub]:status[:times[:after]],
                            e.g. create:pods:500:3, update:replicasets/status:409:1 (repeatable)
  --drop-watches-every MS   end every open watch connection every MS milliseconds
  --log-requests            one JSON line per request on stderr
authentication and authorization (without --token every request is allowed):
  --token TOKEN=USER        requests with "Authorization: Bearer TOKEN" are USER's, e.g.
                            t1=system:serviceaccount:replicore-system:replicore-operator;
                            once a token is given, an unknown token gets 401 Unauthorized
                            (repeatable)
  --deny TOKEN=VERBS:RESOURCES[:NAMESPACES]
                            403 Forbidden, worded as kube-apiserver's RBAC denial, for
                            TOKEN's matching requests; comma lists or *, e.g.
                            t1=get,create,update:leases:default (repeatable)
  --kubeconfig-token TOKEN  the token the --kubeconfig-out file sends
`;

function num(p: ReturnType<typeof parseCommandArgs>, name: string, dflt: number): number {
  const v = stringValue(p, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || !Number.isInteger(n)) throw usageError(`--${name}: expected a whole number >= 0, got '${v}'`, "dev-server");
  return n;
}

export async function devServerCommand(args: string[]): Promise<number> {
  const p = parseCommandArgs("dev-server", args, {
    port: { type: "string" },
    host: { type: "string" },
    "kubeconfig-out": { type: "string" },
    kubelet: { type: "boolean" },
    "schedule-delay": { type: "string" },
    "run-delay": { type: "string" },
    "ready-delay": { type: "string" },
    nodes: { type: "string" },
    load: { type: "string", multiple: true },
    "load-file": { type: "string" },
    "load-noise": { type: "string" },
    "watch-window": { type: "string" },
    latency: { type: "string" },
    "pod-quota": { type: "string" },
    fail: { type: "string", multiple: true },
    "drop-watches-every": { type: "string" },
    "log-requests": { type: "boolean" },
    token: { type: "string", multiple: true },
    deny: { type: "string", multiple: true },
    "kubeconfig-token": { type: "string" },
  });
  if (p.values["help"]) {
    emit(DEV_SERVER_USAGE);
    return 0;
  }
  const kubelet: KubeletOptions | null = p.values["kubelet"]
    ? {
        scheduleDelayMs: num(p, "schedule-delay", DEFAULT_KUBELET.scheduleDelayMs),
        runDelayMs: num(p, "run-delay", DEFAULT_KUBELET.runDelayMs),
        readyDelayMs: num(p, "ready-delay", DEFAULT_KUBELET.readyDelayMs),
        nodes: Math.max(1, num(p, "nodes", DEFAULT_KUBELET.nodes)),
      }
    : null;
  const load = loadSettings(p, kubelet !== null);
  const rules: FaultRule[] = [];
  const fails = (p.values["fail"] as string[] | undefined) ?? [];
  for (const spec of fails) {
    try {
      rules.push(parseFailSpec(spec));
    } catch (e) {
      throw usageError((e as Error).message, "dev-server");
    }
  }
  let tokens: TokenTable | undefined;
  try {
    for (const spec of (p.values["token"] as string[] | undefined) ?? []) {
      const [token, user] = parseTokenSpec(spec);
      tokens = { ...tokens, [token]: user };
    }
    for (const spec of (p.values["deny"] as string[] | undefined) ?? []) {
      const [token, rule] = parseDenySpec(spec);
      const user = tokens?.[token];
      if (!user) throw new Error(`--deny ${spec}: no --token ${token}=USER given`);
      user.deny = [...(user.deny ?? []), rule];
    }
  } catch (e) {
    throw usageError((e as Error).message, "dev-server");
  }
  const options: DevServerOptions = {
    ...(tokens ? { tokens } : {}),
    port: num(p, "port", 8001),
    host: stringValue(p, "host") ?? "127.0.0.1",
    watchWindow: Math.max(1, num(p, "watch-window", 10000)),
    kubelet,
    ...(load ? { load } : {}),
    logRequests: p.values["log-requests"] === true,
  };
  let server: DevServer;
  try {
    server = new DevServer(options);
  } catch (e) {
    // A load the model refuses (a curve's numbers, a selector).
    throw usageError((e as Error).message, "dev-server");
  }
  const quota = stringValue(p, "pod-quota");
  server.faults.set({ rules, latencyMs: num(p, "latency", 0), ...(quota !== undefined ? { podQuota: { limit: num(p, "pod-quota", 0) } } : {}) });
  const url = await server.listen();
  const kubeconfig = stringValue(p, "kubeconfig-out");
  if (kubeconfig) writeFileSync(kubeconfig, kubeconfigFor(url, stringValue(p, "kubeconfig-token")));
  const dropEvery = num(p, "drop-watches-every", 0);
  const dropper = dropEvery > 0 ? setInterval(() => server.dropWatches("reset"), dropEvery) : undefined;
  process.stdout.write(`${JSON.stringify({ msg: "dev-server listening", url, kubelet: kubelet !== null })}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  if (dropper) clearInterval(dropper);
  await server.close();
  return 0;
}

/** The load model of `--load`, `--load-file` and `--load-noise` (undefined without any). */
function loadSettings(p: ReturnType<typeof parseCommandArgs>, kubelet: boolean): LoadSettings | undefined {
  const specs = (p.values["load"] as string[] | undefined) ?? [];
  const file = stringValue(p, "load-file");
  const noise = stringValue(p, "load-noise");
  if (specs.length === 0 && file === undefined && noise === undefined) return undefined;
  if (!kubelet) throw usageError("--load, --load-file and --load-noise need --kubelet (its metrics report the load)", "dev-server");
  let settings: LoadSettings = {};
  try {
    if (file !== undefined) settings = JSON.parse(readFileSync(file, "utf8")) as LoadSettings;
    if (specs.length > 0) settings = { ...settings, loads: [...(settings.loads ?? []), ...specs.map(parseLoadSpec)] };
  } catch (e) {
    throw usageError(`${file !== undefined ? `--load-file ${file}: ` : ""}${(e as Error).message}`, "dev-server");
  }
  if (noise !== undefined) {
    const n = Number(noise);
    if (!Number.isFinite(n) || n < 0) throw usageError(`--load-noise: expected a number >= 0, got '${noise}'`, "dev-server");
    settings.noise = n;
  }
  return settings;
}

/** A kubeconfig whose current context talks to the dev server (with `token`, if given). */
export function kubeconfigFor(url: string, token?: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: replicore-dev
  cluster:
    server: ${url}
    # client-node refuses plain http unless this is set; the dev server has no TLS.
    insecure-skip-tls-verify: true
users:
- name: replicore-dev
  user: ${token === undefined ? "{}" : JSON.stringify({ token })}
contexts:
- name: replicore-dev
  context:
    cluster: replicore-dev
    user: replicore-dev
    namespace: default
current-context: replicore-dev
`;
}
