#!/usr/bin/env node
// The `replicore` command: explain, plan and conform over the replicore package's engine
// (its Node entries, which load their .wasm synchronously), and the operator and dev
// server of replicore-tools. Each command imports what it uses when it runs, so that a
// process loads one wasm module: explain, plan and --version the full module
// (`replicore/full`), conform the judge's (`replicore/judge`), the operator and the dev
// server the engine module (`replicore`). Every failure is one line on stderr,
// `replicore: <message>`, with exit 2 for usage errors and 1 otherwise; never a stack.

import { conformCommand } from "./cli/conform.js";
import { CliError, emit } from "./cli/io.js";

const USAGE = `usage: replicore <command> [options]

The Kubernetes ReplicaSet controller's decisions, from the replicore engine.

commands:
  explain   what the controllers would do now with \`kubectl get deploy,rs,pods -o json\`
            output (or with deploy/NAME, rs/NAME read from a cluster), and which pods a
            scale-down would delete first, and why
  plan      the raw plan of one sync input, as JSON
  conform   judge the engine against the conformance vectors in a directory
  operator  run the ReplicaSet controller on a cluster (or the dev server), every decision
            the engine's
  dev-server  an in-memory Kubernetes API server for the operator and kubectl, with
            fault injection and a fake kubelet

options:
  -h, --help      this help (or \`replicore <command> --help\`)
  -V, --version   the package version

examples:
  kubectl get rs,pods -n shop -o json | replicore explain --replicas 3
  replicore explain -f cluster.json --rs web-7d9f8b6c5d --now 2026-11-21T05:00:00Z --json
  replicore plan -f sync-input.json --config config.json
  replicore conform tests/conformance/vectors
  replicore dev-server --port 8001 --kubelet --kubeconfig-out dev.kubeconfig
  replicore operator --kubeconfig dev.kubeconfig --workers 5
`;

function run(args: string[]): number | Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    // Loaded on demand: explain and plan load the full module (replicore/full), which the
    // operator and the dev server do not.
    case "explain":
      return import("./cli/explain.js").then((m) => m.explainCommand(rest)).then(() => 0);
    case "plan":
      return import("./cli/plan.js").then((m) => m.planCommand(rest)).then(() => 0);
    case "conform":
      return conformCommand(rest);
    // Loaded on demand: the operator pulls in @kubernetes/client-node.
    case "dev-server":
      return import("./devserver/command.js").then((m) => m.devServerCommand(rest));
    case "operator":
      return import("./operator/command.js").then((m) => m.operatorCommand(rest));
    case "-h":
    case "--help":
    case "help":
      emit(USAGE);
      return 0;
    case "-V":
    case "--version":
      return import("replicore/full").then(({ version }) => emit(`replicore ${version()}\n`)).then(() => 0);
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`replicore: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

function report(e: unknown): number {
  const message = e instanceof Error ? e.message : String(e);
    // One line: the message's first line (engine and CLI messages have only one).
    const line = message.split("\n")[0] ?? message;
    if (e instanceof CliError) {
      process.stderr.write(`replicore: ${line}\n`);
      return e.exitCode;
    }
    const code = (e as { code?: unknown } | null)?.code;
    process.stderr.write(`replicore: ${typeof code === "string" ? "" : "internal error: "}${line}\n`);
    return 1;
}

async function main(args: string[]): Promise<number> {
  try {
    return await run(args);
  } catch (e) {
    return report(e);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.exitCode = report(e);
  },
);
