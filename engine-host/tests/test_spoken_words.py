"""Word spans and times of Japanese speech (parley_engine_host/spoken_words.py) and how the
speech module cuts text (sentences, model-sized token runs): pure functions, no model needed.

Run: .venv/engine-host/bin/python -m unittest discover engine-host/tests
"""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parley_engine_host.spoken_words import Morpheme, align, morphemes_of, timed  # noqa: E402


def node(surface: str, morae: int, pos: str = "名詞") -> dict:
    return {"string": surface, "mora_size": morae, "pos": pos}


def spans(text: str, words) -> list[str]:
    return [text[w.offset:w.offset + w.length] for w in words]


class AlignTest(unittest.TestCase):
    def test_morphemes_are_spans_of_the_text_with_their_morae(self):
        text = "会議は、午後から。"
        words = align(text, morphemes_of([node("会議", 3), node("は", 1, "助詞"), node("、", 0, "記号"),
                                          node("午後", 2), node("から", 2, "助詞"), node("。", 0, "記号")]))
        self.assertEqual(spans(text, words), ["会議", "は", "午後", "から"])
        self.assertEqual([w.weight for w in words], [3, 1, 2, 2])
        self.assertEqual([w.pause for w in words], [0, 1.0, 0, 0])  # the comma's pause follows は

    def test_normalized_surfaces_match_the_original_characters(self):
        # OpenJTalk reports full-width letters and digits for half-width input.
        text = "AIの10月"
        words = align(text, morphemes_of([node("ＡＩ", 4), node("の", 1, "助詞"), node("１０月", 4)]))
        self.assertEqual(spans(text, words), ["AI", "の", "10月"])

    def test_numbers_read_out_take_the_digits_they_stand_for(self):
        # "2026年" is read 二千二十六年: five morphemes with no match in the text share "2026".
        text = "2026年です"
        words = align(text, morphemes_of([node("二", 1), node("千", 2), node("二", 1), node("十", 2), node("六", 2),
                                          node("年", 2), node("です", 2, "助動詞")]))
        self.assertEqual(spans(text, words), ["2026", "年", "です"])
        self.assertEqual(words[0].weight, 8)

    def test_skipped_characters_and_unmatched_tail(self):
        text = "はい 🙂 そうです"
        words = align(text, [Morpheme("はい", 2, False), Morpheme("そう", 2, False), Morpheme("です", 2, False)])
        self.assertEqual(spans(text, words), ["はい", "そう", "です"])
        # Morphemes never found at the end take the rest of the text.
        words = align("三時", [Morpheme("さん", 2, False), Morpheme("じ", 1, False)])
        self.assertEqual(spans("三時", words), ["三時"])
        self.assertEqual(words[0].weight, 3)

    def test_nothing_to_align(self):
        self.assertEqual(align("。", morphemes_of([node("。", 0, "記号")])), [])
        self.assertEqual(timed([], 0.0, 1.0), [])


class TimedTest(unittest.TestCase):
    def test_words_share_the_speech_by_morae_and_pauses_separate_them(self):
        text = "会議は、午後"
        words = align(text, morphemes_of([node("会議", 3), node("は", 1, "助詞"), node("、", 0, "記号"), node("午後", 2)]))
        out = timed(words, 0.05, 1.45)  # 7 units (3 + 1 + pause 1 + 2) over 1.4 s
        self.assertEqual([(w["offset"], w["length"]) for w in out], [(0, 2), (2, 1), (4, 2)])
        self.assertAlmostEqual(out[0]["start"], 0.05)
        self.assertAlmostEqual(out[0]["end"], 0.65)
        self.assertAlmostEqual(out[1]["end"], 0.85)
        self.assertAlmostEqual(out[2]["start"], 1.05)  # after the comma's 0.2 s
        self.assertAlmostEqual(out[2]["end"], 1.45)

    def test_no_pause_counted_after_the_last_word(self):
        words = align("はい、", morphemes_of([node("はい", 2, "感動詞"), node("、", 0, "記号")]))
        self.assertEqual(timed(words, 0.0, 1.0), [{"offset": 0, "length": 2, "start": 0.0, "end": 1.0}])


class CuttingTest(unittest.TestCase):
    def test_sentences_keep_their_offsets(self):
        from parley_engine_host.speech import sentences

        self.assertEqual(sentences("はい。そうです！\nまた"), [(0, "はい。"), (3, "そうです！\n"), (9, "また")])
        self.assertEqual(sentences("  "), [])

    def test_long_token_runs_are_cut_at_a_break_within_the_model_limit(self):
        from parley_engine_host.speech import MAX_PHONEMES, chunks

        tokens = ([1] * 300 + [16]) * 3  # 16: a space
        runs = chunks(tokens, {16})
        self.assertEqual(sum(len(r) for r in runs), len(tokens))
        self.assertTrue(all(len(r) <= MAX_PHONEMES for r in runs))
        self.assertEqual(runs[0][-1], 16)
        self.assertEqual(len(chunks([1] * 1200, {16})[0]), MAX_PHONEMES)  # no break: cut at the limit
        self.assertEqual(chunks([], {16}), [])


if __name__ == "__main__":
    unittest.main()
