// The plain-text explain report, in the format of the native example
// (core/examples/explain.rs): a header line, then per ReplicaSet its pods, what a sync
// would do now, and the scale-down preview, with victims as a table.

import type { Explanation, OwnerExplanation, VictimExplanation } from "../node.js";
import { NANOS_PER_SECOND, parseNanos } from "./nanotime.js";

export function plural(n: number, noun: string): string {
  return n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
}

/** The whole report. */
export function report(x: Explanation): string {
  const ignored = x.ignored === 0 ? "" : x.ignored === 1 ? ", 1 other object ignored" : `, ${x.ignored} other objects ignored`;
  let s = `${plural(x.replicaSets, "ReplicaSet")}, ${plural(x.pods, "pod")} at ${x.now}${ignored}\n`;
  for (const owner of x.owners) {
    s += "\n" + ownerReport(owner, x.now);
  }
  return s;
}

function ownerReport(o: OwnerExplanation, now: string): string {
  const lines: string[] = [];
  const about: string[] = [];
  if (o.controller) about.push(`owned by ${o.controller}`);
  about.push(`selector ${o.selector}`);
  if (o.minReadySeconds > 0) about.push(`minReadySeconds ${o.minReadySeconds}`);
  lines.push(`${o.namespace}/${o.name}  (${about.join(", ")})`);
  const p = o.pods;
  lines.push(`  pods      desired ${o.desired}, active ${p.active}, ready ${p.ready}, available ${p.available}, terminating ${p.terminating}`);
  if (o.halt) {
    const why = o.halt.reason === "invalidSelector" ? o.halt.message : "the cache has not seen this owner's writes yet";
    lines.push(`  halted    ${why}`);
  }
  if (o.adopt.length > 0) lines.push(`  adopt     ${o.adopt.join(", ")}`);
  if (o.release.length > 0) lines.push(`  release   ${o.release.join(", ")}`);
  let out = lines.join("\n") + "\n";
  const sync = o.sync;
  switch (sync.action) {
    case "nothing": {
      const why = {
        inSync: `in sync (${p.active} active, ${o.desired} desired)`,
        expectationsPending: "earlier creates or deletes are not yet observed",
        ownerTerminating: "the ReplicaSet is being deleted",
        claimFailed: "a claim failed",
        halted: "the sync halts",
      }[sync.why];
      out += `  sync      nothing: ${why}\n`;
      break;
    }
    case "create":
      out += `  sync      create ${plural(sync.count, "pod")} in slow-start batches ${sync.batches.join(", ")}\n`;
      if (sync.refused !== undefined) out += `            but every create fails: ${sync.refused}\n`;
      break;
    case "delete":
      out += `  sync      delete ${plural(sync.victims.length, "pod")} (${p.active} active, ${o.desired} desired), first to go first:\n`;
      out += victimsTable(sync.victims, now);
      break;
  }
  const down = o.scaleDown;
  if (down) {
    if (down.victims.length === 0) {
      out += `  scale to ${down.replicas}: nothing would be deleted (${down.active} active)\n`;
    } else {
      const when = down.burst < down.victims.length ? `${down.burst} in the first sync, the rest in later ones` : "all in the first sync";
      out += `  scale to ${down.replicas}: ${down.victims.length} of ${down.active} pods would go, first to go first (${when}):\n`;
      out += victimsTable(down.victims, now);
    }
  }
  return out;
}

const HEADER = ["#", "POD", "NODE", "PHASE", "READY", "COST", "CO-LOCATED", "RESTARTS", "WHY BEFORE THE NEXT"];
const RIGHT = [true, false, false, false, false, true, true, true, false];

/** The victims, first to go first: position, pod, node, phase, ready, cost, co-located, restarts, why. */
export function victimsTable(victims: VictimExplanation[], now: string): string {
  const rows: string[][] = [HEADER];
  for (const v of victims) {
    const ready = !v.ready ? "no" : v.readySince !== undefined ? `yes, ${age(now, v.readySince)}` : "yes";
    rows.push([
      String(v.position),
      v.name,
      v.node === "" ? "<none>" : v.node,
      v.phase === "" ? "<none>" : v.phase,
      ready,
      String(v.deletionCost),
      String(v.colocated),
      String(v.restarts + v.sidecarRestarts),
      v.ruleText ?? "(last)",
    ]);
  }
  const width = (cell: string) => [...cell].length;
  const widths = HEADER.map((_, c) => Math.max(...rows.map((r) => width(r[c] ?? ""))));
  let out = "";
  for (const row of rows) {
    const cells = row.map((cell, c) => {
      const pad = " ".repeat((widths[c] ?? 0) - width(cell));
      return RIGHT[c] ? pad + cell : cell + pad;
    });
    out += ("    " + cells.join("  ")).trimEnd() + "\n";
  }
  return out;
}

/** `5s`, `12m`, `26h`, `6d`: how long before `now` the instant `t` was. */
export function age(now: string, t: string): string {
  const a = parseNanos(now);
  const b = parseNanos(t);
  if (a === null || b === null) return t;
  const secs = Number((a - b) / NANOS_PER_SECOND);
  if (secs < 0) return "in the future";
  if (secs < 120) return `${secs}s`;
  if (secs < 120 * 60) return `${Math.floor(secs / 60)}m`;
  if (secs < 48 * 3600) return `${Math.floor(secs / 3600)}h`;
  return `${Math.floor(secs / 86_400)}d`;
}
