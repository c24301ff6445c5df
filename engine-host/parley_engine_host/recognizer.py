"""The one Whisper model of this process and the work done with it (decode, transcribe, detect)."""

from __future__ import annotations

import dataclasses
import io
import re
import json
import wave
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import threading

import faster_whisper.transcribe as _fw_transcribe
import numpy as np
from faster_whisper import WhisperModel, decode_audio
from faster_whisper.audio import pad_or_trim as _pad_or_trim

from .batched import MAX_WINDOW_S, decode_batch, fails_thresholds, is_draft
from .languages import name_of
from .token_budget import fit, token_counter

SAMPLE_RATE = 16000
FRAMES_PER_SECOND = 100
# A looping fitted final is decoded again with at least this much silence after it (redo).
LOOP_RETRY_PAD_S = 10
# ... when it is at least this long (redo); shorter ones go to the 30 s window at once.
LOOP_RETRY_MIN_S = 2.0
# Inputs shorter than this get a bound on their text in the 30 s window too (decode()).
SHORT_INPUT_S = 10

# The fitted encoder window (request field `window_pad`, seconds): Whisper is trained on 30 s
# windows and faster-whisper pads every window to 30 s, so a pass over 2 s of speech costs the
# encoder as much as one over 30 s (~0.8 CPU-seconds for base on these cores). CTranslate2's
# encoder takes a shorter input; padded with a few seconds of silence after the speech the model
# still ends its text (without the pad it repeats itself), at a fraction of the cost (docs/whisper.md,
# "Fitted window"). faster-whisper pads inside its segment loop through the module's
# `pad_or_trim`; that name is replaced once by one that reads the pad of the request decoding on
# this thread (None: the usual 30 s).
_window = threading.local()


def _pad_for_request(array, length: int = 3000):
    pad = getattr(_window, "pad_frames", None)
    if pad is None:
        return _pad_or_trim(array, length)
    return _pad_or_trim(array, min(length, array.shape[-1] + pad))


_fw_transcribe.pad_or_trim = _pad_for_request


class BadAudio(ValueError):
    pass


def load_model(model_dir: Path, threads: int, workers: int, compute_type: str) -> WhisperModel:
    return WhisperModel(
        str(model_dir), device="cpu", compute_type=compute_type,
        cpu_threads=threads, num_workers=workers, local_files_only=True,
    )


