// `replicore explain`: what the ReplicaSet controller would do now with a
// `kubectl get rs,pods -o json` snapshot, and which pods a scale-down would delete first.

import { explainJson, explainText, isReplicoreError, type ExplainOptions, type ReplicoreError } from "../node.js";
import { parseCommandArgs, stringValue } from "./args.js";
import { CliError, describeInputError, emit, readInput, usageError, type Input } from "./io.js";

export const EXPLAIN_USAGE = `usage: replicore explain [-f FILE|-] [--replicas N] [--rs NAME] [--now TIME] [--json]

Explains what the ReplicaSet controller would do now with a cluster snapshot: per
ReplicaSet, desired vs. active/ready/available pods, what a sync would do (adopt, release,
create in slow-start batches, or delete which pods and why), and with --replicas which
pods a scale-down would delete, first to go first, each with the rule that placed it.

  -f, --file FILE   the output of \`kubectl get rs,pods -o json\` (a v1 List, or a JSON
                    array of Lists); '-' or no -f reads stdin
  --replicas N      also preview a scale-down to N replicas
  --rs NAME         explain only this ReplicaSet (name or namespace/name)
  --now TIME        the controller clock, RFC 3339 (default: the system clock)
  --json            print the explanation as JSON
  -h, --help        this help

example:
  kubectl get rs,pods -n shop -o json | replicore explain --replicas 3
`;

const OPTIONS = {
  file: { type: "string", short: "f" },
  replicas: { type: "string" },
  rs: { type: "string" },
  now: { type: "string" },
  json: { type: "boolean" },
} as const;

export function explainCommand(args: string[]): void {
  const p = parseCommandArgs("explain", args, OPTIONS);
  if (p.values.help) return emit(EXPLAIN_USAGE);

  const options: ExplainOptions = { now: stringValue(p, "now") ?? nowWholeSeconds() };
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

  const file = stringValue(p, "file");
  if (file === undefined && process.stdin.isTTY) {
    throw usageError("no input: give -f FILE, or pipe `kubectl get rs,pods -o json` into it", "explain");
  }
  const input = readInput(file ?? "-");
  let out: string;
  try {
    out = p.values.json ? JSON.stringify(explainJson(input.text, options), null, 2) + "\n" : explainText(input.text, options);
  } catch (e) {
    if (isReplicoreError(e)) throw new CliError(describe(input, e), e.path === "options.now" ? 2 : 1);
    throw e;
  }
  emit(out);
}

/** The wall clock in whole seconds, as RFC 3339 (`2026-11-21T05:00:00Z`). */
function nowWholeSeconds(): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** The engine's error in the terms of this command: options by their flags, input errors by file. */
function describe(input: Input, e: ReplicoreError): string {
  const rest = (prefix: string) => (e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message);
  switch (e.path) {
    case "options.now":
      return `--now: ${rest("options.now: ")}`;
    case "owner":
      return `--rs: ${rest("owner: ")}`;
    case "replicas":
    case "options.replicas":
      return `--replicas: ${rest(`${e.path}: `)}`;
    case "items":
      if (e.code === "MISSING") return `${input.name}: no ReplicaSet to explain (expected the output of \`kubectl get rs,pods -o json\`)`;
      break;
  }
  return describeInputError(input.name, e);
}
