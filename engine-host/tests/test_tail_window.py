"""A fitted-window final whose first segment ends before the input does: the remainder (the end
of the input, silence) is decoded as a window of its own, where Whisper continues the previous
text instead of hearing anything. On the AMD EPYC machine of session 19 the French prompt
"Vous ne pouvez répondre à ce message car l'expéditeur ne possède pas de boîte vocale." (Asterisk's
vm-nobox, fr_CA) with 0.7 s of silence before it and 0.13 s after came back with an invented
loop after it; the live session of test/realtime/whisper-languages.test.ts ended its last final
with "Je vous invite à vous présenter, car l'expéditeur ne possède pas de bois de vocale".

Run: .venv/engine-host/bin/python -m unittest discover engine-host/tests
The recording is test material fetched by scripts/setup-test-speech.sh (data/test-speech).
"""

import subprocess
import sys
import unittest
from pathlib import Path

from test_engine_host import MODEL_DIR, ROOT, skip_reason

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NOBOX = ROOT / "data" / "test-speech" / "fr" / "vm-nobox.g722"


def why_skip() -> str | None:
    if skip_reason():
        return skip_reason()
    if not NOBOX.is_file():
        return f"{NOBOX} is missing: run scripts/setup-test-speech.sh"
    return None


@unittest.skipIf(why_skip(), why_skip())
class TailWindowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import numpy as np
        from faster_whisper import WhisperModel

        from parley_engine_host.recognizer import Recognizer

        cls.np = np
        pcm = subprocess.run(["ffmpeg", "-v", "error", "-f", "g722", "-i", str(NOBOX), "-f", "s16le", "-ar", "16000", "-ac", "1",
                              "pipe:1"], check=True, capture_output=True).stdout
        cls.speech = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768
        cls.recognizer = Recognizer(WhisperModel(str(MODEL_DIR), device="cpu", compute_type="int8", cpu_threads=2), "base")

    def test_silence_after_a_french_final_adds_no_invented_text(self):
        from parley_engine_host.recognizer import Request, run_to_end

        np = self.np
        for lead in (0.5, 0.6, 0.7, 0.8):
            tail = 5.728 - len(self.speech) / 16000 - lead
            audio = np.concatenate([np.zeros(int(lead * 16000), np.float32), self.speech,
                                    np.zeros(max(0, int(tail * 16000)), np.float32)])
            out = run_to_end(self.recognizer.transcribe(Request(audio=audio, candidates=["en", "de", "es", "fr"], window_pad=5.0,
                                                                window_fallback="full", word_timestamps=True)))
            with self.subTest(lead=lead):
                self.assertEqual(out["language_code"], "fr")
                self.assertEqual(out["text"].count("expéditeur"), 1, out["text"])
                self.assertLessEqual(len(out["text"].split()), 16, out["text"])


if __name__ == "__main__":
    unittest.main()
