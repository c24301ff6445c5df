#!/usr/bin/env bash
# The whole test suite: setup (idempotent), format and lint, type check, then every test.
# PostgreSQL and Redis suites run when DATABASE_URL / REDIS_URL are set (tests build the
# app's own configuration explicitly; the default suite always uses SQLite), else skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== lint and format (biome)"
npx biome check .
echo "== type check (tsc)"
npx tsc -p tsconfig.json
npx tsc -p web/console/tsconfig.json
echo "== tests (vitest)"
summary=$(mktemp)
status=0
PARLEY_TEST_SUMMARY_FILE="$summary" npx vitest run "$@" || status=$?
echo
cat "$summary" 2>/dev/null || true
rm -f "$summary"
exit $status
