// The replicore CLI (dist/cli.js, spawned): explain, plan, help, bad input, and the one wasm
// module a command loads.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rankPods } from "replicore";
import { NOW, assertOneLineError, cli, cluster, clusterFile, controllerOf, repo, run } from "./helpers.mjs";

const tmp = mkdtempSync(join(tmpdir(), "replicore-cli-"));
function file(name, text) {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

/** The rows of the victims table that follows the line matching `heading`: [{position, pod, ..., why}]. */
function tableAfter(stdout, heading) {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => heading.test(l));
  assert.notEqual(at, -1, `a line matching ${heading} in:\n${stdout}`);
  const header = lines[at + 1] ?? "";
  assert.match(header, /^ {4}#\s+POD\s+NODE\s+PHASE\s+READY\s+COST\s+CO-LOCATED\s+RESTARTS\s+WHY BEFORE THE NEXT$/);
  const rows = [];
  for (const line of lines.slice(at + 2)) {
    const m = /^ {4}\s*(\d+)\s{2}(\S+)\s+(\S+)\s+(\S+)\s+(no|yes(?:, \S+)?)\s+(-?\d+)\s+(\d+)\s+(\d+)\s{2}(.+)$/.exec(line);
    if (!m) break;
    const [, position, pod, node, phase, ready, cost, colocated, restarts, why] = m;
    rows.push({ position: Number(position), pod, node, phase, ready, cost: Number(cost), colocated: Number(colocated), restarts: Number(restarts), why });
  }
  return rows;
}

/** The section of the report about one ReplicaSet. */
function section(stdout, name) {
  const parts = stdout.split("\n\n");
  const found = parts.find((p) => p.startsWith(`shop/${name}  (`));
  assert.ok(found, `a section for ${name} in:\n${stdout}`);
  return found;
}

describe("explain", () => {
  test("the table on examples/cluster.json", () => {
    const r = run(["explain", "-f", clusterFile, "--now", NOW]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^3 ReplicaSets, 13 pods at 2026-11-21T05:00:00Z\n/);

    const web = section(r.stdout, "web-7d9f8b6c5d");
    assert.match(web, /owned by Deployment\/web, selector app=web,pod-template-hash=7d9f8b6c5d, minReadySeconds 10/);
    assert.match(web, /^ {2}pods {6}desired 6, active 8, ready 5, available 4, terminating 0$/m);
    assert.match(web, /^ {2}sync {6}delete 2 pods \(8 active, 6 desired\), first to go first:$/m);
    const rows = tableAfter(web, /sync\s+delete/);
    assert.deepEqual(
      rows.map((x) => [x.position, x.pod, x.node, x.phase, x.ready, x.why]),
      [
        [1, "web-7d9f8b6c5d-p8x2k", "<none>", "Pending", "no", "not scheduled to a node"],
        [2, "web-7d9f8b6c5d-4jzq9", "worker-4", "Unknown", "no", "earlier phase (Pending < Unknown < Running)"],
      ],
    );

    const api = section(r.stdout, "api-6f7c9d");
    assert.match(api, /^ {2}adopt {5}api-5d8c7b-8kq2p$/m);
    assert.match(api, /^ {2}sync {6}create 2 pods in slow-start batches 1, 1$/m);

    const old = section(r.stdout, "web-5c4b9d8f7a");
    assert.match(old, /sync {6}nothing: in sync \(0 active, 0 desired\)/);
  });

  test("Deployments: the rollout explained, the same text as the native example, and --forecast", () => {
    const rollout = clusterFile.replace("cluster.json", "rollout.json");
    const now = "2026-11-23T23:16:12Z";
    const r = run(["explain", "-f", rollout, "--now", now]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Deployment team-a\/gateway \(revision 4, RollingUpdate, 10 replicas\)\n {2}maxSurge 3 \(at most 13 pods\), maxUnavailable 2 \(at least 8 available\)\n/);
    assert.match(r.stdout, /^ {4}1\. create gateway-569ccb8dcc with 3 replicas .*\[D-34\]$/m);
    assert.match(r.stdout, /^4 ReplicaSets, 10 pods at 2026-11-23T23:16:12Z/m);

    const f = run(["explain", "-f", rollout, "--now", now, "--forecast", "--startup", "10", "--seed", "3"]);
    assert.equal(f.status, 0, f.stderr);
    assert.match(f.stdout, /^Forecast for deployment team-a\/gateway \(RollingUpdate, 10 replicas, maxSurge 3, maxUnavailable 2\)$/m);
    // It starts from the snapshot's pods: 4 of the old ReplicaSet's crash-loop (6 available).
    assert.match(f.stdout, /^Starting from the cluster as it is:\n {2}gateway-68d987cf5 \(old\): 6 available \(up to 2 restarts\): stay available, as observed\n {2}gateway-68d987cf5 \(old\): 4 crash-looping \(unready for \d+m, up to 2 restarts\): never ready, as observed$/m);
    assert.match(f.stdout, /^Peak 13 pods, minimum 6 available, \d+ syncs\.$/m);
    // --assume-ready overrides what the cluster shows: the crash-looping pods start again.
    const ready = run(["explain", "-f", rollout, "--now", now, "--forecast", "--assume-ready"]);
    assert.equal(ready.status, 0, ready.stderr);
    assert.match(ready.stdout, /4 crash-looping \(unready for \d+m, up to 2 restarts\): ready 10s from now, by the failure model, over what the cluster shows$/m);
    assertOneLineError(run(["explain", "-f", rollout, "--forecast", "--failing", "--assume-ready"]), { status: 2, match: /--failing or --assume-ready, not both/ });
    const stalled = run(["explain", "-f", rollout, "--now", now, "--forecast", "--failing"]);
    assert.equal(stalled.status, 0, stalled.stderr);
    assert.match(stalled.stdout, /^Stalled at \d+s: ProgressDeadlineExceeded/m);

    const j = JSON.parse(run(["explain", "-f", rollout, "--now", now, "--forecast", "--json"]).stdout);
    assert.equal(j.deployments.deployments[0].name, "gateway");
    assert.equal(j.forecasts[0].peakPods, 13);
    assert.equal(j.forecasts[0].end.kind, "complete");

    assertOneLineError(run(["explain", "-f", clusterFile, "--now", NOW, "--forecast"]), { status: 1, match: /no Deployment to forecast/ });
    assertOneLineError(run(["explain", "-f", rollout, "--seed", "3"]), { status: 2, match: /go with --forecast/ });
    assertOneLineError(run(["explain", "-f", rollout, "--forecast", "--startup", "-4"]), { status: 2, match: /--startup/ });
  });

  test("--json is the explain() result", () => {
    const r = run(["explain", "-f", clusterFile, "--now", NOW, "--json"]);
    assert.equal(r.status, 0, r.stderr);
    const x = JSON.parse(r.stdout);
    assert.equal(x.now, NOW);
    assert.equal(x.replicaSets, 3);
    assert.equal(x.pods, 13);
    const web = x.owners.find((o) => o.name === "web-7d9f8b6c5d");
    assert.equal(web.sync.action, "delete");
    assert.deepEqual(
      web.sync.victims.map((v) => [v.position, v.name, v.rule]),
      [
        [1, "web-7d9f8b6c5d-p8x2k", "unassigned"],
        [2, "web-7d9f8b6c5d-4jzq9", "phase"],
      ],
    );
    assert.equal(web.scaleDown, undefined, "no preview without --replicas");
    const api = x.owners.find((o) => o.name === "api-6f7c9d");
    assert.deepEqual(api.adopt, ["api-5d8c7b-8kq2p"]);
    assert.deepEqual(api.release, []);
    assert.deepEqual(api.sync, { action: "create", count: 2, batches: [1, 1] });
  });

  test("--replicas 3 --rs web-7d9f8b6c5d: the victims are the engine's ranking", () => {
    const list = cluster();
    const rs = list.items.find((i) => i.kind === "ReplicaSet" && i.metadata.name === "web-7d9f8b6c5d");
    const pods = list.items.filter((i) => i.kind === "Pod");
    // Active pods the ReplicaSet controls; related = pods of every ReplicaSet of the same Deployment.
    const siblings = new Set(
      list.items.filter((i) => i.kind === "ReplicaSet" && controllerOf(i)?.uid === controllerOf(rs).uid).map((i) => i.metadata.uid),
    );
    const active = pods.filter(
      (p) => controllerOf(p)?.uid === rs.metadata.uid && !p.metadata.deletionTimestamp && !["Succeeded", "Failed"].includes(p.status?.phase),
    );
    const related = pods.filter((p) => siblings.has(controllerOf(p)?.uid));
    const ranked = rankPods(active, { now: NOW, related });
    const expected = ranked.slice(0, active.length - 3);
    assert.equal(expected.length, 5);

    const j = run(["explain", "-f", clusterFile, "--now", NOW, "--replicas", "3", "--rs", "web-7d9f8b6c5d", "--json"]);
    assert.equal(j.status, 0, j.stderr);
    const x = JSON.parse(j.stdout);
    assert.deepEqual(
      x.owners.map((o) => o.name),
      ["web-7d9f8b6c5d"],
    );
    const down = x.owners[0].scaleDown;
    assert.equal(down.replicas, 3);
    assert.equal(down.active, active.length);
    assert.deepEqual(
      down.victims.map((v) => v.name),
      expected.map((r) => r.name),
    );
    assert.deepEqual(
      down.victims.map((v) => v.rule),
      expected.map((r) => r.rule),
    );
    assert.deepEqual(
      down.victims.map((v) => v.colocated),
      expected.map((r) => r.facts.colocated),
    );

    const t = run(["explain", "-f", clusterFile, "--now", NOW, "--replicas", "3", "--rs", "web-7d9f8b6c5d"]);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^3 ReplicaSets, 13 pods at /, "the header counts the whole input");
    assert.deepEqual(
      t.stdout.match(/^shop\/\S+ {2}\(/gm),
      ["shop/web-7d9f8b6c5d  ("],
      "only the ReplicaSet asked for",
    );
    const rows = tableAfter(t.stdout, /scale to 3: 5 of 8 pods would go, first to go first \(all in the first sync\):/);
    assert.deepEqual(
      rows.map((row) => row.pod),
      expected.map((r) => r.name),
    );
    assert.deepEqual(
      rows.map((row) => row.position),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      rows.map((row) => row.why),
      expected.map((r) => r.ruleText ?? "(last)"),
    );
  });

  test("reads stdin (-f - and no -f)", () => {
    const text = JSON.stringify(cluster());
    const a = run(["explain", "-f", "-", "--now", NOW, "--json"], { input: text });
    const b = run(["explain", "--now", NOW, "--json"], { input: text });
    const c = run(["explain", "-f", clusterFile, "--now", NOW, "--json"]);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, c.stdout);
    assert.equal(b.stdout, c.stdout);
  });

  test("several Lists as a JSON array", () => {
    const list = cluster();
    const split = [
      { apiVersion: "v1", kind: "List", items: list.items.filter((i) => i.kind === "ReplicaSet") },
      { apiVersion: "v1", kind: "List", items: list.items.filter((i) => i.kind === "Pod") },
    ];
    const r = run(["explain", "-f", file("split.json", JSON.stringify(split)), "--now", NOW, "--json"]);
    const c = run(["explain", "-f", clusterFile, "--now", NOW, "--json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(c.stdout));
  });

  test("the default clock is now", () => {
    const before = Date.now();
    const r = run(["explain", "-f", clusterFile, "--json"]);
    assert.equal(r.status, 0, r.stderr);
    const now = Date.parse(JSON.parse(r.stdout).now);
    assert.ok(now >= Math.floor(before / 1000) * 1000 - 1000 && now <= Date.now(), `now ${now}`);
  });
});

describe("bad input: one line, non-zero exit, no stack", () => {
  test("missing file", () => {
    assertOneLineError(run(["explain", "-f", join(tmp, "nope.json"), "--now", NOW]), { status: 1, match: /cannot read .*nope\.json: no such file/ });
  });

  test("invalid JSON says where", () => {
    const path = file("bad.json", '{\n  "items": [\n    {"kind": "Pod",}\n  ]\n}\n');
    assertOneLineError(run(["explain", "-f", path, "--now", NOW]), { status: 1, match: /bad\.json: invalid JSON at line 3 column \d+/ });
    const truncated = file("truncated.json", JSON.stringify(cluster(), null, 2).slice(0, 500));
    assertOneLineError(run(["explain", "-f", truncated, "--now", NOW]), { status: 1, match: /truncated\.json: invalid JSON at line \d+ column \d+: EOF/ });
    assertOneLineError(run(["explain", "--now", NOW], { input: "[" }), { status: 1, match: /<stdin>: invalid JSON at line/ });
    assertOneLineError(run(["explain", "--now", NOW], { input: "" }), { status: 1, match: /<stdin>: invalid JSON at line/ });
  });

  test("not a List", () => {
    assertOneLineError(run(["explain", "--now", NOW], { input: "42" }), { status: 1, match: /<stdin>: expected a List object/ });
  });

  test("a List with no ReplicaSet", () => {
    const pods = cluster().items.filter((i) => i.kind === "Pod");
    const path = file("pods.json", JSON.stringify({ apiVersion: "v1", kind: "List", items: pods }));
    assertOneLineError(run(["explain", "-f", path, "--now", NOW]), { status: 1, match: /pods\.json: no ReplicaSet to explain/ });
    const empty = file("empty.json", JSON.stringify({ apiVersion: "v1", kind: "List", items: [] }));
    assertOneLineError(run(["explain", "-f", empty, "--now", NOW]), { status: 1, match: /no ReplicaSet to explain/ });
  });

  test("an unknown --rs", () => {
    const line = assertOneLineError(run(["explain", "-f", clusterFile, "--now", NOW, "--rs", "nope"]), { status: 1, match: /--rs: no ReplicaSet named "nope"/ });
    assert.match(line, /shop\/web-7d9f8b6c5d/, "lists the ReplicaSets there are");
  });

  test("a bad --now", () => {
    assertOneLineError(run(["explain", "-f", clusterFile, "--now", "yesterday"]), { status: 2, match: /--now: invalid RFC 3339 timestamp "yesterday"/ });
    assertOneLineError(run(["explain", "-f", clusterFile, "--now", "2026-13-01T00:00:00Z"]), { status: 2, match: /--now: / });
  });

  test("a negative or non-numeric --replicas", () => {
    for (const args of [["--replicas", "-1"], ["--replicas=-1"]]) {
      assertOneLineError(run(["explain", "-f", clusterFile, "--now", NOW, ...args]), { status: 2, match: /--replicas: must not be negative \(got -1\)/ });
    }
    assertOneLineError(run(["explain", "-f", clusterFile, "--now", NOW, "--replicas", "two"]), { status: 2, match: /--replicas: 'two' is not a whole number/ });
    assertOneLineError(run(["explain", "-f", clusterFile, "--now", NOW, "--replicas", "2.5"]), { status: 2 });
  });

  test("bad arguments", () => {
    assertOneLineError(run(["explain", "--bogus"]), { status: 2, match: /Unknown option '--bogus'.*replicore explain --help/ });
    assertOneLineError(run(["explain", "-f"]), { status: 2, match: /argument missing/ });
    assertOneLineError(run(["explain", "stray", "-f", clusterFile]), { status: 2, match: /'stray': expected deploy\/NAME, rs\/NAME or hpa\/NAME/ });
    assertOneLineError(run(["explain", "-f", join(tmp)]), { status: 1, match: /is a directory/ });
    assertOneLineError(run(["plan"]), { status: 2, match: /-f INPUT\.json is required/ });
    assertOneLineError(run(["conform"]), { status: 2, match: /DIR is required/ });
    assertOneLineError(run(["conform", join(tmp, "nope")]), { status: 1, match: /no such directory/ });
    assertOneLineError(run(["conform", tmp]), { status: 1, match: /no vector files/ });
  });
});

describe("commands and help", () => {
  test("--help per command", () => {
    for (const [command, usage] of [
      ["explain", /^usage: replicore explain \[-f FILE\|-\] \[--replicas N\] \[--rs NAME\] \[--deployment NAME\]\n {24}\[--now TIME\] \[--forecast \[--startup S\] \[--seed N\]\n {24}\[--failing\|--assume-ready\]\] \[--json\]\n {7}replicore explain deploy\/NAME\|rs\/NAME/],
      ["plan", /^usage: replicore plan -f INPUT\.json \[--config CONFIG\.json\]/],
      ["conform", /^usage: replicore conform DIR/],
    ]) {
      for (const flag of ["--help", "-h"]) {
        const r = run([command, flag]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, usage);
      }
    }
    const top = run(["--help"]);
    assert.equal(top.status, 0);
    assert.match(top.stdout, /^usage: replicore <command>/);
    assert.match(top.stdout, /explain/);
  });

  test("an unknown command prints the usage and exits 2", () => {
    const r = run(["frobnicate"]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^replicore: unknown command 'frobnicate'\n/);
    assert.match(r.stderr, /usage: replicore <command>/);
    const none = run([]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /usage: replicore <command>/);
  });

  test("--version", () => {
    const r = run(["--version"]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^replicore \d+\.\d+\.\d+/);
  });
});

describe("plan", () => {
  const owner = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web", namespace: "shop", uid: "rs-uid-1" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
    },
  };
  const input = { now: NOW, owner, pods: [] };

  test("the raw plan of a sync input", () => {
    const r = run(["plan", "-f", file("input.json", JSON.stringify(input))]);
    assert.equal(r.status, 0, r.stderr);
    const p = JSON.parse(r.stdout);
    assert.equal(p.key, "shop/web");
    assert.equal(p.desired, 3);
    assert.deepEqual(p.claims, []);
    assert.equal(p.manage.action, "create");
    assert.equal(p.manage.count, 3);
    assert.deepEqual(p.manage.batches, [1, 2]);
    assert.deepEqual(p.manage.expectations, { op: "expectCreations", count: 3 });
    assert.equal(p.manage.pod.metadata.generateName, "web-");
    assert.deepEqual(p.manage.pod.spec, owner.spec.template.spec);
  });

  test("--config", () => {
    const r = run(["plan", "-f", file("input.json", JSON.stringify(input)), "--config", file("config.json", JSON.stringify({ burstReplicas: 2 }))]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).manage.count, 2);
    const bad = run(["plan", "-f", file("input.json", JSON.stringify(input)), "--config", file("bad-config.json", JSON.stringify({ burstReplicas: 0 }))]);
    assertOneLineError(bad, { status: 1, match: /bad-config\.json: config\.burstReplicas: must be at least 1/ });
    const broken = run(["plan", "-f", file("input.json", JSON.stringify(input)), "--config", file("broken-config.json", '{\n  "burstReplicas": 2,\n  }')]);
    assertOneLineError(broken, { status: 1, match: /broken-config\.json: invalid JSON at line 3 column 3/ });
  });

  test("bad sync input names the field", () => {
    const r = run(["plan", "-f", file("bad-input.json", JSON.stringify({ ...input, pods: [{ metadata: { name: "p", creationTimestamp: "later" } }] }))]);
    assertOneLineError(r, { status: 1, match: /bad-input\.json: pods\[0\]\.metadata\.creationTimestamp: invalid RFC 3339 timestamp "later"/ });
    const missing = run(["plan", "-f", file("no-now.json", JSON.stringify({ owner }))]);
    assertOneLineError(missing, { status: 1, match: /no-now\.json: now: is required/ });
  });
});

