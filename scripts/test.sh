#!/usr/bin/env bash
# The whole test suite: formatting, lints (warnings are errors), Rust unit, rule,
# property and conformance tests; the wasm build with its wasm-bindgen-test suite in Node
# and headless Chromium; the strict TypeScript checks; the CLI and API tests; and the
# conformance vectors through both the wasm package and the native engine.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors; with replicore's k8s-openapi and ts features and replicore-sim's ts, so their code is linted)"
cargo clippy --workspace --all-targets --locked --features replicore/k8s-openapi,replicore/ts,replicore-sim/ts -- -D warnings

step "TypeScript declarations generated from the Rust types are current (scripts/gen-types.sh --check)"
bash scripts/gen-types.sh --check

step "cargo test (unit, rule, property, conformance, doc tests)"
cargo test --workspace --locked --profile ci

step "cargo test: replicore's k8s-openapi feature (conversion equals the JSON path; the kube_host example builds)"
cargo test -p replicore --locked --profile ci --features k8s-openapi --test from_k8s --example kube_host

step "fuzz crate: fmt, clippy, its checks on stable over the conformance inputs"
cargo fmt --manifest-path fuzz/Cargo.toml -- --check
CARGO_TARGET_DIR=target/fuzz-stable cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --locked -- -D warnings
CARGO_TARGET_DIR=target/fuzz-stable cargo test --manifest-path fuzz/Cargo.toml --locked --release

step "cargo-fuzz: every target for a bounded run (scripts/fuzz.sh 30)"
bash scripts/fuzz.sh 30

step "npm packages: replicore (wasm-pack build of three modules, the engine and the full module also for size, the playground's module from the full one, wasm-opt, tsc strict), then replicore-tools (tsc strict)"
npm run --silent build

step "TypeScript: the replicore package and a strict consumer of @kubernetes/client-node types; replicore-tools"
npm --workspace node run --silent typecheck
npm --workspace tools run --silent typecheck

step "wasm-bindgen-test: the same suite in Node and in headless Chromium"
bash scripts/test-wasm.sh

step "node --test, replicore: the JS API, the store, the simulator, the explain entry, the browser bundle (no Node-only module)"
npm --workspace node test --silent

step "node --test, replicore-tools: the CLI, the operator and the dev server (with a kubectl 1.20 session)"
npm --workspace tools test --silent

step "autoscaler benchmarks: one HPA sync natively on upstream's inputs (100 / 1,000 / 10,000 pods, beside upstream's figures and the 10,000-pod time over the 1,000-pod one) and the one-hour forecast natively and through wasm in Node (figures printed, docs/performance.md)"
cargo bench -p replicore --bench hpa --locked -- zzz
npm --workspace node run --silent bench -- hpaForecast

step "operator benchmark over the dev-server (100 ReplicaSets, 10,000 pods, shipped Node flags; fails if the pods do not converge; figures printed, compared with kube-controller-manager's in docs/performance.md)"
EVENT_SECONDS=10 npm --workspace tools run --silent bench:operator

step "rollout-pace benchmark over the dev-server (kube-controller-manager's rollout scenarios, pods ready 2 s after binding, QPS 20 / burst 30 per controller; fails if a rollout does not complete; figures printed beside kcm's, docs/operator.md)"
npm --workspace tools run --silent bench:rollout

step "web playground: strict tsc, Vite build, Playwright in headless Chromium (screenshots in target/playground-screenshots/; the wasm bytes the page fetches, gzip -9)"
npm --workspace web-demo run --silent typecheck
npm --workspace web-demo test --silent

step "conformance through the wasm package (npx replicore conform)"
npx --no-install replicore conform tests/conformance/vectors

step "conformance runner over the public vectors (native)"
cargo run --profile ci --locked -q -p replicore-tests --bin conformance -- tests/conformance/vectors
