"""Lab: language detection and transcription on real non-English speech.

The only real recordings of other languages found on these machines' registries with a known
licence and transcript: Debian's klettres-data (KDE KLettres, GPL-2+), a native speaker per
language saying single letters and short words ("syllab" sets; their names are in sounds.xml).
Per language the words are joined with 0.4 s pauses into one clip of up to 20 s.

  python engine-host/lab/languages.py MODEL_DIR KLETTRES_DIR   (KLETTRES_DIR = .../usr/share/klettres)
"""

import json
import re
import sys
import time
from pathlib import Path

import numpy as np
from faster_whisper import WhisperModel, decode_audio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wer import word_error_rate  # noqa: E402

LANGUAGES = {"de": "de", "fr": "fr", "es": "es", "it": "it", "nl": "nl", "ru": "ru", "pt_BR": "pt", "cs": "cs", "uk": "uk", "da": "da"}
if len(sys.argv) > 3:
    LANGUAGES = {k: v for k, v in LANGUAGES.items() if k in sys.argv[3].split(",")}


def clip(root: Path, folder: str) -> tuple[np.ndarray, str]:
    xml = (root / folder / "sounds.xml").read_text(encoding="utf-8")
    section = xml.split("<syllables>", 1)[-1]  # words and syllables; the letters when there are none
    pairs = re.findall(r'<sound\s+name="([^"]+)"\s+file="([^"]+)"', section)
    pieces, words, pause = [], [], np.zeros(int(0.4 * 16000), dtype=np.float32)
    for name, file in pairs:
        try:
            audio = decode_audio(str(root / file))
        except Exception:  # a few files use a codec PyAV lacks (cs: "not yet implemented")
            continue
        pieces += [audio, pause]
        words.append(name)
        if sum(len(p) for p in pieces) > 20 * 16000:
            break
    return np.concatenate(pieces), " ".join(words)


def main() -> None:
    model = WhisperModel(sys.argv[1], device="cpu", compute_type="int8", cpu_threads=2)
    root = Path(sys.argv[2])
    for folder, code in LANGUAGES.items():
        audio, reference = clip(root, folder)
        _, _, probs = model.detect_language(audio=audio)
        ranked = sorted(probs, key=lambda p: p[1], reverse=True)
        among = {c: p for c, p in probs if c in ("en", code)}
        t = time.monotonic()
        segments, info = model.transcribe(audio, beam_size=5)
        detected_text = "".join(s.text for s in segments).strip()
        segments, _ = model.transcribe(audio, beam_size=5, language=code)
        forced_text = "".join(s.text for s in segments).strip()
        print(json.dumps({
            "language": code, "seconds": round(len(audio) / 16000, 1), "reference": reference,
            "detected": ranked[0][0], "probability": round(ranked[0][1], 3),
            "top3": [(c, round(p, 3)) for c, p in ranked[:3]],
            "among_en_and_target": max(among, key=among.get),
            "text_detected": detected_text, "wer_detected": round(word_error_rate(reference, detected_text), 3),
            "text_forced": forced_text, "wer_forced": round(word_error_rate(reference, forced_text), 3),
            "seconds_to_transcribe_twice": round(time.monotonic() - t, 2),
        }, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
