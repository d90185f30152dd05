// An operator that starts cleanly anywhere (issue 18 point 2): the dev server denies as
// kube-apiserver does (401 for an unknown token, 403 with the RBAC message for a denied
// verb/resource/namespace); the operator refused at start-up exits 1 with one line naming
// the verb, resource, namespace and identity and what to grant or pass; refused later it
// logs the same and /readyz answers 503 until the request succeeds; its defaults (lease
// namespace, metrics host) match the shipped manifests.
import { test, after, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeconfigFor } from "../dist/devserver/command.js";
import { client, devServer, killAll, operator, pods, podsPath, replicaSet, repo, rsPath, shippedEnv, shippedNodeCommand, waitFor } from "./operator-helpers.mjs";

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const SA = "system:serviceaccount:replicore-system:replicore-operator";
const dir = mkdtempSync(join(tmpdir(), "replicore-access-"));

/** A dev server with these tokens, and a kubeconfig per token. */
async function start(tokens) {
  const dev = await devServer({ tokens });
  servers.push(dev);
  const kubeconfig = (token) => {
    const file = join(dir, `${token}-${servers.length}.kubeconfig`);
    writeFileSync(file, kubeconfigFor(dev.url, token));
    return file;
  };
  const as = (token) => {
    const c = client(dev.url);
    const call = (method, path, body, type = "application/json") =>
      fetch(dev.url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": type }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    return { ...c, call };
  };
  return { ...dev, kubeconfig, as };
}

/** The operator's stderr as lines, and its exit (failing, not hanging, if it keeps running). */
async function exitOf(op, timeoutMs = 30000) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`operator still running after ${timeoutMs} ms:\n${op.tail()}`)), timeoutMs);
  });
  const { code } = await Promise.race([op.exited, late]).finally(() => clearTimeout(timer));
  const lines = op.stderr.split("\n").filter((l) => l !== "");
  return { code, lines };
}

