// `replicore explain deploy/NAME | rs/NAME` reads the snapshot from a cluster through the
// kubeconfig (here the dev-server) and prints what `explain` prints for
// `kubectl get deploy,rs,pods -o json` of that namespace; as `kubectl-replicore` on PATH,
// kubectl's own plugin discovery finds it and `kubectl replicore explain …` runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cli, repo, runAsync as run, devKubeconfig } from "./helpers.mjs";
import { devServer, kubectlPath } from "./operator-helpers.mjs";

const kubectl = kubectlPath();
const NOW = "2026-11-24T05:00:00Z";

async function seed(api) {
  await api.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
  const labels = { app: "web" };
  const template = { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } };
  const d = await api.post("/apis/apps/v1/namespaces/shop/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { replicas: 3, selector: { matchLabels: labels }, template },
  });
  const owner = (o, kind, apiVersion) => [{ apiVersion, kind, name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true }];
  const rsLabels = { ...labels, "pod-template-hash": "5d8f7c9b6" };
  const rs = await api.post("/apis/apps/v1/namespaces/shop/replicasets", {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web-5d8f7c9b6", labels: rsLabels, annotations: { "deployment.kubernetes.io/revision": "1" }, ownerReferences: owner(d, "Deployment", "apps/v1") },
    spec: { replicas: 3, selector: { matchLabels: rsLabels }, template: { ...template, metadata: { labels: rsLabels } } },
  });
  for (const name of ["web-5d8f7c9b6-a", "web-5d8f7c9b6-b", "web-5d8f7c9b6-c"]) {
    await api.post("/api/v1/namespaces/shop/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels: rsLabels, ownerReferences: owner(rs, "ReplicaSet", "apps/v1") },
      spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
    });
  }
  // Another Deployment's objects in the namespace, left out of deploy/web's report.
  await api.post("/apis/apps/v1/namespaces/shop/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "api" },
    spec: { replicas: 1, selector: { matchLabels: { app: "api" } }, template: { metadata: { labels: { app: "api" } }, spec: template.spec } },
  });
}

