// apps/v1 Deployments on the dev server: discovery, kube-apiserver's defaults and
// validation, metadata.generation, optimistic concurrency (409), the status and scale
// subresources, strategic merge patch of the pod template's lists by their merge keys,
// watch; then a kubectl session (create, apply, get, set image, scale, rollout
// pause/resume/restart/history/undo) with every kubectl found (Debian's 1.20 and the one
// on PATH), asserting the stored objects after each command. No controller runs: the
// ReplicaSets `rollout history` and `rollout undo` read are created by the test.
import { test, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, repo } from "./helpers.mjs";
import { client, devServer } from "./operator-helpers.mjs";
import { defaultDeployment } from "../dist/devserver/deployments.js";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";

const servers = [];
const children = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

async function start() {
  const dev = await devServer();
  servers.push(dev);
  return dev;
}

const deployPath = (ns, name = "", sub = "") => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ""}${sub ? `/${sub}` : ""}`;
const rsPath = (ns, name = "", sub = "") => `/apis/apps/v1/namespaces/${ns}/replicasets${name ? `/${name}` : ""}${sub ? `/${sub}` : ""}`;

function deployment(name, { labels = { app: name }, containers = [{ name: "web", image: "nginx:1.25" }], spec = {} } = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers } }, ...spec },
  };
}

/** The pod template a minimal one-container Deployment is stored with (upstream's defaults). */
const DEFAULTED_TEMPLATE_SPEC = {
  containers: [{ name: "web", image: "nginx:1.25", imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: {} }],
  restartPolicy: "Always",
  dnsPolicy: "ClusterFirst",
  securityContext: {},
  terminationGracePeriodSeconds: 30,
  schedulerName: "default-scheduler",
};

/** Opens a watch; `next(n)` resolves with the first n events (no timing involved). */
function openWatch(url, path, headers = {}) {
  const events = [];
  const waiting = [];
  let buf = "";
  const req = request(url + path, { headers }, (res) => {
    res.setEncoding("utf8");
    res.on("data", (c) => {
      buf += c;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        events.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
      for (const w of [...waiting]) {
        if (events.length >= w.n) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(events.slice(0, w.n));
        }
      }
    });
  });
  req.end();
  const opened = new Promise((resolve) => req.on("response", resolve));
  return {
    opened,
    next: (n) => (events.length >= n ? Promise.resolve(events.slice(0, n)) : new Promise((resolve) => waiting.push({ n, resolve }))),
    close: () => req.destroy(),
  };
}

describe("Deployments: API semantics", () => {
  test("discovery lists deployments with status and scale subresources, short name deploy, category all", async () => {
    const { api } = await start();
    const apps = await api.get("/apis/apps/v1");
    const d = apps.resources.find((r) => r.name === "deployments");
    assert.deepEqual(
      { kind: d.kind, namespaced: d.namespaced, singularName: d.singularName, shortNames: d.shortNames, categories: d.categories },
      { kind: "Deployment", namespaced: true, singularName: "deployment", shortNames: ["deploy"], categories: ["all"] },
    );
    for (const v of ["create", "delete", "get", "list", "patch", "update", "watch"]) assert.ok(d.verbs.includes(v), v);
    assert.deepEqual(apps.resources.filter((r) => r.name.startsWith("deployments/")).map((r) => [r.name, r.kind, r.group ?? "", r.version ?? ""]), [
      ["deployments/status", "Deployment", "", ""],
      ["deployments/scale", "Scale", "autoscaling", "v1"],
    ]);
    // The other kinds keep their categories (now declared per resource).
    assert.deepEqual(apps.resources.find((r) => r.name === "replicasets").categories, ["all"]);
    assert.deepEqual((await api.get("/api/v1")).resources.find((r) => r.name === "pods").categories, ["all"]);
    assert.equal((await api.get("/api/v1")).resources.find((r) => r.name === "events").categories, undefined);
  });

  test("create applies kube-apiserver's Deployment and pod template defaults", async () => {
    const { api } = await start();
    const d = await api.post(deployPath("default"), deployment("web"));
    assert.equal(d.metadata.generation, 1);
    assert.deepEqual(d.status, {});
    assert.deepEqual(d.spec, {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: DEFAULTED_TEMPLATE_SPEC },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    assert.deepEqual(await api.get(deployPath("default", "web")), d);
  });

  test("the defaults agree with upstream's on the 500 deployment-sync vectors' Deployments (recorded from Go)", () => {
    const vectors = JSON.parse(gunzipSync(readFileSync(`${repo}tests/conformance/vectors/deployment/deployment-sync.json.gz`)).toString("utf8"));
    const isDefault = (o, key, value) => {
      if (o && JSON.stringify(o[key]) === JSON.stringify(value)) delete o[key];
    };
    let stripped = 0;
    for (const v of vectors) {
      const upstream = v.input.deployment;
      // Idempotent on upstream's output: nothing is added or changed.
      const again = structuredClone(upstream);
      defaultDeployment(again);
      assert.deepEqual(again, upstream, v.name);
      // Upstream's defaulted values, removed, come back from our defaults alone.
      const bare = structuredClone(upstream);
      const spec = bare.spec;
      if (spec.strategy.type === "RollingUpdate" && spec.strategy.rollingUpdate.maxSurge === "25%" && spec.strategy.rollingUpdate.maxUnavailable === "25%") delete spec.strategy.rollingUpdate;
      isDefault(spec.strategy, "type", "RollingUpdate");
      isDefault(spec, "strategy", {});
      isDefault(spec, "revisionHistoryLimit", 10);
      isDefault(spec, "progressDeadlineSeconds", 600);
      const ts = spec.template.spec;
      for (const [k, val] of Object.entries({ restartPolicy: "Always", terminationGracePeriodSeconds: 30, dnsPolicy: "ClusterFirst", securityContext: {}, schedulerName: "default-scheduler" })) isDefault(ts, k, val);
      for (const c of [...(ts.containers ?? []), ...(ts.initContainers ?? [])]) {
        const tag = /:([^/:@]+)$/.exec(c.image.split("@")[0])?.[1] ?? (c.image.includes("@") ? "" : "latest");
        isDefault(c, "imagePullPolicy", tag === "latest" ? "Always" : "IfNotPresent");
        isDefault(c, "terminationMessagePath", "/dev/termination-log");
        isDefault(c, "terminationMessagePolicy", "File");
        isDefault(c, "resources", {});
        for (const p of c.ports ?? []) isDefault(p, "protocol", "TCP");
        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
          if (!probe) continue;
          for (const [k, val] of Object.entries({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })) isDefault(probe, k, val);
          if (probe.httpGet) for (const [k, val] of Object.entries({ path: "/", scheme: "HTTP" })) isDefault(probe.httpGet, k, val);
        }
      }
      if (JSON.stringify(bare) !== JSON.stringify(upstream)) stripped++;
      defaultDeployment(bare);
      assert.deepEqual(bare, upstream, v.name);
    }
    assert.equal(stripped, vectors.length, "every vector had defaults to restore");
  });

  test("defaults of containers, ports, probes, env and volumes; given values and Recreate are kept", async () => {
    const { api } = await start();
    const containers = [
      {
        name: "app",
        image: "registry.local:5000/app",
        ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: "UDP" }],
        env: [{ name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
        readinessProbe: { httpGet: { port: 8080 } },
        volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }],
      },
      { name: "pinned", image: "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", imagePullPolicy: "Never" },
    ];
    const body = deployment("app", { containers, spec: { replicas: 0, strategy: { type: "Recreate" }, revisionHistoryLimit: 2 } });
    body.spec.template.spec.initContainers = [{ name: "init", image: "busybox:latest" }];
    body.spec.template.spec.volumes = [{ name: "cfg", configMap: { name: "app" } }, { name: "scratch" }];
    body.spec.template.spec.terminationGracePeriodSeconds = 5;
    const d = await api.post(deployPath("default"), body);
    assert.equal(d.spec.replicas, 0);
    assert.deepEqual(d.spec.strategy, { type: "Recreate" });
    assert.equal(d.spec.revisionHistoryLimit, 2);
    const ts = d.spec.template.spec;
    assert.equal(ts.terminationGracePeriodSeconds, 5);
    const [app, pinned] = ts.containers;
    assert.equal(app.imagePullPolicy, "Always", "no tag: latest");
    assert.equal(pinned.imagePullPolicy, "Never");
    assert.equal(ts.initContainers[0].imagePullPolicy, "Always");
    assert.equal(ts.initContainers[0].terminationMessagePath, "/dev/termination-log");
    assert.deepEqual(app.ports, [
      { containerPort: 8080, protocol: "TCP" },
      { containerPort: 53, protocol: "UDP" },
    ]);
    assert.deepEqual(app.env[0].valueFrom.fieldRef, { fieldPath: "metadata.name", apiVersion: "v1" });
    assert.deepEqual(app.readinessProbe, { httpGet: { port: 8080, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(ts.volumes, [
      { name: "cfg", configMap: { name: "app", defaultMode: 420 } },
      { name: "scratch", emptyDir: {} },
    ]);
    // A digest without a tag is not "latest".
    const digest = await api.post(deployPath("default"), deployment("digest", { containers: [{ name: "c", image: "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }] }));
    assert.equal(digest.spec.template.spec.containers[0].imagePullPolicy, "IfNotPresent");
  });

  test("validation: 422 Invalid with kube-apiserver's message and causes", async () => {
    const { api } = await start();
    const noSelector = deployment("a");
    delete noSelector.spec.selector;
    let r = await api.call("POST", deployPath("default"), noSelector);
    assert.equal(r.status, 422);
    assert.equal(r.body.kind, "Status");
    assert.equal(r.body.reason, "Invalid");
    assert.equal(r.body.message, 'Deployment.apps "a" is invalid: spec.selector: Required value');
    assert.deepEqual(r.body.details, { name: "a", group: "apps", kind: "Deployment", causes: [{ reason: "FieldValueRequired", message: "Required value", field: "spec.selector" }] });

    const mismatch = deployment("b");
    mismatch.spec.selector = { matchLabels: { app: "other" } };
    r = await api.call("POST", deployPath("default"), mismatch);
    assert.equal(r.status, 422);
    assert.equal(r.body.details.causes[0].field, "spec.template.metadata.labels");
    assert.match(r.body.message, /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/);

    const expr = deployment("c");
    expr.spec.selector = { matchExpressions: [{ key: "app", operator: "In", values: ["c", "d"] }] };
    assert.equal((await api.call("POST", deployPath("default"), expr)).status, 201, "a matching set-based selector is valid");

    r = await api.call("POST", deployPath("default"), deployment("e", { spec: { selector: {} } }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /empty selector is invalid for deployment/);

    r = await api.call("POST", deployPath("default"), deployment("f", { spec: { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } } } }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /spec\.strategy\.rollingUpdate\.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0/);

    r = await api.call("POST", deployPath("default"), deployment("g", { containers: [{ name: "c" }], spec: { minReadySeconds: 700 } }));
    assert.equal(r.status, 422);
    assert.deepEqual(
      r.body.details.causes.map((c) => c.field),
      ["spec.template.spec.containers[0].image", "spec.progressDeadlineSeconds"],
    );
    assert.match(r.body.message, /^Deployment.apps "g" is invalid: \[spec.template.spec.containers\[0\].image: Required value, spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds\]$/);

    r = await api.call("POST", deployPath("default"), deployment("h", { spec: { strategy: { type: "Recreate", rollingUpdate: { maxSurge: 1 } } } }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /spec\.strategy\.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'/);

    // The selector is immutable in apps/v1.
    const d = await api.get(deployPath("default", "c"));
    d.spec.selector = { matchLabels: { app: "c" } };
    r = await api.call("PUT", deployPath("default", "c"), d);
    assert.equal(r.status, 422);
    assert.match(r.body.message, /spec\.selector: Invalid value: .*field is immutable/);
    // A patch that breaks the template labels is refused too, and nothing is stored.
    r = await api.call("PATCH", deployPath("default", "c"), { spec: { template: { metadata: { labels: { app: "x" } } } } }, "application/merge-patch+json");
    assert.equal(r.status, 422);
    assert.equal((await api.get(deployPath("default", "c"))).metadata.generation, 1);
  });

  test("generation bumps on spec and annotation changes, not on labels or status; status and spec writes stay apart", async () => {
    const { api } = await start();
    const d1 = await api.post(deployPath("default"), deployment("web"));
    // A label-only change: stored, generation unchanged.
    const d2 = await api.patch(deployPath("default", "web"), { metadata: { labels: { team: "a" } } });
    assert.equal(d2.metadata.generation, 1);
    assert.notEqual(d2.metadata.resourceVersion, d1.metadata.resourceVersion);
    // A write of the same object (defaults included) changes nothing.
    const same = await api.put(deployPath("default", "web"), d2);
    assert.equal(same.metadata.resourceVersion, d2.metadata.resourceVersion);
    // Spec change.
    const d3 = await api.patch(deployPath("default", "web"), { spec: { minReadySeconds: 5 } });
    assert.equal(d3.metadata.generation, 2);
    // Annotations are copied to ReplicaSets, so upstream bumps on them too.
    const d4 = await api.patch(deployPath("default", "web"), { metadata: { annotations: { note: "x" } } });
    assert.equal(d4.metadata.generation, 3);
    // Status through the status subresource: spec in the body is ignored, generation kept.
    const st = structuredClone(d4);
    st.status = { observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
    st.spec.replicas = 9;
    // As upstream's status strategy: the write's annotations are kept (the controller sets the
    // revision annotation through UpdateStatus), its labels and generation are not.
    st.metadata.annotations = { ...st.metadata.annotations, "deployment.kubernetes.io/revision": "1" };
    st.metadata.labels = { app: "changed" };
    st.metadata.generation = 99;
    const d5 = await api.put(deployPath("default", "web", "status"), st);
    assert.equal(d5.metadata.generation, 3);
    assert.equal(d5.spec.replicas, 1);
    assert.deepEqual(d5.status, st.status);
    assert.deepEqual(d5.metadata.annotations, { note: "x", "deployment.kubernetes.io/revision": "1" });
    assert.deepEqual(d5.metadata.labels, { team: "a" });
    // Nor can a main-resource write set the generation.
    const g = await api.put(deployPath("default", "web"), { ...d5, metadata: { ...d5.metadata, generation: 50 } });
    assert.equal(g.metadata.generation, 3);
    // Status through the main resource is ignored; the spec change goes through.
    const main = structuredClone(d5);
    main.status = { replicas: 42 };
    main.spec.replicas = 2;
    const d6 = await api.put(deployPath("default", "web"), main);
    assert.deepEqual(d6.status, st.status);
    assert.equal(d6.spec.replicas, 2);
    assert.equal(d6.metadata.generation, 4);
    // A merge patch on status through the status subresource.
    const d7 = await api.patch(deployPath("default", "web", "status"), { status: { conditions: [{ type: "Available", status: "True" }] } });
    assert.equal(d7.metadata.generation, 4);
    assert.equal(d7.status.conditions[0].type, "Available");
  });

  test("optimistic concurrency: a stale resourceVersion answers 409 Conflict on update, patch, status and scale", async () => {
    const { api } = await start();
    const d1 = await api.post(deployPath("default"), deployment("web"));
    await api.patch(deployPath("default", "web"), { spec: { replicas: 2 } });
    const stale = structuredClone(d1);
    stale.spec.replicas = 3;
    let r = await api.call("PUT", deployPath("default", "web"), stale);
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
      reason: "Conflict",
      details: { name: "web", group: "apps", kind: "deployments" },
      code: 409,
    });
    r = await api.call("PATCH", deployPath("default", "web"), { metadata: { resourceVersion: d1.metadata.resourceVersion }, spec: { replicas: 3 } }, "application/merge-patch+json");
    assert.equal(r.status, 409);
    r = await api.call("PUT", deployPath("default", "web", "status"), { ...stale, status: { replicas: 1 } });
    assert.equal(r.status, 409);
    r = await api.call("PUT", deployPath("default", "web", "scale"), { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "web", namespace: "default", resourceVersion: d1.metadata.resourceVersion }, spec: { replicas: 7 } });
    assert.equal(r.status, 409);
    assert.equal((await api.get(deployPath("default", "web"))).spec.replicas, 2);
    // With the current resourceVersion the write goes through.
    const cur = await api.get(deployPath("default", "web"));
    cur.spec.replicas = 3;
    assert.equal((await api.put(deployPath("default", "web"), cur)).spec.replicas, 3);
  });

  test("scale subresource (autoscaling/v1) for Deployments and ReplicaSets: GET, PUT, PATCH", async () => {
    const { api } = await start();
    await api.post(deployPath("default"), deployment("web", { spec: { replicas: 3 } }));
    const s = await api.get(deployPath("default", "web", "scale"));
    assert.equal(s.kind, "Scale");
    assert.equal(s.apiVersion, "autoscaling/v1");
    assert.deepEqual(s.spec, { replicas: 3 });
    assert.deepEqual(s.status, { replicas: 0, selector: "app=web" });
    const s2 = await api.put(deployPath("default", "web", "scale"), { ...s, spec: { replicas: 5 } });
    assert.equal(s2.spec.replicas, 5);
    let d = await api.get(deployPath("default", "web"));
    assert.equal(d.spec.replicas, 5);
    assert.equal(d.metadata.generation, 2);
    assert.equal(s2.metadata.resourceVersion, d.metadata.resourceVersion);
    const s3 = await api.patch(deployPath("default", "web", "scale"), { spec: { replicas: 1 } }, "application/merge-patch+json");
    assert.equal(s3.spec.replicas, 1);
    d = await api.get(deployPath("default", "web"));
    assert.equal(d.spec.replicas, 1);
    assert.equal(d.metadata.generation, 3);
    const bad = await api.call("PUT", deployPath("default", "web", "scale"), { ...s3, spec: { replicas: -1 } });
    assert.equal(bad.status, 422);

    await api.post(rsPath("default"), { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "rs" }, spec: { replicas: 2, selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } } } });
    assert.deepEqual((await api.get(rsPath("default", "rs", "scale"))).spec, { replicas: 2 });
    await api.patch(rsPath("default", "rs", "scale"), { spec: { replicas: 4 } }, "application/strategic-merge-patch+json");
    assert.equal((await api.get(rsPath("default", "rs"))).spec.replicas, 4);
  });

  test("strategic merge patch merges the template's lists by their merge keys", async () => {
    const { api } = await start();
    const containers = [
      {
        name: "web",
        image: "nginx:1.25",
        ports: [{ containerPort: 80 }, { containerPort: 443 }],
        env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
        volumeMounts: [{ name: "data", mountPath: "/data" }, { name: "cfg", mountPath: "/etc/cfg" }],
      },
      { name: "sidecar", image: "envoy:1" },
    ];
    const body = deployment("web", { containers });
    body.spec.template.spec.volumes = [{ name: "data" }, { name: "cfg", configMap: { name: "cfg" } }];
    body.spec.template.spec.initContainers = [{ name: "init", image: "busybox:1" }];
    await api.post(deployPath("default"), body);
    const smp = "application/strategic-merge-patch+json";
    // kubectl set image's patch: one container by name, with its $setElementOrder directive.
    let d = await api.patch(deployPath("default", "web"), { spec: { template: { spec: { "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }], containers: [{ name: "sidecar", image: "envoy:2" }] } } } }, smp);
    assert.deepEqual(d.spec.template.spec.containers.map((c) => [c.name, c.image]), [
      ["web", "nginx:1.25"],
      ["sidecar", "envoy:2"],
    ]);
    assert.equal(d.spec.template.spec.containers[0].ports.length, 2, "the untouched container keeps its lists");
    assert.equal(d.metadata.generation, 2);
    // Nested lists: ports by containerPort, env by name, volumeMounts by mountPath; volumes and initContainers by name.
    d = await api.patch(
      deployPath("default", "web"),
      {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: "web",
                  ports: [{ containerPort: 443, name: "https" }],
                  env: [{ name: "B", value: "3" }, { name: "C", value: "4" }, { name: "A", $patch: "delete" }],
                  volumeMounts: [{ mountPath: "/data", readOnly: true }],
                },
              ],
              volumes: [{ name: "cfg", configMap: { name: "cfg2" } }],
              initContainers: [{ name: "init", image: "busybox:2" }],
            },
          },
        },
      },
      smp,
    );
    const web = d.spec.template.spec.containers[0];
    assert.deepEqual(web.ports, [
      { containerPort: 80, protocol: "TCP" },
      { containerPort: 443, protocol: "TCP", name: "https" },
    ]);
    assert.deepEqual(web.env, [
      { name: "B", value: "3" },
      { name: "C", value: "4" },
    ]);
    assert.deepEqual(web.volumeMounts, [
      { name: "data", mountPath: "/data", readOnly: true },
      { name: "cfg", mountPath: "/etc/cfg" },
    ]);
    assert.equal(d.spec.template.spec.containers[1].image, "envoy:2");
    assert.deepEqual(d.spec.template.spec.volumes, [
      { name: "data", emptyDir: {} },
      { name: "cfg", configMap: { name: "cfg2", defaultMode: 420 } },
    ]);
    assert.equal(d.spec.template.spec.initContainers[0].image, "busybox:2");
    // A container deleted by name; a new one appended (and defaulted).
    d = await api.patch(deployPath("default", "web"), { spec: { template: { spec: { containers: [{ name: "sidecar", $patch: "delete" }, { name: "log", image: "fluent:1" }] } } } }, smp);
    assert.deepEqual(d.spec.template.spec.containers.map((c) => c.name), ["web", "log"]);
    assert.equal(d.spec.template.spec.containers[1].imagePullPolicy, "IfNotPresent");
    // A merge patch (RFC 7386) replaces the list instead.
    d = await api.patch(deployPath("default", "web"), { spec: { template: { spec: { containers: [{ name: "only", image: "x:1" }] } } } }, "application/merge-patch+json");
    assert.deepEqual(d.spec.template.spec.containers.map((c) => c.name), ["only"]);
    // $retainKeys clears the members it does not list (kubectl apply switching the strategy).
    d = await api.patch(deployPath("default", "web"), { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } }, smp);
    assert.deepEqual(d.spec.strategy, { type: "Recreate" });
    // rollout pause / resume / restart patches.
    d = await api.patch(deployPath("default", "web"), { spec: { paused: true } }, smp);
    assert.equal(d.spec.paused, true);
    d = await api.patch(deployPath("default", "web"), { spec: { paused: null } }, smp);
    assert.equal(d.spec.paused, undefined);
    d = await api.patch(deployPath("default", "web"), { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-24T01:00:00Z" } } } } }, smp);
    assert.deepEqual(d.spec.template.metadata.annotations, { "kubectl.kubernetes.io/restartedAt": "2026-11-24T01:00:00Z" });
  });

  test("rollout undo's JSON patch: replace /spec/template and a missing /metadata/annotations", async () => {
    const { api } = await start();
    const d1 = await api.post(deployPath("default"), deployment("web"));
    const old = structuredClone(d1.spec.template);
    old.metadata.creationTimestamp = null;
    old.spec.containers[0].image = "nginx:1.24";
    const d = await api.patch(
      deployPath("default", "web"),
      [
        { op: "replace", path: "/spec/template", value: old },
        { op: "replace", path: "/metadata/annotations", value: { "kubernetes.io/change-cause": "back" } },
      ],
      "application/json-patch+json",
    );
    assert.equal(d.spec.template.spec.containers[0].image, "nginx:1.24");
    assert.deepEqual(d.spec.template.metadata, { labels: { app: "web" } }, "nulls are dropped as a decode into the Go types drops them");
    assert.deepEqual(d.metadata.annotations, { "kubernetes.io/change-cause": "back" });
    assert.equal(d.metadata.generation, 2);
  });

  test("watch: ADDED, MODIFIED (spec and status), DELETED, with the ReplicaSets it owns garbage-collected", async () => {
    const { api, url } = await start();
    const rv = (await api.get(deployPath("default"))).metadata.resourceVersion;
    const w = openWatch(url, `${deployPath("default")}?watch=true&resourceVersion=${rv}`);
    const rsWatch = openWatch(url, `${rsPath("default")}?watch=true&resourceVersion=${rv}`);
    await Promise.all([w.opened, rsWatch.opened]);
    const d = await api.post(deployPath("default"), deployment("web"));
    await api.patch(deployPath("default", "web"), { spec: { replicas: 2 } });
    await api.patch(deployPath("default", "web", "status"), { status: { observedGeneration: 2 } });
    await api.post(rsPath("default"), {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "web-1", ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }] },
      spec: { replicas: 0, selector: { matchLabels: { app: "web" } }, template: d.spec.template },
    });
    await api.del(deployPath("default", "web"));
    const events = await w.next(4);
    w.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.kind, e.object.metadata.name, e.object.metadata.generation, e.object.spec.replicas, e.object.status.observedGeneration]),
      [
        ["ADDED", "Deployment", "web", 1, 1, undefined],
        ["MODIFIED", "Deployment", "web", 2, 2, undefined],
        ["MODIFIED", "Deployment", "web", 2, 2, 2],
        ["DELETED", "Deployment", "web", 2, 2, 2],
      ],
    );
    const rsEvents = await rsWatch.next(2);
    rsWatch.close();
    assert.deepEqual(rsEvents.map((e) => [e.type, e.object.metadata.name]), [
      ["ADDED", "web-1"],
      ["DELETED", "web-1"],
    ]);
  });

  test("protobuf bodies: kinds the server does not decode answer 415 UnsupportedMediaType", async () => {
    const { url } = await start();
    const str = (field, text) => [(field << 3) | 2, text.length, ...Buffer.from(text)];
    const typeMeta = [...str(1, "v1"), ...str(2, "Pod")];
    const body = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, typeMeta.length, ...typeMeta]);
    const res = await fetch(url + "/api/v1/namespaces/default/pods", { method: "POST", headers: { "Content-Type": "application/vnd.kubernetes.protobuf" }, body });
    assert.equal(res.status, 415);
    const status = await res.json();
    assert.equal(status.reason, "UnsupportedMediaType");
    assert.match(status.message, /Pod v1 are not supported/);
  });

  test("server-side printing: kubectl get deploy's columns", async () => {
    const { url, api } = await start();
    await api.post(deployPath("default"), deployment("web", { spec: { replicas: 3 } }));
    await api.patch(deployPath("default", "web", "status"), { status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } });
    const res = await fetch(url + deployPath("default"), { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" } });
    const t = await res.json();
    assert.equal(t.kind, "Table");
    assert.deepEqual(t.columnDefinitions.map((c) => [c.name, c.priority]), [
      ["Name", 0],
      ["Ready", 0],
      ["Up-to-date", 0],
      ["Available", 0],
      ["Age", 0],
      ["Containers", 1],
      ["Images", 1],
      ["Selector", 1],
    ]);
    assert.deepEqual([...t.rows[0].cells.slice(0, 4), ...t.rows[0].cells.slice(5)], ["web", "2/3", 3, 2, "web", "nginx:1.25", "app=web"]);
    // kubectl get -w: a watch asking for Tables gets one-row Tables.
    const w = openWatch(url, `${deployPath("default")}?watch=true`, { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    await w.opened;
    await api.patch(deployPath("default", "web", "scale"), { spec: { replicas: 4 } });
    const events = await w.next(2);
    w.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.rows[0].cells[1]]), [
      ["ADDED", "Table", "2/3"],
      ["MODIFIED", "Table", "2/4"],
    ]);
  });
});

// ---------------------------------------------------------------------------------------
// kubectl

function kubectls() {
  const found = [];
  const unpacked = `${repo}target/kubernetes-client/usr/bin/kubectl`;
  if (process.env.KUBECTL) found.push(process.env.KUBECTL);
  if (existsSync(unpacked)) found.push(unpacked);
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(`${dir}/kubectl`)) {
      found.push(`${dir}/kubectl`);
      break;
    }
  }
  return [...new Set(found)];
}

const WEB_API_YAML = (image) => `apiVersion: apps/v1
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
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: ${image}
        ports:
        - containerPort: 8080
      - name: sidecar
        image: envoy:1.30
