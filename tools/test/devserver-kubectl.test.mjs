// kubectl against the dev server with the operator running: a scripted session (create a
// ReplicaSet from YAML, scale it, get pods, delete it) with Debian's kubectl 1.20
// (kubernetes-client; scripts/setup.sh installs it, or unpacks it under target/ when
// another package owns /usr/bin/kubectl).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, repo } from "./helpers.mjs";
import { kubectlIn, kubectlPath, operator, waitFor } from "./operator-helpers.mjs";

const kubectl = kubectlPath();
const tmp = mkdtempSync(join(tmpdir(), "replicore-kubectl-"));
const children = [];
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

const { k, ok } = kubectlIn(kubectl, tmp, 30000);

const RS_YAML = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: frontend
  labels:
    app: guestbook
spec:
  replicas: 2
  selector:
    matchLabels:
      tier: frontend
  template:
    metadata:
      labels:
        tier: frontend
    spec:
      containers:
      - name: php-redis
        image: gcr.io/google_samples/gb-frontend:v3
`;

test("kubectl create -f, get, scale, get pods, delete against the dev server with the operator", { skip: kubectl ? false : "no kubectl (run scripts/setup.sh)" }, async () => {
  const version = spawnSync(kubectl, ["version", "--client", "--short"], { encoding: "utf8" }).stdout;
  process.stdout.write(`# ${kubectl}: ${version.trim()}\n`);

  const server = spawn(process.execPath, [cli, "dev-server", "--port", "0", "--kubelet", "--ready-delay", "50", "--kubeconfig-out", join(tmp, "kubeconfig")], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  children.push(server);
  const url = await new Promise((resolve, reject) => {
    server.stdout.setEncoding("utf8");
    server.stdout.once("data", (line) => resolve(JSON.parse(line).url));
    server.once("exit", (code) => reject(new Error(`dev-server exited (${code})`)));
  });
  const op = operator(url, ["--kubeconfig", join(tmp, "kubeconfig")]);
  children.push(op.child);
  await op.waitLog("operator running");

  writeFileSync(join(tmp, "rs.yaml"), RS_YAML);
  assert.match(ok("create", "-f", join(tmp, "rs.yaml")), /^replicaset.apps\/frontend created$/m);
  await waitFor(() => ok("get", "rs", "frontend", "-o", "jsonpath={.status.readyReplicas}") === "2", "2 ready replicas", 30000, 200);
  const rsTable = ok("get", "rs");
  assert.match(rsTable, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/m);
  assert.match(rsTable, /^frontend\s+2\s+2\s+2\s+\S+$/m);

  assert.match(ok("scale", "rs", "frontend", "--replicas=4"), /^replicaset.apps\/frontend scaled$/m);
  await waitFor(() => ok("get", "rs", "frontend", "-o", "jsonpath={.status.readyReplicas}") === "4", "4 ready replicas", 30000, 200);
  const podTable = ok("get", "pods", "-l", "tier=frontend");
  const rows = podTable.trim().split("\n");
  assert.match(rows[0], /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
  assert.equal(rows.length, 5, podTable);
  for (const row of rows.slice(1)) assert.match(row, /^frontend-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+$/);
  const podList = JSON.parse(ok("get", "pods", "-o", "json"));
  assert.equal(podList.items.length, 4);
  assert.ok(podList.items.every((p) => p.metadata.ownerReferences[0].name === "frontend"));

  assert.match(ok("delete", "rs", "frontend"), /replicaset.apps "frontend" deleted/);
  await waitFor(() => /No resources found/.test(k("get", "pods").stderr), "the pods garbage-collected", 30000, 200);
  assert.match(k("get", "rs", "frontend").stderr, /NotFound|not found/);
  op.kill("SIGTERM");
  assert.equal((await op.exited).code, 0);
  server.kill("SIGTERM");
});