describe("the dev server denies like kube-apiserver", () => {
  test("403 with the RBAC message, 401 for an unknown token, no token allowed", async () => {
    const dev = await start({
      op: { name: SA, deny: [{ verbs: ["get", "create", "update"], resources: ["leases"], namespaces: ["default"] }, { verbs: ["update"], resources: ["replicasets/status"] }, { verbs: ["list"], resources: ["pods"] }] },
    });
    const op = dev.as("op");
    const lease = await op.call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/replicore-operator");
    assert.equal(lease.status, 403);
    assert.deepEqual(lease.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `leases.coordination.k8s.io "replicore-operator" is forbidden: User "${SA}" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "default"`,
      reason: "Forbidden",
      details: { name: "replicore-operator", group: "coordination.k8s.io", kind: "leases" },
      code: 403,
    });
    // The lease in another namespace is not denied (404: not created yet).
    assert.equal((await op.call("GET", "/apis/coordination.k8s.io/v1/namespaces/replicore-system/leases/replicore-operator")).status, 404);
    const list = await op.call("GET", "/api/v1/pods");
    assert.equal(list.status, 403);
    assert.equal(list.body.message, `pods is forbidden: User "${SA}" cannot list resource "pods" in API group "" at the cluster scope`);
    await dev.api.post(rsPath("ns"), replicaSet("web", 1));
    const rs = await dev.api.get(rsPath("ns", "web"));
    const status = await op.call("PUT", `${rsPath("ns", "web")}/status`, { ...rs, status: { replicas: 0 } });
    assert.equal(status.status, 403);
    assert.match(status.body.message, /cannot update resource "replicasets\/status" in API group "apps" in the namespace "ns"$/);
    const unknown = await dev.as("nope").call("GET", "/api/v1/pods");
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.reason, "Unauthorized");
    assert.equal(unknown.body.message, "Unauthorized");
    assert.equal((await dev.as("nope").call("GET", "/api")).status, 401, "authentication precedes routing");
    assert.ok(Array.isArray((await dev.api.get(podsPath("ns"))).items), "no token: allowed");
  });

  test("replicore dev-server --token/--deny, and --kubeconfig-token", async () => {
    const { spawn } = await import("node:child_process");
    const { cli } = await import("./helpers.mjs");
    const out = join(dir, "cli.kubeconfig");
    const child = spawn(process.execPath, [cli, "dev-server", "--port", "0", "--token", `t1=${SA}`, "--deny", "t1=get,create,update:leases:default", "--kubeconfig-out", out, "--kubeconfig-token", "t1"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise((resolve, reject) => {
        let buf = "";
        child.stdout.on("data", (c) => {
          buf += c;
          const m = /"url":"([^"]+)"/.exec(buf);
          if (m) resolve(m[1]);
        });
        child.on("exit", (code) => reject(new Error(`dev-server exited ${code}`)));
      });
      assert.match(readFileSync(out, "utf8"), /user: \{"token":"t1"\}/);
      const r = await fetch(`${url}/apis/coordination.k8s.io/v1/namespaces/default/leases/x`, { headers: { Authorization: "Bearer t1" } });
      assert.equal(r.status, 403);
      assert.match((await r.json()).message, /cannot get resource "leases"/);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("the operator refused at start-up exits with one line", () => {
  // The shipped RBAC: leases only in replicore-system.
  const rbacLike = { verbs: ["get", "create", "update"], resources: ["leases"], namespaces: ["default", "kube-system"] };

  test("the default lease namespace is the one tools/deploy/rbac.yaml grants: the operator starts", async () => {
    const dev = await start({ op: { name: SA, deny: [rbacLike] } });
    const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("op")]);
    ops.push(op);
    const got = await op.waitLog("leader election: acquired the lease");
    assert.equal(got.lease, "replicore-system/replicore-operator");
    await op.waitLog("operator running");
    const rbac = readFileSync(join(repo, "tools/deploy/rbac.yaml"), "utf8");
    assert.match(rbac, /kind: Role\nmetadata:\n  name: replicore-operator-leader-election\n  namespace: replicore-system/);
    await op.kill();
  });

  test("a lease namespace without the grant: exit 1, verb, resource, namespace, identity and what to pass", async () => {
    const dev = await start({ op: { name: SA, deny: [rbacLike] } });
    const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("op"), "--lease-namespace", "default"]);
    ops.push(op);
    const { code, lines } = await exitOf(op);
    assert.equal(code, 1);
    assert.equal(lines.length, 1, op.stderr);
    const [line] = lines;
    assert.match(line, /^replicore: forbidden: /);
    assert.ok(line.includes(`"${SA}" may not get leases.coordination.k8s.io "replicore-operator" in namespace "default"`), line);
    assert.ok(line.includes("--lease-namespace"), line);
    assert.ok(line.includes(`grant "${SA}" "get" on leases.coordination.k8s.io in namespace "default"`), line);
    // It never retried every 2 s: one lease read, then the exit.
    assert.equal(dev.server.stats.requests["get leases"], 1);
    const logged = op.find("not permitted: exiting")[0];
    assert.equal(logged.verb, "get");
    assert.equal(logged.resource, "leases.coordination.k8s.io");
    assert.equal(logged.namespace, "default");
    assert.equal(logged.identity, `"${SA}"`);
  });

  test("pods not listable cluster-wide: exit 1 naming list, pods and the cluster scope; the Lease given up", async () => {
    const dev = await start({ op: { name: SA, deny: [{ verbs: ["list"], resources: ["pods"] }] } });
    const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("op")]);
    ops.push(op);
    const { code, lines } = await exitOf(op);
    assert.equal(code, 1);
    assert.equal(lines.length, 1, op.stderr);
    assert.ok(lines[0].includes(`forbidden: "${SA}" may not list pods cluster-wide: grant "${SA}" "list" on pods cluster-wide`), lines[0]);
    // It had acquired the Lease before the list was refused: released, so a standby need not wait.
    const lease = await dev.api.get("/apis/coordination.k8s.io/v1/namespaces/replicore-system/leases/replicore-operator");
    assert.equal(lease.spec.holderIdentity ?? null, null);
  });

  test("pods listable but not watchable: exit 1 naming watch (the kubeconfig's identity: a watch's answer has no body)", async () => {
    const dev = await start({ op: { name: SA, deny: [{ verbs: ["watch"], resources: ["pods"] }] } });
    const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("op"), "--no-leader-elect"]);
    ops.push(op);
    const { code, lines } = await exitOf(op);
    assert.equal(code, 1);
    assert.equal(lines.length, 1, op.stderr);
    assert.match(lines[0], /^replicore: forbidden: kubeconfig user "replicore-dev" \(context "replicore-dev"\) may not watch pods cluster-wide: grant .* "watch" on pods cluster-wide/);
    assert.equal(op.find("operator running").length, 0);
  });

  test("an unknown token: exit 1, unauthorized, naming the kubeconfig user", async () => {
    const dev = await start({ op: { name: SA } });
    const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("stale")]);
    ops.push(op);
    const { code, lines } = await exitOf(op);
    assert.equal(code, 1);
    assert.equal(lines.length, 1, op.stderr);
    assert.match(lines[0], /^replicore: unauthorized: kubeconfig user "replicore-dev" \(context "replicore-dev"\) may not get leases\.coordination\.k8s\.io "replicore-operator" in namespace "replicore-system": .*--kubeconfig/);
  });
});

