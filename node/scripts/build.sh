#!/usr/bin/env bash
# Builds the npm package: the wasm binding (wasm-pack, no downloads), wasm-opt from npm
# binaryen (never Debian's: its wasm-opt 108 produces modules that fail to load), then
# the TypeScript wrapper and CLI into dist/. Prints the .wasm size, raw and gzip.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/../node_modules/.bin:$PATH"

wasm-pack build ../wasm --target web --profile wasm-release --mode no-install \
  --out-dir ../node/src/wasm --out-name replicore_wasm --no-pack 2>&1 \
  | grep -vE '^\[INFO\]|failed to get wasm-pack version' || true
test -f src/wasm/replicore_wasm_bg.wasm
rm -f src/wasm/.gitignore src/wasm/package.json src/wasm/README.md

wasm="src/wasm/replicore_wasm_bg.wasm"
before=$(wc -c < "$wasm")
wasm-opt -Oz --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"

rm -rf dist
tsc -p tsconfig.json
cp -r src/wasm dist/wasm
chmod +x dist/cli.js

raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
printf 'replicore_wasm_bg.wasm: %s bytes (%s KiB) raw, %s bytes (%s KiB) gzip -9; before wasm-opt %s bytes\n' \
  "$raw" "$((raw / 1024))" "$gz" "$((gz / 1024))" "$before"
