#!/usr/bin/env bash
# `npm run mutate [-- src/delay.ts ...]`: Stryker on the core, one file per run, each with its own incremental file
# (mutation/<file>.incremental.json, a full report), so a re-run after a small change re-tests only what changed, and
# a run cut short keeps the files it finished. `node mutation/table.mjs` prints the per-file table from them.
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(ls src/*.ts src/http/*.ts | grep -vE '^src/(cli|index)\.ts$')
fi
for file in "${files[@]}"; do
  echo "mutate: $file"
  MUTATE="$file" mutation/node_modules/.bin/stryker run 2>&1 | grep -vE '^Mutation testing [0-9]+%' || true
done
