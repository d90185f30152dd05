#!/usr/bin/env bash
# Builds the `replicore` npm package: the wasm binding (wasm-pack, no downloads) four
# times, the engine (`replicore`, without `explain`: the module an operator loads), the
# engine with the explain report and pod facts (`replicore/explain`, for the CLI and the
# playground), the engine with the seeded cluster simulator (`replicore/sim`, for the
# playground) and the engine with the conformance judge (`replicore/judge`, for
# `replicore conform`); wasm-opt from npm binaryen (never Debian's: its wasm-opt 108
# produces modules that fail to load); then the TypeScript wrapper into dist/. Prints
# each .wasm's size, raw and gzip. The CLI, operator and dev server are replicore-tools
# (tools/), built after this package.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/../node_modules/.bin:$PATH"

# REPLICORE_WASM_PROFILE=wasm-small builds for size (opt-level z, wasm-opt -Oz) instead
# of speed (the default, wasm-release: opt-level 3, wasm-opt -O3).
profile=${REPLICORE_WASM_PROFILE:-wasm-release}
case "$profile" in
  wasm-release) opt=-O3 ;;
  wasm-small) opt=-Oz ;;
  *) echo "build.sh: REPLICORE_WASM_PROFILE must be wasm-release or wasm-small" >&2; exit 2 ;;
esac

# wasm_module OUT_DIR OUT_NAME [cargo args...]
wasm_module() {
  local dir=$1 name=$2
  shift 2
  local cargo_args=()
  if (($#)); then cargo_args=(-- "$@"); fi
  wasm-pack build ../wasm --target web --profile "$profile" --mode no-install \
    --out-dir "../node/src/$dir" --out-name "$name" --no-pack "${cargo_args[@]}" 2>&1 \
    | grep -vE '^\[INFO\]|failed to get wasm-pack version' || true
  test -f "src/$dir/${name}_bg.wasm"
  rm -f "src/$dir/.gitignore" "src/$dir/package.json" "src/$dir/README.md"
  local wasm="src/$dir/${name}_bg.wasm"
  local before
  before=$(wc -c < "$wasm")
  wasm-opt "$opt" --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
  local raw gz
  raw=$(wc -c < "$wasm")
  gz=$(gzip -9 -c "$wasm" | wc -c)
  sizes+=("$(printf '%s: %s bytes (%s KiB) raw, %s bytes (%s KiB) gzip -9; before wasm-opt %s bytes' \
    "${name}_bg.wasm" "$raw" "$((raw / 1024))" "$gz" "$((gz / 1024))" "$before")")
}

sizes=()
wasm_module wasm replicore_wasm
wasm_module wasm-explain replicore_explain --features explain
wasm_module wasm-sim replicore_sim --features sim
wasm_module wasm-judge replicore_judge --features judge

rm -rf dist
tsc -p tsconfig.json
cp -r src/wasm dist/wasm
cp -r src/wasm-explain dist/wasm-explain
cp -r src/wasm-sim dist/wasm-sim
cp -r src/wasm-judge dist/wasm-judge

for line in "${sizes[@]}"; do printf '%s (%s)\n' "$line" "$profile"; done
