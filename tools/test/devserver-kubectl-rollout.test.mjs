// kubectl's rollout session against the dev server with the operator running both
// controllers (issue 17, point 2), with the kubectl scripts/setup.sh provides (Debian's
// 1.20, or the copy it unpacks under target/): create deployment and apply -f, rollout
// status (it ends because the controller writes the status), set image, rollout history,
// rollout undo (kubectl copies the old ReplicaSet's template, client-side), rollout pause
// and resume, rollout restart, scale.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, devServerProcess, kubectlIn, kubectlPath, operator, waitFor } from "./operator-helpers.mjs";

const kubectl = kubectlPath();
const tmp = mkdtempSync(join(tmpdir(), "replicore-rollout-"));
const children = [];
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

const { k, ok } = kubectlIn(kubectl, tmp, 90000);

const API_YAML = (image) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels:
    app: api
spec:
  replicas: 2
  selector:
    matchLabels:
      app: api
  strategy:
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: ${image}
`;

test("kubectl create/apply, rollout status, set image, history, undo, pause/resume, restart, scale against the dev server with the operator", { skip: kubectl ? false : "no kubectl (run scripts/setup.sh)" }, async () => {
  const { child: server, url } = await devServerProcess(["--kubelet", "--ready-delay", "50", "--kubeconfig-out", join(tmp, "kubeconfig")]);
  children.push(server);
  const api = client(url);
  const op = operator(url, ["--kubeconfig", join(tmp, "kubeconfig")]);
  children.push(op.child);
  await op.waitLog("operator running");
  const status = (what = "deployment/web") => {
    const out = ok("rollout", "status", what, "--timeout=90s");
    assert.match(out, new RegExp(`deployment "${what.split("/")[1]}" successfully rolled out\\n$`), out);
    return out;
  };
  const image = () => ok("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}");
  const sets = async () => (await api.get("/apis/apps/v1/namespaces/default/replicasets")).items.filter((rs) => rs.metadata.name.startsWith("web-"));

  // create deployment, rollout status.
  assert.match(ok("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"), /^deployment.apps\/web created$/m);
  status();
  const table = ok("get", "deployment", "web");
  assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
  assert.match(table, /^web\s+3\/3\s+3\s+3\s+\S+$/m);
  const [first] = await sets();
  assert.equal(first.metadata.name, `web-${first.metadata.labels["pod-template-hash"]}`);
  assert.match(ok("get", "rs", first.metadata.name), new RegExp(`^${first.metadata.name}\\s+3\\s+3\\s+3\\s+\\S+$`, "m"));

  // set image (a strategic merge patch of the container by name), rollout status.
  assert.match(ok("set", "image", "deployment/web", "nginx=nginx:1.28"), /^deployment.apps\/web image updated$/m);
  status();
  assert.equal(image(), "nginx:1.28");
  assert.equal((await sets()).length, 2);

  // rollout history: one row per ReplicaSet revision.
  const history = ok("rollout", "history", "deployment/web");
  assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
  assert.match(history, /^1\s+<none>$/m);
  assert.match(history, /^2\s+<none>$/m);
  assert.match(ok("rollout", "history", "deployment/web", "--revision=1"), /Image:\s+nginx:1\.27/);

  // rollout undo: back to revision 1's template, which becomes revision 3.
  assert.match(ok("rollout", "undo", "deployment/web"), /^deployment.apps\/web rolled back$/m);
  status();
  assert.equal(image(), "nginx:1.27");
  assert.equal(ok("get", "deployment", "web", "-o", "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}"), "3");
  assert.equal((await sets()).length, 2, "undo reuses revision 1's ReplicaSet");
  const undone = ok("rollout", "history", "deployment/web");
  assert.match(undone, /^2\s+<none>$/m);
  assert.match(undone, /^3\s+<none>$/m);
  assert.doesNotMatch(undone, /^1\s/m);

  // rollout pause: a template change makes no ReplicaSet; resume rolls it out.
  assert.match(ok("rollout", "pause", "deployment/web"), /^deployment.apps\/web paused$/m);
  ok("set", "image", "deployment/web", "nginx=nginx:1.29");
  await waitFor(async () => {
    const d = await api.get("/apis/apps/v1/namespaces/default/deployments/web");
    return d.status?.observedGeneration === d.metadata.generation;
  }, "the paused generation observed", 30000, 100);
  assert.equal((await sets()).length, 2, "no ReplicaSet while paused");
  assert.ok((await sets()).every((rs) => rs.spec.template.spec.containers[0].image !== "nginx:1.29"));
  assert.match(ok("rollout", "resume", "deployment/web"), /^deployment.apps\/web resumed$/m);
  status();
  assert.equal((await sets()).find((rs) => rs.spec.replicas === 3).spec.template.spec.containers[0].image, "nginx:1.29");

  // rollout restart: a new template (the restartedAt annotation), a new ReplicaSet.
  assert.match(ok("rollout", "restart", "deployment/web"), /^deployment.apps\/web restarted$/m);
  status();
  const restarted = (await sets()).find((rs) => rs.spec.replicas === 3);
  assert.ok(restarted.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"], "the restarted ReplicaSet carries restartedAt");
  assert.equal((await sets()).length, 4);

  // scale deploy (the scale subresource).
  assert.match(ok("scale", "deployment/web", "--replicas=5"), /^deployment.apps\/web scaled$/m);
  status();
  assert.match(ok("get", "deployment", "web"), /^web\s+5\/5\s+5\s+5\s+\S+$/m);
  const pods = JSON.parse(ok("get", "pods", "-l", "app=web", "-o", "json")).items;
  assert.equal(pods.length, 5);
  assert.ok(pods.every((p) => p.metadata.ownerReferences[0].name === restarted.metadata.name));

  // apply -f: created, rolled out; applied again with a new image: configured, rolled out.
  writeFileSync(join(tmp, "api.yaml"), API_YAML("registry.example/api:1"));
  assert.match(ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api created$/m);
  status("deployment/api");
  writeFileSync(join(tmp, "api.yaml"), API_YAML("registry.example/api:2"));
  assert.match(ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api configured$/m);
  status("deployment/api");
  assert.equal(ok("get", "deployment", "api", "-o", "jsonpath={.status.updatedReplicas}/{.status.availableReplicas}"), "2/2");

  op.kill("SIGTERM");
  assert.equal((await op.exited).code, 0);
  server.kill("SIGTERM");
});
