#!/usr/bin/env bash
# Builds replicore-tools: the CLI, the operator and the dev server (TypeScript) into dist/.
# The engine comes from the workspace's `replicore` package (node/), built first by the
# root `npm run build`; these sources import it only through its public entries.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/../node_modules/.bin:$PATH"

rm -rf dist
tsc -p tsconfig.json
chmod +x dist/cli.js
