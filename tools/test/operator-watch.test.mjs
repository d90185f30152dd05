// The informers' watch (tools/src/operator/watch.ts), client-node's Watch contract over
// undici's request: events split across chunks arrive whole and in order, a line that is
// not JSON is skipped, a non-200 answer is done(error) with its statusCode, the end of the
// body is done(null), silence past the inactivity time is done(TimeoutError), and abort
// stops it. Against a local HTTP server that writes the watch body by hand.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { StreamWatch } from "../dist/operator/watch.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seen = [];
const server = createServer(async (req, res) => {
  seen.push(req.url);
  const url = new URL(req.url, "http://x");
  const mode = url.pathname.split("/").pop();
  if (mode === "gone") {
    res.writeHead(410, { "Content-Type": "application/json" });
    res.end('{"kind":"Status","code":410}');
    return;
  }
  res.writeHead(200, { "Content-Type": "application/json" });
  if (mode === "silent") {
    res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    return; // then nothing, open
  }
  const lines = [
    { type: "ADDED", object: { metadata: { name: "p-1", labels: { app: "ü" } } } },
    { type: "MODIFIED", object: { metadata: { name: "p-1" }, status: { phase: "Running" } } },
  ].map((e) => JSON.stringify(e) + "\n");
  const text = lines[0] + "not json\n" + lines[1] + JSON.stringify({ type: "DELETED", object: { metadata: { name: "p-1" } } });
  // Split inside a line and inside a multi-byte character.
  const bytes = Buffer.from(text);
  const cut1 = 17;
  const cut2 = bytes.indexOf(Buffer.from("ü")) + 1;
  for (const part of [bytes.subarray(0, cut1), bytes.subarray(cut1, cut2), bytes.subarray(cut2)]) {
    res.write(part);
    await sleep(20);
  }
  res.end();
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
after(() => server.close());
const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: "c", server: `http://127.0.0.1:${server.address().port}`, skipTLSVerify: true }],
  users: [{ name: "u" }],
  contexts: [{ name: "c", cluster: "c", user: "u" }],
  currentContext: "c",
});

function run(path, query = {}, inactivityMs) {
  const events = [];
  let done;
  const finished = new Promise((r) => (done = r));
  const controller = new StreamWatch(kc, inactivityMs).watch(path, query, (type, object) => events.push([type, object]), done);
  return { events, finished, controller };
}

test("events split across chunks arrive whole and in order; a line that is not JSON is skipped; the end is done(null)", async () => {
  const w = run("/api/v1/pods/stream", { resourceVersion: "42", allowWatchBookmarks: true, labelSelector: undefined });
  assert.equal(await w.finished, null);
  assert.deepEqual(
    w.events.map(([type, o]) => [type, o.metadata.name]),
    [
      ["ADDED", "p-1"],
      ["MODIFIED", "p-1"],
      ["DELETED", "p-1"],
    ],
  );
  assert.equal(w.events[0][1].metadata.labels.app, "ü");
  const url = new URL(seen.at(-1), "http://x");
  assert.equal(url.searchParams.get("watch"), "true");
  assert.equal(url.searchParams.get("resourceVersion"), "42");
  assert.equal(url.searchParams.get("allowWatchBookmarks"), "true");
  assert.equal(url.searchParams.has("labelSelector"), false);
});

test("a non-200 answer is done(error) with its statusCode", async () => {
  const w = run("/api/v1/pods/gone");
  const err = await w.finished;
  assert.equal(err.statusCode, 410);
  assert.deepEqual(w.events, []);
});

test("silence past the inactivity time is done(TimeoutError); abort ends a watch once", async () => {
  const w = run("/api/v1/pods/silent", {}, 200);
  const err = await w.finished;
  assert.equal(err.name, "TimeoutError");
  assert.deepEqual(
    w.events.map(([type]) => type),
    ["ADDED"],
  );
  const v = run("/api/v1/pods/silent", {}, 60000);
  await sleep(100);
  (await v.controller).abort();
  const aborted = await v.finished;
  assert.notEqual(aborted?.name, "TimeoutError");
  assert.equal(v.events.length, 1);
});
