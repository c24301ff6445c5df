#!/usr/bin/env bash
# Installs the two live Whisper servers that `npm run bench:peers` compares Parley with, each in
# its own venv under .venv/ (gitignored; PARLEY_PEERS_VENV_DIR: elsewhere). For the benchmark only: Parley's setup never runs this.
#
#   .venv/peers-whisperlivekit  whisperlivekit 0.2.26 (+ faster-whisper 1.2.1, torch 2.13.0 CPU)
#   .venv/peers-whisperlive     whisper-live 0.10.0   (+ faster-whisper 1.2.0 as it pins, torch 2.13.0 CPU)
#
# Both declare `torch` and `torchaudio` unpinned. Plain `torch` from the index is a CUDA build of
# several GB, and the newest torchaudio here (2.11.0) pins torch==2.11.0 (a CUDA build again). So
# each package is installed with --no-deps and its declared requirements are installed by hand,
# under a constraint torch==2.13.0 (the CPU wheel on this machine's disk), leaving out what the
# faster-whisper WebSocket server never imports (see docs/benchmarks-peers.md for each omission).
# After the install, a check fails the script if any nvidia-* or torchaudio package got in, or if
# torch is not the CPU build.
#
# What each needs at run time to stay offline: docs/benchmarks-peers.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
# PARLEY_PEERS_VENV_DIR: another folder for the two venvs (bench/peers/systems.ts reads it too),
# e.g. in a worktree whose .venv is a link to another checkout's installed copy.
VENVS="${PARLEY_PEERS_VENV_DIR:-$ROOT/.venv}"
WLK="$VENVS/peers-whisperlivekit"
WL="$VENVS/peers-whisperlive"
CONSTRAINTS="$(mktemp)"
trap 'rm -f "$CONSTRAINTS"' EXIT
echo "torch==2.13.0" >"$CONSTRAINTS"

step() { echo "[peers setup] $*"; }

make_venv() {
  if [ ! -x "$1/bin/python" ]; then
    step "creating $1"
    "$PYTHON" -m venv "$1"
  fi
  "$1/bin/pip" install -q --upgrade pip >/dev/null
}

# Fails when a CUDA wheel or torchaudio got into the venv, or torch is not the CPU build.
check_cpu_only() {
  local bad
  bad="$("$1/bin/pip" list --format=freeze 2>/dev/null | grep -Ei '^(nvidia-|torchaudio|triton)' || true)"
  if [ -n "$bad" ]; then
    echo "[peers setup] $1 holds packages it must not: $bad" >&2
    exit 1
  fi
  "$1/bin/python" -c 'import torch,sys; v=torch.__version__; print("[peers setup] torch", v); sys.exit(0 if v.startswith("2.13.0") and torch.version.cuda is None else 1)'
}

t0=$(date +%s)
make_venv "$WLK"
step "whisperlivekit 0.2.26 into $WLK"
"$WLK/bin/pip" install -q -c "$CONSTRAINTS" torch==2.13.0
"$WLK/bin/pip" install -q -c "$CONSTRAINTS" --no-deps whisperlivekit==0.2.26
# Its declared requirements minus torchaudio (imported nowhere on the server path; only `wlk doctor` probes for it).
"$WLK/bin/pip" install -q -c "$CONSTRAINTS" \
  'fastapi>=0.141.1' librosa soundfile uvicorn websockets 'huggingface-hub>=0.25.0' \
  faster-whisper==1.2.1 tqdm tiktoken 'python-multipart>=0.0.31' 'starlette>=1.3.1'
check_cpu_only "$WLK"
t1=$(date +%s)
step "whisperlivekit venv ready in $((t1 - t0)) s"

make_venv "$WL"
step "whisper-live 0.10.0 into $WL"
"$WL/bin/pip" install -q -c "$CONSTRAINTS" torch==2.13.0
"$WL/bin/pip" install -q -c "$CONSTRAINTS" --no-deps whisper-live==0.10.0
# Its declared requirements that the faster_whisper server imports; left out: PyAudio (microphone
# client, needs portaudio headers to build), torchaudio, openai-whisper, openvino*, optimum*,
# nvidia-cublas/cudnn-cu12 (GPU), kaldialign/librosa/numba (TensorRT and OpenVINO backends).
"$WL/bin/pip" install -q -c "$CONSTRAINTS" \
  faster-whisper==1.2.0 av websockets websocket-client 'onnxruntime>=1.20.0,<2' scipy soundfile \
  'tokenizers==0.20.3' 'numpy>=1.26.4,<2.5' fastapi uvicorn python-multipart
check_cpu_only "$WL"
step "whisper-live venv ready in $(($(date +%s) - t1)) s"
