"""Drafts of several live sessions decoded as one batch (docs/whisper.md, "Batched drafts").

Every live session sends an interim pass (a draft: greedy, fitted window) a few times a
second. One at a time, N sessions cost N encoder and decoder runs; CTranslate2 runs a batch of
windows through the encoder and the greedy decoder together for much less than N times one
(matrix products over several rows at once), which is what lets a 2-core machine keep several
sessions' interims fresh. Drafts that can share a batch are those the decoder treats alike: the
same language, prompt, hot words and pad (`batch_key`); each window is padded with silence to
the longest one's length plus the pad.

Live finals in a fitted window (beam search, `window_fallback=full`) are batched the same way,
among themselves: when several sessions' utterances end together, their finals (0.3-0.6 s each
on 2 cores) otherwise wait for each other one by one. A final is decoded through this path even
alone, so its text does not depend on whether others waited with it; finals share a batch only
when their audio lengths fall in the same FINAL_BUCKET_S bucket (the padding a shorter one gains
stays small). Where the sequential path would go on, the final is decoded again as there: when
its text loops or fails faster-whisper's thresholds, at a longer pad (the batch's looping finals
together) and then, each alone, in the 30 s window (recognizer.py, `redo_batch`).

faster-whisper's own batched pipeline does this for the 30 s chunks of one file; its
`forward` is used here over windows of different sessions instead (the decode, the split into
segments and the word times are faster-whisper's, pinned in requirements.txt).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from faster_whisper.audio import pad_or_trim
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import (
    BatchedInferencePipeline,
    Segment,
    TranscriptionOptions,
    Word,
    get_compression_ratio,
    get_suppressed_tokens,
)

from .token_budget import fit, token_counter

# More drafts than this wait for the next batch: the batch's latency grows with its size.
MAX_BATCH = 8
SAMPLE_RATE = 16000
FRAMES_PER_SECOND = 100
MAX_WINDOW_S = 30
# faster-whisper drops a segment as silence when both thresholds are crossed (its defaults).
NO_SPEECH_THRESHOLD = 0.6
LOG_PROB_THRESHOLD = -1.0
COMPRESSION_RATIO_THRESHOLD = 2.4
# Finals whose audio lengths fall in the same bucket of this many seconds may share a batch.
FINAL_BUCKET_S = 2.0
# Finals shorter than this take the sequential path: Parley sends fitted-window finals only for
# utterances of 2 s and more (PARLEY_WHISPER_FITTED_FINAL_MIN_S); on a ~1.4 s single word
# ("Grasshopper" in multiple_keywords.wav) the batched path's retry gave "Grass-HHHHHHHH" where
# the sequential one's loop check takes the 30 s window (test_engine_host).
MIN_BATCHED_FINAL_S = 2.0


def is_draft(request) -> bool:
    """A live draft: greedy, its loops trimmed (the final redoes it)."""
    return request.beam_size == 1 and request.window_fallback == "trim"


def batch_key(request) -> tuple | None:
    """Live requests with the same key can share a batch; None: this one is decoded alone.
    Drafts and finals (fitted window, 30 s fallback) never share one (beam size and fallback
    are in the key); finals only with others of about the same length (FINAL_BUCKET_S)."""
    batchable = (
        request.window_pad is not None and request.language is not None
        and not request.candidates and not request.temperature and not request.vad_filter
        and (is_draft(request) or (request.window_fallback == "full"
                                   and len(request.audio) >= MIN_BATCHED_FINAL_S * SAMPLE_RATE))
        # One window each: longer audio takes the sequential path, window by window.
        and len(request.audio) <= MAX_WINDOW_S * SAMPLE_RATE
    )
    if not batchable:
        return None
    bucket = None if is_draft(request) else int(len(request.audio) / SAMPLE_RATE / FINAL_BUCKET_S)
    return (request.beam_size, request.window_fallback, bucket, request.language, request.prompt or "",
            request.hotwords or "", request.window_pad, request.word_timestamps)


def decode_batch(model, requests: list, window_pad: float | None = None) -> list[tuple[list[Segment], float, bool]]:
    """Each request's segments, duration (seconds) and whether faster-whisper's sequential
    path would have retried it at a higher temperature, decoded in one batch (same batch_key).
    Drafts decode without timestamp tokens (cheaper); finals with them, as the sequential path.
    `window_pad`: silence after the longest audio, when not the requests' own (a redo's)."""
    first = requests[0]
    pad = first.window_pad if window_pad is None else window_pad
    final = not is_draft(first)
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=first.language)
    features = [model.feature_extractor(r.audio)[..., :-1] for r in requests]
    frames = min(3000, max(f.shape[-1] for f in features) + int(pad * FRAMES_PER_SECOND))
    stacked = np.stack([pad_or_trim(f, frames) for f in features])
    durations = [len(r.audio) / SAMPLE_RATE for r in requests]
    prompt = first.prompt or None
    # A fitted window may loop (see recognizer.py): bounded as there, by the longest audio, and
    # with the prompt within Whisper's 448 tokens (token_budget.py).
    max_new_tokens, hotwords = fit(token_counter(model), model.max_length, min(220, int(max(durations) * 8) + 8),
                                   max(durations), prompt, first.hotwords or None, prompt_grows=False)
    if final and prompt:
        prompt = " " + prompt.strip()  # tokenized as the sequential path does (leading space)
    options = TranscriptionOptions(
        beam_size=first.beam_size, best_of=1, patience=1, length_penalty=1, repetition_penalty=1, no_repeat_ngram_size=0,
        log_prob_threshold=LOG_PROB_THRESHOLD, no_speech_threshold=NO_SPEECH_THRESHOLD,
        compression_ratio_threshold=COMPRESSION_RATIO_THRESHOLD, condition_on_previous_text=False,
        prompt_reset_on_temperature=0.5, temperatures=[0.0], initial_prompt=prompt, prefix=None,
        suppress_blank=True, suppress_tokens=get_suppressed_tokens(tokenizer, [-1]), without_timestamps=not final,
        max_initial_timestamp=0.0,
        word_timestamps=first.word_timestamps, prepend_punctuations="\"'“¿([{-",
        append_punctuations="\"'.。,，!！?？:：”)]}、", multilingual=False,
        max_new_tokens=max_new_tokens, clip_timestamps="0",
        hallucination_silence_threshold=None, hotwords=hotwords,
    )
    pipeline = BatchedInferencePipeline(model)
    chunks = [{"offset": 0.0, "duration": d, "segments": []} for d in durations]
    outputs = pipeline.forward(stacked, tokenizer, chunks, options)
    return [(to_segments(parts), duration, needs_fallback(parts)) for parts, duration in zip(outputs, durations)]


def fails_thresholds(avg_logprob: float, compression_ratio: float) -> bool:
    """faster-whisper's reason to retry a window at a higher temperature (generate_with_fallback):
    too improbable or too repetitive. The one rule of the batched and the sequential paths."""
    return avg_logprob < LOG_PROB_THRESHOLD or compression_ratio > COMPRESSION_RATIO_THRESHOLD


def needs_fallback(parts: list[dict[str, Any]]) -> bool:
    """fails_thresholds on a batched window, unless it is silence."""
    if not parts:
        return False
    first = parts[0]  # avg_logprob and no_speech_prob are the window's, the same on every part
    if first["avg_logprob"] < LOG_PROB_THRESHOLD and first["no_speech_prob"] > NO_SPEECH_THRESHOLD:
        return False  # silence
    text = "".join(p["text"] for p in parts).strip()
    return fails_thresholds(first["avg_logprob"], get_compression_ratio(text))


def to_segments(parts: list[dict[str, Any]]) -> list[Segment]:
    """faster-whisper's batched dicts as the Segment objects of its sequential path."""
    out = []
    for i, p in enumerate(parts):
        if p["no_speech_prob"] > NO_SPEECH_THRESHOLD and p["avg_logprob"] < LOG_PROB_THRESHOLD:
            continue  # silence, as the sequential path judges it
        words = [Word(start=w["start"], end=w["end"], word=w["word"], probability=w["probability"]) for w in p.get("words") or []]
        out.append(Segment(
            id=i, seek=p["seek"], start=p["start"], end=p["end"], text=p["text"], tokens=p["tokens"],
            avg_logprob=p["avg_logprob"], compression_ratio=p["compression_ratio"], no_speech_prob=p["no_speech_prob"],
            words=words or None, temperature=0.0,
        ))
    return out
