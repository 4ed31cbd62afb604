#!/bin/sh
# `pnpm start`'s build: says what it does, then turbo prints one line per task as it starts
# (`cache miss, executing …`, or `cache hit` once built), so the first start's minute of
# building is not silent. hash-only hides task output; should a task fail, turbo runs again
# showing that output (the tasks that succeeded are cached by then).
echo "Building the server (about a minute the first time, a second once turbo has cached it)…"
turbo run build --filter=@plant-store/server --output-logs=hash-only ||
  exec turbo run build --filter=@plant-store/server --output-logs=errors-only
