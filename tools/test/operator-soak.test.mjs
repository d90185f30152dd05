// Chaos soak: two operator processes (leader election on one Lease) against the dev server
// with its kubelet, N ReplicaSets and M Deployments scaled at random and the Deployments'
// templates changed at random (a new image: a rollout; an earlier image: a rollback onto
// an old ReplicaSet), all from a seeded PRNG, while the server injects 5xx, 409, 429 with
// Retry-After, latency, dropped and cleanly closed watches, 410 Gone (an expired history
// and ERROR events), the leader is SIGKILLed mid slow start and mid rollout and the
// Lease is taken over or deleted. A supervisor in this test restarts every replica that
// ends, as a kubelet restarts a container. Invariants are checked on every event of the
// server's store (this process runs the server), then everything must converge once the
// faults stop.
//
// Size (defaults fit `npm --workspace node test`: about 70 s on two busy cores):
//   SOAK_SEED=n              the PRNG's seed (printed; a failure is replayed with it)
//   SOAK_OWNERS=50           ReplicaSets
//   SOAK_DEPLOYMENTS=10      Deployments (RollingUpdate with integer maxSurge/maxUnavailable
//                            0..3, every fifth one Recreate)
//   SOAK_MAX_PODS=20         each scaled to 0..SOAK_MAX_PODS
//   SOAK_CHAOS_SECONDS=60    how long scaling and faults go on
//   SOAK_CONVERGE_SECONDS=60 the bound on convergence once they stop
// e.g. SOAK_MAX_PODS=100 SOAK_CHAOS_SECONDS=300 SOAK_CONVERGE_SECONDS=120 node --test test/operator-soak.test.mjs
// (a Deployment of 100 pods with maxSurge 1 and maxUnavailable 0 rolls one pod at a time)
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deployment, devServer, FAST_LEASE, killAll, operator, replicaSet, rsPath, sleep } from "./operator-helpers.mjs";
import { prng } from "./helpers.mjs";

const num = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: expected a whole number, got ${v}`);
  return n;
};
const SEED = num("SOAK_SEED", 20261124);
const OWNERS = num("SOAK_OWNERS", 50);
const DEPLOYMENTS = num("SOAK_DEPLOYMENTS", 10);
const MAX_PODS = num("SOAK_MAX_PODS", 20);
const CHAOS_MS = num("SOAK_CHAOS_SECONDS", 60) * 1000;
const CONVERGE_MS = num("SOAK_CONVERGE_SECONDS", 60) * 1000;
/**
 * Deleting the Lease lets a standby create it and lead while the leader has not yet read
 * it (up to one retry period): two writers for that moment, as with client-go (which
 * goes on until its renew deadline). Off by default; SOAK_LEASE_DELETES=1 adds it.
 */
const LEASE_DELETES = num("SOAK_LEASE_DELETES", 0) === 1;
const NS = "soak";
const LEASE = ["soak-system", "replicore-operator"];

const deployPath = (ns, name = "") => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ""}`;

/** The images a Deployment's template switches between (a repeat rolls back onto an old ReplicaSet). */
const IMAGES = Array.from({ length: 6 }, (_, i) => `nginx:1.${20 + i}`);

/**
 * The owners the soak drives, by kind: the scaling and the faults apply to both; the
 * per-ReplicaSet invariants hold for every ReplicaSet (a Deployment's included), the
 * per-Deployment ones for the Deployments.
 */
const WORKLOADS = {
  ReplicaSet: { storeKey: "apps/replicasets", path: (name = "") => rsPath(NS, name), manifest: (name, n) => replicaSet(name, n) },
  Deployment: { storeKey: "apps/deployments", path: (name = "") => deployPath(NS, name), manifest: deployment },
};

const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

/**
 * How stale the Deployment controller's ReplicaSet cache may be under the soak's faults:
 * a dropped watch is restarted after a backoff of up to 5 s (the informer's maximum),
 * then relisted, under up to 50 ms of injected latency per request.
 */
const CACHE_LAG_MS = 10000;

const controllerRef = (o) => (o?.metadata?.ownerReferences ?? []).find((r) => r.controller);
const controllerUid = (o) => controllerRef(o)?.uid;

/**
 * The surge a Deployment's spec allows: its integer maxSurge for RollingUpdate, 0 for
 * Recreate (upstream's MaxSurge is 0 for any other strategy). The soak writes integers
 * only; a percent would need upstream's rounding (ceil of replicas × percent), which this
 * test does not re-derive: it is reported as a violation of the soak's own set-up.
 */
function surgeOf(spec) {
  if (spec?.strategy?.type !== "RollingUpdate") return 0;
  const s = spec.strategy.rollingUpdate?.maxSurge;
  return Number.isInteger(s) ? s : NaN;
}

