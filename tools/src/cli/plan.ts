// `replicore plan`: the raw plan of one sync, as JSON.

import { isReplicoreError, planJson, type Config } from "replicore/full";
import { parseCommandArgs, stringValue } from "./args.js";
import { CliError, describeInputError, emit, parseJson, readInput, usageError } from "./io.js";

export const PLAN_USAGE = `usage: replicore plan -f INPUT.json [--config CONFIG.json]

Prints the plan of one sync as JSON: the claims (adopt/release patches), the manage step
(creates in slow-start batches, or ranked deletions) and the expectations to record.

  -f, --file FILE   a sync input: {"now", "owner", "otherOwners", "pods", "expectations",
                    "cacheIsFresh"} ('-' = stdin)
  --config FILE     engine configuration: {"burstReplicas", "ownerKind", "featureGates",
                    "emulationVersion"} (default: kube-controller-manager v1.36)
  -h, --help        this help
`;

const OPTIONS = {
  file: { type: "string", short: "f" },
  config: { type: "string" },
} as const;

export function planCommand(args: string[]): void {
  const p = parseCommandArgs("plan", args, OPTIONS);
  if (p.values.help) return emit(PLAN_USAGE);
  const file = stringValue(p, "file");
  if (file === undefined) throw usageError("-f INPUT.json is required", "plan");

  let config: Config | undefined;
  const configFile = stringValue(p, "config");
  if (configFile !== undefined) {
    const text = readInput(configFile);
    const value = parseJson(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new CliError(`${text.name}: expected a JSON object (the engine configuration)`);
    }
    config = value as Config;
  }
  const input = readInput(file);
  let plan;
  try {
    plan = planJson(input.text, config);
  } catch (e) {
    if (!isReplicoreError(e)) throw e;
    // Configuration errors name `config.*`; everything else is about the input.
    const source = e.path.startsWith("config") && configFile !== undefined ? configFile : input.name;
    throw new CliError(describeInputError(source, e));
  }
  emit(JSON.stringify(plan, null, 2) + "\n");
}
