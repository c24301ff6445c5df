"""The prompt budget (token_budget.py): a bounded decode with a long glossary fits Whisper's 448
tokens instead of failing with faster-whisper's ValueError (a 500 recognition_failed).

Run: .venv/engine-host/bin/python -m unittest discover engine-host/tests
"""

import subprocess
import sys
import unittest
from pathlib import Path

from test_engine_host import JFK_TEXT, MODEL_DIR, jfk_flac, skip_reason, wav_16k_mono, word_error_rate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from parley_engine_host.token_budget import cut_words, fit  # noqa: E402

LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav")
TERMS_50 = (
    "Kubernetes PostgreSQL Picovoice TensorFlow Fastify Grafana Prometheus Terraform Ansible Jenkins Kafka Elasticsearch "
    "Kibana Redis Nginx Webpack Vite Svelte Angular Django Laravel Symfony Kotlin Haskell Erlang Elixir Clojure Scala Rust "
    "Golang Deno Bun Vercel Netlify Cloudflare Dropbox Figma Notion Trello Jira Confluence Slack Zoom Miro Zapier Stripe "
    "Shopify Twilio Okta Auth0"
).split()
# 150 terms: more than faster-whisper keeps of either the hotwords or the prompt (223 tokens each).
TERMS_150 = TERMS_50 + [f"{t}Cloud" for t in TERMS_50] + [f"{t}Hub" for t in TERMS_50]


def words(text: str) -> int:
    """A stand-in tokenizer for the arithmetic: one token per word."""
    return len(text.split())


class FitTest(unittest.TestCase):
    def test_without_hotwords_the_bound_is_kept(self):
        self.assertEqual(fit(words, 448, 220, 30, "a " * 300, None, prompt_grows=True), (220, None))
        self.assertEqual(fit(words, 448, 176, 10, None, None, prompt_grows=False), (176, None))

    def test_hotwords_that_fit_are_kept_with_the_bound(self):
        self.assertEqual(fit(words, 448, 100, 5, None, "x " * 50, prompt_grows=True), (100, "x " * 50))

    def test_the_bound_comes_down_to_the_room_left_not_below_real_speech(self):
        # 448 - 5 control - 223 previous - 109 hotwords = 111 left of the 129 asked for.
        hot = " ".join(["w"] * 109)
        self.assertEqual(fit(words, 448, 129, 7.2, "p", hot, prompt_grows=True), (111, hot))

    def test_hotwords_are_cut_last_terms_first_when_even_real_speech_would_not_fit(self):
        hot = " ".join(f"t{i}" for i in range(223))
        bound, kept = fit(words, 448, 208, 25, None, hot, prompt_grows=True)
        self.assertEqual(bound, 158)  # 25 s x 6 + 8
        self.assertEqual(kept, " ".join(f"t{i}" for i in range(448 - 5 - 223 - 158)))

    def test_the_batched_path_counts_the_initial_prompt_only(self):
        hot = " ".join(["w"] * 150)
        self.assertEqual(fit(words, 448, 200, 24, "p " * 100, hot, prompt_grows=False), (192, hot))  # 448 - 5 - (100 + 1) - 150

    def test_prompt_and_bound_always_fit(self):
        for hot_n in (0, 10, 100, 223, 400):
            for wanted in (16, 64, 129, 176, 220):
                for grows in (True, False):
                    hot = " ".join(["w"] * hot_n) or None
                    bound, kept = fit(words, 448, wanted, wanted / 8, "p " * 300, hot, prompt_grows=grows)
                    kept_n = min(223, words(kept)) if kept else 0
                    # The prompt's share is 223 either way here (300 words of initial prompt).
                    self.assertLessEqual(5 + kept_n + 223 + bound, 448, (hot_n, wanted, grows))
                    self.assertGreater(bound, 0)

    def test_an_unbounded_decode_keeps_room_for_a_window_of_text(self):
        self.assertEqual(fit(words, 448, None, 33, "p", "w " * 100, prompt_grows=True), (None, "w " * 100))
        hot = " ".join(f"t{i}" for i in range(223))
        self.assertEqual(fit(words, 448, None, 33, "p", hot, prompt_grows=True),
                         (None, " ".join(f"t{i}" for i in range(448 - 5 - 223 - 100))))

    def test_cut_words_keeps_whole_words(self):
        self.assertEqual(cut_words(words, "a b c d", 2), "a b")
        self.assertIsNone(cut_words(words, "a b", 0))