test("a lease namespace that does not exist: exit 1 saying to create it or pass --lease-namespace", async () => {
  const dev = await devServer();
  servers.push(dev);
  // kube-apiserver's answer to a create in a missing namespace (the dev server has every namespace).
  dev.server.faults.set({ rules: [{ verb: "create", resource: "leases", status: 404, reason: "NotFound", message: 'namespaces "replicore-system" not found' }] });
  const op = operator(dev.url);
  ops.push(op);
  const { code, lines } = await exitOf(op);
  assert.equal(code, 1);
  assert.equal(lines.length, 1, op.stderr);
  assert.equal(
    lines[0],
    'replicore: the lease namespace "replicore-system" does not exist (API: namespaces "replicore-system" not found): create it (kubectl create namespace replicore-system) or pass --lease-namespace NS',
  );
  assert.equal(dev.server.stats.requests["create leases"], 1, "no retry loop");
});

test("a permission lost later is logged and keeps /readyz at 503 until the request succeeds", async () => {
  const denyCreates = { verbs: ["create"], resources: ["pods"], namespaces: ["shop"] };
  const user = { name: SA, deny: [denyCreates] };
  const dev = await start({ op: user });
  const op = operator(dev.url, ["--kubeconfig", dev.kubeconfig("op"), "--no-leader-elect"]);
  ops.push(op);
  await op.waitLog("operator running");
  const ready = () => fetch(`${op.metricsUrl()}/readyz`).then((r) => r.status);
  assert.equal(await ready(), 200);
  await dev.api.post(rsPath("shop"), replicaSet("web", 2));
  const logged = await op.waitLog("not permitted");
  assert.equal(logged.verb, "create");
  assert.equal(logged.resource, "pods");
  assert.equal(logged.namespace, "shop");
  assert.equal(logged.identity, `"${SA}"`);
  assert.match(logged.remedy, /grant .* "create" on pods in namespace "shop"/);
  assert.equal(await ready(), 503);
  assert.equal(op.child.exitCode, null, "still running");
  // Granted again: the next creates succeed and the operator is ready.
  user.deny = [];
  await waitFor(async () => (await pods(dev.api, "shop")).length === 2, "two pods in shop");
  await waitFor(async () => (await ready()) === 200, "/readyz 200 again");
  await op.kill();
});

test("metrics listen on 127.0.0.1 unless --metrics-host says otherwise", async () => {
  const dev = await devServer();
  servers.push(dev);
  const op = operator(dev.url, ["--no-leader-elect"], { metricsHost: null });
  ops.push(op);
  const serving = await op.waitLog("serving metrics and health");
  assert.match(serving.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  await op.kill();
  const deployment = readFileSync(join(repo, "tools/deploy/deployment.yaml"), "utf8");
  assert.match(deployment, /- --metrics-host=0\.0\.0\.0/, "in the cluster the probes reach the pod's IP");
});

test("the shipped manifest runs the operator under Node with heap flags Node accepts", async () => {
  const { execFileSync } = await import("node:child_process");
  const deployment = readFileSync(join(repo, "tools/deploy/deployment.yaml"), "utf8");
  const items = shippedNodeCommand();
  assert.equal(items[0], "node");
  assert.equal(items.at(-1), "/usr/local/bin/replicore", "the package's bin, installed globally in the image");
  const flags = items.slice(1, -1);
  assert.ok(flags.some((f) => f.startsWith("--heap-growing-percent=")) && flags.some((f) => f.startsWith("--max-semi-space-size=")), flags.join(" "));
  // Node refuses some V8 flags in NODE_OPTIONS (--heap-growing-percent among them): on the
  // command line it takes them, and the CLI runs.
  const out = execFileSync(process.execPath, [...flags, join(repo, "tools/dist/cli.js"), "--version"], { encoding: "utf8", env: { ...process.env, ...shippedEnv() } });
  assert.match(out, /\d+\.\d+\.\d+/);
  assert.doesNotMatch(deployment, /name: NODE_OPTIONS/);
  // The memory given back after a scale-down (docs/performance.md): one V8 background
  // thread, and glibc mapping blocks of 64 KiB and more on their own.
  assert.ok(flags.includes("--v8-pool-size=1"), flags.join(" "));
  assert.equal(shippedEnv()["MALLOC_MMAP_THRESHOLD_"], "65536");
});
