// `replicore conform DIR`: judges the engine against the vectors recorded from the
// upstream Go controller with the one judge there is: the Rust runner's judge
// (tests/src/lib.rs, crate replicore-tests) compiled to WebAssembly with the engine
// (the `judge` feature of the binding, a module of its own: `replicore/judge`, loaded on
// first use). This file only reads files: every `<kind>.json` and `<kind>.json.gz` under
// DIR, recursively, as the native `conformance` binary does, and prints the judge's report.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { judgeCases, judgeKinds } from "replicore/judge";
import { parseCommandArgs } from "./args.js";
import { CliError, emit, usageError } from "./io.js";

/** A failed case: what differed. */
export interface Failure {
  case: string;
  field: string;
  expected: string;
  got: string;
}

export interface KindReport {
  kind: string;
  passed: number;
  failures: Failure[];
}

export function formatFailure(f: Failure): string {
  return `${f.case}: ${f.field}\n    expected: ${f.expected}\n    got:      ${f.got}`;
}

/** The kinds the judge knows, in report order. */
export function kinds(): string[] {
  return judgeKinds();
}

/**
 * Every `<kind>.json[.gz]` file under `dir`, recursively, as [kind, path]: files directly
 * in `dir` first, then subdirectories, each level sorted by name (the native runner's order).
 */
export function vectorFiles(dir: string): Array<[string, string]> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const files: Array<[string, string]> = [];
  const subdirs: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      subdirs.push(path);
      continue;
    }
    const m = /^(.*)\.json(\.gz)?$/.exec(name);
    if (m?.[1] !== undefined) files.push([m[1], path]);
  }
  for (const sub of subdirs) files.push(...vectorFiles(sub));
  return files;
}

function readCases(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
    if (path.endsWith(".gz")) bytes = gunzipSync(bytes);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return bytes.toString("utf8");
}

/** Judges every vector file of a known kind under `dir`: one report per kind, in the judge's order. */
export function runDir(dir: string): KindReport[] {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new CliError(`cannot read ${dir}: no such directory`);
  }
  if (!isDir) throw new CliError(`${dir} is not a directory`);
  const files = vectorFiles(dir);
  const reports: KindReport[] = [];
  for (const kind of kinds()) {
    let all: KindReport | undefined;
    for (const [, path] of files.filter(([k]) => k === kind)) {
      let r: KindReport;
      try {
        r = JSON.parse(judgeCases(kind, readCases(path))) as KindReport;
      } catch (e) {
        if (e instanceof CliError) throw e;
        throw new CliError(`${path}: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (all === undefined) all = r;
      else {
        all.passed += r.passed;
        all.failures.push(...r.failures);
      }
    }
    if (all !== undefined) reports.push(all);
  }
  if (reports.length === 0) {
    throw new CliError(`no vector files in ${dir} (expected ${kinds().map((k) => `${k}.json[.gz]`).join(", ")})`);
  }
  return reports;
}

export const CONFORM_USAGE = `usage: replicore conform DIR

Judges the engine against the conformance vectors recorded from the upstream Go
controllers, with the conformance runner's judge compiled to WebAssembly (the same judge
as the native \`conformance\` binary). DIR holds <kind>.json or <kind>.json.gz files, at
any depth, for the kinds rank, sync, status, selector, slowstart, expectations,
deployment-sync and deployment-hash; other files are skipped.
Prints one line per kind and a last line "N passed, M failed"; exits 1 on any failure.

  -h, --help   this help

example:
  replicore conform tests/conformance/vectors
`;

const SHOW_FAILURES = 10;

export function conformCommand(args: string[]): number {
  const p = parseCommandArgs("conform", args, {}, 1);
  if (p.values.help) {
    emit(CONFORM_USAGE);
    return 0;
  }
  const dir = p.positionals[0];
  if (dir === undefined) throw usageError("DIR is required", "conform");
  const reports = runDir(dir);
  let out = "";
  for (const k of reports) {
    out += `${k.kind.padEnd(13)} ${String(k.passed).padStart(5)} passed, ${k.failures.length} failed\n`;
  }
  const failures = reports.flatMap((k) => k.failures);
  if (failures.length > 0) {
    out += "\nfirst failures:\n";
    for (const f of failures.slice(0, SHOW_FAILURES)) out += `  ${formatFailure(f)}\n`;
    if (failures.length > SHOW_FAILURES) out += `  … and ${failures.length - SHOW_FAILURES} more\n`;
    out += "\n";
  }
  const passed = reports.reduce((n, k) => n + k.passed, 0);
  out += `${passed} passed, ${failures.length} failed\n`;
  emit(out);
  return failures.length > 0 ? 1 : 0;
}