/**
 * Watches the server's store (synchronously, every event in resourceVersion order) and
 * checks, per ReplicaSet (a Deployment's ReplicaSets included):
 * - overshoot: its pods never outnumber the largest spec.replicas of any generation at or
 *   after the last observedGeneration written (a sync acts on a generation it has seen,
 *   and every later sync sees a newer one);
 * - observedGeneration never goes backwards;
 * - every status.replicas written is a pod count the owner really had, at or after the
 *   moment of the count the previous status reported (no status from a stale read after a
 *   newer write): the counts form a history; each status must match an entry at or after
 *   the previous match.
 * and per Deployment, with bound(D) = the largest spec.replicas + maxSurge of any of its
 * generations at or after its last observedGeneration written (maxSurge as resolved by
 * surgeOf):
 * - surge: whenever a ReplicaSet of D is created or its spec.replicas raised, the sum of
 *   spec.replicas over D's ReplicaSets, each other one counted at the lowest spec.replicas
 *   it had within the last CACHE_LAG_MS, is at most bound(D). This is upstream's rule: a
 *   rolling update scales the new ReplicaSet up only while the sum of its ReplicaSets'
 *   spec.replicas stays within replicas + maxSurge (NewRSNewReplicas), proportional
 *   scaling sizes that sum to replicas + maxSurge, Recreate scales up only once the old
 *   ones are at 0; a sync acts on a generation it read, at or after the last one observed
 *   (as for ReplicaSets). Upstream computes that sum from its informer's cache and takes
 *   no expectations: a sync that reads a ReplicaSet before its last raise reached the
 *   cache (a watch dropped, a relist under latency) sizes another one from the lower
 *   value, as kube-controller-manager's does, hence the allowance. How often it was used,
 *   and by how much, is counted (surgeOverFromCacheLag, surgeOverMax);
 * - pods: whenever a pod of D's is added, D's pods (across its ReplicaSets) are at most
 *   bound(D) + that cache-lag allowance + the ReplicaSet controller's slack: the sum over
 *   D's ReplicaSets of what each may hold above its spec.replicas now (the per-ReplicaSet
 *   bound above, or the pods a scale-down has not yet deleted). The Deployment controller
 *   sizes ReplicaSets, not pods (upstream alike). How often and by how much the pods went
 *   past bound(D) itself within that slack is counted (podsOverBound, podsOverBoundMax);
 * - observedGeneration never goes backwards.
 */
class Observer {
  constructor() {
    this.owners = new Map(); // ReplicaSet uid -> state
    this.deployments = new Map(); // Deployment uid -> state
    this.violations = [];
    this.events = 0;
    this.podEvents = 0;
    this.statusWrites = 0;
    this.deploymentStatusWrites = 0;
    this.surgeChecks = 0;
    this.surgeOverFromCacheLag = 0;
    this.surgeOverMax = 0;
    this.podsOverBound = 0;
    this.podsOverBoundMax = 0;
    this.maxReplicaSets = 0;
    this.pods = 0;
    this.podsMax = 0;
  }

  owner(uid) {
    let s = this.owners.get(uid);
    if (!s) {
      s = { name: "?", count: 0, history: [0], floor: 0, obsGen: 0, specByGen: new Map(), generation: 0, spec: 0, specLog: [], maxCount: 0, deployment: undefined };
      this.owners.set(uid, s);
    }
    return s;
  }

  deployment(uid) {
    let d = this.deployments.get(uid);
    if (!d) {
      d = { name: "?", obsGen: 0, boundByGen: new Map(), sets: new Set(), maxPods: 0, maxSets: 0 };
      this.deployments.set(uid, d);
    }
    return d;
  }

  violation(what) {
    if (this.violations.length < 50) this.violations.push(`${what} [${this.context()}]`);
  }

  /** What the chaos did last (set by the test), for a violation's message. */
  context() {
    return "";
  }

  allowed(s) {
    let m = 0;
    for (const [g, r] of s.specByGen) if (g >= s.obsGen && r > m) m = r;
    return m;
  }

  /** bound(D): the largest replicas + maxSurge of a generation at or after observedGeneration. */
  bound(d) {
    let m = 0;
    for (const [g, b] of d.boundByGen) if (g >= d.obsGen && b > m) m = b;
    return m;
  }

  sets(d) {
    return [...d.sets].map((uid) => this.owners.get(uid)).filter((s) => s !== undefined);
  }

  /** The lowest spec.replicas `s` had within the last CACHE_LAG_MS (its spec now included). */
  lowestRecent(s, now) {
    let m = s.spec;
    // The entries within the window, and the one in effect when it began.
    s.specLog.forEach(({ at, spec }, i) => {
      const next = s.specLog[i + 1];
      if ((at >= now - CACHE_LAG_MS || next === undefined || next.at >= now - CACHE_LAG_MS) && spec < m) m = spec;
    });
    return m;
  }

