#!/usr/bin/env bash
# The whole test suite: formatting, lints (warnings are errors), unit, rule, property and
# conformance tests, then the conformance runner over the public vectors.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test (unit, rule, property, conformance, doc tests)"
cargo test --workspace --locked --profile ci

step "conformance runner over the public vectors"
cargo run --profile ci --locked -q -p replicore-tests --bin conformance -- tests/conformance/vectors
