#!/bin/sh
# Builds the server (turbo, cached) silently unless the build fails, for commands whose output
# scripts read: `pnpm -s plant-store tokens create …` prints the token alone.
log=$(turbo run build --filter=@plant-store/server --output-logs=errors-only 2>&1) || {
  printf '%s\n' "$log" >&2
  exit 1
}
