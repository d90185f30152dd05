#!/usr/bin/env bash
# Installs what the build and the tests need. Idempotent, and fast when all is there.
# Only package registries are used (crates.io, npm, Debian); nothing is downloaded from
# elsewhere: wasm-pack runs with --mode no-install and finds the tools installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }

# The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
WASM_PACK_VERSION=0.15.1

# Rust components and the wasm target.
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
    say "installing rustup component ${component}"
    rustup component add "${component}"
  fi
done
if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# wasm-pack and wasm-bindgen-cli from crates.io (their npm/GitHub downloads fail here).
if [ "$(wasm-pack --version 2>/dev/null)" != "wasm-pack ${WASM_PACK_VERSION}" ]; then
  say "installing wasm-pack ${WASM_PACK_VERSION} (takes about two minutes)"
  cargo install --locked wasm-pack --version "${WASM_PACK_VERSION}"
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen ${WASM_BINDGEN_VERSION}" ]; then
  say "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (takes about three minutes)"
  # Unlocked on purpose: a locked dependency of the CLI is missing from the registry.
  cargo install --force wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}"
fi

# A nightly toolchain and cargo-fuzz, for the fuzz targets (scripts/fuzz.sh): libFuzzer
# builds need nightly; stable stays the default for everything else.
CARGO_FUZZ_VERSION=0.13.2
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  say "installing a nightly toolchain (minimal profile) for cargo-fuzz"
  rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz ${CARGO_FUZZ_VERSION}" ]; then
  say "installing cargo-fuzz ${CARGO_FUZZ_VERSION} (takes about a minute)"
  cargo install --locked cargo-fuzz --version "${CARGO_FUZZ_VERSION}"
fi

# Debian's Chromium and its driver, for the browser tests (never a downloaded browser).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian's chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi

# Debian's kubectl (kubernetes-client, 1.20) for the kubectl session against the dev server.
# Where another package already owns /usr/bin/kubectl (e.g. the Google Cloud SDK's), the
# two cannot both be installed: Debian's package is then unpacked under target/ instead.
KUBECTL_UNPACKED=target/kubernetes-client
if ! dpkg-query -W -f='${Status}' kubernetes-client 2>/dev/null | grep -q "install ok installed" \
  && [ ! -x "${KUBECTL_UNPACKED}/usr/bin/kubectl" ]; then
  export DEBIAN_FRONTEND=noninteractive
  owner=$(dpkg -S /usr/bin/kubectl 2>/dev/null | cut -d: -f1 || true)
  if [ -z "${owner}" ]; then
    say "installing Debian's kubernetes-client (kubectl 1.20)"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null
  else
    say "unpacking Debian's kubernetes-client under ${KUBECTL_UNPACKED} (/usr/bin/kubectl belongs to ${owner})"
    apt-get update -qq
    tmp=$(mktemp -d) && chmod 755 "${tmp}"  # apt downloads as _apt
    (cd "${tmp}" && apt-get download -qq kubernetes-client >/dev/null)
    mkdir -p "${KUBECTL_UNPACKED}"
    dpkg-deb -x "${tmp}"/kubernetes-client_*.deb "${KUBECTL_UNPACKED}"
    rm -rf "${tmp}"
  fi
fi

# Node packages (TypeScript, binaryen's wasm-opt, client-node, playwright-core).
if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi

say "ok"