describe("the wasm module a command loads", () => {
  // Wraps WebAssembly.Module before the CLI starts and, at exit, writes the byte sizes of
  // the modules compiled as the last line of stderr.
  const hook = `const M = WebAssembly.Module; const sizes = [];
    WebAssembly.Module = function (bytes) { sizes.push(bytes.byteLength); return new M(bytes); };
    process.on("exit", () => process.stderr.write("compiled " + JSON.stringify(sizes) + "\\n"));`;
  const compiled = (args) => {
    const r = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(hook)}`, cli, ...args], { cwd: repo, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const last = r.stderr.trimEnd().split("\n").at(-1) ?? "";
    assert.match(last, /^compiled \[/, r.stderr);
    return JSON.parse(last.slice("compiled ".length));
  };
  const sizeOf = (specifier, wasm) => statSync(fileURLToPath(new URL(wasm, import.meta.resolve(specifier)))).size;

  test("explain, plan and --version compile one module, the full one (replicore/full)", () => {
    const full = sizeOf("replicore/full", "./wasm-full/replicore_full_bg.wasm");
    const owner = cluster().items.find((i) => i.kind === "ReplicaSet");
    assert.deepEqual(compiled(["explain", "-f", clusterFile, "--now", NOW]), [full]);
    assert.deepEqual(compiled(["plan", "-f", file("one-module.json", JSON.stringify({ now: NOW, owner, pods: [] }))]), [full]);
    assert.deepEqual(compiled(["--version"]), [full]);
    // The engine module is another file: the check tells them apart.
    assert.notEqual(sizeOf("replicore", "./wasm/replicore_wasm_bg.wasm"), full);
  });
});
