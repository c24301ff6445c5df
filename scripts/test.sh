#!/usr/bin/env bash
# The whole test suite: setup (idempotent), format and lint, type check, then every test.
# PostgreSQL and Redis suites run when DATABASE_URL / REDIS_URL are set (tests build the
# app's own configuration explicitly; the default suite always uses SQLite), else skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Test material that only tests use (real Spanish and French speech, docs/whisper.md); the
# tests that need it fail with the reason if it cannot be fetched.
bash scripts/setup-test-speech.sh || echo "setup-test-speech failed: the Whisper language tests will fail"
echo "== lint and format (biome)"
npx biome check .
echo "== type check (tsc)"
npx tsc -p tsconfig.json
npx tsc -p web/console/tsconfig.json
# The engine host's Python tests run as one file of the suite (test/engines/engine-host-python.test.ts).
echo "== tests (vitest; the engine host's Python tests among them)"
summary=$(mktemp)
status=0
PARLEY_TEST_SUMMARY_FILE="$summary" npx vitest run "$@" || status=$?
echo
cat "$summary" 2>/dev/null || true
rm -f "$summary"
exit $status
