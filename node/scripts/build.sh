#!/usr/bin/env bash
# Builds the `replicore` npm package: the wasm binding (wasm-pack, no downloads) three
# times, the engine (`replicore`, the binding without features: the module an operator
# and an embedder load), the full module (`replicore/full`, feature `full`: the engine with
# the explain report, the pod facts and the seeded cluster simulator, the one module the
# playground and the CLI load; `replicore/explain` and `replicore/sim` are views over it)
# and the engine with the conformance judge (`replicore/judge`, for `replicore conform`);
# the playground's module is the full one without the exports the page does not call
# (`replicore/playground`, see playground_module);
# wasm-opt from npm binaryen (never Debian's: its wasm-opt 108 produces modules that fail
# to load); then the TypeScript wrapper into dist/. Prints each .wasm's size, raw and
# gzip. The CLI, operator and dev server are replicore-tools (tools/), built after this
# package.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/../node_modules/.bin:$PATH"

# Each module a browser loads (engine, full) is built twice from the same source: for
# speed (wasm-release: opt-level 3, wasm-opt -O3), the `.wasm` the `node` condition
# loads, where an operator reads JSON on every sync and opt-level 3 reads it about twice
# as fast; and for size (wasm-small: opt-level "z", wasm-opt -Oz), the
# `*_small_bg.wasm` the browser entries fetch, a quarter smaller over the wire. Both
# builds have the same exports, so they share one wasm-bindgen glue: the build checks
# that the glue of the size build is byte for byte the glue kept. The judge runs in Node
# only. REPLICORE_WASM_PROFILE=wasm-small builds the Node modules for size too.
profile=${REPLICORE_WASM_PROFILE:-wasm-release}
case "$profile" in
  wasm-release | wasm-small) ;;
  *) echo "build.sh: REPLICORE_WASM_PROFILE must be wasm-release or wasm-small" >&2; exit 2 ;;
esac

# wasm_build PROFILE OUT_DIR OUT_NAME [cargo args...]: wasm-pack, then wasm-opt at the
# profile's level; prints nothing but wasm-pack's errors.
wasm_build() {
  local prof=$1 dir=$2 name=$3
  shift 3
  local cargo_args=() opt=-O3
  if (($#)); then cargo_args=(-- "$@"); fi
  if [[ $prof == wasm-small ]]; then opt=-Oz; fi
  wasm-pack build ../wasm --target web --profile "$prof" --mode no-install \
    --out-dir "../node/src/$dir" --out-name "$name" --no-pack "${cargo_args[@]}" 2>&1 \
    | grep -vE '^\[INFO\]|failed to get wasm-pack version' || true
  test -f "src/$dir/${name}_bg.wasm"
  rm -f "src/$dir/.gitignore" "src/$dir/package.json" "src/$dir/README.md"
  local wasm="src/$dir/${name}_bg.wasm"
  wasm-opt "$opt" --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
}

# size_line FILE PROFILE: the line printed for one .wasm.
size_line() {
  local raw gz
  raw=$(wc -c < "$1")
  gz=$(gzip -9 -c "$1" | wc -c)
  sizes+=("$(printf '%s: %s bytes (%s KiB) raw, %s bytes (%s KiB) gzip -9 (%s)' \
    "$(basename "$1")" "$raw" "$((raw / 1024))" "$gz" "$((gz / 1024))" "$2")")
}

# wasm_module OUT_DIR OUT_NAME browser|node [cargo args...]
wasm_module() {
  local dir=$1 name=$2 where=$3
  shift 3
  wasm_build "$profile" "$dir" "$name" "$@"
  size_line "src/$dir/${name}_bg.wasm" "$profile, Node"
  if [[ $where == browser ]]; then
    local tmp="$dir.small"
    rm -rf "src/$tmp"
    wasm_build wasm-small "$tmp" "$name" "$@"
    for glue in "$name.js" "$name.d.ts" "${name}_bg.wasm.d.ts"; do
      if ! cmp -s "src/$dir/$glue" "src/$tmp/$glue"; then
        echo "build.sh: the size build of $name has other glue ($glue) than the speed build" >&2
        exit 1
      fi
    done
    mv "src/$tmp/${name}_bg.wasm" "src/$dir/${name}_small_bg.wasm"
    rm -rf "src/$tmp"
    # The glue's own default (`init()` without a module) names the .wasm beside it, and
    # bundlers emit every `new URL(…, import.meta.url)` they see: point it at the size
    # build, so that a page's bundle holds that build alone. (The Node entries pass the
    # speed build's bytes explicitly.)
    local default="new URL('${name}_bg.wasm', import.meta.url)"
    grep -qF "$default" "src/$dir/$name.js" || {
      echo "build.sh: $name.js no longer has the default $default" >&2
      exit 1
    }
    sed -i "s|new URL('${name}_bg.wasm', import.meta.url)|new URL('${name}_small_bg.wasm', import.meta.url)|" "src/$dir/$name.js"
    size_line "src/$dir/${name}_small_bg.wasm" "wasm-small, browsers"
  fi
}

# playground_module: the playground's module (`replicore/playground`), the full module's
# size build with the exports its entry does not call removed (binaryen's wasm-metadce,
# the list in scripts/playground-exports.json), then wasm-opt -Oz again to drop what only
# they reached. It shares the full module's glue: a function of that glue whose export is
# gone is simply not in the entry.
playground_module() {
  local full=src/wasm-full/replicore_full_small_bg.wasm out=src/wasm-full/replicore_playground_bg.wasm
  local graph
  graph=$(mktemp)
  node --input-type=module -e '
    import { readFileSync, writeFileSync } from "node:fs";
    const [full, list, out] = process.argv.slice(1);
    const { keep, keepPrefixes } = JSON.parse(readFileSync(list, "utf8"));
    const exports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(full))).map((e) => e.name);
    const missing = keep.filter((n) => !exports.includes(n));
    if (missing.length) throw new Error(`playground-exports.json names exports the full module lacks: ${missing}`);
    const kept = exports.filter((n) => n === "memory" || n.startsWith("__") || keep.includes(n) || keepPrefixes.some((p) => n.startsWith(p)));
    const graph = [{ name: "playground", root: true, reaches: kept.map((n) => `export:${n}`) }, ...exports.map((n) => ({ name: `export:${n}`, export: n }))];
    writeFileSync(out, JSON.stringify(graph));
  ' "$full" scripts/playground-exports.json "$graph"
  wasm-metadce -f "$graph" "$full" -o "$out.dce" > /dev/null
  wasm-opt -Oz --strip-debug --strip-producers "$out.dce" -o "$out"
  rm -f "$graph" "$out.dce"
  size_line "$out" "wasm-small, the playground"
}

sizes=()
wasm_module wasm replicore_wasm browser
wasm_module wasm-full replicore_full browser --features full
playground_module
wasm_module wasm-judge replicore_judge node --features judge

rm -rf dist
tsc -p tsconfig.json
cp -r src/wasm dist/wasm
cp -r src/wasm-full dist/wasm-full
cp -r src/wasm-judge dist/wasm-judge

printf '%s\n' "${sizes[@]}"