  /**
   * The surge bound: D's ReplicaSets' spec.replicas sum, each but `raised` at its lowest
   * within the cache lag, at most bound(D). Returns that allowance (the sum's part a
   * stale cache may not have seen).
   */
  lagAllowance(d, raised, now) {
    return this.sets(d).reduce((n, s) => n + (s === raised ? 0 : s.spec - this.lowestRecent(s, now)), 0);
  }

  /** Checks the surge bound on D's ReplicaSets' spec.replicas (on a raise of `raised`). */
  checkSpecSum(d, raised, rv) {
    this.surgeChecks++;
    const sets = this.sets(d);
    const sum = sets.reduce((n, s) => n + s.spec, 0);
    const bound = this.bound(d);
    if (sum <= bound) return;
    const now = performance.now();
    const lag = this.lagAllowance(d, raised, now);
    if (sum - lag <= bound) {
      this.surgeOverFromCacheLag++;
      this.surgeOverMax = Math.max(this.surgeOverMax, sum - bound);
      return;
    }
    this.violation(`deployment ${d.name}: its ReplicaSets' spec.replicas sum to ${sum} (rv ${rv}, ${raised.name} raised: ${sets.map((s) => `${s.name}=${s.spec} (lowest within ${CACHE_LAG_MS} ms: ${this.lowestRecent(s, now)})`).join(" ")}), more than ${bound}, the most replicas + maxSurge of any generation since observedGeneration ${d.obsGen} (${JSON.stringify([...d.boundByGen])}), + ${lag} of the cache lag`);
  }

  /** Checks D's pods against bound(D) plus the cache lag and the ReplicaSet controller's slack. */
  checkPods(d, rv) {
    const sets = this.sets(d);
    const pods = sets.reduce((n, s) => n + s.count, 0);
    d.maxPods = Math.max(d.maxPods, pods);
    const bound = this.bound(d);
    if (pods <= bound) return;
    const slack = sets.reduce((n, s) => n + Math.max(0, Math.max(this.allowed(s), s.count) - s.spec), 0);
    const lag = this.lagAllowance(d, undefined, performance.now());
    if (pods <= bound + lag + slack) {
      this.podsOverBound++;
      this.podsOverBoundMax = Math.max(this.podsOverBoundMax, pods - bound);
      return;
    }
    this.violation(`deployment ${d.name}: ${pods} pods (rv ${rv}), more than ${bound} (the most replicas + maxSurge since observedGeneration ${d.obsGen}) + ${lag} (cache lag) + ${slack} (its ReplicaSets' slack: ${sets.map((s) => `${s.name} spec ${s.spec} allowed ${this.allowed(s)} pods ${s.count}`).join("; ")})`);
  }

  onDeployment(e) {
    this.events++;
    const o = e.object;
    const uid = o.metadata.uid;
    const d = this.deployment(uid);
    d.name = o.metadata.name;
    if (e.type === "DELETED") {
      this.deployments.delete(uid);
      return;
    }
    const gen = o.metadata.generation ?? 0;
    const surge = surgeOf(o.spec);
    if (Number.isNaN(surge)) this.violation(`deployment ${d.name}: the soak writes integer maxSurge only, not ${JSON.stringify(o.spec?.strategy)}`);
    d.boundByGen.set(gen, (o.spec?.replicas ?? 1) + surge);
    const st = o.status ?? {};
    const old = e.old?.status ?? {};
    if (e.type !== "MODIFIED" || JSON.stringify(st) === JSON.stringify(old)) return;
    this.deploymentStatusWrites++;
    const og = st.observedGeneration ?? 0;
    if (og < d.obsGen) this.violation(`deployment ${d.name}: observedGeneration went back from ${d.obsGen} to ${og} (rv ${o.metadata.resourceVersion})`);
    if (og > d.obsGen) {
      d.obsGen = og;
      for (const g of [...d.boundByGen.keys()]) if (g < og) d.boundByGen.delete(g);
    }
  }

