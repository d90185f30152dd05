// The operator's HTTP library under client-node (tools/src/operator/http.ts): each request
// sent with undici's `dispatch` on client-node's dispatcher; the same exchange as
// client-node's fetch-based library (method, path and query, headers, body; the answer's
// status, headers and body, readable as text or bytes), and client-node's own library for
// what it cannot send.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { RequestContext, ResponseContext, HttpMethod } from "@kubernetes/client-node";
import { Gate, MAX_IN_FLIGHT, sendDirect } from "../dist/operator/http.js";

const seen = [];
// Requests being answered now, the most at once, and the connections they came on.
let answering = 0;
let mostAtOnce = 0;
const sockets = new Set();
const server = createServer((req, res) => {
  if (req.url.startsWith("/slow")) {
    sockets.add(req.socket);
    mostAtOnce = Math.max(mostAtOnce, ++answering);
    setTimeout(() => {
      answering--;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ url: req.url }));
    }, 5);
    return;
  }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    seen.push({ method: req.method, url: req.url, type: req.headers["content-type"], agent: req.headers["user-agent"], body });
    const status = req.url.startsWith("/forbidden") ? 403 : 201;
    res.writeHead(status, { "Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"] });
    res.end(JSON.stringify({ kind: status === 403 ? "Status" : "Pod", echo: body }));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
after(() => new Promise((r) => server.close(r)));

const noFallback = () => {
  throw new Error("the fallback was used");
};

test("a POST with a body: method, path and query, headers and body reach the server; the answer is readable", async () => {
  const req = new RequestContext(`${base}/api/v1/namespaces/a/pods?dryRun=All`, HttpMethod.POST);
  req.setHeaderParam("Content-Type", "application/json");
  req.setHeaderParam("User-Agent", "replicore-operator");
  req.setBody(JSON.stringify({ metadata: { name: "p" } }));
  const res = await sendDirect(req, noFallback);
  assert.ok(res instanceof ResponseContext);
  assert.equal(res.httpStatusCode, 201);
  assert.equal(res.headers["content-type"], "application/json");
  assert.equal(res.headers["set-cookie"], "a=1, b=2");
  // Read twice, as text and as bytes: the same body.
  const text = await res.body.text();
  assert.deepEqual(JSON.parse(text), { kind: "Pod", echo: '{"metadata":{"name":"p"}}' });
  assert.equal((await res.body.binary()).toString("utf8"), text);
  assert.deepEqual(seen.at(-1), { method: "POST", url: "/api/v1/namespaces/a/pods?dryRun=All", type: "application/json", agent: "replicore-operator", body: '{"metadata":{"name":"p"}}' });
});

test("a GET without a body, and a 403 whose Status body stays readable", async () => {
  const res = await sendDirect(new RequestContext(`${base}/forbidden/leases`, HttpMethod.GET), noFallback);
  assert.equal(res.httpStatusCode, 403);
  assert.equal(JSON.parse(await res.body.text()).kind, "Status");
  assert.equal(seen.at(-1).method, "GET");
  assert.equal(seen.at(-1).body, "");
});

test("a body that is neither text nor bytes goes to client-node's own library", async () => {
  const req = new RequestContext(`${base}/x`, HttpMethod.POST);
  req.setBody(new URLSearchParams({ a: "1" }));
  const answer = new ResponseContext(299, {}, { text: async () => "", binary: async () => Buffer.alloc(0), stream: () => null });
  let used = 0;
  const res = await sendDirect(req, async () => {
    used++;
    return answer;
  });
  assert.equal(used, 1);
  assert.equal(res, answer);
});

test("at most MAX_IN_FLIGHT requests of one pool are on the wire at once, on as many connections at most", async () => {
  const n = MAX_IN_FLIGHT * 3;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => sendDirect(new RequestContext(`${base}/slow/${i}`, HttpMethod.GET), noFallback).then((r) => r.body.text())),
  );
  assert.deepEqual(
    answers.map((t) => JSON.parse(t).url),
    Array.from({ length: n }, (_, i) => `/slow/${i}`),
  );
  assert.ok(mostAtOnce > 1 && mostAtOnce <= MAX_IN_FLIGHT, `at most ${MAX_IN_FLIGHT} at once, saw ${mostAtOnce}`);
  assert.ok(sockets.size <= MAX_IN_FLIGHT, `at most ${MAX_IN_FLIGHT} connections, saw ${sockets.size}`);
});

test("the gate lets `limit` holders in and the others in the order they came", async () => {
  const gate = new Gate(2);
  const order = [];
  await gate.enter();
  await gate.enter();
  const waiting = [1, 2, 3].map((i) => gate.enter().then(() => order.push(i)));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, []);
  gate.leave();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, [1]);
  gate.leave();
  gate.leave();
  await Promise.all(waiting);
  assert.deepEqual(order, [1, 2, 3]);
});

// A created object's name and resourceVersion, read from the answer's text without
// parsing it whole (tools/src/operator/metadata.ts): the top-level metadata's strings
// only, wherever metadata stands, whatever else carries a `name`.
test("createdMeta reads the top-level metadata's name and resourceVersion from the text", async () => {
  const { createdMeta } = await import("../dist/operator/metadata.js");
  const apiServer = JSON.stringify({
    kind: "Pod",
    apiVersion: "v1",
    metadata: { name: "web-7d9f-x2k4q", generateName: "web-7d9f-", namespace: "shop", resourceVersion: "4711", labels: { name: "label" }, ownerReferences: [{ name: "web-7d9f", uid: "u" }], managedFields: [{ manager: "m", fieldsV1: { "f:metadata": {} } }] },
    spec: { containers: [{ name: "main", image: "nginx" }] },
  });
  assert.deepEqual(createdMeta(apiServer), { name: "web-7d9f-x2k4q", resourceVersion: "4711" });
  // metadata last, other objects with a name or resourceVersion before it, escapes, spaces
  const reordered = ` { "spec" : {"containers":[{"name":"c"}], "metadata": {"name": "wrong"}}, "status": {"resourceVersion": "no"},
    "metadata": {"labels": {"resourceVersion": "no"}, "resourceVersion": "9", "name": "a\\"b\\u0041"} }`;
  assert.deepEqual(createdMeta(reordered), { resourceVersion: "9", name: 'a"bA' });
  assert.deepEqual(createdMeta(reordered), (({ name, resourceVersion }) => ({ resourceVersion, name }))(JSON.parse(reordered).metadata));
  // a non-string name is not a name; an object without metadata has neither
  assert.deepEqual(createdMeta('{"metadata":{"name":5,"resourceVersion":"1"}}'), { resourceVersion: "1" });
  assert.deepEqual(createdMeta('{"kind":"Status"}'), {});
  // text that is no JSON object: JSON.parse's own error
  assert.throws(() => createdMeta("not json"), SyntaxError);
  assert.throws(() => createdMeta('{"metadata":{"name":"x'), SyntaxError);
});
