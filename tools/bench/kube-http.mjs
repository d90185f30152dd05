// Requests and watches to a real API server for the benchmarks, through a kubeconfig
// (client-node's KubeConfig for its TLS options and credentials; node:https for the
// calls): realapi.mjs and rollout.mjs's real-plane mode.
import { request } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";

export async function connect(kubeconfig) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const server = new URL(kc.getCurrentCluster().server);
  const tls = {};
  await kc.applyToHTTPSOptions(tls);
  const options = (method, path, headers) => ({ ...tls, host: server.hostname, port: server.port, method, path, headers: { ...tls.headers, Accept: "application/json", ...headers } });

  /** One request; resolves to {status, body} (body parsed when JSON). */
  const call = (method, path, body, type = "application/json") =>
    new Promise((resolve, reject) => {
      const req = request(options(method, path, { "Content-Type": type }), (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode, body: parsed });
        });
      });
      req.on("error", reject);
      if (body !== undefined) req.end(JSON.stringify(body));
      else req.end();
    });

  /** A request that must succeed: its parsed body. */
  const must = async (method, path, body, type) => {
    const r = await call(method, path, body, type);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body;
  };

  /**
   * Watches `path` (a collection) from `resourceVersion`, handing each line to `onLine`,
   * and opens it again from the last resourceVersion seen if the server ends it.
   */
  const watch = (path, resourceVersion, onLine) => {
    const state = { rv: resourceVersion, reopened: 0, stopped: false };
    let req;
    const open = () => {
      const sep = path.includes("?") ? "&" : "?";
      req = request(options("GET", `${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${state.rv}`), (res) => {
        if (res.statusCode !== 200) throw new Error(`watch ${path}: ${res.statusCode}`);
        let rest = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          const lines = (rest + chunk).split("\n");
          rest = lines.pop();
          for (const line of lines) {
            // The object's own resourceVersion is the first in the line (metadata leads).
            const rv = /"resourceVersion":"(\d+)"/.exec(line);
            if (rv) state.rv = rv[1];
            onLine(line);
          }
        });
        res.on("close", () => {
          if (state.stopped) return;
          state.reopened++;
          open();
        });
      });
      req.end();
    };
    open();
    state.close = () => {
      state.stopped = true;
      req.destroy();
    };
    return state;
  };

  return { call, must, watch };
}
