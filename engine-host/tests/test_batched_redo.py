"""Finals of one batch that loop are decoded again together (recognizer.py, `redo_batch`).

Run: .venv/engine-host/bin/python -m unittest discover engine-host/tests
In-process, on the real Whisper base model; skips (with the reason) as test_engine_host does.
"""

from __future__ import annotations

import dataclasses
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_engine_host import MODEL_DIR, jfk_flac, skip_reason, wav_16k_mono  # noqa: E402


@unittest.skipIf(skip_reason(), skip_reason())
class BatchedRedoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import numpy as np
        from faster_whisper import WhisperModel
        from parley_engine_host.recognizer import Recognizer

        cls.model = WhisperModel(str(MODEL_DIR), device="cpu", compute_type="int8", cpu_threads=2)
        cls.recognizer = Recognizer(cls.model, "base")
        jfk = np.frombuffer(wav_16k_mono(jfk_flac())[44:], dtype="<i2").astype(np.float32) / 32768
        # jfk streamed twice, as the VAD cuts it: the second "And so my fellow Americans" with
        # 124 ms of the first "country" before it (loops at a 5 s pad on Intel Xeon, not on AMD EPYC).
        cls.audio = np.concatenate([jfk, jfk])[int(10.876 * 16000):int(13.564 * 16000)]

    def watch(self, first_loops: bool):
        """Records every decode: ("batch", size, pad) or ("alone", pad). With `first_loops`, the
        first batch's texts are said twice, so the loop (and the redo under test) are certain."""
        from parley_engine_host import recognizer as module

        seen: list[tuple] = []
        real_batch, real_decode = module.decode_batch, self.recognizer.decode

        def decode_batch(model, requests, window_pad=None):
            seen.append(("batch", len(requests), window_pad or requests[0].window_pad))
            out = real_batch(model, requests, window_pad)
            if first_loops and len(seen) == 1:
                out = [([dataclasses.replace(s, text=f"{s.text} {s.text.strip()}") for s in segments], duration, retry)
                       for segments, duration, retry in out]
            return out

        def decode(request, language, window_pad):
            seen.append(("alone", window_pad))
            return (yield from real_decode(request, language, window_pad))

        module.decode_batch, self.recognizer.decode = decode_batch, decode
        self.addCleanup(lambda: (setattr(module, "decode_batch", real_batch), delattr(self.recognizer, "decode")))
        return seen

    def finals(self, count: int):
        from parley_engine_host.recognizer import Request

        return [Request(audio=self.audio.copy(), language="en", window_pad=5, window_fallback="full",
                        word_timestamps=True, beam_size=5) for _ in range(count)]

    def test_looping_finals_of_a_batch_are_decoded_again_together_at_a_wider_pad(self):
        seen = self.watch(first_loops=True)
        results = self.recognizer.transcribe_batch(self.finals(3))
        self.assertEqual([r["text"].rstrip(".!") for r in results], ["And so my fellow Americans"] * 3)
        # One batch at the request's pad, one at the redo's: not three decodes one after another.
        self.assertEqual(seen, [("batch", 3, 5), ("batch", 3, 10)])
        self.assertTrue(all(r["words"] for r in results))

    def test_a_final_that_still_loops_at_the_wider_pad_goes_alone_to_the_30_s_window(self):
        from parley_engine_host import recognizer as module

        seen = self.watch(first_loops=False)
        real_batch = module.decode_batch

        def always_loops(model, requests, window_pad=None):
            out = real_batch(model, requests, window_pad)
            return [([dataclasses.replace(s, text=f"{s.text} {s.text.strip()} {s.text.strip()}") for s in segments],
                     duration, retry) for segments, duration, retry in out]

        module.decode_batch = always_loops
        results = self.recognizer.transcribe_batch(self.finals(2))
        self.assertEqual([r["text"].rstrip(".!") for r in results], ["And so my fellow Americans"] * 2)
        self.assertEqual(seen, [("batch", 2, 5), ("batch", 2, 10), ("alone", None), ("alone", None)])


if __name__ == "__main__":
    unittest.main()
