#!/usr/bin/env bash
# Sets up, builds and serves the playground (web-demo/) on 127.0.0.1, printing its URL:
# a simulated cluster with the ReplicaSet controller running the engine in the browser
# (no real cluster needed), and any `kubectl get rs,pods -o json` explained.
#
#   scripts/run.sh              # http://127.0.0.1:4173/ (PORT=8080 scripts/run.sh for another port)
#
# The npm packages are rebuilt only when their sources (core/, wasm/, node/src, tools/src)
# changed since the last build; the page is always rebuilt (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-4173}"

say() { printf 'run: %s\n' "$*"; }

bash scripts/setup.sh >/dev/null

stamp=node/dist/browser.js
if [ ! -f "$stamp" ] || [ ! -f node/dist/wasm/replicore_wasm_bg.wasm ] \
  || [ ! -f node/dist/wasm-explain/replicore_explain_bg.wasm ] \
  || [ -n "$(find core/src wasm/src node/src node/scripts tools/src Cargo.lock core/Cargo.toml wasm/Cargo.toml -newer "$stamp" -type f -print -quit 2>/dev/null)" ]; then
  say "building the npm packages (wasm-pack, wasm-opt, tsc)"
  npm run --silent build >/dev/null
fi

say "building the page (vite)"
npm --workspace web-demo run --silent build >/dev/null

say "Replicore playground: http://127.0.0.1:${PORT}/  (Ctrl-C stops)"
cd web-demo
exec ../node_modules/.bin/vite preview --host 127.0.0.1 --port "$PORT" --strictPort
