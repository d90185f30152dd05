#!/usr/bin/env bash
# The ReplicaSet controller's cost on a real kube-apiserver v1.36.2, Replicore's operator
# beside kube-controller-manager: for each run and each controller, a fresh plane
# (../shared/realapi/start.sh: etcd + kube-apiserver on loopback, no kubelet, no
# scheduler), then tools/bench/realapi.mjs (20 ReplicaSets x 500 pods, then down to a
# fifth), then the plane is stopped and removed. One JSON object per run on stdout.
# Not part of the test command: the plane's binaries take 11-13 minutes to build once
# (docs/performance.md, "On a real API server").
#
#   K8S_SRC=... BIN=... GO=... tools/bench/realapi.sh [RUNS] [CONTROLLERS]
#     RUNS         runs per controller (default 3), alternating the controllers
#     CONTROLLERS  "kcm operator" (default), or one of them
# env: REALAPI (the plane's scripts, default ../shared/realapi beside the project),
# K8S_SRC, BIN, GO (as start.sh reads them), RUN (the plane's state dir, default
# /tmp/replicore-realapi/run), QPS (1000, both controllers), and realapi.mjs's variables
# (PODS, OWNERS, OPERATOR_NODE_ARGS, CPU_PROF, ...). Build tools/dist first (npm run build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
REALAPI=${REALAPI:-$root/../shared/realapi}
RUN=${RUN:-/tmp/replicore-realapi/run}
QPS=${QPS:-1000}
runs=${1:-3}
controllers=${2:-"kcm operator"}
export ETCD=${ETCD:-embed} API_PORT=${API_PORT:-18443} ETCD_PORT=${ETCD_PORT:-25790} VERSION=${VERSION:-v1.36.2}

for ((i = 1; i <= runs; i++)); do
  for c in $controllers; do
    "$REALAPI/stop.sh" "$RUN" --clean >/dev/null 2>&1 || true
    KCM=0 "$REALAPI/start.sh" "${K8S_SRC:-/tmp/k8s/src}" "$RUN" >/dev/null 2>&1
    pid=""
    if [[ $c == kcm ]]; then
      KCM_CONTROLLERS=replicaset KCM_ARGS="--kube-api-qps=$QPS --kube-api-burst=$QPS" \
        "$REALAPI/start.sh" --kcm "${K8S_SRC:-/tmp/k8s/src}" "$RUN" >/dev/null 2>&1
      pid=$(cat "$RUN/kcm.pid")
    fi
    KUBECONFIG="$RUN/admin.kubeconfig" CONTROLLER=$c KCM_PID=$pid QPS=$QPS node "$here/realapi.mjs"
    "$REALAPI/stop.sh" "$RUN" --clean >/dev/null 2>&1 || true
  done
done