  onOwner(e) {
    this.events++;
    const o = e.object;
    const uid = o.metadata.uid;
    const s = this.owner(uid);
    s.name = o.metadata.name;
    // The Deployment controlling this ReplicaSet, if any.
    const ref = controllerRef(o);
    const dep = e.type !== "DELETED" && ref?.kind === "Deployment" ? ref.uid : undefined;
    if (s.deployment !== dep) {
      if (s.deployment !== undefined) this.deployments.get(s.deployment)?.sets.delete(uid);
      if (dep !== undefined) {
        const d = this.deployment(dep);
        d.sets.add(uid);
        d.maxSets = Math.max(d.maxSets, d.sets.size);
      }
      s.deployment = dep;
    }
    if (e.type === "DELETED") {
      this.owners.delete(uid);
      return;
    }
    this.maxReplicaSets = Math.max(this.maxReplicaSets, this.owners.size);
    const gen = o.metadata.generation ?? 0;
    const before = e.type === "ADDED" ? 0 : s.spec;
    s.generation = gen;
    s.spec = o.spec?.replicas ?? 1;
    s.specByGen.set(gen, s.spec);
    if (e.type === "ADDED" || s.spec !== before) {
      const now = performance.now();
      s.specLog.push({ at: now, spec: s.spec });
      while (s.specLog.length > 1 && s.specLog[1].at < now - CACHE_LAG_MS) s.specLog.shift();
    }
    if (dep !== undefined && s.spec > before) this.checkSpecSum(this.deployment(dep), s, o.metadata.resourceVersion);
    const st = o.status ?? {};
    const old = e.old?.status ?? {};
    if (e.type !== "MODIFIED" || JSON.stringify(st) === JSON.stringify(old)) return;
    this.statusWrites++;
    const og = st.observedGeneration ?? 0;
    if (og < s.obsGen) this.violation(`${s.name}: observedGeneration went back from ${s.obsGen} to ${og} (rv ${o.metadata.resourceVersion})`);
    if (og > s.obsGen) {
      s.obsGen = og;
      for (const g of [...s.specByGen.keys()]) if (g < og) s.specByGen.delete(g);
    }
    const r = st.replicas ?? 0;
    const i = s.history.indexOf(r, s.floor);
    if (i < 0) {
      this.violation(`${s.name}: status.replicas ${r} (rv ${o.metadata.resourceVersion}) is no pod count it had since the count of its previous status (history from there: ${s.history.slice(s.floor).join(",")})`);
    } else {
      // Keep the history from the match on.
      s.history.splice(0, i);
      s.floor = 0;
    }
  }

  onPod(e) {
    this.events++;
    this.podEvents++;
    const now = controllerUid(e.object);
    const before = e.type === "MODIFIED" ? controllerUid(e.old) : undefined;
    const rv = e.object.metadata.resourceVersion;
    const change = (uid, d) => {
      if (uid === undefined) return;
      const s = this.owner(uid);
      s.count += d;
      s.history.push(s.count);
      if (s.history.length > 100000) s.history.splice(0, 50000);
      if (d > 0) {
        s.maxCount = Math.max(s.maxCount, s.count);
        const allowed = this.allowed(s);
        if (s.count > allowed) {
          this.violation(`${s.name}: ${s.count} pods (rv ${rv}), more than ${allowed}, the most any spec since observedGeneration ${s.obsGen} asked for (${JSON.stringify([...s.specByGen])})`);
        }
        if (s.deployment !== undefined) this.checkPods(this.deployment(s.deployment), rv);
      }
    };
    if (e.type === "ADDED") this.podsMax = Math.max(this.podsMax, ++this.pods);
    else if (e.type === "DELETED") this.pods--;
    if (e.type === "ADDED") change(now, 1);
    else if (e.type === "DELETED") change(now, -1);
    else if (now !== before) {
      change(before, -1);
      change(now, 1);
    }
  }
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

test(`chaos soak: ${OWNERS} ReplicaSets and ${DEPLOYMENTS} Deployments x 0..${MAX_PODS} pods, two replicas, faults for ${CHAOS_MS / 1000} s, converged within ${CONVERGE_MS / 1000} s (seed ${SEED})`, async (t) => {
  const rand = prng(SEED);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  t.diagnostic(`seed ${SEED} (SOAK_SEED=${SEED} replays the same choices)`);

  const dev = await devServer({ kubelet: { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 20, nodes: 8 } });
  servers.push(dev);
  const { api, server } = dev;
  const kind = WORKLOADS.ReplicaSet;
  const dkind = WORKLOADS.Deployment;
  const obs = new Observer();
  server.store.watchers.add({ resource: "/pods", send: (e) => obs.onPod(e), close: () => {} });
  server.store.watchers.add({ resource: kind.storeKey, send: (e) => obs.onOwner(e), close: () => {} });
  server.store.watchers.add({ resource: dkind.storeKey, send: (e) => obs.onDeployment(e), close: () => {} });

  const names = Array.from({ length: OWNERS }, (_, i) => `rs-${String(i).padStart(3, "0")}`);
  for (const n of names) await api.post(kind.path(), kind.manifest(n, int(0, MAX_PODS)));
  // Every fifth Deployment Recreate; the others RollingUpdate with integer maxSurge and
  // maxUnavailable of 0..3, not both 0 (the API refuses that).
  const dnames = Array.from({ length: DEPLOYMENTS }, (_, i) => `dep-${String(i).padStart(3, "0")}`);
  const strategies = {};
  for (const [i, n] of dnames.entries()) {
    let strategy = { type: "Recreate" };
    if (i % 5 !== 4) {
      const maxSurge = int(0, 3);
      strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable: maxSurge === 0 ? int(1, 3) : int(0, 3) } };
    }
    strategies[n] = strategy;
    await api.post(dkind.path(), dkind.manifest(n, int(0, MAX_PODS), { image: pick(IMAGES), strategy }));
  }

