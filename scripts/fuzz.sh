#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 30), seeded from the conformance
# vectors, and prints executions, exec/s and crashes per target. Exits non-zero on a crash
# (the crashing input is left in fuzz/artifacts/<target>/).
#
#   scripts/fuzz.sh            30 s per target (what the test command runs)
#   scripts/fuzz.sh 600        a longer campaign
#
# Needs a nightly toolchain and cargo-fuzz; scripts/setup.sh installs both.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-30}
TARGETS=(sync_input explain_bytes store_ops deployment_sync hpa_sync)
CORPUS=target/fuzz-corpus
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/fuzz}

# Seed corpora: the recorded sync and deployment-sync inputs, explain lists made from the
# sync inputs, and the HPA sync documents (each hpa-sync input, and the first three steps
# of each hpa-trace, with its world; every fourth also with a script of answers after a
# NUL byte).
for t in "${TARGETS[@]}"; do mkdir -p "${CORPUS}/$t"; done
if [ ! -f "${CORPUS}/.seeded-hpa" ]; then
  python3 - "${CORPUS}" <<'PY'
import gzip, json, sys, os
out = sys.argv[1]
cases = json.load(gzip.open("tests/conformance/vectors/sync.json.gz"))
for i, c in enumerate(cases):
    inp = c["input"]
    with open(os.path.join(out, "sync_input", f"v{i:04}"), "w") as f:
        json.dump(inp, f)
    if i % 4 == 0:
        items = [inp["replicaSet"]] + inp.get("otherReplicaSets", []) + inp.get("pods", [])
        with open(os.path.join(out, "explain_bytes", f"v{i:04}"), "w") as f:
            json.dump({"kind": "List", "items": items}, f)
for i, c in enumerate(json.load(gzip.open("tests/conformance/vectors/deployment/deployment-sync.json.gz"))):
    with open(os.path.join(out, "deployment_sync", f"v{i:04}"), "w") as f:
        json.dump(c["input"], f)
docs = [c["input"] for c in json.load(gzip.open("tests/conformance/vectors/hpa/hpa-sync.json.gz"))]
for c in json.load(gzip.open("tests/conformance/vectors/hpa/hpa-trace.json.gz")):
    shared = c["input"]
    for step in shared["steps"][:3]:
        docs.append({"now": step["now"], "featureGates": shared.get("featureGates"),
                     "config": shared.get("config"), "key": shared.get("key"), "hpa": step["hpa"],
                     "scale": step.get("scale"), "pods": step.get("pods"), "metrics": step.get("metrics")})
for i, doc in enumerate(docs):
    data = json.dumps(doc).encode()
    if i % 4 == 0:
        data += b"\0" + bytes((i * 7 + k * 13) % 256 for k in range(64))
    with open(os.path.join(out, "hpa_sync", f"v{i:04}"), "wb") as f:
        f.write(data)
PY
  touch "${CORPUS}/.seeded-hpa"
fi

# The engine is safe Rust (forbid(unsafe_code)): a panic is the failure to find, so the
# targets build without AddressSanitizer (-s none), several times faster.
FUZZ_FLAGS=(--features libfuzzer -O -s none)
cd fuzz
build_log=$(mktemp)
if ! cargo +nightly fuzz build "${FUZZ_FLAGS[@]}" >"${build_log}" 2>&1; then
  cat "${build_log}"
  exit 1
fi
rm -f "${build_log}"
status=0
for t in "${TARGETS[@]}"; do
  log=$(mktemp)
  if cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$t" "../${CORPUS}/$t" -- \
      -max_total_time="${SECONDS_PER_TARGET}" -rss_limit_mb=2048 \
      -print_final_stats=1 >"$log" 2>&1; then
    crashed=0
  else
    crashed=1
    status=1
  fi
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  rate=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  printf 'fuzz %-14s %s s: %s executions, %s exec/s, %s crashes\n' "$t" "${SECONDS_PER_TARGET}" "$runs" "$rate" "$crashed"
  if [ "$crashed" = 1 ]; then
    # The panic and the artifact's name; lines cut, as libFuzzer prints the whole input.
    grep -m1 -A3 'panicked at' "$log" | cut -c1-1500 || true
    grep -E 'ERROR: libFuzzer|Test unit written to|^SUMMARY' "$log" | cut -c1-300 || true
  fi
  rm -f "$log"
done
exit $status
