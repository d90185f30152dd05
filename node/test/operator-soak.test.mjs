// Chaos soak: two operator processes (leader election on one Lease) against the dev server
// with its kubelet, N ReplicaSets scaled at random (a seeded PRNG) while the server injects
// 5xx, 409, 429 with Retry-After, latency, dropped and cleanly closed watches, 410 Gone
// (an expired history and ERROR events), the leader is SIGKILLed mid slow start and the
// Lease is taken over or deleted. A supervisor in this test restarts every replica that
// ends, as a kubelet restarts a container. Invariants are checked on every event of the
// server's store (this process runs the server), then everything must converge once the
// faults stop.
//
// Size (defaults fit `npm --workspace node test`: about 70 s on two busy cores):
//   SOAK_SEED=n              the PRNG's seed (printed; a failure is replayed with it)
//   SOAK_OWNERS=50           ReplicaSets
//   SOAK_MAX_PODS=20         each scaled to 0..SOAK_MAX_PODS
//   SOAK_CHAOS_SECONDS=60    how long scaling and faults go on
//   SOAK_CONVERGE_SECONDS=60 the bound on convergence once they stop
// e.g. SOAK_MAX_PODS=100 SOAK_CHAOS_SECONDS=300 node --test test/operator-soak.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devServer, FAST_LEASE, killAll, operator, replicaSet, rsPath, sleep } from "./operator-helpers.mjs";
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

/**
 * The owners the soak drives, by kind. The operator manages ReplicaSets only; when it
 * manages Deployments, add a `Deployment` entry here (its manifest and path, and the
 * store key of its objects): the scaling, the faults and the per-owner invariants below
 * (pods counted through the owner's ReplicaSets) apply to every kind listed.
 */
const WORKLOADS = {
  ReplicaSet: { storeKey: "apps/replicasets", path: (name = "") => rsPath(NS, name), manifest: (name, n) => replicaSet(name, n) },
};


const ops = [];
const servers = [];
after(async () => {
  await killAll(ops);
  await Promise.all(servers.map((s) => s.close()));
});

const controllerUid = (o) => (o?.metadata?.ownerReferences ?? []).find((r) => r.controller)?.uid;

/**
 * Watches the server's store (synchronously, every event in resourceVersion order) and
 * checks, per owner:
 * - overshoot: its pods never outnumber the largest spec.replicas of any generation at or
 *   after the last observedGeneration written (a sync acts on a generation it has seen,
 *   and every later sync sees a newer one);
 * - observedGeneration never goes backwards;
 * - every status.replicas written is a pod count the owner really had, at or after the
 *   moment of the count the previous status reported (no status from a stale read after a
 *   newer write): the counts form a history; each status must match an entry at or after
 *   the previous match.
 */
class Observer {
  constructor() {
    this.owners = new Map(); // uid -> state
    this.violations = [];
    this.events = 0;
    this.podEvents = 0;
    this.statusWrites = 0;
  }

  owner(uid) {
    let s = this.owners.get(uid);
    if (!s) {
      s = { name: "?", count: 0, history: [0], floor: 0, obsGen: 0, specByGen: new Map(), generation: 0, spec: 0, maxCount: 0 };
      this.owners.set(uid, s);
    }
    return s;
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

  onOwner(e) {
    this.events++;
    const o = e.object;
    const uid = o.metadata.uid;
    const s = this.owner(uid);
    s.name = o.metadata.name;
    if (e.type === "DELETED") {
      this.owners.delete(uid);
      return;
    }
    const gen = o.metadata.generation ?? 0;
    s.generation = gen;
    s.spec = o.spec?.replicas ?? 1;
    s.specByGen.set(gen, s.spec);
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
          this.violation(`${s.name}: ${s.count} pods (rv ${e.object.metadata.resourceVersion}), more than ${allowed}, the most any spec since observedGeneration ${s.obsGen} asked for (${JSON.stringify([...s.specByGen])})`);
        }
      }
    };
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

