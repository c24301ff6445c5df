#!/usr/bin/env bash
# Runs the Whisper engine host on its own (docs/whisper.md), for Parley processes on this or
# other machines to share through PARLEY_WHISPER_URL=http://<this machine>:<port>/v1.
#   npm run engine-host -- [--port 8765] [--host 0.0.0.0] [--threads N] [--workers W]
# The model is PARLEY_WHISPER_MODEL_DIR, else <models folder>/whisper-<PARLEY_WHISPER_MODEL>.
# `npm run setup` installs the environment and the model first.
set -euo pipefail
cd "$(dirname "$0")/.."
models_dir="${PARLEY_MODELS_DIR:-${PARLEY_DATA_DIR:-./data}/models}"
model_dir="${PARLEY_WHISPER_MODEL_DIR:-$models_dir/whisper-${PARLEY_WHISPER_MODEL:-base}}"
python=".venv/engine-host/bin/python"
[ -x "$python" ] || { echo "engine-host: no environment at $python: run npm run setup" >&2; exit 1; }
[ -f "$model_dir/model.bin" ] || { echo "engine-host: no Whisper model in $model_dir: run npm run setup" >&2; exit 1; }
# Standalone: no parent process whose end stops it; defaults a port callers can be told.
exec "$python" -m parley_engine_host --model-dir "$model_dir" --port 8765 --ignore-stdin "$@"