test("explain deploy/NAME and rs/NAME from the cluster print what explain prints for kubectl's JSON; kubectl finds and runs the plugin", { skip: kubectl ? false : "no kubectl (run scripts/setup.sh)" }, async () => {
  const { url, api, close, server } = await devServer();
  try {
    await seed(api);
    const { dir: tmp, kubeconfig } = devKubeconfig(url, "replicore-plugin-");
    const k = async (...args) => {
      const r = await run(kubectl, ["--kubeconfig", kubeconfig, "--cache-dir", join(tmp, "cache"), ...args]);
      assert.equal(r.status, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    const snapshot = join(tmp, "snapshot.json");
    writeFileSync(snapshot, await k("get", "deploy,rs,pods", "-n", "shop", "-o", "json"));
    const replicore = (...args) => run(process.execPath, [cli, "explain", ...args, "--now", NOW]);

    // deploy/web: the same text as the JSON with --deployment, and only web's objects.
    const fromCluster = await replicore("deploy/web", "-n", "shop", "--kubeconfig", kubeconfig);
    assert.equal(fromCluster.status, 0, fromCluster.stderr);
    const fromJson = await replicore("-f", snapshot, "--deployment", "web");
    assert.equal(fromJson.status, 0, fromJson.stderr);
    assert.equal(fromCluster.stdout, fromJson.stdout);
    assert.match(fromCluster.stdout, /^Deployment shop\/web \(revision \d+, RollingUpdate, 3 replicas\)/);
    assert.match(fromCluster.stdout, /web-5d8f7c9b6/);
    assert.doesNotMatch(fromCluster.stdout, /shop\/api/);
    // The ReplicaSet header does not count the Deployment explained above it as ignored.
    assert.match(fromCluster.stdout, /^1 ReplicaSet, 3 pods at [^,\n]+$/m);
    // The namespace defaults to the context's; --json prints the same report as data.
    const json = await replicore("deploy/web", "--kubeconfig", kubeconfig, "--json");
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), JSON.parse((await replicore("-f", snapshot, "--deployment", "web", "--json")).stdout));

    // rs/NAME with a scale-down preview: the same as --rs on the JSON.
    const rs = await replicore("rs/web-5d8f7c9b6", "-n", "shop", "--replicas", "1", "--kubeconfig", kubeconfig);
    assert.equal(rs.status, 0, rs.stderr);
    assert.equal(rs.stdout, (await replicore("-f", snapshot, "--rs", "shop/web-5d8f7c9b6", "--replicas", "1")).stdout);
    assert.match(rs.stdout, /web-5d8f7c9b6/);

    // Errors: a name the namespace lacks, a namespace the cluster lacks (told apart, and
    // named as the cluster's, not as "the input"), a bad TYPE/NAME, a server that does not answer.
    const missing = await replicore("deploy/nope", "-n", "shop", "--kubeconfig", kubeconfig);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `replicore: deploy/nope: no Deployment named "nope" in namespace shop on ${url}; it has api, web\n`);
    const missingRs = await replicore("rs/nope", "-n", "shop", "--kubeconfig", kubeconfig);
    assert.equal(missingRs.status, 1);
    assert.equal(missingRs.stderr, `replicore: rs/nope: no ReplicaSet named "nope" in namespace shop on ${url}; it has web-5d8f7c9b6\n`);
    // (The dev server has every namespace: a real API server's 404s for this one, and a
    // 403 for another whose user may not read namespaces.)
    server.faults.set({
      rules: [
        { verb: "get", resource: "namespaces", name: "nowhere", status: 404, reason: "NotFound", message: 'namespaces "nowhere" not found' },
        { verb: "get", resource: "namespaces", name: "locked", status: 403, reason: "Forbidden", message: 'namespaces "locked" is forbidden' },
      ],
    });
    const noNamespace = await replicore("deploy/web", "-n", "nowhere", "--kubeconfig", kubeconfig);
    assert.equal(noNamespace.status, 1);
    assert.equal(noNamespace.stderr, `replicore: deploy/web: namespace "nowhere" not found on ${url}\n`);
    const locked = await replicore("deploy/web", "-n", "locked", "--kubeconfig", kubeconfig);
    assert.equal(locked.status, 1);
    assert.equal(
      locked.stderr,
      `replicore: deploy/web: no Deployment named "web" in namespace locked on ${url}; it has none (whether namespace locked exists is not known: reading it answered 403 namespaces "locked" is forbidden)\n`,
    );
    server.faults.set({ rules: [] });
    const bad = await replicore("pod/web", "--kubeconfig", kubeconfig);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^replicore: 'pod\/web': expected deploy\/NAME, rs\/NAME or hpa\/NAME/);
    const both = await replicore("deploy/web", "-f", snapshot);
    assert.equal(both.status, 2);
    const down = join(tmp, "down.kubeconfig");
    writeFileSync(down, JSON.stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name: "x", cluster: { server: "http://127.0.0.1:9", "insecure-skip-tls-verify": true } }], users: [{ name: "x", user: {} }], contexts: [{ name: "x", context: { cluster: "x", user: "x" } }], "current-context": "x" }));
    const unreachable = await replicore("deploy/web", "--kubeconfig", down);
    assert.equal(unreachable.status, 1);
    assert.match(unreachable.stderr, /^replicore: GET http:\/\/127\.0\.0\.1:9\/apis\/apps\/v1\/namespaces\/default\/deployments: /);

    // The plugin: npm installs the package's kubectl-replicore bin; kubectl finds it on PATH.
    const bin = join(repo, "node_modules", ".bin");
    assert.ok(existsSync(join(bin, "kubectl-replicore")), "npm linked the kubectl-replicore bin");
    const PATH = `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
    const list = await run(kubectl, ["plugin", "list"], { PATH });
    assert.match(list.stdout, /\/kubectl-replicore$/m, list.stdout + list.stderr);
    const plugin = await run(kubectl, ["replicore", "explain", "deploy/web", "-n", "shop", "--now", NOW], { PATH, KUBECONFIG: kubeconfig });
    assert.equal(plugin.status, 0, plugin.stderr);
    assert.equal(plugin.stdout, fromCluster.stdout);
  } finally {
    await close();
  }
});
