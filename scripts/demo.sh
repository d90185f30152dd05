#!/usr/bin/env bash
# Runs the demo: what a sync would do for each ReplicaSet of the shipped example cluster,
# and which pods a scale-down to 3 replicas would delete. Extra arguments are passed on
# (e.g. --replicas 1, --rs web-7d9f8b6c5d, -f my-cluster.json, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
if [ "$#" -eq 0 ]; then
  set -- --replicas 3
fi
exec cargo run --release --locked -q -p replicore --features explain --example explain -- "$@"
