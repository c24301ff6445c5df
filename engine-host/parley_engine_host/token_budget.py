"""Whisper's decoder holds 448 tokens: the prompt (hotwords, then the initial prompt and the text
decoded before it, each cut by faster-whisper to its last 223 tokens, then 3-5 control tokens)
and the tokens it writes. When a request bounds the new tokens (`max_new_tokens`: a fitted
window, a short input; recognizer.py), faster-whisper checks prompt + bound <= 448 before each
window and raises ValueError otherwise: a 7 s LibriVox clip with a 50-term glossary (109 tokens
of hotwords, 159 of prompt) failed its second pass that way, once the first pass's text had
joined the prompt (500 recognition_failed).

Without a bound, a prompt of 448 tokens or more fails in CTranslate2 instead (an import of 30 s
and more with a 150-term glossary: 223 tokens of hotwords and 223 of earlier text).

`fit` gives a bound and hotwords that always fit, whatever the prompt grows to: the bound first
comes down to the audio's real-speech ceiling (never below it), then hotwords are cut, last terms
first (the terms stay in the initial prompt). Without hotwords nothing changes (every bound
Parley asks for is at most 220 tokens)."""

from __future__ import annotations

from typing import Callable


# faster-whisper cuts hotwords and the previous text each to max_length // 2 - 1 tokens.
def half(max_length: int) -> int:
    return max_length // 2 - 1


# sot_prev, sot, language, task, no_timestamps: the most control tokens a prompt holds.
CONTROL_TOKENS = 5
# The least bound fit keeps before it cuts hotwords: far above real speech (about 3-4 tokens a
# second in English), below the fitted window's 8 a second (recognizer.py).
SPEECH_TOKENS_PER_S = 6
# What an unbounded window's text keeps at least when hotwords crowd the prompt: about 70 words,
# a 30 s window of brisk speech. faster-whisper itself leaves a window as little once its prompt
# holds a 50-term glossary and 223 tokens of earlier text.
UNBOUNDED_WINDOW_TOKENS = 100


def fit(
    count: Callable[[str], int],
    max_length: int,
    wanted: int | None,
    seconds: float,
    prompt: str | None,
    hotwords: str | None,
    prompt_grows: bool,
) -> tuple[int | None, str | None]:
    """(max_new_tokens, hotwords) for a decode that asked for `wanted` new tokens at most (None:
    no bound, the window's text gets whatever the prompt leaves of 448). `count` tokenizes as
    faster-whisper does (" " + text). `prompt_grows`: the sequential path, where the text of each
    window joins the prompt of the next (its share is then the most faster-whisper keeps); the
    batched path decodes one window with the initial prompt only."""
    # A batched draft's prompt is tokenized without the leading space `count` adds: one token more, at most.
    previous = half(max_length) if prompt_grows else min(half(max_length), count(prompt) + 1 if prompt else 0)
    hot = min(half(max_length), count(hotwords)) if hotwords else 0
    room = max_length - CONTROL_TOKENS - previous
    if wanted is None:
        # Unbounded (an import's 30 s windows): a prompt of 448 tokens or more fails in CTranslate2
        # ("no position encodings ... >= 448"); the window's text keeps at least this much.
        floor = UNBOUNDED_WINDOW_TOKENS
        return None, hotwords if hot + floor <= room else cut_words(count, hotwords or "", room - floor)
    if hot + wanted <= room:
        return wanted, hotwords
    floor = min(wanted, int(seconds * SPEECH_TOKENS_PER_S) + 8)
    if hot + floor <= room:
        return room - hot, hotwords
    return floor, cut_words(count, hotwords or "", room - floor)


def cut_words(count: Callable[[str], int], text: str, limit: int) -> str | None:
    """The longest run of `text`'s first words that tokenizes to at most `limit` tokens."""
    words = text.split()
    low, high = 0, len(words)  # invariant: words[:low] fits
    while low < high:
        mid = (low + high + 1) // 2
        if count(" ".join(words[:mid])) <= limit:
            low = mid
        else:
            high = mid - 1
    return " ".join(words[:low]) or None


def token_counter(model) -> Callable[[str], int]:
    """Tokens of " " + text as faster-whisper encodes prompts and hotwords."""
    tokenizer = model.hf_tokenizer
    return lambda text: len(tokenizer.encode(" " + text.strip(), add_special_tokens=False).ids)