@unittest.skipIf(skip_reason(), skip_reason())
class LongGlossaryTest(unittest.TestCase):
    """The real model: each of these decodes raised ValueError before the budget."""

    @classmethod
    def setUpClass(cls):
        import numpy as np
        from faster_whisper import WhisperModel
        from parley_engine_host.recognizer import Recognizer

        cls.np = np
        cls.model = WhisperModel(str(MODEL_DIR), device="cpu", compute_type="int8", cpu_threads=2)
        cls.recognizer = Recognizer(cls.model, "base")
        cls.jfk = np.frombuffer(wav_16k_mono(jfk_flac())[44:], dtype="<i2").astype(np.float32) / 32768

    def request(self, audio, terms, **fields):
        from parley_engine_host.recognizer import Request

        return Request(audio=audio, language="en", prompt=", ".join(terms) + ".", hotwords=" ".join(terms),
                       word_timestamps=True, **fields)

    def test_a_fitted_final_with_150_terms(self):
        from parley_engine_host.recognizer import run_to_end

        result = run_to_end(self.recognizer.transcribe(
            self.request(self.jfk, TERMS_150, window_pad=5, window_fallback="full")))
        self.assertLessEqual(word_error_rate(JFK_TEXT, result["text"]), 0.1, result["text"])

    def test_batched_drafts_and_finals_with_150_terms(self):
        first, second = self.jfk[:16000 * 4], self.jfk[16000 * 4:16000 * 8]
        drafts = [self.request(a, TERMS_150, window_pad=2, window_fallback="trim", beam_size=1) for a in (first, second)]
        finals = [self.request(a, TERMS_150, window_pad=5, window_fallback="full") for a in (first, second)]
        for batch in (drafts, finals):
            results = self.recognizer.transcribe_batch(batch)
            self.assertEqual(len(results), 2)
        self.assertIn("fellow americans", results[0]["text"].lower())

    def test_an_import_of_three_windows_with_150_terms(self):
        from parley_engine_host.recognizer import run_to_end

        # CTranslate2 refused the second window ("No position encodings ... >= 448").
        audio = self.np.concatenate([self.jfk, self.jfk, self.jfk])
        result = run_to_end(self.recognizer.transcribe(self.request(audio, TERMS_150)))
        # Decoded to the end: every window ran (the second one raised before). What 150
        # capitalized hotwords do to the text is not asserted beyond the first window's: casing, a
        # word or two, and at the ladder's higher temperatures a repeated clause or later windows
        # whose words score as invented and are dropped (21 words in one run of session 19's
        # CI pre-check, 30+ in others: run to run).
        self.assertEqual(result["duration"], round(len(audio) / 16000, 3))
        self.assertIn("fellow americans", result["text"].lower(), result["text"])

    @unittest.skipUnless(LIBRIVOX.is_file(), "Debian's pocketsphinx-testdata is not installed")
    def test_a_short_import_with_50_terms_whose_second_pass_carries_the_first_text(self):
        from parley_engine_host.recognizer import run_to_end

        pcm = subprocess.run(["ffmpeg", "-v", "quiet", "-i", str(LIBRIVOX), "-ar", "16000", "-ac", "1", "-f", "s16le", "-"],
                             capture_output=True, check=True).stdout
        audio = self.np.frombuffer(pcm, dtype="<i2").astype(self.np.float32) / 32768
        result = run_to_end(self.recognizer.transcribe(self.request(audio, TERMS_50)))
        self.assertIn("John Dashwood", result["text"])


if __name__ == "__main__":
    unittest.main()