  // -- the replicas and their supervisor --------------------------------------------------
  let generation = 0;
  const live = new Map(); // slot -> op
  const stats = { kills: 0, rolloutKills: 0, takeovers: 0, leaseDeletes: 0, restarts: 0, drops: 0, closes: 0, compactions: 0, errorEvents: 0, rules: 0, latencyChanges: 0, scales: 0, deploymentScales: 0, templateChanges: 0, rssMaxMiB: 0 };
  const start = (slot) => {
    const identity = `op-${slot}-${++generation}`;
    const op = operator(dev.url, ["--identity", identity, "--workers", "5", "--lease-namespace", LEASE[0], "--lease-name", LEASE[1]], { lease: FAST_LEASE, name: identity });
    op.identity = identity;
    ops.push(op);
    live.set(slot, op);
    return op;
  };
  start("a");
  await live.get("a").waitLog("operator running", {}, 60000);
  start("b");
  let supervising = true;
  const supervisor = (async () => {
    while (supervising) {
      for (const [slot, op] of live) {
        if (op.child.exitCode !== null || op.child.signalCode !== null) {
          await sleep(300);
          stats.restarts++;
          start(slot);
        }
        stats.rssMaxMiB = Math.max(stats.rssMaxMiB, rssMiB(op.child.pid));
      }
      await sleep(200);
    }
  })();

  const leaseObject = () => server.store.get("coordination.k8s.io/leases", ...LEASE);
  const leader = () => {
    const holder = leaseObject()?.spec?.holderIdentity;
    return [...live.values()].find((o) => holder && o.child.exitCode === null && o.child.signalCode === null && holder === o.identity);
  };
  const scale = (name, n) => {
    stats.scales++;
    return api.patch(`${kind.path(name)}/scale`, { spec: { replicas: n } });
  };
  const scaleDeployment = (name, n) => {
    stats.deploymentScales++;
    return api.patch(`${dkind.path(name)}/scale`, { spec: { replicas: n } });
  };
  /** A template change: a new image (a rollout), or an earlier one (a rollback onto an old ReplicaSet). */
  const setImage = (name, image) => {
    stats.templateChanges++;
    return api.patch(dkind.path(name), { spec: { template: { spec: { containers: [{ name: "main", image }] } } } });
  };
  const imageOf = (o) => o?.spec?.template?.spec?.containers?.[0]?.image;
  const deploymentObject = (name) => server.store.get(dkind.storeKey, NS, name);
  const otherImage = (name) => pick(IMAGES.filter((i) => i !== imageOf(deploymentObject(name))));