def model_name(model_dir: Path) -> str:
    """'whisper-base' from source.json's entry (see install_model), else the folder's name."""
    try:
        return "whisper-" + json.loads((model_dir / "source.json").read_text())["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return model_dir.name


def read_audio(data: bytes) -> np.ndarray:
    """16 kHz mono float32. Parley's WAV (16 kHz mono s16le) is read directly; anything else
    goes through faster-whisper's own decoder (PyAV), which also resamples and downmixes."""
    if not data:
        raise BadAudio("the audio file is empty")
    samples = read_plain_wav(data)
    if samples is None:
        try:
            samples = decode_audio(io.BytesIO(data), sampling_rate=SAMPLE_RATE)
        except Exception as error:  # PyAV raises many types for undecodable input
            raise BadAudio(f"the audio file could not be decoded ({type(error).__name__})") from error
    if samples.size == 0:
        raise BadAudio("the audio file holds no samples")
    return samples


def read_plain_wav(data: bytes) -> np.ndarray | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    try:
        with wave.open(io.BytesIO(data)) as reader:
            if (reader.getframerate(), reader.getnchannels(), reader.getsampwidth()) != (SAMPLE_RATE, 1, 2):
                return None
            frames = reader.readframes(reader.getnframes())
    except (wave.Error, EOFError):
        return None  # e.g. WAVE_FORMAT_EXTENSIBLE or float: let PyAV try
    usable = len(frames) - len(frames) % 2
    return np.frombuffer(frames[:usable], dtype="<i2").astype(np.float32) / 32768.0


@dataclass
class Request:
    audio: np.ndarray
    language: str | None = None
    candidates: list[str] | None = None
    prompt: str | None = None
    hotwords: str | None = None
    temperature: float | None = None
    beam_size: int = 5
    condition_on_previous_text: bool = True
    vad_filter: bool = False
    word_timestamps: bool = False
    # Seconds of silence after the audio in a fitted encoder window; None: Whisper's 30 s window.
    window_pad: float | None = None
    # When the fitted window's text repeats itself (a loop): "full" decodes again in the 30 s
    # window (finals: right text, at the 30 s cost), "trim" keeps the text up to the repeat
    # (drafts: cheap, the final redoes them anyway).
    window_fallback: str = "full"


# A segment whose words the model itself gives less than this probability on average was not
# heard but made up: with a prompt or hot words, Whisper decodes the silence after the last word
# as the prompt's terms ("He was not an ill-disposed young man. Nginx Webpack Vite Svelte", those
# four at 0.00-0.02 and no longer than 0.4 s). Heard words, even misheard ones, score far higher
# (docs/whisper.md, "Invented segments").
INVENTED_WORD_PROBABILITY = 0.15
# But a term the hot words made the model spell their way is itself scored low ("Picovoice." at
# 0.07, alone in its VAD-cut utterance of multiple_keywords.wav): when every segment of a pass
# is under the threshold, its best one is kept if it reaches this floor (made-up ones score
# 0.00-0.02), since the audio was cut where the VAD heard speech.
ONLY_SEGMENT_FLOOR = 0.05


def word_probability(segment) -> float | None:
    words = segment.words or []
    return sum(w.probability for w in words) / len(words) if words else None


def without_invented(segments: list) -> list:
    """The segments that were heard (see INVENTED_WORD_PROBABILITY), in order."""
    scored = [(s, word_probability(s)) for s in segments]
    heard = [s for s, p in scored if p is None or p >= INVENTED_WORD_PROBABILITY]
    if heard or not scored:
        return heard
    best, p = max(scored, key=lambda item: item[1])
    return [best] if p >= ONLY_SEGMENT_FLOOR else []


# faster-whisper decodes what follows a window's last segment as a window of its own; when that
# is only the end of the input (the silence after the speech), Whisper continues the text it was
# given as the previous text instead of hearing anything. In a fitted window: the French "... ne
# possède pas de boîte vocale." came back followed by "Je vous invite à vous présenter, car
# l'expéditeur ne possède pas de bois de vocale" (a 0.45 s remainder of a 5.7 s final on an AMD
# EPYC). In the 30 s window: a 5.3 s LibriVox clip with 50 hot words ended "... all disposed. You
# can't just do it, you can't just do it, ..." (73 words from its 5.0-5.28 s remainder; at the
# ladder's temperatures 7 runs in 8 do it, each with another phrase). The window before it saw the
# whole remainder already (a window spans 30 s), so nothing heard is lost: segments of a window that
# starts this close to the input's end are dropped (those of the first window, at seek 0, are kept
# however late they start).
TAIL_WINDOW_S = 1.0


def without_tail_windows(segments: list, seconds: float) -> list:
    """The segments but those decoded from a window starting in the input's last TAIL_WINDOW_S."""
    return [s for s in segments if s.seek == 0 or s.seek / FRAMES_PER_SECOND < seconds - TAIL_WINDOW_S]


# A fitted window loops on some short inputs: "Blueberry Blueberry", "Grass Grass Helper",
# "Picovoice Picovoice Picovoice", or the whole utterance again ("This is the multi-keyboard
# test for porcupine This is the multi-keyboard test for porcup") (docs/whisper.md, "Fitted
# window"). Taken for a loop: a phrase of up to MAX_LOOP_WORDS words said twice in a row, or the
# utterance's first three words starting over. Real speech rarely does either ("very, very"), and
# then the fallback only costs time, never text.
MAX_LOOP_WORDS = 4


def normalized(words: list[str]) -> list[str]:
    """Words as the loop checks compare them: lower case, punctuation but apostrophes removed."""
    return [re.sub(r"[^\w']", "", w.lower()) for w in words]


def loop_start(words: list[str]) -> int | None:
    """Index of the word where the text starts repeating itself, or None. The repeat's last
    word may be cut short ("Grass Helper Grass Hel"): the output stops mid-loop."""
    norm = normalized(words)

    def repeats(first: list[str], second: list[str]) -> bool:
        if not all(second) or first[:-1] != second[:-1]:
            return False
        # A cut-short word only ends a repeat of two or more words ("an a" is no loop).
        return first[-1] == second[-1] or (len(first) > 1 and len(second[-1]) > 1 and first[-1].startswith(second[-1]))

    for end in range(1, len(norm) + 1):
        for n in range(1, MAX_LOOP_WORDS + 1):
            if end >= 2 * n and repeats(norm[end - 2 * n:end - n], norm[end - n:end]):
                return end - n
        if end >= 6 and norm[end - 3:end] == norm[:3]:
            return end - 3
    return None


# One to three letters said five or more times in a row inside a word ("Grass-HHHHHHHH",
# "Helperurururururur"): no word has that (digits do: "100000" is left alone).
LETTER_LOOP = re.compile(r"([^\W\d_]{1,3})\1{4,}")


def segments_loop_start(segments: list) -> int | None:
    """loop_start over the segments' words (by whitespace, as `trimmed` counts them). A loop
    inside one hyphenated word ("Grass-H-H-H-H-", base on a 1.4 s "Grasshopper" in a fitted
    window on some CPUs) counts too: it starts at the word that holds it."""
    words = [w for s in segments for w in s.text.split()]
    repeat = loop_start(words)
    if repeat is not None:
        return repeat
    parts = [(part, i) for i, w in enumerate(words) for part in w.split("-")]
    repeat = loop_start([part for part, _ in parts])
    if repeat is not None:
        return parts[repeat][1]
    # Letters looping inside a word ("Grass-HHHHHHHH", the same 1.4 s at temperature 0.4).
    return next((i for i, w in enumerate(words) if LETTER_LOOP.search(w)), None)


# A runaway loop: the model says one phrase again and again until its token budget ends ("I'm
# not a real real real ..." a hundred times: base in the 30 s window on a LibriVox clip with a
# 50-term hotword list; the temperature ladder's samples differ from run to run, so only some
# runs do it). Real speech says a phrase at most three or four times in a row ("no, no, no, no"):
# a phrase of up to MAX_RUNAWAY_WORDS words said RUNAWAY_REPEATS times or more in a row is kept
# once. Runaway phrases run longer than a fitted window's loops ("we're all in the same state",
# "just a little bit of ego"). Unlike loop_start (a fitted window's short input, decoded again),
# this holds for any length.
RUNAWAY_REPEATS = 5
MAX_RUNAWAY_WORDS = 10


def runaway_span(words: list[str]) -> tuple[int, int] | None:
    """[start, end) of the repeats after a runaway phrase's first saying (a cut-short last
    repeat included), or None."""
    norm = normalized(words)
    for i in range(len(norm)):
        for n in range(1, MAX_RUNAWAY_WORDS + 1):
            phrase = norm[i:i + n]
            if len(phrase) < n or not all(phrase):
                break
            times = 1
            while norm[i + times * n:i + (times + 1) * n] == phrase:
                times += 1
            if times >= RUNAWAY_REPEATS:
                end = i + times * n
                # The budget may end mid-repeat: "real real rea".
                while end < len(norm) and end - (i + times * n) < n and norm[end] and \
                        phrase[(end - i) % n].startswith(norm[end]):
                    end += 1
                return i + n, end
    return None


def without_runaway(segments: list) -> list:
    """The segments with each runaway phrase kept once (text and word times alike)."""
    out = []
    for segment in segments:
        for _ in range(8):  # a segment with several runaways: one at a time
            words = segment.text.split()
            span = runaway_span(words)
            if span is None:
                break
            start, end = span
            timed = segment.words
            if timed and len(timed) == len(words):
                timed = timed[:start] + timed[end:]
            last = segment.end if end < len(words) or not timed else timed[-1].end
            segment = dataclasses.replace(segment, text=" " + " ".join(words[:start] + words[end:]), words=timed,
                                          end=last)
        out.append(segment)
    return out


def segments_fail(segments: list) -> bool:
    """faster-whisper's reason to retry a window at a higher temperature, on its segments (those
    of one window share its figures): too repetitive or too improbable. Silence was dropped."""
    return any(fails_thresholds(s.avg_logprob, s.compression_ratio) for s in segments)


def trimmed(segments: list, keep: int) -> list:
    """The segments cut to their first `keep` words (by whitespace), word times cut alike."""
    out = []
    for segment in segments:
        words = segment.text.split()
        if keep <= 0:
            break
        if len(words) <= keep:
            out.append(segment)
        else:
            timed = segment.words[:keep] if segment.words and len(segment.words) == len(words) else segment.words
            end = timed[-1].end if timed else segment.end
            out.append(dataclasses.replace(segment, text=" " + " ".join(words[:keep]), words=timed, end=end))
        keep -= len(words)
    return out


def run_to_end(steps: Generator[None, None, Any]) -> Any:
    """The return value of a job generator, run without yielding (inside a group's work)."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


class Recognizer:
    def __init__(self, model: WhisperModel, name: str):
        self.model = model
        self.name = name
        # faster-whisper lists every code it knows (100 with "yue") for any multilingual model;
        # only those with a language token in this model's vocabulary can be served (99 before v3).
        tokens = model.hf_tokenizer
        self.languages: list[str] = [c for c in model.supported_languages if tokens.token_to_id(f"<|{c}|>") is not None]

    def detect(self, audio: np.ndarray, candidates: list[str] | None) -> dict[str, Any]:
        """Language of the first 30 s; among the candidates only when given (renormalized)."""
        if len(self.languages) == 1:  # an English-only model (tiny.en) has nothing to detect
            only = {"language": self.languages[0], "probability": 1.0}
            return {**only, "candidates": [only]}
        _, _, all_probs = self.model.detect_language(audio=audio)
        ranked = [(code, p) for code, p in all_probs if not candidates or code in candidates]
        if candidates:
            total = sum(p for _, p in ranked) or 1.0
            ranked = [(code, p / total) for code, p in ranked]
        ranked.sort(key=lambda item: item[1], reverse=True)
        top = [{"language": code, "probability": round(p, 4)} for code, p in ranked[:5]]
        return {"language": top[0]["language"], "probability": top[0]["probability"], "candidates": top}

    def transcribe(self, request: Request) -> Generator[None, None, dict[str, Any]]:
        """A scheduler job: yields after each decoded segment (~one 30 s window)."""
        language, probability = request.language, None
        if language is None and request.candidates:
            detected = self.detect(request.audio, request.candidates)
            language, probability = detected["language"], detected["probability"]
            yield
        segments, info = yield from self.decode(request, language, request.window_pad)
        if request.window_pad is not None:
            repeat = segments_loop_start(segments)
            if request.window_fallback == "full" and (repeat is not None or segments_fail(segments)):
                segments, info = yield from self.redo(request, language)
            elif repeat is not None:
                segments = trimmed(segments, repeat)
        if probability is None:
            probability = info.language_probability
        return self.verbose(segments, info.language, probability, info.duration, request.word_timestamps)

    def transcribe_batch(self, requests: list[Request]) -> list[dict[str, Any]]:
        """Live requests with the same batched.batch_key, decoded together. A draft's loop is
        trimmed. Finals whose text loops or fails faster-whisper's thresholds are decoded again
        as the sequential path does (`redo_batch`)."""
        results: list[dict[str, Any] | None] = [None] * len(requests)
        again: list[int] = []
        for i, (request, (segments, duration, retry)) in enumerate(zip(requests, decode_batch(self.model, requests))):
            kept = without_invented(segments)
            repeat = segments_loop_start(kept)
            if is_draft(request):
                if repeat is not None:
                    kept = trimmed(kept, repeat)
            elif repeat is not None or retry:  # as transcribe() does with such a final
                again.append(i)
                continue
            results[i] = self.verbose(kept, request.language, 1.0, duration, request.word_timestamps)
        for i, result in zip(again, self.redo_batch([requests[i] for i in again])):
            results[i] = result
        return results

    def redo_batch(self, requests: list[Request]) -> list[dict[str, Any]]:
        """`redo` for the finals of one batch that need it: decoded again together at the wider
        pad, then each that still loops or fails alone in the 30 s window. One after another,
        four sessions' looping finals of one utterance end (jfk's second "And so my fellow
        Americans" on Intel Xeon) cost 0.36 s each after their batch, and the last session's
        caption came 1.5 s later than the first's (docs/whisper.md, session 21)."""
        if not requests:
            return []
        wider = max(LOOP_RETRY_PAD_S, (requests[0].window_pad or 0) * 2)
        longest = max(len(r.audio) for r in requests) / SAMPLE_RATE
        fitted = longest + wider < MAX_WINDOW_S  # every batched final is >= LOOP_RETRY_MIN_S long
        decoded = decode_batch(self.model, requests, window_pad=wider) if fitted else [None] * len(requests)
        results = []
        for request, again in zip(requests, decoded):
            if again is not None:
                segments, duration, retry = again
                kept = without_invented(segments)
                if segments_loop_start(kept) is None and not retry:
                    results.append(self.verbose(kept, request.language, 1.0, duration, request.word_timestamps))
                    continue
            kept, info = run_to_end(self.decode(request, request.language, None))
            results.append(self.verbose(kept, info.language, info.language_probability, info.duration,
                                        request.word_timestamps))
        return results

    def redo(self, request: Request, language: str | None):
        """A final whose fitted text loops or fails faster-whisper's thresholds, decoded again:
        first with a longer silence after the audio (a 2.7 s "And so my fellow Americans" that
        loops at a 5 s pad ends cleanly at 8 s and more, at under half the 30 s window's cost),
        then, if that fails too, in the 30 s window. A fitted window decodes at temperature 0
        only: the ladder's samples there gave a different text each run ("Grass copper", "Grass
        Helperururur", "Grass-HHHH" for a 1.4 s "Grasshopper"), where the 30 s window at
        temperature 0 gives one ("Grass Helper")."""
        wider = max(LOOP_RETRY_PAD_S, (request.window_pad or 0) * 2)
        seconds = len(request.audio) / SAMPLE_RATE
        # Single words of about a second loop at every pad (5, 10, 20 s: "Helperurururur" at 10):
        # only longer speech gets the second fitted try.
        if LOOP_RETRY_MIN_S <= seconds and seconds + wider < MAX_WINDOW_S:
            segments, info = yield from self.decode(request, language, wider)
            if segments_loop_start(segments) is None and not segments_fail(segments):
                return segments, info
        return (yield from self.decode(request, language, None))

    def decode(self, request: Request, language: str | None, window_pad: float | None):
        """One faster-whisper pass (a sub-generator of transcribe): (kept segments, info)."""
        options: dict[str, Any] = {
            "language": language,
            "initial_prompt": request.prompt or None,
            "hotwords": request.hotwords or None,
            "beam_size": request.beam_size,
            "condition_on_previous_text": request.condition_on_previous_text,
            "vad_filter": request.vad_filter,
            "word_timestamps": request.word_timestamps,
        }
        seconds = len(request.audio) / SAMPLE_RATE
        if window_pad is not None:
            # A fitted window may loop on a short input ("Pineapple Pineapple ..."): speech holds
            # far fewer than 8 tokens a second, so this bounds a loop's cost, not real text.
            options["max_new_tokens"] = min(220, int(seconds * 8) + 8)
        elif seconds < SHORT_INPUT_S:
            # Whisper's 30 s window around a short input (a live final under 2 s, a cough the
            # energy gate let in, a stream's last 0.1 s): on near-silence the model writes ~224
            # tokens of invented text at each of the ladder's six temperatures, 6.9 s of CPU for a
            # 0.15 s input that ends empty anyway (1.4 s with this cap). Twice the fitted
            # window's bound, far above real speech in any language; longer inputs (imports) keep
            # faster-whisper's own limit.
            options["max_new_tokens"] = int(seconds * 16) + 16
        # The bound and the prompt must fit Whisper's 448 tokens (token_budget.py).
        bound, options["hotwords"] = fit(token_counter(self.model), self.model.max_length, options.get("max_new_tokens"),
                                         seconds, options["initial_prompt"], options["hotwords"], prompt_grows=True)
        if bound is not None:
            options["max_new_tokens"] = bound
        if request.temperature:  # 0 or absent: faster-whisper's fallback ladder, as OpenAI does
            options["temperature"] = [request.temperature]
        elif window_pad is not None:
            # A fitted window decodes once, at temperature 0. A draft (the final redoes it): the
            # ladder's retries on hard audio (shouted, noisy) cost it 3-5 passes. A final: the
            # ladder's samples differ from run to run; it is decoded again instead (redo).
            options["temperature"] = [0.0]
        segments_iter, info = self.model.transcribe(request.audio, **options)
        segments = []
        pad = None if window_pad is None else int(window_pad * FRAMES_PER_SECOND)
        # The window is padded inside next(); the thread-local pad is set only around it, since
        # the scheduler may step another request's job on this thread between two segments.
        while True:
            _window.pad_frames = pad
            try:
                segment = next(segments_iter)
            except StopIteration:
                break
            finally:
                _window.pad_frames = None
            segments.append(segment)
            yield
        # With the VAD filter, seeks count in the speech it kept, not in the input.
        segments = without_tail_windows(segments, info.duration_after_vad if request.vad_filter else seconds)
        return without_invented(segments), info

    def verbose(self, segments, language: str, probability: float, duration: float, words: bool) -> dict[str, Any]:
        segments = without_runaway(segments)  # whatever path decoded them: no text leaves with one
        result: dict[str, Any] = {
            "task": "transcribe",
            "model": self.name,
            "language": name_of(language),
            "language_code": language,
            "language_probability": round(float(probability), 4),
            "duration": round(float(duration), 3),
            "text": "".join(s.text for s in segments).strip(),
            "segments": [
                {
                    "id": i,
                    "seek": s.seek,
                    "start": round(s.start, 3),
                    "end": round(s.end, 3),
                    "text": s.text,
                    "tokens": list(s.tokens),
                    "temperature": s.temperature,
                    "avg_logprob": s.avg_logprob,
                    "compression_ratio": s.compression_ratio,
                    "no_speech_prob": s.no_speech_prob,
                }
                for i, s in enumerate(segments)
            ],
        }
        if words:
            result["words"] = [
                {"word": w.word.strip(), "start": round(w.start, 3), "end": round(w.end, 3),
                 "probability": round(w.probability, 4)}
                for s in segments for w in (s.words or [])
            ]
        return result
