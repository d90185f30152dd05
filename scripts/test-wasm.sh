#!/usr/bin/env bash
# The wasm-bindgen-test suite of the WebAssembly binding (wasm/tests/*.rs), run twice:
# in Node.js, then in headless Chromium (Debian's chromium + chromedriver).
#
#   scripts/test-wasm.sh              both runs
#   scripts/test-wasm.sh <filter>     both runs, only the tests whose name contains <filter>
#
# Nothing is downloaded (wasm-pack runs with --mode no-install; scripts/setup.sh installs
# the tools). The tests are plain #[wasm_bindgen_test] (not run_in_browser), so the
# browser run needs WASM_BINDGEN_USE_BROWSER=1: without it `wasm-pack test --chrome`
# skips every test and still exits 0. This script therefore also checks each run's
# output: the browser run must say it ran in Chrome, and each run must have passed more
# than 0 tests.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}

step() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'test-wasm: %s\n' "$*" >&2
  exit 1
}

for tool in wasm-pack wasm-bindgen wasm-bindgen-test-runner; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (run scripts/setup.sh)"
done
[ -x "$CHROMEDRIVER" ] || fail "no chromedriver at $CHROMEDRIVER (run scripts/setup.sh)"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# The simulator's and the explain report's bindings are features (the full module's);
# test them with the rest.
extra=(--features full)
if [ $# -gt 0 ]; then
  extra=(--features full -- "$@")
fi

# The number of tests that passed, summed over the test binaries of a run.
passed() {
  sed -n 's/^test result: ok\. \([0-9][0-9]*\) passed.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# Options go before the crate path: wasm-pack hands everything after the path to
# `cargo test` (so `wasm-pack test --node wasm --mode no-install` fails).
step "wasm-bindgen-test in Node.js ($(node --version))"
start=$SECONDS
wasm-pack test --node --mode no-install wasm "${extra[@]}" 2>&1 | tee "$logs/node.log"
node_passed=$(passed "$logs/node.log")
[ "$node_passed" -gt 0 ] || fail "the Node.js run passed no tests"
node_time=$((SECONDS - start))

step "wasm-bindgen-test in headless Chromium ($("$CHROMEDRIVER" --version | cut -d' ' -f1-2))"
start=$SECONDS
WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER" \
  --mode no-install wasm "${extra[@]}" 2>&1 | tee "$logs/browser.log"
if grep -q 'only configured to run in node.js' "$logs/browser.log"; then
  fail "the browser run skipped the tests (WASM_BINDGEN_USE_BROWSER not honoured)"
fi
grep -q '^Running headless tests in Chrome' "$logs/browser.log" ||
  fail "the browser run did not run its tests in headless Chrome"
browser_passed=$(passed "$logs/browser.log")
[ "$browser_passed" -gt 0 ] || fail "the browser run passed no tests"
browser_time=$((SECONDS - start))

step "summary"
printf 'Node.js:           %s tests passed (%ss)\n' "$node_passed" "$node_time"
printf 'headless Chromium: %s tests passed (%ss)\n' "$browser_passed" "$browser_time"