  // -- chaos --------------------------------------------------------------------------------
  const t0 = performance.now();
  const events0 = obs.events;
  const syncsSoFar = () => ops.reduce((n, o) => n + o.syncs().length, 0);
  const deploymentSyncsSoFar = () => ops.reduce((n, o) => n + o.find("deployment synced").length, 0);
  const syncs0 = syncsSoFar();
  const deploymentSyncs0 = deploymentSyncsSoFar();
  let chaos = true;
  // One owner at a time, the Deployments in proportion to their number; a Deployment is
  // scaled, given another image, or both (a rollout scaled midway).
  const all = [...names, ...dnames];
  const scaler = (async () => {
    while (chaos) {
      const name = pick(all);
      if (!name.startsWith("dep-")) await scale(name, int(0, MAX_PODS));
      else {
        const what = int(0, 2);
        if (what !== 1) await setImage(name, otherImage(name));
        if (what !== 0) await scaleDeployment(name, int(0, MAX_PODS));
      }
      await sleep(int(100, 400));
    }
  })();
  const faults = [
    ["5xx on pod creates", () => server.faults.add({ verb: "create", resource: "pods", status: pick([500, 503]), times: int(1, 20) })],
    ["5xx on pod deletes", () => server.faults.add({ verb: "delete", resource: "pods", status: 500, times: int(1, 10) })],
    ["409 on status writes", () => server.faults.add({ verb: "update", resource: pick(["replicasets", "deployments"]), subresource: "status", status: 409, times: int(1, 10) })],
    ["5xx on ReplicaSet creates and updates", () => server.faults.add({ verb: pick(["create", "update"]), resource: "replicasets", status: pick([500, 503]), times: int(1, 5) })],
    ["409 on ReplicaSet updates", () => server.faults.add({ verb: "update", resource: "replicasets", status: 409, times: int(1, 5) })],
    ["429 Retry-After on pod creates", () => server.faults.add({ verb: "create", resource: "pods", status: 429, retryAfterSeconds: int(1, 2), times: int(1, 20) })],
    ["429 on the pod list", () => server.faults.add({ verb: "list", resource: "pods", status: 429, retryAfterSeconds: 1, times: 1 })],
    ["5xx on lease reads", () => server.faults.add({ verb: "get", resource: "leases", status: 503, times: int(1, 3) })],
    [
      "latency",
      () => {
        stats.latencyChanges++;
        server.faults.set({ latencyMs: pick([0, 0, 5, 20, 50]) });
      },
    ],
    [
      "watches reset",
      () => {
        stats.drops++;
        server.dropWatches("reset");
      },
    ],
    [
      "watches closed",
      () => {
        stats.closes++;
        server.dropWatches("close");
      },
    ],
    [
      "history expired (410 Gone on resume)",
      () => {
        stats.compactions++;
        server.store.compact();
        server.dropWatches("close");
      },
    ],
    [
      "410 ERROR event on the next watch",
      () => {
        stats.errorEvents++;
        server.faults.add({ verb: "watch", resource: pick(["pods", "replicasets", "deployments"]), status: 410, asWatchEvent: true, times: 1 });
        server.dropWatches("close");
      },
    ],
    [
      "SIGKILL of the leader mid slow start",
      async () => {
        // Right after a takeover no replica may lead yet: wait for one.
        const until = performance.now() + 15000;
        while (!leader() && performance.now() < until) await sleep(100);
        const l = leader();
        if (!l) return;
        const name = pick(names);
        const uid = server.store.get(kind.storeKey, NS, name)?.metadata?.uid;
        const s = obs.owner(uid);
        const from = s.count;
        server.faults.set({ latencyMs: 30 });
        await scale(name, Math.max(MAX_PODS, from + 8));
        const started = performance.now() + 5000;
        while (obs.owner(uid).count < from + 3 && performance.now() < started) await sleep(5);
        stats.kills++;
        l.kill("SIGKILL");
      },
    ],
    [
      "SIGKILL of the leader mid rollout",
      async () => {
        if (dnames.length === 0) return;
        const until = performance.now() + 15000;
        while (!leader() && performance.now() < until) await sleep(100);
        const l = leader();
        if (!l) return;
        // A rolling Deployment with pods to roll: at least a few replicas, a new image.
        const rolling = dnames.filter((n) => strategies[n].type === "RollingUpdate");
        const name = pick(rolling.length > 0 ? rolling : dnames);
        const d = deploymentObject(name);
        const uid = d.metadata.uid;
        const podsOf = () => obs.sets(obs.deployment(uid)).reduce((n, s) => n + s.count, 0);
        if ((d.spec.replicas ?? 0) < 4) {
          // Enough pods on the current ReplicaSet first, so that there is something to roll.
          const want = int(Math.max(4, MAX_PODS >> 1), Math.max(4, MAX_PODS));
          await scaleDeployment(name, want);
          const until = performance.now() + 10000;
          while (podsOf() < want && performance.now() < until) await sleep(20);
        }
        server.faults.set({ latencyMs: 30 });
        const image = otherImage(name);
        await setImage(name, image);
        // Kill once the new ReplicaSet has pods and the old ones still have some.
        const mid = () => {
          const sets = obs.sets(obs.deployment(uid));
          const isNew = (s) => imageOf(server.store.get(kind.storeKey, NS, s.name)) === image;
          return sets.some((s) => isNew(s) && s.count > 0) && sets.some((s) => !isNew(s) && s.count > 0);
        };
        // (A leader that has only just taken over may not sync for a few seconds.)
        const started = performance.now() + 15000;
        while (!mid() && performance.now() < started) await sleep(5);
        stats.kills++;
        if (mid()) stats.rolloutKills++;
        else t.diagnostic(`SIGKILL of the leader mid rollout: ${name} was not mid rollout after 15 s`);
        l.kill("SIGKILL");
      },
    ],
    [
      "Lease taken over by another holder",
      async () => {
        const lease = leaseObject();
        if (!lease) return;
        stats.takeovers++;
        const now = new Date().toISOString().replace(/Z$/, "000Z");
        await api.put(`/apis/coordination.k8s.io/v1/namespaces/${LEASE[0]}/leases/${LEASE[1]}`, {
          ...lease,
          spec: { ...lease.spec, holderIdentity: "intruder", renewTime: now, acquireTime: now, leaseDurationSeconds: 3 },
        });
      },
    ],
    [
      "Lease deleted",
      async () => {
        if (!LEASE_DELETES) return;
        if (!leaseObject()) return;
        stats.leaseDeletes++;
        await api.del(`/apis/coordination.k8s.io/v1/namespaces/${LEASE[0]}/leases/${LEASE[1]}`);
      },
    ],
  ];
  const injected = {};
  let lastFault = { what: "none", at: t0 };
  const timeline = [];
  obs.context = () => `holder ${leaseObject()?.spec?.holderIdentity}; last fault "${lastFault.what}" ${Math.round(performance.now() - lastFault.at)} ms before`;
  // Every fault once (in a seeded order), then seeded picks.
  const firsts = faults.map((f) => [rand(), f]).sort((x, y) => x[0] - y[0]).map(([, f]) => f);
  let failedByRules = 0;
  while (performance.now() - t0 < CHAOS_MS) {
    const [what, act] = firsts.shift() ?? pick(faults);
    injected[what] = (injected[what] ?? 0) + 1;
    lastFault = { what, at: performance.now() };
    timeline.push({ at: new Date().toISOString(), what, holder: leaseObject()?.spec?.holderIdentity, rv: server.store.currentRv() });
    if (what.includes(" on ")) stats.rules++;
    try {
      await act();
    } catch (e) {
      // The test's own requests meet the latency and may meet a lease conflict: not a failure.
      t.diagnostic(`fault "${what}" could not be injected: ${e.message}`);
    }
    // Rules that have failed all their requests are dropped.
    const spent = server.faults.rules.filter((r) => r.times !== undefined && r.failed >= r.times);
    failedByRules += spent.reduce((n, r) => n + r.failed, 0);
    server.faults.rules = server.faults.rules.filter((r) => !spent.includes(r));
    await sleep(int(500, 2500));
  }
  chaos = false;
  await scaler;
  const chaosSeconds = (performance.now() - t0) / 1000;
  const chaosEvents = obs.events - events0;
  const chaosSyncs = syncsSoFar() - syncs0;
  const chaosDeploymentSyncs = deploymentSyncsSoFar() - deploymentSyncs0;
  failedByRules += server.faults.rules.reduce((n, r) => n + r.failed, 0);
  server.faults.clear();

