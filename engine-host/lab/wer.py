"""Word error rate for the lab, the same normalization as src/engines/quality/wer.ts."""

import re

SPELLING_EQUIVALENCES = {"mr": "mister", "mrs": "missus", "ok": "okay"}


def normalize_words(text: str) -> list[str]:
    cleaned = re.sub(r"[^\w'\s]|_", " ", text.lower())
    return [SPELLING_EQUIVALENCES.get(w, w) for w in cleaned.split()]


def word_error_rate(reference: str, hypothesis: str) -> float:
    r, h = normalize_words(reference), normalize_words(hypothesis)
    if not r:
        return 0.0 if not h else 1.0
    prev = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        cur = [i]
        for j in range(1, len(h) + 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r[i - 1] != h[j - 1])))
        prev = cur
    return prev[len(h)] / len(r)