test(`chaos soak: ${OWNERS} ReplicaSets x 0..${MAX_PODS} pods, two replicas, faults for ${CHAOS_MS / 1000} s, converged within ${CONVERGE_MS / 1000} s (seed ${SEED})`, async (t) => {
  const rand = prng(SEED);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  t.diagnostic(`seed ${SEED} (SOAK_SEED=${SEED} replays the same choices)`);

  const dev = await devServer({ kubelet: { scheduleDelayMs: 5, runDelayMs: 5, readyDelayMs: 20, nodes: 8 } });
  servers.push(dev);
  const { api, server } = dev;
  const kind = WORKLOADS.ReplicaSet;
  const obs = new Observer();
  server.store.watchers.add({ resource: "/pods", send: (e) => obs.onPod(e), close: () => {} });
  server.store.watchers.add({ resource: kind.storeKey, send: (e) => obs.onOwner(e), close: () => {} });

  const names = Array.from({ length: OWNERS }, (_, i) => `rs-${String(i).padStart(3, "0")}`);
  for (const n of names) await api.post(kind.path(), kind.manifest(n, int(0, MAX_PODS)));

  // -- the replicas and their supervisor --------------------------------------------------
  let generation = 0;
  const live = new Map(); // slot -> op
  const stats = { kills: 0, takeovers: 0, leaseDeletes: 0, restarts: 0, drops: 0, closes: 0, compactions: 0, errorEvents: 0, rules: 0, latencyChanges: 0, scales: 0, rssMaxMiB: 0 };
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

  // -- chaos --------------------------------------------------------------------------------
  const t0 = performance.now();
  const events0 = obs.events;
  const syncsSoFar = () => ops.reduce((n, o) => n + o.syncs().length, 0);
  const syncs0 = syncsSoFar();
  let chaos = true;
  const scaler = (async () => {
    while (chaos) {
      await scale(pick(names), int(0, MAX_PODS));
      await sleep(int(100, 400));
    }
  })();
  const faults = [
    ["5xx on pod creates", () => server.faults.add({ verb: "create", resource: "pods", status: pick([500, 503]), times: int(1, 20) })],
    ["5xx on pod deletes", () => server.faults.add({ verb: "delete", resource: "pods", status: 500, times: int(1, 10) })],
    ["409 on status writes", () => server.faults.add({ verb: "update", resource: "replicasets", subresource: "status", status: 409, times: int(1, 10) })],
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
        server.faults.add({ verb: "watch", resource: pick(["pods", "replicasets"]), status: 410, asWatchEvent: true, times: 1 });
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
  failedByRules += server.faults.rules.reduce((n, r) => n + r.failed, 0);
  server.faults.clear();

  // -- convergence ------------------------------------------------------------------------
  const c0 = performance.now();
  const converged = () =>
    names.every((n) => {
      const o = server.store.get(kind.storeKey, NS, n);
      const s = obs.owners.get(o.metadata.uid);
      const st = o.status ?? {};
      const want = o.spec.replicas;
      return s && s.count === want && (st.replicas ?? 0) === want && (st.readyReplicas ?? 0) === want && (st.availableReplicas ?? 0) === want && st.observedGeneration === o.metadata.generation;
    });
  while (!converged() && performance.now() - c0 < CONVERGE_MS) await sleep(100);
  const convergeSeconds = (performance.now() - c0) / 1000;
  const leaderNow = leader();
  supervising = false;
  await supervisor;

  const pods = server.store.list("/pods").length;
  const wanted = names.reduce((n, name) => n + server.store.get(kind.storeKey, NS, name).spec.replicas, 0);
  const summary = {
    seed: SEED,
    owners: OWNERS,
    maxPodsPerOwner: MAX_PODS,
    chaosSeconds: Number(chaosSeconds.toFixed(1)),
    storeEventsPerSecond: Math.round(chaosEvents / chaosSeconds),
    syncsPerSecond: Math.round(chaosSyncs / chaosSeconds),
    podCreates: server.stats.podCreates,
    requestsFailedByRules: failedByRules,
    injected,
    ...stats,
    rssMaxMiB: Math.round(stats.rssMaxMiB),
    operatorProcesses: ops.length,
    statusWritesChecked: obs.statusWrites,
    convergedInSeconds: Number(convergeSeconds.toFixed(1)),
    podsAtEnd: pods,
    podsWanted: wanted,
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
  const behind = names
    .map((n) => server.store.get(kind.storeKey, NS, n))
    .filter((o) => {
      const st = o.status ?? {};
      const want = o.spec.replicas;
      return !(obs.owners.get(o.metadata.uid)?.count === want && (st.replicas ?? 0) === want && (st.readyReplicas ?? 0) === want && (st.availableReplicas ?? 0) === want && st.observedGeneration === o.metadata.generation);
    })
    .slice(0, 5)
    .map((o) => {
      const k = `${NS}/${o.metadata.name}`;
      const last = leaderNow?.syncs(k).slice(-2) ?? [];
      return `${o.metadata.name}: spec ${o.spec.replicas} gen ${o.metadata.generation} pods ${obs.owners.get(o.metadata.uid)?.count} status ${JSON.stringify(o.status)}; leader ${leaderNow?.identity}'s last syncs ${JSON.stringify(last)}`;
    });
  assert.ok(converged(), `everything converged to spec within ${CONVERGE_MS / 1000} s after the faults stopped (${pods} pods, ${wanted} wanted)\n${behind.join("\n")}`);
  assert.equal(pods, wanted);
  assert.ok(leaderNow, "a live replica holds the Lease");
  for (const o of ops) assert.equal(o.find("unhandled rejection").length, 0, `${o.name}: ${o.find("unhandled rejection")[0]?.error}`);
  assert.ok(stats.kills > 0 && stats.takeovers > 0, "the leader was killed and the Lease taken over at least once");
  assert.ok(stats.restarts > 0, "a replica ended and was restarted");
});