  // -- convergence ------------------------------------------------------------------------
  // Each check answers why its owner has not converged ("" once it has).
  const rsBehind = (n) => {
    const o = server.store.get(kind.storeKey, NS, n);
    const s = obs.owners.get(o.metadata.uid);
    const st = o.status ?? {};
    const want = o.spec.replicas;
    const ok = s && s.count === want && (st.replicas ?? 0) === want && (st.readyReplicas ?? 0) === want && (st.availableReplicas ?? 0) === want && st.observedGeneration === o.metadata.generation;
    return ok ? "" : `${n}: spec ${want} gen ${o.metadata.generation} pods ${s?.count} status ${JSON.stringify(o.status)}`;
  };
  /**
   * A Deployment has converged when its status is complete for its generation (replicas,
   * updated, ready and available all spec.replicas, none unavailable, Progressing=True
   * NewReplicaSetAvailable) and its ReplicaSets agree: exactly one runs its template (the
   * new one) with spec.replicas pods, every other one is scaled to 0 with no pods.
   */
  const deploymentBehind = (n) => {
    const o = deploymentObject(n);
    const st = o.status ?? {};
    const want = o.spec.replicas;
    const progressing = (st.conditions ?? []).find((c) => c.type === "Progressing");
    const sets = server.store.list(kind.storeKey, NS).filter((rs) => controllerUid(rs) === o.metadata.uid);
    const isNew = (rs) => imageOf(rs) === imageOf(o);
    const fresh = sets.filter(isNew);
    const podsOf = (rs) => obs.owners.get(rs.metadata.uid)?.count ?? 0;
    const ok =
      st.observedGeneration === o.metadata.generation &&
      (st.replicas ?? 0) === want &&
      (st.updatedReplicas ?? 0) === want &&
      (st.readyReplicas ?? 0) === want &&
      (st.availableReplicas ?? 0) === want &&
      (st.unavailableReplicas ?? 0) === 0 &&
      progressing?.status === "True" &&
      progressing?.reason === "NewReplicaSetAvailable" &&
      fresh.length === 1 &&
      fresh[0].spec.replicas === want &&
      podsOf(fresh[0]) === want &&
      sets.every((rs) => isNew(rs) || (rs.spec.replicas === 0 && podsOf(rs) === 0));
    if (ok) return "";
    const rsList = sets.map((rs) => `${rs.metadata.name}${isNew(rs) ? " (new)" : ""} spec ${rs.spec.replicas} pods ${podsOf(rs)}`).join("; ");
    return `deployment ${n}: spec ${want} gen ${o.metadata.generation} status ${JSON.stringify(st)}; ReplicaSets: ${rsList}`;
  };
  const behind = () => [...names.map(rsBehind), ...dnames.map(deploymentBehind)].filter((w) => w !== "");
  const c0 = performance.now();
  const converged = () => behind().length === 0;
  // When each kind had converged (the last time it was found behind), for the summary.
  const lastBehind = { replicaSets: c0, deployments: c0 };
  const restarts0 = stats.restarts;
  const holder0 = leaseObject()?.spec?.holderIdentity;
  while (performance.now() - c0 < CONVERGE_MS) {
    const t = performance.now();
    const rsLate = names.some((n) => rsBehind(n) !== "");
    const depLate = dnames.some((n) => deploymentBehind(n) !== "");
    if (rsLate) lastBehind.replicaSets = t;
    if (depLate) lastBehind.deployments = t;
    if (!rsLate && !depLate) break;
    await sleep(100);
  }
  const convergeSeconds = (performance.now() - c0) / 1000;
  const leaderNow = leader();
  supervising = false;
  await supervisor;