`;

for (const kubectl of kubectls()) {
  test(`kubectl session on Deployments (${kubectl})`, async (t) => {
    const version = await new Promise((resolve) => execFile(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8" }, (_e, out) => resolve(out)));
    const gitVersion = (() => {
      try {
        return JSON.parse(version).clientVersion.gitVersion;
      } catch {
        return "unknown";
      }
    })();
    t.diagnostic(`${kubectl}: ${gitVersion}`);
    const tmp = mkdtempSync(join(tmpdir(), "replicore-deploy-kubectl-"));
    const server = spawn(process.execPath, [cli, "dev-server", "--port", "0", "--kubeconfig-out", join(tmp, "kubeconfig")], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
    children.push(server);
    const url = await new Promise((resolve, reject) => {
      server.stdout.setEncoding("utf8");
      server.stdout.once("data", (line) => resolve(JSON.parse(line).url));
      server.once("exit", (code) => reject(new Error(`dev-server exited (${code})`)));
    });
    const api = client(url);
    const k = (...args) =>
      new Promise((resolve) =>
        execFile(kubectl, ["--kubeconfig", join(tmp, "kubeconfig"), "--cache-dir", join(tmp, "cache"), ...args], { encoding: "utf8", timeout: 60000 }, (error, stdout, stderr) =>
          resolve({ status: error ? (error.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const ok = async (...args) => {
      const r = await k(...args);
      assert.equal(r.status, 0, `kubectl ${args.join(" ")}:\n${r.stderr}`);
      return r.stdout;
    };
    const web = () => api.get(deployPath("default", "web"));

    // create deployment: kube-apiserver's defaults on what kubectl sends.
    assert.match(await ok("create", "deployment", "web", "--image=nginx:1.25", "--replicas=3"), /^deployment.apps\/web created$/m);
    const created = await web();
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.spec.replicas, 3);
    assert.deepEqual(created.spec.selector, { matchLabels: { app: "web" } });
    assert.deepEqual(created.spec.strategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    assert.equal(created.spec.revisionHistoryLimit, 10);
    assert.equal(created.spec.progressDeadlineSeconds, 600);
    assert.deepEqual(
      created.spec.template.spec.containers.map((c) => [c.name, c.image, c.imagePullPolicy, c.terminationMessagePath]),
      [["nginx", "nginx:1.25", "IfNotPresent", "/dev/termination-log"]],
      "kubectl create deployment names the container after the image",
    );
    assert.equal(created.spec.template.spec.restartPolicy, "Always");
    assert.equal(created.spec.template.metadata.creationTimestamp, undefined);

    // apply -f: created, then configured by a strategic merge patch that keeps the sidecar.
    writeFileSync(join(tmp, "api.yaml"), WEB_API_YAML("api:1"));
    assert.match(await ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api created$/m);
    let apiDeploy = await api.get(deployPath("default", "api"));
    assert.equal(apiDeploy.metadata.generation, 1);
    assert.ok(apiDeploy.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]);
    assert.match(await ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api unchanged$/m);
    writeFileSync(join(tmp, "api.yaml"), WEB_API_YAML("api:2"));
    assert.match(await ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api configured$/m);
    apiDeploy = await api.get(deployPath("default", "api"));
    assert.equal(apiDeploy.metadata.generation, 2);
    assert.deepEqual(apiDeploy.spec.template.spec.containers.map((c) => [c.name, c.image]), [
      ["api", "api:2"],
      ["sidecar", "envoy:1.30"],
    ]);
    assert.deepEqual(apiDeploy.spec.template.spec.containers[0].ports, [{ containerPort: 8080, protocol: "TCP" }]);
    // apply switching to Recreate: kubectl's `$retainKeys` drops the defaulted rollingUpdate.
    writeFileSync(join(tmp, "api.yaml"), WEB_API_YAML("api:2").replace("spec:\n  replicas: 2\n", "spec:\n  replicas: 2\n  strategy:\n    type: Recreate\n"));
    assert.match(await ok("apply", "-f", join(tmp, "api.yaml")), /^deployment.apps\/api configured$/m);
    apiDeploy = await api.get(deployPath("default", "api"));
    assert.deepEqual(apiDeploy.spec.strategy, { type: "Recreate" });
    assert.equal(apiDeploy.metadata.generation, 3);

    // get deploy (server-side printing; the status is the controller's, absent here).
    const table = await ok("get", "deploy");
    assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    assert.match(table, /^web\s+0\/3\s+0\s+0\s+\S+$/m);
    assert.match(table, /^api\s+0\/2\s+0\s+0\s+\S+$/m);
    assert.match(await ok("get", "deploy", "web", "-o", "wide"), /^web\s+0\/3\s+0\s+0\s+\S+\s+nginx\s+nginx:1.25\s+app=web$/m);
    assert.match(await ok("get", "all"), /deployment.apps\/web/);

    // set image: the container by name; a template change bumps the generation.
    assert.match(await ok("set", "image", "deploy/web", "nginx=nginx:1.26"), /^deployment.apps\/web image updated$/m);
    let d = await web();
    assert.equal(d.spec.template.spec.containers[0].image, "nginx:1.26");
    assert.equal(d.metadata.generation, 2);
    const templateV2 = structuredClone(d.spec.template);
    const miss = await k("set", "image", "deploy/web", "web=nginx:1.26");
    assert.notEqual(miss.status, 0, "no container named web");

    // scale: through the scale subresource.
    assert.match(await ok("scale", "deploy", "web", "--replicas=5"), /^deployment.apps\/web scaled$/m);
    d = await web();
    assert.equal(d.spec.replicas, 5);
    assert.equal(d.metadata.generation, 3);
    assert.equal((await ok("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")).trim(), "5");

    // rollout pause / resume.
    assert.match(await ok("rollout", "pause", "deploy/web"), /^deployment.apps\/web paused$/m);
    d = await web();
    assert.equal(d.spec.paused, true);
    assert.equal(d.metadata.generation, 4);
    assert.match(await ok("rollout", "resume", "deploy/web"), /^deployment.apps\/web resumed$/m);
    d = await web();
    assert.ok(d.spec.paused === undefined || d.spec.paused === false);
    assert.equal(d.metadata.generation, 5);

    // rollout restart: a template annotation.
    assert.match(await ok("rollout", "restart", "deploy/web"), /^deployment.apps\/web restarted$/m);
    d = await web();
    assert.match(d.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"], /^\d{4}-\d\d-\d\dT/);
    assert.equal(d.metadata.generation, 6);
    assert.equal(d.spec.template.spec.containers[0].image, "nginx:1.26");

    // The ReplicaSets a controller would have made: revision 1 (nginx:1.25), 2 (nginx:1.26),
    // 3 (the restarted template), owned by the Deployment, and one foreign ReplicaSet with the
    // same labels (not ours: history ignores it).
    const owner = { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: d.metadata.uid, controller: true, blockOwnerDeletion: true };
    const rs = (name, revision, template, refs, changeCause) => {
      const tpl = structuredClone(template);
      tpl.metadata.labels = { ...tpl.metadata.labels, "pod-template-hash": name.split("-").pop() };
      return {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name,
          labels: tpl.metadata.labels,
          annotations: { "deployment.kubernetes.io/revision": String(revision), "deployment.kubernetes.io/desired-replicas": "5", "deployment.kubernetes.io/max-replicas": "7", ...(changeCause ? { "kubernetes.io/change-cause": changeCause } : {}) },
          ownerReferences: refs,
        },
        spec: { replicas: 0, selector: { matchLabels: tpl.metadata.labels }, template: tpl },
      };
    };
    await api.post(rsPath("default"), rs("web-aaaa1", 1, created.spec.template, [owner], "kubectl create deployment web --image=nginx:1.25"));
    await api.post(rsPath("default"), rs("web-bbbb2", 2, templateV2, [owner]));
    await api.post(rsPath("default"), rs("web-cccc3", 3, d.spec.template, [owner]));
    await api.post(rsPath("default"), rs("web-dddd9", 9, created.spec.template, []));
    await api.patch(deployPath("default", "web"), { metadata: { annotations: { "deployment.kubernetes.io/revision": "3" } } });

    // rollout history: the revisions of the ReplicaSets the Deployment controls.
    const history = await ok("rollout", "history", "deploy/web");
    assert.match(history, /^deployment.apps\/web\s*$/m);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    const rows = history.split("\n").filter((l) => /^\d+\s/.test(l)).map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows, [
      ["1", "kubectl create deployment web --image=nginx:1.25"],
      ["2", "<none>"],
      ["3", "<none>"],
    ]);
    const rev1 = await ok("rollout", "history", "deploy/web", "--revision=1");
    assert.match(rev1, /Image:\s+nginx:1.25/);
    assert.match(rev1, /pod-template-hash=aaaa1/);

    // A paused Deployment is not rolled back.
    await ok("rollout", "pause", "deploy/web");
    const undoPaused = await k("rollout", "undo", "deploy/web", "--to-revision=1");
    assert.notEqual(undoPaused.status, 0);
    assert.match(undoPaused.stderr, /cannot rollback a paused deployment/);
    await ok("rollout", "resume", "deploy/web");

    // rollout undo --to-revision=1: kubectl patches revision 1's template (without its hash label) into the Deployment.
    const before = await web();
    assert.match(await ok("rollout", "undo", "deploy/web", "--to-revision=1"), /^deployment.apps\/web rolled back$/m);
    d = await web();
    assert.deepEqual(d.spec.template, created.spec.template, "the template is revision 1's, without pod-template-hash or restartedAt");
    assert.equal(d.metadata.generation, before.metadata.generation + 1);
    assert.equal(d.spec.replicas, 5, "undo keeps the scale");
    assert.deepEqual(d.metadata.annotations, { "deployment.kubernetes.io/revision": "3", "kubernetes.io/change-cause": "kubectl create deployment web --image=nginx:1.25" });
    assert.match(await ok("rollout", "undo", "deploy/web", "--to-revision=1"), /skipped rollback \(current template already matches revision 1\)/);
    const missing = await k("rollout", "undo", "deploy/web", "--to-revision=7");
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /unable to find specified revision 7 in history/);

    // The fields `kubectl rollout status` reads exist (their values are the controller's).
    assert.equal(typeof d.metadata.generation, "number");
    assert.equal(typeof d.spec.replicas, "number");
    assert.equal(typeof d.spec.progressDeadlineSeconds, "number");
    assert.deepEqual(d.status, {});
    // Once a controller reports the rollout done, rollout status (list + watch by name) says so.
    await api.patch(deployPath("default", "web", "status"), {
      status: {
        observedGeneration: d.metadata.generation,
        replicas: 5,
        updatedReplicas: 5,
        readyReplicas: 5,
        availableReplicas: 5,
        conditions: [
          { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
          { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" },
        ],
      },
    });
    assert.match(await ok("rollout", "status", "deploy/web", "--timeout=30s"), /deployment "web" successfully rolled out/);
    assert.match(await ok("get", "deploy", "web"), /^web\s+5\/5\s+5\s+5\s+\S+$/m);

    // delete: the ReplicaSets it owns are garbage-collected, the foreign one stays.
    assert.match(await ok("delete", "deploy", "web"), /^deployment.apps "web" deleted$/m);
    const left = (await api.get(rsPath("default"))).items.map((o) => o.metadata.name);
    assert.deepEqual(left, ["web-dddd9"]);
    server.kill("SIGTERM");
  });
}
