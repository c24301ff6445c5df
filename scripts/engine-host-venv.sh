#!/usr/bin/env bash
# The engine host's Python virtual environment with the pinned engine-host/requirements.txt
# (faster-whisper and what it needs, onnxruntime, numpy). Used by scripts/setup-engine-host.sh
# (Whisper) and scripts/setup-japanese-voice.sh (Japanese speech). Idempotent: a stamp holding
# the requirements' hash makes the re-run a no-op.
#   env PARLEY_ENGINE_HOST_VENV  virtual environment (default <project>/.venv/engine-host)
#   env PYTHON                   interpreter to create the venv with (default python3, needs >= 3.9)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PARLEY_ENGINE_HOST_VENV:-$root/.venv/engine-host}"
python="${PYTHON:-python3}"
requirements="$root/engine-host/requirements.txt"
say() { printf '[engine-host-venv] %s\n' "$*" >&2; }
started=$EPOCHREALTIME

stamp="$venv/.parley-requirements-sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  say "venv $venv is up to date"
  exit 0
fi
say "creating venv $venv and installing engine-host/requirements.txt (faster-whisper, ctranslate2, av, onnxruntime; ~110 MB of wheels)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
# The host package is used from the source tree (a .pth line), so edits need no reinstall.
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$root/engine-host" > "$site/parley-engine-host.pth"
echo "$want" > "$stamp"
say "venv ready in $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
