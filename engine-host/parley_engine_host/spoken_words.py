"""Where each word of a Japanese sentence falls in its synthesized audio (docs/tts.md, "Japanese").

Kokoro's ONNX export returns audio only, no durations, so word times are estimated: the
sentence's morphemes (OpenJTalk's analysis, the same one that gives the readings) share the
speech by their mora counts. Japanese is mora-timed (each mora takes about the same time), so
this beats a share by characters, where one kanji may be one mora or four. A comma or other
pause mark gets the weight of a mora's pause. Words are spans of the original text: OpenJTalk
normalizes what it reads (full-width letters, "2026" read as 二千二十六), so surfaces are matched
after NFKC normalization, and morphemes with no match in the text (numbers spelled out) take the
text between the matched ones.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

PAUSE_MARKS = set("、，,;；:：・…―—「」『』()（）")
# The pause a pause mark stands for, in morae (about one mora at a normal rate).
PAUSE_WEIGHT = 1.0
# How far past the cursor a surface may be found (characters OpenJTalk dropped: spaces, emoji).
LOOKAHEAD = 8


@dataclass
class Morpheme:
    surface: str
    morae: int
    pause: bool


@dataclass
class Word:
    """A span of the text (code-point offsets) and its share of the speech (morae)."""

    offset: int
    length: int
    weight: float
    # Morae of silence after it (a comma's pause): time that belongs to no word.
    pause: float = 0.0


def normalized_index(text: str) -> tuple[str, list[int]]:
    """NFKC form of `text` and, for each of its characters, the original character's index."""
    out, where = [], []
    for i, ch in enumerate(text):
        for n in unicodedata.normalize("NFKC", ch):
            out.append(n)
            where.append(i)
    return "".join(out), where


def align(text: str, morphemes: list[Morpheme]) -> list[Word]:
    """The words of `text` (spans in order) with the morae OpenJTalk gave them and the pauses
    after them."""
    norm, where = normalized_index(text)
    words: list[Word] = []
    cursor = 0  # in norm
    pending = 0.0  # morae of morphemes not found in the text yet

    def add_span(start: int, end: int, weight: float) -> None:
        """Original span of norm[start:end], without surrounding spaces."""
        while start < end and norm[start].isspace():
            start += 1
        while end > start and norm[end - 1].isspace():
            end -= 1
        if start >= end:
            if words:
                words[-1].weight += weight
            return
        first, last = where[start], where[end - 1]
        words.append(Word(first, last + 1 - first, weight))

    for m in morphemes:
        surface = unicodedata.normalize("NFKC", m.surface).strip()
        if not surface:
            continue
        found = norm.find(surface, cursor, cursor + len(surface) + LOOKAHEAD)
        if found < 0:
            pending += m.morae
            continue
        if pending:
            add_span(cursor, found, pending)  # e.g. "2026" for 二, 千, 二, 十, 六
            pending = 0.0
        end = found + len(surface)
        if m.pause:
            if words:
                words[-1].pause += PAUSE_WEIGHT
        elif m.morae > 0 or any(ch.isalnum() for ch in surface):
            add_span(found, end, max(1, m.morae))
        cursor = end
    if pending:
        add_span(cursor, len(norm), pending)
    return words


def morphemes_of(nodes: list[dict]) -> list[Morpheme]:
    """OpenJTalk's nodes (pyopenjtalk.run_frontend) as morphemes; symbols are pauses or silent."""
    out = []
    for node in nodes:
        surface = node.get("string", "")
        is_symbol = node.get("pos") == "記号"
        pause = is_symbol and any(ch in PAUSE_MARKS for ch in surface)
        morae = 0 if is_symbol else int(node.get("mora_size") or 0)
        out.append(Morpheme(surface, morae, pause))
    return out


def timed(words: list[Word], start: float, end: float) -> list[dict]:
    """The words spread over [start, end) seconds by weight, pauses between them:
    {offset, length (code points of the text), start, end (seconds)}."""
    if words:
        words[-1] = Word(words[-1].offset, words[-1].length, words[-1].weight)  # no pause after the last word
    total = sum(w.weight + w.pause for w in words)
    if total <= 0 or end <= start:
        return []
    scale = (end - start) / total
    out, at = [], start
    for w in words:
        out.append({"offset": w.offset, "length": w.length, "start": round(at, 3), "end": round(at + w.weight * scale, 3)})
        at += (w.weight + w.pause) * scale
    return out
