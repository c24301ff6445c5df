"""Lab: WER, real-time factor, load time and memory of one model at one thread count, in-process.

  python engine-host/lab/accuracy.py MODEL_DIR THREADS [REPEATS]   -> one JSON line on stdout
Run each configuration in its own process so that memory figures are its own.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import english_clips  # noqa: E402
from wer import normalize_words, word_error_rate  # noqa: E402


def rss_mb() -> dict:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024)
    return fields


def main() -> None:
    model_dir, threads = Path(sys.argv[1]), int(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    from faster_whisper import WhisperModel, decode_audio

    base_rss = rss_mb()["VmRSS"]
    started = time.monotonic()
    model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=threads)
    load_s = time.monotonic() - started
    after_load = rss_mb()["VmRSS"]
    english_only = not model.model.is_multilingual
    language = "en"
    rows, errors, words, audio_s, best_total, totals = [], 0.0, 0, 0.0, None, []
    clips = english_clips(Path("/tmp/parley-lab"))
    audios = {name: decode_audio(str(path)) for name, path, _ in clips}
    for attempt in range(repeats):
        total = 0.0
        for name, path, reference in clips:
            audio = audios[name]
            t = time.monotonic()
            segments, _ = model.transcribe(audio, language=None if english_only else language, beam_size=5)
            text = "".join(s.text for s in segments).strip()
            elapsed = time.monotonic() - t
            total += elapsed
            if attempt == 0:
                n = len(normalize_words(reference))
                w = word_error_rate(reference, text)
                rows.append({"clip": name, "seconds": round(len(audio) / 16000, 2), "wer": round(w, 4), "text": text, "times": []})
                errors += w * n
                words += n
                audio_s += len(audio) / 16000
            next(r for r in rows if r["clip"] == name)["times"].append(round(elapsed, 3))
        totals.append(total)
    keywords = {}
    mk = decode_audio("/work/shared/audio/multiple_keywords.wav")
    for label, options in [("plain", {}), ("hotwords", {"hotwords": "Picovoice"}), ("prompt", {"initial_prompt": "Picovoice"}),
                           ("both", {"hotwords": "Picovoice", "initial_prompt": "Picovoice"})]:
        segments, _ = model.transcribe(mk, language="en", beam_size=5, **options)
        text = "".join(s.text for s in segments)
        keywords[label] = {"picovoice_heard": "picovoice" in normalize_words(text), "text": text.strip()}
    print(json.dumps({
        "model": model_dir.name, "threads": threads, "load_s": round(load_s, 2),
        "rss_mb": {"python_and_libs": base_rss, "after_load": after_load, **rss_mb()},
        "wer_all": round(errors / words, 4), "audio_s": round(audio_s, 2),
        "rtf_best": round(min(totals) / audio_s, 3), "rtf_worst": round(max(totals) / audio_s, 3),
        "clips": rows, "keywords": keywords,
    }))


if __name__ == "__main__":
    main()