  const pods = server.store.list("/pods").length;
  const wanted =
    names.reduce((n, name) => n + server.store.get(kind.storeKey, NS, name).spec.replicas, 0) + dnames.reduce((n, name) => n + deploymentObject(name).spec.replicas, 0);
  const summary = {
    seed: SEED,
    owners: OWNERS,
    deployments: DEPLOYMENTS,
    maxPodsPerOwner: MAX_PODS,
    chaosSeconds: Number(chaosSeconds.toFixed(1)),
    storeEventsPerSecond: Math.round(chaosEvents / chaosSeconds),
    syncsPerSecond: Math.round(chaosSyncs / chaosSeconds),
    deploymentSyncsPerSecond: Math.round(chaosDeploymentSyncs / chaosSeconds),
    podCreates: server.stats.podCreates,
    requestsFailedByRules: failedByRules,
    injected,
    ...stats,
    rssMaxMiB: Math.round(stats.rssMaxMiB),
    operatorProcesses: ops.length,
    statusWritesChecked: obs.statusWrites,
    deploymentStatusWritesChecked: obs.deploymentStatusWrites,
    surgeChecks: obs.surgeChecks,
    surgeOverFromCacheLag: obs.surgeOverFromCacheLag,
    surgeOverMax: obs.surgeOverMax,
    podsOverBound: obs.podsOverBound,
    podsOverBoundMax: obs.podsOverBoundMax,
    replicaSetsMax: obs.maxReplicaSets,
    replicaSetsAtEnd: server.store.list(kind.storeKey, NS).length,
    largestDeployment: Math.max(0, ...[...obs.deployments.values()].map((d) => d.maxPods)),
    mostReplicaSetsOfADeployment: Math.max(0, ...[...obs.deployments.values()].map((d) => d.maxSets)),
    convergedInSeconds: Number(convergeSeconds.toFixed(1)),
    replicaSetsConvergedInSeconds: Number(((lastBehind.replicaSets - c0) / 1000).toFixed(1)),
    deploymentsConvergedInSeconds: Number(((lastBehind.deployments - c0) / 1000).toFixed(1)),
    // A replica restarted, or the Lease changing hands, while converging explains a long wait.
    restartsWhileConverging: stats.restarts - restarts0,
    holderWhenFaultsStopped: holder0,
    holderAtEnd: leaseObject()?.spec?.holderIdentity,
    podsAtEnd: pods,
    podsWanted: wanted,
    podsMax: obs.podsMax,
    largestOwner: Math.max(...[...obs.owners.values()].map((s) => s.maxCount)),
  };
  t.diagnostic(JSON.stringify(summary));

  if (obs.violations.length > 0 || !converged()) {
    const dir = mkdtempSync(join(tmpdir(), `replicore-soak-${SEED}-`));
    for (const o of ops) writeFileSync(join(dir, `${o.identity}.log`), `${o.raw.join("\n")}\n${o.stderr}`);
    writeFileSync(join(dir, "timeline.json"), JSON.stringify(timeline, null, 1));
    t.diagnostic(`operator logs and the fault timeline in ${dir}`);
  }
  assert.deepEqual(obs.violations, [], "invariants held during the chaos");
  const late = behind()
    .slice(0, 5)
    .map((w) => {
      const name = w.replace(/^deployment /, "").split(":")[0];
      const k = `${NS}/${name}`;
      const last = w.startsWith("deployment ") ? (leaderNow?.find("deployment synced", { key: k }).slice(-2) ?? []) : (leaderNow?.syncs(k).slice(-2) ?? []);
      return `${w}; leader ${leaderNow?.identity}'s last syncs ${JSON.stringify(last)}`;
    });
  assert.ok(converged(), `everything converged to spec within ${CONVERGE_MS / 1000} s after the faults stopped (${pods} pods, ${wanted} wanted)\n${late.join("\n")}`);
  assert.equal(pods, wanted);
  assert.ok(leaderNow, "a live replica holds the Lease");
  for (const o of ops) assert.equal(o.find("unhandled rejection").length, 0, `${o.name}: ${o.find("unhandled rejection")[0]?.error}`);
  assert.ok(stats.kills > 0 && stats.takeovers > 0, "the leader was killed and the Lease taken over at least once");
  if (DEPLOYMENTS > 0) assert.ok(stats.templateChanges > 0 && obs.surgeChecks > 0, "Deployments were rolled out and their surge checked");
  assert.ok(stats.restarts > 0, "a replica ended and was restarted");
});
