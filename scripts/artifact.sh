#!/usr/bin/env bash
# `pnpm artifact`: writes out/server/, the self-contained production server: the built server
# (dist/main.js, dist/cli.js), its production node_modules (native better-sqlite3 built for the
# Node running this script) and the `plant-store` bin. Copy the folder anywhere and run
# `node out/server/dist/main.js` (server) or `node out/server/dist/cli.js` (tokens CLI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=out/server

turbo run build --filter=@plant-store/server --output-logs=errors-only
rm -rf "$out"
# pnpm 10's deploy installs exactly what the shared lockfile pins, and does so only with
# inject-workspace-packages on (otherwise it needs --legacy and warns). It is set for the deploy
# alone: the server bundles the workspace packages, and every npm package but the native SQLite
# driver, into dist/ (apps/server/tsup.config.ts), so they are devDependencies, none a
# production dependency to inject, and the development install keeps its symlinked packages.
pnpm --filter @plant-store/server deploy --prod --config.inject-workspace-packages=true --config.confirmModulesPurge=false "$out"

# Of better-sqlite3 only lib/ and the compiled addon are loaded; the C sources (SQLite's
# amalgamation included) and the build intermediates (object files, the static SQLite library,
# a test extension) are megabytes the server never reads.
for package in "$out"/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3; do
  rm -rf "$package/deps" "$package/src"
  find "$package/build/Release" -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} +
done
# Source maps stay (stack traces name source lines); the deploy's own bookkeeping does not.
rm -f "$out"/node_modules/.pnpm/lock.yaml "$out"/node_modules/.pnpm-workspace-state-v1.json

files=$(find "$out" -type f | wc -l)
size=$(du -sh "$out" | cut -f1)
echo "artifact: $out ($size, $files files); start: node $out/dist/main.js" >&2
