// The operator's HTTP library under client-node (tools/src/operator/http.ts): each request
// sent with undici's `request` on client-node's dispatcher; the same exchange as
// client-node's fetch-based library (method, path and query, headers, body; the answer's
// status, headers and body, readable as text or bytes), and client-node's own library for
// what it cannot send.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { RequestContext, ResponseContext, HttpMethod } from "@kubernetes/client-node";
import { sendDirect } from "../dist/operator/http.js";

const seen = [];
const server = createServer((req, res) => {
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
