// Argument parsing for every command: node:util parseArgs, with its errors as one-line
// usage errors, and option values that start with a dash (`--replicas -1`) taken as
// values rather than refused as ambiguous.

import { parseArgs } from "node:util";
import { usageError } from "./io.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

export type Options = Record<string, OptionSpec>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Joins `--name value` into `--name=value` (and `-f value` into `--file=value`) for string options. */
function joinValues(args: string[], options: Options): string[] {
  const out: string[] = [];
  const shorts = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const long = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : arg.length === 2 && arg[0] === "-" ? shorts.get(arg[1] as string) : undefined;
    if (long !== undefined && options[long]?.type === "string" && i + 1 < args.length) {
      out.push(`--${long}=${args[++i]}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Parses `args` for `command`; a bad argument is a usage error (exit 2). */
export function parseCommandArgs(command: string, args: string[], options: Options, maxPositionals = 0): Parsed {
  let parsed: Parsed;
  try {
    const r = parseArgs({
      args: joinValues(args, options),
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: maxPositionals > 0,
    });
    parsed = { values: r.values as Parsed["values"], positionals: r.positionals };
  } catch (e) {
    const message = e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e);
    throw usageError(message.replace(/\. This command does not take positional arguments$/, ""), command);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw usageError(`unexpected argument '${parsed.positionals[maxPositionals]}'`, command);
  }
  return parsed;
}

/** A string option's value (parseArgs gives strings for string options). */
export function stringValue(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}
